/**
 * The sparse-times-dense products of CSR matrices (linalg/sparse.ts) in the
 * WebAssembly module: the same operations in the same order as the TypeScript loops,
 * so the same bits.
 */
import type { Matrix } from "../../core/matrix.js";
import type { WasmArena } from "./wasm/backend.js";

/** The CSR arrays of a sparse matrix (CsrMatrix has them). */
export interface SparseRows {
  readonly rows: number;
  readonly nnz: number;
  readonly rowPtr: Int32Array;
  readonly colIdx: Int32Array;
  readonly values: Float64Array;
}

/**
 * C = A B in the wasm kernel (the same operations as the loop of multiplyMatrix, so
 * the same bits); false, with nothing done, when the arena cannot hold the operands.
 * Rows of B and C are padded to an even width so that the kernel needs no scalar tail.
 */
export function csrTimesDenseWasm(arena: WasmArena, A: SparseRows, B: Matrix, C: Matrix): boolean {
  const rows = A.rows;
  const nnz = A.nnz;
  const b = B.cols;
  const ld = b + (b & 1);
  const mark = arena.mark();
  try {
    const ptrs = arena.allocAll([
      Math.ceil((rows + 1) / 2),
      Math.ceil(nnz / 2),
      nnz,
      B.rows * ld,
      rows * ld,
    ]);
    if (ptrs === null) return false;
    const [pPtr, pIdx, pVal, pB, pC] = ptrs;
    const buffer = arena.buffer;
    new Int32Array(buffer, pPtr, rows + 1).set(A.rowPtr.subarray(0, rows + 1));
    new Int32Array(buffer, pIdx, nnz).set(A.colIdx.subarray(0, nnz));
    const f = arena.f64;
    f.set(A.values.subarray(0, nnz), pVal >> 3);
    const bOff = pB >> 3;
    const cOff = pC >> 3;
    if (ld === b) f.set(B.data, bOff);
    else {
      for (let j = 0; j < B.rows; j++) {
        f.set(B.data.subarray(j * b, j * b + b), bOff + j * ld);
        f[bOff + j * ld + b] = 0;
      }
    }
    f.fill(0, cOff, cOff + rows * ld);
    arena.kernels.csrmm(pPtr, pIdx, pVal, rows, pB, ld * 8, pC);
    if (ld === b) C.data.set(f.subarray(cOff, cOff + rows * b));
    else {
      for (let i = 0; i < rows; i++) {
        C.data.set(f.subarray(cOff + i * ld, cOff + i * ld + b), i * b);
      }
    }
    return true;
  } finally {
    arena.release(mark);
  }
}

/**
 * (A B_w)^T for sparse rows A (CSR: `count` rows, row pointers from 0) and w columns
 * B_w of a dense matrix already in the arena (first element at byte offset `b`, rows
 * `ldbBytes` apart, w even): the kernel csrmmCols, then the module's transpose. Returns
 * the w x count result as a view of the arena's memory, valid until the caller releases
 * the arena to a mark taken before this call (the operands are allocated above it), or
 * null when the arena has no room. Each entry is summed as multiplyMatrix sums it, so
 * blocks of columns computed apart (on other threads) give the whole product's bits.
 */
export function csrColumnsTransposedWasm(
  arena: WasmArena,
  rowPtr: Int32Array,
  colIdx: Int32Array,
  values: Float64Array,
  count: number,
  b: number,
  ldbBytes: number,
  w: number,
): Float64Array | null {
  const nnz = rowPtr[count];
  const ptrs = arena.allocAll([
    Math.ceil((count + 1) / 2),
    Math.ceil(nnz / 2),
    nnz,
    count * w,
    count * w,
  ]);
  if (ptrs === null) return null;
  const [pPtr, pIdx, pVal, pC, pT] = ptrs;
  new Int32Array(arena.buffer, pPtr, count + 1).set(rowPtr.subarray(0, count + 1));
  new Int32Array(arena.buffer, pIdx, nnz).set(colIdx.subarray(0, nnz));
  const f = arena.f64;
  f.set(values.subarray(0, nnz), pVal >> 3);
  f.fill(0, pC >> 3, (pC >> 3) + count * w);
  arena.kernels.csrmmCols(pPtr, pIdx, pVal, count, b, ldbBytes, w * 8, pC, w * 8);
  arena.kernels.transpose(pC, count, w, pT);
  return f.subarray(pT >> 3, (pT >> 3) + w * count);
}
