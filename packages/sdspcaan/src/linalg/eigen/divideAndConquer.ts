/**
 * All eigenpairs of a symmetric tridiagonal T by Cuppen's divide and conquer.
 *
 * LAPACK counterparts: dstedc with compz = 'I', through dlaed0 (the recursion and the
 * tear T = diag(T1, T2) + rho u u^T at the middle), dlaed1 (a merge), dlaed2
 * (deflation of negligible components and of near-equal poles by Givens rotations),
 * dlaed3 (eigenvectors from Gu & Eisenstat's recomputed z, mapped back with GEMMs on
 * the top and bottom parts of the basis as dlaed3's column types allow), dlaed4 (the
 * roots of the secular equation) and dlamrg (the merged order of the poles).
 *
 * Deliberate differences:
 * - Leaves of at most DC_LEAF rows are solved by the implicit QL of ql.ts (dstedc:
 *   smlsiz = 25 from ilaenv, solved by dsteqr).
 * - No scaling of T and no splitting into unreduced blocks beforehand (dstedc does
 *   both): the driver has scaled A by a power of two, and a zero coupling deflates
 *   completely in the merge.
 * - Deflation tolerance 8 ulp max(max |d_i|, rho), and the whole merge deflates when
 *   rho <= tol (dlaed2: 8 eps max(max |d_i|, max |z_i|) and rho max |z_i| <= tol).
 * - Every root but that of a 1 x 1 problem is found by the same iteration: the
 *   fixed-weight two-pole rational model of Bunch, Nielsen & Sorensen, safeguarded by
 *   bisection on a bracket that shrinks with every evaluation, with dlaed4's stopping
 *   rule and at most 100 steps (dlaed4 adds dlaed5 for two poles, the three-pole model
 *   dlaed6 and an error flag).
 * - The basis is kept as separate top and bottom parts of each column, and the result
 *   is returned with the eigenvectors as rows (see backTransform.ts).
 */
import { gemmABtRaw } from "../kernels/gemm.js";
import { EPS, ULP } from "./constants.js";
import { tridiagonalQL } from "./ql.js";

/** Below this size the divide-and-conquer recursion hands its block to implicit QL. */
const DC_LEAF = 32;

/** Eigenpairs of a symmetric tridiagonal block: ascending values, eigenvectors as columns. */
interface TridiagonalEigen {
  values: Float64Array;
  /** size x size row-major, column j the eigenvector of values[j]. */
  Q: Float64Array;
}

/**
 * All eigenpairs of T by Cuppen's divide and conquer (LAPACK dstedc / dlaed0-dlaed4):
 * T = diag(T1, T2) + rho u u^T is split at the middle, both halves are solved
 * recursively, and the rank-one update of their spectra is solved through the secular
 * equation. Deflation removes negligible components and near-equal pairs; the
 * eigenvectors of the remaining part come from Gu & Eisenstat's recomputed z, which
 * keeps them orthogonal to working precision, and are mapped back with two GEMMs.
 * Returns the values ascending and the eigenvectors as rows of a n x n array.
 */
export function tridiagonalDivideAndConquer(
  d: Float64Array,
  e: Float64Array,
): { values: Float64Array; z: Float64Array } {
  const n = d.length;
  const res = divideAndConquer(d.slice(), e.slice(), 0, n);
  // Columns to rows ("vectors as rows" for the back-transformation).
  const z = new Float64Array(n * n);
  const Q = res.Q;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) z[j * n + i] = Q[i * n + j];
  }
  return { values: res.values, z };
}

function leafEigen(d: Float64Array, e: Float64Array, lo: number, hi: number): TridiagonalEigen {
  const m = hi - lo;
  const dd = d.slice(lo, hi);
  const ee = e.slice(lo, Math.max(lo, hi - 1));
  const z = new Float64Array(m * m);
  for (let i = 0; i < m; i++) z[i * m + i] = 1;
  tridiagonalQL(dd, ee, z);
  const order = Array.from({ length: m }, (_, i) => i).sort((x, y) => dd[x] - dd[y] || x - y);
  const values = new Float64Array(m);
  const Q = new Float64Array(m * m);
  for (let j = 0; j < m; j++) {
    const src = order[j];
    values[j] = dd[src];
    for (let i = 0; i < m; i++) Q[i * m + j] = z[src * m + i];
  }
  return { values, Q };
}

