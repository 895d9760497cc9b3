/**
 * Principal angles between column spaces, for comparing subspaces (never raw
 * eigenvector signs or bases inside clusters).
 */

import type { Matrix } from "#internal/core/matrix.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiplyAtB } from "#internal/linalg/kernels/gemm.js";

/** Orthonormal basis of the column space (modified Gram-Schmidt, applied twice). */
export function orthonormalBasis(A: Matrix): Matrix {
  const n = A.rows;
  const k = A.cols;
  const Q = A.clone();
  const q = Q.data;
  for (let j = 0; j < k; j++) {
    for (let pass = 0; pass < 2; pass++) {
      for (let p = 0; p < j; p++) {
        let dot = 0;
        for (let i = 0; i < n; i++) dot += q[i * k + p] * q[i * k + j];
        for (let i = 0; i < n; i++) q[i * k + j] -= dot * q[i * k + p];
      }
    }
    let norm = 0;
    for (let i = 0; i < n; i++) norm += q[i * k + j] * q[i * k + j];
    norm = Math.sqrt(norm);
    if (norm === 0) throw new Error(`column ${j} is linearly dependent on the previous ones`);
    for (let i = 0; i < n; i++) q[i * k + j] /= norm;
  }
  return Q;
}

/**
 * The largest principal angle (radians) between span(A) and span(B), computed from
 * sines (accurate for tiny angles, unlike acos of the cosines).
 */
export function maxPrincipalAngle(A: Matrix, B: Matrix): number {
  if (A.rows !== B.rows || A.cols !== B.cols) {
    throw new Error(`shapes differ: ${A.rows} x ${A.cols} and ${B.rows} x ${B.cols}`);
  }
  const Qa = orthonormalBasis(A);
  const Qb = orthonormalBasis(B);
  const C = multiplyAtB(Qa, Qb);
  // R = Qb - Qa C; sin(theta_max) = ||R||_2 = sqrt(largest eigenvalue of R^T R).
  const R = Qb.clone();
  const n = A.rows;
  const k = A.cols;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < k; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += Qa.data[i * k + p] * C.data[p * k + j];
      R.data[i * k + j] -= s;
    }
  }
  const RtR = multiplyAtB(R, R);
  const values = symmetricEigen(RtR, { vectors: false }).values;
  const top = Math.max(0, values[values.length - 1]);
  return Math.asin(Math.min(1, Math.sqrt(top)));
}
