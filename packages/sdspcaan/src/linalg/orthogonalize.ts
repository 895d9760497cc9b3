/**
 * Tall-skinny block kernels shared by the SVD, the data-span solvers and LOBPCG:
 * inner products of n x p blocks, Cholesky, Cholesky-QR and projections. SVQB, which
 * needs an eigensolver, is in eigen/svqb.ts, so that this file stays below eigen/.
 *
 * LAPACK counterparts: `choleskyUpper` is dpotrf with uplo = 'U' (unblocked, and it
 * returns false where dpotrf returns info > 0); `solveUpperFromRight` is dtrsm with
 * side = 'R', uplo = 'U', transa = 'N' (recursively blocked so that most of its flops
 * run in the GEMM kernel). Cholesky-QR has none.
 */

import { Matrix } from "../core/matrix.js";
import { symmetrizeInPlace } from "./basic.js";
import {
  gemmABtRaw,
  gemmABtTs,
  gemmAtBWasm,
  multiply,
  transposed,
  wasmWorthIt,
} from "./kernels/gemm.js";
import { type WasmArena, wasmArena } from "./kernels/wasm/backend.js";

/**
 * A^T B for row-major A (n x p) and B (n x q): both are transposed once so that the
 * contraction over the long dimension runs contiguously in the GEMM kernel (on the wasm
 * backend by the module's transpose kernel, about three to four times faster than in
 * JS, and when no helper shares the product, inside the module's memory throughout;
 * the same bits either way).
 */
export function innerProducts(A: Matrix, B: Matrix): Matrix {
  if (A.rows !== B.rows) {
    throw new RangeError(`innerProducts: row counts differ (${A.rows} and ${B.rows}).`);
  }
  const p = A.cols;
  const q = B.cols;
  const n = A.rows;
  const C = new Matrix(p, q);
  if (n === 0 || p === 0 || q === 0) return C;
  if (gemmAtBWasm(n, p, q, A.data, B.data, C.data)) return C;
  const At = transposed(A);
  const Bt = A === B ? At : transposed(B);
  gemmABtRaw(p, q, n, At.data, n, Bt.data, n, C.data, q);
  return C;
}

/** V^T V, symmetric by construction (the kernel's rounding is mirrored). */
export function gram(V: Matrix): Matrix {
  return symmetrizeInPlace(innerProducts(V, V));
}

/**
 * In-place Cholesky factorisation G = R^T R of a k x k symmetric positive definite
 * matrix; R is written to the upper triangle (the strict lower triangle is zeroed).
 * Returns false, leaving G partly overwritten, when a pivot is not safely positive.
 */
export function choleskyUpper(G: Matrix): boolean {
  const k = G.rows;
  const g = G.data;
  // Right-looking (outer-product) form on the upper triangle: every inner loop runs
  // along a row, which is contiguous in row-major storage.
  for (let j = 0; j < k; j++) {
    const jj = j * k;
    const s = g[jj + j];
    if (!(s > 0) || !Number.isFinite(s)) return false;
    const rjj = Math.sqrt(s);
    g[jj + j] = rjj;
    const inv = 1 / rjj;
    for (let i = j + 1; i < k; i++) g[jj + i] *= inv;
    for (let p = j + 1; p < k; p++) {
      const a = g[jj + p];
      if (a === 0) continue;
      const pp = p * k;
      for (let i = p; i < k; i++) g[pp + i] -= a * g[jj + i];
    }
  }
  for (let i = 1; i < k; i++) g.fill(0, i * k, i * k + i);
  return true;
}

/** Columns below which the triangular solve is done by plain substitution. */
const TRSM_BLOCK = 48;

/**
 * V <- V R^{-1} in place for upper-triangular R. Recursive blocking: with
 * R = [R11 R12; 0 R22], X1 = V1 R11^{-1}, then V2 <- V2 - X1 R12 (a GEMM) and
 * X2 = V2 R22^{-1}, so almost all of the n k^2 flops run in the GEMM kernel;
 * the leaves are row-wise forward substitutions (backward stable).
 */
export function solveUpperFromRight(V: Matrix, R: Matrix): void {
  const k = R.rows;
  if (V.cols !== k)
    throw new RangeError(`solveUpperFromRight: V has ${V.cols} columns, R is ${k} x ${k}.`);
  const arena = k >= TRSM_WASM_MIN_K && V.rows >= 2 ? wasmArena() : null;
  if (arena !== null && !arena.holds(V.data) && !arena.holds(R.data)) {
    if (trsmRightWasm(arena, V, R)) return;
  }
  trsmRight(V.data, V.rows, k, R.data, 0, k, null);
}

/**
 * The solve with V and R where they are (TS leaves, each GEMM copied in if it pays):
 * the path `solveUpperFromRight` took before its resident one; for tests only.
 */
export function solveUpperFromRightInPlace(V: Matrix, R: Matrix): void {
  trsmRight(V.data, V.rows, R.rows, R.data, 0, R.rows, null);
}

/** From this order of R on, the solve runs in the module's memory (copies pay off). */
const TRSM_WASM_MIN_K = 8;

/**
 * The same recursion with V, R and the GEMM scratch in the module's memory: one copy
 * in and out instead of one per GEMM, and the leaves in the `trsm` kernel. Returns
 * false (nothing done) when the arena cannot hold the operands.
 */
