/**
 * Blocked Cholesky factorisation of a dense symmetric matrix, and what PCA and LDA
 * use it for: a certificate that a Gram matrix has full numerical rank (all its
 * eigenvalues above the rank threshold, proved by the factorisation of a shifted
 * matrix succeeding), at about a quarter of the flops of the Householder reduction
 * the Sturm count needs, mostly in GEMMs; and solves with the Gram matrix, refined.
 *
 * LAPACK counterpart: dpotrf with uplo = 'L', recursive as in dpotrf2 (halves down to
 * leaves factorised by plain loops, the off-diagonal block by the blocked triangular
 * solve of orthogonalize.ts, the trailing update by the lower-block GEMM of
 * symmetricProducts.ts). The certificate and the refined solve have none.
 */
import { Matrix } from "../core/matrix.js";
import { gemmABtRaw, transposed } from "./kernels/gemm.js";
import { gemmABtLowerBlocks } from "./kernels/symmetricProducts.js";
import { solveUpperFromRight } from "./orthogonalize.js";

/** Orders up to this are factorised by plain loops. */
const LEAF = 64;
const U = 2 ** -53;
const EPS = U;

/**
 * L with A - shift I = L L^T (n x n, lower; the strict upper triangle zero), or null
 * when a pivot is not positive: A - shift I is then not (numerically) positive
 * definite. Only A's lower triangle is read.
 */
export function choleskyLower(A: Matrix, shift = 0): Matrix | null {
  const n = A.rows;
  const L = new Matrix(n, n);
  const l = L.data;
  const a = A.data;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) l[i * n + j] = a[i * n + j];
    l[i * n + i] -= shift;
  }
  return factor(l, n, 0, n) ? L : null;
}

/** Factorises rows and columns [o, o + size) of l (n x n, lower) in place. */
function factor(l: Float64Array, n: number, o: number, size: number): boolean {
  if (size <= LEAF) return leaf(l, n, o, size);
  const n1 = Math.ceil(size / 2 / 16) * 16;
  const n2 = size - n1;
  if (!factor(l, n, o, n1)) return false;
  // L21 = A21 L11^-T, i.e. rows V of A21 times R^-1 for the upper R = L11^T.
  const R = new Matrix(n1, n1);
  for (let i = 0; i < n1; i++) {
    for (let j = 0; j <= i; j++) R.data[j * n1 + i] = l[(o + i) * n + o + j];
  }
  const V = new Matrix(n2, n1);
  for (let i = 0; i < n2; i++) {
    V.data.set(l.subarray((o + n1 + i) * n + o, (o + n1 + i) * n + o + n1), i * n1);
  }
  solveUpperFromRight(V, R);
  for (let i = 0; i < n2; i++) {
    l.set(V.data.subarray(i * n1, (i + 1) * n1), (o + n1 + i) * n + o);
  }
  // A22 -= L21 L21^T on the lower triangle.
  const P = new Float64Array(n2 * n2);
  gemmABtLowerBlocks(n2, n1, V.data, n1, V.data, n1, P, n2);
  for (let i = 0; i < n2; i++) {
    const row = (o + n1 + i) * n + o + n1;
    for (let j = 0; j <= i; j++) l[row + j] -= P[i * n2 + j];
  }
  return factor(l, n, o + n1, n2);
}

/** Row-oriented Cholesky of a diagonal block (dot products along contiguous rows). */
function leaf(l: Float64Array, n: number, o: number, size: number): boolean {
  for (let i = 0; i < size; i++) {
    const ri = (o + i) * n + o;
    for (let j = 0; j <= i; j++) {
      const rj = (o + j) * n + o;
      let s = l[ri + j];
      for (let p = 0; p < j; p++) s -= l[ri + p] * l[rj + p];
      if (j < i) {
        l[ri + j] = s / l[rj + j];
      } else {
        if (!(s > 0) || !Number.isFinite(s)) return false;
        l[ri + i] = Math.sqrt(s);
      }
    }
    for (let j = i + 1; j < size; j++) l[ri + j] = 0;
  }
  // Entries of the rows to the right of the block are zeroed by the caller's layout:
  // the strict upper triangle of L is never written with anything else.
  return true;
}

