/**
 * Kernel helpers on Node worker threads (the contract is in helper.ts). One worker per
 * extra thread serves every computation of the process; each computation (a fit)
 * gets a session that frees what it held when it is released.
 *
 * The requesting thread blocks in Atomics.wait while a helper answers: the products
 * are parts of a synchronous computation (an eigen-solver's operator), and they take
 * milliseconds to a fraction of a second, against tens of microseconds for a
 * request's round trip. The workers are unref'd, so they never keep a process alive.
 */
import {
  MessageChannel,
  type MessagePort,
  receiveMessageOnPort,
  type Worker,
} from "node:worker_threads";
import { SdspcaanError, ValidationError } from "../core/errors.js";
import {
  type CsrRows,
  type HelperTaskName,
  type KernelHelper,
  setKernelHelpers,
  setSideHelper,
  setThreadedProducts,
} from "../linalg/kernels/helper.js";
import { nativeKernelsActive } from "../linalg/kernels/nativeGemm.node.js";
import { threadedProducts } from "../linalg/kernels/threadedProducts.js";
import {
  type GemmOperands,
  type KernelBackendRequest,
  requestedKernelBackend,
} from "../linalg/kernels/wasm/backend.js";
import type { HelperInit, HelperReply, HelperRequest } from "./helperWorker.node.js";
import { startWorker } from "./workerThreads.node.js";

/** Longest wait for one answer before the helper counts as lost (ms). */
const ANSWER_TIMEOUT_MS = 300_000;

type Outgoing =
  | Omit<Extract<HelperRequest, { type: "hold" }>, "seq">
  | Omit<Extract<HelperRequest, { type: "gemm" }>, "seq">
  | Omit<Extract<HelperRequest, { type: "product" }>, "seq">
  | Omit<Extract<HelperRequest, { type: "sparse" }>, "seq">
  | Omit<Extract<HelperRequest, { type: "laplacianChunk" }>, "seq">
  | Omit<Extract<HelperRequest, { type: "task" }>, "seq">
  | Omit<Extract<HelperRequest, { type: "release" }>, "seq">;

/** One worker thread and the synchronous request protocol with it. */
class HelperWorker {
  private readonly worker: Worker;
  private readonly flag: Int32Array;
  private readonly replies: MessagePort;
  private seq = 0;
  private nextHandle = 1;
  private staging: Float64Array | null = null;
  /** Set when the worker exited or failed: no session uses it any more. */
  lost = false;
  /** Whether it runs the native GEMM (fixed at its start, as the starting thread did then). */
  readonly native: boolean;
  /** The kernel backend it runs (fixed at its start, as the starting thread asked then). */
  readonly backend: KernelBackendRequest;

  constructor() {
    const flag = new SharedArrayBuffer(4);
    const channel = new MessageChannel();
    this.native = nativeKernelsActive();
    this.backend = requestedKernelBackend();
    const init: HelperInit = {
      kind: "sdspcaan-kernel-helper",
      flag,
      replies: channel.port2,
      native: this.native,
      backend: this.backend,
    };
    this.worker = startWorker(
      import.meta.url,
      "./helperWorker.node",
      "The kernels' helper thread",
      {
        workerData: init,
        transferList: [channel.port2],
      },
    );
    this.worker.unref();
    this.worker.on("error", () => {
      this.lost = true;
    });
    this.worker.on("exit", () => {
      this.lost = true;
    });
    this.flag = new Int32Array(flag);
    this.replies = channel.port1;
    this.replies.unref();
  }

  handle(): number {
    return this.nextHandle++;
  }

  /** Sends a request and returns its number, without waiting. */
  send(request: Outgoing, transfer: ArrayBuffer[] = []): number {
    if (this.lost) throw new SdspcaanError("The kernels' helper thread has stopped.");
    const seq = ++this.seq;
    this.worker.postMessage({ ...request, seq }, transfer);
    return seq;
  }

