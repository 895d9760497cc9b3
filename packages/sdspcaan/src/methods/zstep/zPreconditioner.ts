/**
 * LOBPCG's preconditioner for SDSPCAAN's Z on the matrix-free path: the exact shifted
 * inverse (Z - sigma I)^-1, applied through the Sherman-Morrison-Woodbury identity.
 *
 * Structure. With G = X X^T = U S^2 U^T (thin SVD, U n x r) and the one-hot Y (n x c),
 *
 *   Z = -rec G - alpha Y Y^T + beta D + delta G L G
 *     = Dp + U A U^T - alpha Y Y^T,     Dp = beta D,   A = -rec S^2 + delta S^2 (U^T L U) S^2,
 *
 * a diagonal plus a symmetric term of rank at most r + c. [U, Y] can be rank-deficient
 * (when n <= d, U spans every centred vector and so the centred class indicators), so Y
 * is split along U first: Y = U P + Qy Ry with P = U^T Y, Qy (n x c') an orthonormal
 * basis of the part of Y orthogonal to U and Ry = Qy^T Y. With the orthonormal
 * W = [U, Qy] (m = r + c' columns):
 *
 *   Z = Dp + W C W^T,     C = blockdiag(A, 0) - alpha [P; Ry] [P; Ry]^T.
 *
 * For a shift sigma with E = Dp - sigma I positive definite, F = W^T E^-1 W = R^T R
 * (Cholesky) and H = R C R^T = V diag(h) V^T (m x m):
 *
 *   Z - sigma I = E^1/2 (I + Q H Q^T) E^1/2,      Q = E^-1/2 W R^-1 (orthonormal),
 *
 * so (Sylvester's law of inertia) Z has exactly #{i : 1 + h_i < 0} eigenvalues below
 * sigma, Z - sigma I is positive definite iff every 1 + h_i > 0, and
 *
 *   (Z - sigma I)^-1 = E^-1 - E^-1 W B diag(h / (1 + h)) B^T W^T E^-1,    B = R^-1 V.
 *
 * The inertia is what makes an interior shift usable: LOBPCG needs a positive definite
 * preconditioner, and (Z - sigma I)^-1 with j eigenvalues below sigma acts as one on
 * the complement of the j smallest Ritz vectors as long as their Ritz values are below
 * sigma (src/linalg/eigen/lobpcg.ts), so j is what LOBPCG is told along with sigma.
 *
 * Cost: U^T L U (n r^2 / 2 and the sparse product, once per graph) and W^T E^-1 W
 * (n m^2 / 2, once per shift), both in row chunks so that no extra n x r block is held; O(m^3) dense work (a Cholesky
 * factor, products, one symmetric eigen-decomposition of order m). One application to
 * an n x q block: two n x r x q products, half an application of Z.
 */

import { Matrix } from "../../core/matrix.js";
import { symmetrizeInPlace } from "../../linalg/basic.js";
import { orthonormalizeAgainst } from "../../linalg/eigen/svqb.js";
import { symmetricEigen } from "../../linalg/eigen/symmetricEigen.js";
import { multiply, multiplyABt, transposed } from "../../linalg/kernels/gemm.js";
import { LAPLACIAN_CHUNK_ROWS } from "../../linalg/kernels/laplacianGram.js";
import {
  addLowerBlocks,
  gemmABtLowerBlocks,
  gramColumns,
  mirrorLowerTriangle,
} from "../../linalg/kernels/symmetricProducts.js";
import { wasmArena } from "../../linalg/kernels/wasm/backend.js";
import {
  choleskyQR,
  choleskyUpper,
  orthogonalizeTwiceAgainst,
  solveUpperFromRight,
} from "../../linalg/orthogonalize.js";
import { CsrMatrix } from "../../linalg/sparse.js";
import { classSums } from "../sharedSteps.js";

/** Rows per chunk of the n-long reductions (bounded temporaries: chunk x m doubles). */
const CHUNK_ROWS = 4096;

