/**
 * SDSPCAAN's rank control beside the Z solve.
 *
 * In an outer iteration of the Q-loop (methods/sdspcaFamily.ts) the Z solve and the rank
 * control's Laplacian solve (rankControlEigenvalues) both read the graph of the last S
 * update and nothing of each other, so they may run at the same time. At 60,000
 * Fashion-MNIST images the Z solve keeps two threads only partly busy (about 1.4 cores of
 * 2 on average: its products wait for copies, memory and each other), and the rank
 * control, single-threaded, took about 1.9 s of a 10.7 s late outer iteration. On a
 * side thread (`sideHelper`, helper.ts) it fills those gaps.
 *
 * The side thread keeps the warm start of the solves (LaplacianWarmStart) from one call
 * to the next, as the calling thread did, and runs the same code on the same values, so
 * every rank control gives the same bits on either thread (tested along a fit). Where
 * no side thread is registered (browsers, one thread) or the fit is small, the solve
 * runs here when its result is asked for, as before.
 */
import { now } from "../core/clock.js";
import { AbortError, throwIfAborted } from "../core/errors.js";
import { type KernelHelper, sideHelper } from "../linalg/kernels/helper.js";
import { CsrMatrix } from "../linalg/sparse.js";
import {
  type LaplacianSpectrumOptions,
  type LaplacianWarmStart,
  rankControlEigenvalues,
} from "./laplacianSpectrum.js";

/** The options of rankControlEigenvalues that a side thread can take. */
export type RankControlSolveOptions = Pick<
  LaplacianSpectrumOptions,
  "signal" | "denseLimit" | "decisionMinSize"
>;

/** Those options but the signal: what crosses to the side thread as they are. */
type SideSolveOptions = Omit<RankControlSolveOptions, "signal">;

/** One rank control's Laplacian eigenvalues and the time its solve took (ms, on its thread). */
export interface RankControlSolve {
  readonly values: Float64Array;
  readonly ms: number;
}

/**
 * The rank control's solves of one fit, in order: `start(L)` hands a Laplacian over,
 * `finish()` returns its eigenvalues. Beside, the solve runs on the side thread between
 * the two; here, in `finish`. `release` ends the fit's use of the side thread (waiting
 * for a solve still running, which it asks to stop) and frees its warm start there.
 */
export class RankControlRunner {
  private readonly c: number;
  private readonly tol: number;
  private readonly options: RankControlSolveOptions;
  /**
   * The side thread's session and its stop flag, or null when the solves run here
   * (shared memory exists only where threads do).
   */
  private readonly side: { readonly helper: KernelHelper; readonly cancel: Int32Array } | null;
  private readonly key: number;
  /** The warm start of the solves here (the side thread keeps its own). */
  private readonly warm: LaplacianWarmStart = { block: null };
  private pending: CsrMatrix | null = null;
  private running = false;

  /**
   * `beside`: use the side thread when one is registered (sideHelper); false solves here.
   */
  constructor(c: number, tol: number, options: RankControlSolveOptions, beside: boolean) {
    this.c = c;
    this.tol = tol;
    this.options = options;
    const helper = beside ? sideHelper() : null;
    this.side =
      helper === null ? null : { helper, cancel: new Int32Array(new SharedArrayBuffer(4)) };
    this.key = nextKey++;
  }

  /** Whether the solves run on the side thread. */
  get beside(): boolean {
    return this.side !== null;
  }

  /** Starts the rank control's solve of L (on the side thread, or on `finish` here). */
  start(L: CsrMatrix): void {
    if (this.running || this.pending !== null) {
      throw new RangeError("RankControlRunner: a solve is already started.");
    }
    if (this.side === null) {
      this.pending = L;
      return;
    }
    const { signal: _, ...options } = this.options;
    const input: RankControlTaskInput = {
      key: this.key,
      rows: L.rows,
      rowPtr: L.rowPtr,
      colIdx: L.colIdx,
      values: L.values,
      c: this.c,
      tol: this.tol,
      options,
      cancel: this.side.cancel,
    };
    // The CSR arrays are copied by the structured clone: L stays the caller's.
    this.side.helper.startTask("rankControl", input);
    this.running = true;
  }

