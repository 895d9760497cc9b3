/**
 * SLNP, simultaneously learning neighbourship and projection (Pang, Zhou, Nie, IEEE
 * TNNLS 2019; SPEC section 3 item 9, reconstructed from the authors' experiment code
 * `SLNP.m` in ZhenhuaShi/SDSPCAAN): supervised PCAN with one adaptive graph per class,
 *
 *   min_{S_c, W^T X^T X W = I}  sum_c sum_{i,j in c} s_ij ||W^T x_i - W^T x_j||^2 + gamma_i ||s_i||^2,
 *
 * each row s_i on the simplex over the m nearest same-class samples.
 *
 * S-step (per class, per row). With d_i1 <= ... <= d_im the squared distances to the
 * m nearest same-class samples (the sample itself excluded explicitly, ties to the
 * lower index), the code's gamma_i = (m - 1)/2 ||(d_i1..d_im)||_2 and the simplex
 * solution of min_s sum_j s_j d_ij + gamma_i ||s||^2 give
 *
 *   s_ij = 1/m + (mean_l d_il - d_ij) / ((m - 1) ||d_i||_2).
 *
 * These weights sum to 1 and, for this gamma, always lie in [0, 1]: max_j d_ij - mean d
 * <= (m-1)/m max_j d_ij <= (m-1)/m ||d_i||, and mean d - min d <= ||d_i|| / sqrt(m). So
 * the simplex projection of the code (UpdateSnew) never clips in exact arithmetic;
 * here a weight rounded below 0 is set to 0. When all m distances are 0 (duplicates
 * in the current space) the formula is 0/0: the row gets the uniform 1/m, its limit
 * for equal distances and what the code's "+ eps" gives during the iterations.
 *
 * W-step. S <- (S + S^T)/2 class by class, L the block-diagonal within-class
 * Laplacian, M = sum_c X_c^T L_c X_c = X^T L X, and W = the k trailing generalised
 * eigenvectors of (X^T L X, X^T X), solved in the span of the data as for PCAN: with
 * X = U_r S_r R_r^T, W = R_r S_r^-1 P, P the k trailing eigenvectors of U_r^T L U_r
 * (the code's dense eig(X X^T \ M) is undefined when X^T X is singular, i.e. d >= n).
 * k > r is an error.
 *
 * Loop (as the code): S from the centred data, W; then t = 1..T: S from the projected
 * data X W, W; stop test on the change of W. m = min(15, smallest class count - 2) by
 * default (the code's rule); a class with fewer than 4 training samples leaves m < 2
 * (gamma = 0), so it is an error naming the class (the paper reports "--" there).
 *
 * Stop rules (`stopRule`, SPEC section 2): "aligned" (default) flips each column of W
 * to agree in sign with the previous W, then stops when sum |W - W0| < tol; "paper" is
 * the code's raw sum |W - W0| < tol; "subspace" stops when
 * sqrt(max(0, 2k - 2 ||P0^T P||_F^2)) < tol for the orthonormal coordinates P of X W in
 * the basis U_r (scale-free, and blind to rotations inside the k-dimensional subspace).
 * W has W^T X^T X W = I, so the size of sum |W - W0| scales like 1 / (scale of X).
 *
 * The reported objective is Tr(W^T X^T L X W) after each W-step (the sum of the k
 * smallest generalised eigenvalues) for the graph of that iteration; gamma changes
 * with the graph, so it need not decrease.
 *
 * `pcaDimensions` (default null: off). The authors' experiment script of the paper's
 * tables (demo_244.m, commit 7e5f112) runs two SLNP columns: SLNP on the data, and
 * "SLNP (PCA)" on the top-maxK principal-component scores (maxK = the largest k of
 * the grid, 100 on most datasets), mapped back by the PCA basis. The paper reports
 * one "SLNP" without saying which; the PCA variant is the one close to its numbers
 * where they differ (USPST, one split: about 80% with p = 100 against 57% without;
 * the paper: 81.66%). pcaDimensions = p runs that variant (W = R_p W_p, still with
 * W^T X^T X W = I, since X R_p = U_p S_p).
 */