/** A Cholesky factor of G - shift I that proves G's numerical rank is its order. */
export interface FullRankFactor {
  /** L with G - shift I = L L^T. */
  readonly L: Matrix;
  readonly shift: number;
}

/**
 * Proves that every eigenvalue of the symmetric G (n x n) exceeds
 * relativeThreshold * lambda_max, i.e. that G's numerical rank under that threshold
 * (thinSvd's rule, with relativeThreshold = rankTolerance^2) is n, or returns null. The
 * proof: the Cholesky factorisation of G - shift I succeeds, with
 * shift = 2 relativeThreshold ||G||_F + 2 gamma_{n+1} trace(G) (gamma_m =
 * m u / (1 - m u)): the computed factor is exact for G - shift I + E with
 * ||E||_2 <= gamma_{n+1} trace(G) (Demmel's bound, |E| <= gamma_{n+1} |L| |L^T|), so
 * lambda_min(G) > shift - ||E|| >= 2 relativeThreshold ||G||_F, which is at least
 * twice the threshold (||G||_F >= lambda_max): an eigenvalue that close to it would be
 * counted either way by the Sturm count of the dense path, so the certificate is only
 * given where the two counts agree.
 */
export function fullRankFactor(G: Matrix, relativeThreshold: number): FullRankFactor | null {
  const n = G.rows;
  const g = G.data;
  let frobenius2 = 0;
  let trace = 0;
  for (let i = 0; i < g.length; i++) frobenius2 += g[i] * g[i];
  for (let i = 0; i < n; i++) trace += g[i * n + i];
  const frobenius = Math.sqrt(frobenius2);
  if (!(frobenius > 0) || !Number.isFinite(frobenius)) return null;
  const gamma = ((n + 1) * U) / (1 - (n + 1) * U);
  const shift = 2 * relativeThreshold * frobenius + 2 * gamma * Math.abs(trace);
  const L = choleskyLower(G, shift);
  return L === null ? null : { L, shift };
}

/** Columns per block of the substitutions (their products run in the GEMM kernel). */
const SOLVE_BLOCK = 64;

/**
 * Y <- Y (L L^T)^-1 for Y given as rows (c x n, few rows: right-hand sides), by blocked
 * substitution: Z = Y L^-T block column by block column from the left, then
 * X = Z L^-1 from the right. The products with what is solved already are GEMMs with
 * rows of L (first solve) and of Lt = L^T (second); the diagonal blocks are solved by
 * plain substitution. (orthogonalize.ts's solveUpperFromRight suits tall blocks: for a
 * few rows its transposed copies of R's blocks cost more than the solve.)
 */
function applyInverse(
  y: Float64Array,
  c: number,
  n: number,
  l: Float64Array,
  lt: Float64Array,
): void {
  const tmp = new Float64Array(c * SOLVE_BLOCK);
  // Z L^T = Y: Z[:, blk] = (Y[:, blk] - Z[:, :j0] L[blk, :j0]^T) L_bb^-T.
  for (let j0 = 0; j0 < n; j0 += SOLVE_BLOCK) {
    const w = Math.min(SOLVE_BLOCK, n - j0);
    if (j0 > 0) {
      gemmABtRaw(c, w, j0, y, n, l.subarray(j0 * n), n, tmp, w);
      for (let r = 0; r < c; r++) {
        for (let q = 0; q < w; q++) y[r * n + j0 + q] -= tmp[r * w + q];
      }
    }
    // z L_bb^T = v: z_q = (v_q - sum_{p<q} z_p L[q][p]) / L[q][q].
    for (let r = 0; r < c; r++) {
      const o = r * n + j0;
      for (let q = 0; q < w; q++) {
        const lq = (j0 + q) * n + j0;
        let v = y[o + q];
        for (let p = 0; p < q; p++) v -= y[o + p] * l[lq + p];
        y[o + q] = v / l[lq + q];
      }
    }
  }
  // X L = Z, from the last block: X[:, blk] = (Z[:, blk] - X[:, after] L[after, blk]) L_bb^-1,
  // with L[after, blk] = (Lt[blk, after])^T.
  const last = Math.floor((n - 1) / SOLVE_BLOCK) * SOLVE_BLOCK;
  for (let j0 = last; j0 >= 0; j0 -= SOLVE_BLOCK) {
    const w = Math.min(SOLVE_BLOCK, n - j0);
    const after = j0 + w;
    if (after < n) {
      gemmABtRaw(c, w, n - after, y.subarray(after), n, lt.subarray(j0 * n + after), n, tmp, w);
      for (let r = 0; r < c; r++) {
        for (let q = 0; q < w; q++) y[r * n + j0 + q] -= tmp[r * w + q];
      }
    }
    // x L_bb = v: x_q = (v_q - sum_{p>q} x_p L[p][q]) / L[q][q], from the last.
    for (let r = 0; r < c; r++) {
      const o = r * n + j0;
      for (let q = w - 1; q >= 0; q--) {
        const tq = (j0 + q) * n + j0;
        let v = y[o + q];
        for (let p = q + 1; p < w; p++) v -= y[o + p] * lt[tq + p];
        y[o + q] = v / lt[tq + q];
      }
    }
  }
}

