/**
 * Compressed sparse row (CSR) matrices for the adaptive-neighbour graph S and its
 * Laplacian L. S has at most m non-zeros per row (2m after symmetrising, m = 15),
 * so every operation here is O(non-zeros) and no n x n array is ever formed
 * (except `toDense`, which is for tests and small examples).
 *
 * Invariants: rowPtr has rows + 1 entries, rowPtr[0] = 0, non-decreasing;
 * column indices are strictly increasing within each row (no duplicates);
 * values are finite unless the caller put something else in.
 */
import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { csrTimesDenseWasm } from "./kernels/sparseWasm.js";
import { wasmArena } from "./kernels/wasm/backend.js";

/**
 * Products with at least this many multiply-adds (nnz x columns) run in the wasm
 * kernel: below it the copies in and out cost more than the kernel saves.
 */
const WASM_PRODUCT_MIN = 1 << 15;

/** Per-row entries: column indices and the values stored there (any order, duplicates summed). */
export interface SparseRowEntries {
  readonly indices: ArrayLike<number>;
  readonly values: ArrayLike<number>;
}

function checkShape(owner: string, rows: number, cols: number): void {
  if (!Number.isInteger(rows) || rows < 0) {
    throw new ValidationError(
      "rows",
      `The 'rows' parameter of ${owner} must be an integer in [0, inf). Got ${rows} instead.`,
    );
  }
  if (!Number.isInteger(cols) || cols < 0) {
    throw new ValidationError(
      "cols",
      `The 'cols' parameter of ${owner} must be an integer in [0, inf). Got ${cols} instead.`,
    );
  }
}

/**
 * Sorts (col, value) pairs of one row by column and sums duplicates, writing into
 * outIdx/outVal from `at`; returns the new end. Rows are short (tens of entries),
 * so an insertion sort on a small scratch copy is the fastest choice.
 */
function sortRowInto(
  idx: Int32Array,
  val: Float64Array,
  len: number,
  outIdx: Int32Array,
  outVal: Float64Array,
  at: number,
): number {
  for (let a = 1; a < len; a++) insertSorted(idx, val, a, idx[a], val[a]);
  let out = at;
  for (let a = 0; a < len; a++) {
    if (out > at && outIdx[out - 1] === idx[a]) {
      outVal[out - 1] += val[a];
    } else {
      outIdx[out] = idx[a];
      outVal[out] = val[a];
      out++;
    }
  }
  return out;
}

/**
 * One step of an insertion sort: (ci, cv) goes into the first `len` entries of idx and
 * val, sorted by idx, after the entries with the same index; they stay sorted.
 */
export function insertSorted(
  idx: Int32Array,
  val: Float64Array,
  len: number,
  ci: number,
  cv: number,
): void {
  let b = len - 1;
  while (b >= 0 && idx[b] > ci) {
    idx[b + 1] = idx[b];
    val[b + 1] = val[b];
    b--;
  }
  idx[b + 1] = ci;
  val[b + 1] = cv;
}

export class CsrMatrix {
  readonly rows: number;
  readonly cols: number;
  /** Row i occupies colIdx/values[rowPtr[i] .. rowPtr[i + 1]). */
  readonly rowPtr: Int32Array;
  /** Column of each stored entry, strictly increasing within a row. */
  readonly colIdx: Int32Array;
  readonly values: Float64Array;

