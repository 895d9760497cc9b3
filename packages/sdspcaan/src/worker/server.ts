/**
 * The worker's side: `serveFits()` in a worker file answers `fitInWorker` (client.ts);
 * `serveRequests(handle)` answers a WorkerChannel's requests with the caller's own
 * handler (the playground's worker reads files, fits and embeds through it).
 */
import { AbortError, throwIfAborted, ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import type { Label } from "../core/validate.js";
import type { FitOptions, FitProgress } from "../methods/fitReport.js";
import { Pipeline, type PipelineOptions } from "../methods/pipeline.js";
import { createMethod } from "../methods/registry.js";
import {
  type AnswerMessage,
  CHANNEL,
  errorPayload,
  isChannelMessage,
  type RequestMessage,
  type WorkerEventLike,
} from "./protocol.js";

/**
 * What serveRequests needs of the worker's global scope (`self` in a Web Worker; a
 * worker_threads `parentPort` has the same shape in Node).
 */
export interface WorkerScopeLike {
  postMessage(message: unknown, transfer?: ArrayBuffer[]): void;
  addEventListener(type: "message", listener: (event: WorkerEventLike) => void): void;
}

/** What a request's handler gets besides the request's body. */
export interface RequestContext {
  /** Aborted once the page cancels this request (where it shares memory with the worker). */
  readonly signal: AbortSignal;
  /** Sends a progress report to the page (the request's `onProgress`). */
  progress(value: unknown): void;
  /** Moves these buffers to the page with the answer instead of copying them. */
  transfer(...buffers: ArrayBuffer[]): void;
}

/**
 * An AbortSignal that also reads a flag in shared memory, which the page sets while
 * this worker is busy (its message queue is not read until the work ends). Every
 * check of `signal.aborted` in the library (at each iteration and inside the
 * iterative eigen-solvers) then sees the page's cancel at once.
 */
function sharedAbortSignal(buffer: SharedArrayBuffer | null): AbortSignal {
  const controller = new AbortController();
  const signal = controller.signal;
  if (buffer === null) return signal;
  const flag = new Int32Array(buffer);
  const abortedOf = Object.getOwnPropertyDescriptor(AbortSignal.prototype, "aborted")?.get;
  if (abortedOf === undefined) return signal;
  Object.defineProperty(signal, "aborted", {
    get(): boolean {
      if (Atomics.load(flag, 0) === 1 && !abortedOf.call(signal)) {
        controller.abort(new AbortError());
      }
      return abortedOf.call(signal) as boolean;
    },
  });
  return signal;
}

/**
 * Answers a WorkerChannel's requests with `handle`, one after another in the order
 * they came (an asynchronous request, such as reading a compressed file, ends before
 * the next starts, so a fit sent after a load sees the loaded data). What `handle`
 * returns is the answer; what it throws reaches the page as the same error class.
 * Messages that are not a channel's are left to the scope's other listeners. One
 * serveRequests (or serveFits) per worker.
 */
export function serveRequests(
  handle: (body: unknown, context: RequestContext) => unknown,
  scope: WorkerScopeLike = globalThis as unknown as WorkerScopeLike,
): void {
  let queue: Promise<void> = Promise.resolve();
  const answer = (message: AnswerMessage, transfer: ArrayBuffer[] = []) =>
    scope.postMessage(message, transfer);
  scope.addEventListener("message", (event) => {
    const message = event.data;
    if (!isChannelMessage(message) || message.kind !== "request") return;
    const { id, body, cancel } = message as RequestMessage;
    const signal = sharedAbortSignal(cancel);
    const transfer: ArrayBuffer[] = [];
    const context: RequestContext = {
      signal,
      progress: (progress) => answer({ channel: CHANNEL, kind: "progress", id, progress }),
      transfer: (...buffers) => transfer.push(...buffers),
    };
    queue = queue.then(async () => {
      try {
        // A request cancelled while it waited for the one before does not start.
        throwIfAborted(signal);
        const result = await handle(body, context);
        answer({ channel: CHANNEL, kind: "result", id, result }, transfer);
      } catch (err) {
        answer({ channel: CHANNEL, kind: "error", id, error: errorPayload(err) });
      }
    });
  });
}

/** A fit request as fitInWorker sends it: X's values in a buffer of their own. */
export interface FitRequestBody {
  readonly type: "fit";
  readonly method: string;
  readonly options: Record<string, unknown>;
  readonly X: { readonly rows: number; readonly cols: number; readonly data: Float64Array };
  readonly y: Label[] | null;
  readonly featureNames: readonly string[] | null;
  /** Null for the method alone, else the Pipeline's options. */
  readonly pipeline: PipelineOptions | null;
}

function isFitRequest(body: unknown): body is FitRequestBody {
  if (body === null || typeof body !== "object") return false;
  const b = body as Partial<FitRequestBody>;
  return (
    b.type === "fit" &&
    typeof b.method === "string" &&
    b.X !== undefined &&
    b.X !== null &&
    b.X.data instanceof Float64Array
  );
}

/** Fits as the request says and answers with the model's JSON (Estimator or Pipeline). */
function fitRequest(body: unknown, context: RequestContext): unknown {
  if (!isFitRequest(body)) {
    throw new ValidationError(
      "request",
      "serveFits answers fitInWorker's requests only; use serveRequests for requests of your own.",
    );
  }
  const X = new Matrix(body.X.rows, body.X.cols, body.X.data);
  const model = createMethod(body.method, body.options);
  const options: FitOptions = {
    onProgress: (p: FitProgress) => context.progress(p),
    signal: context.signal,
    ...(body.featureNames !== null ? { featureNames: body.featureNames } : {}),
  };
  if (body.pipeline === null) return model.fit(X, body.y, options).toJSON();
  return new Pipeline(model, body.pipeline).fit(X, body.y as Label[], options).toJSON();
}

/**
 * Makes this worker fit for `fitInWorker` on the page: call it once in the worker's
 * module (`import { serveFits } from "sdspcaan/worker"; serveFits();`). Every method
 * the library registers can be fitted. `scope` is the worker's global scope (the
 * default) or, in Node, a worker_threads `parentPort`.
 */
export function serveFits(scope?: WorkerScopeLike): void {
  serveRequests(fitRequest, scope);
}