import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import type { OptionSchema } from "../core/options.js";
import { plural } from "../core/plural.js";
import type { Label } from "../core/validate.js";
import { applyLaplacian, symmetrizeGraph } from "../graph/laplacian.js";
import { symmetrizeInPlace } from "../linalg/basic.js";
import { normalizeEigenvectorSigns } from "../linalg/eigen/symmetricEigen.js";
import { dataSpanEigen } from "../linalg/generalizedEigen.js";
import { nearestNeighbours } from "../linalg/kernels/distances.js";
import { multiply } from "../linalg/kernels/gemm.js";
import { innerProducts } from "../linalg/orthogonalize.js";
import { CsrMatrix } from "../linalg/sparse.js";
import type { ThinSvd } from "../linalg/svd.js";
import {
  checkComponentCount,
  kOption,
  maxIterOption,
  PAPER_NEIGHBOURS,
  tolOption,
} from "./commonOptions.js";
import { defineMethod } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { FitWarning } from "./fitReport.js";
import { fitWarning, maxIterationsWarnings } from "./fitWarnings.js";
import { canonicalizeEqualEigenvalues } from "./lda.js";
import type { ResolvedSLNPOptions, SLNPOptions } from "./optionTypes.js";
import { iterated, nonDegenerateSvd } from "./sharedSteps.js";
import { iterateChange, STOP_RULES, type StopRule } from "./stopRules.js";
import type { TrainingData } from "./training.js";

/** The within-class adaptive-neighbour graph: S before symmetrising, and gamma per row. */
export interface WithinClassGraph {
  /** n x n, m non-zeros per row, all within the row's class; rows sum to 1. */
  readonly S: CsrMatrix;
  /** gamma_i = (m - 1)/2 ||(d_i1..d_im)||_2. */
  readonly gamma: Float64Array;
  /** The neighbour count m. */
  readonly m: number;
  /** Rows whose m neighbour distances were all 0 (given the uniform 1/m). */
  readonly uniformRows: number;
}

/** The smallest number of training samples per class SLNP accepts (m >= 2, m <= n_c - 2). */
export const SLNP_MIN_CLASS_SIZE = 4;

/**
 * The SLNP weights of one row from its m nearest squared distances (ascending), written
 * into `out` (length m); returns gamma_i. See the file comment for the formula and the
 * all-zero case. m must be at least 2.
 */
export function slnpRowWeights(distances: ArrayLike<number>, out: Float64Array): number {
  const m = distances.length;
  if (m < 2 || out.length < m) {
    throw new ValidationError(
      "distances",
      `The 'distances' parameter of slnpRowWeights must hold m >= 2 distances (gamma = 0 for m = 1), with 'out' at least as long. Got ${m} distances and an output of length ${out.length} instead.`,
    );
  }
  let largest = 0;
  for (let j = 0; j < m; j++) largest = Math.max(largest, Math.abs(distances[j]));
  if (!(largest > 0)) {
    out.fill(1 / m, 0, m);
    return 0;
  }
  // The weights depend on d / ||d|| only: work with e = d / max d in [0, 1], so that
  // neither squares nor subnormal distances lose precision.
  const e = new Float64Array(m);
  let ss = 0;
  for (let j = 0; j < m; j++) {
    e[j] = distances[j] / largest;
    ss += e[j] * e[j];
  }
  const norm = Math.sqrt(ss);
  const denominator = m * (m - 1) * norm;
  for (let j = 0; j < m; j++) {
    // m (mean_l e_l - e_j) summed as differences: exact when the distances agree.
    let diff = 0;
    for (let l = 0; l < m; l++) diff += e[l] - e[j];
    out[j] = Math.max(1 / m + diff / denominator, 0);
  }
  return ((m - 1) / 2) * (largest * norm);
}

/**
 * The within-class graph of the rows of P: for every class (members given as global
 * row indices), each member's m nearest same-class rows and their SLNP weights.
 */
