/**
 * Invariant suites again on the portable backend with the native GEMM installed
 * (nativeGemm.node.ts: its kernel with the WebAssembly kernel's bits), on x86-64 where
 * `npm run build` builds it: the dense eigen-solvers, the SVD and LOBPCG through it, the
 * helper threads' same-bits guarantees with native helpers, the screened and pruned
 * neighbour searches (which rebuild a full scan's distances from small products), the
 * resident products of the large fits and agreement with the reference fixtures. The
 * suites themselves run on the default ("fast", its fused native kernels) in `npm test`,
 * test/slow/wasmKernels.test.ts reruns them in the WebAssembly module, and
 * test/linalg/nativeGemm.test.ts checks the native kernel's bits against the
 * WebAssembly kernel's directly; this rerun is `npm run test:slow`. Both reruns take
 * their list of suites from invariantSuites.ts.
 */
import { describe, expect, it } from "vitest";
import { setNativeKernels } from "#internal/linalg/kernels/nativeGemm.node.js";
import {
  externalGemmInstalled,
  kernelBackend,
  setKernelBackend,
} from "#internal/linalg/kernels/wasm/backend.js";
import { importInvariantSuites } from "./invariantSuites.js";

const nativeWanted =
  process.arch === "x64" && !/^(0|off|false|no)$/i.test(process.env.SDSPCAAN_NATIVE?.trim() ?? "");
setKernelBackend("portable");
if (nativeWanted) setNativeKernels(true);

describe.skipIf(!nativeWanted)("the suites below", () => {
  it("run with the native GEMM of the portable backend", () => {
    expect(externalGemmInstalled()).toBe(true);
    expect(kernelBackend()).toBe("wasm");
  });
});

if (nativeWanted) {
  await importInvariantSuites();
}
