/**
 * The helper thread of the kernels (see helper.ts and helperThread.node.ts). It holds
 * row blocks of large matrices in WebAssembly memories of its own and computes their
 * rows of products on request. Requests arrive as messages; every answer is a message
 * on the reply port followed by the request's number in the shared flag, which the
 * requesting thread waits on (it is blocked in Atomics.wait meanwhile, so it cannot
 * receive ordinary messages).
 */
import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { clusterScanTask } from "../graph/clusterScan.js";
import { treeSearchTask } from "../graph/neighbours.js";
import { rankControlTask } from "../graph/rankControlBeside.js";
import { pairScanTask } from "../linalg/kernels/distances.js";
import type { CsrRows, HelperTaskName } from "../linalg/kernels/helper.js";
import { laplacianChunkPart } from "../linalg/kernels/laplacianGram.js";
import { installNativeOnHelper } from "../linalg/kernels/nativeGemm.node.js";
import { decideTask, screenTask } from "../linalg/kernels/screenedSearch.js";
import { csrColumnsTransposedWasm } from "../linalg/kernels/sparseWasm.js";
import {
  type KernelBackendRequest,
  privateArena,
  setKernelBackend,
  type WasmArena,
} from "../linalg/kernels/wasm/backend.js";

/** What the starting thread puts in `workerData`. */
export interface HelperInit {
  readonly kind: "sdspcaan-kernel-helper";
  /** Int32Array over it: [0] the number of the last request answered. */
  readonly flag: SharedArrayBuffer;
  readonly replies: MessagePort;
  /** Run the GEMM natively, as the starting thread does (nativeGemm.node.ts). */
  readonly native: boolean;
  /** The kernel backend the starting thread asked for (wasm/backend.ts), so the same bits. */
  readonly backend: KernelBackendRequest;
}

/** Requests, each numbered by `seq` (1, 2, ...). */
/** The product (A H)^T for the rows of the sparse A (helper.ts, startSparse). */
interface SparseRequest extends CsrRows {
  readonly type: "sparse";
  readonly seq: number;
  readonly handle: number;
  /** (A H)^T (held columns x count) is written at its start; a new buffer when it grew. */
  readonly staging?: SharedArrayBuffer;
}

/** A chunk's part of U^T L U: rows first to first + count - 1 of L (startLaplacianChunk). */
interface LaplacianChunkRequest extends CsrRows {
  readonly type: "laplacianChunk";
  readonly seq: number;
  readonly handle: number;
  readonly first: number;
  /** The r x r part is written at its start; a new buffer when it grew. */
  readonly staging?: SharedArrayBuffer;
}

export type HelperRequest =
  | {
      readonly type: "hold";
      readonly seq: number;
      readonly handle: number;
      readonly rows: number;
      readonly cols: number;
      readonly data: ArrayBuffer;
    }
  | {
      readonly type: "gemm";
      readonly seq: number;
      readonly handle: number;
      readonly n: number;
      /** B (n x p) at the start, C (rows x n) right after it; a new buffer when it grew. */
      readonly staging?: SharedArrayBuffer;
    }
  | {
      readonly type: "product";
      readonly seq: number;
      readonly m: number;
      readonly n: number;
      readonly p: number;
      /** C's rows are in the staging buffer too, and the product is added to them. */
      readonly accumulate: boolean;
      /** With the module's GEMM whatever the backend (gemm.ts, gemmABtExact). */
      readonly exact: boolean;
      /** A (m x p), B (n x p), C (m x n), compact, in this order; a new buffer when it grew. */
      readonly staging?: SharedArrayBuffer;
    }
  | SparseRequest
  | LaplacianChunkRequest
  | {
      readonly type: "task";
      readonly seq: number;
      readonly name: HelperTaskName;
      readonly input: object;
    }
  | { readonly type: "release"; readonly seq: number; readonly handles: readonly number[] };

export interface HelperReply {
  readonly seq: number;
  /** A task's output. */
  readonly output?: unknown;
  readonly error?: string;
}

/** The tasks by name (helper.ts, HelperTaskName). */
const TASKS: Record<HelperTaskName, (input: never) => unknown> = {
  screen: screenTask,
  decide: decideTask,
  treeSearch: treeSearchTask,
  pairScan: pairScanTask,
  clusterScan: clusterScanTask,
  rankControl: rankControlTask,
};

interface Held {
  readonly arena: WasmArena;
  readonly ptr: number;
  readonly rows: number;
  readonly cols: number;
  readonly top: number;
}

