/**
 * sdspcaan/node: what only Node.js has. Helper threads for the kernels
 * ({@link setKernelThreads}), the native GEMM of the optional package sdspcaan-native
 * ({@link setNativeKernels}), and the worker-thread starter the experiment runner
 * shares, and node:zlib as the file readers' inflater ({@link nodeInflater}). Never
 * imported by the browser-safe entries.
 * @module sdspcaan/node
 */

export { nodeInflater } from "./formats/zlib.node.js";
export {
  installNativeOnHelper,
  nativeGemmUnavailable,
  nativeKernelsActive,
  setNativeKernels,
} from "./linalg/kernels/nativeGemm.node.js";
export { kernelThreads, setKernelThreads } from "./threads/helperThread.node.js";
export { startWorker } from "./threads/workerThreads.node.js";
