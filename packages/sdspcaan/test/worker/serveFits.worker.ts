/**
 * A worker_threads worker that answers fitInWorker as a Web Worker does: the library's
 * serveFits on the thread's parentPort (a MessagePort has a Web Worker scope's shape).
 */
import { parentPort } from "node:worker_threads";
import { setNativeKernels } from "#internal/linalg/kernels/nativeGemm.node.js";
import { serveFits } from "#internal/worker/server.js";

// The kernels of the thread that starts it (test/helpers/defaultKernels.ts), as a worker
// importing the package's Node entry would have them.
setNativeKernels("auto");

if (parentPort === null) throw new Error("serveFits.worker.ts runs as a worker thread.");
serveFits(parentPort);
