import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

/** The packages' own names resolve to their sources, as tsconfig.json's `paths` say. */
export const sourceAliases = [
  ["sdspcaan/formats", "packages/sdspcaan/src/formats/index.ts"],
  ["sdspcaan/methods", "packages/sdspcaan/src/methods/index.ts"],
  ["sdspcaan/node", "packages/sdspcaan/src/node.ts"],
  ["sdspcaan/worker", "packages/sdspcaan/src/worker/index.ts"],
  ["sdspcaan-hdf5", "packages/sdspcaan-hdf5/src/index.ts"],
  ["sdspcaan", "packages/sdspcaan/src/index.ts"],
].map(([name, path]) => ({
  find: new RegExp(`^${name}$`),
  replacement: fileURLToPath(new URL(path, import.meta.url)),
}));

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: ["test/**/*.test.ts"],
    // The browser tests need Chromium: `npm run test:e2e` (vitest.e2e.config.ts) runs them.
    // test/slow/ holds the checks that must stay large: `npm run test:slow`
    // (vitest.slow.config.ts) runs them, and CI runs both.
    exclude: [...configDefaults.exclude, "test/e2e/**", "test/slow/**"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // vitest's default, one core less than the machine has, is a single worker on two
    // cores, which leaves one core idle while the worker runs the tests.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
