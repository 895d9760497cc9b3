/**
 * sdspcaan in Node.js (the package's "node" export condition): the browser entry's
 * exports, with the optional native GEMM of the package sdspcaan-native switched on
 * where it is installed and runs on this CPU (SDSPCAAN_NATIVE=0 keeps WebAssembly): on
 * the default "fast" backend its fused kernel, on "portable" its kernel with the
 * WebAssembly kernel's bits.
 * @module
 */
import { setNativeKernels } from "./linalg/kernels/nativeGemm.node.js";

setNativeKernels("auto");

export * from "./index.js";