export function withinClassGraph(
  P: Matrix,
  members: readonly Int32Array[],
  m: number,
): WithinClassGraph {
  const n = P.rows;
  if (!Number.isInteger(m) || m < 2) {
    throw new ValidationError(
      "m",
      `The 'm' parameter of withinClassGraph must be an integer in [2, inf). Got ${m} instead.`,
    );
  }
  const entries: Array<{ indices: Int32Array; values: Float64Array }> = new Array(n);
  const gamma = new Float64Array(n);
  let uniformRows = 0;
  const seen = new Uint8Array(n);
  for (let c = 0; c < members.length; c++) {
    const rows = members[c];
    for (const i of rows) {
      if (!(i >= 0 && i < n) || seen[i] === 1) {
        throw new ValidationError(
          "members",
          `The 'members' parameter of withinClassGraph must list every row of P (0..${n - 1}) exactly once. Got row ${i} ${seen[i] === 1 ? "twice" : "out of range"} in class ${c}.`,
        );
      }
      seen[i] = 1;
    }
    if (rows.length < m + 1) {
      throw new ValidationError(
        "m",
        `The 'm' parameter of withinClassGraph must be at most ${rows.length - 1} for class ${c} with ${rows.length} rows. Got ${m} instead.`,
      );
    }
    const nb = nearestNeighbours(P.selectRows(rows), m);
    for (let a = 0; a < rows.length; a++) {
      const indices = new Int32Array(m);
      const values = new Float64Array(m);
      const dist = nb.distances.subarray(a * m, (a + 1) * m);
      gamma[rows[a]] = slnpRowWeights(dist, values);
      if (gamma[rows[a]] === 0) uniformRows++;
      for (let j = 0; j < m; j++) indices[j] = rows[nb.indices[a * m + j]];
      entries[rows[a]] = { indices, values };
    }
  }
  const missing = seen.indexOf(0);
  if (missing >= 0) {
    throw new ValidationError(
      "members",
      `The 'members' parameter of withinClassGraph must list every row of P (0..${n - 1}) exactly once. Row ${missing} is in no class.`,
    );
  }
  return { S: CsrMatrix.fromRows(n, n, entries), gamma, m, uniformRows };
}

/** Row indices of each class (codes 0..c-1), ascending. */
function classMembers(codes: Int32Array, counts: Int32Array): Int32Array[] {
  const members = Array.from(counts, (count) => new Int32Array(count));
  const fill = new Int32Array(counts.length);
  for (let i = 0; i < codes.length; i++) members[codes[i]][fill[codes[i]]++] = i;
  return members;
}

function showLabel(label: Label): string {
  return JSON.stringify(label);
}

const OPTIONS = {
  k: kOption,
  m: {
    type: "integer",
    min: 2,
    default: null,
    doc: "Same-class neighbours per sample m; null means min(15, smallest class count - 2).",
  },
  tol: tolOption,
  maxIter: maxIterOption,
  stopRule: {
    type: "enum",
    values: STOP_RULES,
    default: "aligned",
    doc: "Stop test on the change of W: sign-aligned sum |W - W0|, the code's raw sum, or the subspace distance.",
  },
  pcaDimensions: {
    type: "integer",
    min: 1,
    default: null,
    doc: "Run SLNP on the top-p principal components (the authors' 'SLNP (PCA)' variant, p = the largest k of the grid); null runs it on the data.",
  },
} as const satisfies OptionSchema;

/** SLNP's diagnostics (`fitInfo.details`). */
export type SLNPDetails = {
  /** Same-class neighbours per sample used. */
  m: number;
  rank: number;
  /** The PCA dimension p SLNP ran on (null: on the data itself). */
  pcaDimensions: number | null;
  stopRule: StopRule;
  /** The stop rule's change of W per iteration. */
  changeTrace: number[];
  eigenvalues: number[];
  nullSpaceDimension: number;
  smallestClass: { label: Label; count: number };
};

