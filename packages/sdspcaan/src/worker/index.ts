/**
 * sdspcaan/worker: fitting in a Web Worker, so a page's thread never blocks on a fit.
 *
 * In the worker's module: `import { serveFits } from "sdspcaan/worker"; serveFits();`
 * On the page: `const model = await fitInWorker(worker, { method: "sdspcaan",
 * options: { k: 20 }, X, y }, { onProgress, signal })`.
 *
 * Cancelling (aborting `signal`) rejects with an AbortError. On a cross-origin
 * isolated page (served with COOP/COEP headers) the worker reads a flag in shared
 * memory at its next check and stays usable; elsewhere it is terminated and the page
 * needs a new one. `WorkerChannel` and `serveRequests` are the same mechanism for a
 * worker that answers requests of its own.
 * @module
 */

export {
  type FitInWorkerOptions,
  type FitInWorkerRequest,
  fitInWorker,
  type RequestOptions,
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
