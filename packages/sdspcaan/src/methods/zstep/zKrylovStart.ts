/**
 * A start block for LOBPCG on SDSPCAAN's Z at large n, from where Z's wanted
 * eigenvectors must lie.
 *
 * With W = [U, Qy] an orthonormal basis of [U, Y] (m <= r + c columns) and the m x m C of
 * zPreconditioner.ts, Z = beta D + W C W^T. For an eigenvalue lambda below min(beta D),
 * (Z - lambda I) v = 0 gives v = -(beta D - lambda I)^-1 W (C W^T v): every such
 * eigenvector is (beta D - lambda I)^-1 W u for some u. Map beta D's range [lo, hi]
 * onto [-1, 1] (D^ = (beta D - centre) / half) and lambda to l < -1; then
 * (D^ - l)^-1 is a polynomial of degree J in D^ to within about omega^J,
 * omega = |l| - sqrt(l^2 - 1), so the wanted eigenvectors lie close to the block
 * Krylov space
 *
 *   K_J = span{T_0(D^) W, T_1(D^) W, ..., T_J(D^) W}     (T_j: Chebyshev polynomials).
 *
 * At large n omega is small: tr(beta D) = tr(G) keeps beta D near d while Z's
 * eigenvalues grow with n (Fashion-MNIST, k = 50: omega 0.035 at 10,000 images, 0.0066
 * at 60,000; measured at commit 285e458). Rayleigh-Ritz of Z on K_J needs no n-long basis:
 * with the moments N_j = W^T T_j(D^) W (m x m, N_0 = I) and T_a T_b = (T_{a+b} + T_{|a-b|}) / 2,
 *
 *   Gram    (T_a W)^T (T_b W)      = (N_{a+b} + N_{|a-b|}) / 2,
 *   Z       (T_a W)^T Z (T_b W)    = centre Gram_ab + half (T_a D^ T_b)-moment_ab + N_a C N_b,
 *
 * so the work at n is the 2J + 1 moments (n m^2 / 2 each, one pass over the rows) and
 * mapping the b Ritz vectors back (v = sum_a T_a(D^) W y_a, J + 1 products n x m x b);
 * the rest is dense of order (J + 1) m. When beta D is constant (the first outer
 * iteration, D = I) K_0 = span W holds every eigenvector with eigenvalue other than
 * beta D's value exactly.
 *
 * This is only a start: LOBPCG on Z itself (zSolvers.ts) takes it from here and applies
 * the same residual test as from any other start, so the eigenpairs do not depend on
 * it beyond that tolerance; from K_J (the degree below is chosen for about 5e-4 rad)
 * that takes 2-8 iterations instead of 12-25 preconditioned ones.
 */
import { throwIfAborted } from "../../core/errors.js";
import { Matrix } from "../../core/matrix.js";
import { symmetrizeInPlace } from "../../linalg/basic.js";
import { symmetricEigen, trailingEigenpairs } from "../../linalg/eigen/symmetricEigen.js";
import { multiply, multiplyAtB } from "../../linalg/kernels/gemm.js";
import {
  addLowerBlocks,
  gemmABtLowerBlocks,
  mirrorLowerTriangle,
} from "../../linalg/kernels/symmetricProducts.js";
import { type WasmArena, wasmArena } from "../../linalg/kernels/wasm/backend.js";
import { choleskyUpper, solveUpperFromRight } from "../../linalg/orthogonalize.js";
import type { CsrMatrix } from "../../linalg/sparse.js";
import type { ZWoodbury } from "./zPreconditioner.js";

/** The largest degree J tried (the basis has (J + 1) m columns). */
export const MAX_KRYLOV_DEGREE = 3;