function serve(init: HelperInit): void {
  const port = parentPort;
  if (port === null) return;
  const flag = new Int32Array(init.flag);
  const held = new Map<number, Held>();
  let staging: Float64Array | null = null;

  const hold = (handle: number, rows: number, cols: number, data: ArrayBuffer): void => {
    const arena = privateArena();
    if (arena === null) throw new Error("WebAssembly SIMD is not available in the helper thread.");
    const ptrs = arena.allocAll([rows * cols]);
    if (ptrs === null) {
      throw new Error(`no room for a ${rows} x ${cols} block in the helper's memory.`);
    }
    arena.f64.set(new Float64Array(data, 0, rows * cols), ptrs[0] >> 3);
    held.set(handle, { arena, ptr: ptrs[0], rows, cols, top: arena.mark() });
  };

  /**
   * C = A B^T in `arena` for A (m x p) already there at byte offset pa: B (n x p) from
   * the staging buffer at bAt, C (m x n) written back at cAt (and first read from there
   * when accumulating). Scratch above `release` is given back afterwards.
   */
  const multiply = (
    arena: WasmArena,
    pa: number,
    m: number,
    n: number,
    p: number,
    bAt: number,
    cAt: number,
    accumulate: boolean,
    release: number,
    exact = false,
  ): void => {
    if (staging === null) throw new Error("no staging buffer was sent.");
    try {
      const ptrs = arena.allocAll([n * p, m * n]);
      if (ptrs === null) throw new Error("no room for the product in the helper's memory.");
      const [pb, pc] = ptrs;
      const f = arena.f64;
      f.set(staging.subarray(bAt, bAt + n * p), pb >> 3);
      const oc = pc >> 3;
      if (accumulate) f.set(staging.subarray(cAt, cAt + m * n), oc);
      else f.fill(0, oc, oc + m * n);
      (exact ? arena.kernels.gemmExact : arena.kernels.gemm)(m, n, p, pa, p, pb, p, pc, n);
      staging.set(f.subarray(oc, oc + m * n), cAt);
    } finally {
      arena.release(release);
    }
  };

  /** The block held under `handle`. */
  const heldBlock = (handle: number): Held => {
    const h = held.get(handle);
    if (h === undefined) throw new Error(`no block is held under handle ${handle}.`);
    return h;
  };

  /** The staging buffer the requests write their results to. */
  const stagingBuffer = (): Float64Array => {
    if (staging === null) throw new Error("no staging buffer was sent.");
    return staging;
  };

  /** A held block times B: staging holds B (n x p), then C. */
  const gemm = (handle: number, n: number): void => {
    const h = heldBlock(handle);
    multiply(h.arena, h.ptr, h.rows, n, h.cols, 0, n * h.cols, false, h.top);
  };

  /**
   * (A H)^T for the sparse rows A and the held H (n x w, w even): the csrmm kernel, then
   * the module's transpose, written to the staging buffer (w x count). The CSR arrays
   * and the product go above the held block and are given back afterwards.
   */
  const sparse = ({ handle, count, rowPtr, colIdx, values }: SparseRequest): void => {
    const h = heldBlock(handle);
    const out = stagingBuffer();
    try {
      const T = csrColumnsTransposedWasm(
        h.arena,
        rowPtr,
        colIdx,
        values,
        count,
        h.ptr,
        h.cols * 8,
        h.cols,
      );
      if (T === null) throw new Error("no room for the sparse product in the helper's memory.");
      out.set(T, 0);
    } finally {
      h.arena.release(h.top);
    }
  };

  /** A chunk's part of U^T L U (laplacianGram.ts) for the held U, to the staging buffer. */
  const laplacianChunk = (request: LaplacianChunkRequest): void => {
    const { handle, first, count, rowPtr, colIdx, values } = request;
    const h = heldBlock(handle);
    const out = stagingBuffer();
    if (first < 0 || first + count > h.rows) {
      throw new Error(`rows ${first} to ${first + count - 1} are outside the held ${h.rows}.`);
    }
    try {
      const part = laplacianChunkPart(h.arena, h.ptr, h.cols, first, count, rowPtr, colIdx, values);
      if (part === null)
        throw new Error("no room for the chunk of U^T L U in the helper's memory.");
      out.set(part, 0);
    } finally {
      h.arena.release(h.top);
    }
  };

  /** The memory of one-off products (grows to the largest, then is reused). */
  let scratch: WasmArena | null = null;
  /** A one-off product: staging holds A (m x p), B (n x p), then C. */
  const product = (m: number, n: number, p: number, accumulate: boolean, exact: boolean): void => {
    if (staging === null) throw new Error("no staging buffer was sent.");
    scratch ??= privateArena();
    if (scratch === null)
      throw new Error("WebAssembly SIMD is not available in the helper thread.");
    const arena = scratch;
    const mark = arena.mark();
    const ptrs = arena.allocAll([m * p]);
    if (ptrs === null) throw new Error("no room for the product in the helper's memory.");
    arena.f64.set(staging.subarray(0, m * p), ptrs[0] >> 3);
    multiply(arena, ptrs[0], m, n, p, m * p, m * p + n * p, accumulate, mark, exact);
  };

  // As the starting thread: the same backend, so the same bits; the native GEMM where
  // it runs there (on "wasm" it gives the module's bits, so where it does not load here
  // this thread's products are only slower).
  setKernelBackend(init.backend);
  if (init.native) installNativeOnHelper();
  port.on("message", (request: HelperRequest) => {
    let error: string | undefined;
    let output: unknown;
    try {
      // A request that needed a larger staging buffer brings the new one.
      if ("staging" in request && request.staging !== undefined) {
        staging = new Float64Array(request.staging);
      }
      if (request.type === "hold") hold(request.handle, request.rows, request.cols, request.data);
      else if (request.type === "gemm") gemm(request.handle, request.n);
      else if (request.type === "product") {
        product(request.m, request.n, request.p, request.accumulate, request.exact);
      } else if (request.type === "sparse") sparse(request);
      else if (request.type === "laplacianChunk") laplacianChunk(request);
      else if (request.type === "task") {
        output = TASKS[request.name](request.input as never);
      } else for (const handle of request.handles) held.delete(handle);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const reply: HelperReply =
      error === undefined ? { seq: request.seq, output } : { seq: request.seq, error };
    init.replies.postMessage(reply);
    Atomics.store(flag, 0, request.seq);
    Atomics.notify(flag, 0);
  });
}

const init = workerData as HelperInit | null;
if (init !== null && typeof init === "object" && init.kind === "sdspcaan-kernel-helper")
  serve(init);
