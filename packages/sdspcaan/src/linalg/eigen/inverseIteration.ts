/**
 * Eigenvectors of a symmetric tridiagonal T for selected eigenvalues by inverse
 * iteration, and the cost model that tells the driver what that would cost.
 *
 * LAPACK counterpart: dstein, with dlagtf (`factorShiftedTridiagonal`) and dlagts with
 * job = -1 (`solveShiftedTridiagonal`). As in dstein, each vector lives on its own
 * unreduced block (from bisection.ts), eigenvalues closer than 1e-3 ||T_block|| form a
 * cluster whose vectors are re-orthogonalised against each other, shifts within a
 * cluster are pulled apart by 10 eps |lambda|, and each vector gets at most five
 * solves with dstein's growth test (two extra solves after the iterate first exceeds
 * sqrt(0.1 / m)).
 *
 * Deliberate differences:
 * - Re-orthogonalisation inside a cluster is classical Gram-Schmidt applied twice
 *   (dstein: modified Gram-Schmidt once), so that orthogonality holds to working
 *   precision even when a solve returns mostly a direction already found; on the
 *   WebAssembly backend it runs in the SIMD kernels dots2 and combine2.
 * - The random starts come from the library's seeded `Random` (dstein: dlarnv with a
 *   fixed seed), uniform in [-1, 1) likewise.
 * - The final vector is scaled by its largest entry before the 2-norm (no overflow
 *   for huge iterates); its largest-magnitude entry is made positive, as in dstein.
 * - A vector that misses the growth test is returned and counted (dstein: ifail);
 *   the driver then falls back to divide and conquer. An iterate that is zero or not
 *   finite is a ConvergenceError.
 * - `inverseIterationWork` has no LAPACK counterpart: it replays dstein's cluster
 *   detection to count the work, for the driver's choice against divide and conquer.
 *
 * On the wasm backend (order >= RESIDENT_MIN) each block of order >= 2 is one call of
 * the module's `inverseIteration` kernel: dlagtf, dlagts, the growth test, the scaling
 * and the re-orthogonalisation (its dots2 and combine2) for all the block's vectors,
 * with the IEEE operations of `inverseIterationBlocks` in the same order, so both give
 * the same bits; WebAssembly is compiled ahead, so a fresh process does not run these
 * loops unoptimised first. The seeded random starts are still drawn here, in the same
 * order, and passed in. `inverseIterationBlocks` is the "ts" backend and the fallback.
 */
import { ConvergenceError } from "../../core/errors.js";
import { RandomStream } from "../../core/rng.js";
import { type WasmArena, wasmArena } from "../kernels/wasm/backend.js";
import { blockNorm, type SelectedEigenvalues } from "./bisection.js";
import { type EigenStageSettings, EPS, RESIDENT_MIN, SAFMIN } from "./constants.js";

/**
 * The work inverse iteration would do for the selected eigenvalues (the cost model
 * that chooses between it and divide and conquer): `vectorElements` = sum over vectors
 * of their block's order, `pairElements` = sum over vectors of (earlier vectors of the
 * same cluster) x block order, i.e. the re-orthogonalisation, which grows with the
 * square of the cluster sizes. Clusters are found exactly as tridiagonalEigenvectors
 * finds them.
 */
export function inverseIterationWork(
  d: Float64Array,
  e: Float64Array,
  selected: SelectedEigenvalues,
): { vectorElements: number; pairElements: number } {
  const { values, block, starts } = selected;
  const k = values.length;
  let vectorElements = 0;
  let pairElements = 0;
  const last = new Map<number, { xjm: number; gpind: number; jb: number; ortol: number }>();
  for (let j = 0; j < k; j++) {
    const b = block[j];
    const lo = starts[b];
    const hi = starts[b + 1];
    const m = hi - lo;
    vectorElements += m;
    if (m === 1) continue;
    let state = last.get(b);
    let xj = values[j];
    if (state === undefined) {
      state = { xjm: xj, gpind: 0, jb: 0, ortol: 1e-3 * blockNorm(d, e, lo, hi) };
      last.set(b, state);
    } else {
      state.jb++;
      const pertol = 10 * Math.abs(EPS * xj);
      if (xj - state.xjm < pertol) xj = state.xjm + pertol;
      if (Math.abs(xj - state.xjm) > state.ortol) state.gpind = state.jb;
      state.xjm = xj;
    }
    pairElements += (state.jb - state.gpind) * m;
  }
  return { vectorElements, pairElements };
}

