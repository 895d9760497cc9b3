/**
 * JPCDA, joint principal component and discriminant analysis (Zhao, Wang, Nie et al.,
 * IEEE TNNLS 2020; SPEC section 3 item 8, reconstructed from the first author's
 * public MATLAB code `pcalinear.m` / `new_GPI.m`):
 *
 *   max_{Q^T Q = I, V}  [Tr(Q^T X^T X Q)]^2 / (||X Q V - Yc||_F^2 + eta ||V||_F^2),
 *
 * Q (d x k) a PCA-like orthonormal basis, V (k x c) a ridge regression of the centred
 * one-hot labels Yc on the k projected features. The projection is W = Q V (d x c):
 * the output dimension is the number of classes c whatever k is (k only sets the
 * size of the intermediate PCA subspace), and its columns sum to zero because the
 * rows of Yc do.
 *
 * Alternation (each step cannot decrease the objective J):
 *  1. V = (Q^T X^T X Q + eta I)^-1 Q^T X^T Yc, the ridge minimiser of the denominator
 *     for fixed Q (a k x k Cholesky solve).
 *  2. gamma = Tr(Q^T X^T X Q) / (2 (||XQV - Yc||^2 + eta ||V||^2)). For any g > 0,
 *     N^2 / Dn >= 2 g N - g^2 Dn with equality at g = N / Dn, so with g = 2 gamma the
 *     surrogate N(Q) - gamma Dn(Q, V) minorises J / (2 g) and touches it at the
 *     current Q: increasing the surrogate increases J.
 *  3. Q by generalised power iteration (GPI) on the surrogate, written as
 *     Tr(Q^T A Q + Q^T B Q C + Q^T D) with A = X^T X, B = -X^T X, C = gamma V V^T,
 *     D = 2 gamma X^T Yc V^T. With the shifts A~ = A + s1 I and B~ = B + s2 I made
 *     positive semidefinite (which only adds constants on the Stiefel manifold) the
 *     surrogate is convex in Q, so maximising its linearisation,
 *     Q = polar factor of M = 2 A~ Q + 2 B~ Q C + D (U V^T from the thin SVD of M),
 *     never decreases it. Steps repeat until the surrogate changes by less than tol
 *     relatively (the first author's inner loop, capped at `maxInnerIter`).
 * The outer loop stops when J changes by less than tol relatively, or after T
 * iterations. Q starts from PCA (the top-k right singular vectors).
 *
 * Cost. Everything lives in the span of the training data: with the thin SVD
 * X = U_r S_r R_r^T, PCA's Q and every later M lie in span(R_r) (M is a combination of
 * X^T(...), Q and X^T Yc), so Q = R_r Q_r with Q_r (r x k) orthonormal, X Q = U_r S_r Q_r,
 * A and B~ are diagonal (S_r^2 and s_max^2 I - S_r^2), and one GPI step costs
 * O(r k^2 + r k c): no d x d (nor n x d) product is formed inside the loop. The
 * residual part of Yc outside span(U_r) is a constant of the denominator, computed
 * once. Shifts: s1 = 0 (X^T X is already PSD; the first author's s1 = lambda_max only
 * slows the iteration) and s2 = s_max^2 = lambda_max(X^T X), the smallest shift that
 * makes B~ PSD.
 *
 * k. Q needs k orthonormal columns in the feature space, and like PCA k <= min(n, d).
 * Directions of Q outside the data span carry no variance and get zero rows in V, so
 * for k > r (the numerical rank) Q is taken as the whole span (the k = r problem, whose
 * optimum is then ridge regression on all of X) and a warning says so. k < c - 1 is
 * allowed but caps the rank of W at k (a warning says so).
 *
 * Signs. W = Q V does not depend on the sign (or any rotation) of Q's columns, and its
 * column j scores class j, so W is unique and no sign convention is applied to it.
 */

