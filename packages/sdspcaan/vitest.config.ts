/** The library's suite alone: `npx vitest run` here (the root configuration runs every package's). */
import { defineConfig } from "vitest/config";
import { packageProjects } from "../../vitest.shared.js";

/** Test files that change process-wide state (see packageProjects). */
export const ISOLATED_TEST_FILES = [
  "test/graph/clusterScan.test.ts",
  "test/graph/rankControlBeside.test.ts",
  "test/graph/trackedNeighbours.test.ts",
  "test/linalg/eigen/householderWasm.test.ts",
  "test/linalg/eigen/tridiagonalWasm.test.ts",
  "test/linalg/kernels/fastGemm.test.ts",
  "test/linalg/kernels/gemm.test.ts",
  "test/linalg/kernels/nativeGemm.test.ts",
  "test/linalg/kernels/screenedSearch.test.ts",
  "test/linalg/kernels/wasm/backend.test.ts",
  "test/linalg/orthogonalize.test.ts",
  "test/methods/sdspcaFamily.test.ts",
  "test/methods/zstep/gramOperator.test.ts",
  "test/methods/zstep/zKrylovStart.test.ts",
  "test/methods/zstep/zPreconditioner.test.ts",
  "test/threads/helperThread.test.ts",
];

export default defineConfig({
  test: { projects: packageProjects("sdspcaan", ".", ISOLATED_TEST_FILES) },
});