/**
 * dlagtf: factorises T - lambda I = P L U with partial pivoting, for the symmetric
 * tridiagonal block with diagonal `a` and off-diagonals `b` (super) and `c` (sub),
 * overwritten in place; `d2` receives U's second super-diagonal and `piv` the
 * interchanges.
 */
function factorShiftedTridiagonal(
  m: number,
  a: Float64Array,
  lambda: number,
  b: Float64Array,
  c: Float64Array,
  d2: Float64Array,
  piv: Uint8Array,
): void {
  a[0] -= lambda;
  if (m === 1) return;
  let scale1 = Math.abs(a[0]) + Math.abs(b[0]);
  for (let k = 0; k < m - 1; k++) {
    a[k + 1] -= lambda;
    let scale2 = Math.abs(c[k]) + Math.abs(a[k + 1]);
    if (k < m - 2) scale2 += Math.abs(b[k + 1]);
    const piv1 = a[k] === 0 ? 0 : Math.abs(a[k]) / scale1;
    if (c[k] === 0) {
      piv[k] = 0;
      scale1 = scale2;
      if (k < m - 2) d2[k] = 0;
    } else {
      const piv2 = Math.abs(c[k]) / scale2;
      if (piv2 <= piv1) {
        piv[k] = 0;
        scale1 = scale2;
        c[k] /= a[k];
        a[k + 1] -= c[k] * b[k];
        if (k < m - 2) d2[k] = 0;
      } else {
        piv[k] = 1;
        const mult = a[k] / c[k];
        a[k] = c[k];
        const temp = a[k + 1];
        a[k + 1] = b[k] - mult * temp;
        if (k < m - 2) {
          d2[k] = b[k + 1];
          b[k + 1] = -mult * d2[k];
        }
        b[k] = temp;
        c[k] = mult;
      }
    }
  }
}

const BIGNUM = 1 / SAFMIN;

/**
 * dlagts with job = -1: solves (T - lambda I) x = y using the dlagtf factors, adding a
 * small perturbation of sign(u_kk) * tol to pivots that would overflow the solve (the
 * point of inverse iteration is that T - lambda I is nearly singular).
 */
function solveShiftedTridiagonal(
  m: number,
  a: Float64Array,
  b: Float64Array,
  c: Float64Array,
  d2: Float64Array,
  piv: Uint8Array,
  y: Float64Array,
  tol: number,
): void {
  for (let k = 1; k < m; k++) {
    if (piv[k - 1] === 0) {
      y[k] -= c[k - 1] * y[k - 1];
    } else {
      const temp = y[k - 1];
      y[k - 1] = y[k];
      y[k] = temp - c[k - 1] * y[k];
    }
  }
  for (let k = m - 1; k >= 0; k--) {
    let temp: number;
    if (k <= m - 3) temp = y[k] - b[k] * y[k + 1] - d2[k] * y[k + 2];
    else if (k === m - 2) temp = y[k] - b[k] * y[k + 1];
    else temp = y[k];
    let ak = a[k];
    let pert = ak >= 0 ? tol : -tol;
    for (;;) {
      const absak = Math.abs(ak);
      if (absak < 1) {
        if (absak < SAFMIN) {
          if (absak === 0 || Math.abs(temp) * SAFMIN > absak) {
            ak += pert;
            pert *= 2;
            continue;
          }
          temp *= BIGNUM;
          ak *= BIGNUM;
        } else if (Math.abs(temp) > absak * BIGNUM) {
          ak += pert;
          pert *= 2;
          continue;
        }
      }
      break;
    }
    y[k] = temp / ak;
  }
}

/** The error of both paths when a vector of inverse iteration vanished or overflowed. */
function noUsableVector(value: number): ConvergenceError {
  return new ConvergenceError(
    `Inverse iteration produced no usable eigenvector for the eigenvalue ${value}.`,
  );
}

