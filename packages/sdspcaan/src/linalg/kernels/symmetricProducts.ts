/**
 * Products whose result is symmetric, at about half the flops of the general GEMM
 * (gemm.ts): the blocks on and below the block diagonal of A B^T (Gram matrices,
 * G L G; their strips on the kernel helpers are in threadedProducts.ts), mirroring the
 * lower triangle, and the Gram matrices of rows and columns.
 */
import { Matrix } from "../../core/matrix.js";
import {
  copyIn,
  gemmABtRaw,
  multiplyABt,
  transposed,
  WASM_TRANSPOSE_MAX_ENTRIES,
  WASM_TRANSPOSE_MIN_ENTRIES,
  wasmWorthIt,
} from "./gemm.js";
import { threadedProducts } from "./helper.js";
import { type GemmMatrices, type WasmArena, wasmArena } from "./wasm/backend.js";

/**
 * The blocks on and below the block diagonal of C = A B^T for A and B with n rows
 * (block size `block`): C[i][j] (i, j < n) is overwritten for j < (floor(i / block) + 1)
 * block and left untouched above. The half of a product that is known to be
 * symmetric (Gram matrices, G L G), at half the flops; on the wasm backend the
 * operands are copied into the module's memory once for all blocks.
 */
export const gemmABtLowerBlocks: (
  ...args: [n: number, p: number, ...GemmMatrices<Float64Array>, block?: number]
) => void = (n, p, A, lda, B, ldb, C, ldc, block = 64) => {
  if (n === 0) return;
  const arena = wasmArena();
  const shared = A.buffer === B.buffer && A.byteOffset === B.byteOffset && lda === ldb;
  // Compact operands that already live in the module's memory are used in place (the
  // moments of zKrylovStart.ts build theirs there): their offsets are taken before the
  // allocation below, which may grow the memory and detach the caller's views.
  const inPlaceA = arena?.holds(A) && lda === p ? A.byteOffset : -1;
  const inPlaceB = arena?.holds(B) && ldb === p ? B.byteOffset : -1;
  const mark = arena?.mark() ?? 0;
  const ptrs =
    arena !== null && p > 0 && wasmWorthIt(n, n, p)
      ? arena.allocAll([inPlaceA >= 0 ? 0 : n * p, shared || inPlaceB >= 0 ? 0 : n * p, n * n])
      : null;
  if (arena !== null && ptrs !== null) {
    try {
      const pa = inPlaceA >= 0 ? inPlaceA : ptrs[0];
      const pb = shared ? pa : inPlaceB >= 0 ? inPlaceB : ptrs[1];
      const pc = ptrs[2];
      if (inPlaceA >= 0) A = arena.view(pa, n * p);
      else copyIn(arena, pa, A, lda, n, p);
      if (shared) B = A;
      else if (inPlaceB >= 0) B = arena.view(pb, n * p);
      else copyIn(arena, pb, B, ldb, n, p);
      const f = arena.f64;
      const oc = pc >> 3;
      f.fill(0, oc, oc + n * n);
      // Strips of the block rows on the kernel helpers where threads are registered,
      // else every block row here.
      const threaded = threadedProducts();
      if (
        threaded === null ||
        !threaded.lowerBlocks(arena, n, p, A, lda, B, ldb, pa, pb, pc, block)
      ) {
        lowerBlockRowsInArena(arena, n, p, pa, pb, pc, 0, n, block);
      }
      for (let i = 0; i < n; i++) {
        const width = Math.min(n, (Math.floor(i / block) + 1) * block);
        C.set(f.subarray(oc + i * n, oc + i * n + width), i * ldc);
      }
    } finally {
      arena.release(mark);
    }
    return;
  }
  for (let i0 = 0; i0 < n; i0 += block) {
    const mi = Math.min(block, n - i0);
    for (let j0 = 0; j0 <= i0; j0 += block) {
      const nj = Math.min(block, n - j0);
      gemmABtRaw(
        mi,
        nj,
        p,
        A.subarray(i0 * lda),
        lda,
        B.subarray(j0 * ldb),
        ldb,
        C.subarray(i0 * ldc + j0),
        ldc,
      );
    }
  }
};

/**
 * C += A B^T on the blocks on and below the block diagonal of the block rows [i0, i1)
 * (i0 a multiple of `block`), for A and B (n x p, compact) and C (n x n, compact)
 * already in `arena` at byte offsets pa, pb and pc: gemmABtLowerBlocks' kernel calls,
 * also run by GramOperator.laplacianGram on operands that live in the module.
 */
