/**
 * Selected eigenvalues of a symmetric tridiagonal T by Sturm-sequence bisection: the
 * splitting of T into unreduced blocks, Sturm counts at many shifts at once, and the
 * k smallest eigenvalues (the driver gets the k largest as the k smallest of -T).
 *
 * LAPACK counterpart: dstebz with range = 'I' (il = 1, iu = k) and order = 'E', its
 * counts and interval bookkeeping those of dlaebz, with the pivmin safeguard
 * (pivmin = safmin * max(1, max e_i^2)). `smallestTridiagonalEigenvalues` returns
 * dstebz's iblock and isplit too (`block`, `starts`), which inverse iteration needs.
 *
 * Deliberate differences:
 * - Splitting: e_i is set to zero when |e_i| <= eps ||T|| (||T|| the Gershgorin norm of
 *   the whole of T), an absolute test, where dstebz's is relative
 *   (e_i^2 < ulp^2 |d_i d_{i+1}| + safmin): a perturbation of eps ||T|| is of the size
 *   the Householder reduction already made, so the solver stays backward stable.
 * - Search: dstebz first brackets eigenvalues il..iu on the whole matrix (dlaebz with
 *   ijob = 3) and then bisects each block inside that bracket; here each unreduced
 *   block is bisected from its own widened Gershgorin interval for its min(k, size)
 *   smallest eigenvalues, only intervals holding a wanted index are kept, and the
 *   candidates of all blocks are merged.
 * - Tolerances: the interval is widened by 2 n ulp ||T_block|| + 2 pivmin on each side
 *   (dstebz: fudge factor 2.1), ||T_block|| = max(|gl|, |gu|) of the block's Gershgorin
 *   interval [gl, gu]; an interval [a, b) is converged once its width is at most
 *   max(ulp ||T_block|| + 2 pivmin, 2 ulp max(|a|, |b|)). At most 2200 rounds
 *   (dstebz: log2((||T|| + pivmin) / pivmin) + 2); intervals still open then return
 *   their midpoints instead of an error flag (not seen in practice).
 * - Counts run for several shifts side by side (four in TypeScript, eight in the
 *   WebAssembly kernel's f64x2 lanes), with the same operations per shift.
 *
 * On the wasm backend each block of order >= 2 is bisected by one call of the module's
 * `bisect` kernel (the Gershgorin interval, the rounds of interval bookkeeping and the
 * Sturm counts), which performs the IEEE operations of `bisectSmallest` in the same
 * order, so both give the same bits; WebAssembly is compiled ahead, so a fresh process
 * does not run these loops unoptimised first. The splitting and the merge of the blocks'
 * values stay here. `bisectSmallest` is the "ts" backend and the fallback.
 */
import { wasmArena } from "../kernels/wasm/backend.js";
import { type EigenStageSettings, EPS, SAFMIN, ULP } from "./constants.js";

/** Gershgorin-based norm of the tridiagonal block [lo, hi): max_i |d_i| + |e_{i-1}| + |e_i|. */
export function blockNorm(d: Float64Array, e: Float64Array, lo: number, hi: number): number {
  let t = 0;
  for (let i = lo; i < hi; i++) {
    let v = Math.abs(d[i]);
    if (i > lo) v += Math.abs(e[i - 1]);
    if (i < hi - 1) v += Math.abs(e[i]);
    if (v > t) t = v;
  }
  return t;
}

/**
 * Sets negligible off-diagonal entries to zero and returns the start indices of the
 * unreduced blocks followed by n. Negligible means |e_i| <= eps * ||T||: that
 * perturbation is of the size the Householder reduction already made, so the
 * splitting keeps the solver backward stable.
 */
export function splitTridiagonal(d: Float64Array, e: Float64Array): Int32Array {
  const n = d.length;
  const tnorm = blockNorm(d, e, 0, n);
  const starts: number[] = [0];
  for (let i = 0; i < n - 1; i++) {
    if (Math.abs(e[i]) <= EPS * tnorm) {
      e[i] = 0;
      starts.push(i + 1);
    }
  }
  starts.push(n);
  return Int32Array.from(starts);
}