function divideAndConquer(
  d: Float64Array,
  e: Float64Array,
  lo: number,
  hi: number,
): TridiagonalEigen {
  const m = hi - lo;
  if (m <= DC_LEAF) return leafEigen(d, e, lo, hi);
  const mid = lo + (m >> 1);
  const beta = e[mid - 1];
  const ab = Math.abs(beta);
  // Tear: T = diag(T1 - |beta| e_last e_last^T, T2 - |beta| e_1 e_1^T) + |beta| u u^T
  // with u = e_last + sign(beta) e_first.
  d[mid - 1] -= ab;
  d[mid] -= ab;
  const left = divideAndConquer(d, e, lo, mid);
  const right = divideAndConquer(d, e, mid, hi);
  return mergeRankOne(left, right, mid - lo, hi - mid, ab, beta < 0 ? -1 : 1);
}

/**
 * dlaed1-dlaed3: the eigen-decomposition of diag(D1, D2) + rho z z^T in the basis
 * blockdiag(Q1, Q2), with z = [last row of Q1, sign * first row of Q2].
 */
function mergeRankOne(
  left: TridiagonalEigen,
  right: TridiagonalEigen,
  n1: number,
  n2: number,
  beta: number,
  sign: number,
): TridiagonalEigen {
  const n = n1 + n2;
  // Columns of the block-diagonal basis, by index 0..n-1 (left block first).
  const dAll = new Float64Array(n);
  const z = new Float64Array(n);
  dAll.set(left.values, 0);
  dAll.set(right.values, n1);
  for (let j = 0; j < n1; j++) z[j] = left.Q[(n1 - 1) * n1 + j];
  for (let j = 0; j < n2; j++) z[n1 + j] = sign * right.Q[j];
  // ||z|| = sqrt(2): normalise it into rho.
  const rho = 2 * beta;
  for (let i = 0; i < n; i++) z[i] *= Math.SQRT1_2;
  // The basis as explicit columns that may get mixed by deflation rotations: keep
  // each column's top (rows 0..n1-1) and bottom (rows n1..n-1) parts separately.
  const top: Array<Float64Array | null> = new Array(n);
  const bottom: Array<Float64Array | null> = new Array(n);
  for (let j = 0; j < n1; j++) {
    const c = new Float64Array(n1);
    for (let i = 0; i < n1; i++) c[i] = left.Q[i * n1 + j];
    top[j] = c;
    bottom[j] = null;
  }
  for (let j = 0; j < n2; j++) {
    const c = new Float64Array(n2);
    for (let i = 0; i < n2; i++) c[i] = right.Q[i * n2 + j];
    top[n1 + j] = null;
    bottom[n1 + j] = c;
  }
  // Process the poles in ascending order of d (both halves are sorted: merge them).
  const order = new Int32Array(n);
  {
    let a = 0;
    let b = n1;
    for (let t = 0; t < n; t++) {
      if (b >= n || (a < n1 && dAll[a] <= dAll[b])) order[t] = a++;
      else order[t] = b++;
    }
  }
  let dmax = 0;
  for (let i = 0; i < n; i++) dmax = Math.max(dmax, Math.abs(dAll[i]));
  const tol = 8 * ULP * Math.max(dmax, rho);
  const deflated: number[] = [];
  const kept: number[] = [];
  if (rho * 1 <= tol) {
    // No coupling to speak of: every pole is an eigenvalue already.
    for (let t = 0; t < n; t++) deflated.push(order[t]);
  } else {
    let prev = -1;
    for (let t = 0; t < n; t++) {
      const i = order[t];
      if (rho * Math.abs(z[i]) <= tol) {
        deflated.push(i);
        continue;
      }
      if (prev < 0) {
        prev = i;
        continue;
      }
      // Near-equal poles: a rotation zeroes z[prev] when the cost |(d_i - d_prev) c s| is
      // below tol (dlaed2).
      const s0 = z[prev];
      const c0 = z[i];
      const r = Math.hypot(c0, s0);
      const c = c0 / r;
      const s = -s0 / r;
      const gap = dAll[i] - dAll[prev];
      if (Math.abs(gap * c * s) <= tol) {
        z[i] = r;
        z[prev] = 0;
        rotateColumns(top, bottom, prev, i, c, s, n1, n2);
        const dp = dAll[prev];
        const di = dAll[i];
        dAll[prev] = dp * c * c + di * s * s;
        dAll[i] = dp * s * s + di * c * c;
        deflated.push(prev);
        prev = i;
      } else {
        kept.push(prev);
        prev = i;
      }
    }
    if (prev >= 0) kept.push(prev);
  }
  const K = kept.length;
  const values = new Float64Array(n);
  const outCols: Array<{ value: number; top: Float64Array | null; bottom: Float64Array | null }> =
    [];
  for (const i of deflated) outCols.push({ value: dAll[i], top: top[i], bottom: bottom[i] });
  if (K > 0) {
    // The kept poles are in ascending order except where a rotation changed d_prev;
    // rotations only move d within [d_prev, d_i], so re-sorting keeps the pairing.
    kept.sort((x, y) => dAll[x] - dAll[y] || x - y);
    const dk = new Float64Array(K);
    const zk = new Float64Array(K);
    for (let t = 0; t < K; t++) {
      dk[t] = dAll[kept[t]];
      zk[t] = z[kept[t]];
    }
    let zn = 0;
    for (let t = 0; t < K; t++) zn += zk[t] * zk[t];
    zn = Math.sqrt(zn);
    for (let t = 0; t < K; t++) zk[t] /= zn;
    const rhoK = rho * zn * zn;
    const { lambda, U } = secularEigen(dk, zk, rhoK);
    // New columns: Qb[:, kept] U, computed on the top and bottom rows separately with
    // only the kept columns that are non-zero there (dlaed3's column types).
    const topIdx: number[] = [];
    const botIdx: number[] = [];
    for (let t = 0; t < K; t++) {
      if (top[kept[t]] !== null) topIdx.push(t);
      if (bottom[kept[t]] !== null) botIdx.push(t);
    }
    const newTop = mapColumns(top, kept, topIdx, U, K, n1);
    const newBottom = mapColumns(bottom, kept, botIdx, U, K, n2);
    for (let j = 0; j < K; j++) {
      outCols.push({
        value: lambda[j],
        top: newTop ? newTop[j] : null,
        bottom: newBottom ? newBottom[j] : null,
      });
    }
  }
  const perm = outCols
    .map((_, j) => j)
    .sort((x, y) => outCols[x].value - outCols[y].value || x - y);
  const Q = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    const col = outCols[perm[j]];
    values[j] = col.value;
    if (col.top) for (let i = 0; i < n1; i++) Q[i * n + j] = col.top[i];
    if (col.bottom) for (let i = 0; i < n2; i++) Q[(n1 + i) * n + j] = col.bottom[i];
  }
  return { values, Q };
}

