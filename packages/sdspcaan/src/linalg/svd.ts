/**
 * Thin SVD through the smaller Gram matrix.
 *
 * X (n x d) = U S V^T is obtained from the symmetric eigen-decomposition of X X^T
 * (when n <= d) or X^T X (otherwise), and the other factor is recomputed as
 * V = X^T U S^-1 (or U = X V S^-1), then re-orthonormalised by Cholesky-QR.
 *
 * What the Gram route can resolve: the Gram matrix carries s_i^2, so its rounding
 * errors of order eps * s_max^2 swamp every singular value below about
 * sqrt(eps) * s_max ~ 1.5e-8 * s_max. Such values are unrecoverable by this route
 * (an SVD of X itself would resolve them down to eps * s_max), so the numerical rank
 * keeps only s_i > rankTolerance * s_max, with rankTolerance defaulting to
 * sqrt(10 * max(n, d) * eps), safely above that noise floor (~1.5e-6 for d = 1024).
 * For the kept values, s_i has absolute error ~ eps * s_max^2 / s_i, and both factors
 * are orthonormal to working precision.
 *
 * LAPACK counterparts: dgesvd and dgesdd decompose X itself. The Gram route is the
 * deliberate difference: one dense symmetric eigenproblem of order min(n, d)
 * (symmetricEigen.ts) and GEMMs, at the price in resolution described above.
 */
import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { fullRankFactor } from "./cholesky.js";
import { leadingEigenpairsLanczos } from "./eigen/blockLanczos.js";
import {
  largestEigenpairsOfSymmetric,
  normalizeEigenvectorSigns,
  symmetricEigen,
} from "./eigen/symmetricEigen.js";
import { multiply } from "./kernels/gemm.js";
import { gramColumns, gramRows } from "./kernels/symmetricProducts.js";
import { choleskyQR } from "./orthogonalize.js";

export interface ThinSvd {
  /** n x r, orthonormal columns. */
  readonly U: Matrix;
  /** The r singular values above the rank tolerance, descending. */
  readonly s: Float64Array;
  /** d x r, orthonormal columns. */
  readonly V: Matrix;
  /** The numerical rank r. */
  readonly rank: number;
  /** The relative tolerance used: kept values satisfy s_i > rankTolerance * s_max. */
  readonly rankTolerance: number;
}

export interface ThinSvdOptions {
  /**
   * Keep singular values s_i > rankTolerance * s_max (default sqrt(10 max(n, d) eps)).
   * Values below ~sqrt(eps) are meaningless for the Gram route and are rejected.
   */
  readonly rankTolerance?: number;
}

const EPS = 2 ** -52;

export function defaultRankTolerance(n: number, d: number): number {
  return Math.sqrt(10 * Math.max(n, d) * EPS);
}

/**
 * The kept pairs of a Gram matrix as singular triplets, largest first: the k
 * eigenvalues come in ascending order, the last `kept` of them above the rank
 * tolerance; s holds their square roots and `side` their eigenvectors (columns of
 * `vectors`), in that order.
 */
function descendingTriplets(
  values: ArrayLike<number>,
  vectors: Matrix,
  k: number,
  kept: number,
): { s: Float64Array; side: Matrix } {
  const s = new Float64Array(kept);
  const order: number[] = [];
  for (let c = 0; c < kept; c++) {
    order.push(k - 1 - c);
    s[c] = Math.sqrt(values[k - 1 - c]);
  }
  return { s, side: vectors.selectColumns(order) };
}

/** Checks that X is a finite Matrix with at least one row and one column. */
export function checkDataMatrix(X: unknown, owner: string): Matrix {
  if (!(X instanceof Matrix)) {
    throw new ValidationError(
      "X",
      `The 'X' argument of ${owner} must be a Matrix. Got ${X === null ? "null" : typeof X} instead.`,
    );
  }
  if (X.rows < 1 || X.cols < 1) {
    throw new ValidationError(
      "X",
      `The 'X' argument of ${owner} must have at least 1 row and 1 column. Got ${X.rows} x ${X.cols} instead.`,
    );
  }
  const x = X.data;
  for (let i = 0; i < x.length; i++) {
    if (x[i] - x[i] !== 0) {
      throw new ValidationError(
        "X",
        `The 'X' argument of ${owner} must contain only finite numbers. Got ${x[i]} at row ${Math.floor(i / X.cols)}, column ${i % X.cols}.`,
      );
    }
  }
  return X;
}

/**
 * The checks thinSvd and leadingSingularTriplets open with: X (checkDataMatrix) and the
 * rank tolerance, given or the default, which is returned.
 */
