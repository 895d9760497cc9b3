/**
 * G V = U S^2 U^T V, the Gram matrix G = X X^T of a large training set applied to a
 * block through its thin SVD X = U S V^T, with U and U^T resident in WebAssembly
 * memory for the whole fit.
 *
 * The matrix-free eigen-solver of the SDSPCA family (methods/zstep/zSolvers.ts) applies G
 * twice per LOBPCG step, each time as two thin products with the n x r factor U. With
 * ordinary arrays every one of them copies U (or U^T) into the module's memory first:
 * at n = 60,000 and r = 784 that is 376 MB per product, about as long as the product
 * itself for a block of 10-20 vectors. Here each factor is copied once into a private
 * instance of the kernels (backend.ts, `privateArena`), so that only the block and the
 * result move.
 *
 * With helper threads (linalg/kernels/helper.ts; in Node `setKernelThreads`) each
 * factor is split by rows into one part per thread at even row numbers, each thread
 * holds its part and computes its rows of every product. The kernel sums each entry
 * the same way whichever rows it is given (its 2 x 4 blocks pair rows 2i and 2i + 1,
 * which even boundaries keep together), so the bits do not depend on the number of
 * threads.
 *
 * Same bits: each product runs the same kernel on the same operands with the same
 * shapes and leading dimensions as `multiply` would (the operands are only copied
 * elsewhere), and falls back to `multiply` itself wherever `multiply` would not have
 * used the wasm kernel (tiny or skinny shapes, the TS backend, operands beyond the
 * arena's limit). The same holds for the edge sum of Tr(G L G) (`edgeTrace`, the
 * operations of graph/laplacian.ts's symmetricLaplacianTrace). Both are tested with
 * Object.is against the code they replace.
 */

import { Matrix } from "../../core/matrix.js";
import { edgeTraceOnResident, symmetricLaplacianTrace } from "../../graph/laplacian.js";
import { multiply, transposed, wasmWorthIt } from "../../linalg/kernels/gemm.js";
import { evenRowBounds, type KernelHelper, kernelHelpers } from "../../linalg/kernels/helper.js";
import { LAPLACIAN_CHUNK_ROWS, laplacianChunkPart } from "../../linalg/kernels/laplacianGram.js";
import { csrColumnsTransposedWasm } from "../../linalg/kernels/sparseWasm.js";
import { addLowerBlocks, mirrorLowerTriangle } from "../../linalg/kernels/symmetricProducts.js";
import {
  ARENA_LIMIT,
  privateArena,
  type WasmArena,
  wasmArena,
} from "../../linalg/kernels/wasm/backend.js";
import type { CsrMatrix } from "../../linalg/sparse.js";

/** A matrix copied once into a private arena: rows x cols, compact, at byte offset ptr. */
interface Resident {
  readonly arena: WasmArena;
  readonly ptr: number;
  readonly rows: number;
  readonly cols: number;
  /** The arena's mark just above the matrix: per-product scratch is released to it. */
  readonly top: number;
}

function makeResident(A: Matrix, rows: number): Resident | null {
  const arena = privateArena();
  if (arena === null) return null;
  const ptrs = arena.allocAll([rows * A.cols]);
  if (ptrs === null) return null;
  arena.f64.set(A.data.subarray(0, rows * A.cols), ptrs[0] >> 3);
  return { arena, ptr: ptrs[0], rows, cols: A.cols, top: arena.mark() };
}

/**
 * Runs `kernel` on the arena of the resident matrix `here` (given the arena and the
 * matrix's offset) and hands its result, a view of the arena, to `use` before the
 * kernel's scratch is released. A kernel that finds no room (null) fails this thread's
 * part: "no room for `what`" is thrown.
 */
function onResident<T>(
  here: Resident,
  what: string,
  kernel: (arena: WasmArena, ptr: number) => T | null,
  use: (result: T) => void,
): void {
  try {
    const result = kernel(here.arena, here.ptr);
    if (result === null) throw new RangeError(`GramOperator: no room for ${what}.`);
    use(result);
  } finally {
    here.arena.release(here.top);
  }
}

/**
 * A factor held for products: its first `bounds[1]` rows (or, for U, all of them, which
 * the edge sum needs) here, rows bounds[i + 1] to bounds[i + 2] by helper i.
 */
interface Held {
  readonly here: Resident;
  readonly bounds: readonly number[];
  readonly handles: readonly number[];
}

/**
 * Factors with fewer entries than this stay on one thread: a request to a helper
 * costs tens of microseconds, and the copies of the block grow with the thread count.
 */
export const HELPER_MIN_ENTRIES = 2_000_000;