import { Matrix } from "../core/matrix.js";
import type { OptionSchema } from "../core/options.js";
import type { Label } from "../core/validate.js";
import { symmetrizeInPlace } from "../linalg/basic.js";
import { multiply } from "../linalg/kernels/gemm.js";
import { choleskyUpper } from "../linalg/orthogonalize.js";
import { thinSvd } from "../linalg/svd.js";
import {
  checkComponentCount,
  kOption,
  maxIterOption,
  PAPER_EPS,
  tolOption,
} from "./commonOptions.js";
import { defineMethod, MULTIPLIER_GRID } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { FitWarning } from "./fitReport.js";
import { fitWarning, maxIterationsWarnings } from "./fitWarnings.js";
import type { JPCDAOptions, ResolvedJPCDAOptions } from "./optionTypes.js";
import { completeOrthonormalColumns } from "./pca.js";
import { iterated, nonDegenerateSvd } from "./sharedSteps.js";
import type { TrainingData } from "./training.js";

/** The label-side quantities of the regression, shared by every JPCDA fit on the data. */
interface RegressionTarget {
  /** U_r^T Yc (r x c). */
  readonly G: Matrix;
  /** ||(I - U_r U_r^T) Yc||_F^2: the part of Yc no projection of X can reach. */
  readonly unreachable: number;
  /** Number of classes c. */
  readonly c: number;
}

/** One evaluation of the objective's parts at (Q_r, V). */
interface ObjectiveParts {
  /** Z = S_r Q_r (r x k): the coordinates of X Q in the basis U_r. */
  readonly Z: Matrix;
  /** N = Tr(Q^T X^T X Q) = ||Z||_F^2. */
  readonly numerator: number;
  /** ||XQV - Yc||^2 + eta ||V||^2. */
  readonly denominator: number;
}

const OPTIONS = {
  k: { ...kOption, doc: "Dimension k of the intermediate PCA subspace (output dimension is c)." },
  eta: {
    type: "number",
    min: 0,
    exclusiveMin: true,
    default: 1,
    doc: "Ridge weight eta of ||V||_F^2 (the paper tunes it over 0.01, 0.1, 1, 10, 100).",
  },
  tol: {
    ...tolOption,
    doc: "Relative change of the objective that stops the outer loop (and of the surrogate for GPI).",
  },
  maxIter: maxIterOption,
  maxInnerIter: {
    type: "integer",
    min: 1,
    default: 300,
    doc: "Maximum generalised-power-iteration steps per outer iteration (300 in the first author's code).",
  },
} as const satisfies OptionSchema;

/** JPCDA's diagnostics (`fitInfo.details`). */
export type JPCDADetails = {
  eta: number;
  k: number;
  /** min(k, rank): the dimension the PCA subspace can actually have. */
  effectiveK: number;
  rank: number;
  classes: number;
  /** The objective at the PCA start. */
  initialObjective: number;
  /** Generalised-power-iteration steps per outer iteration. */
  innerIterations: number[];
  /** The ratio gamma per outer iteration. */
  gammaTrace: number[];
  /** The shifts s1, s2 that make the GPI operators positive definite. */
  shifts: { s1: number; s2: number };
};

export class JPCDA extends Estimator<ResolvedJPCDAOptions, JPCDADetails> {
  constructor(options: JPCDAOptions = {}) {
    super(JPCDA_METHOD, options);
  }

