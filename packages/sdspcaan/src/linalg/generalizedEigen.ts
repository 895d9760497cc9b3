/**
 * Generalised symmetric eigenproblems A w = mu B w with B positive semidefinite and
 * possibly singular, solved on the range of B: never through an inverse or a
 * pseudo-inverse of B.
 *
 * - `dataSpanEigen`: B = X^T X and A = X^T M X for data X (n x d, typically d >= n).
 *   With the thin SVD X = U_r S_r V_r^T, the problem min Tr(W^T X^T M X W) subject to
 *   W^T X^T X W = I is solved by W = V_r S_r^-1 P, P the k trailing eigenvectors of
 *   U_r^T M U_r (the PCAN / SPCAN / SLNP W-step, SPEC section 3 item 4).
 * - `generalizedSymmetricEigen`: dense A and B given explicitly (LDA's between- and
 *   within-class scatter), reduced with B's eigen-decomposition on its range.
 *
 * LAPACK counterparts: `generalizedSymmetricEigen` answers the question of dsygvx with
 * itype = 1 and range = 'I', which needs B positive definite (dpotrf, dsygst, dsyevx,
 * dtrsm). The deliberate difference is the reduction through B's eigen-decomposition
 * on its range instead of a Cholesky factor, so that a singular B is allowed, followed
 * by one Cholesky step in the B inner product that restores W^T B W = I to working
 * precision. `dataSpanEigen` has no LAPACK counterpart: it works from the thin SVD of
 * X (svd.ts) instead of B = X^T X.
 */
import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { checkInteger } from "../core/validate.js";
import { symmetrizeInPlace } from "./basic.js";
import {
  checkSymmetricMatrix,
  normalizeEigenvectorSigns,
  symmetricEigen,
} from "./eigen/symmetricEigen.js";
import { multiply } from "./kernels/gemm.js";
import { choleskyUpper, innerProducts, solveUpperFromRight } from "./orthogonalize.js";
import { checkDataMatrix, type ThinSvd, thinSvd } from "./svd.js";

/** k smallest or k largest eigenpairs. */
export type SubsetSelection = { readonly smallest: number } | { readonly largest: number };

/**
 * The n x n matrix M of the data-span problem, given as the matrix itself, as a
 * callback returning M U for an n x r block U, or as the projected r x r matrix
 * U_r^T M U_r already formed with `svd.U`.
 */
export type DataSpanOperator = Matrix | ((U: Matrix) => Matrix) | { readonly projected: Matrix };

export interface DataSpanEigenOptions {
  /** A thin SVD of X to reuse (its U, s, V and rank); computed when absent. */
  readonly svd?: ThinSvd;
  /** Rank tolerance for the SVD when it is computed here (see `thinSvd`). */
  readonly rankTolerance?: number;
}

export interface DataSpanEigenResult {
  /** The generalised eigenvalues mu, ascending. */
  readonly values: Float64Array;
  /** d x k, column j the generalised eigenvector of values[j], with W^T X^T X W = I. */
  readonly W: Matrix;
  /** r x k: the eigenvectors of U_r^T M U_r behind W (W = V_r S_r^-1 P before the final B-orthonormalisation). */
  readonly P: Matrix;
  /** The numerical rank r of X. */
  readonly rank: number;
}

function parseSubset(select: SubsetSelection, max: number, owner: string, why: string) {
  if (select !== null && typeof select === "object") {
    if ("smallest" in select) {
      return {
        largest: false,
        k: checkInteger(owner, "select.smallest", select.smallest, 1, max, why),
      };
    }
    if ("largest" in select) {
      return {
        largest: true,
        k: checkInteger(owner, "select.largest", select.largest, 1, max, why),
      };
    }
  }
  throw new ValidationError(
    "select",
    `The 'select' argument of ${owner} must be {smallest: k} or {largest: k}. Got ${JSON.stringify(select)} instead.`,
  );
}

/**
 * Makes the columns of W orthonormal in the inner product <u, v> = (Y u)^T (Y v) with
 * Y = image(W) given: W <- W R^-1 where (YW)^T (YW) = R^T R. The rounding of the
 * reduction leaves W^T B W = I only to about eps cond(B); this step restores it to
 * working precision while moving W by no more than that amount.
 */
