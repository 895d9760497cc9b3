/**
 * The linear-algebra invariant suites again, on the pure TypeScript kernels (the
 * fallback where WebAssembly SIMD is missing). The suites themselves run on the
 * default backend (wasm in Node 20) in their own files.
 */
import { describe, expect, it } from "vitest";
import {
  kernelBackend,
  setKernelBackend,
} from "../../packages/sdspcaan/src/linalg/kernels/wasm/backend.js";

setKernelBackend("ts");

describe("the suites below", () => {
  it("run on the TypeScript kernels", () => {
    expect(kernelBackend()).toBe("ts");
  });
});

await import("./gemm.test.js");
await import("./symmetricEigen.test.js");
await import("./tridiagonal.test.js");
await import("./svd.test.js");
await import("./generalizedEigen.test.js");
await import("./lobpcg.test.js");
