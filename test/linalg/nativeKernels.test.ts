/**
 * Invariant suites again with the native GEMM installed (nativeGemm.node.ts), on
 * x86-64 where `npm run build` builds it: the dense eigen-solvers, the SVD and LOBPCG
 * through it, the screened and pruned neighbour searches (which rebuild a full scan's
 * distances from small products), the resident products of the large fits and
 * agreement with the reference fixtures. The suites themselves run on the WebAssembly
 * kernel in their own files; nativeGemm.test.ts tests the kernel itself, with two
 * threads too. The helper threads' same-bits guarantees with native helpers take most
 * of the time of a rerun: test/slow/nativeHelperThreads.test.ts runs them.
 */
import { describe, expect, it } from "vitest";
import { setNativeKernels } from "../../packages/sdspcaan/src/linalg/kernels/nativeGemm.node.js";
import { externalGemmInstalled } from "../../packages/sdspcaan/src/linalg/kernels/wasm/backend.js";

const nativeWanted =
  process.arch === "x64" && !/^(0|off|false|no)$/i.test(process.env.SDSPCAAN_NATIVE?.trim() ?? "");
if (nativeWanted) setNativeKernels(true);

describe.skipIf(!nativeWanted)("the suites below", () => {
  it("run with the native GEMM", () => {
    expect(externalGemmInstalled()).toBe(true);
  });
});

if (nativeWanted) {
  await import("./gemm.test.js");
  await import("./symmetricEigen.test.js");
  await import("./svd.test.js");
  await import("./generalizedEigen.test.js");
  await import("./lobpcg.test.js");
  await import("./screenedSearch.test.js");
  await import("./distances.test.js");
  await import("./fixtures.test.js");
  await import("../methods/gramOperator.test.js");
  await import("../methods/reference.test.js");
  await import("../methods/zLiftedStart.test.js");
}
