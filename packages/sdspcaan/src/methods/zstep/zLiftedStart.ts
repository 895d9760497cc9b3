/**
 * A cheaper start block for LOBPCG on SDSPCAAN's Z at large n: W whole, plus the
 * directions the wanted eigenvectors add to it, lifted by D for only b coefficient
 * vectors instead of all m.
 *
 * With W = [U, Qy] orthonormal (m columns) and Z = beta D + W C W^T (zPreconditioner.ts),
 * every eigenvector with eigenvalue lambda below min(beta D) is
 *
 *   v = (beta D - lambda I)^-1 W u,     u = -C W^T v      (u in R^m),
 *
 * and with beta D = centre + half D^ (D^ in [-1, 1]) and lambda = centre + half l, l < -1,
 *
 *   v ~ W u + (1 / l) D^ W u + (1 / l^2) D^2 W u + ...
 *
 * K_J (zKrylovStart.ts) holds the first J terms for every u in R^m at once, which costs
 * 2J + 1 moments W^T T_j(D^) W (n m^2 / 2 each) and a dense problem of order (J + 1) m.
 * Only b vectors u are wanted, though, and K_0 = span W already estimates them: the
 * Ritz coefficients y of Z on span W are u to within O(1 / |l|). So this start works on
 *
 *   S_p = span{W, T_1(D^) W Y, ..., T_p(D^) W Y}          (Y: m x b, orthonormal)
 *
 * of dimension at most m + p b, and refines Y: for the Ritz vectors x of a pass,
 * W^T x is their W-coordinate y (the lifted directions are made orthogonal to W), and
 * C y estimates u to the accuracy of x, so the next pass lifts span(C y). With Y from
 * K_0 the lifted terms carry K_0's O(1 / |l|) error; after one refinement the error is
 * about (1 / |l|)^(p + 1) (scripts/dev/zSolverPrototype.py lift).
 *
 * Cost at n: one moment N_1 = W^T D^ W (n m^2 / 2; W^T beta D W = centre I + half N_1)
 * and C's U^T L U (cached per Laplacian, and needed by LOBPCG's compact products
 * anyway), then per pass the products W Y (n x m x b) and W^T D^ P (n x m x p b), two
 * Gram matrices of the n x p b lifted block and a dense problem of order m + p b, and at
 * the end the map back (n x m x b): with the default passes [1, 3], seven n x m x b
 * products in all. K_1 costs three moments and a dense problem of order 2 m.
 *
 * The projected problem is assembled so that C cancels wherever it can: with
 * P = [P_1 .. P_p], R = W^T P, E = W^T D^ P, F = P^T D^ P, the Gram matrix of the
 * lifted part after W is projected out is S = P^T P - R^T R, and
 *
 *   W^T Z (P - W R)         = half (E - N_1 R),
 *   (P - W R)^T Z (P - W R) = centre S + half (F - R^T E - E^T R + R^T N_1 R),
 *
 * so the coupling between W and the lifted directions is of beta D's spread, not of
 * Z's (much larger) eigenvalues.
 *
 * Like K_J this is only a start: LOBPCG on Z takes it from here with its own residual
 * test (zSolvers.ts).
 */
import { throwIfAborted } from "../../core/errors.js";
import { Matrix } from "../../core/matrix.js";
import { symmetrizeInPlace } from "../../linalg/basic.js";
import { svqb } from "../../linalg/eigen/svqb.js";
import { trailingEigenpairs } from "../../linalg/eigen/symmetricEigen.js";
import { multiply, multiplyAtB } from "../../linalg/kernels/gemm.js";
import { transposedGramAndProduct } from "../../linalg/kernels/symmetricProducts.js";
import type { CsrMatrix } from "../../linalg/sparse.js";
import { chebyshevMoments, diagonalScaling, gramInverseRoot } from "./zKrylovStart.js";
import type { ZWoodbury } from "./zPreconditioner.js";

/**
 * Lifted directions whose remaining squared norm after W is projected out is below this
 * are dropped (each lifted column has norm at most 1): W nearly holds them already.
 */
const DROP_BELOW = 1e-10;

/**
 * The lift degrees p of the passes by default: [1, 3] is as close as [3, 3] (the first
 * pass only estimates Y) and cheaper (measured at commit 285e458: "The lifted start").
 */
export const DEFAULT_PASSES: readonly number[] = [1, 3];

