/**
 * The exact nearest-neighbour search of distances.ts (`nearestNeighbours`) with its
 * n^2 d work in single precision: the same neighbours and the same distances, bit for
 * bit, at about half the cost of the pair scan for large n and d (the initial graph of
 * SDSPCAAN, SDSPCA-LPP and LPP: 60,000 Fashion-MNIST images in 784 dimensions are
 * 1.4e12 multiply-adds).
 *
 * 1. Screen. Every pair's distance is estimated as e_ij = n_i + n_j - 2 fl32(x_i . x_j)
 *    (n_i = ||x_i||^2 in double, the dot product of the rows rounded to single
 *    precision, in the `gemm32` kernel: four single lanes per SIMD operation where the
 *    double kernel has two; in Node on x86-64 the native addon's, 16 lanes with fused
 *    multiply-adds, in another order), and each row keeps its `2 count` best estimates.
 * 2. Bound. |e_ij - ||x_i - x_j||^2| <= Delta_ij = g (n_i + n_j) with g = gamma_d + 3u
 *    (u = 2^-24; the rounding of the inputs, the products and any summation order of d
 *    terms, fused or not; Higham, Accuracy and Stability, 3.1) plus a margin far above the double
 *    rounding of the exact distances. So lo_ij = e_ij - Delta_ij and hi_ij = e_ij +
 *    Delta_ij bracket the exact distance, and each row keeps its 2 count smallest lo.
 *    If U_i is the count-th smallest hi among them, the count-th exact distance is at
 *    most U_i (count real rows lie below it), so every one of the count nearest rows
 *    has lo_ij <= U_i. The bound is per pair: a few rows of huge norm (z-scored pixels
 *    that are almost always 0) do not widen every row's window.
 * 3. Decide exactly. The candidates with lo_ij <= U_i get their exact distances, with
 *    the dot product summed in the order of the double GEMM kernel (kernels.wat:
 *    panels of 256, even and odd terms in two lanes, the odd tail last), so that every
 *    distance has the bits the full search computes on the wasm backend. A row whose
 *    largest kept lo is not above U_i (more candidates than were kept: near-ties) is
 *    scanned exactly against every row.
 *
 * So the result is `nearestNeighbours`'s: identical on the wasm backend wherever the
 * full search's blocks run the wasm GEMM (always at the sizes this is used for), and in
 * any case identical where the dot products are exact. Used from graph/neighbours.ts
 * when the wasm kernels are active and the problem is large; `null` (use the full
 * search) when the module's memory cannot hold the single-precision copy or the
 * values are outside the range where the bound holds.
 */
import { throwIfAborted } from "../../core/errors.js";
import type { Matrix } from "../../core/matrix.js";
import { defaultBlockRows, squaredRowNorms } from "./distances.js";
import {
  alongsideHelpers,
  balancedBounds,
  helperPart,
  type KernelHelper,
  kernelHelpers,
} from "./helper.js";
import { concatNeighbourRows, NeighbourHeaps, type TwoPartNeighbours } from "./neighbourHeaps.js";
import { privateArena, type WasmArena, wasmArena } from "./wasm/backend.js";

/** Unit roundoff of single precision. */
const U32 = 2 ** -24;
/** Values outside [2^-50, 2^50] (in magnitude, zeros aside) keep single-precision products normal and finite. */
const MAX_MAGNITUDE = 2 ** 50;
const MIN_MAGNITUDE = 2 ** -50;
/** Relative margin covering the double rounding of exact distances (about d 2^-53). */
const DOUBLE_MARGIN = 1e-10;

/**
 * The `count` nearest other rows of each row of X (ties to the lower index), as
 * `nearestNeighbours` returns them, or null when this route does not apply.
 *
 * With kernel helpers (helper.ts) both phases are split over the threads: the
 * screen by blocks of rows (each thread keeps its own per-row best estimates, merged
 * at the end: the best `2 count` of a row are the best of the union of each thread's
 * best, so the merge gives the single thread's candidates), the exact decisions by
 * rows. Each estimate and each distance is computed as on one thread, so the result
 * has the same bits for any number of threads.
 */