/**
 * The degree is the smallest whose predicted largest angle, ANGLE_SCALE (omega / 2)^J,
 * is at most TARGET_ANGLE. The scale is fitted to the prototype's angles at 8,000
 * images (omega 0.0435: 1.8e-2, 3.8e-4, 7.7e-6, 1.3e-7 for J = 0..3, about 50 times less
 * per degree; scripts/dev/zSolverPrototype.py span). The target is set by cost: each
 * degree adds two moments (n m^2 / 2 each) and makes the dense problem (J + 1) m, and
 * LOBPCG's few extra iterations from a coarser start cost less. Measured on
 * Fashion-MNIST (k = 50, outer iterations 2-4, two threads): at 60,000 images (omega
 * about 0.007) J = 1 with 2 LOBPCG iterations per solve took 30, 27 and 26 s per outer
 * iteration, J = 2 with 1 iteration 48, 40 and 38 s; at 10,000 (omega 0.035-0.05) J = 1
 * needs 4-8 iterations and still pays. So J = 1 up to omega = 0.05, J = 2 up to 0.32.
 */
const ANGLE_SCALE = 0.02;
const TARGET_ANGLE = 5e-4;

/** Rows per chunk of the moment pass (bounded temporaries: a few chunk x m blocks). */
const CHUNK_ROWS = 4096;

/**
 * Directions of K_J's basis whose remaining squared norm, after the earlier blocks are
 * projected out, is below this are dropped (the columns T_a(D^) W have norms at most 1):
 * they add nothing K_J does not nearly hold already (e.g. where beta D takes few
 * values, or a class is alone on rows of one value), and keeping them would amplify
 * rounding by their inverse square roots.
 */
const DROP_BELOW = 1e-10;

/**
 * The Cholesky path of a block is taken when its smallest squared pivot is above this
 * (well above DROP_BELOW: a Cholesky pivot bounds the smallest eigenvalue only loosely).
 */
const CHOLESKY_FLOOR = 1e-6;

/** beta D's spread below this relative to its size counts as constant (K_0 is exact). */
const CONSTANT_SPREAD = 1e-12;

/** beta D's range and its map onto [-1, 1]: D^ = (beta D - centre) / half. */
export interface DiagonalScaling {
  readonly lo: number;
  readonly hi: number;
  readonly centre: number;
  /** 0 when beta D is constant to rounding (isConstantRange); D^ is then 0. */
  readonly half: number;
  readonly dh: Float64Array;
}

/** D^ for beta D (see DiagonalScaling). */
export function diagonalScaling(betaD: Float64Array): DiagonalScaling {
  const n = betaD.length;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    lo = Math.min(lo, betaD[i]);
    hi = Math.max(hi, betaD[i]);
  }
  const centre = 0.5 * (lo + hi);
  const half = isConstantRange(lo, hi) ? 0 : 0.5 * (hi - lo);
  const dh = new Float64Array(n);
  if (half > 0) for (let i = 0; i < n; i++) dh[i] = (betaD[i] - centre) / half;
  return { lo, hi, centre, half, dh };
}

/** Whether beta D's range [lo, hi] is constant to rounding (then K_0 is exact). */
export function isConstantRange(lo: number, hi: number): boolean {
  return !(0.5 * (hi - lo) > CONSTANT_SPREAD * Math.max(Math.abs(lo), Math.abs(hi)));
}

/**
 * omega for an eigenvalue estimate lambda and beta D's range [lo, hi]: how fast the
 * polynomial approximation of (beta D - lambda)^-1 converges (0: beta D constant, or
 * lambda infinitely far). Infinity when lambda is not below lo (K_J does not apply).
 */
export function krylovOmega(lambda: number, lo: number, hi: number): number {
  if (isConstantRange(lo, hi)) return 0;
  const half = 0.5 * (hi - lo);
  const l = (lambda - 0.5 * (lo + hi)) / half;
  if (!(l < -1)) return Number.POSITIVE_INFINITY;
  return -l - Math.sqrt(l * l - 1);
}

/** The degree J for omega (see TARGET_ANGLE), or null when none up to the maximum will do. */
export function krylovDegree(omega: number): number | null {
  if (omega === 0) return 0;
  for (let J = 0; J <= MAX_KRYLOV_DEGREE; J++) {
    if (ANGLE_SCALE * (0.5 * omega) ** J <= TARGET_ANGLE) return J;
  }
  return null;
}