/** The window of interiorShifts: theta_k - sigma between these multiples of theta_b - theta_k. */
const SHIFT_NEAR = 2;
const SHIFT_FAR = 16;

/** A part of Y orthogonal to U smaller than this (relative to its class column) is rounding. */
const SPLIT_DROP = 1e-13;

/**
 * The applicable (Z - sigma I)^-1 for one shift, with what the inertia says about sigma.
 */
export interface ShiftedInverse {
  readonly sigma: number;
  /** How many eigenvalues of Z lie below sigma (0: Z - sigma I is positive definite). */
  readonly below: number;
  /** T R = (Z - sigma I)^-1 R for an n x q block R. */
  apply(R: Matrix): Matrix;
}

/**
 * U^T L U (r x r) for the sparse L (n x n), accumulated over row chunks: the rows of a
 * chunk of L times U (the sparse kernel), then the lower half of U_chunk^T (L U)_chunk
 * (the result is symmetric, so half the flops of the dense product). `sparseTimesUt`,
 * when given, computes (L_chunk U)^T with the bits of transposed(L_chunk.multiplyMatrix(U))
 * (GramOperator.sparseTimesUTransposed: U's columns split over the threads), so the
 * result is the same either way.
 */
export function laplacianProjection(
  L: CsrMatrix,
  U: Matrix,
  Ut: Matrix = U.transpose(),
  sparseTimesUt?: (rows: CsrMatrix) => Matrix,
): Matrix {
  const n = U.rows;
  const r = U.cols;
  const K = new Float64Array(r * r);
  const part = new Float64Array(r * r);
  for (let i0 = 0; i0 < n; i0 += LAPLACIAN_CHUNK_ROWS) {
    const i1 = Math.min(n, i0 + LAPLACIAN_CHUNK_ROWS);
    const p0 = L.rowPtr[i0];
    const p1 = L.rowPtr[i1];
    const rows = new CsrMatrix(
      i1 - i0,
      L.cols,
      Int32Array.from(L.rowPtr.subarray(i0, i1 + 1), (p) => p - p0),
      L.colIdx.subarray(p0, p1),
      L.values.subarray(p0, p1),
    );
    const LUt = sparseTimesUt ? sparseTimesUt(rows) : transposed(rows.multiplyMatrix(U));
    gemmABtLowerBlocks(r, i1 - i0, Ut.data.subarray(i0), n, LUt.data, i1 - i0, part, r);
    addLowerBlocks(K, part, r);
  }
  // Mirror the lower triangle (the blocks also hold a few entries above the diagonal).
  mirrorLowerTriangle(K, r);
  return new Matrix(r, r, K);
}

/**
 * Products with the SVD factor that give multiply(U^T, V) and multiply(U, T) bit for
 * bit, faster (gramOperator.ts: U resident in WebAssembly memory, rows over threads).
 */
export interface FactorProducts {
  timesUt(V: Matrix): Matrix;
  timesU(T: Matrix): Matrix;
  /** (A U)^T for sparse rows A, with transposed(A.multiplyMatrix(U))'s bits. */
  sparseTimesUTransposed?(A: CsrMatrix): Matrix;
  /** U^T L U with laplacianProjection(L, U, U^T)'s bits, or null where it does not apply. */
  laplacianGram?(L: CsrMatrix): Matrix | null;
}

/**
 * out += Q src (n x b, src c' x b) or, with `transpose`, out += Q^T src (c' x b, src
 * n x b) for the thin n x c' block Q = Qy, summed over i, then t, then j, each product
 * rounded and then added: in the module (thin.wat, `thinProducts`, the same operations
 * in the same order, so the same bits; tested) where it runs, else in these loops.
 */