/**
 * The random start vectors: 2u - 1 for the uniforms of Random(0x5eed), the same stream
 * on every solve (dstein's fixed seed likewise). It is drawn once into a table that
 * grows as needed (never beyond the largest set of vectors solved for, n k values),
 * and each solve reads it from the start: the same numbers without the generator's
 * cost, which a fresh process otherwise pays unoptimised in its first fits.
 */
class StartStream {
  private static table = new Float64Array(0);
  private static readonly source = new RandomStream(0x5eed);
  private position = 0;

  next(): number {
    let table = StartStream.table;
    if (this.position === table.length) {
      const grown = new Float64Array(Math.max(1024, 2 * table.length));
      grown.set(table);
      for (let i = table.length; i < grown.length; i++)
        grown[i] = 2 * StartStream.source.uniform() - 1;
      StartStream.table = grown;
      table = grown;
    }
    return table[this.position++];
  }
}

/** The first `count` start values, for tests (they must be Random(0x5eed)'s 2u - 1). */
export function startValuesForTest(count: number): Float64Array {
  const stream = new StartStream();
  return Float64Array.from({ length: count }, () => stream.next());
}

/**
 * Eigenvectors of the tridiagonal for the selected eigenvalues by inverse iteration
 * (LAPACK dstein): each vector is computed on its own unreduced block, from a seeded
 * random start, with at most five solves; eigenvalues closer than 1e-3 ||T_block||
 * form a cluster inside which every iterate is re-orthogonalised (classical
 * Gram-Schmidt, applied twice so that orthogonality holds to working precision even
 * when the solve returns mostly a direction already found). Returns the vectors as
 * rows of a k x n array, and how many of them missed dstein's growth test.
 */
export function tridiagonalEigenvectors(
  d: Float64Array,
  e: Float64Array,
  selected: SelectedEigenvalues,
  settings: EigenStageSettings = {},
): { vectors: Float64Array; unconverged: number } {
  const n = d.length;
  const { values, block, starts } = selected;
  const k = values.length;
  const z = new Float64Array(k * n);
  const rng = new StartStream();
  // Vectors of one block are consecutive in `values` order only within that block, so
  // process block by block, keeping the global output order.
  const byBlock = new Map<number, number[]>();
  for (let j = 0; j < k; j++) {
    const list = byBlock.get(block[j]);
    if (list) list.push(j);
    else byBlock.set(block[j], [j]);
  }
  // Each block's vectors are built in zb (row q: the q-th vector of the block, length
  // m) so that a cluster is a contiguous strided block for the re-orthogonalisation;
  // on the wasm backend zb, x and the coefficients live in the module's memory.
  let zbLen = 0;
  for (const [b, list] of byBlock) {
    zbLen = Math.max(zbLen, list.length * (starts[b + 1] - starts[b]));
  }
  const candidate = n >= RESIDENT_MIN ? wasmArena() : null;
  if (candidate !== null && (settings.tridiagonalLoops ?? true)) {
    const failures = wasmInverseIteration(candidate, d, e, selected, byBlock, zbLen, rng, z);
    if (failures !== null) return { vectors: z, unconverged: failures };
  }
  const wa = new Float64Array(n);
  const wb = new Float64Array(n);
  const wc = new Float64Array(n);
  const wd = new Float64Array(n);
  const piv = new Uint8Array(n);
  const mark = candidate?.mark() ?? 0;
  const ptrs = candidate?.allocAll([zbLen, n, k + 2]) ?? null;
  const arena = ptrs ? candidate : null;
  let zb: Float64Array;
  let x: Float64Array;
  let coef: Float64Array;
  if (arena && ptrs) {
    const [pz, px, pc] = ptrs;
    arena.pin();
    zb = arena.view(pz, zbLen);
    x = arena.view(px, n);
    coef = arena.view(pc, k + 2);
  } else {
    zb = new Float64Array(zbLen);
    x = new Float64Array(n);
    coef = new Float64Array(k + 2);
  }
  let failures = 0;
  try {
    const work = { wa, wb, wc, wd, piv };
    failures = inverseIterationBlocks(d, e, values, starts, byBlock, rng, z, zb, x, coef, work);
  } finally {
    if (arena) {
      arena.unpin();
      arena.release(mark);
    }
  }
  // Like dstein, an iterate that missed the growth test is still returned (it is
  // accurate whenever the eigenvalue is); the caller decides what to do with the count.
  return { vectors: z, unconverged: failures };
}

