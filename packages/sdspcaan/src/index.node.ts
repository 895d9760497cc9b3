/**
 * sdspcaan in Node.js (the package's "node" export condition): the browser entry's
 * exports, with the optional native GEMM of the package sdspcaan-native switched on
 * where it is installed and runs on this CPU (SDSPCAAN_NATIVE=0 keeps WebAssembly): on
 * the default "fast" backend its fused kernel, on "portable" its kernel with the
 * WebAssembly kernel's bits.
 * @module
 */
import { ValidationError } from "./core/errors.js";
import { setNativeKernels } from "./linalg/kernels/nativeGemm.node.js";
import { refuseKernelsUntilChosen } from "./linalg/kernels/wasm/backend.js";

try {
  setNativeKernels("auto");
} catch (err) {
  // An SDSPCAAN_KERNELS or SDSPCAAN_NATIVE that names nothing known: thrown here it
  // would fail the import itself, before the program could catch it or choose the
  // kernels, so it is thrown when the kernels are first chosen (a fit, setNativeKernels).
  if (!(err instanceof ValidationError)) throw err;
  refuseKernelsUntilChosen(err);
}

export * from "./index.js";
