/**
 * The invariant suites nativeKernels.test.ts and wasmKernels.test.ts run again on the
 * kernels they choose: a test file imported from another registers its tests there.
 */
export async function importInvariantSuites(): Promise<void> {
  await import("../linalg/kernels/gemm.test.js");
  await import("../linalg/eigen/symmetricEigen.test.js");
  await import("../linalg/svd.test.js");
  await import("../linalg/generalizedEigen.test.js");
  await import("../linalg/eigen/lobpcg.test.js");
  await import("../threads/helperThread.test.js");
  await import("./helperThreadFit.test.js");
  await import("../linalg/kernels/screenedSearch.test.js");
  await import("../linalg/kernels/distances.test.js");
  await import("../linalg/eigen/referenceFixtures.test.js");
  await import("../methods/zstep/gramOperator.test.js");
  await import("../methods/reference.test.js");
  await import("../methods/zstep/zLiftedStart.test.js");
}
