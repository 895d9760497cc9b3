/**
 * The kernels' interface: the module's exports (kernels.wat and its includes) and the
 * calls the arena adds beside them (backend.ts builds the object), with the types of a
 * GEMM's operands. Pointers are byte offsets into the module's memory.
 */

/** The module's memory, as much of WebAssembly.Memory as the kernels use. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}

/**
 * The matrices of a GEMM C (+)= A B^T in BLAS style, row-major, leading dimensions in
 * elements: A with rows lda apart, B with rows ldb apart, C with rows ldc apart. `T` is
 * how a matrix is given (a Float64Array, or a byte offset into the module's memory),
 * `TC` the same for C.
 */
export type GemmMatrices<T, TC = T> = [A: T, lda: number, B: T, ldb: number, C: TC, ldc: number];

/** A GEMM's shape and matrices: A is m x p, B n x p, C m x n (GemmMatrices). */
export type GemmOperands<T, TC = T> = [m: number, n: number, p: number, ...GemmMatrices<T, TC>];

/** The module's exports (pointers are byte offsets, leading dimensions in elements). */
export interface KernelExports {
  readonly memory: WasmMemory;
  /**
   * C += A B^T with the active backend's GEMM: on "wasm" the module's (kernels.wat's
   * summation order), on "fast" the fastest there is (fused multiply-adds where the
   * platform has them; bits of its own, agreeing with the module's to rounding).
   */
  gemm(...operands: GemmOperands<number>): void;
  /**
   * Not a module export (the arena adds it): C += A B^T with the module's bits on every
   * backend, for code whose results must not depend on the backend's GEMM (the
   * neighbour searches, whose exact distances screenedSearch.ts reproduces).
   */
  gemmExact(...operands: GemmOperands<number>): void;
  symv(a: number, lda: number, m: number, x: number, y: number): void;
  /** dst = src^T for a compact row-major rows x cols matrix (dst compact, cols x rows). */
  transpose(src: number, rows: number, cols: number, dst: number): void;
  combine2(
    t: number,
    len: number,
    v: number,
    ldv: number,
    w: number,
    ldw: number,
    count: number,
    cv: number,
    cw: number,
  ): void;
  sturm(
    d: number,
    e2: number,
    m: number,
    pivmin: number,
    x: number,
    count: number,
    out: number,
  ): void;
  trsm(v: number, rows: number, ldvBytes: number, r: number, ldrBytes: number, w: number): void;
  /** gemm's product with A and B in single precision and C (double) overwritten. */
  gemm32: KernelExports["gemm"];
  /**
   * Not a module export (the arena adds it): one panel of the blocked Householder
   * reduction (eigen/householder.ts, reducePanel: columns i0 .. i0 + nb - 1 of the
   * stored triangle a, their e and tau, W in w, 2 nb coefficients of scratch in coef)
   * in one native call, with that loop's operations around the "fast" backend's symv,
   * combine2 and dots2, so its bits; returns false (nothing done) where that call is
   * not installed or the backend is not "fast".
   */
  latrd(
    a: number,
    lda: number,
    n: number,
    i0: number,
    nb: number,
    e: number,
    tau: number,
    w: number,
    coef: number,
  ): boolean;
  /**
   * Not a module export (the arena adds it): gemm on the lower block rows only. Rows
   * [0, m) of C get columns [0, min(n, base + (floor(r / block) + 1) block)), each entry
   * with gemm's bits, the others untouched: row r lies in block row floor(r / block)
   * of a matrix whose block rows start at base, base + block, ...
   */
  gemmLowerBlocks(...args: [...GemmOperands<number>, base: number, block: number]): void;
  csrmm(
    ptr: number,
    idx: number,
    val: number,
    rows: number,
    b: number,
    ldBytes: number,
    c: number,
  ): void;
  /** csrmm on `widthBytes` of each row of B (rows ldbBytes apart) into C (rows ldcBytes apart). */
  csrmmCols(
    ptr: number,
    idx: number,
    val: number,
    rows: number,
    b: number,
    ldbBytes: number,
    widthBytes: number,
    c: number,
    ldcBytes: number,
  ): void;
  /**
   * The positions of a neighbour scan's row that may enter a heap (pairs.wat): a
   * superset of those scanRow would push, from thresholds no smaller than the heaps'.
   */
  pairFilter(
    dots: number,
    gn: number,
    thr: number,
    cls: number,
    len: number,
    na: number,
    rowThr: number,
    rowCls: number,
    lambda: number,
    kind: number,
    both: number,
    heap: number,
    count: number,
    out: number,
  ): number;
  /**
   * out += Q src (transpose 0) or Q^T src (transpose 1) for a thin n x cq block Q, in
   * ZWoodbury's loop order (thin.wat).
   */
  thinProducts(
    q: number,
    n: number,
    cq: number,
    src: number,
    b: number,
    out: number,
    transpose: number,
  ): void;
  /** Tr((F W)^T L (F W)) over the edges of a symmetric CSR graph (kernels.wat). */
  edgeTrace(
    ptr: number,
    idx: number,
    val: number,
    rows: number,
    f: number,
    c: number,
    w: number,
  ): number;
  dots2(
    v: number,
    ldv: number,
    w: number,
    ldw: number,
    count: number,
    x: number,
    len: number,
    ov: number,
    ow: number,
  ): void;
  bisect(
    d: number,
    e: number,
    e2: number,
    m: number,
    count: number,
    pivmin: number,
    work: number,
    out: number,
  ): void;
  /** dsytd2 from column i0 on (eigen/householder.ts, reduceUnblocked). */
  tridiagonalizeUnblocked(
    a: number,
    lda: number,
    n: number,
    i0: number,
    d: number,
    e: number,
    tau: number,
    y: number,
    coef: number,
  ): void;
  /** z_j <- Q z_j for the k rows of z (eigen/backTransform.ts, applyReflectorBlocks). */
  applyReflectorBlocks(
    a: number,
    ld: number,
    n: number,
    tau: number,
    z: number,
    k: number,
    vt: number,
    vrow: number,
    vtv: number,
    s: number,
    m1: number,
    m2: number,
  ): void;
  /** Vectors that missed the growth test, or -(q + 1) when vector q is zero or not finite. */
  inverseIteration(
    d: number,
    e: number,
    m: number,
    lambda: number,
    count: number,
    starts: number,
    zb: number,
    x: number,
    coef: number,
    work: number,
  ): number;
}