export function thinProducts(
  Q: Matrix,
  src: Float64Array,
  b: number,
  out: Float64Array,
  transpose: boolean,
  inModule = true,
): void {
  const n = Q.rows;
  const cq = Q.cols;
  if (cq === 0 || n === 0 || b === 0) return;
  const srcLength = (transpose ? n : cq) * b;
  const outLength = (transpose ? cq : n) * b;
  const arena = inModule ? wasmArena() : null;
  if (arena !== null) {
    const mark = arena.mark();
    try {
      const ptrs = arena.allocAll([n * cq, srcLength, outLength]);
      if (ptrs !== null) {
        const [pq, ps, po] = ptrs;
        const f = arena.f64;
        f.set(Q.data.subarray(0, n * cq), pq >> 3);
        f.set(src.subarray(0, srcLength), ps >> 3);
        f.set(out.subarray(0, outLength), po >> 3);
        arena.kernels.thinProducts(pq, n, cq, ps, b, po, transpose ? 1 : 0);
        out.set(f.subarray(po >> 3, (po >> 3) + outLength));
        return;
      }
    } finally {
      arena.release(mark);
    }
  }
  const q = Q.data;
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < cq; t++) {
      const qit = q[i * cq + t];
      const oo = (transpose ? t : i) * b;
      const so = (transpose ? i : t) * b;
      for (let j = 0; j < b; j++) out[oo + j] += qit * src[so + j];
    }
  }
}

/**
 * The parts of Z = Dp + W C W^T that do not change within a fit (U, S, the split of Y),
 * and the builder of (Z - sigma I)^-1 for the parts that do (beta D, delta, L, sigma).
 */
export class ZWoodbury {
  readonly n: number;
  /** r + c': the width of W = [U, Qy]. */
  readonly width: number;
  private readonly U: Matrix;
  private readonly Ut: Matrix;
  private readonly s2: Float64Array;
  private readonly alpha: number;
  private readonly recon: number;
  /** n x c': orthonormal, orthogonal to U, spanning what U misses of Y. */
  private readonly Qy: Matrix;
  /** [P; Ry] (m x c): Y = W [P; Ry]. */
  private readonly Yw: Matrix;
  /** U^T V and U T for the applications (multiply's bits; see FactorProducts). */
  private readonly timesUt: (V: Matrix) => Matrix;
  private readonly timesU: (T: Matrix) => Matrix;
  private readonly sparseTimesUt: ((A: CsrMatrix) => Matrix) | undefined;
  private readonly wholeGram: ((L: CsrMatrix) => Matrix | null) | undefined;
  /** U^T L U per Laplacian (a fixed graph keeps its own across iterations). */
  private readonly projected = new WeakMap<CsrMatrix, Matrix>();

  constructor(
    U: Matrix,
    Ut: Matrix,
    s2: Float64Array,
    codes: Int32Array,
    c: number,
    alpha: number,
    recon: number,
    products?: FactorProducts,
  ) {
    const n = U.rows;
    const r = U.cols;
    this.n = n;
    this.U = U;
    this.Ut = Ut;
    this.timesUt = products ? (V) => products.timesUt(V) : (V) => multiply(Ut, V);
    this.timesU = products ? (T) => products.timesU(T) : (T) => multiply(U, T);
    this.sparseTimesUt = products?.sparseTimesUTransposed?.bind(products);
    this.wholeGram = products?.laplacianGram?.bind(products);
    this.s2 = s2;
    this.alpha = alpha;
    this.recon = recon;
    const sizes = new Float64Array(c);
    for (let i = 0; i < n; i++) sizes[codes[i]]++;
    this.Qy = splitOffU(U, Ut, codes, c, sizes);
    const cq = this.Qy.cols;
    this.width = r + cq;
    // [P; Ry] = W^T Y: the class sums of the rows of U and of Qy.
    const Pt = classSums(U, codes, c); // c x r
    const Ryt = classSums(this.Qy, codes, c); // c x c'
    const Yw = new Matrix(this.width, c);
    for (let l = 0; l < c; l++) {
      for (let j = 0; j < r; j++) Yw.data[j * c + l] = Pt[l * r + j];
      for (let j = 0; j < cq; j++) Yw.data[(r + j) * c + l] = Ryt[l * cq + j];
    }
    this.Yw = Yw;
  }