export class GramOperator {
  /** The n x r factor U. */
  readonly U: Matrix;
  /** U^T (r x n). */
  readonly Ut: Matrix;
  /** The squared singular values (the diagonal of S^2). */
  readonly s2: Float64Array;
  private left: Held | null = null;
  private right: Held | null = null;
  private helpers: readonly KernelHelper[] = [];
  /** All of U held by each helper for laplacianGram (undefined: not tried yet). */
  private whole: readonly number[] | null | undefined = undefined;
  /** U's columns held by the helpers for the sparse product (undefined: not tried yet). */
  private columns: { bounds: readonly number[]; handles: readonly number[] } | null | undefined =
    undefined;

  /**
   * `resident` false keeps U in ordinary arrays only (the products then copy it in
   * each time, as `multiply` does): for small n, where the copies are cheap and a
   * private instance's memory is not worth holding. `helpers` are the other threads
   * (default: those registered, for factors of at least HELPER_MIN_ENTRIES entries).
   */
  constructor(
    U: Matrix,
    Ut: Matrix,
    s2: Float64Array,
    resident = true,
    helpers?: readonly KernelHelper[],
  ) {
    if (Ut.rows !== U.cols || Ut.cols !== U.rows || s2.length !== U.cols) {
      throw new RangeError(
        `GramOperator: U is ${U.rows} x ${U.cols}, U^T ${Ut.rows} x ${Ut.cols} and S^2 has ${s2.length} entries.`,
      );
    }
    this.U = U;
    this.Ut = Ut;
    this.s2 = s2;
    if (!resident || wasmArena() === null) return;
    const threads = helpers ?? (U.rows * U.cols >= HELPER_MIN_ENTRIES ? kernelHelpers() : []);
    try {
      this.helpers = threads;
      this.left = this.hold(U, true);
      this.right = this.left === null ? null : this.hold(Ut, false);
    } catch {
      // A helper could not take its part (its thread stopped, or its memory is full):
      // this thread does all the rows, which gives the same bits.
      this.release();
      this.left = this.hold(U, true);
      this.right = this.left === null ? null : this.hold(Ut, false);
    }
    if (this.right === null) this.release();
  }

  /** Whether U and U^T live in WebAssembly memory (else every product copies them). */
  get resident(): boolean {
    return this.left !== null && this.right !== null;
  }

  /** The number of threads the products run on. */
  get threads(): number {
    return this.resident ? (this.left as Held).bounds.length - 1 : 1;
  }

  /** Frees the resident copies here and on the helpers; products then copy U again. */
  release(): void {
    this.left = null;
    this.right = null;
    this.columns = null;
    this.whole = null;
    const helpers = this.helpers;
    this.helpers = [];
    for (const helper of helpers) helper.release();
  }

  private hold(A: Matrix, whole: boolean): Held | null {
    const bounds = evenRowBounds(A.rows, 1 + this.helpers.length);
    const here = makeResident(A, whole ? A.rows : bounds[1]);
    if (here === null) return null;
    const handles: number[] = [];
    for (let i = 1; i + 1 < bounds.length; i++) {
      const from = bounds[i] * A.cols;
      const rows = bounds[i + 1] - bounds[i];
      handles.push(
        this.helpers[i - 1].hold(A.data.subarray(from, from + rows * A.cols), rows, A.cols),
      );
    }
    return { here, bounds, handles };
  }

  /** U^T V, with multiply(U^T, V)'s bits (resident and split over the threads where it can). */
  timesUt(V: Matrix): Matrix {
    return this.product(this.right, this.Ut, V);
  }

  /** U T, with multiply(U, T)'s bits. */
  timesU(T: Matrix): Matrix {
    return this.product(this.left, this.U, T);
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
    const res = this.left === null ? null : this.left.here;
    // The fallbacks run the loops: copying U into the shared arena would cost more.
    if (res === null || S.rows !== res.rows || S.cols !== res.rows) {
      return symmetricLaplacianTrace(S, this.U, this.s2, false);
    }
    try {
      return (
        edgeTraceOnResident(res.arena, S, res.ptr, res.cols, this.s2) ??
        symmetricLaplacianTrace(S, this.U, this.s2, false)
      );
    } finally {
      res.arena.release(res.top);
    }
  }

