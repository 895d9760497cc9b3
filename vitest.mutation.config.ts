import { configDefaults, defineConfig } from "vitest/config";
import { sourceAliases } from "./vitest.shared.js";

/**
 * The tests Stryker runs against each mutant of the readers and the pipeline
 * (stryker.config.mjs, `npm run test:mutation`): those that read files, decode them and
 * save or reload models and pipelines. One project, each file isolated, as Stryker's
 * per-test coverage needs.
 */
export const MUTATION_TEST_FILES = [
  "packages/sdspcaan/test/formats/**/*.test.ts",
  "packages/sdspcaan/test/methods/pipeline*.test.ts",
  "packages/sdspcaan/test/methods/modelFormat*.test.ts",
  "packages/sdspcaan/test/methods/featureNames.test.ts",
  "packages/sdspcaan-hdf5/test/**/*.test.ts",
  "packages/sdspcaan-cli/test/io/**/*.test.ts",
  "packages/sdspcaan-cli/test/badInput/**/*.test.ts",
];

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    include: MUTATION_TEST_FILES,
    // Not the readers' tests: the writers' file-system errors mount file systems of their own
    // (two Stryker runners at once collide on them), and the CLI's process tests run the
    // built command, which no mutant reaches.
    exclude: [
      ...configDefaults.exclude,
      "test/e2e/**",
      "**/test/slow/**",
      "packages/sdspcaan-cli/test/io/fileErrors.test.ts",
      "packages/sdspcaan-cli/test/io/fetch.test.ts",
      "packages/sdspcaan-cli/test/io/cli.test.ts",
    ],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
