/**
 * Invariant suites again on the portable backend's WebAssembly kernels alone (no native
 * GEMM): what `npm test` ran before the "fast" backend became the default, which now
 * runs them with its fused native kernels. The same list as nativeKernels.test.ts;
 * `npm run test:slow`.
 */
import { describe, expect, it } from "vitest";
import { setNativeKernels } from "#internal/linalg/kernels/nativeGemm.node.js";
import {
  externalGemmInstalled,
  kernelBackend,
  setKernelBackend,
} from "#internal/linalg/kernels/wasm/backend.js";

setKernelBackend("portable");
setNativeKernels(false);

describe("the suites below", () => {
  it("run on the WebAssembly module's kernels", () => {
    expect(kernelBackend()).toBe("wasm");
    expect(externalGemmInstalled()).toBe(false);
  });
});

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