  /**
   * Wraps existing CSR arrays (no copy). The structure is checked (O(nnz)) so that a
   * malformed matrix fails here and not as a wrong answer later.
   */
  constructor(
    rows: number,
    cols: number,
    rowPtr: Int32Array,
    colIdx: Int32Array,
    values: Float64Array,
  ) {
    checkShape("CsrMatrix", rows, cols);
    if (rowPtr.length !== rows + 1 || rowPtr[0] !== 0) {
      throw new ValidationError(
        "rowPtr",
        `The 'rowPtr' parameter of CsrMatrix must have rows + 1 = ${rows + 1} entries starting at 0. Got ${rowPtr.length} entries starting at ${rowPtr[0]} instead.`,
      );
    }
    const nnz = rowPtr[rows];
    if (colIdx.length !== nnz || values.length !== nnz) {
      throw new ValidationError(
        "colIdx",
        `The 'colIdx' and 'values' parameters of CsrMatrix must both have rowPtr[rows] = ${nnz} entries. Got ${colIdx.length} and ${values.length} instead.`,
      );
    }
    for (let i = 0; i < rows; i++) {
      const s = rowPtr[i];
      const e = rowPtr[i + 1];
      if (e < s) {
        throw new ValidationError(
          "rowPtr",
          `The 'rowPtr' parameter of CsrMatrix must be non-decreasing. Got rowPtr[${i}] = ${s} > rowPtr[${i + 1}] = ${e} instead.`,
        );
      }
      let prev = -1;
      for (let p = s; p < e; p++) {
        const j = colIdx[p];
        if (j <= prev || j >= cols) {
          throw new ValidationError(
            "colIdx",
            `The 'colIdx' parameter of CsrMatrix must hold strictly increasing column indices in [0, ${cols - 1}] within each row. Got ${j} after ${prev} in row ${i} instead.`,
          );
        }
        prev = j;
      }
    }
    this.rows = rows;
    this.cols = cols;
    this.rowPtr = rowPtr;
    this.colIdx = colIdx;
    this.values = values;
  }

  /** Number of stored entries. */
  get nnz(): number {
    return this.rowPtr[this.rows];
  }

  /** The rows x cols matrix with no stored entries. */
  static zeros(rows: number, cols: number): CsrMatrix {
    checkShape("CsrMatrix.zeros", rows, cols);
    return new CsrMatrix(
      rows,
      cols,
      new Int32Array(rows + 1),
      new Int32Array(0),
      new Float64Array(0),
    );
  }