export interface KrylovStart {
  /** The b smallest Ritz values of Z on K_J, ascending. */
  readonly values: Float64Array;
  /** Their Ritz vectors (n x b, orthonormal up to rounding amplified by K_J's conditioning). */
  readonly vectors: Matrix;
  /** The degree J used (0 whenever beta D is constant). */
  readonly degree: number;
  /** The dimension of K_J's basis after dropping dependent directions (<= (J + 1) m). */
  readonly dimension: number;
}

/**
 * Rayleigh-Ritz of Z = diag(betaD) + W C W^T (C for delta and L; zPreconditioner.ts) on
 * K_J: the b smallest Ritz pairs, or null when K_J has fewer than b dimensions. Checks
 * `signal` between chunks of the moment pass and before the dense eigen-solve.
 */
export function krylovStart(
  woodbury: ZWoodbury,
  betaD: Float64Array,
  delta: number,
  L: CsrMatrix | null,
  degreeWanted: number,
  b: number,
  signal?: AbortSignal,
): KrylovStart | null {
  const m = woodbury.width;
  // Constant beta D: K_0 is exact, and D^ = 0 (no moment is needed).
  const { centre, half, dh } = diagonalScaling(betaD);
  const degree = half === 0 ? 0 : degreeWanted;
  const C = woodbury.coupling(delta, L);
  const moments =
    half > 0 ? chebyshevMoments(woodbury, dh, 2 * degree + 1, signal) : [Matrix.identity(m)];
  const { gram, projected } = projectedPencil(moments, C, centre, half, degree, m);
  const basis = orthonormalCoefficients(gram, m, degree + 1);
  if (basis.cols < b) return null;
  // The projection of Z on the orthonormal basis B Gamma.
  const H = symmetrizeInPlace(multiplyAtB(basis, multiply(projected, basis)));
  throwIfAborted(signal);
  const eig = trailingEigenpairs(H, b, { symmetryTolerance: Number.POSITIVE_INFINITY });
  // Coefficients of the Ritz vectors in the Chebyshev basis.
  const y = multiply(basis, eig.vectors);
  return {
    values: eig.values,
    vectors: mapBack(woodbury, dh, y, degree, m),
    degree,
    dimension: basis.cols,
  };
}

/**
 * N_1..N_count = W^T T_j(D^) W (m x m, symmetric), in one pass over row chunks: the
 * chunk's W^T (m x rows), scaled column by column by T_j(D^), and the lower blocks of
 * the product (half the flops; gemmABtLowerBlocks), accumulated.
 */
export function chebyshevMoments(
  woodbury: ZWoodbury,
  dh: Float64Array,
  count: number,
  signal: AbortSignal | undefined,
): Matrix[] {
  const n = dh.length;
  const m = woodbury.width;
  const moments: Matrix[] = [Matrix.identity(m)];
  for (let j = 1; j <= count; j++) moments.push(new Matrix(m, m));
  const part = new Float64Array(m * m);
  const chunk = Math.min(n, CHUNK_ROWS);
  // The chunk's W^T and its scaled copy, built once per pass where the GEMM reads them:
  // in the module's memory when it is active (gemmABtLowerBlocks then uses them in place
  // instead of copying two m x chunk blocks per chunk), else in ordinary arrays.
  const arena = wasmArena();
  const mark = arena?.mark() ?? 0;
  const ptrs = arena?.allocAll([m * chunk, m * chunk]) ?? null;
  const own = ptrs === null ? [new Float64Array(m * chunk), new Float64Array(m * chunk)] : null;
  const prev = new Float64Array(chunk);
  const cur = new Float64Array(chunk);
  try {
    for (let i0 = 0; i0 < n; i0 += CHUNK_ROWS) {
      throwIfAborted(signal);
      const i1 = Math.min(n, i0 + CHUNK_ROWS);
      const rows = i1 - i0;
      const size = m * rows;
      // Fresh views after every product: its allocation may have grown the memory.
      const buffer = (b: number) =>
        own !== null
          ? own[b].subarray(0, size)
          : (arena as WasmArena).view((ptrs as number[])[b], size);
      woodbury.basisRowsTransposed(i0, i1, buffer(0));
      // T_{j-1} and T_j at the chunk's rows (three-term recurrence).
      prev.fill(1, 0, rows);
      cur.set(dh.subarray(i0, i1));
      for (let j = 1; j <= count; j++) {
        const wt = buffer(0);
        const scaled = buffer(1);
        if (j > 1) {
          for (let i = 0; i < rows; i++) {
            const next = 2 * dh[i0 + i] * cur[i] - prev[i];
            prev[i] = cur[i];
            cur[i] = next;
          }
        }
        for (let t = 0; t < m; t++) {
          const o = t * rows;
          for (let i = 0; i < rows; i++) scaled[o + i] = wt[o + i] * cur[i];
        }
        gemmABtLowerBlocks(m, rows, wt, rows, scaled, rows, part, m);
        addLowerBlocks(moments[j].data, part, m);
      }
    }
  } finally {
    arena?.release(mark);
  }
  for (let j = 1; j <= count; j++) mirrorLowerTriangle(moments[j].data, m);
  return moments;
}