  /**
   * (A U)^T (r x A.rows) for sparse rows A (A.rows x n): transposed(A.multiplyMatrix(U))
   * bit for bit, with the columns of U split over the threads (the sparse half of
   * U^T L U, zPreconditioner.ts, laplacianProjection, which was on one thread). This
   * thread reads its columns from its resident copy of U; each helper holds its columns
   * of U (an n x w block, padded to an even width) from the first call on. Each entry
   * is the same sum (csrmm's order) whatever columns a thread has. Falls back to the
   * one-thread product when U is not resident here or there is no helper.
   */
  sparseTimesUTransposed(A: CsrMatrix): Matrix {
    const n = this.U.rows;
    const r = this.U.cols;
    const count = A.rows;
    const parts = A.cols === n && A.rowPtr[0] === 0 && count > 0 ? this.columnParts() : null;
    if (parts === null) return transposed(A.multiplyMatrix(this.U));
    const here = (this.left as Held).here;
    const { bounds, handles } = parts;
    const nnz = A.rowPtr[count];
    const out = new Matrix(r, count);
    const started: number[] = [];
    let failure: unknown = null;
    try {
      for (let i = 0; i < handles.length; i++) {
        this.helpers[i].startSparse(handles[i], {
          count,
          rowPtr: A.rowPtr.slice(0, count + 1),
          colIdx: A.colIdx.slice(0, nnz),
          values: A.values.slice(0, nnz),
        });
        started.push(i);
      }
      const w = bounds[1];
      onResident(
        here,
        "the sparse product",
        (arena, ptr) =>
          csrColumnsTransposedWasm(arena, A.rowPtr, A.colIdx, A.values, count, ptr, r * 8, w),
        (T) => out.data.set(T),
      );
    } catch (error) {
      failure = error;
    }
    // Every started part is waited for, also when this thread's part failed.
    for (const i of started) {
      try {
        this.helpers[i].finishSparse(
          out.data,
          bounds[i + 1] * count,
          bounds[i + 2] - bounds[i + 1],
        );
      } catch (error) {
        failure ??= error;
      }
    }
    // A part that failed (a helper lost, or no room in a memory): the whole product on
    // this thread instead, which has the same bits; later calls stay on this thread.
    if (failure !== null) {
      this.columns = null;
      return transposed(A.multiplyMatrix(this.U));
    }
    return out;
  }

  /**
   * U^T L U (r x r) for the sparse L (n x n): laplacianProjection(L, U, U^T)'s result
   * bit for bit (zPreconditioner.ts), with every chunk computed where U already lives
   * (laplacianGram.ts): this thread on its resident U, each helper on its own copy of
   * all of U (held from the first call on; n x r more in its memory), the chunks dealt
   * in turn and their parts added here in chunk order. Null (the caller computes it
   * the ordinary way) where that path does not apply: U not resident, r odd (the sparse
   * kernel pairs columns), a chunk too small for the kernels that laplacianProjection
   * would then not use, or a thread that failed or had no room.
   */
  laplacianGram(L: CsrMatrix): Matrix | null {
    const n = this.U.rows;
    const r = this.U.cols;
    const left = this.left;
    if (left === null || left.here.rows !== n || L.rows !== n || L.cols !== n) return null;
    if (r % 2 !== 0 || n === 0) return null;
    for (let i0 = 0; i0 < n; i0 += LAPLACIAN_CHUNK_ROWS) {
      if (!wasmWorthIt(r, r, Math.min(LAPLACIAN_CHUNK_ROWS, n - i0))) return null;
    }
    const here = left.here;
    const K = new Float64Array(r * r);
    // The CSR rows of chunk q, row pointers from 0 (fresh arrays: a helper takes them).
    const rowsOf = (q: number) => {
      const i0 = q * LAPLACIAN_CHUNK_ROWS;
      const i1 = Math.min(n, i0 + LAPLACIAN_CHUNK_ROWS);
      const p0 = L.rowPtr[i0];
      const p1 = L.rowPtr[i1];
      return {
        first: i0,
        count: i1 - i0,
        rowPtr: Int32Array.from(L.rowPtr.subarray(i0, i1 + 1), (p) => p - p0),
        colIdx: L.colIdx.slice(p0, p1),
        values: L.values.slice(p0, p1),
      };
    };
    const done = this.dealChunks(
      Math.ceil(n / LAPLACIAN_CHUNK_ROWS),
      (helper, handle, q) => {
        const c = rowsOf(q);
        helper.startLaplacianChunk(handle, c.first, c);
      },
      (helper, consume) => {
        const part = helper.finishLaplacianChunk();
        if (consume) addLowerBlocks(K, part, r);
      },
      (q) => {
        const c = rowsOf(q);
        onResident(
          here,
          "a chunk of U^T L U",
          (arena, ptr) =>
            laplacianChunkPart(arena, ptr, r, c.first, c.count, c.rowPtr, c.colIdx, c.values),
          (part) => addLowerBlocks(K, part, r),
        );
      },
    );
    if (!done) return null;
    // Mirror the lower triangle (the blocks also hold a few entries above the diagonal).
    mirrorLowerTriangle(K, r);
    return new Matrix(r, r, K);
  }