export interface LiftedStartOptions {
  /**
   * One lift degree p per pass (how many lifted blocks T_1(D^) W Y .. T_p(D^) W Y): the
   * first pass lifts K_0's coefficients, each later one C y of the pass before.
   */
  readonly passes?: readonly number[];
  readonly signal?: AbortSignal | undefined;
}

export interface LiftedStart {
  /** The b smallest Ritz values of Z on the last pass' space, ascending. */
  readonly values: Float64Array;
  /** Their Ritz vectors, n x b. */
  readonly vectors: Matrix;
  /** The dimension of the last pass' space (<= m + p b). */
  readonly dimension: number;
}

/**
 * Rayleigh-Ritz of Z = diag(betaD) + W C W^T on the lifted spaces (see the file's
 * comment): the b smallest Ritz pairs, or null when Z's projection on W has fewer than
 * b dimensions. Checks `signal` between the n-long steps.
 */
export function liftedStart(
  woodbury: ZWoodbury,
  betaD: Float64Array,
  delta: number,
  L: CsrMatrix | null,
  b: number,
  options: LiftedStartOptions = {},
): LiftedStart | null {
  const { signal } = options;
  const passes = options.passes ?? DEFAULT_PASSES;
  const m = woodbury.width;
  if (m < b) return null;
  const { centre, half, dh } = diagonalScaling(betaD);
  const C = woodbury.coupling(delta, L);
  throwIfAborted(signal);
  const N1 = half > 0 ? chebyshevMoments(woodbury, dh, 1, signal)[1] : new Matrix(m, m);
  // W^T Z W = centre I + half N_1 + C.
  const A0 = C.clone();
  for (let t = 0; t < A0.data.length; t++) A0.data[t] += half * N1.data[t];
  for (let i = 0; i < m; i++) A0.data[i * m + i] += centre;
  symmetrizeInPlace(A0);
  throwIfAborted(signal);
  const k0 = trailingEigenpairs(A0, b, { symmetryTolerance: Number.POSITIVE_INFINITY });
  // Constant beta D: span W holds every eigenvector with eigenvalue other than beta D's
  // value exactly (K_0), and the lifted blocks would be zero.
  if (half === 0 || passes.length === 0 || passes.some((p) => p < 1)) {
    return { values: k0.values, vectors: woodbury.basisTimes(k0.vectors), dimension: m };
  }
  let Y = k0.vectors;
  let last: LiftedPass | null = null;
  for (let pass = 0; pass < passes.length; pass++) {
    if (pass > 0) {
      // u = -C W^T x for the Ritz vectors x of the last pass (W^T x = its y).
      Y = svqb(multiply(C, (last as LiftedPass).y)).Q;
      if (Y.cols === 0) break;
    }
    last = liftedPass(woodbury, A0, N1, dh, centre, half, Y, passes[pass], b, signal);
  }
  const { values, y, z, R, Gamma, P } = last as LiftedPass;
  // x = W (y - R Gamma z) + P Gamma z.
  const Gz = multiply(Gamma, z);
  const Wcoef = y.clone();
  const RGz = multiply(R, Gz);
  for (let t = 0; t < Wcoef.data.length; t++) Wcoef.data[t] -= RGz.data[t];
  const vectors = woodbury.basisTimes(Wcoef);
  const PGz = multiply(P, Gz);
  for (let t = 0; t < vectors.data.length; t++) vectors.data[t] += PGz.data[t];
  return { values, vectors, dimension: m + Gamma.cols };
}

/** One Rayleigh-Ritz on span{W, T_1(D^) W Y, ..., T_p(D^) W Y}. */
interface LiftedPass {
  readonly values: Float64Array;
  /** The Ritz vectors' coordinates: x = W (y - R Gamma z) + P Gamma z (y = W^T x). */
  readonly y: Matrix;
  readonly z: Matrix;
  /** W^T P (m x p q). */
  readonly R: Matrix;
  /** Orthonormalises P - W R in its Gram matrix (p q x q'). */
  readonly Gamma: Matrix;
  /** The lifted block [T_1(D^) W Y, ..., T_p(D^) W Y] (n x p q). */
  readonly P: Matrix;
}

