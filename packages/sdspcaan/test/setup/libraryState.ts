/**
 * The library's process-wide state as the guard of the shared test projects reads it
 * (guardProcessState in sdspcaan-test-support): the kernel backend, the kernel threads
 * and their workers, the native kernels, the HDF5 reader. The CLI's and the project
 * checks' setup files read it too. What the guard cannot read (the registered helper
 * factories, the WebAssembly loader's test state, module mocks) keeps a file isolated
 * (test/project/isolation.test.ts).
 */
import type { ProcessProbe } from "sdspcaan-test-support";
import { type Hdf5Reader, installedHdf5Reader, setHdf5Reader } from "#internal/formats/hdf5.js";
import { threadedProducts } from "#internal/linalg/kernels/helper.js";
import { nativeGemmIsa, setNativeKernels } from "#internal/linalg/kernels/nativeGemm.node.js";
import {
  externalGemmInstalled,
  type KernelBackendRequest,
  requestedKernelBackend,
  setExternalKernels,
  setKernelBackend,
} from "#internal/linalg/kernels/wasm/backend.js";
import {
  kernelThreads,
  runningKernelHelpers,
  setKernelThreads,
  sideHelperRunning,
} from "#internal/threads/helperThread.node.js";

interface Threads {
  readonly threads: number;
  readonly helpers: number;
  readonly side: boolean;
  readonly threadedProducts: boolean;
}

interface Native {
  /** The native GEMM's vector width (SDSPCAAN_NATIVE=avx2 narrows it), null when off. */
  readonly isa: "avx512" | "avx2" | null;
  readonly external: boolean;
}

export const libraryProbes: readonly ProcessProbe[] = [
  {
    name: "the kernel backend (setKernelBackend)",
    read: () => requestedKernelBackend(),
    restore: (request) => setKernelBackend(request as KernelBackendRequest),
  },
  {
    name: "the kernel threads (setKernelThreads)",
    read: (): Threads => ({
      threads: kernelThreads(),
      helpers: runningKernelHelpers(),
      side: sideHelperRunning(),
      threadedProducts: threadedProducts() !== null,
    }),
    // Stops the workers started since, and sets the count back.
    restore: (before) => {
      setKernelThreads(1);
      setKernelThreads((before as Threads).threads);
    },
  },
  {
    name: "the native kernels (setNativeKernels)",
    read: (): Native => ({ isa: nativeGemmIsa(), external: externalGemmInstalled() }),
    restore: (before) => {
      setNativeKernels((before as Native).isa !== null);
      if (!(before as Native).external) setExternalKernels(null);
    },
  },
  {
    name: "the HDF5 reader (setHdf5Reader)",
    identity: true,
    read: () => installedHdf5Reader(),
    restore: (reader) => setHdf5Reader(reader as Hdf5Reader | null),
  },
];