  /** U^T L U, computed once per Laplacian. */
  laplacianTerm(L: CsrMatrix): Matrix {
    let K = this.projected.get(L);
    if (K === undefined) {
      K = this.wholeGram?.(L) ?? laplacianProjection(L, this.U, this.Ut, this.sparseTimesUt);
      this.projected.set(L, K);
    }
    return K;
  }

  /**
   * The r x r middle factor A = -rec S^2 + delta S^2 (U^T L U) S^2 of Z's reconstruction
   * and graph terms (U A U^T = -rec G + delta G L G; L null or delta 0: -rec S^2 alone).
   * U^T L U is computed once per Laplacian.
   */
  middleFactor(delta: number, L: CsrMatrix | null): Matrix {
    const { s2 } = this;
    const r = this.U.cols;
    const K = L !== null && delta !== 0 ? this.laplacianTerm(L) : null;
    const A = new Matrix(r, r);
    for (let i = 0; i < r; i++) {
      A.data[i * r + i] = -this.recon * s2[i];
      if (K !== null) {
        for (let j = 0; j < r; j++) A.data[i * r + j] += delta * s2[i] * K.data[i * r + j] * s2[j];
      }
    }
    return A;
  }

  /**
   * C (m x m) of Z = beta D + W C W^T: blockdiag(A, 0) - alpha Yw Yw^T with the middle
   * factor A = -rec S^2 + delta S^2 (U^T L U) S^2.
   */
  coupling(delta: number, L: CsrMatrix | null): Matrix {
    const m = this.width;
    const r = this.U.cols;
    const A = this.middleFactor(delta, L);
    const C = multiplyABt(this.Yw, this.Yw);
    for (let t = 0; t < C.data.length; t++) C.data[t] *= -this.alpha;
    for (let i = 0; i < r; i++) {
      for (let j = 0; j < r; j++) C.data[i * m + j] += A.data[i * r + j];
    }
    return C;
  }

  /**
   * W^T restricted to the rows i0..i1-1 of W: m x (i1 - i0), compact, written into
   * `out` (at least m (i1 - i0) doubles) when given.
   */
  basisRowsTransposed(i0: number, i1: number, out?: Float64Array): Float64Array {
    const { n, Qy, Ut } = this;
    const r = Ut.rows;
    const cq = Qy.cols;
    const rows = i1 - i0;
    const o = out ?? new Float64Array(this.width * rows);
    const ut = Ut.data;
    for (let t = 0; t < r; t++) o.set(ut.subarray(t * n + i0, t * n + i1), t * rows);
    const qy = Qy.data;
    for (let t = 0; t < cq; t++) {
      const at = (r + t) * rows - i0;
      for (let i = i0; i < i1; i++) o[at + i] = qy[i * cq + t];
    }
    return o;
  }

  /** W^T V for an n x b block V: m x b (U^T V above Qy^T V). */
  basisTransposeTimes(V: Matrix): Matrix {
    const r = this.U.cols;
    const b = V.cols;
    const out = new Matrix(this.width, b);
    out.data.set(this.timesUt(V).data, 0);
    // Qy^T V into the last c' rows (zero so far).
    thinProducts(this.Qy, V.data, b, out.data.subarray(r * b), true);
    return out;
  }

  /** W Y for an m x b block Y: n x b (U times Y's first r rows, plus Qy times the rest). */
  basisTimes(Y: Matrix): Matrix {
    const r = this.U.cols;
    const b = Y.cols;
    const out = this.timesU(new Matrix(r, b, Y.data.subarray(0, r * b)));
    thinProducts(this.Qy, Y.data.subarray(r * b), b, out.data, false);
    return out;
  }

