/**
 * The tridiagonal stage of the dense symmetric eigen-solver, following LAPACK:
 *
 * - Householder reduction Q^T A Q = T touching one triangle (dsytd2, and the blocked
 *   dlatrd + dsyr2k form of dsytrd, so that half of the flops run in the GEMM kernel);
 * - Sturm-sequence bisection for selected eigenvalues of T (dstebz / dlaebz, with the
 *   pivmin safeguard), all intervals of a round counted side by side;
 * - inverse iteration for their eigenvectors, re-orthogonalised inside clusters of
 *   close eigenvalues (dstein with dlagtf / dlagts; classical Gram-Schmidt twice);
 * - implicit QL with Wilkinson shifts for all eigenpairs (EISPACK tql2);
 * - back-transformation of eigenvectors of T through the reflectors, in blocks of the
 *   compact-WY form I - V S V^T (dlarft + dlarfb), at GEMM speed.
 *
 * Storage. The symmetric matrix is an n x n Float64Array `a` with leading dimension
 * `lda`; only the entries a[j * lda + i] with i >= j are read or written. In LAPACK's
 * column-major terms that is the lower triangle (column j contiguous); in row-major
 * terms it is the upper triangle (row j contiguous). Either way the column being
 * reduced is contiguous in memory. Eigenvector blocks are stored "vectors as rows":
 * a k x n row-major array whose row j is the j-th vector, so that every update of a
 * vector streams through contiguous memory.
 *
 * Kernels. On the WebAssembly backend (kernels/wasm/backend.ts) the reduction keeps the matrix
 * and its work arrays in the module's memory for its whole duration and runs the
 * symmetric matrix-vector product, the panel corrections and the rank-2k update in the
 * SIMD kernels; bisection counts, the cluster re-orthogonalisation and the GEMMs of the
 * back-transformation and of divide and conquer run there too. Every function keeps a
 * TypeScript path with the same algorithm, which the TS backend runs.
 */
import { ConvergenceError } from "../../core/errors.js";
import { Random } from "../../core/rng.js";
import { gemmABtRaw } from "../kernels/gemm.js";
import { type WasmArena, wasmArena } from "../kernels/wasm/backend.js";

const EPS = 2 ** -53; // LAPACK's dlamch('E'): relative machine precision (rounding).
const ULP = 2 ** -52; // dlamch('P'): eps * base.
const SAFMIN = 2 ** -1022;

/** Panel width of the blocked reduction. */
const PANEL = 32;
/** Block size of the back-transformation (measured: 64 and 96 are not faster). */
const BACK_PANEL = 32;
/** Below this trailing size the unblocked reduction is faster than dlatrd + syr2k. */
const BLOCKED_CROSSOVER = 96;

/** The symmetric tridiagonal T = Q^T A Q and the reflectors defining Q. */
export interface Tridiagonal {
  readonly n: number;
  /** Diagonal of T (length n). */
  readonly diagonal: Float64Array;
  /** Off-diagonal of T (length max(n - 1, 0)): T[i][i+1] = T[i+1][i] = offDiagonal[i]. */
  readonly offDiagonal: Float64Array;
  /** Scalar factors of the reflectors H_i = I - tau_i v_i v_i^T (length max(n - 1, 0)). */
  readonly tau: Float64Array;
  /**
   * The reduced matrix storage: v_i is zero in entries 0..i, one in entry i + 1, and
   * reflectors[i * ld + r] in entries r >= i + 2.
   */
  readonly reflectors: Float64Array;
  readonly ld: number;
}

/**
 * Reduces the symmetric matrix held in `a` (lower triangle in column-major terms, see
 * the file comment) to tridiagonal form in place: Q^T A Q = T with
 * Q = H_0 H_1 ... H_{n-2}. `a` is overwritten by the reflectors.
 */
export function householderTridiagonalize(a: Float64Array, n: number, lda = n): Tridiagonal {
  const d = new Float64Array(n);
  const e = new Float64Array(Math.max(n - 1, 0));
  const tau = new Float64Array(Math.max(n - 1, 0));
  const blocked = n - 1 > BLOCKED_CROSSOVER;
  const wLen = blocked ? PANEL * n : 0;
  const lrLen = blocked ? n * 4 * PANEL : 0;
  const coefLen = 2 * PANEL + 2;
  const arena = n >= RESIDENT_MIN ? wasmArena() : null;
  const mark = arena?.mark() ?? 0;
  const ptrs = arena?.allocAll([n * n, wLen, lrLen, n, coefLen]) ?? null;
  if (arena && ptrs) {
    // WebAssembly backend: the matrix and every work array live in the module's memory
    // for the whole reduction, so that the kernels (symv, and the GEMM of the rank-2k
    // updates) run on them in place; one copy in and one copy out of the triangle.
    const [pa, pw, plr, py, pc] = ptrs;
    arena.pin();
    try {
      const work = arena.view(pa, n * n);
      for (let j = 0; j < n; j++) work.set(a.subarray(j * lda + j, j * lda + n), j * n + j);
      reduce(work, n, n, d, e, tau, {
        w: arena.view(pw, wLen),
        lr: arena.view(plr, lrLen),
        y: arena.view(py, n),
        coef: arena.view(pc, coefLen),
      });
      for (let j = 0; j < n; j++) a.set(work.subarray(j * n + j, j * n + n), j * lda + j);
    } finally {
      arena.unpin();
      arena.release(mark);
    }
  } else {
    reduce(a, n, lda, d, e, tau, {
      w: new Float64Array(wLen),
      lr: new Float64Array(lrLen),
      y: new Float64Array(n),
      coef: new Float64Array(coefLen),
    });
  }
  return { n, diagonal: d, offDiagonal: e, tau, reflectors: a, ld: lda };
}

/** Below this order the reduction stays in TypeScript even on the wasm backend. */
const RESIDENT_MIN = 8;

/**
 * Work arrays of the reduction: W of the panel (PANEL x n), the packed operands of
 * the rank-2k update (n x 4 PANEL), a vector y (n), and coefficients (2 PANEL + 2).
 * On the wasm backend they are views of the module's memory.
 */
interface ReductionWorkspace {
  readonly w: Float64Array;
  readonly lr: Float64Array;
  readonly y: Float64Array;
  readonly coef: Float64Array;
}

/** The blocked reduction (dsytrd), then the unblocked one on the trailing part. */
function reduce(
  a: Float64Array,
  n: number,
  lda: number,
  d: Float64Array,
  e: Float64Array,
  tau: Float64Array,
  ws: ReductionWorkspace,
): void {
  let i0 = 0;
  if (n - 1 > BLOCKED_CROSSOVER) {
    for (; n - i0 - PANEL > BLOCKED_CROSSOVER; i0 += PANEL) {
      reducePanel(a, n, lda, i0, PANEL, e, tau, ws.w, ws.coef);
      symmetricRank2kUpdate(a, n, lda, i0, PANEL, ws.w, ws.lr);
      for (let j = i0; j < i0 + PANEL; j++) {
        a[j * lda + j + 1] = e[j];
        d[j] = a[j * lda + j];
      }
    }
  }
  reduceUnblocked(a, n, lda, i0, d, e, tau, ws.y, ws.coef);
}

/**
 * dlarfg: the reflector H = I - tau v v^T with v[0] = 1 such that H [alpha; x] =
 * [beta; 0]. x = a[xo .. xo + len) is overwritten by v[1..]. Returns beta and writes
 * tau to out[0]. The caller has scaled the matrix so that squares cannot overflow.
 */
function makeReflector(
  alpha: number,
  a: Float64Array,
  xo: number,
  len: number,
  out: Float64Array,
): number {
  let ss = 0;
  for (let r = 0; r < len; r++) ss += a[xo + r] * a[xo + r];
  if (ss === 0) {
    out[0] = 0;
    return alpha;
  }
  const norm = Math.sqrt(alpha * alpha + ss);
  const beta = alpha >= 0 ? -norm : norm;
  out[0] = (beta - alpha) / beta;
  const scale = 1 / (alpha - beta);
  for (let r = 0; r < len; r++) a[xo + r] *= scale;
  return beta;
}

/**
 * dsymv on the lower triangle: y[yo + r] += sum_c A(o + r, o + c) x[xo + c] for the
 * trailing matrix A(o:n, o:n). Four columns are processed per sweep so that each load
 * of x and each load/store of y serves four matrix entries: the loop is bound by
 * memory traffic, and A itself is read exactly once. When all three arrays live in
 * the WebAssembly memory, the module's SIMD version of the same loop runs instead.
 */
