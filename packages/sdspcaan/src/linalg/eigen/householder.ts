/**
 * Householder reduction of a dense symmetric matrix to tridiagonal form, Q^T A Q = T.
 * The back-transformation Z <- Q Z of eigenvectors of T into eigenvectors of A is in
 * backTransform.ts (re-exported here).
 *
 * LAPACK counterparts: `householderTridiagonalize` is dsytrd with uplo = 'L': panels of
 * PANEL columns are reduced by dlatrd (`reducePanel`), each followed by the dsyr2k
 * update of the trailing matrix (`symmetricRank2kUpdate`, in the GEMM kernel, so that
 * half of the flops run there), until a trailing part of order at most
 * BLOCKED_CROSSOVER + PANEL is left to dsytd2 (`reduceUnblocked`), as dsytrd's
 * crossover nx does. Reflectors come from dlarfg (`makeReflector`), the matrix-vector
 * products from dsymv (`symmetricMatrixVector`).
 *
 * Deliberate differences: `makeReflector` has no rescaling loop for a tiny beta and
 * forms the norm without dlapy2, because the driver (symmetricEigen.ts) has scaled A
 * by a power of two so that the squares cannot overflow.
 *
 * Storage. The symmetric matrix is an n x n Float64Array `a` with leading dimension
 * `lda`; only the entries a[j * lda + i] with i >= j are read or written. In LAPACK's
 * column-major terms that is the lower triangle (column j contiguous); in row-major
 * terms it is the upper triangle (row j contiguous). Either way the column being
 * reduced is contiguous in memory.
 *
 * Kernels. On the WebAssembly backend (../kernels/wasm/backend.ts) the reduction keeps the
 * matrix, its work arrays and T in the module's memory for its whole duration; the
 * blocked part runs the symmetric matrix-vector product, the panel corrections and the
 * rank-2k update in the SIMD kernels, and the unblocked part (the whole reduction up
 * to order BLOCKED_CROSSOVER + 1, the trailing part above) runs in one call of the module's
 * `tridiagonalizeUnblocked`: reflectors, symv, the rank-2 updates, with the operations
 * of the TypeScript loop on that backend, so the same bits (a test compares them,
 * through `householderLoops` of the settings in constants.ts). Every function keeps its
 * TypeScript path, which the TS backend runs.
 */
import { gemmABtRaw } from "../kernels/gemm.js";
import { type WasmArena, wasmArena } from "../kernels/wasm/backend.js";
import { type EigenStageSettings, RESIDENT_MIN } from "./constants.js";

export { applyReflectors } from "./backTransform.js";

/** Panel width of the blocked reduction. */
const PANEL = 32;
/** Below this trailing size the unblocked reduction is faster than dlatrd + syr2k. */
const BLOCKED_CROSSOVER = 96;

import type { Tridiagonal } from "./backTransform.js";

export type { Tridiagonal };

/**
 * Reduces the symmetric matrix held in `a` (lower triangle in column-major terms, see
 * the file comment) to tridiagonal form in place: Q^T A Q = T with
 * Q = H_0 H_1 ... H_{n-2}. `a` is overwritten by the reflectors.
 */