/**
 * Sturm counts at many shifts at once: out[s] = the number of eigenvalues of the
 * tridiagonal block [lo, hi) below x[s] for s < count (dlaebz's count: the negative
 * pivots of the LDL^T factorisation of T - x I, with pivots smaller than pivmin
 * replaced by -pivmin so that no division by zero occurs). One count is a chain of
 * dependent divisions (latency-bound), so four shifts run side by side; x and out
 * have room for three more than `count` (the last sweep's unused lanes). The module's
 * `bisect` kernel (tridiagonal.wat, with kernels.wat's `sturm`) performs the same
 * operations per shift, so both give the same counts.
 */
function sturmCounts(
  d: Float64Array,
  e2: Float64Array,
  lo: number,
  hi: number,
  pivmin: number,
  x: Float64Array,
  count: number,
  out: Float64Array,
): void {
  for (let s = 0; s < count; s += 4) {
    const x0 = x[s];
    const x1 = s + 1 < count ? x[s + 1] : x0;
    const x2 = s + 2 < count ? x[s + 2] : x0;
    const x3 = s + 3 < count ? x[s + 3] : x0;
    const d0 = d[lo];
    let q0 = d0 - x0;
    let q1 = d0 - x1;
    let q2 = d0 - x2;
    let q3 = d0 - x3;
    if (Math.abs(q0) < pivmin) q0 = -pivmin;
    if (Math.abs(q1) < pivmin) q1 = -pivmin;
    if (Math.abs(q2) < pivmin) q2 = -pivmin;
    if (Math.abs(q3) < pivmin) q3 = -pivmin;
    let c0 = q0 <= 0 ? 1 : 0;
    let c1 = q1 <= 0 ? 1 : 0;
    let c2 = q2 <= 0 ? 1 : 0;
    let c3 = q3 <= 0 ? 1 : 0;
    for (let i = lo + 1; i < hi; i++) {
      const di = d[i];
      const ei = e2[i - 1];
      q0 = di - x0 - ei / q0;
      q1 = di - x1 - ei / q1;
      q2 = di - x2 - ei / q2;
      q3 = di - x3 - ei / q3;
      if (Math.abs(q0) < pivmin) q0 = -pivmin;
      if (Math.abs(q1) < pivmin) q1 = -pivmin;
      if (Math.abs(q2) < pivmin) q2 = -pivmin;
      if (Math.abs(q3) < pivmin) q3 = -pivmin;
      if (q0 <= 0) c0++;
      if (q1 <= 0) c1++;
      if (q2 <= 0) c2++;
      if (q3 <= 0) c3++;
    }
    out[s] = c0;
    out[s + 1] = c1;
    out[s + 2] = c2;
    out[s + 3] = c3;
  }
}

/**
 * The squares e_i^2 the Sturm counts divide by, and dstebz's pivot guard
 * pivmin = safmin max(1, max e_i^2), for the tridiagonal of order n with off-diagonal e.
 */
function sturmSquares(e: Float64Array, n: number): { e2: Float64Array; pivmin: number } {
  const e2 = new Float64Array(Math.max(n - 1, 0));
  let maxE2 = 0;
  for (let i = 0; i < n - 1; i++) {
    e2[i] = e[i] * e[i];
    if (e2[i] > maxE2) maxE2 = e2[i];
  }
  return { e2, pivmin: SAFMIN * Math.max(1, maxE2) };
}

/**
 * The number of eigenvalues of the tridiagonal (d, e) at most x: the negative (or zero)
 * pivots of the LDL^T factorisation of T - x I, with dstebz's pivmin guard (one
 * shift of sturmCounts).
 */
export function sturmCountAtMost(d: Float64Array, e: Float64Array, x: number): number {
  const n = d.length;
  const { e2, pivmin } = sturmSquares(e, n);
  const count = new Float64Array(4);
  sturmCounts(d, e2, 0, n, pivmin, Float64Array.of(x), 1, count);
  return count[0];
}

