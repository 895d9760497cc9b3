import { defineConfig } from "vitest/config";
import { defaultKernelsSetup, sourceAliases } from "./vitest.shared.js";

/**
 * The checks that must stay large (a fit above a size threshold, a spectrum that needs
 * k = 50) and the invariant suites again on the native kernels' helper threads:
 * `npm run test:slow`, run by .ci/run after `npm test`. Kept out of `npm test` so that
 * the suite a developer runs after every change stays within two minutes.
 */
export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ["packages/*/test/slow/**/*.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    pool: "forks",
    setupFiles: [defaultKernelsSetup],
  },
});
