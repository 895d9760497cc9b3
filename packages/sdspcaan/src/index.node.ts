/**
 * sdspcaan in Node.js (the package's "node" export condition): the browser entry's
 * exports, with the optional native GEMM of the package sdspcaan-native switched on
 * where it is installed and runs on this CPU (SDSPCAAN_NATIVE=0 keeps WebAssembly).
 * Its results are the WebAssembly kernel's to the last bit; only the time changes.
 * @module
 */
import { setNativeKernels } from "./linalg/kernels/nativeGemm.node.js";

setNativeKernels("auto");

export * from "./index.js";