  /** W = Q V is d x c: one column per class, whatever k is. */
  protected override outputDimension(classes: readonly Label[] | null): {
    /** The number of columns of W. */
    count: number;
    /** Why, in words, for the message when a loaded model disagrees. */
    rule: string;
  } | null {
    if (classes === null) return null;
    return {
      count: classes.length,
      rule: `a JPCDA model has one component per class, and 'classes' lists ${classes.length}`,
    };
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<JPCDADetails> {
    const { k, eta, tol, maxIter, maxInnerIter } = this.params;
    const labels = data.requireLabels(this.displayName);
    const limit = Math.min(data.n, data.d);
    checkComponentCount(this.displayName, k, limit, `at most min(n, d) = ${limit}`);
    const svd = nonDegenerateSvd(this.displayName, data, ctx);
    const r = svd.rank;
    const c = labels.classes.length;
    const warnings: FitWarning[] = [];
    const kEff = Math.min(k, r);
    if (k > r) {
      warnings.push(
        fitWarning(
          "k-above-rank",
          `k = ${k} exceeds the numerical rank ${r} of the centred training data: Q spans the whole data span (the extra ${k - r === 1 ? "direction carries" : `${k - r} directions carry`} no variance and get zero weight), so W is the ridge regression of the labels on X.`,
          { k, rank: r },
        ),
      );
    }
    if (kEff < c - 1) {
      warnings.push(
        fitWarning(
          "k-below-classes",
          `k = ${kEff} is below c - 1 = ${c - 1}: W = Q V has ${c} columns but rank at most ${kEff}.`,
          { k: kEff, classes: c },
        ),
      );
    }
    const target = data.cached("jpcda:regressionTarget", () =>
      regressionTarget(svd.U, labels.codes, c),
    );
    const s = svd.s;
    const s2 = s[0] * s[0];

    // PCA initialisation: Q = the top-k right singular vectors, i.e. Q_r = I_{r x k}.
    let Qr = Matrix.identity(r, kEff);
    let V = ridgeCoefficients(Qr, s, target.G, eta);
    let parts = objectiveParts(Qr, V, s, target, eta);
    const initialObjective = ratio(parts);
    let J = initialObjective;
    const objective: number[] = [];
    const innerIterations: number[] = [];
    const gammaTrace: number[] = [];
    let converged = false;
    let iterations = 0;
    let lastRelative = Number.NaN;
    for (let t = 1; t <= maxIter; t++) {
      iterations = t;
      // Step 2: gamma at the current (Q, V).
      const gamma = parts.numerator / (2 * parts.denominator);
      gammaTrace.push(gamma);
      const C = scaledOuterProduct(V, gamma);
      // D = 2 gamma X^T Yc V^T in span coordinates: 2 gamma S_r (U_r^T Yc) V^T.
      const Dlin = linearTerm(s, target.G, V, gamma);
      // Step 3: GPI on the surrogate N(Q) - gamma Dn(Q, V), V fixed.
      let surrogate = parts.numerator - gamma * parts.denominator;
      let steps = 0;
      for (let inner = 1; inner <= maxInnerIter; inner++) {
        steps = inner;
        const M = gpiMatrix(Qr, s, s2, C, Dlin);
        const Qnext = ctx.timeEigen(() => polarFactor(M));
        const next = objectiveParts(Qnext, V, s, target, eta);
        const value = next.numerator - gamma * next.denominator;
        Qr = Qnext;
        const change = Math.abs(value - surrogate);
        surrogate = value;
        if (change <= tol * Math.abs(surrogate)) break;
      }
      innerIterations.push(steps);
      // Step 1 for the new Q, then the objective after this iteration.
      V = ridgeCoefficients(Qr, s, target.G, eta);
      parts = objectiveParts(Qr, V, s, target, eta);
      const Jnext = ratio(parts);
      objective.push(Jnext);
      const change = Math.abs(Jnext - J);
      J = Jnext;
      // The test below as a relative change, for the progress report.
      const relative = change === 0 ? 0 : J === 0 ? Number.POSITIVE_INFINITY : change / Math.abs(J);
      lastRelative = relative;
      ctx.progress(t, Jnext, null, { change: relative, tol });
      if (change <= tol * Math.abs(J)) {
        converged = true;
        break;
      }
    }
    if (!converged) {
      warnings.push(
        ...maxIterationsWarnings({
          owner: this.displayName,
          maxIter,
          stopTest: { measure: "the relative change of the objective", change: lastRelative },
          tol,
        }),
      );
    }
    // W = Q V = R_r (Q_r V).
    const W = multiply(svd.V, multiply(Qr, V));
    return iterated(
      W,
      { iterations, converged, objective, warnings },
      {
        eta,
        k,
        effectiveK: kEff,
        rank: r,
        classes: c,
        initialObjective,
        innerIterations,
        gammaTrace,
        shifts: { s1: 0, s2 },
      },
    );
  }
}

/** Ratio J = N^2 / Dn. */
function ratio(parts: ObjectiveParts): number {
  return (parts.numerator * parts.numerator) / parts.denominator;
}

/**
 * U_r^T Yc and the squared norm of the rest of Yc, with Yc the centred one-hot label
 * matrix (Yc[i][j] = [code_i = j] - n_j / n).
 */
function regressionTarget(U: Matrix, codes: Int32Array, c: number): RegressionTarget {
  const n = U.rows;
  const r = U.cols;
  const counts = new Float64Array(c);
  for (let i = 0; i < n; i++) counts[codes[i]]++;
  const Yc = new Matrix(n, c);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < c; j++) Yc.data[i * c + j] = (codes[i] === j ? 1 : 0) - counts[j] / n;
  }
  const G = new Matrix(r, c);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < r; a++) {
      const u = U.data[i * r + a];
      for (let j = 0; j < c; j++) G.data[a * c + j] += u * Yc.data[i * c + j];
    }
  }
  // The residual Yc - U_r G, formed explicitly (no cancellation of ||Yc||^2 - ||G||^2).
  const UG = multiply(U, G);
  let unreachable = 0;
  for (let t = 0; t < Yc.data.length; t++) {
    const e = Yc.data[t] - UG.data[t];
    unreachable += e * e;
  }
  return { G, unreachable, c };
}