  /** Waits for the answer to request `seq` and returns its output; throws what the helper reported. */
  wait(seq: number): unknown {
    const started = Date.now();
    while (Atomics.load(this.flag, 0) < seq) {
      Atomics.wait(this.flag, 0, Atomics.load(this.flag, 0), 1000);
      if (Atomics.load(this.flag, 0) >= seq) break;
      if (Date.now() - started > ANSWER_TIMEOUT_MS) {
        this.lost = true;
        throw new SdspcaanError(
          `The kernels' helper thread did not answer within ${ANSWER_TIMEOUT_MS / 1000} s; run with one thread (setKernelThreads(1), or --threads 1).`,
        );
      }
    }
    // Answers arrive in order; drain up to this one.
    for (;;) {
      const received = receiveMessageOnPort(this.replies);
      if (received === undefined) {
        throw new SdspcaanError(
          `The kernels' helper thread answered request ${seq} without a message.`,
        );
      }
      const reply = received.message as HelperReply;
      if (reply.seq !== seq) continue;
      if (reply.error !== undefined) {
        throw new SdspcaanError(`The kernels' helper thread failed: ${reply.error}`);
      }
      return reply.output;
    }
  }

  /** The shared buffer for a product of B (n x p) and C (rows x n); sent when new. */
  stagingFor(doubles: number): { view: Float64Array; fresh: SharedArrayBuffer | undefined } {
    if (this.staging !== null && this.staging.length >= doubles) {
      return { view: this.staging, fresh: undefined };
    }
    const buffer = new SharedArrayBuffer(Math.max(doubles, 2 * (this.staging?.length ?? 0)) * 8);
    this.staging = new Float64Array(buffer);
    return { view: this.staging, fresh: buffer };
  }

  terminate(): void {
    this.lost = true;
    void this.worker.terminate();
  }
}

/** One computation's use of one helper worker. */
class HelperSession implements KernelHelper {
  private readonly worker: HelperWorker;
  private readonly held = new Map<number, { rows: number; cols: number }>();
  private pending: { seq: number; rows: number; n: number; p: number } | null = null;
  private task: number | null = null;
  private product: { seq: number; m: number; n: number; p: number } | null = null;
  private sparse: { seq: number; size: number; count: number } | null = null;
  private chunk: { seq: number; size: number } | null = null;

  constructor(worker: HelperWorker) {
    this.worker = worker;
  }

  hold(A: Float64Array, rows: number, cols: number): number {
    const handle = this.worker.handle();
    const data = A.slice(0, rows * cols).buffer;
    this.worker.wait(this.worker.send({ type: "hold", handle, rows, cols, data }, [data]));
    this.held.set(handle, { rows, cols });
    return handle;
  }

  start(handle: number, B: Float64Array, n: number): void {
    const block = this.idleHolding(handle);
    const p = block.cols;
    const { view, fresh } = this.worker.stagingFor(n * p + block.rows * n);
    view.set(B.subarray(0, n * p));
    const seq = this.worker.send({ type: "gemm", handle, n, ...(fresh ? { staging: fresh } : {}) });
    this.pending = { seq, rows: block.rows, n, p };
  }

  finish(out: Float64Array, offset: number): void {
    const running = this.pending;
    this.pending = null;
    const job = this.answer(running, "product");
    const { view } = this.worker.stagingFor(0);
    const start = job.n * job.p;
    out.set(view.subarray(start, start + job.rows * job.n), offset);
  }

  startSparse(handle: number, rows: CsrRows): void {
    const size = this.idleHolding(handle).cols * rows.count;
    const seq = this.sendRows({ type: "sparse", handle, ...rows }, size);
    this.sparse = { seq, size, count: rows.count };
  }

  finishSparse(out: Float64Array, offset: number, rows: number): void {
    const running = this.sparse;
    this.sparse = null;
    const job = this.answer(running, "sparse product");
    const { view } = this.worker.stagingFor(0);
    out.set(view.subarray(0, Math.min(job.size, rows * job.count)), offset);
  }