/**
 * The `count` smallest eigenvalues (ascending) of the unreduced tridiagonal block
 * [lo, hi) by Sturm-sequence bisection (dstebz with range 'I', in dlaebz's
 * parallel form): a list of disjoint intervals, each with the counts of eigenvalues
 * below its ends, is bisected in rounds, all midpoints of a round counted together;
 * an interval is dropped once it holds no wanted eigenvalue and retired once it is
 * narrower than the tolerance, its eigenvalues taking its midpoint.
 */
function bisectSmallest(
  d: Float64Array,
  e: Float64Array,
  e2: Float64Array,
  lo: number,
  hi: number,
  count: number,
  pivmin: number,
): Float64Array {
  const size = hi - lo;
  const out = new Float64Array(count);
  if (size === 1) {
    out[0] = d[lo];
    return out;
  }
  let gl = Number.POSITIVE_INFINITY;
  let gu = Number.NEGATIVE_INFINITY;
  for (let i = lo; i < hi; i++) {
    let r = 0;
    if (i > lo) r += Math.abs(e[i - 1]);
    if (i < hi - 1) r += Math.abs(e[i]);
    gl = Math.min(gl, d[i] - r);
    gu = Math.max(gu, d[i] + r);
  }
  const tnorm = Math.max(Math.abs(gl), Math.abs(gu));
  // dstebz widens the Gershgorin interval so that rounding in the counts cannot push
  // an eigenvalue outside it.
  gl -= 2 * tnorm * ULP * size + 2 * pivmin;
  gu += 2 * tnorm * ULP * size + 2 * pivmin;
  const atol = ULP * tnorm + 2 * pivmin;
  // Active intervals [a, b) with na eigenvalues below a and nb below b. Each holds at
  // least one wanted index (na < count) and they are disjoint, so at most `count`.
  let a = new Float64Array(count);
  let b = new Float64Array(count);
  let na = new Int32Array(count);
  let nb = new Int32Array(count);
  let na2 = new Int32Array(count);
  let nb2 = new Int32Array(count);
  let a2 = new Float64Array(count);
  let b2 = new Float64Array(count);
  a[0] = gl;
  b[0] = gu;
  na[0] = 0;
  nb[0] = size;
  let active = 1;
  const x = new Float64Array(count + 3);
  const counts = new Float64Array(count + 3);
  for (let round = 0; active > 0 && round < 2200; round++) {
    // Retire converged intervals; the others are bisected in this round.
    let kept = 0;
    for (let t = 0; t < active; t++) {
      const at = a[t];
      const bt = b[t];
      const mid = 0.5 * (at + bt);
      const width = bt - at;
      if (
        width <= Math.max(atol, 2 * ULP * Math.max(Math.abs(at), Math.abs(bt))) ||
        mid === at ||
        mid === bt
      ) {
        const last = Math.min(nb[t], count);
        for (let j = na[t]; j < last; j++) out[j] = mid;
        continue;
      }
      a[kept] = at;
      b[kept] = bt;
      na[kept] = na[t];
      nb[kept] = nb[t];
      x[kept] = mid;
      kept++;
    }
    if (kept === 0) break;
    sturmCounts(d, e2, lo, hi, pivmin, x, kept, counts);
    let next = 0;
    for (let t = 0; t < kept; t++) {
      const mid = x[t];
      // Counts are monotone in exact arithmetic; keep rounding from breaking that.
      const c = Math.min(nb[t], Math.max(na[t], counts[t]));
      if (c > na[t]) {
        a2[next] = a[t];
        b2[next] = mid;
        na2[next] = na[t];
        nb2[next] = c;
        next++;
      }
      if (nb[t] > c && c < count) {
        a2[next] = mid;
        b2[next] = b[t];
        na2[next] = c;
        nb2[next] = nb[t];
        next++;
      }
    }
    [a, a2] = [a2, a];
    [b, b2] = [b2, b];
    [na, na2] = [na2, na];
    [nb, nb2] = [nb2, nb];
    active = next;
  }
  // Unconverged after the iteration cap (not seen in practice): the midpoints.
  for (let t = 0; t < active; t++) {
    const last = Math.min(nb[t], count);
    for (let j = na[t]; j < last; j++) out[j] = 0.5 * (a[t] + b[t]);
  }
  for (let j = 1; j < count; j++) if (out[j] < out[j - 1]) out[j] = out[j - 1];
  return out;
}

