/**
 * The worker thread `fitAsync` (fitAsync.node.ts) starts: the library's serveFits on
 * the thread's parentPort, with the kernels of the thread that started it (backend,
 * native GEMM and thread count, passed as workerData), so that its fits give the bits
 * a fit there gives.
 */
import { parentPort, workerData } from "node:worker_threads";
import { SdspcaanError } from "../core/errors.js";
import { setNativeKernels } from "../linalg/kernels/nativeGemm.node.js";
import { type KernelBackendRequest, setKernelBackend } from "../linalg/kernels/wasm/backend.js";
import { setKernelThreads } from "../threads/helperThread.node.js";
import { serveFits } from "./server.js";

/** What fitAsync passes: its thread's kernel choice. */
export interface FitWorkerData {
  readonly backend: KernelBackendRequest;
  readonly native: boolean;
  readonly threads: number;
}

if (parentPort === null) {
  throw new SdspcaanError("fitWorker.node.js runs as a worker thread started by fitAsync.");
}
const kernels = workerData as FitWorkerData;
setKernelBackend(kernels.backend);
setNativeKernels(kernels.native);
if (kernels.threads > 1) setKernelThreads(kernels.threads);
serveFits(parentPort);
