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
 *    double kernel has two), and each row keeps its `2 count` best estimates.
 * 2. Bound. |e_ij - ||x_i - x_j||^2| <= Delta_ij = g (n_i + n_j) with g = gamma_d + 3u
 *    (u = 2^-24; the rounding of the inputs, the products and any summation order of d
 *    terms; Higham, Accuracy and Stability, 3.1) plus a margin far above the double
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
import type { Matrix } from "../matrix.js";
import {
  defaultBlockRows,
  NeighbourHeaps,
  squaredRowNorms,
  type TwoPartNeighbours,
} from "./distances.js";
import { wasmArena } from "./wasm/backend.js";

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
 */
export function screenedNearestNeighbours(
  X: Matrix,
  count: number,
  { signal }: { signal?: AbortSignal } = {},
): TwoPartNeighbours | null {
  const n = X.rows;
  const d = X.cols;
  const arena = wasmArena();
  if (arena === null || n < 3 || d < 1 || !inScreenableRange(X.data)) return null;
  const kept = Math.min(n - 1, 2 * count);
  const step = defaultBlockRows(n);
  const mark = arena.mark();
  // Single-precision rows (n d floats = n d / 2 doubles) and one block of estimates.
  const ptrs = arena.allocAll([Math.ceil((n * d) / 2), Math.min(step, n) * n]);
  if (ptrs === null) return null;
  const norms = squaredRowNorms(X);
  const g = boundFactor(d);
  const screen = new NeighbourHeaps(n, kept);
  arena.pin();
  try {
    const single = new Float32Array(arena.buffer, ptrs[0], n * d);
    single.set(X.data);
    const block = arena.view(ptrs[1], Math.min(step, n) * n);
    for (let i0 = 0; i0 < n; i0 += step) {
      throwIfAborted(signal);
      const i1 = Math.min(i0 + step, n);
      // Rows i0 .. i1 - 1 against rows 0 .. i1 - 1; the pairs b < a are used.
      arena.kernels.gemm32(i1 - i0, i1, d, ptrs[0] + i0 * d * 4, d, ptrs[0], d, ptrs[1], i1);
      offerLowerBounds(screen, norms, g, block, i0, i1);
    }
  } finally {
    arena.unpin();
    arena.release(mark);
  }
  throwIfAborted(signal);
  return decideExactly(X, norms, g, screen.sorted(0), count, signal);
}

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

/** Exact distances for each row's candidates with lo <= U_i (see the header). */
function decideExactly(
  X: Matrix,
  norms: Float64Array,
  g: number,
  screen: TwoPartNeighbours,
  count: number,
  signal: AbortSignal | undefined,
): TwoPartNeighbours {
  const n = X.rows;
  const d = X.cols;
  const x = X.data;
  const kept = screen.count;
  const result = new NeighbourHeaps(n, count);
  const upper = new Float64Array(kept);
  for (let i = 0; i < n; i++) {
    if ((i & 255) === 0) throwIfAborted(signal);
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
        result.offer(i, p, j, p, 0);
      }
    } else {
      // More candidates below U_i than were kept: every row, exactly.
      for (let j = 0; j < n; j++) {
        if (j === i) continue;
        const p = exactDistance(x, d, norms, i, j);
        result.offer(i, p, j, p, 0);
      }
    }
  }
  return result.sorted(0);
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