function symmetricMatrixVector(
  a: Float64Array,
  lda: number,
  o: number,
  n: number,
  x: Float64Array,
  xo: number,
  y: Float64Array,
  yo: number,
): void {
  const arena = wasmArena();
  if (arena?.holds(a) && arena.holds(x) && arena.holds(y)) {
    arena.kernels.symv(
      a.byteOffset + (o * lda + o) * 8,
      lda,
      n - o,
      x.byteOffset + xo * 8,
      y.byteOffset + yo * 8,
    );
    return;
  }
  const m = n - o;
  let j = 0;
  for (; j + 3 < m; j += 4) {
    const c0 = (o + j) * lda + o;
    const c1 = c0 + lda;
    const c2 = c1 + lda;
    const c3 = c2 + lda;
    const x0 = x[xo + j];
    const x1 = x[xo + j + 1];
    const x2 = x[xo + j + 2];
    const x3 = x[xo + j + 3];
    // The 4 x 4 diagonal block (lower part only).
    for (let q = 0; q < 4; q++) {
      const cq = c0 + q * lda;
      const xq = x[xo + j + q];
      let t = a[cq + j + q] * xq;
      for (let r = j + q + 1; r < j + 4; r++) {
        const arq = a[cq + r];
        y[yo + r] += arq * xq;
        t += arq * x[xo + r];
      }
      y[yo + j + q] += t;
    }
    let t0 = 0;
    let t1 = 0;
    let t2 = 0;
    let t3 = 0;
    for (let r = j + 4; r < m; r++) {
      const a0 = a[c0 + r];
      const a1 = a[c1 + r];
      const a2 = a[c2 + r];
      const a3 = a[c3 + r];
      const xr = x[xo + r];
      y[yo + r] += a0 * x0 + a1 * x1 + a2 * x2 + a3 * x3;
      t0 += a0 * xr;
      t1 += a1 * xr;
      t2 += a2 * xr;
      t3 += a3 * xr;
    }
    y[yo + j] += t0;
    y[yo + j + 1] += t1;
    y[yo + j + 2] += t2;
    y[yo + j + 3] += t3;
  }
  for (; j < m; j++) {
    const cb = (o + j) * lda + o;
    const xj = x[xo + j];
    let t = a[cb + j] * xj;
    for (let r = j + 1; r < m; r++) {
      const arj = a[cb + r];
      y[yo + r] += arj * xj;
      t += arj * x[xo + r];
    }
    y[yo + j] += t;
  }
}

/** dsytd2 on the trailing part starting at column i0. */
function reduceUnblocked(
  a: Float64Array,
  n: number,
  lda: number,
  i0: number,
  d: Float64Array,
  e: Float64Array,
  tau: Float64Array,
  y: Float64Array,
  coef: Float64Array,
): void {
  const t = new Float64Array(1);
  const arena = wasmArena();
  const inWasm = arena?.holds(a) && arena.holds(y) && arena.holds(coef);
  const cw = 2 * PANEL;
  for (let i = i0; i < n - 1; i++) {
    const col = i * lda;
    const o = i + 1;
    const m = n - o;
    const beta = makeReflector(a[col + o], a, col + o + 1, m - 1, t);
    e[i] = beta;
    const ti = t[0];
    tau[i] = ti;
    d[i] = a[col + i];
    if (ti !== 0) {
      a[col + o] = 1;
      // y = tau * A22 v (dsymv on the lower triangle).
      y.fill(0, 0, m);
      symmetricMatrixVector(a, lda, o, n, a, col + o, y, 0);
      for (let r = 0; r < m; r++) y[r] *= ti;
      // w = y - (tau / 2)(y . v) v, then A22 -= v w^T + w v^T (dsyr2).
      let yv = 0;
      for (let r = 0; r < m; r++) yv += y[r] * a[col + o + r];
      const alpha = -0.5 * ti * yv;
      for (let r = 0; r < m; r++) y[r] += alpha * a[col + o + r];
      for (let j = 0; j < m; j++) {
        const cb = (o + j) * lda + o;
        const vj = a[col + o + j];
        const wj = y[j];
        if (inWasm) {
          coef[cw] = wj;
          coef[cw + 1] = vj;
          const ab = a.byteOffset;
          (arena as WasmArena).kernels.combine2(
            ab + (cb + j) * 8,
            m - j,
            ab + (col + o + j) * 8,
            0,
            y.byteOffset + j * 8,
            0,
            1,
            coef.byteOffset + cw * 8,
            coef.byteOffset + (cw + 1) * 8,
          );
        } else {
          for (let r = j; r < m; r++) a[cb + r] -= a[col + o + r] * wj + y[r] * vj;
        }
      }
      a[col + o] = beta;
    }
  }
  if (n > 0) d[n - 1] = a[(n - 1) * lda + n - 1];
}

/**
 * dlatrd (lower): reduces columns i0 .. i0 + nb - 1 and builds W (nb x n, row l is
 * column l of LAPACK's W) such that the trailing matrix update is
 * A22 -= V W^T + W V^T. The unit entries of the reflectors are left in place for the
 * update; the caller restores the off-diagonal afterwards.
 */
function reducePanel(
  a: Float64Array,
  n: number,
  lda: number,
  i0: number,
  nb: number,
  e: Float64Array,
  tau: Float64Array,
  w: Float64Array,
  coef: Float64Array,
): void {
  const t = new Float64Array(1);
  const coefV = coef.subarray(0, nb);
  const coefW = coef.subarray(nb, 2 * nb);
  for (let ii = 0; ii < nb; ii++) {
    const c = i0 + ii;
    const col = c * lda;
    // Bring column c up to date with the panel's earlier reflectors:
    // a(c:n, c) -= V(c:n, 0:ii) W(c, 0:ii)^T + W(c:n, 0:ii) V(c, 0:ii)^T.
    for (let l = 0; l < ii; l++) {
      coefV[l] = w[l * n + c];
      coefW[l] = a[(i0 + l) * lda + c];
    }
    subtractPanelCombination(a, lda, i0, w, n, ii, coefV, coefW, a, col, c);
    if (c >= n - 1) continue;
    const o = c + 1;
    const m = n - o;
    e[c] = makeReflector(a[col + o], a, col + o + 1, m - 1, t);
    const ti = t[0];
    tau[c] = ti;
    a[col + o] = 1;
    const wrow = ii * n;
    // W(o:n, ii) = A22 v with A22 = a(o:n, o:n) as it was before this panel.
    w.fill(0, wrow + o, wrow + n);
    symmetricMatrixVector(a, lda, o, n, a, col + o, w, wrow + o);
    // Corrections for the panel's earlier reflectors:
    // W -= V (W_prev^T v) + W_prev (V^T v).
    panelInnerProducts(a, lda, i0, w, n, ii, a, col, o, coefV, coefW);
    subtractPanelCombination(a, lda, i0, w, n, ii, coefV, coefW, w, wrow, o);
    let wv = 0;
    for (let r = o; r < n; r++) {
      w[wrow + r] *= ti;
      wv += w[wrow + r] * a[col + r];
    }
    const alpha = -0.5 * ti * wv;
    for (let r = o; r < n; r++) w[wrow + r] += alpha * a[col + r];
  }
}

/**
 * target[to + r] -= sum_l V_l[r] coefV[l] + W_l[r] coefW[l] for r in [from, n), with
 * V_l the panel's reflector l (column i0 + l of a) and W_l row l of w. Two reflectors
 * per sweep, so that each load and store of the target serves four products.
 */
function subtractPanelCombination(
  a: Float64Array,
  lda: number,
  i0: number,
  w: Float64Array,
  n: number,
  count: number,
  coefV: Float64Array,
  coefW: Float64Array,
  target: Float64Array,
  to: number,
  from: number,
): void {
  if (count === 0 || from >= n) return;
  const arena = wasmArena();
  if (arena?.holds(a) && arena.holds(w) && arena.holds(target)) {
    arena.kernels.combine2(
      target.byteOffset + (to + from) * 8,
      n - from,
      a.byteOffset + (i0 * lda + from) * 8,
      lda,
      w.byteOffset + from * 8,
      n,
      count,
      coefV.byteOffset,
      coefW.byteOffset,
    );
    return;
  }
  let l = 0;
  for (; l + 1 < count; l += 2) {
    const v0 = (i0 + l) * lda;
    const v1 = v0 + lda;
    const w0 = l * n;
    const w1 = w0 + n;
    const p0 = coefV[l];
    const p1 = coefV[l + 1];
    const q0 = coefW[l];
    const q1 = coefW[l + 1];
    for (let r = from; r < n; r++) {
      target[to + r] -= a[v0 + r] * p0 + a[v1 + r] * p1 + w[w0 + r] * q0 + w[w1 + r] * q1;
    }
  }
  if (l < count) {
    const v0 = (i0 + l) * lda;
    const w0 = l * n;
    const p0 = coefV[l];
    const q0 = coefW[l];
    for (let r = from; r < n; r++) target[to + r] -= a[v0 + r] * p0 + w[w0 + r] * q0;
  }
}

/**
 * outW[l] = W_l . x and outV[l] = V_l . x over [from, n) for the panel's first `count`
 * reflectors and W rows, x = xs[xo + r]: two of each per sweep, x loaded once.
 */