function liftedPass(
  woodbury: ZWoodbury,
  A0: Matrix,
  N1: Matrix,
  dh: Float64Array,
  centre: number,
  half: number,
  Y: Matrix,
  p: number,
  b: number,
  signal: AbortSignal | undefined,
): LiftedPass {
  const n = dh.length;
  const m = woodbury.width;
  const q = Y.cols;
  const width = p * q;
  // P = [P_1 .. P_p], P_a = T_a(D^) W Y, by the three-term recurrence on the rows
  // (contiguous loops), then D^ P, then E = W^T D^ P for all blocks in one product.
  const WY = woodbury.basisTimes(Y).data;
  const P = new Matrix(n, width);
  const DP = new Matrix(n, width);
  const pd = P.data;
  const dpd = DP.data;
  for (let i = 0; i < n; i++) {
    const d = dh[i];
    const row = i * width;
    const src = i * q;
    for (let a = 0; a < p; a++) {
      const at = row + a * q;
      for (let j = 0; j < q; j++) {
        // T_1 = D^ T_0, T_{a+1} = 2 D^ T_a - T_{a-1} (T_0 = W Y).
        const before = a <= 1 ? WY[src + j] : pd[at - 2 * q + j];
        const v = a === 0 ? d * before : 2 * dpd[at - q + j] - before;
        pd[at + j] = v;
        dpd[at + j] = d * v;
      }
    }
  }
  throwIfAborted(signal);
  const E = woodbury.basisTransposeTimes(DP);
  // R_a = W^T P_a: R_1 = N_1 Y, R_{a+1} = 2 E_a - R_{a-1} (R_0 = Y).
  const R = new Matrix(m, width);
  const N1Y = multiply(N1, Y).data;
  for (let i = 0; i < m; i++) {
    const row = i * width;
    for (let a = 0; a < p; a++) {
      const at = row + a * q;
      for (let j = 0; j < q; j++) {
        R.data[at + j] =
          a === 0
            ? N1Y[i * q + j]
            : 2 * E.data[at - q + j] - (a === 1 ? Y.data[i * q + j] : R.data[at - 2 * q + j]);
      }
    }
  }
  throwIfAborted(signal);
  // S = P^T P - R^T R, F = P^T D^ P (both p q square), from P and D^ P transposed once.
  const { S, F } = transposedGramAndProduct(P, DP);
  const RtR = multiplyAtB(R, R);
  for (let t = 0; t < S.data.length; t++) S.data[t] -= RtR.data[t];
  symmetrizeInPlace(S);
  const Gamma = gramInverseRoot(S, DROP_BELOW);
  const qq = Gamma.cols;
  // The projected problem on [W, (P - W R) Gamma] (see the file's comment).
  const RtE = multiplyAtB(R, E);
  const NR = multiply(N1, R);
  const RtNR = multiplyAtB(R, NR);
  const Hpp0 = new Matrix(width, width);
  for (let i = 0; i < width; i++) {
    for (let j = 0; j < width; j++) {
      const t = i * width + j;
      Hpp0.data[t] =
        centre * S.data[t] +
        half * (F.data[t] - RtE.data[t] - RtE.data[j * width + i] + RtNR.data[t]);
    }
  }
  const Hpp = multiplyAtB(Gamma, multiply(Hpp0, Gamma));
  const Hwp0 = new Matrix(m, width);
  for (let t = 0; t < Hwp0.data.length; t++) Hwp0.data[t] = half * (E.data[t] - NR.data[t]);
  const Hwp = multiply(Hwp0, Gamma);
  const size = m + qq;
  const H = new Matrix(size, size);
  for (let i = 0; i < m; i++) {
    H.data.set(A0.data.subarray(i * m, (i + 1) * m), i * size);
    for (let j = 0; j < qq; j++) {
      H.data[i * size + m + j] = Hwp.data[i * qq + j];
      H.data[(m + j) * size + i] = Hwp.data[i * qq + j];
    }
  }
  for (let i = 0; i < qq; i++) {
    H.data.set(Hpp.data.subarray(i * qq, (i + 1) * qq), (m + i) * size + m);
  }
  symmetrizeInPlace(H);
  throwIfAborted(signal);
  const eig = trailingEigenpairs(H, b, { symmetryTolerance: Number.POSITIVE_INFINITY });
  const y = new Matrix(m, b, eig.vectors.data.slice(0, m * b));
  const z = new Matrix(qq, b, eig.vectors.data.slice(m * b, size * b));
  return { values: eig.values, y, z, R, Gamma, P };
}