export function screenedNearestNeighbours(
  X: Matrix,
  count: number,
  {
    signal,
    helpers: given,
    blockRows,
  }: {
    signal?: AbortSignal;
    /** The other threads (default: those registered, from SCREEN_HELPER_MIN_ENTRIES on). */
    helpers?: readonly KernelHelper[];
    /** Rows per block of the screen (default screenBlockRows(n); no result depends on it). */
    blockRows?: number;
  } = {},
): TwoPartNeighbours | null {
  const n = X.rows;
  const d = X.cols;
  const arena = wasmArena();
  if (arena === null || n < 3 || d < 1 || !inScreenableRange(X.data)) return null;
  const kept = Math.min(n - 1, 2 * count);
  const step = blockRows ?? screenBlockRows(n);
  const norms = squaredRowNorms(X);
  const g = boundFactor(d);
  const blocks = Math.ceil(n / step);
  const helpers = given ?? (n * d >= SCREEN_HELPER_MIN_ENTRIES ? kernelHelpers() : []);
  const aborted = () => signal?.aborted === true;
  if (helpers.length === 0) {
    const screen = screenBlocks(arena, X.data, n, d, norms, g, step, 0, blocks, kept, aborted);
    throwIfAborted(signal);
    if (screen === null) return null;
    const decided = decideRows(X.data, d, norms, g, screen.sorted(0), count, 0, n, aborted);
    throwIfAborted(signal);
    return decided.sorted(0);
  }
  // The helpers read X from shared memory; a flag tells them to stop early on abort.
  const x = new Float64Array(new SharedArrayBuffer(n * d * 8));
  x.set(X.data);
  const cancel = new Int32Array(new SharedArrayBuffer(4));
  const cancelled = () => aborted() || Atomics.load(cancel, 0) !== 0;
  const parts = 1 + helpers.length;
  const blockBounds = balancedBounds(blocks, parts, (b) => {
    const i1 = Math.min((b + 1) * step, n);
    return (i1 - b * step) * i1;
  });
  const rowBounds = balancedBounds(n, parts, () => 1);
  const screened = alongsideHelpers(
    helpers,
    "screen",
    (h): ScreenTaskInput => ({
      x,
      n,
      d,
      norms,
      g,
      step,
      ...helperPart(blockBounds, h),
      kept,
      cancel,
    }),
    cancel,
    () => screenBlocks(arena, x, n, d, norms, g, step, 0, blockBounds[1], kept, cancelled),
  );
  throwIfAborted(signal);
  const mine = screened.own;
  const theirs = screened.theirs as (ScreenTaskOutput | null)[];
  if (mine === null || theirs.some((t) => t === null)) return null;
  for (const t of theirs as ScreenTaskOutput[]) mine.offerAll(t);
  const screen = mine.sorted(0);
  const decided = alongsideHelpers(
    helpers,
    "decide",
    (h): DecideTaskInput => ({
      x,
      d,
      norms,
      g,
      indices: screen.indices,
      distances: screen.distances,
      kept,
      count,
      ...helperPart(rowBounds, h),
      cancel,
    }),
    cancel,
    () => decideRows(x, d, norms, g, screen, count, 0, rowBounds[1], cancelled).sorted(0),
  );
  throwIfAborted(signal);
  return concatNeighbourRows([decided.own, ...(decided.theirs as TwoPartNeighbours[])], count, 0);
}

/**
 * From this many entries of X on (n d), the search uses the kernel helpers: below, a
 * thread's start-up of the task (copying X to shared memory, the helper's single
 * precision copy) is a noticeable part of a search that takes well under a second.
 */
export const SCREEN_HELPER_MIN_ENTRIES = 4_000_000;

/** What a helper gets for its blocks of the screen (see screenBlocks). */
export interface ScreenTaskInput {
  readonly x: Float64Array;
  readonly n: number;
  readonly d: number;
  readonly norms: Float64Array;
  readonly g: number;
  readonly step: number;
  readonly from: number;
  readonly to: number;
  readonly kept: number;
  readonly cancel: Int32Array;
}

/** A helper's per-row best estimates (the heaps' storage), or null when its memory was short. */
export type ScreenTaskOutput = {
  readonly size: Int32Array;
  readonly dist: Float64Array;
  readonly index: Int32Array;
};