/** Applies the Givens rotation (c, s) to basis columns p and q (both parts). */
function rotateColumns(
  top: Array<Float64Array | null>,
  bottom: Array<Float64Array | null>,
  p: number,
  q: number,
  c: number,
  s: number,
  n1: number,
  n2: number,
): void {
  for (const [part, len] of [
    [top, n1],
    [bottom, n2],
  ] as const) {
    const a = part[p];
    const b = part[q];
    if (a === null && b === null) continue;
    const x = a ?? new Float64Array(len);
    const y = b ?? new Float64Array(len);
    // drot(Q(:, p), Q(:, q), c, s): x' = c x + s y, y' = c y - s x.
    for (let i = 0; i < len; i++) {
      const xi = x[i];
      const yi = y[i];
      x[i] = c * xi + s * yi;
      y[i] = c * yi - s * xi;
    }
    part[p] = x;
    part[q] = y;
  }
}

/**
 * Rows of one part (top or bottom) of Qb[:, kept] U: (len x |idx|) times the matching
 * rows of U (|idx| x K), by the GEMM kernel. Returns the K new columns, or null when
 * no kept column touches this part.
 */
function mapColumns(
  part: Array<Float64Array | null>,
  kept: number[],
  idx: number[],
  U: Float64Array,
  K: number,
  len: number,
): Float64Array[] | null {
  if (idx.length === 0 || len === 0) return null;
  const p = idx.length;
  // A: the part's columns as rows (p x len); B: U^T restricted to rows idx (K x p).
  const A = new Float64Array(p * len);
  for (let t = 0; t < p; t++) A.set(part[kept[idx[t]]] as Float64Array, t * len);
  const At = new Float64Array(len * p);
  for (let t = 0; t < p; t++) for (let i = 0; i < len; i++) At[i * p + t] = A[t * len + i];
  const Bt = new Float64Array(K * p);
  for (let j = 0; j < K; j++) for (let t = 0; t < p; t++) Bt[j * p + t] = U[idx[t] * K + j];
  // C (K x len) = Bt At^T: row j is the new column j restricted to this part.
  const C = new Float64Array(K * len);
  gemmABtRaw(K, len, p, Bt, p, At, p, C, len);
  const out: Float64Array[] = new Array(K);
  for (let j = 0; j < K; j++) out[j] = C.subarray(j * len, (j + 1) * len);
  return out;
}