function panelInnerProducts(
  a: Float64Array,
  lda: number,
  i0: number,
  w: Float64Array,
  n: number,
  count: number,
  xs: Float64Array,
  xo: number,
  from: number,
  outW: Float64Array,
  outV: Float64Array,
): void {
  if (count === 0) return;
  const arena = wasmArena();
  if (arena?.holds(a) && arena.holds(w) && arena.holds(xs)) {
    arena.kernels.dots2(
      a.byteOffset + (i0 * lda + from) * 8,
      lda,
      w.byteOffset + from * 8,
      n,
      count,
      xs.byteOffset + (xo + from) * 8,
      n - from,
      outV.byteOffset,
      outW.byteOffset,
    );
    return;
  }
  let l = 0;
  for (; l + 1 < count; l += 2) {
    const v0 = (i0 + l) * lda;
    const v1 = v0 + lda;
    const w0 = l * n;
    const w1 = w0 + n;
    let sw0 = 0;
    let sw1 = 0;
    let sv0 = 0;
    let sv1 = 0;
    for (let r = from; r < n; r++) {
      const x = xs[xo + r];
      sw0 += w[w0 + r] * x;
      sw1 += w[w1 + r] * x;
      sv0 += a[v0 + r] * x;
      sv1 += a[v1 + r] * x;
    }
    outW[l] = sw0;
    outW[l + 1] = sw1;
    outV[l] = sv0;
    outV[l + 1] = sv1;
  }
  if (l < count) {
    const v0 = (i0 + l) * lda;
    const w0 = l * n;
    let sw = 0;
    let sv = 0;
    for (let r = from; r < n; r++) {
      const x = xs[xo + r];
      sw += w[w0 + r] * x;
      sv += a[v0 + r] * x;
    }
    outW[l] = sw;
    outV[l] = sv;
  }
}

/**
 * dsyr2k on the trailing matrix after a panel: A22 -= V W^T + W V^T, with rows
 * r >= i0 + nb of the panel's reflectors V and of W. The stored lower-triangle entry
 * (r, c), r >= c, lives at a[c * lda + r]; in row-major terms of the storage that is
 * an upper-triangle product, computed block by block with the A B^T kernel as
 * storage[c][r] += [W(c) V(c)] . [-V(r) -W(r)].
 */
function symmetricRank2kUpdate(
  a: Float64Array,
  n: number,
  lda: number,
  i0: number,
  nb: number,
  w: Float64Array,
  lr: Float64Array,
): void {
  const s = i0 + nb;
  const m = n - s;
  const p = 2 * nb;
  // left: rows [W(r, :), V(r, :)]; right: rows [-V(r, :), -W(r, :)].
  const left = lr.subarray(0, m * p);
  const right = lr.subarray(m * p, 2 * m * p);
  for (let l = 0; l < nb; l++) {
    const vcol = (i0 + l) * lda;
    const wl = l * n;
    for (let r = 0; r < m; r++) {
      const vr = a[vcol + s + r];
      const wr = w[wl + s + r];
      left[r * p + l] = wr;
      left[r * p + nb + l] = vr;
      right[r * p + l] = -vr;
      right[r * p + nb + l] = -wr;
    }
  }
  const BS = 64;
  for (let c0 = 0; c0 < m; c0 += BS) {
    const cm = Math.min(BS, m - c0);
    gemmABtRaw(
      cm,
      m - c0,
      p,
      left.subarray(c0 * p),
      p,
      right.subarray(c0 * p),
      p,
      a.subarray((s + c0) * lda + s + c0),
      lda,
      true,
    );
  }
}

/**
 * Applies Q = H_0 ... H_{n-2} to k vectors held as rows of `z` (k x n, row-major):
 * z_j <- Q z_j. Reflectors are applied in blocks of PANEL in the compact-WY form
 * H_b ... H_{b+nb-1} = I - V S V^T (S upper triangular, dlarft forward/columnwise), so
 * each block costs two GEMM calls: M = Z^T V, then Z^T -= (M S^T) V^T.
 */
export function applyReflectors(tri: Tridiagonal, z: Float64Array, k: number): void {
  const n = tri.n;
  if (n - 1 <= 0 || k === 0) return;
  const sizes = [
    k * n,
    BACK_PANEL * n,
    n * BACK_PANEL,
    BACK_PANEL * BACK_PANEL,
    BACK_PANEL * BACK_PANEL,
    k * BACK_PANEL,
    k * BACK_PANEL,
  ];
  const arena = n >= RESIDENT_MIN ? wasmArena() : null;
  const mark = arena?.mark() ?? 0;
  const ptrs = arena?.allocAll(sizes) ?? null;
  if (arena && ptrs) {
    // WebAssembly backend: the vectors and the work arrays live in the module's memory
    // so that every GEMM runs in place.
    arena.pin();
    try {
      const [zw, vt, vrow, vtv, s, m1, m2] = ptrs.map((ptr, i) => arena.view(ptr, sizes[i]));
      zw.set(z.subarray(0, k * n));
      applyReflectorBlocks(tri, zw, k, vt, vrow, vtv, s, m1, m2);
      z.set(zw);
    } finally {
      arena.unpin();
      arena.release(mark);
    }
    return;
  }
  applyReflectorBlocks(
    tri,
    z,
    k,
    new Float64Array(sizes[1]),
    new Float64Array(sizes[2]),
    new Float64Array(sizes[3]),
    new Float64Array(sizes[4]),
    new Float64Array(sizes[5]),
    new Float64Array(sizes[6]),
  );
}

function applyReflectorBlocks(
  tri: Tridiagonal,
  z: Float64Array,
  k: number,
  vt: Float64Array,
  vrow: Float64Array,
  vtv: Float64Array,
  s: Float64Array,
  m1: Float64Array,
  m2: Float64Array,
): void {
  const { n, tau, reflectors: a, ld } = tri;
  const nr = n - 1;
  const lastStart = Math.floor((nr - 1) / BACK_PANEL) * BACK_PANEL;
  for (let b0 = lastStart; b0 >= 0; b0 -= BACK_PANEL) {
    const nb = Math.min(BACK_PANEL, nr - b0);
    const off = b0 + 1;
    const len = n - off;
    // V^T of the block, rows explicit (zeros above the unit entry).
    for (let l = 0; l < nb; l++) {
      const row = l * len;
      const i = b0 + l;
      for (let r = 0; r < l; r++) vt[row + r] = 0;
      vt[row + l] = 1;
      const src = i * ld;
      for (let r = l + 1; r < len; r++) vt[row + r] = a[src + off + r];
    }
    // S from tau and V^T V (dlarft): S[0:l, l] = -tau_l S[0:l, 0:l] (V^T v_l).
    gemmABtRaw(nb, nb, len, vt, len, vt, len, vtv, nb);
    s.fill(0);
    for (let l = 0; l < nb; l++) {
      const tl = tau[b0 + l];
      s[l * nb + l] = tl;
      for (let i = 0; i < l; i++) {
        let acc = 0;
        for (let j = i; j < l; j++) acc += s[i * nb + j] * vtv[j * nb + l];
        s[i * nb + l] = -tl * acc;
      }
    }
    // -S, so that the next products accumulate with the right sign.
    for (let i = 0; i < nb * nb; i++) s[i] = -s[i];
    // M1 = Z^T V (k x nb), contraction over the rows the block touches.
    gemmABtRaw(k, nb, len, z.subarray(off), n, vt, len, m1, nb);
    // M2 = M1 (-S)^T, so that Z^T += M2 V^T, i.e. Z -= V S (V^T Z).
    gemmABtRaw(k, nb, nb, m1, nb, s, nb, m2, nb);
    for (let r = 0; r < len; r++) {
      for (let l = 0; l < nb; l++) vrow[r * nb + l] = vt[l * len + r];
    }
    gemmABtRaw(k, len, nb, m2, nb, vrow, nb, z.subarray(off), n, true);
  }
}

/** Gershgorin-based norm of the tridiagonal block [lo, hi): max_i |d_i| + |e_{i-1}| + |e_i|. */
function blockNorm(d: Float64Array, e: Float64Array, lo: number, hi: number): number {
  let t = 0;
  for (let i = lo; i < hi; i++) {
    let v = Math.abs(d[i]);
    if (i > lo) v += Math.abs(e[i - 1]);
    if (i < hi - 1) v += Math.abs(e[i]);
    if (v > t) t = v;
  }
  return t;
}

/**
 * Sets negligible off-diagonal entries to zero and returns the start indices of the
 * unreduced blocks followed by n. Negligible means |e_i| <= eps * ||T||: that
 * perturbation is of the size the Householder reduction already made, so the
 * splitting keeps the solver backward stable.
 */
export function splitTridiagonal(d: Float64Array, e: Float64Array): Int32Array {
  const n = d.length;
  const tnorm = blockNorm(d, e, 0, n);
  const starts: number[] = [0];
  for (let i = 0; i < n - 1; i++) {
    if (Math.abs(e[i]) <= EPS * tnorm) {
      e[i] = 0;
      starts.push(i + 1);
    }
  }
  starts.push(n);
  return Int32Array.from(starts);
}

