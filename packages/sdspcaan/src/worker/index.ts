/**
 * sdspcaan/worker: fitting in a Web Worker, so a page's thread never blocks on a fit.
 *
 * In the worker's module: `import { serveFits } from "sdspcaan/worker"; serveFits();`
 * (in a Node worker_threads module, `serveFits(parentPort)`). On the page (or Node's
 * main thread): `const model = await fitInWorker(worker, { method: "sdspcaan",
 * options: { k: 20 }, X, y }, { onProgress, signal })`, where `worker` is a browser
 * `Worker` or a Node worker_threads `Worker`.
 *
 * Cancelling (aborting `signal`) rejects with an AbortError. In Node and on a
 * cross-origin isolated page (served with COOP/COEP headers) the worker reads a flag in
 * shared memory at its next check and stays usable; elsewhere it is terminated, later
 * fits on it are refused at once, and the page needs a new one. `WorkerChannel` and
 * `serveRequests` are the same mechanism for a worker that answers requests of its own.
 * @module sdspcaan/worker
 */

export {
  type FitInWorkerOptions,
  type FitInWorkerRequest,
  fitInWorker,
  type NodeWorkerLike,
  type RequestOptions,
  type WebWorkerLike,
  WorkerChannel,
  type WorkerLike,
} from "./client.js";
export type { WorkerEventLike } from "./protocol.js";
export {
  type RequestContext,
  serveFits,
  serveRequests,
  type WorkerScopeLike,
} from "./server.js";