/**
 * Eigenpairs of D + rho z z^T (d strictly increasing in practice, z of unit norm with
 * no negligible entry, rho > 0): the roots of the secular equation
 * f(lambda) = 1 + rho sum_i z_i^2 / (d_i - lambda) (dlaed4), then Gu & Eisenstat's
 * recomputed z for the vectors (dlaed3). Each root is kept as an offset tau from its
 * nearer pole so that every difference d_i - lambda is formed without cancellation.
 * Returns the roots ascending and U (K x K row-major, column j for root j).
 */
function secularEigen(
  d: Float64Array,
  z: Float64Array,
  rho: number,
): { lambda: Float64Array; U: Float64Array } {
  const K = d.length;
  const lambda = new Float64Array(K);
  const U = new Float64Array(K * K);
  if (K === 1) {
    lambda[0] = d[0] + rho * z[0] * z[0];
    U[0] = 1;
    return { lambda, U };
  }
  // delta[j * K + i] = d_i - lambda_j, accurate.
  const delta = new Float64Array(K * K);
  const origin = new Int32Array(K);
  const tauOf = new Float64Array(K);
  for (let j = 0; j < K; j++) {
    const { base, tau } = secularRoot(d, z, rho, j);
    origin[j] = base;
    tauOf[j] = tau;
    const db = d[base];
    for (let i = 0; i < K; i++) delta[j * K + i] = d[i] - db - tau;
    lambda[j] = db + tau;
  }
  // Gu-Eisenstat: zhat_i^2 = prod_j (lambda_j - d_i) / (rho prod_{k != i} (d_k - d_i)),
  // the z for which the computed roots are exact; formed as a product of ratios of
  // comparable size so that it neither overflows nor underflows.
  const zhat = new Float64Array(K);
  for (let i = 0; i < K; i++) {
    let prod = -delta[i * K + i] / rho; // (lambda_i - d_i) / rho
    for (let k = 0; k < K; k++) {
      if (k === i) continue;
      // (lambda_k - d_i) / (d_k - d_i)
      prod *= -delta[k * K + i] / (d[k] - d[i]);
    }
    const mag = Math.sqrt(Math.max(prod, 0));
    zhat[i] = z[i] >= 0 ? mag : -mag;
  }
  for (let j = 0; j < K; j++) {
    let ss = 0;
    for (let i = 0; i < K; i++) {
      const v = zhat[i] / delta[j * K + i];
      U[i * K + j] = v;
      ss += v * v;
    }
    const f = 1 / Math.sqrt(ss);
    for (let i = 0; i < K; i++) U[i * K + j] *= f;
  }
  return { lambda, U };
}

/**
 * The j-th root of 1 + rho sum_i z_i^2 / (d_i - lambda) = 0, as lambda = d[base] + tau.
 * Root j lies in (d_j, d_{j+1}) (the last one in (d_{K-1}, d_{K-1} + rho)); the origin is
 * the pole nearer to the root, found from the sign of f at the midpoint. Iterates with
 * the fixed-weight rational model of Bunch, Nielsen & Sorensen (the secular function's
 * poles on either side interpolated by one pole each, matching value and slope),
 * safeguarded by bisection on a bracket that shrinks with every evaluation.
 */
