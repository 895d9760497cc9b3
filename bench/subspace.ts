/**
 * How far two fitted projections are apart, as the bench suites report it beside
 * their timings: the largest principal angle between the column spans.
 */
import type { Matrix } from "../packages/sdspcaan/src/core/matrix.js";
import { frobeniusNorm } from "../packages/sdspcaan/src/linalg/basic.js";
import { multiply, multiplyAtB } from "../packages/sdspcaan/src/linalg/kernels/gemm.js";
import { choleskyQR } from "../packages/sdspcaan/src/linalg/orthogonalize.js";

/** An orthonormal basis of span(A) (Cholesky QR twice, on a copy: A is well conditioned here). */
function orthonormalBasis(A: Matrix): Matrix {
  const Q = A.clone();
  choleskyQR(Q);
  choleskyQR(Q);
  return Q;
}

/** Largest principal angle (rad) between the column spans of A and B, from its sine bound. */
export function largestAngle(A: Matrix, B: Matrix): number {
  const U = orthonormalBasis(A);
  const V = orthonormalBasis(B);
  const P = multiply(U, multiplyAtB(U, V));
  for (let i = 0; i < P.data.length; i++) P.data[i] = V.data[i] - P.data[i];
  return Math.asin(Math.min(1, frobeniusNorm(P)));
}
