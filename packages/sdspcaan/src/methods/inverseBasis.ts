/**
 * The map of `inverseTransform`: B (d x k) with x = z B^T + mean. For orthonormal
 * components B = W, and z W^T is the exact reconstruction of x from its projection
 * (the orthogonal projection of x - mean onto span W). Otherwise B = W (W^T W)^-1, the
 * transpose of W's pseudo-inverse: z B^T is the least-norm x - mean with (x - mean) W
 * = z, and transform(inverseTransform(Z)) = Z again. It is formed from W = Q R
 * (Gram-Schmidt run twice) as Q R^-T, not from W^T W, whose condition number is the
 * square of W's. A W of lower numerical rank r than k (JPCDA with k < c: c columns
 * in a k-dimensional span) has B = U S^-1 V^T from its thin SVD restricted to r, the
 * pseudo-inverse as NumPy's pinv forms it: Z is then mapped back from its projection
 * onto the r-dimensional span the model reaches.
 */
import { Matrix } from "../core/matrix.js";
import { innerProducts } from "../linalg/orthogonalize.js";
import { thinSvd } from "../linalg/svd.js";

/**
 * R's diagonal below this times its largest entry: W is taken as rank-deficient and
 * inverted through its SVD, whose rank tolerance (about 1e-7) drops the directions
 * Q R^-T would amplify.
 */
const DEPENDENT_COLUMNS = 1e-8;

/** W^T W within this of I (entrywise) counts as orthonormal: W itself is the inverse map. */
export const ORTHONORMAL_TOLERANCE = 1e-10;

/** Whether W's columns are orthonormal to ORTHONORMAL_TOLERANCE. */
export function hasOrthonormalColumns(W: Matrix): boolean {
  const G = innerProducts(W, W);
  const k = G.rows;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      if (!(Math.abs(G.data[i * k + j] - (i === j ? 1 : 0)) <= ORTHONORMAL_TOLERANCE)) return false;
    }
  }
  return true;
}

/** B with inverseTransform(Z) = Z B^T + mean (see the file comment). */
export function inverseBasis(W: Matrix): Matrix {
  if (hasOrthonormalColumns(W)) return W;
  const d = W.rows;
  const k = W.cols;
  const Q = new Matrix(d, k);
  const R = new Float64Array(k * k);
  const v = new Float64Array(d);
  let largest = 0;
  for (let j = 0; j < k; j++) {
    for (let i = 0; i < d; i++) v[i] = W.data[i * k + j];
    for (let pass = 0; pass < 2; pass++) {
      for (let l = 0; l < j; l++) {
        let r = 0;
        for (let i = 0; i < d; i++) r += Q.data[i * k + l] * v[i];
        for (let i = 0; i < d; i++) v[i] -= r * Q.data[i * k + l];
        R[l * k + j] += r;
      }
    }
    let norm = 0;
    for (let i = 0; i < d; i++) norm += v[i] * v[i];
    norm = Math.sqrt(norm);
    R[j * k + j] = norm;
    largest = Math.max(largest, norm);
    if (!(norm > 0)) break;
    for (let i = 0; i < d; i++) Q.data[i * k + j] = v[i] / norm;
  }
  for (let j = 0; j < k; j++) {
    if (!(R[j * k + j] > DEPENDENT_COLUMNS * largest)) return pseudoInverseBasis(W);
  }
  // B R^T = Q, row by row: R^T is lower triangular, so column j of B needs the later ones.
  const B = new Matrix(d, k);
  for (let i = 0; i < d; i++) {
    const row = i * k;
    for (let j = k - 1; j >= 0; j--) {
      let x = Q.data[row + j];
      for (let l = j + 1; l < k; l++) x -= B.data[row + l] * R[j * k + l];
      B.data[row + j] = x / R[j * k + j];
    }
  }
  return B;
}

/** B = U S^-1 V^T from W = U S V^T restricted to W's numerical rank. */
function pseudoInverseBasis(W: Matrix): Matrix {
  const { U, s, V, rank } = thinSvd(W);
  const d = W.rows;
  const k = W.cols;
  const B = new Matrix(d, k);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < k; j++) {
      let x = 0;
      for (let l = 0; l < rank; l++) x += (U.data[i * rank + l] / s[l]) * V.data[j * rank + l];
      B.data[i * k + j] = x;
    }
  }
  return B;
}
