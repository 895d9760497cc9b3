/**
 * A second thread for the thin products of large fits: the "kernel helper".
 *
 * The matrix-free eigen-solver spends most of a large fit in products of the n x r
 * factor U (and U^T) with blocks of 10-30 vectors (methods/zstep/gramOperator.ts). Those
 * split by rows of the factor: each thread holds its rows in its own WebAssembly
 * memory for the whole fit and computes its rows of every product, and since each
 * entry of C = A B^T is summed by the same kernel in the same order whichever thread
 * computes it, the result has the same bits on one thread or two.
 *
 * The core only defines the contract, so that it stays browser-safe and single
 * threaded by default; an environment with threads registers a factory
 * (`setKernelHelpers`): in Node, `setKernelThreads` of sdspcaan/node
 * (threads/helperThread.node.ts). The calls are synchronous: the caller
 * computes its own rows between `start` and `finish`.
 */

import type { GemmOperands, WasmArena } from "./wasm/backend.js";

/**
 * Rows of a sparse matrix for a helper (CSR, row pointers from 0): `count` rows, their
 * column indices and values. Handed over, not copied: the caller must not use the
 * arrays again.
 */
export interface CsrRows {
  readonly count: number;
  readonly rowPtr: Int32Array;
  readonly colIdx: Int32Array;
  readonly values: Float64Array;
}

/**
 * A GEMM on operands where the module's memory may hold them (gemm.ts, gemmABtWasm;
 * threadedProducts.ts, gemmOnThreads): C = A B^T, or C += A B^T with `accumulate`,
 * with the backend's GEMM or, `exact`, the module's (gemm.ts, gemmABtExact); false
 * (nothing done) when it cannot run there.
 */
export type ArenaGemm = (
  arena: WasmArena,
  ...args: [...GemmOperands<Float64Array>, accumulate: boolean, exact?: boolean]
) => boolean;

export interface KernelHelper {
  /**
   * Copies A (rows x cols, row-major, compact) into the helper's memory and returns
   * a handle for it.
   */
  hold(A: Float64Array, rows: number, cols: number): number;
  /**
   * Starts C = H B^T on the helper, H the held matrix (rows x p) and B n x p (compact;
   * copied before this returns), and returns at once.
   */
  start(handle: number, B: Float64Array, n: number): void;
  /** Waits for the product started last and writes its rows x n result at `out[offset]`. */
  finish(out: Float64Array, offset: number): void;
  /**
   * Starts (A H)^T on the helper, H the held matrix (N x w, w even) and A sparse rows
   * (`rows.count` rows of N columns), and returns at once. Each entry is summed as
   * CsrMatrix.multiplyMatrix sums it.
   */
  startSparse(handle: number, rows: CsrRows): void;
  /**
   * Waits for the product of `startSparse` and writes the first `rows` rows of its
   * w x count result at `out[offset]` (rows < w drops a padding column of H).
   */
  finishSparse(out: Float64Array, offset: number, rows: number): void;
  /**
   * Starts one chunk's part of U^T L U on the helper (laplacianGram.ts,
   * laplacianChunkPart), U the held matrix (n x r, r even) and the chunk the rows
   * `first` to first + rows.count - 1 of L, and returns at once.
   */
  startLaplacianChunk(handle: number, first: number, rows: CsrRows): void;
  /**
   * Waits for the part of `startLaplacianChunk` and returns it (r x r, the blocks on
   * and below the block diagonal), a view valid until the helper's next request.
   */
  finishLaplacianChunk(): Float64Array;
  /**
   * Starts C = A B^T (+ C with `C` given: the accumulating form) on the helper for A
   * (m x p, leading dimension lda) and B (n x p, ldb), with its backend's GEMM or,
   * `exact`, the module's (gemm.ts, gemmABtExact); the operands are copied before this
   * returns. `finishProduct` writes the m x n result.
   */
  startProduct(
    ...operands: [...GemmOperands<Float64Array, Float64Array | null>, exact?: boolean]
  ): void;
  /** Waits for the product of `startProduct` and writes it into C (leading dimension ldc). */
  finishProduct(C: Float64Array, ldc: number): void;
  /**
   * Starts one of the helper's tasks (HelperTaskName) on `input`, which is copied by
   * the structured clone (typed arrays over SharedArrayBuffers are shared, not
   * copied), and returns at once.
   */
  startTask(name: HelperTaskName, input: object): void;
  /** Waits for the task started last and returns its output. */
  finishTask(): unknown;
  /** Frees every matrix held for this caller. */
  release(): void;
}

/**
 * The tasks a helper runs besides products: the two phases of the screened neighbour
 * search (screenedSearch.ts, `screenTask` and `decideTask`) and the k-d tree search of
 * the labelled graph (graph/neighbours.ts, `treeSearchTask`), the query row blocks of
 * a pair scan (distances.ts, `pairScanTask`) and the clusters of a cluster scan
 * (graph/clusterScan.ts, `clusterScanTask`); on the side helper, the rank control's
 * Laplacian solve (graph/rankControlBeside.ts, `rankControlTask`).
 */
export type HelperTaskName =
  | "screen"
  | "decide"
  | "treeSearch"
  | "pairScan"
  | "clusterScan"
  | "rankControl";

/**
 * Runs `task` on every helper (helper h with input `inputFor(h)`) while this thread runs
 * `own`, and returns both results, the helpers' in order. On a failure or an abort in
 * `own`, `cancel` is set (the tasks poll it and stop early) and every started task is
 * still waited for, so that no helper is left busy.
 */
