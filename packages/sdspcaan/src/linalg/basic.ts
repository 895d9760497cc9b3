/**
 * Small dense operations: column statistics, centring, norms, in-place symmetrisation
 * and vector helpers.
 */
import { Matrix } from "../core/matrix.js";

/** Mean of each column. */
export function columnMeans(X: Matrix): Float64Array {
  const { rows, cols, data } = X;
  const mean = new Float64Array(cols);
  for (let i = 0; i < rows; i++) {
    const off = i * cols;
    for (let j = 0; j < cols; j++) mean[j] += data[off + j];
  }
  if (rows > 0) for (let j = 0; j < cols; j++) mean[j] /= rows;
  // A sum of huge values can overflow although the mean cannot: redo those columns
  // scaled by their largest |value| (ordinary data keeps the plain, bit-stable sum).
  for (let j = 0; j < cols; j++) {
    if (Number.isFinite(mean[j])) continue;
    const m = columnMaxAbs(X, j);
    let s = 0;
    for (let i = 0; i < rows; i++) s += data[i * cols + j] / m;
    mean[j] = (s / rows) * m;
  }
  return mean;
}

/** Largest |X_ij| of column j. */
function columnMaxAbs(X: Matrix, j: number): number {
  let m = 0;
  for (let i = 0; i < X.rows; i++) m = Math.max(m, Math.abs(X.data[i * X.cols + j]));
  return m;
}

/** X - 1 mean^T as a new matrix (X is not modified). */
export function subtractRowVector(X: Matrix, v: Float64Array): Matrix {
  const { rows, cols, data } = X;
  const out = new Matrix(rows, cols);
  const o = out.data;
  for (let i = 0; i < rows; i++) {
    const off = i * cols;
    for (let j = 0; j < cols; j++) o[off + j] = data[off + j] - v[j];
  }
  return out;
}

/** Column-centred copy of X and the column means that were removed. */
export function centerColumns(X: Matrix): { centered: Matrix; mean: Float64Array } {
  const mean = columnMeans(X);
  return { centered: subtractRowVector(X, mean), mean };
}

/** Sample standard deviation of each column (divisor n - 1; 0 when n < 2). */
export function columnStd(X: Matrix, mean: Float64Array = columnMeans(X)): Float64Array {
  const { rows, cols, data } = X;
  const ss = new Float64Array(cols);
  for (let i = 0; i < rows; i++) {
    const off = i * cols;
    for (let j = 0; j < cols; j++) {
      const t = data[off + j] - mean[j];
      ss[j] += t * t;
    }
  }
  for (let j = 0; j < cols; j++) ss[j] = rows > 1 ? Math.sqrt(ss[j] / (rows - 1)) : 0;
  // Squares overflow above ~1e154 and underflow below ~1e-154: redo such columns
  // scaled by their largest centred |value| (ordinary data keeps the plain sum).
  for (let j = 0; j < cols && rows > 1; j++) {
    if (Number.isFinite(ss[j]) && ss[j] > 1e-140) continue;
    let m = 0;
    for (let i = 0; i < rows; i++) m = Math.max(m, Math.abs(data[i * cols + j] - mean[j]));
    if (m === 0 || !Number.isFinite(m)) continue;
    let t2 = 0;
    for (let i = 0; i < rows; i++) {
      const t = (data[i * cols + j] - mean[j]) / m;
      t2 += t * t;
    }
    ss[j] = Math.sqrt(t2 / (rows - 1)) * m;
  }
  return ss;
}

/** Sum of squares of all entries (squared Frobenius norm), scaled to avoid overflow. */
export function frobeniusNorm(A: Matrix | Float64Array): number {
  const data = A instanceof Matrix ? A.data : A;
  let scale = 0;
  let ssq = 1;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (v !== 0) {
      const a = Math.abs(v);
      if (scale < a) {
        ssq = 1 + ssq * (scale / a) * (scale / a);
        scale = a;
      } else {
        ssq += (a / scale) * (a / scale);
      }
    }
  }
  return scale * Math.sqrt(ssq);
}

/** Dot product of x[xo .. xo+len) and y[yo .. yo+len). */
export function dot(x: Float64Array, y: Float64Array, len = x.length, xo = 0, yo = 0): number {
  let s0 = 0;
  let s1 = 0;
  let i = 0;
  for (; i + 1 < len; i += 2) {
    s0 += x[xo + i] * y[yo + i];
    s1 += x[xo + i + 1] * y[yo + i + 1];
  }
  if (i < len) s0 += x[xo + i] * y[yo + i];
  return s0 + s1;
}

/** Trace of a square matrix. */
export function trace(A: Matrix): number {
  if (A.rows !== A.cols)
    throw new RangeError(`trace: matrix is ${A.rows} x ${A.cols}, not square.`);
  let t = 0;
  for (let i = 0; i < A.rows; i++) t += A.data[i * A.cols + i];
  return t;
}

/**
 * Replaces a square matrix by (A + A^T) / 2 in place and returns it: round-off in
 * products such as U^T (L U) leaves a slightly non-symmetric matrix that the
 * symmetric eigen-solver would refuse.
 */
export function symmetrizeInPlace(A: Matrix): Matrix {
  const n = A.rows;
  const a = A.data;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const s = 0.5 * (a[i * n + j] + a[j * n + i]);
      a[i * n + j] = s;
      a[j * n + i] = s;
    }
  }
  return A;
}

/** Largest absolute entry. */
export function maxAbs(A: Matrix | Float64Array): number {
  const data = A instanceof Matrix ? A.data : A;
  let m = 0;
  for (let i = 0; i < data.length; i++) {
    const a = Math.abs(data[i]);
    if (a > m) m = a;
  }
  return m;
}

/** Replaces -0 by +0 in place, so that JSON round-trips (which lose the sign of zero) are exact. */
export function clearNegativeZeros(data: Float64Array): void {
  for (let i = 0; i < data.length; i++) if (data[i] === 0) data[i] = 0;
}