export function lowerBlockRowsInArena(
  arena: WasmArena,
  n: number,
  p: number,
  pa: number,
  pb: number,
  pc: number,
  i0: number,
  i1: number,
  block: number,
): void {
  if (i0 >= i1) return;
  // Every block row from i0 whose start is below i1, each whole (up to n).
  const m = Math.min(n, i0 + Math.ceil((i1 - i0) / block) * block) - i0;
  // Each entry is summed as block by block (the native kernel packs B's blocks once for
  // all block rows; the module's path calls gemm once per block row).
  arena.kernels.gemmLowerBlocks(m, n, p, pa + i0 * p * 8, p, pb, p, pc + i0 * n * 8, n, i0, block);
}

/**
 * Bounds 0 = a_0 < a_1 < ... < a_P = n of the block rows of gemmABtLowerBlocks for P
 * threads, multiples of `block` except n. Part 0 is computed block by block on and
 * below the diagonal (work a_1^2 / 2); part h >= 1 is a helper's single product of
 * rows [a_h, a_h+1) with columns [0, a_h+1) (work (a_h+1 - a_h) a_h+1: it also computes
 * the blocks above the diagonal within its rows, which are dropped, so that it is one
 * request). The bounds make the parts' work about equal. Each entry kept is summed by
 * the same kernel over the same panels as block by block: the kernel's 2 x 4 tiles and
 * edge cases fall on the same rows and columns, since every strip starts at a
 * multiple of the block (itself a multiple of 4) and ends at one or at n.
 */
export function lowerStripBounds(n: number, parts: number, block: number): number[] {
  // Given a work w per part, the bounds from the top: a_h = a_h+1 - w / a_h+1.
  const fromTop = (w: number): number[] => {
    const a = new Array<number>(parts + 1).fill(0);
    a[parts] = n;
    for (let h = parts - 1; h >= 1; h--) a[h] = Math.max(0, a[h + 1] - w / a[h + 1]);
    return a;
  };
  let lo = 0;
  let hi = (n * n) / 2;
  for (let it = 0; it < 60; it++) {
    const w = 0.5 * (lo + hi);
    const a1 = fromTop(w)[1];
    if ((a1 * a1) / 2 > w) lo = w;
    else hi = w;
  }
  const raw = fromTop(0.5 * (lo + hi));
  const out = [0];
  for (let h = 1; h < parts; h++) {
    const a = Math.round(raw[h] / block) * block;
    if (a > out[out.length - 1] && a < n) out.push(a);
  }
  out.push(n);
  return out;
}

/**
 * target += the entries of `part` that gemmABtLowerBlocks(n, ...) wrote (the blocks on
 * and below the block diagonal, n x n, block size `block`): for sums of symmetric
 * products over chunks of the inner dimension, mirrored once at the end.
 */
export function addLowerBlocks(
  target: Float64Array,
  part: Float64Array,
  n: number,
  block = 64,
): void {
  for (let i = 0; i < n; i++) {
    const width = Math.min(n, (Math.floor(i / block) + 1) * block);
    for (let j = 0; j < width; j++) target[i * n + j] += part[i * n + j];
  }
}

/** A[i][j] = A[j][i] for j > i (n x n): the strict lower triangle copied above. */
export function mirrorLowerTriangle(A: Float64Array, n: number): void {
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) A[i * n + j] = A[j * n + i];
  }
}

/**
 * S = P^T P and F = P^T Q (w x w) for tall P and Q (n x w, compact): the bits of
 * gramRows(transposed(P)) and multiplyABt(transposed(P), transposed(Q)), with the
 * transposes made in the module's memory and both products run on them there in place
 * (the products' own dispatch on the same shapes and values). `transposed` copied each
 * transpose out into a new array and each product copied it back in: at 60,000 x 189
 * (the lifted start's block) about 90 MB a move. Falls back to those calls where the
 * module is not active or the blocks are outside `transposed`'s range.
 */