  /** The n x n identity. */
  static identity(n: number): CsrMatrix {
    checkShape("CsrMatrix.identity", n, n);
    const rowPtr = new Int32Array(n + 1);
    const colIdx = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      rowPtr[i + 1] = i + 1;
      colIdx[i] = i;
    }
    return new CsrMatrix(n, n, rowPtr, colIdx, new Float64Array(n).fill(1));
  }

  /**
   * From per-row entries (`entries[i]` is row i). Columns may come in any order;
   * duplicates within a row are summed. Stored zeros are kept (structure is what
   * the caller gave).
   */
  static fromRows(rows: number, cols: number, entries: ArrayLike<SparseRowEntries>): CsrMatrix {
    checkShape("CsrMatrix.fromRows", rows, cols);
    if (entries.length !== rows) {
      throw new ValidationError(
        "entries",
        `The 'entries' parameter of CsrMatrix.fromRows must have one item per row (${rows}). Got ${entries.length} instead.`,
      );
    }
    let total = 0;
    let longest = 0;
    for (let i = 0; i < rows; i++) {
      const e = entries[i];
      if (e.indices.length !== e.values.length) {
        throw new ValidationError(
          "entries",
          `The 'entries' parameter of CsrMatrix.fromRows must give as many values as indices in each row. Got ${e.indices.length} indices and ${e.values.length} values in row ${i} instead.`,
        );
      }
      total += e.indices.length;
      longest = Math.max(longest, e.indices.length);
    }
    const rowPtr = new Int32Array(rows + 1);
    const colIdx = new Int32Array(total);
    const values = new Float64Array(total);
    const scratchIdx = new Int32Array(longest);
    const scratchVal = new Float64Array(longest);
    let at = 0;
    for (let i = 0; i < rows; i++) {
      const { indices, values: vals } = entries[i];
      for (let p = 0; p < indices.length; p++) {
        const j = indices[p];
        if (!Number.isInteger(j) || j < 0 || j >= cols) {
          throw new ValidationError(
            "entries",
            `The 'entries' parameter of CsrMatrix.fromRows must hold column indices in [0, ${cols - 1}]. Got ${j} in row ${i} instead.`,
          );
        }
        scratchIdx[p] = j;
        scratchVal[p] = vals[p];
      }
      at = sortRowInto(scratchIdx, scratchVal, indices.length, colIdx, values, at);
      rowPtr[i + 1] = at;
    }
    return new CsrMatrix(rows, cols, rowPtr, colIdx.slice(0, at), values.slice(0, at));
  }

  /** From (row, col, value) triplets in any order; duplicates are summed. */
  static fromTriplets(
    rows: number,
    cols: number,
    rowIndex: ArrayLike<number>,
    colIndex: ArrayLike<number>,
    value: ArrayLike<number>,
  ): CsrMatrix {
    checkShape("CsrMatrix.fromTriplets", rows, cols);
    const count = rowIndex.length;
    if (colIndex.length !== count || value.length !== count) {
      throw new ValidationError(
        "colIndex",
        `The triplet arrays of CsrMatrix.fromTriplets must have equal lengths. Got ${count} rows, ${colIndex.length} columns and ${value.length} values instead.`,
      );
    }
    const rowCount = new Int32Array(rows + 1);
    for (let t = 0; t < count; t++) {
      const i = rowIndex[t];
      const j = colIndex[t];
      if (!Number.isInteger(i) || i < 0 || i >= rows) {
        throw new ValidationError(
          "rowIndex",
          `The 'rowIndex' parameter of CsrMatrix.fromTriplets must hold integers in [0, ${rows - 1}]. Got ${i} at position ${t} instead.`,
        );
      }
      if (!Number.isInteger(j) || j < 0 || j >= cols) {
        throw new ValidationError(
          "colIndex",
          `The 'colIndex' parameter of CsrMatrix.fromTriplets must hold integers in [0, ${cols - 1}]. Got ${j} at position ${t} instead.`,
        );
      }
      rowCount[i + 1]++;
    }
    for (let i = 0; i < rows; i++) rowCount[i + 1] += rowCount[i];
    // Counting sort by row keeps it O(count + rows); columns are sorted per row below.
    const fill = rowCount.slice(0, rows);
    const bucketIdx = new Int32Array(count);
    const bucketVal = new Float64Array(count);
    for (let t = 0; t < count; t++) {
      const pos = fill[rowIndex[t]]++;
      bucketIdx[pos] = colIndex[t];
      bucketVal[pos] = value[t];
    }
    const rowPtr = new Int32Array(rows + 1);
    const colIdx = new Int32Array(count);
    const values = new Float64Array(count);
    let at = 0;
    for (let i = 0; i < rows; i++) {
      const s = rowCount[i];
      const len = rowCount[i + 1] - s;
      at = sortRowInto(
        bucketIdx.subarray(s, s + len),
        bucketVal.subarray(s, s + len),
        len,
        colIdx,
        values,
        at,
      );
      rowPtr[i + 1] = at;
    }
    return new CsrMatrix(rows, cols, rowPtr, colIdx.slice(0, at), values.slice(0, at));
  }

  /** The entries of a dense matrix that are not exactly zero. */
  static fromDense(A: Matrix): CsrMatrix {
    const { rows, cols, data } = A;
    let nnz = 0;
    for (let t = 0; t < data.length; t++) if (data[t] !== 0) nnz++;
    const rowPtr = new Int32Array(rows + 1);
    const colIdx = new Int32Array(nnz);
    const values = new Float64Array(nnz);
    let at = 0;
    for (let i = 0; i < rows; i++) {
      const off = i * cols;
      for (let j = 0; j < cols; j++) {
        const v = data[off + j];
        if (v !== 0) {
          colIdx[at] = j;
          values[at] = v;
          at++;
        }
      }
      rowPtr[i + 1] = at;
    }
    return new CsrMatrix(rows, cols, rowPtr, colIdx, values);
  }

  /** Entry (i, j), 0 when not stored (binary search within the row). */
  get(i: number, j: number): number {
    let lo = this.rowPtr[i];
    let hi = this.rowPtr[i + 1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const c = this.colIdx[mid];
      if (c === j) return this.values[mid];
      if (c < j) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /** Number of stored entries in row i. */
  rowLength(i: number): number {
    return this.rowPtr[i + 1] - this.rowPtr[i];
  }

  /** A dense copy (tests and small examples only: n x n memory). */
  toDense(): Matrix {
    const out = new Matrix(this.rows, this.cols);
    for (let i = 0; i < this.rows; i++) {
      const off = i * this.cols;
      for (let p = this.rowPtr[i]; p < this.rowPtr[i + 1]; p++) {
        out.data[off + this.colIdx[p]] = this.values[p];
      }
    }
    return out;
  }

  /** A deep copy. */
  clone(): CsrMatrix {
    return new CsrMatrix(
      this.rows,
      this.cols,
      this.rowPtr.slice(),
      this.colIdx.slice(),
      this.values.slice(),
    );
  }

  /** alpha A: new values, sharing rowPtr and colIdx with A (structure is never mutated). */
  scale(alpha: number): CsrMatrix {
    const values = new Float64Array(this.values.length);
    for (let p = 0; p < values.length; p++) values[p] = alpha * this.values[p];
    return new CsrMatrix(this.rows, this.cols, this.rowPtr, this.colIdx, values);
  }

  /** y = A x. */
  multiplyVector(x: Float64Array, out?: Float64Array): Float64Array {
    if (x.length !== this.cols) {
      throw new ValidationError(
        "x",
        `The 'x' parameter of CsrMatrix.multiplyVector must have length ${this.cols} (the column count). Got ${x.length} instead.`,
      );
    }
    const y = out ?? new Float64Array(this.rows);
    if (y.length !== this.rows) {
      throw new ValidationError(
        "out",
        `The 'out' parameter of CsrMatrix.multiplyVector must have length ${this.rows}. Got ${y.length} instead.`,
      );
    }
    const { rowPtr, colIdx, values } = this;
    for (let i = 0; i < this.rows; i++) {
      let s = 0;
      for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) s += values[p] * x[colIdx[p]];
      y[i] = s;
    }
    return y;
  }

  /**
   * C = A B for a dense row-major B (cols x b). Row i of C is a combination of rows
   * of B, each contiguous in memory, so the inner loop streams b doubles; four
   * non-zeros are applied per pass over C's row (measured ~1.5-2x faster than one
   * per pass at b = 10-100), with the source offsets shifted by C's row offset so
   * that one index serves all five arrays. This is the kernel LOBPCG calls on
   * blocks of 10-100 columns.
   */
  multiplyMatrix(B: Matrix, out?: Matrix): Matrix {
    if (B.rows !== this.cols) {
      throw new ValidationError(
        "B",
        `The 'B' parameter of CsrMatrix.multiplyMatrix must have ${this.cols} rows (the column count of A). Got ${B.rows} instead.`,
      );
    }
    const b = B.cols;
    const C = out ?? new Matrix(this.rows, b);
    if (C.rows !== this.rows || C.cols !== b) {
      throw new ValidationError(
        "out",
        `The 'out' parameter of CsrMatrix.multiplyMatrix must be ${this.rows} x ${b}. Got ${C.rows} x ${C.cols} instead.`,
      );
    }
    if (C.data === B.data) {
      throw new ValidationError(
        "out",
        "The 'out' parameter of CsrMatrix.multiplyMatrix must not share storage with B.",
      );
    }
    const arena = this.nnz * b >= WASM_PRODUCT_MIN ? wasmArena() : null;
    if (arena !== null && !arena.holds(B.data) && !arena.holds(C.data)) {
      if (csrTimesDenseWasm(arena, this, B, C)) return C;
    }
    const { rowPtr, colIdx, values } = this;
    const bd = B.data;
    const cd = C.data;
    for (let i = 0; i < this.rows; i++) {
      const co = i * b;
      const ce = co + b;
      cd.fill(0, co, ce);
      const e = rowPtr[i + 1];
      let p = rowPtr[i];
      for (; p + 3 < e; p += 4) {
        const v0 = values[p];
        const v1 = values[p + 1];
        const v2 = values[p + 2];
        const v3 = values[p + 3];
        const o0 = colIdx[p] * b - co;
        const o1 = colIdx[p + 1] * b - co;
        const o2 = colIdx[p + 2] * b - co;
        const o3 = colIdx[p + 3] * b - co;
        for (let t = co; t < ce; t++) {
          cd[t] += v0 * bd[o0 + t] + v1 * bd[o1 + t] + v2 * bd[o2 + t] + v3 * bd[o3 + t];
        }
      }
      for (; p < e; p++) {
        const v0 = values[p];
        const o0 = colIdx[p] * b - co;
        for (let t = co; t < ce; t++) cd[t] += v0 * bd[o0 + t];
      }
    }
    return C;
  }

  /** A^T, with sorted rows (a counting sort by column: O(nnz + cols)). */
  transpose(): CsrMatrix {
    const { rows, cols, rowPtr, colIdx, values } = this;
    const nnz = this.nnz;
    const tPtr = new Int32Array(cols + 1);
    for (let p = 0; p < nnz; p++) tPtr[colIdx[p] + 1]++;
    for (let j = 0; j < cols; j++) tPtr[j + 1] += tPtr[j];
    const fill = tPtr.slice(0, cols);
    const tIdx = new Int32Array(nnz);
    const tVal = new Float64Array(nnz);
    // Rows are visited in increasing order, so each transposed row comes out sorted.
    for (let i = 0; i < rows; i++) {
      for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) {
        const q = fill[colIdx[p]]++;
        tIdx[q] = i;
        tVal[q] = values[p];
      }
    }
    return new CsrMatrix(cols, rows, tPtr, tIdx, tVal);
  }

  /** A 1 (the sum of each row). */
  rowSums(): Float64Array {
    const out = new Float64Array(this.rows);
    for (let i = 0; i < this.rows; i++) {
      let s = 0;
      for (let p = this.rowPtr[i]; p < this.rowPtr[i + 1]; p++) s += this.values[p];
      out[i] = s;
    }
    return out;
  }

  /** The diagonal (zeros where not stored). */
  diagonal(): Float64Array {
    const n = Math.min(this.rows, this.cols);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = this.get(i, i);
    return out;
  }

  /**
   * (A + A^T) / 2 for a square A. Entry (i, j) is 0.5 * (a_ij + a_ji) and entry (j, i)
   * is 0.5 * (a_ji + a_ij): floating-point addition commutes, so the result is
   * exactly symmetric.
   */
  symmetricPart(): CsrMatrix {
    this.requireSquare("symmetricPart");
    const T = this.transpose();
    return addScaled(this, T, 0.5, 0.5);
  }

  /** True when the stored structure and values equal those of the transpose exactly. */
  isSymmetric(): boolean {
    if (this.rows !== this.cols) return false;
    const T = this.transpose();
    if (T.nnz !== this.nnz) return false;
    for (let p = 0; p <= this.rows; p++) if (T.rowPtr[p] !== this.rowPtr[p]) return false;
    for (let p = 0; p < this.nnz; p++) {
      if (T.colIdx[p] !== this.colIdx[p] || T.values[p] !== this.values[p]) return false;
    }
    return true;
  }

  /**
   * The principal submatrix A[indices, indices] (indices strictly increasing), with
   * local numbering: local k is global indices[k]. Cost O(nnz of the chosen rows).
   */
  principalSubmatrix(indices: Int32Array): CsrMatrix {
    this.requireSquare("principalSubmatrix");
    const n = this.rows;
    const local = new Int32Array(n).fill(-1);
    for (let k = 0; k < indices.length; k++) {
      const g = indices[k];
      if (g < 0 || g >= n || (k > 0 && g <= indices[k - 1])) {
        throw new ValidationError(
          "indices",
          `The 'indices' parameter of CsrMatrix.principalSubmatrix must be strictly increasing integers in [0, ${n - 1}]. Got ${g} at position ${k} instead.`,
        );
      }
      local[g] = k;
    }
    const size = indices.length;
    const rowPtr = new Int32Array(size + 1);
    let nnz = 0;
    for (let k = 0; k < size; k++) {
      const g = indices[k];
      for (let p = this.rowPtr[g]; p < this.rowPtr[g + 1]; p++) {
        if (local[this.colIdx[p]] >= 0) nnz++;
      }
      rowPtr[k + 1] = nnz;
    }
    const colIdx = new Int32Array(nnz);
    const values = new Float64Array(nnz);
    let at = 0;
    for (let k = 0; k < size; k++) {
      const g = indices[k];
      // indices ascending => local numbering preserves column order within the row.
      for (let p = this.rowPtr[g]; p < this.rowPtr[g + 1]; p++) {
        const l = local[this.colIdx[p]];
        if (l >= 0) {
          colIdx[at] = l;
          values[at] = this.values[p];
          at++;
        }
      }
    }
    return new CsrMatrix(size, size, rowPtr, colIdx, values);
  }

  /** Tr(F^T A F) = sum_ij a_ij f_i . f_j for a dense F (cols x c), without forming A F. */
  quadraticTrace(F: Matrix): number {
    this.requireSquare("quadraticTrace");
    if (F.rows !== this.rows) {
      throw new ValidationError(
        "F",
        `The 'F' parameter of CsrMatrix.quadraticTrace must have ${this.rows} rows. Got ${F.rows} instead.`,
      );
    }
    const c = F.cols;
    const f = F.data;
    let total = 0;
    for (let i = 0; i < this.rows; i++) {
      const fi = i * c;
      for (let p = this.rowPtr[i]; p < this.rowPtr[i + 1]; p++) {
        const fj = this.colIdx[p] * c;
        let s = 0;
        for (let t = 0; t < c; t++) s += f[fi + t] * f[fj + t];
        total += this.values[p] * s;
      }
    }
    return total;
  }

  private requireSquare(what: string): void {
    if (this.rows !== this.cols) {
      throw new ValidationError(
        "A",
        `CsrMatrix.${what} needs a square matrix. Got ${this.rows} x ${this.cols} instead.`,
      );
    }
  }
}