  /** The eigenvalues of the Laplacian last started (waits for the side thread). */
  finish(): RankControlSolve {
    if (this.side === null) {
      const L = this.pending;
      if (L === null) throw new RangeError("RankControlRunner: no solve is started.");
      this.pending = null;
      const t0 = now();
      const values = rankControlEigenvalues(L, this.c, this.tol, this.warm, this.options);
      return { values, ms: now() - t0 };
    }
    if (!this.running) throw new RangeError("RankControlRunner: no solve is started.");
    if (this.options.signal?.aborted) Atomics.store(this.side.cancel, 0, 1);
    this.running = false;
    const output = this.side.helper.finishTask() as RankControlTaskOutput;
    // Cancelled there: report the caller's abort as it would have been reported here.
    throwIfAborted(this.options.signal);
    if (output.aborted) throw new AbortError();
    return { values: output.values, ms: output.ms };
  }

  /** Ends the fit's use of the side thread (see the class comment); safe to call twice. */
  release(): void {
    if (this.side === null) {
      this.pending = null;
      return;
    }
    const { helper: side, cancel } = this.side;
    if (this.running) {
      Atomics.store(cancel, 0, 1);
      this.running = false;
      try {
        side.finishTask();
      } catch {
        // Already failing or stopped: the first error is the one reported.
      }
    }
    try {
      side.startTask("rankControl", { key: this.key, forget: true } satisfies RankControlForget);
      side.finishTask();
    } catch {
      // The side thread is lost: its warm start went with it.
    } finally {
      side.release();
    }
  }
}

let nextKey = 1;

/** What the side thread gets for one solve (the CSR arrays of L, copied). */
export interface RankControlTaskInput {
  /** The fit's runner, whose warm start the side thread keeps until it is released. */
  readonly key: number;
  readonly rows: number;
  readonly rowPtr: Int32Array;
  readonly colIdx: Int32Array;
  readonly values: Float64Array;
  readonly c: number;
  readonly tol: number;
  readonly options: SideSolveOptions;
  /** Set to 1 by the caller to stop the solve early (it then reports `aborted`). */
  readonly cancel: Int32Array;
}

/** Drops the warm start kept for `key`. */
export interface RankControlForget {
  readonly key: number;
  readonly forget: true;
}

export type RankControlTaskOutput =
  | { readonly aborted: false; readonly values: Float64Array; readonly ms: number }
  | { readonly aborted: true };

/**
 * The warm start of each runner that has not been released (one per fit running on the
 * calling thread: usually one).
 */
const kept = new Map<number, LaplacianWarmStart>();

/** The side thread's part: one solve of rankControlEigenvalues with the runner's warm start. */
export function rankControlTask(
  input: RankControlTaskInput | RankControlForget,
): RankControlTaskOutput | null {
  if ("forget" in input) {
    kept.delete(input.key);
    return null;
  }
  let warm = kept.get(input.key);
  if (warm === undefined) {
    warm = { block: null };
    kept.set(input.key, warm);
  }
  const { cancel } = input;
  // The solve polls a signal; this one reads the caller's flag in shared memory.
  const signal = {
    get aborted() {
      return Atomics.load(cancel, 0) !== 0;
    },
    reason: undefined,
  } as unknown as AbortSignal;
  const L = new CsrMatrix(input.rows, input.rows, input.rowPtr, input.colIdx, input.values);
  const t0 = now();
  try {
    const values = rankControlEigenvalues(L, input.c, input.tol, warm, {
      ...input.options,
      signal,
    });
    return { aborted: false, values, ms: now() - t0 };
  } catch (error) {
    // A solve stopped half-way leaves a warm start that a later solve must not use.
    kept.delete(input.key);
    if (error instanceof AbortError) return { aborted: true };
    throw error;
  }
}