/** Z = S_r Q_r: row a of Q_r scaled by s_a. */
function scaleRows(Qr: Matrix, s: Float64Array): Matrix {
  const k = Qr.cols;
  const Z = new Matrix(Qr.rows, k);
  for (let a = 0; a < Qr.rows; a++) {
    const f = s[a];
    for (let j = 0; j < k; j++) Z.data[a * k + j] = f * Qr.data[a * k + j];
  }
  return Z;
}

/** Step 1: V = (Z^T Z + eta I)^-1 Z^T G with Z = S_r Q_r, by Cholesky (eta > 0 makes it SPD). */
function ridgeCoefficients(Qr: Matrix, s: Float64Array, G: Matrix, eta: number): Matrix {
  const Z = scaleRows(Qr, s);
  const k = Z.cols;
  const c = G.cols;
  const A = new Matrix(k, k);
  const B = new Matrix(k, c);
  for (let a = 0; a < Z.rows; a++) {
    for (let i = 0; i < k; i++) {
      const zi = Z.data[a * k + i];
      if (zi === 0) continue;
      for (let j = 0; j < k; j++) A.data[i * k + j] += zi * Z.data[a * k + j];
      for (let j = 0; j < c; j++) B.data[i * c + j] += zi * G.data[a * c + j];
    }
  }
  symmetrizeInPlace(A);
  for (let i = 0; i < k; i++) A.data[i * k + i] += eta;
  if (!choleskyUpper(A)) {
    throw new Error(
      "JPCDA: internal error, the ridge system Q^T X^T X Q + eta I is not positive definite.",
    );
  }
  return solveCholesky(A, B);
}

/** Solves R^T R X = B for upper-triangular R (k x k) and B (k x c), returning X. */
function solveCholesky(R: Matrix, B: Matrix): Matrix {
  const k = R.rows;
  const c = B.cols;
  const X = B.clone();
  const x = X.data;
  const r = R.data;
  // Forward substitution with R^T.
  for (let i = 0; i < k; i++) {
    for (let p = 0; p < i; p++) {
      const f = r[p * k + i];
      if (f === 0) continue;
      for (let j = 0; j < c; j++) x[i * c + j] -= f * x[p * c + j];
    }
    const d = r[i * k + i];
    for (let j = 0; j < c; j++) x[i * c + j] /= d;
  }
  // Back substitution with R.
  for (let i = k - 1; i >= 0; i--) {
    for (let p = i + 1; p < k; p++) {
      const f = r[i * k + p];
      if (f === 0) continue;
      for (let j = 0; j < c; j++) x[i * c + j] -= f * x[p * c + j];
    }
    const d = r[i * k + i];
    for (let j = 0; j < c; j++) x[i * c + j] /= d;
  }
  return X;
}

/**
 * N = ||S_r Q_r||^2 and Dn = ||Z V - G||^2 + unreachable + eta ||V||^2, where
 * ||XQV - Yc||^2 splits into the part inside span(U_r) and the constant rest.
 */