  /**
   * (Z - sigma I)^-1 for Z = diag(betaD) - rec G - alpha Y Y^T + delta G L G (L null:
   * no graph term). Null when it cannot be applied stably: diag(betaD) - sigma I not
   * positive definite, or Z - sigma I (numerically) singular.
   */
  build(
    betaD: Float64Array,
    delta: number,
    L: CsrMatrix | null,
    sigma: number,
  ): ShiftedInverse | null {
    const { n, U, Qy, width: m } = this;
    const r = U.cols;
    const cq = Qy.cols;
    const einv = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const e = betaD[i] - sigma;
      if (!(e > 0) || !Number.isFinite(e)) return null;
      einv[i] = 1 / e;
    }
    // F = W^T E^-1 W, the Gram matrix of the rows of E^-1/2 W, chunk by chunk.
    const F = new Matrix(m, m);
    const u = U.data;
    const q = Qy.data;
    for (let i0 = 0; i0 < n; i0 += CHUNK_ROWS) {
      const i1 = Math.min(n, i0 + CHUNK_ROWS);
      const T = new Matrix(i1 - i0, m);
      for (let i = i0; i < i1; i++) {
        const w = Math.sqrt(einv[i]);
        const o = (i - i0) * m;
        for (let t = 0; t < r; t++) T.data[o + t] = w * u[i * r + t];
        for (let t = 0; t < cq; t++) T.data[o + r + t] = w * q[i * cq + t];
      }
      const part = gramColumns(T);
      for (let t = 0; t < F.data.length; t++) F.data[t] += part.data[t];
    }
    if (!choleskyUpper(F)) return null;
    const R = F;
    const C = this.coupling(delta, L);
    const H = symmetrizeInPlace(multiplyABt(multiply(R, C), R));
    const eig = symmetricEigen(H, { symmetryTolerance: Number.POSITIVE_INFINITY });
    const h = eig.values;
    let below = 0;
    let hmax = 1;
    let nearest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < m; i++) {
      if (1 + h[i] < 0) below++;
      hmax = Math.max(hmax, Math.abs(h[i]));
      nearest = Math.min(nearest, Math.abs(1 + h[i]));
    }
    // 1 + h_i at rounding level: sigma (numerically) on an eigenvalue of Z.
    if (!(nearest > 1e-12 * hmax)) return null;
    // B = R^-1 V, scaled by h / (1 + h) for the middle factor.
    const Rinv = Matrix.identity(m);
    solveUpperFromRight(Rinv, R);
    const B = multiply(Rinv, eig.vectors as Matrix);
    const Bg = B.clone();
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < m; j++) Bg.data[i * m + j] *= h[j] / (1 + h[j]);
    }
    const M = symmetrizeInPlace(multiplyABt(Bg, B));
    const apply = (Rb: Matrix): Matrix => {
      const b = Rb.cols;
      const V = new Matrix(n, b);
      for (let i = 0; i < n; i++) {
        const e = einv[i];
        for (let j = 0; j < b; j++) V.data[i * b + j] = e * Rb.data[i * b + j];
      }
      // a = W^T V = [U^T V; Qy^T V].
      const aU = this.timesUt(V);
      const a = new Matrix(m, b);
      a.data.set(aU.data);
      for (let i = 0; i < n; i++) {
        for (let l = 0; l < cq; l++) {
          const x = q[i * cq + l];
          const o = (r + l) * b;
          for (let j = 0; j < b; j++) a.data[o + j] += x * V.data[i * b + j];
        }
      }
      const Wg = this.basisTimes(multiply(M, a));
      const out = V;
      for (let i = 0; i < n; i++) {
        const e = einv[i];
        for (let j = 0; j < b; j++) out.data[i * b + j] -= e * Wg.data[i * b + j];
      }
      return out;
    };
    return { sigma, below, apply };
  }
}

/**
 * Qy: an orthonormal basis of the part of the one-hot Y orthogonal to U. A class
 * column whose remainder (after U and the columns before it) is at rounding level
 * relative to its norm sqrt(n_c) adds no direction, so Y = U (U^T Y) + Qy (Qy^T Y)
 * holds to that level; the columns that remain are orthonormalised again, against U
 * and among themselves, since a remainder that was small loses orthogonality when it
 * is normalised.
 */
