/**
 * A worker_threads worker that answers fitInWorker as a Web Worker does: the library's
 * serveFits on the thread's parentPort (a MessagePort has a Web Worker scope's shape).
 */
import { parentPort } from "node:worker_threads";
import { serveFits } from "#internal/worker/server.js";

if (parentPort === null) throw new Error("serveFits.worker.ts runs as a worker thread.");
serveFits(parentPort);