function orthonormalizeInImage(W: Matrix, image: Matrix): void {
  const C = innerProducts(image, image);
  symmetrizeInPlace(C);
  if (choleskyUpper(C)) solveUpperFromRight(W, C);
}

/**
 * The k trailing (`{smallest: k}`) or leading (`{largest: k}`) generalised
 * eigenvectors of (X^T M X, X^T X) in the span of the data: W = V_r S_r^-1 P with P
 * the matching eigenvectors of U_r^T M U_r. X^T X is singular whenever d >= n, and
 * the problem then has only r = rank(X) finite eigenvalues: k > r is an error.
 * Directions in the null space of X (where both quadratic forms vanish) are excluded.
 */
export function dataSpanEigen(
  X: Matrix,
  M: DataSpanOperator,
  select: SubsetSelection,
  options: DataSpanEigenOptions = {},
): DataSpanEigenResult {
  const owner = "dataSpanEigen";
  checkDataMatrix(X, owner);
  const n = X.rows;
  const d = X.cols;
  const svd = options.svd ?? thinSvd(X, { rankTolerance: options.rankTolerance });
  if (svd.U.rows !== n || svd.V.rows !== d) {
    throw new ValidationError(
      "svd",
      `The 'svd' option of ${owner} must be a thin SVD of X (U with ${n} rows, V with ${d} rows). Got U with ${svd.U.rows} rows and V with ${svd.V.rows} rows instead.`,
    );
  }
  const r = svd.rank;
  if (r === 0) {
    throw new ValidationError(
      "X",
      `The 'X' argument of ${owner} has numerical rank 0 (all entries are zero or negligible), so the generalised problem with X^T X has no solution.`,
    );
  }
  const { largest, k } = parseSubset(
    select,
    r,
    owner,
    `(the numerical rank r of X: the generalised problem with the singular X^T X has only r finite eigenvalues)`,
  );
  let projected: Matrix;
  if (M instanceof Matrix) {
    if (M.rows !== n || M.cols !== n) {
      throw new ValidationError(
        "M",
        `The 'M' argument of ${owner} must be ${n} x ${n} (X has ${n} rows). Got ${M.rows} x ${M.cols} instead.`,
      );
    }
    checkSymmetricMatrix(M, owner, "M");
    projected = innerProducts(svd.U, multiply(M, svd.U));
  } else if (typeof M === "function") {
    const MU = M(svd.U);
    if (!(MU instanceof Matrix) || MU.rows !== n || MU.cols !== r) {
      throw new ValidationError(
        "M",
        `The 'M' callback of ${owner} must return M U as a ${n} x ${r} Matrix. Got ${MU instanceof Matrix ? `${MU.rows} x ${MU.cols}` : typeof MU} instead.`,
      );
    }
    projected = innerProducts(svd.U, MU);
  } else if (M !== null && typeof M === "object" && M.projected instanceof Matrix) {
    if (M.projected.rows !== r || M.projected.cols !== r) {
      throw new ValidationError(
        "M",
        `The 'M.projected' argument of ${owner} must be r x r = ${r} x ${r} (U_r^T M U_r). Got ${M.projected.rows} x ${M.projected.cols} instead.`,
      );
    }
    projected = M.projected.clone();
  } else {
    throw new ValidationError(
      "M",
      `The 'M' argument of ${owner} must be a Matrix, a function U => M U, or {projected: Matrix}. Got ${M === null ? "null" : typeof M} instead.`,
    );
  }
  symmetrizeInPlace(projected);
  const eig = symmetricEigen(projected, {
    select: largest ? { largest: k } : { smallest: k },
  });
  const P = eig.vectors as Matrix;
  // W = V_r S_r^-1 P.
  const scaled = P.clone();
  for (let i = 0; i < r; i++) {
    const f = 1 / svd.s[i];
    for (let j = 0; j < k; j++) scaled.data[i * k + j] *= f;
  }
  const W = multiply(svd.V, scaled);
  orthonormalizeInImage(W, multiply(X, W));
  normalizeEigenvectorSigns(W, P);
  return { values: eig.values, W, P, rank: r };
}

