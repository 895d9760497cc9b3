/**
 * Chebyshev-filtered subspace iteration (Zhou & Saad 2007) for the smallest
 * eigenpairs of a symmetric positive semidefinite operator with a known upper bound
 * on its spectrum: here graph Laplacians (0 <= lambda <= 2 max degree), whose smallest
 * eigenvalues are clustered near zero and converge slowly under LOBPCG without a
 * preconditioner.
 *
 * Each sweep applies the degree-m Chebyshev polynomial of the interval
 * [cut, upper] to the block: eigencomponents inside the interval are bounded by 1
 * while those below `cut` grow like exp(m acosh(...)), so the block turns towards the
 * wanted low end at a rate set by the polynomial, not by the (tiny) relative gaps.
 * Then the block is orthonormalised (SVQB) and a Rayleigh-Ritz step extracts the
 * Ritz pairs; `cut` moves to the largest Ritz value of the block, as in Zhou & Saad.
 * Only operator applications to n x b blocks are needed (a sparse product for L).
 *
 * No LAPACK counterpart: the method is iterative and matrix-free. Its Rayleigh-Ritz
 * steps are small dense problems solved by symmetricEigen.ts.
 */
import { throwIfAborted } from "../../core/errors.js";
import { Matrix } from "../../core/matrix.js";
import { Random } from "../../core/rng.js";
import { symmetrizeInPlace } from "../basic.js";
import { multiply } from "../kernels/gemm.js";
import { innerProducts } from "../orthogonalize.js";
import { svqb } from "./svqb.js";
import { normalizeEigenvectorSigns, symmetricEigen } from "./symmetricEigen.js";

export interface ChebyshevOptions {
  /** An upper bound of the operator's spectrum (e.g. 2 max degree for a Laplacian). */
  readonly upperBound: number;
  /** Warm start: n x m block spanning approximately the wanted vectors. */
  readonly initial?: Matrix;
  /** Block size b >= k (default k + max(10, ceil(k / 4))). */
  readonly blockSize?: number;
  /** Polynomial degree per sweep (default 20). */
  readonly degree?: number;
  /** Converged when ||A x - theta x|| <= tol * upperBound (default 1e-10). */
  readonly tol?: number;
  /** Sweep limit (default 500). */
  readonly maxIterations?: number;
  readonly seed?: number;
  readonly signal?: AbortSignal;
  /**
   * Called after every Rayleigh-Ritz step with the k smallest Ritz values and their
   * residual norms; returning true ends the iteration there (the caller has what it
   * needs, e.g. a decision these bounds already settle). `converged` is then false
   * unless the tolerance was met too.
   */
  readonly stop?: (values: Float64Array, residualNorms: Float64Array) => boolean;
}

export interface ChebyshevResult {
  /** The k smallest Ritz values, ascending. */
  readonly values: Float64Array;
  /** n x k Ritz vectors (largest-magnitude entry positive). */
  readonly vectors: Matrix;
  readonly residualNorms: Float64Array;
  readonly iterations: number;
  readonly converged: boolean;
  /** The whole final block, to warm-start the next solve. */
  readonly block: Matrix;
}

/** Y = p(A) X with p the degree-m Chebyshev polynomial of [cut, upper], scaled at `low`. */
function chebyshevFilter(
  apply: (V: Matrix) => Matrix,
  X: Matrix,
  m: number,
  cut: number,
  upper: number,
  low: number,
): Matrix {
  const e = (upper - cut) / 2;
  const c = (upper + cut) / 2;
  // Scaling of Zhou & Saad (Algorithm 3.2) keeps the block of order one.
  let sigma = e / (low - c);
  const tau = 2 / sigma;
  const n = X.data.length;
  let Xprev = X;
  let AX = apply(X);
  let Y = new Matrix(X.rows, X.cols);
  for (let t = 0; t < n; t++) Y.data[t] = ((AX.data[t] - c * X.data[t]) * sigma) / e;
  for (let step = 2; step <= m; step++) {
    const sigmaNew = 1 / (tau - sigma);
    AX = apply(Y);
    const Z = new Matrix(X.rows, X.cols);
    const f = (2 * sigmaNew) / e;
    const g = sigma * sigmaNew;
    for (let t = 0; t < n; t++) Z.data[t] = f * (AX.data[t] - c * Y.data[t]) - g * Xprev.data[t];
    Xprev = Y;
    Y = Z;
    sigma = sigmaNew;
  }
  return Y;
}