/**
 * tridiagonalEigenvectors on the module's `inverseIteration` kernel, one call per block
 * of order >= 2, the random starts drawn here in the order the TypeScript draws them.
 * Returns the number of vectors that missed the growth test, or null (nothing drawn,
 * nothing written) when the module's memory cannot hold the work.
 */
function wasmInverseIteration(
  arena: WasmArena,
  d: Float64Array,
  e: Float64Array,
  selected: SelectedEigenvalues,
  byBlock: Map<number, number[]>,
  zbLen: number,
  rng: StartStream,
  z: Float64Array,
): number | null {
  const n = d.length;
  const { values, starts } = selected;
  const k = values.length;
  const mark = arena.mark();
  // d, e, the block's eigenvalues, its random starts, zb, x, the Gram-Schmidt
  // coefficients, and the kernel's work (4 m doubles and m bytes).
  const ptrs = arena.allocAll([n, n, k, zbLen, zbLen, n, k + 2, 4 * n + Math.ceil(n / 8)]);
  if (ptrs === null) return null;
  const [pd, pe, plam, pstart, pzb, px, pcoef, pwork] = ptrs;
  arena.pin();
  try {
    arena.view(pd, n).set(d);
    arena.view(pe, n - 1).set(e);
    const lambda = arena.view(plam, k);
    const start = arena.view(pstart, zbLen);
    const zb = arena.view(pzb, zbLen);
    let failures = 0;
    for (const [b, list] of byBlock) {
      const lo = starts[b];
      const m = starts[b + 1] - lo;
      if (m === 1) {
        for (const j of list) z[j * n + lo] = 1;
        continue;
      }
      for (let q = 0; q < list.length; q++) {
        lambda[q] = values[list[q]];
        for (let i = q * m; i < (q + 1) * m; i++) start[i] = rng.next();
      }
      const status = arena.kernels.inverseIteration(
        pd + 8 * lo,
        pe + 8 * lo,
        m,
        plam,
        list.length,
        pstart,
        pzb,
        px,
        pcoef,
        pwork,
      );
      if (status < 0) {
        throw noUsableVector(values[list[-status - 1]]);
      }
      failures += status;
      for (let q = 0; q < list.length; q++) {
        z.set(zb.subarray(q * m, (q + 1) * m), list[q] * n + lo);
      }
    }
    return failures;
  } finally {
    arena.unpin();
    arena.release(mark);
  }
}

