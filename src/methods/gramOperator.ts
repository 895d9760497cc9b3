/**
 * G V = U S^2 U^T V, the Gram matrix G = X X^T of a large training set applied to a
 * block through its thin SVD X = U S V^T, with U and U^T resident in WebAssembly
 * memory for the whole fit.
 *
 * The matrix-free eigen-solver of the SDSPCA family (methods/zSolvers.ts) applies G
 * twice per LOBPCG step, each time as two thin products with the n x r factor U. With
 * ordinary arrays every one of them copies U (or U^T) into the module's memory first:
 * at n = 60,000 and r = 784 that is 376 MB per product, about as long as the product
 * itself for a block of 10-20 vectors. Here each factor is copied once into a private
 * instance of the kernels (backend.ts, `privateArena`), so that only the block and the
 * result move.
 *
 * Same bits: each product runs the same kernel on the same operands with the same
 * shapes and leading dimensions as `multiply` would (the operands are only copied
 * elsewhere), and falls back to `multiply` itself wherever `multiply` would not have
 * used the wasm kernel (tiny or skinny shapes, the TS backend, operands beyond the
 * arena's limit). The same holds for the edge sum of Tr(G L G) (`edgeTrace`, the
 * operations of graph/laplacian.ts's symmetricLaplacianTrace). Both are tested with
 * Object.is against the code they replace.
 */
import { symmetricLaplacianTrace } from "../graph/laplacian.js";
import { multiply, wasmWorthIt } from "../linalg/kernels/gemm.js";
import {
  ARENA_LIMIT,
  privateArena,
  type WasmArena,
  wasmArena,
} from "../linalg/kernels/wasm/backend.js";
import { Matrix } from "../linalg/matrix.js";
import type { CsrMatrix } from "../linalg/sparse.js";

/** A matrix copied once into a private arena: rows x cols, compact, at byte offset ptr. */
interface Resident {
  readonly arena: WasmArena;
  readonly ptr: number;
  readonly rows: number;
  readonly cols: number;
  /** The arena's mark just above the matrix: per-product scratch is released to it. */
  readonly top: number;
}

function makeResident(A: Matrix): Resident | null {
  // Room for the matrix and the block products that follow it must exist; beyond the
  // shared arena's limit `multiply` runs the TS kernel, and so does this class.
  const arena = privateArena();
  if (arena === null) return null;
  const ptrs = arena.allocAll([A.rows * A.cols]);
  if (ptrs === null) return null;
  arena.f64.set(A.data, ptrs[0] >> 3);
  return { arena, ptr: ptrs[0], rows: A.rows, cols: A.cols, top: arena.mark() };
}

export class GramOperator {
  /** The n x r factor U. */
  readonly U: Matrix;
  /** U^T (r x n). */
  readonly Ut: Matrix;
  /** The squared singular values (the diagonal of S^2). */
  readonly s2: Float64Array;
  private readonly left: Resident | null;
  private readonly right: Resident | null;

  /**
   * `resident` false keeps U in ordinary arrays only (the products then copy it in
   * each time, as `multiply` does): for small n, where the copies are cheap and a
   * private instance's memory is not worth holding.
   */
  constructor(U: Matrix, Ut: Matrix, s2: Float64Array, resident = true) {
    if (Ut.rows !== U.cols || Ut.cols !== U.rows || s2.length !== U.cols) {
      throw new RangeError(
        `GramOperator: U is ${U.rows} x ${U.cols}, U^T ${Ut.rows} x ${Ut.cols} and S^2 has ${s2.length} entries.`,
      );
    }
    this.U = U;
    this.Ut = Ut;
    this.s2 = s2;
    const use = resident && wasmArena() !== null;
    this.left = use ? makeResident(U) : null;
    this.right = use && this.left !== null ? makeResident(Ut) : null;
  }

  /** Whether U and U^T live in WebAssembly memory (else every product copies them). */
  get resident(): boolean {
    return this.left !== null && this.right !== null;
  }

  /** G V = U (S^2 (U^T V)). */
  apply(V: Matrix): Matrix {
    const T = this.product(this.right, this.Ut, V);
    const b = T.cols;
    for (let j = 0; j < T.rows; j++) {
      for (let t = 0; t < b; t++) T.data[j * b + t] *= this.s2[j];
    }
    return this.product(this.left, this.U, T);
  }

  /**
   * Tr(G L G) = Tr(H^T L H) with H = U S^2, summed over the edges of the symmetrised
   * graph S (each edge once): symmetricLaplacianTrace(S, U, s2), bit for bit.
   */
  edgeTrace(S: CsrMatrix): number {
    const res = this.left;
    if (res === null || S.rows !== res.rows || S.cols !== res.rows) {
      return symmetricLaplacianTrace(S, this.U, this.s2);
    }
    const { arena } = res;
    const n = S.rows;
    const nnz = S.rowPtr[n];
    const r = res.cols;
    const ptrs = arena.allocAll([Math.ceil((n + 1) / 2), Math.ceil(nnz / 2), nnz, r]);
    if (ptrs === null) return symmetricLaplacianTrace(S, this.U, this.s2);
    try {
      const [pPtr, pIdx, pVal, pW] = ptrs;
      new Int32Array(arena.buffer, pPtr, n + 1).set(S.rowPtr.subarray(0, n + 1));
      new Int32Array(arena.buffer, pIdx, nnz).set(S.colIdx.subarray(0, nnz));
      const f = arena.f64;
      f.set(S.values.subarray(0, nnz), pVal >> 3);
      f.set(this.s2, pW >> 3);
      return arena.kernels.edgeTrace(pPtr, pIdx, pVal, n, res.ptr, r, pW);
    } finally {
      arena.release(res.top);
    }
  }

  /**
   * A B for A = the resident matrix (also given as `A`): the wasm kernel on the
   * resident copy exactly where multiply(A, B) would run that kernel, else multiply.
   */
  private product(res: Resident | null, A: Matrix, B: Matrix): Matrix {
    const m = A.rows;
    const p = A.cols;
    const n = B.cols;
    if (B.rows !== p) {
      throw new RangeError(`GramOperator: the block has ${B.rows} rows, not ${p}.`);
    }
    // multiply's own dispatch: its small-product loop, then gemmABtRaw's choice of the
    // wasm kernel for copied operands, and the shared arena's size limit.
    const small = m <= 4 || (n <= 2 && p <= 8);
    const fits = (m * p + n * p + m * n) * 8 + 64 <= ARENA_LIMIT;
    if (res === null || small || !wasmWorthIt(m, n, p) || !fits || wasmArena() === null) {
      return multiply(A, B);
    }
    const { arena } = res;
    const ptrs = arena.allocAll([n * p, m * n]);
    if (ptrs === null) return multiply(A, B);
    try {
      const [pb, pc] = ptrs;
      const f = arena.f64;
      // B^T, compact (n x p), as multiply's B.transpose() copied in.
      const b = B.data;
      const ob = pb >> 3;
      for (let l = 0; l < p; l++) {
        const row = l * n;
        for (let j = 0; j < n; j++) f[ob + j * p + l] = b[row + j];
      }
      const oc = pc >> 3;
      f.fill(0, oc, oc + m * n);
      arena.kernels.gemm(m, n, p, res.ptr, p, pb, p, pc, n);
      const C = new Matrix(m, n);
      C.data.set(f.subarray(oc, oc + m * n));
      return C;
    } finally {
      arena.release(res.top);
    }
  }
}