function checkedRankTolerance(X: Matrix, options: ThinSvdOptions, owner: string): number {
  checkDataMatrix(X, owner);
  const minimum = Math.sqrt(EPS);
  const tol = options.rankTolerance ?? defaultRankTolerance(X.rows, X.cols);
  if (typeof tol !== "number" || !(tol >= minimum) || !(tol < 1)) {
    throw new ValidationError(
      "rankTolerance",
      `The 'rankTolerance' option of ${owner} must be a number in [${minimum.toExponential(2)}, 1) (sqrt(eps) is the resolution of the Gram route). Got ${String(tol)} instead.`,
    );
  }
  return tol;
}

/** Thin SVD X = U diag(s) V^T restricted to the numerical rank (see the file comment). */
export function thinSvd(X: Matrix, options: ThinSvdOptions = {}): ThinSvd {
  const owner = "thinSvd";
  const tol = checkedRankTolerance(X, options, owner);
  const n = X.rows;
  const d = X.cols;
  const rowsSide = n <= d;
  const G = rowsSide ? gramRows(X) : gramColumns(X);
  const m = G.rows;
  const { values, vectors } = symmetricEigen(G);
  const E = vectors as Matrix;
  const lmax = values[m - 1];
  const order: number[] = [];
  if (lmax > 0) {
    for (let j = m - 1; j >= 0; j--) {
      if (values[j] > tol * tol * lmax) order.push(j);
      else break;
    }
  }
  const r = order.length;
  const s = new Float64Array(r);
  for (let c = 0; c < r; c++) s[c] = Math.sqrt(values[order[c]]);
  // The Gram side's eigenvectors, descending order.
  const side = E.selectColumns(order);
  // The other side: X^T U S^-1 or X V S^-1.
  let other: Matrix;
  if (rowsSide) {
    other = multiply(X.transpose(), side);
  } else {
    other = multiply(X, side);
  }
  const o = other.data;
  for (let i = 0; i < other.rows; i++) {
    for (let c = 0; c < r; c++) o[i * r + c] /= s[c];
  }
  // Its columns are orthonormal only to about eps (s_max / s_c)^2 <= 1 / (10 max(n, d));
  // Cholesky-QR, in order of decreasing s so that the well-determined columns move
  // least, restores working-precision orthogonality in two passes (CholQR2). A Gram
  // matrix that close to the identity is always positive definite; should a pass
  // still fail, the factor is kept as computed.
  if (r > 0 && choleskyQR(other) !== null) choleskyQR(other);
  const U = rowsSide ? side : other;
  const V = rowsSide ? other : side;
  normalizeEigenvectorSigns(V, U);
  return { U, s, V, rank: r, rankTolerance: tol };
}

/**
 * The dense path's k leading pairs of G, how many of them are kept and the rank; G is
 * overwritten (the callers' own Gram matrix, not needed after).
 */
function leadingPairsAndRank(G: Matrix, k: number, tol: number) {
  const { values, vectors, countAbove } = largestEigenpairsOfSymmetric(G, k, tol * tol, true);
  const lmax = values[k - 1];
  // The same test as thinSvd's, on the values at hand; the count covers the rest.
  let kept = 0;
  if (lmax > 0) while (kept < k && values[k - 1 - kept] > tol * tol * lmax) kept++;
  // Below the threshold within the k, the rank is settled; at k, the count goes on.
  const rank = kept < k ? kept : Math.max(k, countAbove);
  return { values, vectors, kept, rank };
}

/**
 * leadingSingularTriplets' result for X with n > d rows from G = X^T X (d x d) alone:
 * the right singular vectors are G's eigenvectors. The caller has checked X (finite,
 * 1 <= k <= d) and chosen the tolerance (defaultRankTolerance(n, d) by default). G is
 * overwritten. From the order `krylovMinOrder` on (KRYLOV_MIN_ORDER below by default;
 * Infinity never) the block Lanczos route is tried before the dense one: the tests and
 * scripts/dev/pcaPathCompare.ts lower it to compare the two on the same matrices.
 */
export function leadingTripletsOfColumnGram(
  G: Matrix,
  n: number,
  k: number,
  tol = defaultRankTolerance(n, G.rows),
  krylovMinOrder = KRYLOV_MIN_ORDER,
): LeadingSingularTriplets {
  const { values, vectors, kept, rank } =
    leadingPairsOfFullRank(G, k, tol, krylovMinOrder) ?? leadingPairsAndRank(G, k, tol);
  const { s, side: V } = descendingTriplets(values, vectors, k, kept);
  normalizeEigenvectorSigns(V);
  return { s, V, rank, rankTolerance: tol };
}