export function householderTridiagonalize(
  a: Float64Array,
  n: number,
  lda = n,
  settings: EigenStageSettings = {},
): Tridiagonal {
  const moduleLoops = settings.householderLoops ?? true;
  const nativePanels = settings.nativePanels ?? true;
  const d = new Float64Array(n);
  const e = new Float64Array(Math.max(n - 1, 0));
  const tau = new Float64Array(Math.max(n - 1, 0));
  const blocked = n - 1 > BLOCKED_CROSSOVER;
  const wLen = blocked ? PANEL * n : 0;
  const lrLen = blocked ? n * 4 * PANEL : 0;
  const coefLen = 2 * PANEL + 2;
  const arena = n >= RESIDENT_MIN ? wasmArena() : null;
  const mark = arena?.mark() ?? 0;
  const ptrs = arena?.allocAll([n * n, wLen, lrLen, n, coefLen, n, e.length, e.length]) ?? null;
  if (arena && ptrs) {
    // WebAssembly backend: the matrix, every work array and T itself live in the
    // module's memory for the whole reduction, so that the kernels (symv, the GEMM of
    // the rank-2k updates, the unblocked reduction) run on them in place; one copy in
    // and one copy out of the triangle.
    const [pa, pw, plr, py, pc, pd, pe, pt] = ptrs;
    arena.pin();
    try {
      const work = arena.view(pa, n * n);
      for (let j = 0; j < n; j++) work.set(a.subarray(j * lda + j, j * lda + n), j * n + j);
      const dw = arena.view(pd, n);
      const ew = arena.view(pe, e.length);
      const tw = arena.view(pt, e.length);
      reduce(work, n, n, dw, ew, tw, {
        w: arena.view(pw, wLen),
        lr: arena.view(plr, lrLen),
        y: arena.view(py, n),
        coef: arena.view(pc, coefLen),
        moduleLoops,
        nativePanels,
      });
      for (let j = 0; j < n; j++) a.set(work.subarray(j * n + j, j * n + n), j * lda + j);
      d.set(dw);
      e.set(ew);
      tau.set(tw);
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
      moduleLoops,
      nativePanels,
    });
  }
  return { n, diagonal: d, offDiagonal: e, tau, reflectors: a, ld: lda };
}

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
  /** Whether the unblocked part may run in the module's loop (EigenStageSettings). */
  readonly moduleLoops: boolean;
  /** Whether a panel may run in one native call (EigenStageSettings.nativePanels). */
  readonly nativePanels: boolean;
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
    const arena = ws.nativePanels ? wasmArena() : null;
    const inArena = arena !== null && [a, e, tau, ws.w, ws.coef].every((x) => arena.holds(x));
    for (; n - i0 - PANEL > BLOCKED_CROSSOVER; i0 += PANEL) {
      // One native call per panel where the "fast" backend has it (the loop's bits).
      const native =
        inArena &&
        arena.kernels.latrd(
          a.byteOffset,
          lda,
          n,
          i0,
          PANEL,
          e.byteOffset,
          tau.byteOffset,
          ws.w.byteOffset,
          ws.coef.byteOffset,
        );
      if (!native) reducePanel(a, n, lda, i0, PANEL, e, tau, ws.w, ws.coef);
      symmetricRank2kUpdate(a, n, lda, i0, PANEL, ws.w, ws.lr);
      for (let j = i0; j < i0 + PANEL; j++) {
        a[j * lda + j + 1] = e[j];
        d[j] = a[j * lda + j];
      }
    }
  }
  reduceUnblocked(a, n, lda, i0, d, e, tau, ws.y, ws.coef, ws.moduleLoops);
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

/**
 * dsytd2 on the trailing part starting at column i0. When the matrix, T and the work
 * arrays live in the module's memory, the module's `tridiagonalizeUnblocked` runs the
 * whole loop in one call, with the operations of the loop below (which `moduleLoops`
 * false runs instead, to compare the bits).
 */
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
  moduleLoops: boolean,
): void {
  const arena = wasmArena();
  const cw = 2 * PANEL;
  if (moduleLoops && arena !== null && [a, d, e, tau, y, coef].every((x) => arena.holds(x))) {
    arena.kernels.tridiagonalizeUnblocked(
      a.byteOffset,
      lda,
      n,
      i0,
      d.byteOffset,
      e.byteOffset,
      tau.byteOffset,
      y.byteOffset,
      coef.byteOffset + cw * 8,
    );
    return;
  }
  const t = new Float64Array(1);
  const inWasm = arena?.holds(a) && arena.holds(y) && arena.holds(coef);
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
 * per sweep, so that each load and store of the target serves four products. This
 * sweep and panelInnerProducts' are written out alike on purpose (the reduction's
 * memory-bound inner loops, each as the module's kernel performs it).
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