function inverseIterationBlocks(
  d: Float64Array,
  e: Float64Array,
  values: Float64Array,
  starts: Int32Array,
  byBlock: Map<number, number[]>,
  rng: StartStream,
  z: Float64Array,
  zb: Float64Array,
  x: Float64Array,
  coef: Float64Array,
  work: {
    wa: Float64Array;
    wb: Float64Array;
    wc: Float64Array;
    wd: Float64Array;
    piv: Uint8Array;
  },
): number {
  const n = d.length;
  const { wa, wb, wc, wd, piv } = work;
  let failures = 0;
  for (const [b, list] of byBlock) {
    const lo = starts[b];
    const hi = starts[b + 1];
    const m = hi - lo;
    if (m === 1) {
      for (const j of list) z[j * n + lo] = 1;
      continue;
    }
    const onenrm = blockNorm(d, e, lo, hi);
    const ortol = 1e-3 * onenrm;
    const dtpcrt = Math.sqrt(0.1 / m);
    let xjm = 0;
    let gpind = 0;
    for (let jb = 0; jb < list.length; jb++) {
      const j = list[jb];
      let xj = values[j];
      if (jb > 0) {
        const pertol = 10 * Math.abs(EPS * xj);
        if (xj - xjm < pertol) xj = xjm + pertol;
        if (Math.abs(xj - xjm) > ortol) gpind = jb;
      } else {
        gpind = 0;
      }
      for (let i = 0; i < m; i++) x[i] = rng.next();
      for (let i = 0; i < m; i++) wa[i] = d[lo + i];
      for (let i = 0; i < m - 1; i++) {
        wb[i] = e[lo + i];
        wc[i] = e[lo + i];
      }
      factorShiftedTridiagonal(m, wa, xj, wb, wc, wd, piv);
      let tol = Math.abs(wa[0]);
      if (m > 1) tol = Math.max(tol, Math.abs(wa[1]), Math.abs(wb[0]));
      for (let i = 2; i < m; i++) {
        tol = Math.max(tol, Math.abs(wa[i]), Math.abs(wb[i - 1]), Math.abs(wd[i - 2]));
      }
      tol *= EPS;
      if (tol === 0) tol = EPS;
      let nrmchk = 0;
      let converged = false;
      let jmax = 0;
      for (let its = 0; its < 5; its++) {
        let asum = 0;
        for (let i = 0; i < m; i++) asum += Math.abs(x[i]);
        const scl = (m * onenrm * Math.max(EPS, Math.abs(wa[m - 1]))) / asum;
        for (let i = 0; i < m; i++) x[i] *= scl;
        solveShiftedTridiagonal(m, wa, wb, wc, wd, piv, x, tol);
        if (gpind !== jb) {
          orthogonalizeAgainstRows(zb, m, gpind, jb, x, coef);
          orthogonalizeAgainstRows(zb, m, gpind, jb, x, coef);
        }
        jmax = 0;
        let nrm = 0;
        for (let i = 0; i < m; i++) {
          const v = Math.abs(x[i]);
          if (v > nrm) {
            nrm = v;
            jmax = i;
          }
        }
        if (nrm < dtpcrt) continue;
        nrmchk++;
        if (nrmchk < 3) continue;
        converged = true;
        break;
      }
      if (!converged) failures++;
      let ss = 0;
      let big = 0;
      for (let i = 0; i < m; i++) big = Math.max(big, Math.abs(x[i]));
      if (!(big > 0) || !Number.isFinite(big)) {
        throw noUsableVector(values[j]);
      }
      for (let i = 0; i < m; i++) {
        x[i] /= big;
        ss += x[i] * x[i];
      }
      let scl = 1 / Math.sqrt(ss);
      if (x[jmax] < 0) scl = -scl;
      const zo = j * n + lo;
      const qo = jb * m;
      for (let i = 0; i < m; i++) {
        const v = x[i] * scl;
        zb[qo + i] = v;
        z[zo + i] = v;
      }
      xjm = xj;
    }
  }
  return failures;
}

/**
 * One classical Gram-Schmidt pass of x (length m) against rows g..h-1 of rows (row q
 * at q * m, orthonormal): c = R x, then x -= R^T c. Called twice ("twice is enough"):
 * the second pass removes what cancellation left of the first. On the wasm backend
 * both products run in the SIMD kernels (dots2 and combine2, half of the rows as each
 * of their two operands).
 */
function orthogonalizeAgainstRows(
  rows: Float64Array,
  m: number,
  g: number,
  h: number,
  x: Float64Array,
  coef: Float64Array,
): void {
  const count = h - g;
  const arena = wasmArena();
  if (arena?.holds(rows) && arena.holds(x) && arena.holds(coef)) {
    const kernels = arena.kernels;
    const half = count >> 1;
    const base = rows.byteOffset + g * m * 8;
    const second = base + half * m * 8;
    const c = coef.byteOffset;
    const px = x.byteOffset;
    kernels.dots2(base, m, second, m, half, px, m, c, c + half * 8);
    if (count & 1) {
      const last = base + (count - 1) * m * 8;
      kernels.dots2(last, m, last, m, 1, px, m, c + 2 * half * 8, c + (2 * half + 1) * 8);
      coef[2 * half + 1] = 0;
      kernels.combine2(px, m, base, m, second, m, half, c, c + half * 8);
      kernels.combine2(px, m, last, m, last, m, 1, c + 2 * half * 8, c + (2 * half + 1) * 8);
    } else {
      kernels.combine2(px, m, base, m, second, m, half, c, c + half * 8);
    }
    return;
  }
  for (let q = 0; q < count; q++) {
    const ro = (g + q) * m;
    let s = 0;
    for (let i = 0; i < m; i++) s += x[i] * rows[ro + i];
    coef[q] = s;
  }
  for (let q = 0; q < count; q++) {
    const ro = (g + q) * m;
    const c = coef[q];
    for (let i = 0; i < m; i++) x[i] -= c * rows[ro + i];
  }
}
