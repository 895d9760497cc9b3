/**
 * sdspcaan/node: what only Node.js has. Helper threads for the kernels
 * ({@link setKernelThreads}), the native GEMM of the optional package sdspcaan-native
 * ({@link setNativeKernels}), and the worker-thread starter the experiment runner
 * shares. Never imported by the browser-safe entries.
 * @module sdspcaan/node
 */

export {
  installNativeOnHelper,
  nativeGemmUnavailable,
  nativeKernelsActive,
  setNativeKernels,
} from "./linalg/kernels/nativeGemm.node.js";
export { kernelThreads, setKernelThreads } from "./threads/helperThread.node.js";
export { startWorker } from "./threads/workerThreads.node.js";