/**
 * Block Lanczos with the rank certificate pays over the dense path only from about
 * this order of the Gram matrix, and while k + 1 <= order / 32 (the basis it needs is
 * 10-16 times k + 1). PCA fits, CPU time, medians of 7, 2 shared cores (2026-12-05,
 * scripts/dev/pcaPathCompare.ts): d = 1024 (YaleB), k = 10: 179 ms against 190 dense;
 * d = 784 (Fashion-MNIST): 266 against 235; k = 50 at d = 1024 took 170-300 ms of
 * eigen-solve against 100-150 dense.
 */
const KRYLOV_MIN_ORDER = 1000;
const KRYLOV_MAX_K_FRACTION = 1 / 32;

/**
 * leadingPairsAndRank's result on the column side from the block Lanczos solver
 * (eigen/blockLanczos.ts) and the rank from the Cholesky certificate
 * (cholesky.ts: every eigenvalue of G above tol^2 lambda_max, so rank = d and all k
 * values are kept), or null when either cannot be trusted (then the dense path runs).
 */
function leadingPairsOfFullRank(G: Matrix, k: number, tol: number, minOrder: number) {
  const m = G.rows;
  if (m < minOrder || k + 1 > KRYLOV_MAX_K_FRACTION * m) return null;
  const pairs = leadingEigenpairsLanczos(G, k);
  if (pairs === null || fullRankFactor(G, tol * tol) === null) return null;
  return { ...pairs, kept: k, rank: m };
}

/** The leading part of a thin SVD: at most k triplets, and the numerical rank of X. */
export interface LeadingSingularTriplets {
  /** min(k, rank) singular values above the rank tolerance, descending. */
  readonly s: Float64Array;
  /** d x min(k, rank), orthonormal columns: the right singular vectors of s. */
  readonly V: Matrix;
  /** The numerical rank r of X (as thinSvd's, counted over all singular values). */
  readonly rank: number;
  readonly rankTolerance: number;
}

/**
 * The k largest singular values of X and their right singular vectors, with the
 * numerical rank: thinSvd's result restricted to its first k columns (same Gram side,
 * rank rule, Cholesky-QR of the recomputed side and sign convention), but from the k
 * leading eigenpairs of the smaller Gram matrix (reduction, bisection, inverse
 * iteration, back-transformation of k vectors; the rank by a Sturm count) instead of
 * its full decomposition, and without ever forming U. The first k columns agree with
 * thinSvd's to rounding wherever s_k is separated from s_{k+1}.
 */
export function leadingSingularTriplets(
  X: Matrix,
  k: number,
  options: ThinSvdOptions = {},
): LeadingSingularTriplets {
  const owner = "leadingSingularTriplets";
  const tol = checkedRankTolerance(X, options, owner);
  const n = X.rows;
  const d = X.cols;
  const rowsSide = n <= d;
  const m = rowsSide ? n : d;
  if (!Number.isInteger(k) || k < 1 || k > m) {
    throw new ValidationError(
      "k",
      `The 'k' argument of ${owner} must be an integer from 1 to min(n, d) = ${m}. Got ${String(k)} instead.`,
    );
  }
  return rowsSide
    ? leadingTripletsOfRowGram(X, k, tol)
    : leadingTripletsOfColumnGram(gramColumns(X), n, k, tol);
}

/**
 * leadingSingularTriplets' result for X with n <= d rows, from G = X X^T (n x n): the
 * caller has checked X (finite, 1 <= k <= n) and chosen the tolerance
 * (defaultRankTolerance(n, d) by default).
 */
export function leadingTripletsOfRowGram(
  X: Matrix,
  k: number,
  tol = defaultRankTolerance(X.rows, X.cols),
): LeadingSingularTriplets {
  const d = X.cols;
  const G = gramRows(X);
  const { values, vectors, kept, rank } = leadingPairsAndRank(G, k, tol);
  const { s, side } = descendingTriplets(values, vectors, k, kept);
  // V = X^T U S^-1, re-orthonormalised by CholQR2 as in thinSvd (whose Cholesky factor
  // of the first k columns depends on those columns only).
  const V = multiply(X.transpose(), side);
  const v = V.data;
  for (let i = 0; i < d; i++) {
    for (let c = 0; c < kept; c++) v[i * kept + c] /= s[c];
  }
  if (kept > 0 && choleskyQR(V) !== null) choleskyQR(V);
  normalizeEigenvectorSigns(V);
  return { s, V, rank, rankTolerance: tol };
}