/**
 * Sturm counts at many shifts at once: `run(count)` sets out[s] to the number of
 * eigenvalues of the tridiagonal block [lo, hi) below x[s] for s < count (dlaebz's
 * count: the negative pivots of the LDL^T factorisation of T - x I, with pivots
 * smaller than pivmin replaced by -pivmin so that no division by zero occurs). One
 * count is a chain of dependent divisions (latency-bound), so several shifts are run
 * side by side: four in the TypeScript loop, eight in f64x2 lanes in the WebAssembly
 * kernel, which performs the same operations per shift, so both give the same counts.
 */
interface SturmCounter {
  readonly x: Float64Array;
  readonly out: Float64Array;
  run(count: number): void;
  dispose(): void;
}

function sturmCounter(
  d: Float64Array,
  e2: Float64Array,
  lo: number,
  hi: number,
  pivmin: number,
  capacity: number,
): SturmCounter {
  const m = hi - lo;
  const cap = capacity + 8;
  const arena = m >= STURM_WASM_MIN ? wasmArena() : null;
  const mark = arena?.mark() ?? 0;
  const ptrs = arena?.allocAll([m, m, cap, cap]) ?? null;
  if (arena && ptrs) {
    const [pd, pe, px, po] = ptrs;
    arena.pin();
    arena.view(pd, m).set(d.subarray(lo, hi));
    arena.view(pe, m).set(e2.subarray(lo, hi - 1));
    const kernels = arena.kernels;
    return {
      x: arena.view(px, cap),
      out: arena.view(po, cap),
      run(count: number): void {
        kernels.sturm(pd, pe, m, pivmin, px, count, po);
      },
      dispose(): void {
        arena.unpin();
        arena.release(mark);
      },
    };
  }
  const x = new Float64Array(cap);
  const out = new Float64Array(cap);
  return {
    x,
    out,
    run(count: number): void {
      for (let s = 0; s < count; s += 4) {
        const x0 = x[s];
        const x1 = s + 1 < count ? x[s + 1] : x0;
        const x2 = s + 2 < count ? x[s + 2] : x0;
        const x3 = s + 3 < count ? x[s + 3] : x0;
        const d0 = d[lo];
        let q0 = d0 - x0;
        let q1 = d0 - x1;
        let q2 = d0 - x2;
        let q3 = d0 - x3;
        if (Math.abs(q0) < pivmin) q0 = -pivmin;
        if (Math.abs(q1) < pivmin) q1 = -pivmin;
        if (Math.abs(q2) < pivmin) q2 = -pivmin;
        if (Math.abs(q3) < pivmin) q3 = -pivmin;
        let c0 = q0 <= 0 ? 1 : 0;
        let c1 = q1 <= 0 ? 1 : 0;
        let c2 = q2 <= 0 ? 1 : 0;
        let c3 = q3 <= 0 ? 1 : 0;
        for (let i = lo + 1; i < hi; i++) {
          const di = d[i];
          const ei = e2[i - 1];
          q0 = di - x0 - ei / q0;
          q1 = di - x1 - ei / q1;
          q2 = di - x2 - ei / q2;
          q3 = di - x3 - ei / q3;
          if (Math.abs(q0) < pivmin) q0 = -pivmin;
          if (Math.abs(q1) < pivmin) q1 = -pivmin;
          if (Math.abs(q2) < pivmin) q2 = -pivmin;
          if (Math.abs(q3) < pivmin) q3 = -pivmin;
          if (q0 <= 0) c0++;
          if (q1 <= 0) c1++;
          if (q2 <= 0) c2++;
          if (q3 <= 0) c3++;
        }
        out[s] = c0;
        out[s + 1] = c1;
        out[s + 2] = c2;
        out[s + 3] = c3;
      }
    },
    dispose(): void {},
  };
}

/** Below this block order the Sturm counts stay in TypeScript on the wasm backend. */
const STURM_WASM_MIN = 16;

/**
 * The `count` smallest eigenvalues (ascending) of the unreduced tridiagonal block
 * [lo, hi) by Sturm-sequence bisection (dstebz with range 'I', in dlaebz's
 * parallel form): a list of disjoint intervals, each with the counts of eigenvalues
 * below its ends, is bisected in rounds, all midpoints of a round counted together;
 * an interval is dropped once it holds no wanted eigenvalue and retired once it is
 * narrower than the tolerance, its eigenvalues taking its midpoint.
 */
function bisectSmallest(
  d: Float64Array,
  e: Float64Array,
  e2: Float64Array,
  lo: number,
  hi: number,
  count: number,
  pivmin: number,
): Float64Array {
  const size = hi - lo;
  const out = new Float64Array(count);
  if (size === 1) {
    out[0] = d[lo];
    return out;
  }
  let gl = Number.POSITIVE_INFINITY;
  let gu = Number.NEGATIVE_INFINITY;
  for (let i = lo; i < hi; i++) {
    let r = 0;
    if (i > lo) r += Math.abs(e[i - 1]);
    if (i < hi - 1) r += Math.abs(e[i]);
    gl = Math.min(gl, d[i] - r);
    gu = Math.max(gu, d[i] + r);
  }
  const tnorm = Math.max(Math.abs(gl), Math.abs(gu));
  // dstebz widens the Gershgorin interval so that rounding in the counts cannot push
  // an eigenvalue outside it.
  gl -= 2 * tnorm * ULP * size + 2 * pivmin;
  gu += 2 * tnorm * ULP * size + 2 * pivmin;
  const atol = ULP * tnorm + 2 * pivmin;
  // Active intervals [a, b) with na eigenvalues below a and nb below b. Each holds at
  // least one wanted index (na < count) and they are disjoint, so at most `count`.
  let a = new Float64Array(count);
  let b = new Float64Array(count);
  let na = new Int32Array(count);
  let nb = new Int32Array(count);
  let na2 = new Int32Array(count);
  let nb2 = new Int32Array(count);
  let a2 = new Float64Array(count);
  let b2 = new Float64Array(count);
  a[0] = gl;
  b[0] = gu;
  na[0] = 0;
  nb[0] = size;
  let active = 1;
  const counter = sturmCounter(d, e2, lo, hi, pivmin, count);
  const x = counter.x;
  const counts = counter.out;
  try {
    for (let round = 0; active > 0 && round < 2200; round++) {
      // Retire converged intervals; the others are bisected in this round.
      let kept = 0;
      for (let t = 0; t < active; t++) {
        const at = a[t];
        const bt = b[t];
        const mid = 0.5 * (at + bt);
        const width = bt - at;
        if (
          width <= Math.max(atol, 2 * ULP * Math.max(Math.abs(at), Math.abs(bt))) ||
          mid === at ||
          mid === bt
        ) {
          const last = Math.min(nb[t], count);
          for (let j = na[t]; j < last; j++) out[j] = mid;
          continue;
        }
        a[kept] = at;
        b[kept] = bt;
        na[kept] = na[t];
        nb[kept] = nb[t];
        x[kept] = mid;
        kept++;
      }
      if (kept === 0) break;
      counter.run(kept);
      let next = 0;
      for (let t = 0; t < kept; t++) {
        const mid = x[t];
        // Counts are monotone in exact arithmetic; keep rounding from breaking that.
        const c = Math.min(nb[t], Math.max(na[t], counts[t]));
        if (c > na[t]) {
          a2[next] = a[t];
          b2[next] = mid;
          na2[next] = na[t];
          nb2[next] = c;
          next++;
        }
        if (nb[t] > c && c < count) {
          a2[next] = mid;
          b2[next] = b[t];
          na2[next] = c;
          nb2[next] = nb[t];
          next++;
        }
      }
      [a, a2] = [a2, a];
      [b, b2] = [b2, b];
      [na, na2] = [na2, na];
      [nb, nb2] = [nb2, nb];
      active = next;
    }
  } finally {
    counter.dispose();
  }
  // Unconverged after the iteration cap (not seen in practice): the midpoints.
  for (let t = 0; t < active; t++) {
    const last = Math.min(nb[t], count);
    for (let j = na[t]; j < last; j++) out[j] = 0.5 * (a[t] + b[t]);
  }
  for (let j = 1; j < count; j++) if (out[j] < out[j - 1]) out[j] = out[j - 1];
  return out;
}

/** Eigenvalues chosen from the blocks of a split tridiagonal: value and owning block. */
export interface SelectedEigenvalues {
  /** Ascending. */
  readonly values: Float64Array;
  /** Index into `starts` of the block each value belongs to. */
  readonly block: Int32Array;
  readonly starts: Int32Array;
}

/**
 * The k smallest eigenvalues of T (diagonal d, off-diagonal e; e is modified by the
 * splitting). Each unreduced block contributes a prefix of its own spectrum, so each
 * block is bisected for at most k values and the results are merged.
 */