export interface GeneralizedEigenOptions {
  /**
   * Eigenvalues of B at or below rankTolerance * lambda_max(B) count as zero
   * (default 10 n eps). Must be in [eps, 1).
   */
  readonly rankTolerance?: number;
}

export interface GeneralizedEigenResult {
  /** Generalised eigenvalues mu, ascending. */
  readonly values: Float64Array;
  /** n x k, column j for values[j], with W^T B W = I. */
  readonly vectors: Matrix;
  /** Numerical rank of B: the number of finite eigenvalues of the pencil on B's range. */
  readonly rank: number;
}

const EPS = 2 ** -52;

/**
 * A w = mu B w for symmetric A and symmetric positive semidefinite B, solved on the
 * range of B: with B = Q_r Lambda_r Q_r^T (the eigenvalues above the rank tolerance),
 * w = Q_r Lambda_r^-1/2 y where y solves the standard problem
 * (Lambda_r^-1/2 Q_r^T A Q_r Lambda_r^-1/2) y = mu y. The returned pairs satisfy
 * Q_r^T (A w - mu B w) = 0 and W^T B W = I; directions in the null space of B, where
 * the Rayleigh quotient w^T A w / w^T B w is infinite or undefined, are excluded, so
 * at most rank(B) pairs exist and k above it is an error.
 */
export function generalizedSymmetricEigen(
  A: Matrix,
  B: Matrix,
  select: SubsetSelection,
  options: GeneralizedEigenOptions = {},
): GeneralizedEigenResult {
  const owner = "generalizedSymmetricEigen";
  checkSymmetricMatrix(A, owner, "A");
  const bnorm = checkSymmetricMatrix(B, owner, "B");
  const n = A.rows;
  if (B.rows !== n) {
    throw new ValidationError(
      "B",
      `The 'B' argument of ${owner} must be ${n} x ${n} like A. Got ${B.rows} x ${B.cols} instead.`,
    );
  }
  const tol = options.rankTolerance ?? 10 * n * EPS;
  if (typeof tol !== "number" || !(tol >= EPS) || !(tol < 1)) {
    throw new ValidationError(
      "rankTolerance",
      `The 'rankTolerance' option of ${owner} must be a number in [${EPS.toExponential(2)}, 1). Got ${String(tol)} instead.`,
    );
  }
  if (bnorm === 0) {
    throw new ValidationError(
      "B",
      `The 'B' argument of ${owner} is zero, so the generalised problem has no finite eigenvalue.`,
    );
  }
  const eb = symmetricEigen(B);
  const lam = eb.values;
  const lmax = lam[n - 1];
  if (lam[0] < -1e-8 * lmax || !(lmax > 0)) {
    throw new ValidationError(
      "B",
      `The 'B' argument of ${owner} must be positive semidefinite. Its smallest eigenvalue is ${lam[0].toPrecision(3)} while its largest is ${lmax.toPrecision(3)}.`,
    );
  }
  const keep: number[] = [];
  for (let j = n - 1; j >= 0; j--) if (lam[j] > tol * lmax) keep.push(j);
  const r = keep.length;
  const { largest, k } = parseSubset(
    select,
    r,
    owner,
    `(the numerical rank r of B: the problem has only r finite eigenvalues on the range of B)`,
  );
  const Q = eb.vectors as Matrix;
  const C = new Matrix(n, r);
  for (let c = 0; c < r; c++) {
    const j = keep[c];
    const f = 1 / Math.sqrt(lam[j]);
    for (let i = 0; i < n; i++) C.data[i * r + c] = Q.data[i * n + j] * f;
  }
  const reduced = symmetrizeInPlace(innerProducts(C, multiply(A, C)));
  const eig = symmetricEigen(reduced, {
    select: largest ? { largest: k } : { smallest: k },
  });
  const W = multiply(C, eig.vectors as Matrix);
  // W^T B W = I holds only to about eps cond(B_r); one Cholesky step in the B inner
  // product restores it to working precision.
  const BW = multiply(B, W);
  const G = symmetrizeInPlace(innerProducts(W, BW));
  if (choleskyUpper(G)) solveUpperFromRight(W, G);
  normalizeEigenvectorSigns(W);
  return { values: eig.values, vectors: W, rank: r };
}