function splitOffU(
  U: Matrix,
  Ut: Matrix,
  codes: Int32Array,
  c: number,
  sizes: Float64Array,
): Matrix {
  const n = U.rows;
  const Yp = new Matrix(n, c);
  for (let i = 0; i < n; i++) Yp.data[i * c + codes[i]] = 1;
  projectOutU(Yp, U, Ut);
  const kept: Float64Array[] = [];
  for (let l = 0; l < c; l++) {
    const y = Yp.column(l);
    const norm = orthogonalizeTwiceAgainst(y, kept);
    if (!(norm > SPLIT_DROP * Math.sqrt(sizes[l]))) continue;
    for (let i = 0; i < n; i++) y[i] /= norm;
    kept.push(y);
  }
  const Qy = new Matrix(n, kept.length);
  for (let j = 0; j < kept.length; j++) {
    for (let i = 0; i < n; i++) Qy.data[i * kept.length + j] = kept[j][i];
  }
  if (kept.length === 0) return Qy;
  projectOutU(Qy, U, Ut);
  // CholQR2: the columns are orthonormal to about 1e-3 at worst here, well within reach.
  for (let pass = 0; pass < 2; pass++) {
    if (choleskyQR(Qy) === null) {
      return orthonormalizeAgainst(Qy, [U]);
    }
  }
  return Qy;
}

/** V <- (I - U U^T) V, twice ("twice is enough"). */
function projectOutU(V: Matrix, U: Matrix, Ut: Matrix): void {
  for (let pass = 0; pass < 2; pass++) {
    const UV = multiply(U, multiply(Ut, V));
    for (let t = 0; t < V.data.length; t++) V.data[t] -= UV.data[t];
  }
}

/**
 * Candidate shifts for the k smallest eigenvalues, best first, from the Ritz values
 * theta (ascending) of a block of b > k vectors: the midpoints of the gaps (theta_i,
 * theta_i+1) for i < k, so that the k-th pair and those just above it lie above sigma.
 * With h the gap's half-width, D = theta_k - sigma and g = theta_b - theta_k (how far
 * the guard vectors reach beyond the k-th pair), a gap scores
 *
 *   (h / D) * min(1, D / (SHIFT_NEAR g), SHIFT_FAR g / D):
 *
 * h / D, the distance from sigma to the nearest eigenvalue relative to the distance
 * to the k-th, is how evenly (Z - sigma I)^-1 weighs the eigenvalues it must separate
 * (with sigma next to one eigenvalue it maps every residual onto that eigenvector);
 * the window keeps sigma where it was measured to pay (at commit 285e458, SDSPCAAN
 * on Fashion-MNIST, k = 50: sigma with D between about 2 g and 16 g needed 13 to 19
 * LOBPCG iterations per solve, sigma closer to the k-th pair 25 to 35, and sigma
 * below the whole spectrum as many as without a preconditioner: there the k wanted
 * eigenvalues spread as widely as all the others, so a shift below them all leaves
 * the k-th pair as badly separated as before).
 */
export function interiorShifts(theta: Float64Array, k: number): number[] {
  const b = theta.length;
  if (k < 2 || b <= k) return [];
  const g = theta[b - 1] - theta[k - 1];
  if (!(g > 0)) return [];
  const scored: { sigma: number; score: number }[] = [];
  for (let i = 1; i < k; i++) {
    const h = 0.5 * (theta[i] - theta[i - 1]);
    if (!(h > 0)) continue;
    const sigma = theta[i - 1] + h;
    const D = theta[k - 1] - sigma;
    const window = Math.min(1, D / (SHIFT_NEAR * g), (SHIFT_FAR * g) / D);
    scored.push({ sigma, score: (h / D) * window });
  }
  scored.sort((x, y) => y.score - x.score);
  return scored.map((c) => c.sigma);
}