/** alpha A + beta B for two matrices of the same shape (sorted-row merge, O(nnz)). */
export function addScaled(A: CsrMatrix, B: CsrMatrix, alpha: number, beta: number): CsrMatrix {
  if (A.rows !== B.rows || A.cols !== B.cols) {
    throw new ValidationError(
      "B",
      `The 'B' parameter of addScaled must have the shape of A (${A.rows} x ${A.cols}). Got ${B.rows} x ${B.cols} instead.`,
    );
  }
  const rows = A.rows;
  const cap = A.nnz + B.nnz;
  const rowPtr = new Int32Array(rows + 1);
  const colIdx = new Int32Array(cap);
  const values = new Float64Array(cap);
  let at = 0;
  for (let i = 0; i < rows; i++) {
    let p = A.rowPtr[i];
    const pe = A.rowPtr[i + 1];
    let q = B.rowPtr[i];
    const qe = B.rowPtr[i + 1];
    while (p < pe || q < qe) {
      const ja = p < pe ? A.colIdx[p] : 0x7fffffff;
      const jb = q < qe ? B.colIdx[q] : 0x7fffffff;
      if (ja === jb) {
        colIdx[at] = ja;
        values[at] = alpha * A.values[p] + beta * B.values[q];
        p++;
        q++;
      } else if (ja < jb) {
        colIdx[at] = ja;
        values[at] = alpha * A.values[p];
        p++;
      } else {
        colIdx[at] = jb;
        values[at] = beta * B.values[q];
        q++;
      }
      at++;
    }
    rowPtr[i + 1] = at;
  }
  return new CsrMatrix(rows, A.cols, rowPtr, colIdx.slice(0, at), values.slice(0, at));
}
