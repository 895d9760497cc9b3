/**
 * Matrix products on row-major Float64Array storage.
 *
 * The workhorse is C = A B^T in the dot-product form: both operands are read along
 * the contraction index, which is contiguous in row-major storage. It runs on the
 * backend's kernel (wasm/backend.ts): on "wasm" the WebAssembly SIMD kernel (kernels.wat:
 * 2 x 4 blocks of f64x2 accumulators, ~8-10 GFLOP/s on the 2-core dev machine) or the
 * native one with its bits, on "fast" the fastest the platform has (the native fused
 * kernel in Node, the relaxed-SIMD module elsewhere where the engine has it), on "ts"
 * the TypeScript kernel below, the fallback where WebAssembly SIMD is missing.
 * gemmABtExact keeps the "wasm" backend's kernel on "fast" too.
 *
 * TypeScript kernel: a 4 x 4 block of C is accumulated in 16 locals (registers for
 * the JIT) while the contraction runs. The contraction is cut into panels of KC so
 * that a 4-row panel of B stays in L1 while it is reused against MC rows of A held in
 * L2. Measured (medians of CPU time, 2-core shared machine): ~3 GFLOP/s on an idle
 * core, 2-2.3 GFLOP/s under load. V8 emits scalar SSE code in which every typed-array
 * load carries an index addition with overflow check and a bounds check, and the 16
 * accumulators plus 8 operands exceed the 16 XMM registers (a few spill). Tried and
 * not faster: packing A and/or B into interleaved panels, 2 x 4, 3 x 4 and 4 x 4
 * blocks with a sequenced load order, unrolling the contraction by two, and
 * subarray views per row. Leftover columns (n % 4) run a 4 x 1 kernel, so thin
 * products (blocks of 5..15 vectors, as in LOBPCG) keep most of the reuse.
 */
import { Matrix } from "../../core/matrix.js";
import { type ArenaGemm, threadedProducts } from "./helper.js";
import { type GemmOperands, type WasmArena, wasmArena } from "./wasm/backend.js";

const KC = 256;
const MC = 64;

/** C = A B^T, or C += A B^T with `accumulate`, on Float64Arrays (GemmOperands). */
export type Gemm = (...args: [...GemmOperands<Float64Array>, accumulate?: boolean]) => void;

/** C = A B^T on Float64Arrays (GemmOperands), C overwritten. */
type GemmInto = (...operands: GemmOperands<Float64Array>) => void;

/**
 * Raw kernel: C[i*ldc + j] (+)= sum_l A[i*lda + l] * B[j*ldb + l] for i < m, j < n,
 * l < p. With `accumulate` false C is overwritten.
 *
 * On the wasm backend, operands that are views of the module's memory are used in
 * place; others are copied in (and C back out), which is done only when the product
 * has enough work per copied element (see `wasmWorthIt`). With `threads` (default) a
 * large product may be split over the kernel helpers (`threadsWorthIt`, when
 * setKernelThreads registered threadedProducts.ts), with the same bits; pass false
 * where the helpers are busy with parts of the caller's work.
 */
export const gemmABtRaw: (
  ...args: [...GemmOperands<Float64Array>, accumulate?: boolean, threads?: boolean]
) => void = (m, n, p, A, lda, B, ldb, C, ldc, accumulate = false, threads = true) =>
  gemmABtOn(false, m, n, p, A, lda, B, ldb, C, ldc, accumulate, threads);

/**
 * C = A B^T (overwritten) as gemmABtRaw computes it on the "wasm" backend, on every
 * backend: the module's kernel (or the native one with its bits) wherever WebAssembly
 * runs, the TypeScript kernel on "ts". For results that must not depend on whether the
 * "fast" backend's GEMM runs: the neighbour searches, whose pruned and screened forms
 * reproduce a full scan's distances (screenedSearch.ts sums them in TypeScript in the
 * module's order). `threads` as in gemmABtRaw.
 */
export function gemmABtExact(...args: [...GemmOperands<Float64Array>, threads?: boolean]): void {
  const [m, n, p, A, lda, B, ldb, C, ldc, threads = true] = args;
  gemmABtOn(true, m, n, p, A, lda, B, ldb, C, ldc, false, threads);
}

function gemmABtOn(
  exact: boolean,
  ...[m, n, p, A, lda, B, ldb, C, ldc, accumulate, threads]: [
    ...GemmOperands<Float64Array>,
    accumulate: boolean,
    threads: boolean,
  ]
): void {
  if (m === 0 || n === 0) return;
  const arena = wasmArena();
  if (arena !== null && p > 0) {
    const resident = arena.holds(A) && arena.holds(B) && arena.holds(C);
    if (resident || wasmWorthIt(m, n, p)) {
      if (threads && !resident && threadsWorthIt(m, n, p)) {
        const threaded = threadedProducts();
        if (threaded?.gemm(arena, m, n, p, A, lda, B, ldb, C, ldc, accumulate, exact)) return;
      }
      if (gemmABtWasm(arena, m, n, p, A, lda, B, ldb, C, ldc, accumulate, exact)) return;
    }
  }
  gemmABtTs(m, n, p, A, lda, B, ldb, C, ldc, accumulate);
}