export function smallestTridiagonalEigenvalues(
  d: Float64Array,
  e: Float64Array,
  k: number,
): SelectedEigenvalues {
  const starts = splitTridiagonal(d, e);
  const n = d.length;
  const e2 = new Float64Array(Math.max(n - 1, 0));
  let maxE2 = 0;
  for (let i = 0; i < n - 1; i++) {
    e2[i] = e[i] * e[i];
    if (e2[i] > maxE2) maxE2 = e2[i];
  }
  const pivmin = SAFMIN * Math.max(1, maxE2);
  const candidates: Array<{ value: number; block: number; order: number }> = [];
  for (let b = 0; b + 1 < starts.length; b++) {
    const lo = starts[b];
    const hi = starts[b + 1];
    const vals = bisectSmallest(d, e, e2, lo, hi, Math.min(k, hi - lo), pivmin);
    for (let j = 0; j < vals.length; j++) {
      candidates.push({ value: vals[j], block: b, order: candidates.length });
    }
  }
  candidates.sort((x, y) => x.value - y.value || x.order - y.order);
  const values = new Float64Array(k);
  const block = new Int32Array(k);
  for (let j = 0; j < k; j++) {
    values[j] = candidates[j].value;
    block[j] = candidates[j].block;
  }
  return { values, block, starts };
}

/**
 * The work inverse iteration would do for the selected eigenvalues (the cost model
 * that chooses between it and divide and conquer): `vectorElements` = sum over vectors
 * of their block's order, `pairElements` = sum over vectors of (earlier vectors of the
 * same cluster) x block order, i.e. the re-orthogonalisation, which grows with the
 * square of the cluster sizes. Clusters are found exactly as tridiagonalEigenvectors
 * finds them.
 */
export function inverseIterationWork(
  d: Float64Array,
  e: Float64Array,
  selected: SelectedEigenvalues,
): { vectorElements: number; pairElements: number } {
  const { values, block, starts } = selected;
  const k = values.length;
  let vectorElements = 0;
  let pairElements = 0;
  const last = new Map<number, { xjm: number; gpind: number; jb: number; ortol: number }>();
  for (let j = 0; j < k; j++) {
    const b = block[j];
    const lo = starts[b];
    const hi = starts[b + 1];
    const m = hi - lo;
    vectorElements += m;
    if (m === 1) continue;
    let state = last.get(b);
    let xj = values[j];
    if (state === undefined) {
      state = { xjm: xj, gpind: 0, jb: 0, ortol: 1e-3 * blockNorm(d, e, lo, hi) };
      last.set(b, state);
    } else {
      state.jb++;
      const pertol = 10 * Math.abs(EPS * xj);
      if (xj - state.xjm < pertol) xj = state.xjm + pertol;
      if (Math.abs(xj - state.xjm) > state.ortol) state.gpind = state.jb;
      state.xjm = xj;
    }
    pairElements += (state.jb - state.gpind) * m;
  }
  return { vectorElements, pairElements };
}

/**
 * dlagtf: factorises T - lambda I = P L U with partial pivoting, for the symmetric
 * tridiagonal block with diagonal `a` and off-diagonals `b` (super) and `c` (sub),
 * overwritten in place; `d2` receives U's second super-diagonal and `piv` the
 * interchanges.
 */
function factorShiftedTridiagonal(
  m: number,
  a: Float64Array,
  lambda: number,
  b: Float64Array,
  c: Float64Array,
  d2: Float64Array,
  piv: Uint8Array,
): void {
  a[0] -= lambda;
  if (m === 1) return;
  let scale1 = Math.abs(a[0]) + Math.abs(b[0]);
  for (let k = 0; k < m - 1; k++) {
    a[k + 1] -= lambda;
    let scale2 = Math.abs(c[k]) + Math.abs(a[k + 1]);
    if (k < m - 2) scale2 += Math.abs(b[k + 1]);
    const piv1 = a[k] === 0 ? 0 : Math.abs(a[k]) / scale1;
    if (c[k] === 0) {
      piv[k] = 0;
      scale1 = scale2;
      if (k < m - 2) d2[k] = 0;
    } else {
      const piv2 = Math.abs(c[k]) / scale2;
      if (piv2 <= piv1) {
        piv[k] = 0;
        scale1 = scale2;
        c[k] /= a[k];
        a[k + 1] -= c[k] * b[k];
        if (k < m - 2) d2[k] = 0;
      } else {
        piv[k] = 1;
        const mult = a[k] / c[k];
        a[k] = c[k];
        const temp = a[k + 1];
        a[k + 1] = b[k] - mult * temp;
        if (k < m - 2) {
          d2[k] = b[k + 1];
          b[k + 1] = -mult * d2[k];
        }
        b[k] = temp;
        c[k] = mult;
      }
    }
  }
}

const BIGNUM = 1 / SAFMIN;

/**
 * dlagts with job = -1: solves (T - lambda I) x = y using the dlagtf factors, adding a
 * small perturbation of sign(u_kk) * tol to pivots that would overflow the solve (the
 * point of inverse iteration is that T - lambda I is nearly singular).
 */
function solveShiftedTridiagonal(
  m: number,
  a: Float64Array,
  b: Float64Array,
  c: Float64Array,
  d2: Float64Array,
  piv: Uint8Array,
  y: Float64Array,
  tol: number,
): void {
  for (let k = 1; k < m; k++) {
    if (piv[k - 1] === 0) {
      y[k] -= c[k - 1] * y[k - 1];
    } else {
      const temp = y[k - 1];
      y[k - 1] = y[k];
      y[k] = temp - c[k - 1] * y[k];
    }
  }
  for (let k = m - 1; k >= 0; k--) {
    let temp: number;
    if (k <= m - 3) temp = y[k] - b[k] * y[k + 1] - d2[k] * y[k + 2];
    else if (k === m - 2) temp = y[k] - b[k] * y[k + 1];
    else temp = y[k];
    let ak = a[k];
    let pert = ak >= 0 ? tol : -tol;
    for (;;) {
      const absak = Math.abs(ak);
      if (absak < 1) {
        if (absak < SAFMIN) {
          if (absak === 0 || Math.abs(temp) * SAFMIN > absak) {
            ak += pert;
            pert *= 2;
            continue;
          }
          temp *= BIGNUM;
          ak *= BIGNUM;
        } else if (Math.abs(temp) > absak * BIGNUM) {
          ak += pert;
          pert *= 2;
          continue;
        }
      }
      break;
    }
    y[k] = temp / ak;
  }
}

/**
 * Eigenvectors of the tridiagonal for the selected eigenvalues by inverse iteration
 * (LAPACK dstein): each vector is computed on its own unreduced block, from a seeded
 * random start, with at most five solves; eigenvalues closer than 1e-3 ||T_block||
 * form a cluster inside which every iterate is re-orthogonalised (modified
 * Gram-Schmidt, applied twice so that orthogonality holds to working precision even
 * when the solve returns mostly a direction already found). Returns the vectors as
 * rows of a k x n array, and how many of them missed dstein's growth test.
 */
export function tridiagonalEigenvectors(
  d: Float64Array,
  e: Float64Array,
  selected: SelectedEigenvalues,
): { vectors: Float64Array; unconverged: number } {
  const n = d.length;
  const { values, block, starts } = selected;
  const k = values.length;
  const z = new Float64Array(k * n);
  const rng = new Random(0x5eed);
  const wa = new Float64Array(n);
  const wb = new Float64Array(n);
  const wc = new Float64Array(n);
  const wd = new Float64Array(n);
  const piv = new Uint8Array(n);
  // Vectors of one block are consecutive in `values` order only within that block, so
  // process block by block, keeping the global output order.
  const byBlock = new Map<number, number[]>();
  for (let j = 0; j < k; j++) {
    const list = byBlock.get(block[j]);
    if (list) list.push(j);
    else byBlock.set(block[j], [j]);
  }
  // Each block's vectors are built in zb (row q: the q-th vector of the block, length
  // m) so that a cluster is a contiguous strided block for the re-orthogonalisation;
  // on the wasm backend zb, x and the coefficients live in the module's memory.
  let zbLen = 0;
  for (const [b, list] of byBlock) {
    zbLen = Math.max(zbLen, list.length * (starts[b + 1] - starts[b]));
  }
  const candidate = n >= RESIDENT_MIN ? wasmArena() : null;
  const mark = candidate?.mark() ?? 0;
  const ptrs = candidate?.allocAll([zbLen, n, k + 2]) ?? null;
  const arena = ptrs ? candidate : null;
  let zb: Float64Array;
  let x: Float64Array;
  let coef: Float64Array;
  if (arena && ptrs) {
    const [pz, px, pc] = ptrs;
    arena.pin();
    zb = arena.view(pz, zbLen);
    x = arena.view(px, n);
    coef = arena.view(pc, k + 2);
  } else {
    zb = new Float64Array(zbLen);
    x = new Float64Array(n);
    coef = new Float64Array(k + 2);
  }
  let failures = 0;
  try {
    const work = { wa, wb, wc, wd, piv };
    failures = inverseIterationBlocks(d, e, values, starts, byBlock, rng, z, zb, x, coef, work);
  } finally {
    if (arena) {
      arena.unpin();
      arena.release(mark);
    }
  }
  // Like dstein, an iterate that missed the growth test is still returned (it is
  // accurate whenever the eigenvalue is); the caller decides what to do with the count.
  return { vectors: z, unconverged: failures };
}

