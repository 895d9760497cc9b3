/**
 * Every test file starts on the kernels a Node user of the library gets by default: the
 * "fast" backend (or SDSPCAAN_KERNELS's choice) with the native GEMM of sdspcaan-native
 * where it was built, as the package's Node entry installs it (src/index.node.ts). The
 * tests import the library's sources, not that entry, so without this they would run
 * the WebAssembly module's GEMM only. vitest.shared.ts lists it in `setupFiles`.
 */
import { setNativeKernels } from "sdspcaan/node";

setNativeKernels("auto");