export class SLNP extends Estimator<ResolvedSLNPOptions, SLNPDetails> {
  constructor(options: SLNPOptions = {}) {
    super(SLNP_METHOD, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<SLNPDetails> {
    const { k, tol, maxIter, stopRule } = this.params;
    const labels = data.requireLabels(this.displayName);
    const { counts, classes } = labels;
    const smallest = smallestClass(this.displayName, counts, classes);
    const minCount = counts[smallest];
    const m = neighbourCount(this.displayName, this.params.m, minCount, classes[smallest]);
    const limit = Math.min(data.n, data.d);
    checkComponentCount(this.displayName, k, limit, `at most min(n, d) = ${limit}`);
    const svd = nonDegenerateSvd(this.displayName, data, ctx);
    const r = svd.rank;
    const warnings: FitWarning[] = [];
    // The space SLNP runs in: the centred data, or (pcaDimensions) its top-p PCA scores
    // Z = X R_p = U_p S_p, whose thin SVD is (U_p, S_p, I_p); W is lifted back by R_p.
    const { pcaDimensions } = this.params;
    let p = r;
    let space: { X: Matrix; svd: ThinSvd } = { X: data.X, svd };
    if (pcaDimensions !== null) {
      p = Math.min(pcaDimensions, r);
      if (pcaDimensions > r) {
        warnings.push(
          fitWarning(
            "pca-dimensions-above-rank",
            `pcaDimensions = ${pcaDimensions} exceeds the numerical rank ${r} of the centred training data; SLNP ran on all ${r} principal components.`,
            { pcaDimensions, rank: r },
          ),
        );
      }
      const dims = p;
      space = data.cached(`slnp:pcaSpace:${dims}`, () => principalSubspace(svd, dims));
    }
    checkComponentCount(
      this.displayName,
      k,
      p,
      pcaDimensions === null
        ? `at most the numerical rank r = ${r} of the centred training data: the generalised problem with X^T X has only r finite eigenvalues`
        : `at most the ${p} principal components SLNP runs on`,
    );
    const members = data.cached("slnp:classMembers", () => classMembers(labels.codes, counts));
    const mUsed = m;
    const X = space.X;
    const initial = data.cached(
      `slnp:initialGraph:m=${mUsed}:pca=${pcaDimensions === null ? "none" : p}`,
      () => ctx.timeGraph(() => withinClassGraph(X, members, mUsed)),
    );
    const c = counts.length;
    const wStep = (graph: WithinClassGraph): WStep => {
      const S = ctx.timeGraph(() => symmetrizeGraph(graph.S));
      return ctx.timeEigen(() => withinClassWStep(X, S, space.svd, k, c));
    };

    let current = wStep(initial);
    const objective: number[] = [];
    const changes: number[] = [];
    let uniformRows = initial.uniformRows;
    let converged = false;
    let iterations = 0;
    for (let t = 1; t <= maxIter; t++) {
      iterations = t;
      const projected = multiply(X, current.W);
      const graph = ctx.timeGraph(() => withinClassGraph(projected, members, mUsed));
      uniformRows = Math.max(uniformRows, graph.uniformRows);
      const next = wStep(graph);
      const value = sum(next.values);
      objective.push(value);
      const change = changeOfW(stopRule, current, next, space.svd);
      changes.push(change);
      ctx.progress(t, value, null, { change, tol });
      current = next;
      if (change < tol) {
        converged = true;
        break;
      }
    }
    if (!converged) {
      warnings.push(
        ...maxIterationsWarnings({
          owner: this.displayName,
          maxIter,
          stopTest: {
            measure: `the change of W (stopRule "${stopRule}")`,
            change: changes[changes.length - 1],
          },
          tol,
        }),
      );
    }
    if (uniformRows > 0) {
      warnings.push(
        fitWarning(
          "tied-neighbours",
          `${plural(uniformRows, "sample")} had all ${mUsed} nearest same-class neighbours at distance 0 in some iteration, and their rows got the uniform weight 1/${mUsed}: duplicate samples, or W inside the null space of the within-class Laplacian, where each class collapses to a point (k <= ${current.nullDimension}, the null-space dimension, here).`,
          { samples: uniformRows, m: mUsed },
        ),
      );
    }
    let W = current.W;
    if (pcaDimensions !== null) {
      W = multiply(svd.V.leadingColumns(p), W);
      normalizeEigenvectorSigns(W);
    }
    return iterated(
      W,
      { iterations, converged, objective, warnings },
      {
        m: mUsed,
        rank: r,
        pcaDimensions: pcaDimensions === null ? null : p,
        stopRule,
        changeTrace: changes,
        eigenvalues: Array.from(current.values),
        nullSpaceDimension: current.nullDimension,
        smallestClass: { label: classes[smallest], count: minCount },
      },
    );
  }
}

/** The smallest class (the first of equal ones), after refusing any too small for SLNP. */
function smallestClass(
  owner: string,
  counts: ArrayLike<number>,
  classes: readonly Label[],
): number {
  const small: string[] = [];
  let smallest = 0;
  for (let c = 0; c < counts.length; c++) {
    if (counts[c] < SLNP_MIN_CLASS_SIZE) {
      small.push(`class ${showLabel(classes[c])} has ${counts[c]}`);
    }
    if (counts[c] < counts[smallest]) smallest = c;
  }
  if (small.length > 0) {
    throw new ValidationError(
      "y",
      `${owner} needs at least ${SLNP_MIN_CLASS_SIZE} training samples in every class (its within-class graphs use m >= 2 same-class neighbours and m <= n_c - 2); ${small.slice(0, 5).join(", ")}${small.length > 5 ? `, and ${small.length - 5} more classes are too small` : ""}.`,
    );
  }
  return smallest;
}

/**
 * m = min(15, n_c - 2) for the smallest class's count n_c (the code's rule), or the
 * user's m checked against n_c - 2.
 */
function neighbourCount(owner: string, m: number | null, minCount: number, label: Label): number {
  const mMax = minCount - 2;
  if (m === null) return Math.min(PAPER_NEIGHBOURS, mMax);
  if (m > mMax) {
    throw new ValidationError(
      "m",
      `The 'm' parameter of ${owner} must be an integer in [2, ${mMax}] (the smallest training class, ${showLabel(label)}, has ${minCount} samples, and m <= n_c - 2). Got ${m} instead.`,
    );
  }
  return m;
}

function sum(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i];
  return s;
}

/**
 * The top-p principal-component scores Z = U_p S_p of the centred data and their thin
 * SVD (U_p, S_p, I_p), for the `pcaDimensions` variant.
 */
function principalSubspace(svd: ThinSvd, p: number): { X: Matrix; svd: ThinSvd } {
  const n = svd.U.rows;
  const U = svd.U.leadingColumns(p);
  const Z = new Matrix(n, p);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < p; j++) Z.data[i * p + j] = U.data[i * p + j] * svd.s[j];
  }
  const reduced: ThinSvd = {
    U,
    s: svd.s.slice(0, p),
    V: Matrix.identity(p),
    rank: p,
    rankTolerance: svd.rankTolerance,
  };
  return { X: Z, svd: reduced };
}

