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

/**
 * Test files that change process-wide state: the kernel backend, helper threads, the
 * native GEMM, the Q-loop's test settings, the HDF5 reader, the figure font, the
 * environment or the working directory. Each runs in a fresh module graph. The other
 * files share one graph per worker process (`isolate: false`), which saves loading and
 * compiling the library once per file: about a quarter of the suite's CPU time.
 * test/project/isolation.test.ts keeps this list complete.
 */
export const ISOLATED_TEST_FILES = [
  "test/cli/cli.test.ts",
  "test/cli/cluster.test.ts",
  "test/cli/demo.test.ts",
  "test/graph/clusterScan.test.ts",
  "test/graph/rankControlBeside.test.ts",
  "test/graph/trackedNeighbours.test.ts",
  "test/io/cli.test.ts",
  "test/linalg/fastGemm.test.ts",
  "test/linalg/gemm.test.ts",
  "test/linalg/helperThread.test.ts",
  "test/linalg/householderWasm.test.ts",
  "test/linalg/nativeGemm.test.ts",
  "test/linalg/screenedSearch.test.ts",
  "test/linalg/tridiagonalWasm.test.ts",
  "test/linalg/trsm.test.ts",
  "test/linalg/wasmBackend.test.ts",
  "test/methods/gramOperator.test.ts",
  "test/methods/sdspcaFamily.test.ts",
  "test/methods/zKrylovStart.test.ts",
  "test/methods/zPreconditioner.test.ts",
  "test/plot/render.test.ts",
  "test/project/browserSafeCore.test.ts",
  "test/project/package.test.ts",
];

// The browser tests need Chromium: `npm run test:e2e` (vitest.e2e.config.ts) runs them.
// test/slow/ holds the checks that must stay large: `npm run test:slow`
// (vitest.slow.config.ts) runs them, and CI runs both.
const excluded = [...configDefaults.exclude, "test/e2e/**", "test/slow/**"];

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // The kernels a Node user gets by default (the native GEMM where it was built).
    setupFiles: ["test/helpers/defaultKernels.ts"],
    // vitest's default, one core less than the machine has, is a single worker on two
    // cores, which leaves one core idle while the worker runs the tests.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        extends: true,
        test: { name: "isolated", include: ISOLATED_TEST_FILES, exclude: excluded },
      },
      {
        extends: true,
        test: {
          name: "shared",
          include: ["test/**/*.test.ts"],
          exclude: [...excluded, ...ISOLATED_TEST_FILES],
          isolate: false,
        },
      },
    ],
  },
});