/** What a helper gets for its rows of the exact decisions (see decideRows). */
export interface DecideTaskInput {
  readonly x: Float64Array;
  readonly d: number;
  readonly norms: Float64Array;
  readonly g: number;
  readonly indices: Int32Array;
  readonly distances: Float64Array;
  readonly kept: number;
  readonly count: number;
  readonly from: number;
  readonly to: number;
  readonly cancel: Int32Array;
}

/** The helper side of the screen: its blocks in a memory of its own. */
export function screenTask(input: ScreenTaskInput): ScreenTaskOutput | null {
  const arena = privateArena();
  if (arena === null) return null;
  const { x, n, d, norms, g, step, from, to, kept, cancel } = input;
  const heaps = screenBlocks(
    arena,
    x,
    n,
    d,
    norms,
    g,
    step,
    from,
    to,
    kept,
    () => Atomics.load(cancel, 0) !== 0,
  );
  return heaps === null ? null : { size: heaps.size, dist: heaps.dist, index: heaps.index };
}

/** The helper side of the decisions: its rows, sorted. */
export function decideTask(input: DecideTaskInput): TwoPartNeighbours {
  const { x, d, norms, g, indices, distances, kept, count, from, to, cancel } = input;
  const screen = { indices, distances, count: kept };
  return decideRows(
    x,
    d,
    norms,
    g,
    screen,
    count,
    from,
    to,
    () => Atomics.load(cancel, 0) !== 0,
  ).sorted(0);
}

/**
 * The screen of blocks from..to-1 (block b: rows b step .. (b + 1) step - 1 against
 * every row before them) in `arena`: each row's `kept` smallest lower bounds. Null
 * when the arena cannot hold the single-precision rows.
 */
function screenBlocks(
  arena: WasmArena,
  x: Float64Array,
  n: number,
  d: number,
  norms: Float64Array,
  g: number,
  step: number,
  from: number,
  to: number,
  kept: number,
  cancelled: () => boolean,
): NeighbourHeaps | null {
  const screen = new NeighbourHeaps(n, kept);
  if (from >= to) return screen;
  const mark = arena.mark();
  // Single-precision rows (n d floats = n d / 2 doubles) and one block of estimates.
  const ptrs = arena.allocAll([Math.ceil((n * d) / 2), Math.min(step, n) * n]);
  if (ptrs === null) return null;
  arena.pin();
  try {
    const single = new Float32Array(arena.buffer, ptrs[0], n * d);
    single.set(x.subarray(0, n * d));
    const block = arena.view(ptrs[1], Math.min(step, n) * n);
    for (let b = from; b < to; b++) {
      if (cancelled()) break;
      const i0 = b * step;
      const i1 = Math.min(i0 + step, n);
      // Rows i0 .. i1 - 1 against rows 0 .. i1 - 1; the pairs b < a are used.
      arena.kernels.gemm32(i1 - i0, i1, d, ptrs[0] + i0 * d * 4, d, ptrs[0], d, ptrs[1], i1);
      offerLowerBounds(screen, norms, g, block, i0, i1);
    }
  } finally {
    arena.unpin();
    arena.release(mark);
  }
  return screen;
}

/**
 * Rows per block of the screen: at least SCREEN_MIN_BLOCK_ROWS (where defaultBlockRows
 * would give 16 at 60,000 rows), since every block streams all earlier rows through the
 * kernel once, and more rows per block use each of them more (the native screen: 42-46
 * GFLOP/s on 16 x 60,000 x 784, 58-67 on 64 x 60,000 x 784;
 * measured at commit 285e458). The
 * block of estimates is then up to 64 n doubles (31 MB at 60,000) per thread. Which
 * rows share a block changes no result: each row keeps its best lower bounds, ties to
 * the lower index, whatever the order they are offered in.
 */
function screenBlockRows(n: number): number {
  return Math.max(defaultBlockRows(n), Math.min(SCREEN_MIN_BLOCK_ROWS, n));
}

const SCREEN_MIN_BLOCK_ROWS = 64;

/** Whether every nonzero |x| lies in [MIN_MAGNITUDE, MAX_MAGNITUDE] (and is finite). */
function inScreenableRange(x: Float64Array): boolean {
  for (let t = 0; t < x.length; t++) {
    const a = Math.abs(x[t]);
    if (a !== 0 && !(a >= MIN_MAGNITUDE && a <= MAX_MAGNITUDE)) return false;
  }
  return true;
}