  /**
   * Chunks 0..chunks-1 in turn over this thread and the helpers that hold all of U: in
   * each round this thread takes the first chunk (`own`) and helper h the next ones
   * (`start`, then `finish`), and the parts are consumed in chunk order (`own`'s and
   * `finish`'s side effects; once a thread has failed, `finish` only waits). False
   * (later calls stay on this thread) when a thread fails; every started chunk is
   * waited for first. The helpers keep their copies of U until `release`.
   */
  private dealChunks(
    chunks: number,
    start: (helper: KernelHelper, handle: number, q: number) => void,
    finish: (helper: KernelHelper, consume: boolean) => void,
    own: (q: number) => void,
  ): boolean {
    const handles = this.wholeParts();
    const threads = 1 + handles.length;
    for (let q = 0; q < chunks; q += threads) {
      const started: number[] = [];
      let failure: unknown = null;
      try {
        for (let h = 0; h < handles.length && q + 1 + h < chunks; h++) {
          start(this.helpers[h], handles[h], q + 1 + h);
          started.push(h);
        }
        own(q);
      } catch (error) {
        failure = error;
      }
      // Every started chunk is waited for, also when this thread's failed; the parts
      // are consumed in chunk order.
      for (const h of started) {
        try {
          finish(this.helpers[h], failure === null);
        } catch (error) {
          failure ??= error;
        }
      }
      if (failure !== null) {
        // A helper lost or a memory full: later calls take the ordinary path.
        this.whole = null;
        return false;
      }
    }
    return true;
  }

  /** The helpers' handles of all of U for laplacianGram, held on first use ([] if none). */
  private wholeParts(): readonly number[] {
    if (this.whole === undefined) {
      this.whole = null;
      const handles: number[] = [];
      try {
        for (const helper of this.helpers)
          handles.push(helper.hold(this.U.data, this.U.rows, this.U.cols));
        this.whole = handles;
      } catch {
        // A helper could not take U: this thread computes every chunk.
      }
    }
    return this.whole ?? [];
  }

  /**
   * The split of U's columns for sparseTimesUTransposed: bounds (even) and the helpers'
   * handles of their blocks, held on first use; null where the product stays on one
   * thread (no helper, U not resident here, or a helper could not take its block).
   */
  private columnParts(): { bounds: readonly number[]; handles: readonly number[] } | null {
    if (this.columns !== undefined) return this.columns;
    this.columns = null;
    const left = this.left;
    const n = this.U.rows;
    const r = this.U.cols;
    if (left === null || left.here.rows !== n || this.helpers.length === 0) return null;
    const bounds = evenRowBounds(r, 1 + this.helpers.length);
    if (bounds.length < 3) return null;
    const handles: number[] = [];
    try {
      for (let i = 1; i + 1 < bounds.length; i++) {
        const c0 = bounds[i];
        const w = bounds[i + 1] - c0;
        const wide = w + (w & 1);
        const block = new Float64Array(n * wide);
        const u = this.U.data;
        for (let j = 0; j < n; j++) {
          block.set(u.subarray(j * r + c0, j * r + c0 + w), j * wide);
        }
        handles.push(this.helpers[i - 1].hold(block, n, wide));
      }
    } catch {
      return null;
    }
    this.columns = { bounds, handles };
    return this.columns;
  }

  /**
   * A B for A = the held factor (also given as `A`): the wasm kernel on the resident
   * parts exactly where multiply(A, B) would run that kernel, else multiply.
   */
  private product(held: Held | null, A: Matrix, B: Matrix): Matrix {
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
    if (held === null || small || !wasmWorthIt(m, n, p) || !fits || wasmArena() === null) {
      return multiply(A, B);
    }
    const { here, bounds, handles } = held;
    const mine = bounds[1];
    const { arena } = here;
    const ptrs = arena.allocAll([n * p, mine * n, n * p]);
    if (ptrs === null) return multiply(A, B);
    const C = new Matrix(m, n);
    try {
      // B^T, compact (n x p), as multiply's B.transpose() copied in: B is copied in as
      // it is and transposed by the module (the same values, faster than in JS). The
      // helpers copy their B^T from it before anything else is allocated here.
      const [pb, pc, pRaw] = ptrs;
      const f = arena.f64;
      f.set(B.data.subarray(0, p * n), pRaw >> 3);
      arena.kernels.transpose(pRaw, p, n, pb);
      const Bt = arena.view(pb, n * p);
      for (let i = 0; i < handles.length; i++) this.helpers[i].start(handles[i], Bt, n);
      const oc = pc >> 3;
      f.fill(0, oc, oc + mine * n);
      arena.kernels.gemm(mine, n, p, here.ptr, p, pb, p, pc, n);
      C.data.set(f.subarray(oc, oc + mine * n));
    } finally {
      arena.release(here.top);
    }
    // The helpers' rows.
    for (let i = 0; i < handles.length; i++) this.helpers[i].finish(C.data, bounds[i + 1] * n);
    return C;
  }
}