function trsmRightWasm(arena: WasmArena, V: Matrix, R: Matrix): boolean {
  const rows = V.rows;
  const k = R.rows;
  const half = k - (k >> 1);
  const mark = arena.mark();
  const ptrs = arena.allocAll([rows * k, k * k, half * half]);
  if (ptrs === null) return false;
  arena.pin();
  try {
    const v = arena.view(ptrs[0], rows * k);
    const r = arena.view(ptrs[1], k * k);
    v.set(V.data);
    r.set(R.data);
    trsmRight(v, rows, k, r, 0, k, { arena, scratch: arena.view(ptrs[2], half * half) });
    V.data.set(v);
  } finally {
    arena.unpin();
    arena.release(mark);
  }
  return true;
}

/** V and R live in the module's memory; scratch holds -R12^T of every level. */
interface ResidentTrsm {
  readonly arena: WasmArena;
  readonly scratch: Float64Array;
}

function trsmRight(
  v: Float64Array,
  rows: number,
  k: number,
  r: Float64Array,
  lo: number,
  hi: number,
  resident: ResidentTrsm | null,
): void {
  const width = hi - lo;
  if (width <= TRSM_BLOCK) {
    if (resident !== null) {
      resident.arena.kernels.trsm(
        v.byteOffset + lo * 8,
        rows,
        k * 8,
        r.byteOffset + (lo * k + lo) * 8,
        k * 8,
        width,
      );
      return;
    }
    for (let i = 0; i < rows; i++) {
      const o = i * k;
      for (let j = lo; j < hi; j++) {
        const x = v[o + j] / r[j * k + j];
        v[o + j] = x;
        if (x === 0) continue;
        const rj = j * k;
        for (let l = j + 1; l < hi; l++) v[o + l] -= x * r[rj + l];
      }
    }
    return;
  }
  const mid = lo + (width >> 1);
  trsmRight(v, rows, k, r, lo, mid, resident);
  // V[:, mid:hi] -= V[:, lo:mid] R[lo:mid, mid:hi]: the A B^T kernel with B = -R12^T.
  const b1 = mid - lo;
  const b2 = hi - mid;
  const negR12t =
    resident === null ? new Float64Array(b2 * b1) : resident.scratch.subarray(0, b2 * b1);
  for (let p = 0; p < b1; p++) {
    const rp = (lo + p) * k + mid;
    for (let q = 0; q < b2; q++) negR12t[q * b1 + p] = -r[rp + q];
  }
  // Resident operands would always take the wasm GEMM; below its break-even the copied
  // path runs the TS one, so the resident path does too: both give the same bits.
  if (resident !== null && !wasmWorthIt(rows, b2, b1)) {
    gemmABtTs(rows, b2, b1, v.subarray(lo), k, negR12t, b1, v.subarray(mid), k, true);
  } else {
    gemmABtRaw(rows, b2, b1, v.subarray(lo), k, negR12t, b1, v.subarray(mid), k, true);
  }
  trsmRight(v, rows, k, r, mid, hi, resident);
}

/**
 * Cholesky-QR: orthonormalises the columns of V in place (V <- V R^{-1} with
 * V^T V = R^T R) and returns R, or null when V^T V is not numerically positive
 * definite (then V is left untouched). One pass loses orthogonality like
 * eps * cond(V)^2; callers that need eps repeat it (CholQR2).
 */
export function choleskyQR(V: Matrix): Matrix | null {
  const G = gram(V);
  // Reject conditioning the Gram matrix cannot represent: cond(V)^2 near 1/eps.
  let maxDiag = 0;
  for (let i = 0; i < G.rows; i++) maxDiag = Math.max(maxDiag, G.data[i * G.rows + i]);
  if (!choleskyUpper(G)) return null;
  for (let i = 0; i < G.rows; i++) {
    const rii = G.data[i * G.rows + i];
    if (rii * rii < 1e-10 * maxDiag) return null;
  }
  solveUpperFromRight(V, G);
  return G;
}

/** V <- V - Q (Q^T V), applied twice ("twice is enough", Kahan/Parlett) for columns of Q orthonormal. */
export function projectOut(V: Matrix, Q: Matrix): void {
  if (Q.cols === 0 || V.cols === 0) return;
  for (let pass = 0; pass < 2; pass++) {
    const C = innerProducts(Q, V);
    const QC = multiply(Q, C);
    for (let i = 0; i < V.data.length; i++) V.data[i] -= QC.data[i];
  }
}

/**
 * Removes from `v` its components along the first `cols` columns of B (orthonormal),
 * by classical Gram-Schmidt run twice (as stable as modified Gram-Schmidt), and
 * returns the norm of what is left.
 */
export function orthogonalizeTwice(v: Float64Array, B: Matrix, cols: number): number {
  const d = B.rows;
  const k = B.cols;
  const b = B.data;
  for (let pass = 0; pass < 2; pass++) {
    for (let j = 0; j < cols; j++) {
      let dot = 0;
      for (let i = 0; i < d; i++) dot += b[i * k + j] * v[i];
      for (let i = 0; i < d; i++) v[i] -= dot * b[i * k + j];
    }
  }
  let norm = 0;
  for (let i = 0; i < d; i++) norm += v[i] * v[i];
  return Math.sqrt(norm);
}

/**
 * y minus its projections on the orthonormal vectors of `basis`, two classical
 * Gram-Schmidt passes (the second removes what the first's rounding left), in place;
 * returns the Euclidean norm of what is left.
 */
export function orthogonalizeTwiceAgainst(y: Float64Array, basis: readonly Float64Array[]): number {
  const len = y.length;
  for (let pass = 0; pass < 2; pass++) {
    for (const q of basis) {
      let s = 0;
      for (let i = 0; i < len; i++) s += q[i] * y[i];
      for (let i = 0; i < len; i++) y[i] -= s * q[i];
    }
  }
  let norm = 0;
  for (let i = 0; i < len; i++) norm += y[i] * y[i];
  return Math.sqrt(norm);
}