  startProduct(
    ...[m, n, p, A, lda, B, ldb, C, ldc, exact = false]: [
      ...GemmOperands<Float64Array, Float64Array | null>,
      exact?: boolean,
    ]
  ): void {
    if (this.busy()) throw new RangeError("KernelHelper: the helper is already busy.");
    const { view, fresh } = this.worker.stagingFor(m * p + n * p + m * n);
    copyRows(view, 0, A, lda, m, p);
    copyRows(view, m * p, B, ldb, n, p);
    if (C !== null) copyRows(view, m * p + n * p, C, ldc, m, n);
    const seq = this.worker.send({
      type: "product",
      m,
      n,
      p,
      accumulate: C !== null,
      exact,
      ...(fresh ? { staging: fresh } : {}),
    });
    this.product = { seq, m, n, p };
  }

  finishProduct(C: Float64Array, ldc: number): void {
    const running = this.product;
    this.product = null;
    const job = this.answer(running, "product");
    const { view } = this.worker.stagingFor(0);
    const at = job.m * job.p + job.n * job.p;
    for (let i = 0; i < job.m; i++) {
      C.set(view.subarray(at + i * job.n, at + (i + 1) * job.n), i * ldc);
    }
  }

  startLaplacianChunk(handle: number, first: number, rows: CsrRows): void {
    const block = this.idleHolding(handle);
    const size = block.cols * block.cols;
    this.chunk = {
      seq: this.sendRows({ type: "laplacianChunk", handle, first, ...rows }, size),
      size,
    };
  }

  /**
   * Sends a request that carries CSR rows (startSparse, startLaplacianChunk), with a
   * staging buffer of at least `size` doubles for the answer. The arrays move to the
   * helper (transferred when they own their whole buffer).
   */
  private sendRows(request: Outgoing & CsrRows, size: number): number {
    const { fresh } = this.worker.stagingFor(size);
    const transfer = ownedBuffers([request.rowPtr, request.colIdx, request.values]);
    return this.worker.send({ ...request, ...(fresh ? { staging: fresh } : {}) }, transfer);
  }

  finishLaplacianChunk(): Float64Array {
    const running = this.chunk;
    this.chunk = null;
    const job = this.answer(running, "chunk of U^T L U");
    return this.worker.stagingFor(0).view.subarray(0, job.size);
  }

  /**
   * The running request `job` (of the kind `what`, else a RangeError saying none is
   * running), once its answer is in.
   */
  private answer<J extends { readonly seq: number }>(job: J | null, what: string): J {
    if (job === null) throw new RangeError(`KernelHelper: no ${what} is running.`);
    this.worker.wait(job.seq);
    return job;
  }

  /** Waits for a started request whose answer is no longer wanted, if any. */
  private settle(job: { readonly seq: number } | null): void {
    if (job === null) return;
    try {
      this.worker.wait(job.seq);
    } catch {
      // The helper is lost; nothing to wait for.
    }
  }

  /** The block held under `handle`, checking that this session is not busy. */
  private idleHolding(handle: number): { rows: number; cols: number } {
    const block = this.held.get(handle);
    if (block === undefined)
      throw new RangeError(`KernelHelper: no block is held under ${handle}.`);
    if (this.busy()) throw new RangeError("KernelHelper: the helper is already busy.");
    return block;
  }

  private busy(): boolean {
    return (
      this.task !== null ||
      this.pending !== null ||
      this.product !== null ||
      this.sparse !== null ||
      this.chunk !== null
    );
  }

  startTask(name: HelperTaskName, input: object): void {
    if (this.busy()) {
      throw new RangeError("KernelHelper: the helper is already busy.");
    }
    this.task = this.worker.send({ type: "task", name, input });
  }

  finishTask(): unknown {
    const seq = this.task;
    if (seq === null) throw new RangeError("KernelHelper: no task is running.");
    this.task = null;
    return this.worker.wait(seq);
  }