/**
 * C = A B^T (overwritten) by the kernel a large gemmABtExact product runs on this
 * backend, whatever the size of this one: the module's kernel wherever WebAssembly runs
 * (and the operands fit its memory), else the TypeScript kernel; one thread. The
 * module's kernel sums every entry in an order that does not depend on the product's
 * shape, so each entry has the bits a large product gives it: pruned searches use this
 * to reproduce a full scan's distances from many small products (graph/clusterScan.ts).
 * The TypeScript kernel sums its corner entries (the last m % 4 rows against the last
 * n % 4 columns) in two lanes and the others in one, so there the bits of an entry can
 * depend on the shape (not its value where the dot products are exact).
 */
export const gemmABtFixedKernel: GemmInto = (m, n, p, A, lda, B, ldb, C, ldc) => {
  if (m === 0 || n === 0) return;
  const arena = wasmArena();
  if (arena !== null && p > 0 && gemmABtWasm(arena, m, n, p, A, lda, B, ldb, C, ldc, false, true)) {
    return;
  }
  gemmABtTs(m, n, p, A, lda, B, ldb, C, ldc, false);
};

/**
 * Whether a product is worth splitting over the kernel helpers (helper.ts): enough
 * work to hide a request (tens of microseconds), and enough per copied element, as
 * each helper gets its rows of A, all of B and its rows of C through shared memory.
 */
export function threadsWorthIt(m: number, n: number, p: number): boolean {
  const work = m * n * p;
  return work >= THREADS_MIN_WORK && work >= THREADS_MIN_WORK_PER_ELEMENT * (m * p + n * p + m * n);
}

export const THREADS_MIN_WORK = 1e8;
const THREADS_MIN_WORK_PER_ELEMENT = 48;

/**
 * Whether copying the operands into WebAssembly memory pays off: the copy costs about
 * (m + n) p + 2 m n element moves, the product 2 m n p flops at ~3x the TS speed.
 * Measured crossover: ~WASM_MIN_WORK flops with both m and n at least 2.
 */
export function wasmWorthIt(m: number, n: number, p: number): boolean {
  return m >= 2 && n >= 2 && p >= 4 && m * n * p >= WASM_MIN_WORK;
}

const WASM_MIN_WORK = 16384;

/** Copies rows x cols of `src` (leading dimension ld) compactly to doubles at `ptr`. */
export function copyIn(
  arena: WasmArena,
  ptr: number,
  src: Float64Array,
  ld: number,
  rows: number,
  cols: number,
): void {
  const f = arena.f64;
  const o = ptr >> 3;
  if (ld === cols) {
    f.set(src.subarray(0, rows * cols), o);
    return;
  }
  for (let i = 0; i < rows; i++) f.set(src.subarray(i * ld, i * ld + cols), o + i * cols);
}

/**
 * The wasm path of gemmABtRaw (and of each thread's part of it: threadedProducts.ts).
 * Returns false (nothing done) when the operands would
 * not fit in the arena, so the caller runs the TS kernel: a decision that depends
 * only on the shapes and on which operands already live in the arena.
 */
export const gemmABtWasm: ArenaGemm = (
  arena,
  m,
  n,
  p,
  A,
  lda,
  B,
  ldb,
  C,
  ldc,
  accumulate,
  exact = false,
) => {
  const aIn = arena.holds(A);
  const bIn = arena.holds(B);
  const cIn = arena.holds(C);
  // X X^T and friends: one copy serves both operands.
  const shared = !aIn && A.buffer === B.buffer && A.byteOffset === B.byteOffset && lda === ldb;
  // Pointers of resident operands are read before any allocation; if one is resident
  // the arena is pinned, so that a growth (which would detach the caller's views)
  // throws instead of corrupting them: callers holding views allocate beforehand.
  let pa = aIn ? A.byteOffset : 0;
  let pb = bIn ? B.byteOffset : 0;
  let pc = cIn ? C.byteOffset : 0;
  let la = lda;
  let lb = ldb;
  let lc = ldc;
  const aRows = shared ? Math.max(m, n) : m;
  const sizes = [aIn ? 0 : aRows * p, bIn || shared ? 0 : n * p, cIn ? 0 : m * n];
  const pinned = aIn || bIn || cIn;
  const mark = arena.mark();
  if (pinned) arena.pin();
  try {
    const ptrs = arena.allocAll(sizes);
    if (ptrs === null) return false;
    if (!aIn) {
      pa = ptrs[0];
      la = p;
    }
    if (shared) {
      pb = pa;
      lb = p;
    } else if (!bIn) {
      pb = ptrs[1];
      lb = p;
    }
    if (!cIn) {
      pc = ptrs[2];
      lc = n;
    }
    // Allocation is done: views are stable from here on.
    if (!aIn) copyIn(arena, pa, A, lda, aRows, p);
    if (!bIn && !shared) copyIn(arena, pb, B, ldb, n, p);
    const f = arena.f64;
    if (cIn) {
      if (!accumulate) for (let i = 0; i < m; i++) C.fill(0, i * ldc, i * ldc + n);
    } else if (accumulate) copyIn(arena, pc, C, ldc, m, n);
    else f.fill(0, pc >> 3, (pc >> 3) + m * n);
    (exact ? arena.kernels.gemmExact : arena.kernels.gemm)(m, n, p, pa, la, pb, lb, pc, lc);
    if (!cIn) {
      const o = pc >> 3;
      for (let i = 0; i < m; i++) C.set(f.subarray(o + i * n, o + i * n + n), i * ldc);
    }
  } finally {
    if (pinned) arena.unpin();
    arena.release(mark);
  }
  return true;
};