export function alongsideHelpers<T>(
  helpers: readonly KernelHelper[],
  task: HelperTaskName,
  inputFor: (h: number) => object,
  cancel: Int32Array,
  own: () => T,
): { own: T; theirs: unknown[] } {
  const started: KernelHelper[] = [];
  try {
    for (let h = 0; h < helpers.length; h++) {
      helpers[h].startTask(task, inputFor(h));
      started.push(helpers[h]);
    }
    const mine = own();
    return { own: mine, theirs: finishTasks(started.splice(0)) };
  } finally {
    if (started.length > 0) {
      Atomics.store(cancel, 0, 1);
      try {
        finishTasks(started);
      } catch {
        // Already failing: the first error is the one reported.
      }
    }
  }
}

/**
 * The part of `bounds` that helper h takes in alongsideHelpers, this thread taking part
 * 0: from bounds[h + 1] to bounds[h + 2].
 */
export function helperPart(bounds: ArrayLike<number>, h: number): { from: number; to: number } {
  return { from: bounds[h + 1], to: bounds[h + 2] };
}

/**
 * Every started task's output, in order. All are waited for before the first error is
 * thrown, so that no helper is left busy.
 */
export function finishTasks(started: readonly KernelHelper[]): unknown[] {
  const outputs: unknown[] = [];
  let failure: unknown = null;
  for (const h of started) {
    try {
      outputs.push(h.finishTask());
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== null) throw failure;
  return outputs;
}

/**
 * Makes the helpers for one computation (e.g. one fit): one per extra thread, none
 * when no thread is available.
 */
export type KernelHelperFactory = () => readonly KernelHelper[];

let factory: KernelHelperFactory | null = null;

/** Registers (or, with null, removes) the source of helpers. */
export function setKernelHelpers(next: KernelHelperFactory | null): void {
  factory = next;
}

/** The helpers for one computation; empty when there are none (everything runs here). */
export function kernelHelpers(): readonly KernelHelper[] {
  return factory === null ? [] : factory();
}

/**
 * The side helper: one more thread, not among kernelHelpers(), for work that runs beside
 * a computation that keeps the others busy (the rank control beside the Z solve,
 * graph/rankControlBeside.ts) rather than split with it. A new session per call, like
 * the factory above; null when there is none.
 */
export type SideHelperFactory = () => KernelHelper | null;

let sideFactory: SideHelperFactory | null = null;

/** Registers (or, with null, removes) the source of side helpers. */
export function setSideHelper(next: SideHelperFactory | null): void {
  sideFactory = next;
}

/** A session on the side helper, or null when there is none (the work then runs here). */
export function sideHelper(): KernelHelper | null {
  return sideFactory === null ? null : sideFactory();
}

/**
 * Part boundaries 0 = b_0 < b_1 < ... < b_k = rows for splitting rows over `parts`
 * threads, the interior ones even: the GEMM kernel computes rows in pairs (2i, 2i + 1),
 * so that each row is computed by the same code whichever thread has it. Fewer parts
 * when there are too few rows.
 */
export function evenRowBounds(rows: number, parts: number): number[] {
  const size = Math.ceil(rows / parts / 2) * 2;
  const bounds = [0];
  for (let i = 1; i < parts; i++) bounds.push(Math.min(rows, i * size));
  bounds.push(rows);
  return bounds.filter((b, i) => i === 0 || b > bounds[i - 1]);
}

/**
 * Boundaries 0 = b_0 <= ... <= b_parts = items splitting items 0..items-1 into
 * contiguous runs of about equal total cost.
 */
export function balancedBounds(
  items: number,
  parts: number,
  cost: (i: number) => number,
): number[] {
  let total = 0;
  for (let i = 0; i < items; i++) total += cost(i);
  const bounds = [0];
  let sum = 0;
  let i = 0;
  for (let part = 1; part < parts; part++) {
    const target = (total * part) / parts;
    while (i < items && sum + cost(i) / 2 < target) sum += cost(i++);
    bounds.push(i);
  }
  bounds.push(items);
  return bounds;
}

/**
 * The products that split over the helpers (threadedProducts.ts), each returning false
 * when it did nothing (not worth splitting, no helper), so that the caller runs its
 * one-thread path: `gemm` is gemmABtRaw's wasm path by rows of A (gemm.ts), `lowerBlocks`
 * the block rows of gemmABtLowerBlocks (symmetricProducts.ts) for A and B (n x p) whose
 * copies are in the module's memory at pa and pb, and C (n x n, zeroed) at pc.
 */
export interface ThreadedProducts {
  gemm: ArenaGemm;
  lowerBlocks(
    arena: WasmArena,
    n: number,
    p: number,
    A: Float64Array,
    lda: number,
    B: Float64Array,
    ldb: number,
    pa: number,
    pb: number,
    pc: number,
    block: number,
  ): boolean;
}

let threaded: ThreadedProducts | null = null;

/**
 * Registers (or, with null, removes) the products split over the helpers: setKernelThreads
 * registers threadedProducts.ts's with its factory, so that the kernels reach that code
 * only where threads exist and a browser's bundle does not carry it.
 */
export function setThreadedProducts(next: ThreadedProducts | null): void {
  threaded = next;
}

/** The registered products split over the helpers, or null (everything on this thread). */
export function threadedProducts(): ThreadedProducts | null {
  return threaded;
}
