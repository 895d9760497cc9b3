import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The browser tests need Chromium: `npm run test:e2e` (vitest.e2e.config.ts) runs them.
    exclude: [...configDefaults.exclude, "test/e2e/**"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