/**
 * The k smallest eigenpairs of the symmetric positive semidefinite operator `apply`
 * (order n, spectrum within [0, upperBound]).
 */
export function chebyshevSmallestEigenpairs(
  apply: (V: Matrix) => Matrix,
  n: number,
  k: number,
  options: ChebyshevOptions,
): ChebyshevResult {
  const upper = options.upperBound;
  const b = Math.min(n, options.blockSize ?? k + Math.max(10, Math.ceil(k / 4)));
  const degree = options.degree ?? 20;
  const tol = options.tol ?? 1e-10;
  const maxIterations = options.maxIterations ?? 500;
  const rng = new Random(options.seed ?? 0);
  let X = new Matrix(n, b);
  const init = options.initial;
  const fromInit = init && init.rows === n ? Math.min(init.cols, b) : 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < b; j++) {
      X.data[i * b + j] =
        j < fromInit ? (init as Matrix).data[i * (init as Matrix).cols + j] : rng.normal();
    }
  }
  X = svqb(X).Q;
  let theta: Float64Array = new Float64Array(0);
  let residuals = new Float64Array(k);
  let vectors = new Matrix(n, k);
  let converged = false;
  let iterations = 0;
  // The first Rayleigh-Ritz sets the cut; before it, use the middle of the spectrum.
  let cut = upper / 2;
  for (let it = 0; it <= maxIterations; it++) {
    throwIfAborted(options.signal);
    // Rayleigh-Ritz on the current (orthonormal) block.
    const AX = apply(X);
    const H = symmetrizeInPlace(innerProducts(X, AX));
    const m = H.rows;
    const eig = symmetricEigen(H);
    const Z = eig.vectors as Matrix;
    X = multiply(X, Z);
    const AXr = multiply(AX, Z);
    theta = eig.values;
    const kk = Math.min(k, m);
    residuals = new Float64Array(kk);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < kk; j++) {
        const r = AXr.data[i * m + j] - theta[j] * X.data[i * m + j];
        residuals[j] += r * r;
      }
    }
    let worst = 0;
    for (let j = 0; j < kk; j++) {
      residuals[j] = Math.sqrt(residuals[j]);
      worst = Math.max(worst, residuals[j]);
    }
    iterations = it;
    if (kk === k && worst <= tol * upper) {
      converged = true;
      break;
    }
    if (kk === k && options.stop?.(theta.slice(0, k), residuals)) break;
    if (it === maxIterations) break;
    cut = Math.min(Math.max(theta[m - 1], theta[0] + 1e-12 * upper), upper * (1 - 1e-12));
    // Scale the polynomial to about 1 just below the lowest Ritz value (no overflow).
    const low = theta[0] - 0.01 * (cut - theta[0]);
    const Y = chebyshevFilter(apply, X, degree, cut, upper, low);
    X = svqb(Y).Q;
    if (X.cols < k) {
      // The filter collapsed directions (a rank-deficient block): refill with random ones.
      const R = new Matrix(n, b);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < b; j++)
          R.data[i * b + j] = j < X.cols ? X.data[i * X.cols + j] : rng.normal();
      }
      X = svqb(R).Q;
    }
  }
  const kk = Math.min(k, X.cols);
  vectors = normalizeEigenvectorSigns(X.leadingColumns(kk));
  return {
    values: theta.slice(0, kk),
    vectors,
    residualNorms: residuals,
    iterations,
    converged,
    block: X,
  };
}