/**
 * The module's `bisect` kernel on the blocks of one tridiagonal: d, e and e2 are copied
 * into the module's memory once, with room for the work arrays and the output of up to
 * k values per block. Null where the wasm backend is not active or its memory cannot
 * grow (then `bisectSmallest` runs).
 */
function wasmBisector(
  d: Float64Array,
  e: Float64Array,
  e2: Float64Array,
  k: number,
): {
  bisect(lo: number, hi: number, count: number, pivmin: number): Float64Array;
  dispose(): void;
} | null {
  const arena = wasmArena();
  if (arena === null) return null;
  const n = d.length;
  const mark = arena.mark();
  // The kernel's work: ten arrays of (count + 9) & -2 slots (see kernels/wasm/tridiagonal.wat).
  const ptrs = arena.allocAll([n, n, n, k, 10 * (k + 9)]);
  if (ptrs === null) return null;
  const [pd, pe, pe2, pout, pwork] = ptrs;
  arena.view(pd, n).set(d);
  arena.view(pe, n - 1).set(e);
  arena.view(pe2, n - 1).set(e2);
  return {
    bisect(lo: number, hi: number, count: number, pivmin: number): Float64Array {
      arena.kernels.bisect(
        pd + 8 * lo,
        pe + 8 * lo,
        pe2 + 8 * lo,
        hi - lo,
        count,
        pivmin,
        pwork,
        pout,
      );
      return arena.view(pout, count).slice();
    },
    dispose(): void {
      arena.release(mark);
    },
  };
}

/** Eigenvalues chosen from the blocks of a split tridiagonal: value and owning block. */
export interface SelectedEigenvalues {
  /** Ascending. */
  readonly values: Float64Array;
  /** Index into `starts` of the block each value belongs to. */
  readonly block: Int32Array;
  readonly starts: Int32Array;
}

/**
 * The k smallest eigenvalues of T (diagonal d, off-diagonal e; e is modified by the
 * splitting). Each unreduced block contributes a prefix of its own spectrum, so each
 * block is bisected for at most k values and the results are merged.
 */
export function smallestTridiagonalEigenvalues(
  d: Float64Array,
  e: Float64Array,
  k: number,
  settings: EigenStageSettings = {},
): SelectedEigenvalues {
  const starts = splitTridiagonal(d, e);
  const n = d.length;
  const { e2, pivmin } = sturmSquares(e, n);
  const candidates: Array<{ value: number; block: number; order: number }> = [];
  const moduleLoops = settings.tridiagonalLoops ?? true;
  const bisector = n >= 2 && moduleLoops ? wasmBisector(d, e, e2, k) : null;
  try {
    for (let b = 0; b + 1 < starts.length; b++) {
      const lo = starts[b];
      const hi = starts[b + 1];
      const count = Math.min(k, hi - lo);
      const vals =
        bisector !== null && hi - lo >= 2
          ? bisector.bisect(lo, hi, count, pivmin)
          : bisectSmallest(d, e, e2, lo, hi, count, pivmin);
      for (let j = 0; j < vals.length; j++) {
        candidates.push({ value: vals[j], block: b, order: candidates.length });
      }
    }
  } finally {
    bisector?.dispose();
  }
  candidates.sort((x, y) => x.value - y.value || x.order - y.order);
  const values = new Float64Array(k);
  const block = new Int32Array(k);
  for (let j = 0; j < k; j++) {
    values[j] = candidates[j].value;
    block[j] = candidates[j].block;
  }
  return { values, block, starts };
}