function inverseIterationBlocks(
  d: Float64Array,
  e: Float64Array,
  values: Float64Array,
  starts: Int32Array,
  byBlock: Map<number, number[]>,
  rng: Random,
  z: Float64Array,
  zb: Float64Array,
  x: Float64Array,
  coef: Float64Array,
  work: {
    wa: Float64Array;
    wb: Float64Array;
    wc: Float64Array;
    wd: Float64Array;
    piv: Uint8Array;
  },
): number {
  const n = d.length;
  const { wa, wb, wc, wd, piv } = work;
  let failures = 0;
  for (const [b, list] of byBlock) {
    const lo = starts[b];
    const hi = starts[b + 1];
    const m = hi - lo;
    if (m === 1) {
      for (const j of list) z[j * n + lo] = 1;
      continue;
    }
    const onenrm = blockNorm(d, e, lo, hi);
    const ortol = 1e-3 * onenrm;
    const dtpcrt = Math.sqrt(0.1 / m);
    let xjm = 0;
    let gpind = 0;
    for (let jb = 0; jb < list.length; jb++) {
      const j = list[jb];
      let xj = values[j];
      if (jb > 0) {
        const pertol = 10 * Math.abs(EPS * xj);
        if (xj - xjm < pertol) xj = xjm + pertol;
        if (Math.abs(xj - xjm) > ortol) gpind = jb;
      } else {
        gpind = 0;
      }
      for (let i = 0; i < m; i++) x[i] = 2 * rng.uniform() - 1;
      for (let i = 0; i < m; i++) wa[i] = d[lo + i];
      for (let i = 0; i < m - 1; i++) {
        wb[i] = e[lo + i];
        wc[i] = e[lo + i];
      }
      factorShiftedTridiagonal(m, wa, xj, wb, wc, wd, piv);
      let tol = Math.abs(wa[0]);
      if (m > 1) tol = Math.max(tol, Math.abs(wa[1]), Math.abs(wb[0]));
      for (let i = 2; i < m; i++) {
        tol = Math.max(tol, Math.abs(wa[i]), Math.abs(wb[i - 1]), Math.abs(wd[i - 2]));
      }
      tol *= EPS;
      if (tol === 0) tol = EPS;
      let nrmchk = 0;
      let converged = false;
      let jmax = 0;
      for (let its = 0; its < 5; its++) {
        let asum = 0;
        for (let i = 0; i < m; i++) asum += Math.abs(x[i]);
        const scl = (m * onenrm * Math.max(EPS, Math.abs(wa[m - 1]))) / asum;
        for (let i = 0; i < m; i++) x[i] *= scl;
        solveShiftedTridiagonal(m, wa, wb, wc, wd, piv, x, tol);
        if (gpind !== jb) {
          orthogonalizeAgainstRows(zb, m, gpind, jb, x, coef);
          orthogonalizeAgainstRows(zb, m, gpind, jb, x, coef);
        }
        jmax = 0;
        let nrm = 0;
        for (let i = 0; i < m; i++) {
          const v = Math.abs(x[i]);
          if (v > nrm) {
            nrm = v;
            jmax = i;
          }
        }
        if (nrm < dtpcrt) continue;
        nrmchk++;
        if (nrmchk < 3) continue;
        converged = true;
        break;
      }
      if (!converged) failures++;
      let ss = 0;
      let big = 0;
      for (let i = 0; i < m; i++) big = Math.max(big, Math.abs(x[i]));
      if (!(big > 0) || !Number.isFinite(big)) {
        throw new ConvergenceError(
          `Inverse iteration produced no usable eigenvector for the eigenvalue ${values[j]}.`,
        );
      }
      for (let i = 0; i < m; i++) {
        x[i] /= big;
        ss += x[i] * x[i];
      }
      let scl = 1 / Math.sqrt(ss);
      if (x[jmax] < 0) scl = -scl;
      const zo = j * n + lo;
      const qo = jb * m;
      for (let i = 0; i < m; i++) {
        const v = x[i] * scl;
        zb[qo + i] = v;
        z[zo + i] = v;
      }
      xjm = xj;
    }
  }
  return failures;
}

/**
 * One classical Gram-Schmidt pass of x (length m) against rows g..h-1 of rows (row q
 * at q * m, orthonormal): c = R x, then x -= R^T c. Called twice ("twice is enough"):
 * the second pass removes what cancellation left of the first. On the wasm backend
 * both products run in the SIMD kernels (dots2 and combine2, half of the rows as each
 * of their two operands).
 */
function orthogonalizeAgainstRows(
  rows: Float64Array,
  m: number,
  g: number,
  h: number,
  x: Float64Array,
  coef: Float64Array,
): void {
  const count = h - g;
  const arena = wasmArena();
  if (arena?.holds(rows) && arena.holds(x) && arena.holds(coef)) {
    const kernels = arena.kernels;
    const half = count >> 1;
    const base = rows.byteOffset + g * m * 8;
    const second = base + half * m * 8;
    const c = coef.byteOffset;
    const px = x.byteOffset;
    kernels.dots2(base, m, second, m, half, px, m, c, c + half * 8);
    if (count & 1) {
      const last = base + (count - 1) * m * 8;
      kernels.dots2(last, m, last, m, 1, px, m, c + 2 * half * 8, c + (2 * half + 1) * 8);
      coef[2 * half + 1] = 0;
      kernels.combine2(px, m, base, m, second, m, half, c, c + half * 8);
      kernels.combine2(px, m, last, m, last, m, 1, c + 2 * half * 8, c + (2 * half + 1) * 8);
    } else {
      kernels.combine2(px, m, base, m, second, m, half, c, c + half * 8);
    }
    return;
  }
  for (let q = 0; q < count; q++) {
    const ro = (g + q) * m;
    let s = 0;
    for (let i = 0; i < m; i++) s += x[i] * rows[ro + i];
    coef[q] = s;
  }
  for (let q = 0; q < count; q++) {
    const ro = (g + q) * m;
    const c = coef[q];
    for (let i = 0; i < m; i++) x[i] -= c * rows[ro + i];
  }
}

/**
 * All eigenvalues of T, and optionally its eigenvectors as rows of z (n x n, which
 * must hold the identity on entry), by implicit QL with Wilkinson shifts (EISPACK
 * tql2). Returns the eigenvalues unsorted; the caller sorts and permutes.
 * Rows of z only ever mix with their neighbours inside an unreduced block, so each
 * rotation touches the column range those rows can be non-zero in.
 */
export function tridiagonalQL(d: Float64Array, eIn: Float64Array, z: Float64Array | null): void {
  const n = d.length;
  if (n <= 1) return;
  const e = new Float64Array(n);
  e.set(eIn.subarray(0, n - 1));
  e[n - 1] = 0;
  const lo = new Int32Array(n);
  const hi = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    lo[i] = i;
    hi[i] = i + 1;
  }
  let f = 0;
  let tst1 = 0;
  let iterations = 0;
  const maxIterations = 30 * n;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
    let m = l;
    while (m < n - 1) {
      if (Math.abs(e[m]) <= ULP * tst1) break;
      m++;
    }
    if (m > l) {
      do {
        if (++iterations > maxIterations) {
          throw new ConvergenceError(
            `The implicit QL iteration did not converge within ${maxIterations} sweeps (a non-finite entry in the matrix?).`,
          );
        }
        let g = d[l];
        let p = (d[l + 1] - g) / (2 * e[l]);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        const dl1 = d[l + 1];
        let h = g - d[l];
        for (let i = l + 2; i < n; i++) d[i] -= h;
        f += h;
        p = d[m];
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1];
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = Math.hypot(p, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = p / r;
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          if (z !== null) {
            const r0 = i * n;
            const r1 = r0 + n;
            const from = Math.min(lo[i], lo[i + 1]);
            const to = Math.max(hi[i], hi[i + 1]);
            lo[i] = lo[i + 1] = from;
            hi[i] = hi[i + 1] = to;
            for (let q = from; q < to; q++) {
              const zi = z[r0 + q];
              const zi1 = z[r1 + q];
              z[r1 + q] = s * zi + c * zi1;
              z[r0 + q] = c * zi - s * zi1;
            }
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]) > ULP * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
}

/** Below this size the divide-and-conquer recursion hands its block to implicit QL. */
const DC_LEAF = 32;

/** Eigenpairs of a symmetric tridiagonal block: ascending values, eigenvectors as columns. */
interface TridiagonalEigen {
  values: Float64Array;
  /** size x size row-major, column j the eigenvector of values[j]. */
  Q: Float64Array;
}

/**
 * All eigenpairs of T by Cuppen's divide and conquer (LAPACK dstedc / dlaed0-dlaed4):
 * T = diag(T1, T2) + rho u u^T is split at the middle, both halves are solved
 * recursively, and the rank-one update of their spectra is solved through the secular
 * equation. Deflation removes negligible components and near-equal pairs; the
 * eigenvectors of the remaining part come from Gu & Eisenstat's recomputed z, which
 * keeps them orthogonal to working precision, and are mapped back with two GEMMs.
 * Returns the values ascending and the eigenvectors as rows of a n x n array.
 */
