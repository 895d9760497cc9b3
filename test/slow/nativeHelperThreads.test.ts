/**
 * The helper threads' same-bits guarantees again with the native GEMM installed in
 * this thread and the helpers (x86-64, where `npm run build` builds it). The suite runs
 * on the WebAssembly kernel in `npm test` (test/linalg/helperThread.test.ts); this
 * rerun takes longer than the other native reruns together (test/linalg/nativeKernels.test.ts).
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
  await import("../linalg/helperThread.test.js");
  await import("./helperThreadFit.test.js");
}