/**
 * The stop-test measure between consecutive W-steps: "aligned" and "paper" on W itself
 * (as the code's sum |W - W0|), "subspace" on the orthonormal coordinates P of X W.
 */
function changeOfW(rule: StopRule, previous: WStep, next: WStep, svd: ThinSvd): number {
  if (rule === "subspace") {
    return iterateChange(spanCoordinates(next.W, svd), spanCoordinates(previous.W, svd), rule);
  }
  return iterateChange(next.W, previous.W, rule);
}

/** P = S_r R_r^T W (r x k): the coordinates of X W = U_r P, orthonormal since W^T X^T X W = I. */
function spanCoordinates(W: Matrix, svd: ThinSvd): Matrix {
  const P = innerProducts(svd.V, W);
  const k = W.cols;
  for (let a = 0; a < P.rows; a++) {
    for (let j = 0; j < k; j++) P.data[a * k + j] *= svd.s[a];
  }
  return P;
}

/**
 * Generalised eigenvalues closer than this fraction of the norm bound of U_r^T L U_r
 * count as equal (and those below it as 0). Round-off puts computed multiple
 * eigenvalues within ~1e-15 relative of each other (COIL20: 19 at 0, 16 at exactly
 * 0.5), while distinct ones are orders of magnitude further apart.
 */
