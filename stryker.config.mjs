// Mutation testing of the file readers and the pipeline (`npm run test:mutation`,
// scripts/mutation.mjs): Stryker mutates whole files and runs the tests that cover each
// mutant (vitest.mutation.config.ts). scripts/mutation.mjs fails when any file's score is
// under THRESHOLD_PER_FILE; Stryker's own `break` is the same bound over all of them.
/** The files whose mutants the readers' and the pipeline's tests must kill. */
export const MUTATED_FILES = [
  "packages/sdspcaan/src/formats/matV4.ts",
  "packages/sdspcaan/src/formats/matV5.ts",
  "packages/sdspcaan/src/formats/matV5Elements.ts",
  "packages/sdspcaan/src/formats/csv.ts",
  "packages/sdspcaan/src/formats/csvCells.ts",
  "packages/sdspcaan/src/formats/csvColumns.ts",
  "packages/sdspcaan/src/formats/csvSniff.ts",
  "packages/sdspcaan/src/formats/csvTokenizer.ts",
  "packages/sdspcaan/src/formats/npy.ts",
  "packages/sdspcaan/src/formats/idx.ts",
  "packages/sdspcaan-hdf5/src/matV73.ts",
  "packages/sdspcaan/src/methods/modelFormat.ts",
  "packages/sdspcaan/src/methods/pipelineFormat.ts",
  "packages/sdspcaan/src/methods/pipeline.ts",
];

export const THRESHOLD_PER_FILE = 85;

/**
 * The committed results of the last run of each file (Stryker's incremental report):
 * `npm run test:mutation` re-tests only what changed since and records its files here.
 */
export const INCREMENTAL_FILE = "stryker.incremental.json";

/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: MUTATED_FILES,
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 20_000,
  thresholds: { high: 90, low: THRESHOLD_PER_FILE, break: THRESHOLD_PER_FILE },
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: "out/mutation/mutation.json" },
  tempDirName: "out/stryker-tmp",
  cleanTempDir: "always",
};