export function tridiagonalDivideAndConquer(
  d: Float64Array,
  e: Float64Array,
): { values: Float64Array; z: Float64Array } {
  const n = d.length;
  const res = divideAndConquer(d.slice(), e.slice(), 0, n);
  // Columns to rows ("vectors as rows" for the back-transformation).
  const z = new Float64Array(n * n);
  const Q = res.Q;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) z[j * n + i] = Q[i * n + j];
  }
  return { values: res.values, z };
}

function leafEigen(d: Float64Array, e: Float64Array, lo: number, hi: number): TridiagonalEigen {
  const m = hi - lo;
  const dd = d.slice(lo, hi);
  const ee = e.slice(lo, Math.max(lo, hi - 1));
  const z = new Float64Array(m * m);
  for (let i = 0; i < m; i++) z[i * m + i] = 1;
  tridiagonalQL(dd, ee, z);
  const order = Array.from({ length: m }, (_, i) => i).sort((x, y) => dd[x] - dd[y] || x - y);
  const values = new Float64Array(m);
  const Q = new Float64Array(m * m);
  for (let j = 0; j < m; j++) {
    const src = order[j];
    values[j] = dd[src];
    for (let i = 0; i < m; i++) Q[i * m + j] = z[src * m + i];
  }
  return { values, Q };
}

function divideAndConquer(
  d: Float64Array,
  e: Float64Array,
  lo: number,
  hi: number,
): TridiagonalEigen {
  const m = hi - lo;
  if (m <= DC_LEAF) return leafEigen(d, e, lo, hi);
  const mid = lo + (m >> 1);
  const beta = e[mid - 1];
  const ab = Math.abs(beta);
  // Tear: T = diag(T1 - |beta| e_last e_last^T, T2 - |beta| e_1 e_1^T) + |beta| u u^T
  // with u = e_last + sign(beta) e_first.
  d[mid - 1] -= ab;
  d[mid] -= ab;
  const left = divideAndConquer(d, e, lo, mid);
  const right = divideAndConquer(d, e, mid, hi);
  return mergeRankOne(left, right, mid - lo, hi - mid, ab, beta < 0 ? -1 : 1);
}

/**
 * dlaed1-dlaed3: the eigen-decomposition of diag(D1, D2) + rho z z^T in the basis
 * blockdiag(Q1, Q2), with z = [last row of Q1, sign * first row of Q2].
 */
function mergeRankOne(
  left: TridiagonalEigen,
  right: TridiagonalEigen,
  n1: number,
  n2: number,
  beta: number,
  sign: number,
): TridiagonalEigen {
  const n = n1 + n2;
  // Columns of the block-diagonal basis, by index 0..n-1 (left block first).
  const dAll = new Float64Array(n);
  const z = new Float64Array(n);
  dAll.set(left.values, 0);
  dAll.set(right.values, n1);
  for (let j = 0; j < n1; j++) z[j] = left.Q[(n1 - 1) * n1 + j];
  for (let j = 0; j < n2; j++) z[n1 + j] = sign * right.Q[j];
  // ||z|| = sqrt(2): normalise it into rho.
  const rho = 2 * beta;
  for (let i = 0; i < n; i++) z[i] *= Math.SQRT1_2;
  // The basis as explicit columns that may get mixed by deflation rotations: keep
  // each column's top (rows 0..n1-1) and bottom (rows n1..n-1) parts separately.
  const top: Array<Float64Array | null> = new Array(n);
  const bottom: Array<Float64Array | null> = new Array(n);
  for (let j = 0; j < n1; j++) {
    const c = new Float64Array(n1);
    for (let i = 0; i < n1; i++) c[i] = left.Q[i * n1 + j];
    top[j] = c;
    bottom[j] = null;
  }
  for (let j = 0; j < n2; j++) {
    const c = new Float64Array(n2);
    for (let i = 0; i < n2; i++) c[i] = right.Q[i * n2 + j];
    top[n1 + j] = null;
    bottom[n1 + j] = c;
  }
  // Process the poles in ascending order of d (both halves are sorted: merge them).
  const order = new Int32Array(n);
  {
    let a = 0;
    let b = n1;
    for (let t = 0; t < n; t++) {
      if (b >= n || (a < n1 && dAll[a] <= dAll[b])) order[t] = a++;
      else order[t] = b++;
    }
  }
  let dmax = 0;
  for (let i = 0; i < n; i++) dmax = Math.max(dmax, Math.abs(dAll[i]));
  const tol = 8 * ULP * Math.max(dmax, rho);
  const deflated: number[] = [];
  const kept: number[] = [];
  if (rho * 1 <= tol) {
    // No coupling to speak of: every pole is an eigenvalue already.
    for (let t = 0; t < n; t++) deflated.push(order[t]);
  } else {
    let prev = -1;
    for (let t = 0; t < n; t++) {
      const i = order[t];
      if (rho * Math.abs(z[i]) <= tol) {
        deflated.push(i);
        continue;
      }
      if (prev < 0) {
        prev = i;
        continue;
      }
      // Near-equal poles: a rotation zeroes z[prev] when the cost |(d_i - d_prev) c s| is
      // below tol (dlaed2).
      const s0 = z[prev];
      const c0 = z[i];
      const r = Math.hypot(c0, s0);
      const c = c0 / r;
      const s = -s0 / r;
      const gap = dAll[i] - dAll[prev];
      if (Math.abs(gap * c * s) <= tol) {
        z[i] = r;
        z[prev] = 0;
        rotateColumns(top, bottom, prev, i, c, s, n1, n2);
        const dp = dAll[prev];
        const di = dAll[i];
        dAll[prev] = dp * c * c + di * s * s;
        dAll[i] = dp * s * s + di * c * c;
        deflated.push(prev);
        prev = i;
      } else {
        kept.push(prev);
        prev = i;
      }
    }
    if (prev >= 0) kept.push(prev);
  }
  const K = kept.length;
  const values = new Float64Array(n);
  const outCols: Array<{ value: number; top: Float64Array | null; bottom: Float64Array | null }> =
    [];
  for (const i of deflated) outCols.push({ value: dAll[i], top: top[i], bottom: bottom[i] });
  if (K > 0) {
    // The kept poles are in ascending order except where a rotation changed d_prev;
    // rotations only move d within [d_prev, d_i], so re-sorting keeps the pairing.
    kept.sort((x, y) => dAll[x] - dAll[y] || x - y);
    const dk = new Float64Array(K);
    const zk = new Float64Array(K);
    for (let t = 0; t < K; t++) {
      dk[t] = dAll[kept[t]];
      zk[t] = z[kept[t]];
    }
    let zn = 0;
    for (let t = 0; t < K; t++) zn += zk[t] * zk[t];
    zn = Math.sqrt(zn);
    for (let t = 0; t < K; t++) zk[t] /= zn;
    const rhoK = rho * zn * zn;
    const { lambda, U } = secularEigen(dk, zk, rhoK);
    // New columns: Qb[:, kept] U, computed on the top and bottom rows separately with
    // only the kept columns that are non-zero there (dlaed3's column types).
    const topIdx: number[] = [];
    const botIdx: number[] = [];
    for (let t = 0; t < K; t++) {
      if (top[kept[t]] !== null) topIdx.push(t);
      if (bottom[kept[t]] !== null) botIdx.push(t);
    }
    const newTop = mapColumns(top, kept, topIdx, U, K, n1);
    const newBottom = mapColumns(bottom, kept, botIdx, U, K, n2);
    for (let j = 0; j < K; j++) {
      outCols.push({
        value: lambda[j],
        top: newTop ? newTop[j] : null,
        bottom: newBottom ? newBottom[j] : null,
      });
    }
  }
  const perm = outCols
    .map((_, j) => j)
    .sort((x, y) => outCols[x].value - outCols[y].value || x - y);
  const Q = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    const col = outCols[perm[j]];
    values[j] = col.value;
    if (col.top) for (let i = 0; i < n1; i++) Q[i * n + j] = col.top[i];
    if (col.bottom) for (let i = 0; i < n2; i++) Q[(n1 + i) * n + j] = col.bottom[i];
  }
  return { values, Q };
}

/** Applies the Givens rotation (c, s) to basis columns p and q (both parts). */
function rotateColumns(
  top: Array<Float64Array | null>,
  bottom: Array<Float64Array | null>,
  p: number,
  q: number,
  c: number,
  s: number,
  n1: number,
  n2: number,
): void {
  for (const [part, len] of [
    [top, n1],
    [bottom, n2],
  ] as const) {
    const a = part[p];
    const b = part[q];
    if (a === null && b === null) continue;
    const x = a ?? new Float64Array(len);
    const y = b ?? new Float64Array(len);
    // drot(Q(:, p), Q(:, q), c, s): x' = c x + s y, y' = c y - s x.
    for (let i = 0; i < len; i++) {
      const xi = x[i];
      const yi = y[i];
      x[i] = c * xi + s * yi;
      y[i] = c * yi - s * xi;
    }
    part[p] = x;
    part[q] = y;
  }
}

