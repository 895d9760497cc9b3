/**
 * Matrix products on row-major Float64Array storage.
 *
 * The workhorse is C = A B^T in the dot-product form: both operands are read along
 * the contraction index, which is contiguous in row-major storage, and a 4 x 4 block
 * of C is accumulated in 16 locals (registers for the JIT) while the contraction
 * runs. The contraction is cut into panels of KC so that a 4-row panel of B stays in
 * L1 while it is reused against MC rows of A held in L2.
 *
 * Measured (medians of CPU time, 2-core shared machine): ~3 GFLOP/s on an idle core,
 * 2-2.3 GFLOP/s under load. V8 emits scalar SSE code in which every typed-array load
 * carries an index addition with overflow check and a bounds check, and the 16
 * accumulators plus 8 operands exceed the 16 XMM registers (a few spill). Tried and
 * not faster: packing A and/or B into interleaved panels, 2 x 4, 3 x 4 and 4 x 4
 * blocks with a sequenced load order, unrolling the contraction by two, and
 * subarray views per row. Leftover columns (n % 4) run a 4 x 1 kernel, so thin
 * products (blocks of 5..15 vectors, as in LOBPCG) keep most of the reuse.
 */
import { Matrix } from "./matrix.js";

const KC = 256;
const MC = 64;

/**
 * Raw kernel: C[i*ldc + j] (+)= sum_l A[i*lda + l] * B[j*ldb + l] for i < m, j < n,
 * l < p. With `accumulate` false C is overwritten.
 */
export function gemmABtRaw(
  m: number,
  n: number,
  p: number,
  A: Float64Array,
  lda: number,
  B: Float64Array,
  ldb: number,
  C: Float64Array,
  ldc: number,
  accumulate = false,
): void {
  if (!accumulate) {
    for (let i = 0; i < m; i++) C.fill(0, i * ldc, i * ldc + n);
  }
  if (p === 0) return;
  const m4 = m - (m % 4);
  const n4 = n - (n % 4);
  for (let l0 = 0; l0 < p; l0 += KC) {
    const l1 = Math.min(l0 + KC, p);
    for (let i0 = 0; i0 < m; i0 += MC) {
      const i1 = Math.min(i0 + MC, m);
      const i1b = Math.min(i1, m4);
      for (let j = 0; j < n4; j += 4) {
        const b0 = j * ldb;
        const b1 = b0 + ldb;
        const b2 = b1 + ldb;
        const b3 = b2 + ldb;
        let i = i0;
        for (; i < i1b; i += 4) {
          const a0 = i * lda;
          const a1 = a0 + lda;
          const a2 = a1 + lda;
          const a3 = a2 + lda;
          // 4 x 4 block of C accumulated in locals (the register block).
          let c00 = 0;
          let c01 = 0;
          let c02 = 0;
          let c03 = 0;
          let c10 = 0;
          let c11 = 0;
          let c12 = 0;
          let c13 = 0;
          let c20 = 0;
          let c21 = 0;
          let c22 = 0;
          let c23 = 0;
          let c30 = 0;
          let c31 = 0;
          let c32 = 0;
          let c33 = 0;
          for (let l = l0; l < l1; l++) {
            const x0 = A[a0 + l];
            const x1 = A[a1 + l];
            const x2 = A[a2 + l];
            const x3 = A[a3 + l];
            const y0 = B[b0 + l];
            const y1 = B[b1 + l];
            const y2 = B[b2 + l];
            const y3 = B[b3 + l];
            c00 += x0 * y0;
            c01 += x0 * y1;
            c02 += x0 * y2;
            c03 += x0 * y3;
            c10 += x1 * y0;
            c11 += x1 * y1;
            c12 += x1 * y2;
            c13 += x1 * y3;
            c20 += x2 * y0;
            c21 += x2 * y1;
            c22 += x2 * y2;
            c23 += x2 * y3;
            c30 += x3 * y0;
            c31 += x3 * y1;
            c32 += x3 * y2;
            c33 += x3 * y3;
          }
          let o = i * ldc + j;
          C[o] += c00;
          C[o + 1] += c01;
          C[o + 2] += c02;
          C[o + 3] += c03;
          o += ldc;
          C[o] += c10;
          C[o + 1] += c11;
          C[o + 2] += c12;
          C[o + 3] += c13;
          o += ldc;
          C[o] += c20;
          C[o + 1] += c21;
          C[o + 2] += c22;
          C[o + 3] += c23;
          o += ldc;
          C[o] += c30;
          C[o + 1] += c31;
          C[o + 2] += c32;
          C[o + 3] += c33;
        }
        // Leftover rows of this MC block (only in the last block when m % 4 != 0).
        for (; i < i1; i++) {
          const a0 = i * lda;
          let c0 = 0;
          let c1 = 0;
          let c2 = 0;
          let c3 = 0;
          for (let l = l0; l < l1; l++) {
            const x = A[a0 + l];
            c0 += x * B[b0 + l];
            c1 += x * B[b1 + l];
            c2 += x * B[b2 + l];
            c3 += x * B[b3 + l];
          }
          const o = i * ldc + j;
          C[o] += c0;
          C[o + 1] += c1;
          C[o + 2] += c2;
          C[o + 3] += c3;
        }
      }
      // Leftover columns (n % 4 != 0): one column against four rows at a time, so that
      // thin products (a block of 5..15 vectors) keep most of the register reuse.
      for (let j = n4; j < n; j++) {
        const b0 = j * ldb;
        let i = i0;
        for (; i < i1b; i += 4) {
          const a0 = i * lda;
          const a1 = a0 + lda;
          const a2 = a1 + lda;
          const a3 = a2 + lda;
          let c0 = 0;
          let c1 = 0;
          let c2 = 0;
          let c3 = 0;
          for (let l = l0; l < l1; l++) {
            const y = B[b0 + l];
            c0 += A[a0 + l] * y;
            c1 += A[a1 + l] * y;
            c2 += A[a2 + l] * y;
            c3 += A[a3 + l] * y;
          }
          const o = i * ldc + j;
          C[o] += c0;
          C[o + ldc] += c1;
          C[o + 2 * ldc] += c2;
          C[o + 3 * ldc] += c3;
        }
        for (; i < i1; i++) {
          const a0 = i * lda;
          let s0 = 0;
          let s1 = 0;
          let l = l0;
          for (; l + 1 < l1; l += 2) {
            s0 += A[a0 + l] * B[b0 + l];
            s1 += A[a0 + l + 1] * B[b0 + l + 1];
          }
          if (l < l1) s0 += A[a0 + l] * B[b0 + l];
          C[i * ldc + j] += s0 + s1;
        }
      }
    }
  }
}