/** g of the header: the relative bound of an estimate, margin included. */
function boundFactor(d: number): number {
  return (d * U32) / (1 - d * U32) + 3 * U32 + DOUBLE_MARGIN;
}

/** Offers lo = e - g (n_a + n_b) of rows a in [i0, i1) against rows b < a to both rows. */
function offerLowerBounds(
  heaps: NeighbourHeaps,
  norms: Float64Array,
  g: number,
  block: Float64Array,
  i0: number,
  i1: number,
): void {
  const wD = heaps.worstDistance;
  const wJ = heaps.worstIndex;
  for (let a = i0; a < i1; a++) {
    const off = (a - i0) * i1;
    const na = norms[a];
    for (let b = 0; b < a; b++) {
      const sum = na + norms[b];
      const lo = sum - 2 * block[off + b] - g * sum;
      if (lo < wD[a] || (lo === wD[a] && b < wJ[a])) heaps.push(a, lo, b, lo, 0);
      if (lo < wD[b] || (lo === wD[b] && a < wJ[b])) heaps.push(b, lo, a, lo, 0);
    }
  }
}

/**
 * Exact distances for the candidates with lo <= U_i of rows from..to-1 (see the
 * header); row i of the result is row from + i.
 */
function decideRows(
  x: Float64Array,
  d: number,
  norms: Float64Array,
  g: number,
  screen: Pick<TwoPartNeighbours, "indices" | "distances" | "count">,
  count: number,
  from: number,
  to: number,
  cancelled: () => boolean,
): NeighbourHeaps {
  const n = norms.length;
  const kept = screen.count;
  const result = new NeighbourHeaps(to - from, count);
  const upper = new Float64Array(kept);
  for (let i = from; i < to; i++) {
    if ((i & 255) === 0 && cancelled()) break;
    const row = i - from;
    const base = i * kept;
    // hi = lo + 2 g (n_i + n_j) of the kept rows; U_i is the count-th smallest.
    for (let t = 0; t < kept; t++) {
      upper[t] = screen.distances[base + t] + 2 * g * (norms[i] + norms[screen.indices[base + t]]);
    }
    upper.sort();
    const limit = upper[count - 1];
    const complete = kept === n - 1 || screen.distances[base + kept - 1] > limit;
    if (complete) {
      for (let t = 0; t < kept; t++) {
        if (screen.distances[base + t] > limit) break;
        const j = screen.indices[base + t];
        const p = exactDistance(x, d, norms, i, j);
        result.offer(row, p, j, p, 0);
      }
    } else {
      // More candidates below U_i than were kept: every row, exactly.
      for (let j = 0; j < n; j++) {
        if (j === i) continue;
        const p = exactDistance(x, d, norms, i, j);
        result.offer(row, p, j, p, 0);
      }
    }
  }
  return result;
}

/**
 * ||x_i - x_j||^2 as the full search forms it, n_i + n_j - 2 x_i . x_j clipped at 0,
 * with the dot product summed as the double GEMM kernel sums one entry: panels of 256
 * terms, the even and the odd terms of a panel in two running sums added at its end,
 * then the panel's odd last term, then the panel into the total.
 */
export function exactDistance(
  x: Float64Array,
  d: number,
  norms: Float64Array,
  i: number,
  j: number,
): number {
  const xi = i * d;
  const xj = j * d;
  let c = 0;
  for (let l0 = 0; l0 < d; l0 += 256) {
    const kc = Math.min(256, d - l0);
    const end = l0 + (kc & ~1);
    let s0 = 0;
    let s1 = 0;
    for (let l = l0; l < end; l += 2) {
      s0 += x[xi + l] * x[xj + l];
      s1 += x[xi + l + 1] * x[xj + l + 1];
    }
    let t = s0 + s1;
    if ((kc & 1) === 1) t += x[xi + end] * x[xj + end];
    c += t;
  }
  const p = norms[i] + norms[j] - 2 * c;
  // As the full search clips (!(p > 0) gives 0): Math.max would keep a NaN.
  // biome-ignore lint/complexity/useMathMinMax: NaN must become 0, as in the full search
  return p > 0 ? p : 0;
}