/**
 * Rows of one part (top or bottom) of Qb[:, kept] U: (len x |idx|) times the matching
 * rows of U (|idx| x K), by the GEMM kernel. Returns the K new columns, or null when
 * no kept column touches this part.
 */
function mapColumns(
  part: Array<Float64Array | null>,
  kept: number[],
  idx: number[],
  U: Float64Array,
  K: number,
  len: number,
): Float64Array[] | null {
  if (idx.length === 0 || len === 0) return null;
  const p = idx.length;
  // A: the part's columns as rows (p x len); B: U^T restricted to rows idx (K x p).
  const A = new Float64Array(p * len);
  for (let t = 0; t < p; t++) A.set(part[kept[idx[t]]] as Float64Array, t * len);
  const At = new Float64Array(len * p);
  for (let t = 0; t < p; t++) for (let i = 0; i < len; i++) At[i * p + t] = A[t * len + i];
  const Bt = new Float64Array(K * p);
  for (let j = 0; j < K; j++) for (let t = 0; t < p; t++) Bt[j * p + t] = U[idx[t] * K + j];
  // C (K x len) = Bt At^T: row j is the new column j restricted to this part.
  const C = new Float64Array(K * len);
  gemmABtRaw(K, len, p, Bt, p, At, p, C, len);
  const out: Float64Array[] = new Array(K);
  for (let j = 0; j < K; j++) out[j] = C.subarray(j * len, (j + 1) * len);
  return out;
}

/**
 * Eigenpairs of D + rho z z^T (d strictly increasing in practice, z of unit norm with
 * no negligible entry, rho > 0): the roots of the secular equation
 * f(lambda) = 1 + rho sum_i z_i^2 / (d_i - lambda) (dlaed4), then Gu & Eisenstat's
 * recomputed z for the vectors (dlaed3). Each root is kept as an offset tau from its
 * nearer pole so that every difference d_i - lambda is formed without cancellation.
 * Returns the roots ascending and U (K x K row-major, column j for root j).
 */
function secularEigen(
  d: Float64Array,
  z: Float64Array,
  rho: number,
): { lambda: Float64Array; U: Float64Array } {
  const K = d.length;
  const lambda = new Float64Array(K);
  const U = new Float64Array(K * K);
  if (K === 1) {
    lambda[0] = d[0] + rho * z[0] * z[0];
    U[0] = 1;
    return { lambda, U };
  }
  // delta[j * K + i] = d_i - lambda_j, accurate.
  const delta = new Float64Array(K * K);
  const origin = new Int32Array(K);
  const tauOf = new Float64Array(K);
  for (let j = 0; j < K; j++) {
    const { base, tau } = secularRoot(d, z, rho, j);
    origin[j] = base;
    tauOf[j] = tau;
    const db = d[base];
    for (let i = 0; i < K; i++) delta[j * K + i] = d[i] - db - tau;
    lambda[j] = db + tau;
  }
  // Gu-Eisenstat: zhat_i^2 = prod_j (lambda_j - d_i) / (rho prod_{k != i} (d_k - d_i)),
  // the z for which the computed roots are exact; formed as a product of ratios of
  // comparable size so that it neither overflows nor underflows.
  const zhat = new Float64Array(K);
  for (let i = 0; i < K; i++) {
    let prod = -delta[i * K + i] / rho; // (lambda_i - d_i) / rho
    for (let k = 0; k < K; k++) {
      if (k === i) continue;
      // (lambda_k - d_i) / (d_k - d_i)
      prod *= -delta[k * K + i] / (d[k] - d[i]);
    }
    const mag = Math.sqrt(Math.max(prod, 0));
    zhat[i] = z[i] >= 0 ? mag : -mag;
  }
  for (let j = 0; j < K; j++) {
    let ss = 0;
    for (let i = 0; i < K; i++) {
      const v = zhat[i] / delta[j * K + i];
      U[i * K + j] = v;
      ss += v * v;
    }
    const f = 1 / Math.sqrt(ss);
    for (let i = 0; i < K; i++) U[i * K + j] *= f;
  }
  return { lambda, U };
}

/**
 * The j-th root of 1 + rho sum_i z_i^2 / (d_i - lambda) = 0, as lambda = d[base] + tau.
 * Root j lies in (d_j, d_{j+1}) (the last one in (d_{K-1}, d_{K-1} + rho)); the origin is
 * the pole nearer to the root, found from the sign of f at the midpoint. Iterates with
 * the fixed-weight rational model of Bunch, Nielsen & Sorensen (the secular function's
 * poles on either side interpolated by one pole each, matching value and slope),
 * safeguarded by bisection on a bracket that shrinks with every evaluation.
 */
function secularRoot(
  d: Float64Array,
  z: Float64Array,
  rho: number,
  j: number,
): { base: number; tau: number } {
  const K = d.length;
  const last = j === K - 1;
  let base: number;
  let lo: number;
  let hi: number;
  if (last) {
    base = K - 1;
    lo = 0;
    hi = rho; // sum z_i^2 = 1 bounds the shift
  } else {
    const gap = d[j + 1] - d[j];
    const midTau = gap / 2;
    // f at the midpoint, with origin d_j.
    let f = 1;
    for (let i = 0; i < K; i++) f += (rho * z[i] * z[i]) / (d[i] - d[j] - midTau);
    if (f >= 0) {
      base = j;
      lo = 0;
      hi = midTau;
    } else {
      base = j + 1;
      lo = -(gap - midTau);
      hi = 0;
    }
  }
  const db = d[base];
  const shift = new Float64Array(K);
  for (let i = 0; i < K; i++) shift[i] = d[i] - db;
  const evaluate = (tau: number) => {
    // psi: poles at or left of j; phi: poles right of j.
    let psi = 0;
    let dpsi = 0;
    let phi = 0;
    let dphi = 0;
    let absSum = 0;
    for (let i = 0; i < K; i++) {
      const r = 1 / (shift[i] - tau);
      const t = rho * z[i] * z[i] * r;
      if (i <= j) {
        psi += t;
        dpsi += t * r;
      } else {
        phi += t;
        dphi += t * r;
      }
      absSum += Math.abs(t);
    }
    return { f: 1 + psi + phi, psi, dpsi, phi, dphi, absSum };
  };
  let tau = 0.5 * (lo + hi);
  for (let it = 0; it < 100; it++) {
    const v = evaluate(tau);
    if (!Number.isFinite(v.f)) {
      tau = 0.5 * (lo + hi);
      continue;
    }
    if (v.f > 0) hi = tau;
    else lo = tau;
    // dlaed4's stopping rule: |f| within the rounding of its own evaluation.
    if (Math.abs(v.f) <= 8 * K * EPS * (1 + v.absSum)) break;
    if (hi - lo <= 2 * ULP * Math.max(Math.abs(lo), Math.abs(hi)) || hi - lo === 0) break;
    let next: number;
    const p = shift[j];
    if (last) {
      // One-pole model of psi at p: 1 + a + b / (p - tau) = 0.
      const b = v.dpsi * (p - tau) * (p - tau);
      const a = v.psi - b / (p - tau) + v.phi;
      next = 1 + a !== 0 ? p + b / (1 + a) : Number.NaN;
    } else {
      const q = shift[j + 1];
      const bp = v.dpsi * (p - tau) * (p - tau);
      const bq = v.dphi * (q - tau) * (q - tau);
      const C = 1 + v.psi - bp / (p - tau) + v.phi - bq / (q - tau);
      // C (p - t)(q - t) + bp (q - t) + bq (p - t) = 0, a quadratic in t.
      const A2 = C;
      const B2 = -(C * (p + q) + bp + bq);
      const C2 = C * p * q + bp * q + bq * p;
      next = solveQuadraticInBracket(A2, B2, C2, lo, hi);
    }
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (next === tau) break;
    tau = next;
  }
  return { base, tau };
}

/** A root of a t^2 + b t + c = 0 inside (lo, hi), or NaN (stable formulas). */
function solveQuadraticInBracket(a: number, b: number, c: number, lo: number, hi: number): number {
  if (a === 0) return b !== 0 ? -c / b : Number.NaN;
  const disc = b * b - 4 * a * c;
  if (disc < 0) return Number.NaN;
  const sq = Math.sqrt(disc);
  const qv = -0.5 * (b + (b >= 0 ? sq : -sq));
  const r1 = qv / a;
  const r2 = qv !== 0 ? c / qv : Number.NaN;
  const in1 = r1 > lo && r1 < hi;
  const in2 = r2 > lo && r2 < hi;
  if (in1 && in2) return Math.abs(r1 - 0.5 * (lo + hi)) <= Math.abs(r2 - 0.5 * (lo + hi)) ? r1 : r2;
  if (in1) return r1;
  if (in2) return r2;
  return Number.NaN;
}