/** C = A B^T (A is m x p, B is n x p). */
export function multiplyABt(A: Matrix, B: Matrix, out?: Matrix): Matrix {
  if (A.cols !== B.cols) {
    throw new RangeError(
      `multiplyABt: inner dimensions differ (${A.rows} x ${A.cols} times (${B.rows} x ${B.cols})^T).`,
    );
  }
  const C = out ?? new Matrix(A.rows, B.rows);
  if (C.rows !== A.rows || C.cols !== B.rows) {
    throw new RangeError(`multiplyABt: output must be ${A.rows} x ${B.rows}.`);
  }
  gemmABtRaw(A.rows, B.rows, A.cols, A.data, A.cols, B.data, B.cols, C.data, C.cols);
  return C;
}

/** C = A B (A is m x p, B is p x n): B is transposed once, then the A B^T kernel runs. */
export function multiply(A: Matrix, B: Matrix, out?: Matrix): Matrix {
  if (A.cols !== B.rows) {
    throw new RangeError(
      `multiply: inner dimensions differ (${A.rows} x ${A.cols} times ${B.rows} x ${B.cols}).`,
    );
  }
  // The A B^T kernel needs B transposed (a copy of B); that only pays off when the
  // product has enough rows and columns to reuse it.
  if (A.rows <= 4 || (B.cols <= 2 && A.cols <= 8)) return multiplySmall(A, B, out);
  return multiplyABt(A, B.transpose(), out);
}

/** C = A^T B (A is p x m, B is p x n). */
export function multiplyAtB(A: Matrix, B: Matrix, out?: Matrix): Matrix {
  if (A.rows !== B.rows) {
    throw new RangeError(
      `multiplyAtB: row counts differ ((${A.rows} x ${A.cols})^T times ${B.rows} x ${B.cols}).`,
    );
  }
  if (A.cols <= 4 || B.cols <= 4) {
    // Thin operands: accumulate rank-1 updates row by row (streams both once).
    const C = out ?? new Matrix(A.cols, B.cols);
    C.data.fill(0);
    const m = A.cols;
    const n = B.cols;
    for (let l = 0; l < A.rows; l++) {
      const ao = l * m;
      const bo = l * n;
      for (let i = 0; i < m; i++) {
        const a = A.data[ao + i];
        if (a === 0) continue;
        const co = i * n;
        for (let j = 0; j < n; j++) C.data[co + j] += a * B.data[bo + j];
      }
    }
    return C;
  }
  return multiplyABt(A.transpose(), B.transpose(), out);
}

function multiplySmall(A: Matrix, B: Matrix, out?: Matrix): Matrix {
  const m = A.rows;
  const p = A.cols;
  const n = B.cols;
  const C = out ?? new Matrix(m, n);
  if (C.rows !== m || C.cols !== n) throw new RangeError(`multiply: output must be ${m} x ${n}.`);
  const a = A.data;
  const b = B.data;
  const c = C.data;
  c.fill(0);
  for (let i = 0; i < m; i++) {
    const co = i * n;
    for (let l = 0; l < p; l++) {
      const x = a[i * p + l];
      if (x === 0) continue;
      const bo = l * n;
      for (let j = 0; j < n; j++) c[co + j] += x * b[bo + j];
    }
  }
  return C;
}

/**
 * The Gram matrix of the rows, X X^T (n x n), symmetric by construction: only
 * blocks on and below the diagonal are computed, then mirrored.
 */
export function gramRows(X: Matrix): Matrix {
  const n = X.rows;
  const p = X.cols;
  const G = new Matrix(n, n);
  const g = G.data;
  const BS = 64;
  for (let i0 = 0; i0 < n; i0 += BS) {
    const mi = Math.min(BS, n - i0);
    for (let j0 = 0; j0 <= i0; j0 += BS) {
      const nj = Math.min(BS, n - j0);
      gemmABtRaw(
        mi,
        nj,
        p,
        X.data.subarray(i0 * p),
        p,
        X.data.subarray(j0 * p),
        p,
        g.subarray(i0 * n + j0),
        n,
      );
    }
  }
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) g[i * n + j] = g[j * n + i];
  }
  return G;
}

/** The Gram matrix of the columns, X^T X (d x d). */
export function gramColumns(X: Matrix): Matrix {
  return gramRows(X.transpose());
}