export function transposedGramAndProduct(P: Matrix, Q: Matrix): { S: Matrix; F: Matrix } {
  const n = P.rows;
  const w = P.cols;
  if (Q.rows !== n || Q.cols !== w) {
    throw new RangeError(
      `transposedGramAndProduct: P is ${n} x ${w} and Q is ${Q.rows} x ${Q.cols}; they must match.`,
    );
  }
  const size = n * w;
  const viaTransposed = () => {
    const Pt = transposed(P);
    return { S: gramRows(Pt), F: multiplyABt(Pt, transposed(Q)) };
  };
  const arena = wasmArena();
  if (
    arena === null ||
    size < WASM_TRANSPOSE_MIN_ENTRIES ||
    size > WASM_TRANSPOSE_MAX_ENTRIES ||
    arena.holds(P.data) ||
    arena.holds(Q.data)
  ) {
    return viaTransposed();
  }
  const mark = arena.mark();
  try {
    // A copy of P, then of Q, in `raw`; their transposes at pt and qt. Room for the
    // products' own scratch (at most w x w each) is taken now and given back, so that
    // the products find the memory grown and the views below stay valid.
    const ptrs = arena.allocAll([size, size, size, 2 * w * w + 64]);
    if (ptrs === null) return viaTransposed();
    const [raw, pt, qt, scratch] = ptrs;
    arena.release(scratch);
    const f = arena.f64;
    f.set(P.data.subarray(0, size), raw >> 3);
    arena.kernels.transpose(raw, n, w, pt);
    f.set(Q.data.subarray(0, size), raw >> 3);
    arena.kernels.transpose(raw, n, w, qt);
    const S = new Matrix(w, w);
    const Pt = arena.view(pt, size);
    gemmABtLowerBlocks(w, n, Pt, n, Pt, n, S.data, w);
    mirrorLowerTriangle(S.data, w);
    const F = new Matrix(w, w);
    gemmABtRaw(w, w, n, arena.view(pt, size), n, arena.view(qt, size), n, F.data, w);
    return { S, F };
  } finally {
    arena.release(mark);
  }
}

/**
 * The Gram matrix of the rows, X X^T (n x n), symmetric by construction: only
 * blocks on and below the diagonal are computed, then mirrored.
 */
export function gramRows(X: Matrix): Matrix {
  const n = X.rows;
  const p = X.cols;
  const G = new Matrix(n, n);
  gemmABtLowerBlocks(n, p, X.data, p, X.data, p, G.data, n);
  mirrorLowerTriangle(G.data, n);
  return G;
}

/**
 * The Gram matrix of the columns, X^T X (d x d): gramRows of X^T, with the transpose
 * made in the module's memory and the product run on it there (the bits of
 * gramRows(transposed(X))). Taking the transpose out as a new array and copying it
 * back in cost more than the product at 10,000 x 784 (a fresh 63 MB array is paid in
 * page faults on first touch; the module's memory, once grown, stays mapped).
 */
export function gramColumns(X: Matrix): Matrix {
  return gramColumnsInArena(X, null) ?? gramRows(transposed(X));
}

/**
 * (X - 1 mean^T)^T (X - 1 mean^T), centred on the way into the module's memory (the
 * bits of gramColumns of the centred copy, which is never made), or null where the
 * module cannot take it.
 */
export function gramColumnsCentred(X: Matrix, mean: Float64Array): Matrix | null {
  return gramColumnsInArena(X, mean);
}

function gramColumnsInArena(X: Matrix, mean: Float64Array | null): Matrix | null {
  const n = X.rows;
  const d = X.cols;
  const size = n * d;
  const arena = wasmArena();
  if (
    arena === null ||
    size < WASM_TRANSPOSE_MIN_ENTRIES ||
    size > WASM_TRANSPOSE_MAX_ENTRIES ||
    arena.holds(X.data)
  ) {
    return null;
  }
  const mark = arena.mark();
  try {
    const ptrs = arena.allocAll([size, size]);
    if (ptrs === null) return null;
    const [raw, xt] = ptrs;
    const f = arena.f64;
    if (mean === null) {
      f.set(X.data.subarray(0, size), raw >> 3);
    } else {
      const x = X.data;
      const o = raw >> 3;
      for (let i = 0; i < n; i++) {
        const r = i * d;
        for (let j = 0; j < d; j++) f[o + r + j] = x[r + j] - mean[j];
      }
    }
    arena.kernels.transpose(raw, n, d, xt);
    const G = new Matrix(d, d);
    const Xt = arena.view(xt, size);
    gemmABtLowerBlocks(d, n, Xt, n, Xt, n, G.data, d);
    mirrorLowerTriangle(G.data, d);
    return G;
  } finally {
    arena.release(mark);
  }
}