/**
 * The Gram matrix of K_J's Chebyshev basis and Z's projection on it ((J + 1) m square),
 * block by block from the moments (see the file's comment):
 *   (T_a W)^T D^ (T_b W) = (N_{a+b+1} + N_{|a+b-1|} + N_{|a-b|+1} + N_{||a-b|-1|}) / 4.
 */
function projectedPencil(
  N: readonly Matrix[],
  C: Matrix,
  centre: number,
  half: number,
  J: number,
  m: number,
): { gram: Matrix; projected: Matrix } {
  const size = (J + 1) * m;
  const gram = new Matrix(size, size);
  const projected = new Matrix(size, size);
  // N_a C N_b, with N_0 = I taken as such (no product).
  const CN = N.slice(0, J + 1).map((Nb, b) => (b === 0 ? C : multiply(C, Nb)));
  for (let a = 0; a <= J; a++) {
    for (let b = a; b <= J; b++) {
      const s = a + b;
      const d = b - a;
      const NCN = a === 0 ? CN[b] : multiply(N[a], CN[b]);
      const g1 = N[s].data;
      const g2 = N[d].data;
      const D = half > 0 ? [N[s + 1], N[Math.abs(s - 1)], N[d + 1], N[Math.abs(d - 1)]] : null;
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < m; j++) {
          const p = i * m + j;
          const g = 0.5 * (g1[p] + g2[p]);
          let z = centre * g + NCN.data[p];
          if (D !== null) {
            z += 0.25 * half * (D[0].data[p] + D[1].data[p] + D[2].data[p] + D[3].data[p]);
          }
          const q = (a * m + i) * size + b * m + j;
          const qt = (b * m + j) * size + a * m + i;
          gram.data[q] = g;
          gram.data[qt] = g;
          projected.data[q] = z;
          projected.data[qt] = z;
        }
      }
    }
  }
  return { gram, projected };
}

/**
 * Gamma ((blocks m) x p): coefficients of an orthonormal basis B Gamma of K_J in the
 * Chebyshev basis B = [T_0(D^) W, ..., T_J(D^) W], whose Gram matrix is `gram`. Block
 * Gram-Schmidt in the gram inner product, twice per block ("twice is enough"), each
 * block normalised by the Cholesky factor of its remaining Gram matrix, or, when that is
 * nearly singular, through its eigen-decomposition, which drops the directions below
 * DROP_BELOW (so p <= blocks m). Block 0 is W itself (its
 * Gram matrix is I): Gamma starts with the identity.
 */