/**
 * C = A^T B (p x q, overwritten) for compact row-major A (n x p) and B (n x q), on the
 * wasm backend: both are copied in as they are and transposed there (kernels.wat,
 * `transpose`), then the gemm kernel runs on A^T and B^T exactly as gemmABtRaw(p, q, n,
 * A^T, n, B^T, n, C, q) would run it after transposing in JS (the transposes move
 * values, so the bits are the same; tested). Taken only where that call would run the
 * kernel on this thread (wasmWorthIt, and not threadsWorthIt with threads registered)
 * and with operands outside the module's memory; false (nothing done) otherwise or
 * when the five blocks do not fit, and the caller transposes (`transposed`).
 */
export function gemmAtBWasm(
  n: number,
  p: number,
  q: number,
  A: Float64Array,
  B: Float64Array,
  C: Float64Array,
): boolean {
  const arena = wasmArena();
  if (arena === null || !wasmWorthIt(p, q, n)) return false;
  // A product the helpers would share keeps that path (with transposed()).
  if (threadedProducts() !== null && threadsWorthIt(p, q, n)) return false;
  if (arena.holds(A) || arena.holds(B) || arena.holds(C)) return false;
  const shared = A === B;
  const mark = arena.mark();
  try {
    const ptrs = arena.allocAll([n * p, shared ? 0 : n * q, n * p, shared ? 0 : n * q, p * q]);
    if (ptrs === null) return false;
    const [pa, pb, pat, pbt, pc] = ptrs;
    const f = arena.f64;
    f.set(A.subarray(0, n * p), pa >> 3);
    arena.kernels.transpose(pa, n, p, pat);
    if (!shared) {
      f.set(B.subarray(0, n * q), pb >> 3);
      arena.kernels.transpose(pb, n, q, pbt);
    }
    const o = pc >> 3;
    f.fill(0, o, o + p * q);
    arena.kernels.gemm(p, q, n, pat, n, shared ? pat : pbt, n, pc, q);
    C.set(f.subarray(o, o + p * q));
  } finally {
    arena.release(mark);
  }
  return true;
}

/**
 * Below this many entries a transpose stays in JS (the copies in and out cost more);
 * above the maximum too, so that a one-off transpose of a whole data set does not grow
 * the module's memory, which never shrinks, by twice its size.
 */
export const WASM_TRANSPOSE_MIN_ENTRIES = 4096;
export const WASM_TRANSPOSE_MAX_ENTRIES = 2 ** 24;

/**
 * M^T, by the module's `transpose` kernel where there is one and M is large enough
 * (copied in, transposed, copied out: about three times faster than Matrix.transpose
 * on tall blocks), else Matrix.transpose. The same values either way.
 */
export function transposed(M: Matrix): Matrix {
  const { rows, cols } = M;
  const size = rows * cols;
  const arena = wasmArena();
  const sized = size >= WASM_TRANSPOSE_MIN_ENTRIES && size <= WASM_TRANSPOSE_MAX_ENTRIES;
  if (arena === null || !sized || arena.holds(M.data)) {
    return M.transpose();
  }
  const mark = arena.mark();
  try {
    const ptrs = arena.allocAll([size, size]);
    if (ptrs === null) return M.transpose();
    const [src, dst] = ptrs;
    const f = arena.f64;
    f.set(M.data.subarray(0, size), src >> 3);
    arena.kernels.transpose(src, rows, cols, dst);
    return new Matrix(cols, rows, f.slice(dst >> 3, (dst >> 3) + size));
  } finally {
    arena.release(mark);
  }
}

/**
 * The TypeScript kernel of gemmABtRaw (the fallback backend). Its 4 x 4, 1 x 4 and
 * 4 x 1 blocks repeat the same loop shape with their own locals on purpose: they are
 * the register blocks (see the file comment), which no helper function could keep in
 * registers; the summation order of each is part of the kernel's bits.
 */
export const gemmABtTs: Gemm = (m, n, p, A, lda, B, ldb, C, ldc, accumulate = false) => {
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
};

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
  return multiplyABt(A, transposed(B), out);
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
  return multiplyABt(transposed(A), transposed(B), out);
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