export const EQUAL_EIGENVALUE_TOLERANCE = 1e-9;

/** One W-step: W (d x k) with W^T X^T X W = I, its generalised eigenvalues, the null count. */
interface WStep {
  readonly W: Matrix;
  readonly values: Float64Array;
  /** Dimension of the null space of X^T L X within the data span (all of it, even beyond k). */
  readonly nullDimension: number;
}

/**
 * The W-step in the data span: the k trailing generalised eigenvectors of
 * (X^T L X, X^T X) from the eigenvectors of U_r^T L U_r.
 *
 * Multiple eigenvalues. The objective cannot tell apart the directions of a multiple
 * eigenvalue, so an eigen-solver returns an arbitrary basis of its eigenspace, which
 * changes with L at every iteration: W then never settles and SLNP cannot converge.
 * The largest such space is the null space: when the data span contains the centred
 * class indicators (always when d >= n), vectors constant on each class graph give
 * eigenvalue 0 with multiplicity c - 1 or more, and there every class collapses to a
 * point. Each cluster of numerically equal eigenvalues is therefore rotated to a
 * canonical basis that does not depend on the solver: the directions of smallest
 * ||w||_2 first (eigenvectors of the cluster's Euclidean Gram matrix W_c^T W_c,
 * ascending), the null-space LDA rule of Chen et al. (2000) that `LDA` also uses for
 * the same null directions. Enough eigenpairs are computed to hold the whole cluster
 * at the k-th eigenvalue, so that the chosen k-subset does not depend on where the
 * solver cut it.
 */
export function withinClassWStep(
  X: Matrix,
  S: CsrMatrix,
  svd: ThinSvd,
  k: number,
  classes: number,
): WStep {
  const r = svd.rank;
  const A = symmetrizeInPlace(innerProducts(svd.U, applyLaplacian(S, svd.U)));
  // Gershgorin bound on the largest eigenvalue (A is positive semidefinite).
  let bound = 0;
  for (let a = 0; a < r; a++) {
    let rowSum = 0;
    for (let b = 0; b < r; b++) rowSum += Math.abs(A.data[a * r + b]);
    bound = Math.max(bound, rowSum);
  }
  const threshold = EQUAL_EIGENVALUE_TOLERANCE * bound;
  let count = Math.min(r, k + classes);
  for (;;) {
    const result = dataSpanEigen(X, { projected: A }, { smallest: count }, { svd });
    const values = result.values;
    // The cluster holding the k-th eigenvalue must end inside the computed pairs.
    let end = k;
    while (end < count && values[end] - values[end - 1] <= threshold) end++;
    if (end === count && count < r) {
      count = Math.min(r, 2 * count);
      continue;
    }
    const W = result.W;
    canonicalizeEqualEigenvalues(W, values, end, threshold);
    let nullDimension = 0;
    while (nullDimension < count && values[nullDimension] <= threshold) nullDimension++;
    const out = W.leadingColumns(k);
    normalizeEigenvectorSigns(out);
    return { W: out, values: values.slice(0, k), nullDimension };
  }
}

/** SLNP: the method's declaration (see descriptor.ts). */
export const SLNP_METHOD = defineMethod({
  name: "slnp",
  displayName: "SLNP",
  summary:
    "Supervised linear neighbourhood preserving projection (Pang et al. 2019); every class needs 4 training samples.",
  supervised: true,
  options: OPTIONS,
  // The authors' script's "SLNP (PCA)" column: SLNP on the top-maxK PCA scores.
  presetOptions: (preset, { ks }) =>
    preset === "authors" && ks.length > 0 ? { pcaDimensions: Math.max(...ks) } : null,
  paperColumn: 4,
  create: (options) => new SLNP(options),
});