function orthonormalCoefficients(gram: Matrix, m: number, blocks: number): Matrix {
  const size = blocks * m;
  const parts: Matrix[] = [];
  let done = 0;
  for (let a = 0; a < blocks; a++) {
    // c = e_a (the a-th block column of the identity), minus its projections.
    let c = new Matrix(size, m);
    for (let i = 0; i < m; i++) c.data[(a * m + i) * m + i] = 1;
    if (a === 0) {
      parts.push(c);
      done = m;
      continue;
    }
    const previous = concatColumns(parts, size, done);
    for (let pass = 0; pass < 2; pass++) {
      // gram e_a is gram's a-th block column: no product on the first pass.
      const Gc = pass === 0 ? blockColumn(gram, a * m, m) : multiply(gram, c);
      const coef = multiplyAtB(previous, Gc);
      const back = multiply(previous, coef);
      for (let t = 0; t < c.data.length; t++) c.data[t] -= back.data[t];
    }
    const S = symmetrizeInPlace(multiplyAtB(c, multiply(gram, c)));
    // Usually S is well conditioned: c R^-1 with its Cholesky factor (a fifth of the
    // eigen-decomposition's time at m = 794). A pivot near DROP_BELOW's scale means
    // dependent directions: then the eigen-decomposition, which drops them.
    const R = S.clone();
    if (choleskyUpper(R) && minDiagonal(R) ** 2 > CHOLESKY_FLOOR) {
      solveUpperFromRight(c, R);
      parts.push(c);
      done += m;
      continue;
    }
    const V = gramInverseRoot(S, DROP_BELOW);
    if (V.cols === 0) continue;
    c = multiply(c, V);
    parts.push(c);
    done += V.cols;
  }
  return concatColumns(parts, size, done);
}

/**
 * Gamma (s x s') with Gamma^T S Gamma = I for a Gram matrix S (symmetric, positive
 * semidefinite): S's eigenvectors scaled by the inverse square roots of their
 * eigenvalues, dropping those at or below `dropBelow` (directions that are numerically
 * dependent; s' <= s). Shared by K_J's blocks and the lifted start (zLiftedStart.ts).
 */
export function gramInverseRoot(S: Matrix, dropBelow: number): Matrix {
  const s = S.rows;
  const { values, vectors } = symmetricEigen(S, { symmetryTolerance: Number.POSITIVE_INFINITY });
  const keep: number[] = [];
  for (let i = 0; i < s; i++) if (values[i] > dropBelow) keep.push(i);
  const V = (vectors as Matrix).selectColumns(keep);
  for (let j = 0; j < keep.length; j++) {
    const scale = 1 / Math.sqrt(values[keep[j]]);
    for (let i = 0; i < s; i++) V.data[i * keep.length + j] *= scale;
  }
  return V;
}

/** The smallest diagonal entry of the square A. */
function minDiagonal(A: Matrix): number {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < A.rows; i++) min = Math.min(min, A.data[i * A.cols + i]);
  return min;
}

/** Columns j0..j0+width-1 of A. */
function blockColumn(A: Matrix, j0: number, width: number): Matrix {
  const out = new Matrix(A.rows, width);
  for (let i = 0; i < A.rows; i++) {
    out.data.set(A.data.subarray(i * A.cols + j0, i * A.cols + j0 + width), i * width);
  }
  return out;
}

/** [P_1, P_2, ...] side by side (rows x cols). */
function concatColumns(parts: readonly Matrix[], rows: number, cols: number): Matrix {
  const out = new Matrix(rows, cols);
  let offset = 0;
  for (const P of parts) {
    for (let i = 0; i < rows; i++) {
      out.data.set(P.data.subarray(i * P.cols, (i + 1) * P.cols), i * cols + offset);
    }
    offset += P.cols;
  }
  return out;
}

/** v = sum_a T_a(D^) W y_a for the (J + 1) m x b coefficients y: n x b. */
function mapBack(woodbury: ZWoodbury, dh: Float64Array, y: Matrix, J: number, m: number): Matrix {
  const n = dh.length;
  const b = y.cols;
  const out = new Matrix(n, b);
  const o = out.data;
  const prev = new Float64Array(n).fill(1);
  const cur = new Float64Array(n).fill(1);
  for (let a = 0; a <= J; a++) {
    // T_a(D^) at every row.
    if (a === 1) cur.set(dh);
    else if (a > 1) {
      for (let i = 0; i < n; i++) {
        const next = 2 * dh[i] * cur[i] - prev[i];
        prev[i] = cur[i];
        cur[i] = next;
      }
    }
    const Wy = woodbury.basisTimes(new Matrix(m, b, y.data.subarray(a * m * b, (a + 1) * m * b)));
    for (let i = 0; i < n; i++) {
      const t = cur[i];
      for (let j = 0; j < b; j++) o[i * b + j] += t * Wy.data[i * b + j];
    }
  }
  return out;
}