  release(): void {
    // Requests still running (the caller failed in between) end first; a lost helper
    // has nothing to wait for.
    this.settle(this.chunk);
    this.chunk = null;
    this.settle(this.sparse);
    this.sparse = null;
    this.settle(this.product);
    this.product = null;
    if (this.task !== null) {
      try {
        this.finishTask();
      } catch {
        // The helper is lost or the task failed; nothing more to wait for.
      }
    }
    this.settle(this.pending);
    this.pending = null;
    if (this.held.size === 0 || this.worker.lost) return;
    const handles = [...this.held.keys()];
    this.held.clear();
    this.worker.wait(this.worker.send({ type: "release", handles }));
  }
}

/**
 * The buffers of the arrays that own their whole buffer: those move to the helper
 * (transferred); the others are copied by the structured clone.
 */
function ownedBuffers(arrays: readonly (Int32Array | Float64Array)[]): ArrayBuffer[] {
  return arrays
    .filter((a) => a.byteOffset === 0 && a.byteLength === a.buffer.byteLength)
    .map((a) => a.buffer as ArrayBuffer);
}

/** Copies rows x cols of `src` (leading dimension ld) compactly into `dst` at `at`. */
function copyRows(
  dst: Float64Array,
  at: number,
  src: Float64Array,
  ld: number,
  rows: number,
  cols: number,
): void {
  if (ld === cols) {
    dst.set(src.subarray(0, rows * cols), at);
    return;
  }
  for (let i = 0; i < rows; i++) dst.set(src.subarray(i * ld, i * ld + cols), at + i * cols);
}

let workers: HelperWorker[] = [];
let side: HelperWorker | null = null;
let configured = 1;

/**
 * Runs the large fits' heavy parts on `threads` threads: this one and threads - 1
 * helper workers, started when a computation first asks for them (a small fit never
 * does) and stopped by a later call with fewer threads. 1 (the default) runs everything
 * on the calling thread. The results are the same bits whatever the count (helper.ts).
 * From 2 threads on, one more worker, the side helper (helper.ts, `sideHelper`), runs
 * work beside the others' (the rank control beside the Z solve): it fills the time they
 * leave idle and is not counted in `threads`.
 */
export function setKernelThreads(threads: number): void {
  if (!Number.isInteger(threads) || threads < 1 || threads > 64) {
    throw new ValidationError(
      "threads",
      `The number of threads must be an integer from 1 to 64. Got ${String(threads)} instead.`,
    );
  }
  configured = threads;
  for (const w of workers.slice(threads - 1)) w.terminate();
  workers = workers.slice(0, threads - 1);
  if (threads === 1) {
    setKernelHelpers(null);
    setThreadedProducts(null);
    setSideHelper(null);
    side?.terminate();
    side = null;
    return;
  }
  setSideHelper(() => {
    side = usable(side, nativeKernelsActive());
    return new HelperSession(side);
  });
  setKernelHelpers(() => {
    const native = nativeKernelsActive();
    workers = workers.map((w) => usable(w, native));
    while (workers.length < configured - 1) workers.push(new HelperWorker());
    return workers.map((w) => new HelperSession(w));
  });
  setThreadedProducts(threadedProducts);
}

/**
 * `worker` if it can serve, else a new one (workers start on first use): a worker that
 * was lost (its thread failed), or that runs another GEMM or backend than this thread
 * now does (setNativeKernels, setKernelBackend), is replaced.
 */
function usable(worker: HelperWorker | null, native: boolean): HelperWorker {
  if (
    worker !== null &&
    !worker.lost &&
    worker.native === native &&
    worker.backend === requestedKernelBackend()
  ) {
    return worker;
  }
  worker?.terminate();
  return new HelperWorker();
}

/** How many helper workers are running now (they start on first use; the side helper aside). */
export function runningKernelHelpers(): number {
  return workers.length;
}

/** Whether the side helper's worker is running (it starts on first use). */
export function sideHelperRunning(): boolean {
  return side !== null && !side.lost;
}

/** The number of threads the large fits run on (setKernelThreads). */
export function kernelThreads(): number {
  return configured;
}