function secularRoot(
  d: Float64Array,
  z: Float64Array,
  rho: number,
  j: number,
): { base: number; tau: number } {
  const K = d.length;
  const last = j === K - 1;
  let base: number;
  let lo: number;
  let hi: number;
  if (last) {
    base = K - 1;
    lo = 0;
    hi = rho; // sum z_i^2 = 1 bounds the shift
  } else {
    const gap = d[j + 1] - d[j];
    const midTau = gap / 2;
    // f at the midpoint, with origin d_j.
    let f = 1;
    for (let i = 0; i < K; i++) f += (rho * z[i] * z[i]) / (d[i] - d[j] - midTau);
    if (f >= 0) {
      base = j;
      lo = 0;
      hi = midTau;
    } else {
      base = j + 1;
      lo = -(gap - midTau);
      hi = 0;
    }
  }
  const db = d[base];
  const shift = new Float64Array(K);
  for (let i = 0; i < K; i++) shift[i] = d[i] - db;
  const evaluate = (tau: number) => {
    // psi: poles at or left of j; phi: poles right of j.
    let psi = 0;
    let dpsi = 0;
    let phi = 0;
    let dphi = 0;
    let absSum = 0;
    for (let i = 0; i < K; i++) {
      const r = 1 / (shift[i] - tau);
      const t = rho * z[i] * z[i] * r;
      if (i <= j) {
        psi += t;
        dpsi += t * r;
      } else {
        phi += t;
        dphi += t * r;
      }
      absSum += Math.abs(t);
    }
    return { f: 1 + psi + phi, psi, dpsi, phi, dphi, absSum };
  };
  let tau = 0.5 * (lo + hi);
  for (let it = 0; it < 100; it++) {
    const v = evaluate(tau);
    if (!Number.isFinite(v.f)) {
      tau = 0.5 * (lo + hi);
      continue;
    }
    if (v.f > 0) hi = tau;
    else lo = tau;
    // dlaed4's stopping rule: |f| within the rounding of its own evaluation.
    if (Math.abs(v.f) <= 8 * K * EPS * (1 + v.absSum)) break;
    if (hi - lo <= 2 * ULP * Math.max(Math.abs(lo), Math.abs(hi)) || hi - lo === 0) break;
    let next: number;
    const p = shift[j];
    if (last) {
      // One-pole model of psi at p: 1 + a + b / (p - tau) = 0.
      const b = v.dpsi * (p - tau) * (p - tau);
      const a = v.psi - b / (p - tau) + v.phi;
      next = 1 + a !== 0 ? p + b / (1 + a) : Number.NaN;
    } else {
      const q = shift[j + 1];
      const bp = v.dpsi * (p - tau) * (p - tau);
      const bq = v.dphi * (q - tau) * (q - tau);
      const C = 1 + v.psi - bp / (p - tau) + v.phi - bq / (q - tau);
      // C (p - t)(q - t) + bp (q - t) + bq (p - t) = 0, a quadratic in t.
      const A2 = C;
      const B2 = -(C * (p + q) + bp + bq);
      const C2 = C * p * q + bp * q + bq * p;
      next = solveQuadraticInBracket(A2, B2, C2, lo, hi);
    }
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (next === tau) break;
    tau = next;
  }
  return { base, tau };
}

/** A root of a t^2 + b t + c = 0 inside (lo, hi), or NaN (stable formulas). */
function solveQuadraticInBracket(a: number, b: number, c: number, lo: number, hi: number): number {
  if (a === 0) return b !== 0 ? -c / b : Number.NaN;
  const disc = b * b - 4 * a * c;
  if (disc < 0) return Number.NaN;
  const sq = Math.sqrt(disc);
  const qv = -0.5 * (b + (b >= 0 ? sq : -sq));
  const r1 = qv / a;
  const r2 = qv !== 0 ? c / qv : Number.NaN;
  const in1 = r1 > lo && r1 < hi;
  const in2 = r2 > lo && r2 < hi;
  if (in1 && in2) return Math.abs(r1 - 0.5 * (lo + hi)) <= Math.abs(r2 - 0.5 * (lo + hi)) ? r1 : r2;
  if (in1) return r1;
  if (in2) return r2;
  return Number.NaN;
}