function objectiveParts(
  Qr: Matrix,
  V: Matrix,
  s: Float64Array,
  target: RegressionTarget,
  eta: number,
): ObjectiveParts {
  const Z = scaleRows(Qr, s);
  let numerator = 0;
  for (let t = 0; t < Z.data.length; t++) numerator += Z.data[t] * Z.data[t];
  const ZV = multiply(Z, V);
  let residual = 0;
  for (let t = 0; t < ZV.data.length; t++) {
    const e = ZV.data[t] - target.G.data[t];
    residual += e * e;
  }
  let ridge = 0;
  for (let t = 0; t < V.data.length; t++) ridge += V.data[t] * V.data[t];
  return { Z, numerator, denominator: residual + target.unreachable + eta * ridge };
}

/** C = gamma V V^T (k x k), exactly symmetric. */
function scaledOuterProduct(V: Matrix, gamma: number): Matrix {
  const k = V.rows;
  const c = V.cols;
  const C = new Matrix(k, k);
  for (let i = 0; i < k; i++) {
    for (let j = 0; j <= i; j++) {
      let sum = 0;
      for (let l = 0; l < c; l++) sum += V.data[i * c + l] * V.data[j * c + l];
      C.data[i * k + j] = gamma * sum;
      C.data[j * k + i] = gamma * sum;
    }
  }
  return C;
}

/** D = 2 gamma S_r G V^T (r x k), the linear term of the surrogate in span coordinates. */
function linearTerm(s: Float64Array, G: Matrix, V: Matrix, gamma: number): Matrix {
  const r = G.rows;
  const c = G.cols;
  const k = V.rows;
  const D = new Matrix(r, k);
  for (let a = 0; a < r; a++) {
    const f = 2 * gamma * s[a];
    for (let j = 0; j < k; j++) {
      let sum = 0;
      for (let l = 0; l < c; l++) sum += G.data[a * c + l] * V.data[j * c + l];
      D.data[a * k + j] = f * sum;
    }
  }
  return D;
}

/**
 * M = 2 A~ Q + 2 B~ Q C + D in span coordinates, with A~ = S_r^2 (s1 = 0) and
 * B~ = s_max^2 I - S_r^2 (both diagonal there).
 */
function gpiMatrix(Qr: Matrix, s: Float64Array, s2: number, C: Matrix, D: Matrix): Matrix {
  const r = Qr.rows;
  const k = Qr.cols;
  const QC = multiply(Qr, C);
  const M = new Matrix(r, k);
  for (let a = 0; a < r; a++) {
    const sa = s[a] * s[a];
    const ba = s2 - sa;
    for (let j = 0; j < k; j++) {
      const o = a * k + j;
      M.data[o] = 2 * sa * Qr.data[o] + 2 * ba * QC.data[o] + D.data[o];
    }
  }
  return M;
}

/**
 * The orthonormal Q maximising Tr(Q^T M): U V^T from the thin SVD of M (r x k). When M
 * is rank deficient (its rank tolerance is sqrt(eps)), the missing singular pairs
 * contribute nothing to Tr(Q^T M), so any orthonormal completion is optimal: the
 * columns are completed deterministically (Gram-Schmidt over unit vectors).
 */
function polarFactor(M: Matrix): Matrix {
  const r = M.rows;
  const k = M.cols;
  const svd = thinSvd(M, { rankTolerance: Math.sqrt(PAPER_EPS) });
  const p = svd.rank;
  if (p === k) return multiply(svd.U, svd.V.transpose());
  const Ufull = new Matrix(r, k);
  const Vfull = new Matrix(k, k);
  for (let i = 0; i < r; i++) {
    for (let j = 0; j < p; j++) Ufull.data[i * k + j] = svd.U.data[i * p + j];
  }
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < p; j++) Vfull.data[i * k + j] = svd.V.data[i * p + j];
  }
  completeOrthonormalColumns(Ufull, p);
  completeOrthonormalColumns(Vfull, p);
  return multiply(Ufull, Vfull.transpose());
}

/** JPCDA: the method's declaration (see descriptor.ts). */
export const JPCDA_METHOD = defineMethod({
  name: "jpcda",
  displayName: "JPCDA",
  summary:
    "Joint principal component and discriminant analysis (Zhao et al. 2020); the output dimension is c.",
  supervised: true,
  options: OPTIONS,
  tuned: { eta: { paper: MULTIPLIER_GRID, authors: MULTIPLIER_GRID, quick: [0.1, 1, 10] } },
  paperColumn: 2,
  create: (options) => new JPCDA(options),
});
