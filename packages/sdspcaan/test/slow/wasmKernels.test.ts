/**
 * Invariant suites again on the portable backend's WebAssembly kernels alone (no native
 * GEMM): what `npm test` ran before the "fast" backend became the default, which now
 * runs them with its fused native kernels. The same list as nativeKernels.test.ts (invariantSuites.ts);
 * `npm run test:slow`.
 */
import { describe, expect, it } from "vitest";
import { setNativeKernels } from "#internal/linalg/kernels/nativeGemm.node.js";
import {
  externalGemmInstalled,
  kernelBackend,
  setKernelBackend,
} from "#internal/linalg/kernels/wasm/backend.js";
import { importInvariantSuites } from "./invariantSuites.js";

setKernelBackend("portable");
setNativeKernels(false);

describe("the suites below", () => {
  it("run on the WebAssembly module's kernels", () => {
    expect(kernelBackend()).toBe("wasm");
    expect(externalGemmInstalled()).toBe(false);
  });
});

await importInvariantSuites();
