import { defineConfig } from "vitest/config";
import { sourceAliases } from "./vitest.shared.js";

/**
 * The end-to-end tests: the playground in a real headless Chromium (npm run test:e2e,
 * run by .ci/run after npm test). Kept out of `npm test` because they need a browser.
 */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ["test/e2e/**/*.e2e.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
    fileParallelism: false,
  },
});
