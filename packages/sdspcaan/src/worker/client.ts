/**
 * The page's side: `fitInWorker` fits in a Web Worker (or a Node worker_threads
 * Worker) that runs `serveFits` (server.ts), so the caller's thread never blocks on a
 * fit; `WorkerChannel` is the request/answer mechanism under it, for workers that
 * answer requests of their own.
 */
import { AbortError, abortErrorOf, SdspcaanError, ValidationError } from "../core/errors.js";
import type { MatrixLike } from "../core/matrix.js";
import { optionNames } from "../core/options.js";
import {
  asMatrix,
  checkCallbackOption,
  checkCallOptions,
  checkSignalOption,
  describeValue,
  type Label,
} from "../core/validate.js";
import { FIT_CALLBACKS } from "../methods/callOptions.js";
import type { Estimator } from "../methods/estimator.js";
import type { FitProgress } from "../methods/fitReport.js";
import type { MethodName, MethodRegistry } from "../methods/methodRegistry.js";
import { Pipeline, type PipelineOptions } from "../methods/pipeline.js";
import { createMethod, loadModel, methodNames, normalizeMethodName } from "../methods/registry.js";
import {
  type AnswerMessage,
  CHANNEL,
  type ErrorPayload,
  errorFromPayload,
  isChannelMessage,
  type RequestMessage,
  unsendablePart,
  type WorkerEventLike,
} from "./protocol.js";
import type { FitRequestBody } from "./server.js";

/** What the page needs of a browser's Web Worker (a DOM `Worker` has it). */
export interface WebWorkerLike {
  postMessage(message: unknown, transfer: ArrayBuffer[]): void;
  addEventListener(type: "message" | "error", listener: (event: WorkerEventLike) => void): void;
  terminate(): void;
}

/**
 * What is needed of a Node `worker_threads` Worker: its events come through `on`, a
 * message event gives the message itself, and `threadId` turns -1 once it has stopped.
 */
export interface NodeWorkerLike {
  postMessage(message: unknown, transfer?: readonly ArrayBuffer[]): void;
  // biome-ignore lint/suspicious/noExplicitAny: Node's listeners take the event's own value (message, Error, exit code)
  on(event: "message" | "error" | "exit", listener: (value: any) => void): unknown;
  terminate(): unknown;
  readonly threadId?: number;
}

/** A browser's Web Worker or a Node worker_threads Worker, alike. */
export type WorkerLike = WebWorkerLike | NodeWorkerLike;

function isNodeWorker(worker: WorkerLike): worker is NodeWorkerLike {
  return (
    typeof (worker as Partial<NodeWorkerLike>).on === "function" &&
    typeof (worker as Partial<WebWorkerLike>).addEventListener !== "function"
  );
}

/** The worker's messages (their data), errors (their message) and, in Node, its exit. */
function listen(
  worker: WorkerLike,
  onMessage: (data: unknown) => void,
  onError: (event: WorkerEventLike) => void,
  onExit: (code: number) => void,
): void {
  if (isNodeWorker(worker)) {
    worker.on("message", onMessage);
    worker.on("error", (err: unknown) =>
      onError({ message: err instanceof Error ? err.message : String(err) }),
    );
    worker.on("exit", onExit);
    return;
  }
  worker.addEventListener("message", (event) => onMessage(event.data));
  worker.addEventListener("error", onError);
}

/** Workers a channel terminated or saw stop: no request is sent to them again. */
const stopped = new WeakMap<WorkerLike, Error>();

/** Why a request to `worker` cannot be answered, or null while it can. */
function stoppedReason(worker: WorkerLike): Error | null {
  const known = stopped.get(worker);
  if (known !== undefined) return known;
  if (isNodeWorker(worker) && worker.threadId === -1) {
    return new SdspcaanError(
      "The worker thread has stopped (its threadId is -1), so it cannot fit: start a new Worker.",
    );
  }
  return null;
}