/**
 * X^T (c x n) with G X = B for B^T given (c x n; G n x n symmetric positive definite),
 * from the factor of G - shift I, by iterative refinement: X_0 = (L L^T)^-1 B,
 * X_{t+1} = X_t + (L L^T)^-1 (B - G X_t), which converges by a factor
 * shift / (lambda_min(G) - shift) per step (tiny for a certificate's shift) until the
 * corrections reach the rounding of the residual, about cond(G) eps relative: it stops
 * there (a correction no smaller than half the previous one), or once the contraction
 * measured by the first two corrections has taken the error below eps. Null when a first
 * correction above 1e-6 relative is not followed by one at least 4 times smaller
 * (lambda_min(G) too close to the shift) or it has not settled in `maxSteps`.
 */
export function solveRefined(
  G: Matrix,
  factor: FullRankFactor,
  Bt: Matrix,
  maxSteps = 8,
): Matrix | null {
  const n = G.rows;
  const c = Bt.rows;
  const l = factor.L.data;
  const lt = transposed(factor.L).data;
  const inverse = (Yt: Matrix): Matrix => {
    applyInverse(Yt.data, c, n, l, lt);
    return Yt;
  };
  const Xt = inverse(Bt.clone());
  const GX = new Matrix(c, n);
  let previous = Number.POSITIVE_INFINITY;
  let first = Number.NaN;
  let steps = maxSteps;
  for (let step = 0; step < steps; step++) {
    // The residual's rows B^T - X^T G (G symmetric: rows of X^T times G^T).
    gemmABtRaw(c, n, n, Xt.data, n, G.data, n, GX.data, n);
    let xNorm = 0;
    for (let i = 0; i < c * n; i++) {
      GX.data[i] = Bt.data[i] - GX.data[i];
      xNorm = Math.max(xNorm, Math.abs(Xt.data[i]));
    }
    const D = inverse(GX);
    let dNorm = 0;
    for (let i = 0; i < c * n; i++) dNorm = Math.max(dNorm, Math.abs(D.data[i]));
    if (step === 1) {
      // A first correction above the rounding floor (taken as 1e-6 relative: cond(G)
      // up to 1e10) must shrink fast; otherwise lambda_min(G) is too close to the shift.
      if (first > 1e-6 * xNorm && !(dNorm <= 0.25 * first)) return null;
      // The contraction measured: after correction t the error is about rate^(t + 2),
      // so the corrections up to t = ceil(log eps / log rate) - 2 reach eps and any
      // further one is rounding (this saves the step that would show it).
      const rate = dNorm / first;
      if (rate > 0 && rate < 1) {
        steps = Math.min(steps, Math.ceil(Math.log(EPS) / Math.log(rate)) - 1);
      }
    }
    if (step === 0) first = dNorm;
    // At the rounding floor a correction no longer shrinks: it is noise, left out.
    if (step >= 1 && dNorm >= 0.5 * previous) return Xt;
    for (let i = 0; i < c * n; i++) Xt.data[i] += D.data[i];
    if (dNorm <= EPS * xNorm) return Xt;
    previous = dNorm;
  }
  return steps < maxSteps ? Xt : null;
}
