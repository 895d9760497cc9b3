/**
 * The linear-algebra invariant suites again, on the pure TypeScript kernels (the
 * fallback where WebAssembly SIMD is missing). The suites themselves run on the
 * default backend (wasm in Node 20) in `npm test`, and test/linalg/wasmBackend.test.ts
 * checks the two backends' products against each other there; this rerun is
 * `npm run test:slow`.
 */
import { describe, expect, it } from "vitest";
import { kernelBackend, setKernelBackend } from "#internal/linalg/kernels/wasm/backend.js";

setKernelBackend("ts");

describe("the suites below", () => {
  it("run on the TypeScript kernels", () => {
    expect(kernelBackend()).toBe("ts");
  });
});

await import("../linalg/kernels/gemm.test.js");
await import("../linalg/eigen/symmetricEigen.test.js");
await import("../linalg/eigen/tridiagonal.test.js");
await import("../linalg/svd.test.js");
await import("../linalg/generalizedEigen.test.js");
await import("../linalg/eigen/lobpcg.test.js");