/** The callbacks of one request. */
export interface RequestOptions {
  /** Buffers of the body to move to the worker rather than copy (they are then unusable here). */
  transfer?: ArrayBuffer[];
  /** Called with each progress report the worker's handler sends. */
  onProgress?: (progress: unknown) => void;
  /**
   * Cancels the request: through shared memory when the channel shares it (the
   * worker stays usable), else by terminating the worker (see WorkerChannel).
   */
  signal?: AbortSignal;
}

/** Each worker's first channel, which fitInWorker uses (request ids are per channel). */
const channels = new WeakMap<WorkerLike, WorkerChannel>();

interface Pending {
  resolve(result: unknown): void;
  reject(err: Error): void;
  /** The request's progress callback, which throwing stops the request (see request). */
  progress(value: unknown): void;
}

/** Whether this page may share memory with its workers (it is cross-origin isolated). */
function canShareMemory(): boolean {
  return (
    (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true &&
    typeof SharedArrayBuffer === "function"
  );
}

/**
 * Requests to a worker that runs serveRequests, each a promise of its answer, with
 * progress reports and cancellation. A cancelled request rejects with an AbortError.
 * Where the page is cross-origin isolated, cancelling sets a flag in shared memory
 * that the worker's work reads at its next check, and the worker stays usable;
 * elsewhere a busy worker cannot be told, so cancelling terminates it: the cancelled
 * request rejects with an AbortError, the others pending and every later one (on any
 * channel of that worker) reject at once with an error saying the worker was
 * terminated, `terminated` turns true, and the caller needs a new worker for further
 * requests. A Node worker_threads Worker always shares memory with its parent, and a
 * request to one whose thread has stopped rejects at once too. `fitInWorker` on a
 * worker uses the first channel made for it, so making one first chooses its
 * cancellation.
 */
export class WorkerChannel {
  readonly worker: WorkerLike;
  /** Whether cancelling goes through shared memory (true) or ends the worker (false). */
  readonly sharesMemory: boolean;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private ended: Error | null = null;

  /**
   * `sharedMemory` overrides the choice of cancellation (by default shared memory
   * for a Node worker_threads Worker, which can always share it, and for a Web Worker
   * exactly when the page is cross-origin isolated).
   */
  constructor(worker: WorkerLike, options: { sharedMemory?: boolean } = {}) {
    checkCallOptions(options, "WorkerChannel", CHANNEL_OPTION_NAMES);
    this.worker = worker;
    this.sharesMemory =
      (options.sharedMemory ?? (isNodeWorker(worker) || canShareMemory())) &&
      typeof SharedArrayBuffer === "function";
    if (!channels.has(worker)) channels.set(worker, this);
    this.ended = stoppedReason(worker);
    listen(
      worker,
      (data) => this.receive(data),
      (event) => {
        event.preventDefault?.();
        this.failAll(new Error(`The worker failed: ${event.message || "unknown error"}`));
      },
      (code) => {
        this.end(
          new SdspcaanError(
            `The worker thread stopped (exit code ${code}), so it cannot fit: start a new Worker.`,
          ),
        );
      },
    );
  }

  /**
   * Whether the worker was terminated (by `terminate`, a cancel without shared memory,
   * or, in Node, its thread's exit).
   */
  get terminated(): boolean {
    return this.ended !== null;
  }

  /** Marks the worker as gone: pending and later requests reject with `reason`. */
  private end(reason: Error): void {
    if (this.ended === null) {
      this.ended = reason;
      if (!stopped.has(this.worker)) stopped.set(this.worker, reason);
    }
    this.failAll(this.ended);
  }

  private receive(data: unknown): void {
    if (!isChannelMessage(data)) return;
    const message = data as AnswerMessage;
    const p = this.pending.get(message.id);
    if (p === undefined) return;
    if (message.kind === "progress") {
      p.progress(message.progress);
      return;
    }
    this.pending.delete(message.id);
    if (message.kind === "error") p.reject(errorFromPayload(message.error as ErrorPayload));
    else p.resolve(message.result);
  }

  private failAll(err: Error): void {
    const pending = [...this.pending.values()];
    this.pending.clear();
    for (const p of pending) p.reject(err);
  }

  /** Sends `body` to the worker's handler; resolves with its answer. */
  request<T = unknown>(body: unknown, options: RequestOptions = {}): Promise<T> {
    checkCallOptions(options, "WorkerChannel.request", REQUEST_OPTION_NAMES);
    checkCallbackOption(
      options.onProgress,
      "onProgress",
      "WorkerChannel.request",
      "(progress) => void",
    );
    checkSignalOption(options.signal, "WorkerChannel.request");
    const { signal, onProgress, transfer = [] } = options;
    // A worker that another channel ended, or a thread that stopped, answers nothing.
    this.ended ??= stoppedReason(this.worker);
    if (this.ended !== null) return Promise.reject(this.ended);
    if (signal?.aborted) return Promise.reject(abortErrorOf(signal));
    const id = this.nextId++;
    const buffer = this.sharesMemory ? new SharedArrayBuffer(4) : null;
    return new Promise<T>((resolve, reject) => {
      // What a throwing callback threw: the request rejects with it, as `fit` throws it.
      let failure: { readonly error: unknown } | null = null;
      /**
       * Stops the request's work in the worker. Through shared memory the worker stops
       * at its next check and answers, and the request settles then; without it a busy
       * worker cannot be told, so it is terminated, and the request (returned) is
       * settled by the caller at once.
       */
      const stopWork = (why: string): Pending | undefined => {
        if (buffer !== null) {
          Atomics.store(new Int32Array(buffer), 0, 1);
          return undefined;
        }
        // The others pending, and any later request, are refused saying why.
        const stopped = this.pending.get(id);
        this.pending.delete(id);
        this.terminate(
          new SdspcaanError(
            `The worker was terminated to ${why} (without shared memory a busy worker cannot be told to stop), so it runs no more requests: start a new Worker, or cancel through shared memory (a cross-origin isolated page, or Node) to keep it.`,
          ),
        );
        return stopped;
      };
      const onAbort = () => stopWork("cancel a fit")?.reject(abortErrorOf(signal as AbortSignal));
      const settle = () => signal?.removeEventListener("abort", onAbort);
      this.pending.set(id, {
        resolve: (result) => {
          settle();
          if (failure !== null) reject(failure.error);
          else resolve(result as T);
        },
        reject: (err) => {
          settle();
          if (failure !== null) reject(failure.error);
          // The worker's AbortError knows nothing of the caller's reason; the caller's
          // signal does, and `fit` on this thread would have said it.
          else reject(err instanceof AbortError && signal?.aborted ? abortErrorOf(signal) : err);
        },
        progress: (value) => {
          // A fit stops at the report whose callback threw: no later report reaches it.
          if (failure !== null || !onProgress) return;
          try {
            onProgress(value);
          } catch (err) {
            // Thrown from a message listener it would crash the process; it is the
            // request's error instead, and the work stops as a cancel stops it.
            failure = { error: err };
            stopWork("stop a fit whose onProgress callback threw")?.reject(err as Error);
          }
        },
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      const message: RequestMessage = {
        channel: CHANNEL,
        kind: "request",
        id,
        body,
        cancel: buffer,
      };
      try {
        this.worker.postMessage(message, transfer);
      } catch (err) {
        // Nothing was sent: nothing will answer.
        this.pending.delete(id);
        settle();
        reject(err);
      }
    });
  }

  /** Ends the worker; every pending request rejects with `reason`, and so do later ones. */
  terminate(
    reason: Error = new SdspcaanError(
      "The worker was terminated, so it runs no more requests: start a new Worker.",
    ),
  ): void {
    const running = this.ended === null;
    this.end(reason);
    if (running) void this.worker.terminate();
  }
}

/**
 * What to fit: a method by name with its options, on X and y. `N` is the method's name:
 * one of `MethodRegistry` (from "sdspcaan"), whose options `options` then are; or, for a name only
 * known at run time, `string`, with any options (checked by the worker).
 */
export interface FitInWorkerRequest<N extends string = string> {
  /** A registered method's name, as `createMethod` takes it (e.g. "sdspcaan"). */
  readonly method: N;
  /** The method's options, as `createMethod` takes them (e.g. `{ k: 20 }`). */
  readonly options?: N extends MethodName ? MethodRegistry[N]["options"] : Record<string, unknown>;
  /** The training data, n x d (copied: the caller's arrays stay usable). */
  readonly X: MatrixLike;
  /** One label per row of X (methods that ignore labels accept none). */
  readonly y?: ArrayLike<Label> | null;
  /** One name per column of X, kept by the model as for `fit`. */
  readonly featureNames?: readonly string[] | null;
  /**
   * True (or the Pipeline's options) to fit a Pipeline of the method (standardiser,
   * method, 1-NN classifier), which then predicts.
   */
  readonly pipeline?: boolean | PipelineOptions;
}

/** Progress and cancellation of one fitInWorker. */
export interface FitInWorkerOptions {
  /** Called after every outer iteration of the fit, on the page's thread. */
  onProgress?: (progress: FitProgress) => void;
  /**
   * Cancels the fit: the promise rejects with an AbortError. With a Node worker and on
   * a cross-origin isolated page the worker stops at its next check and stays usable;
   * elsewhere the worker is terminated, later fits on it are refused at once, and a
   * new one is needed for the next fit.
   */
  signal?: AbortSignal;
}

const CHANNEL_OPTION_NAMES = ["sharedMemory"];
const REQUEST_OPTION_NAMES = optionNames<RequestOptions>({ transfer: true, ...FIT_CALLBACKS });
const FIT_REQUEST_NAMES = optionNames<FitInWorkerRequest>({
  method: true,
  options: true,
  X: true,
  y: true,
  featureNames: true,
  pipeline: true,
});
const FIT_IN_WORKER_OPTION_NAMES = optionNames<FitInWorkerOptions>(FIT_CALLBACKS);

/** The worker's channel: one per worker, so requests from several calls do not mix. */
function channelOf(worker: WorkerLike): WorkerChannel {
  return channels.get(worker) ?? new WorkerChannel(worker);
}

/**
 * Fits in `worker`, a Web Worker whose module calls `serveFits()` or a Node
 * worker_threads Worker whose module calls `serveFits(parentPort)`, and resolves with
 * the fitted model restored on this thread (`loadModel` of the JSON the worker
 * sends: bit for bit the model a fit here would give). Errors are the library's
 * classes with their messages (a ValidationError names the option at fault). A fit
 * waits for the worker's earlier ones.
 */
export function fitInWorker<N extends MethodName>(
  worker: WorkerLike,
  request: FitInWorkerRequest<N> & { readonly pipeline: true | PipelineOptions },
  options?: FitInWorkerOptions,
): Promise<Pipeline<MethodRegistry[N]["model"]>>;
export function fitInWorker<N extends MethodName>(
  worker: WorkerLike,
  request: FitInWorkerRequest<N> & { readonly pipeline?: false },
  options?: FitInWorkerOptions,
): Promise<MethodRegistry[N]["model"]>;
export function fitInWorker<N extends MethodName>(
  worker: WorkerLike,
  request: FitInWorkerRequest<N>,
  options?: FitInWorkerOptions,
): Promise<MethodRegistry[N]["model"] | Pipeline<MethodRegistry[N]["model"]>>;
// A name only known at run time (a `string`): any registered method, checked by the worker.
export function fitInWorker<S extends string>(
  worker: WorkerLike,
  request: FitInWorkerRequest<string extends S ? S : never> & {
    readonly pipeline: true | PipelineOptions;
  },
  options?: FitInWorkerOptions,
): Promise<Pipeline>;
export function fitInWorker<S extends string>(
  worker: WorkerLike,
  request: FitInWorkerRequest<string extends S ? S : never> & { readonly pipeline?: false },
  options?: FitInWorkerOptions,
): Promise<Estimator>;
export function fitInWorker<S extends string>(
  worker: WorkerLike,
  request: FitInWorkerRequest<string extends S ? S : never>,
  options?: FitInWorkerOptions,
): Promise<Estimator | Pipeline>;
export async function fitInWorker(
  worker: WorkerLike,
  request: FitInWorkerRequest,
  options: FitInWorkerOptions = {},
): Promise<Estimator | Pipeline> {
  checkCallOptions(request, "fitInWorker", FIT_REQUEST_NAMES, "request");
  checkCallOptions(options, "fitInWorker", FIT_IN_WORKER_OPTION_NAMES);
  checkCallbackOption(options.onProgress, "onProgress", "fitInWorker", "(progress) => void");
  checkSignalOption(options.signal, "fitInWorker");
  if (typeof request.method !== "string") {
    throw new ValidationError(
      "method",
      `fitInWorker's request.method must be a registered method's name (a string, e.g. "sdspcaan"). Got ${describeValue(request.method)} instead.`,
    );
  }
  const registeredHere = methodNames().includes(normalizeMethodName(request.method));
  if (registeredHere) checkAsFitHere(request);
  const X = asMatrix(request.X, "X");
  // A copy of its own crosses to the worker: transferring X's buffer would empty the caller's.
  const data = new Float64Array(X.data);
  const body: FitRequestBody = {
    type: "fit",
    method: request.method,
    options: request.options ?? {},
    X: { rows: X.rows, cols: X.cols, data },
    y: request.y === undefined || request.y === null ? null : Array.from(request.y),
    featureNames: request.featureNames ?? null,
    pipeline:
      request.pipeline === undefined || request.pipeline === false
        ? null
        : request.pipeline === true
          ? {}
          : request.pipeline,
  };
  for (const field of ["options", "y", "featureNames", "pipeline"] as const) {
    const part = unsendablePart(body[field], field);
    if (part !== null) {
      throw new ValidationError(
        part.path,
        `${part.path} is ${part.what}, which cannot be sent to a worker: fitInWorker's request crosses as data (numbers, strings, booleans, arrays, plain objects).`,
      );
    }
  }
  let json: unknown;
  try {
    json = await channelOf(worker).request(body, {
      transfer: [data.buffer],
      ...(options.onProgress
        ? { onProgress: options.onProgress as (progress: unknown) => void }
        : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (err) {
    throw registeredHere ? notRegisteredThere(err, request.method) : err;
  }
  return loadModel(json);
}

/**
 * Throws what the synchronous fit of `request` would throw on its options and data, for
 * a method registered in this thread: the fit itself, up to its first check of the
 * signal (already aborted, so it stops there, before any of the method's work), so that
 * the checks are the fit's own and their messages too.
 */
function checkAsFitHere(request: FitInWorkerRequest): void {
  const model = createMethod(request.method, request.options ?? {});
  const { featureNames = null, y = null } = request;
  const fitOptions = { signal: AbortSignal.abort(), ...(featureNames ? { featureNames } : {}) };
  try {
    if (request.pipeline === undefined || request.pipeline === false) {
      model.fit(request.X, y, fitOptions);
    } else {
      const pipelineOptions = request.pipeline === true ? {} : request.pipeline;
      new Pipeline(model, pipelineOptions).fit(request.X, y as ArrayLike<Label>, fitOptions);
    }
  } catch (err) {
    if (!(err instanceof AbortError)) throw err;
  }
}

/**
 * A worker that does not know a method registered here says it is unknown, listing its
 * own; the caller needs to know that the worker's module must register it too.
 */
function notRegisteredThere(err: unknown, method: string): unknown {
  if (!(err instanceof ValidationError) || err.argument !== "method") return err;
  if (!err.message.startsWith("Unknown method")) return err;
  return new ValidationError(
    "method",
    `The method ${JSON.stringify(method)} is registered in this thread but not in the worker, so the worker cannot fit it: register it in the worker's module too (import the module that calls registerMethod before serveFits), as docs/library.md shows.`,
  );
}
