/**
 * Entry (i, j) as given, which must be a number: storing it in a Float64Array would
 * turn null, "", "0x10", true or [1] into a number without a word.
 */
function entry(v: unknown, i: number, j: number): number {
  if (typeof v !== "number") {
    const shown =
      typeof v === "string" ? JSON.stringify(v) : Array.isArray(v) ? "an array" : String(v);
    throw new RangeError(`Entry (${i}, ${j}) is ${shown}, not a number.`);
  }
  return v;
}

/**
 * A dense row-major matrix of float64 values: entry (i, j) is data[i * cols + j].
 * Deliberately small: the kernels and solvers of linalg/ work on the raw Float64Array,
 * and this type only carries the shape beside it.
 */
export class Matrix {
  /** Number of rows. */
  readonly rows: number;
  /** Number of columns. */
  readonly cols: number;
  /** The entries, row-major: entry (i, j) is data[i * cols + j]. */
  readonly data: Float64Array;

  /** Wraps `data` (no copy) or allocates zeros. */
  constructor(rows: number, cols: number, data?: Float64Array) {
    if (!Number.isInteger(rows) || rows < 0 || !Number.isInteger(cols) || cols < 0) {
      throw new RangeError(`Matrix shape must be non-negative integers. Got ${rows} x ${cols}.`);
    }
    if (data !== undefined && data.length !== rows * cols) {
      throw new RangeError(
        `Matrix data has ${data.length} entries, but a ${rows} x ${cols} matrix needs ${rows * cols}.`,
      );
    }
    this.rows = rows;
    this.cols = cols;
    this.data = data ?? new Float64Array(rows * cols);
  }

  /** A rows x cols matrix of zeros. */
  static zeros(rows: number, cols: number): Matrix {
    return new Matrix(rows, cols);
  }

  /** The n x cols matrix with ones on the diagonal and zeros elsewhere. */
  static identity(n: number, cols = n): Matrix {
    const m = new Matrix(n, cols);
    const r = Math.min(n, cols);
    for (let i = 0; i < r; i++) m.data[i * cols + i] = 1;
    return m;
  }

  /** From an array of rows; every row must have the same length. */
  static fromRows(rows: ArrayLike<ArrayLike<number>>): Matrix {
    const n = rows.length;
    const d = n === 0 ? 0 : rows[0].length;
    const m = new Matrix(n, d);
    for (let i = 0; i < n; i++) {
      const r = rows[i];
      if (r.length !== d) {
        throw new RangeError(`Row ${i} has ${r.length} entries, but row 0 has ${d}.`);
      }
      const off = i * d;
      for (let j = 0; j < d; j++) m.data[off + j] = entry(r[j], i, j);
    }
    return m;
  }

  /** From column-major data (as MATLAB and Fortran store it). */
  static fromColumnMajor(rows: number, cols: number, data: ArrayLike<number>): Matrix {
    if (data.length !== rows * cols) {
      throw new RangeError(`Expected ${rows * cols} entries, got ${data.length}.`);
    }
    const m = new Matrix(rows, cols);
    for (let j = 0; j < cols; j++) {
      const off = j * rows;
      for (let i = 0; i < rows; i++) m.data[i * cols + j] = entry(data[off + i], i, j);
    }
    return m;
  }

  /** Entry (i, j), unchecked. */
  get(i: number, j: number): number {
    return this.data[i * this.cols + j];
  }

  /** Sets entry (i, j), unchecked. */
  set(i: number, j: number, value: number): void {
    this.data[i * this.cols + j] = value;
  }

  /** Row i as a view sharing storage with the matrix. */
  row(i: number): Float64Array {
    return this.data.subarray(i * this.cols, (i + 1) * this.cols);
  }

  /** Column j as a new array. */
  column(j: number): Float64Array {
    const out = new Float64Array(this.rows);
    for (let i = 0; i < this.rows; i++) out[i] = this.data[i * this.cols + j];
    return out;
  }

  /** A copy with its own data. */
  clone(): Matrix {
    return new Matrix(this.rows, this.cols, this.data.slice());
  }

  /** The transpose, as a new matrix. */
  transpose(): Matrix {
    const out = new Matrix(this.cols, this.rows);
    transposeInto(this.data, this.rows, this.cols, out.data);
    return out;
  }

  /** The rows with the given indices, in that order. */
  selectRows(indices: ArrayLike<number>): Matrix {
    const out = new Matrix(indices.length, this.cols);
    for (let r = 0; r < indices.length; r++) {
      const i = indices[r];
      if (!Number.isInteger(i) || i < 0 || i >= this.rows) {
        throw new RangeError(`Row index ${i} is out of range [0, ${this.rows}).`);
      }
      out.data.set(this.data.subarray(i * this.cols, (i + 1) * this.cols), r * this.cols);
    }
    return out;
  }

  /** The columns with the given indices, in that order. */
  selectColumns(indices: ArrayLike<number>): Matrix {
    const k = indices.length;
    for (let c = 0; c < k; c++) {
      const j = indices[c];
      if (!Number.isInteger(j) || j < 0 || j >= this.cols) {
        throw new RangeError(`Column index ${j} is out of range [0, ${this.cols}).`);
      }
    }
    const out = new Matrix(this.rows, k);
    for (let i = 0; i < this.rows; i++) {
      const src = i * this.cols;
      const dst = i * k;
      for (let c = 0; c < k; c++) out.data[dst + c] = this.data[src + indices[c]];
    }
    return out;
  }

  /** The first `k` columns. */
  leadingColumns(k: number): Matrix {
    const idx = new Int32Array(k);
    for (let j = 0; j < k; j++) idx[j] = j;
    return this.selectColumns(idx);
  }

  /** Nested arrays of rows (for JSON and display). */
  toRows(): number[][] {
    const out: number[][] = new Array(this.rows);
    for (let i = 0; i < this.rows; i++) out[i] = Array.from(this.row(i));
    return out;
  }
}

/**
 * out = A^T for A (rows x cols, row-major) in `data`: out[j * rows + i] = A[i][j].
 * Blocked so that both the reads and the writes stay within cache lines.
 */
export function transposeInto(
  data: Float64Array,
  rows: number,
  cols: number,
  out: Float64Array,
): void {
  const B = 32;
  for (let ib = 0; ib < rows; ib += B) {
    const ie = Math.min(ib + B, rows);
    for (let jb = 0; jb < cols; jb += B) {
      const je = Math.min(jb + B, cols);
      for (let i = ib; i < ie; i++) {
        const off = i * cols;
        for (let j = jb; j < je; j++) out[j * rows + i] = data[off + j];
      }
    }
  }
}

/** Anything accepted where a matrix is expected: a Matrix, rows of numbers, or a shaped buffer. */
export type MatrixLike =
  | Matrix
  | ArrayLike<ArrayLike<number>>
  | {
      /** Number of rows. */
      rows: number;
      /** Number of columns. */
      cols: number;
      /** rows * cols entries, row-major. */
      data: ArrayLike<number>;
    };
