/**
 * LPP, locality preserving projections (He & Niyogi, NIPS 2003; an extra beyond the
 * paper, SPEC section 3 item 10). Unsupervised: labels are accepted and ignored.
 *
 * Graph. A fixed k-nearest-neighbour graph on the centred training data, symmetrised
 * by union (i ~ j when either is among the other's `neighbours` nearest; the sample
 * itself excluded, ties to the lower index), with weights
 *   "heat":   w_ij = exp(-||x_i - x_j||^2 / t),
 *   "binary": w_ij = 1.
 * The heat bandwidth t defaults to the mean squared distance over all n x neighbours
 * (sample, neighbour) pairs, a scale-free choice that keeps typical weights near
 * e^-1; if every such distance is 0 (all samples duplicated), every edge weighs 1
 * whatever t is, and t = 1 is reported.
 *
 * Problem (Eq. (LPP) of the source): min Tr(W^T X^T L X W) s.t. W^T X^T D X W = I,
 * with D the degrees and L = D - S. X^T D X is singular whenever d >= n, so the
 * problem is solved in the span of the data without any inverse: with
 * X = U_r S_r R_r^T and W = R_r S_r^-1 Y, both forms become r x r,
 * A = U_r^T L U_r and B = U_r^T D U_r, and Y holds the k trailing generalised
 * eigenvectors of (A, B) solved on the range of B. Directions of the null space of X
 * (0/0 in the Rayleigh quotient) are excluded, so k <= r. The data are centred
 * (the library's transform is (x - mean) W), so the constraint uses the D-weighted
 * second moment about the training mean; L annihilates constants, so the objective
 * does not change.
 */

import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import type { OptionSchema } from "../core/options.js";
import { plural } from "../core/plural.js";
import { applyLaplacian } from "../graph/laplacian.js";
import { initialNeighbours } from "../graph/neighbours.js";
import { symmetrizeInPlace } from "../linalg/basic.js";
import { normalizeEigenvectorSigns } from "../linalg/eigen/symmetricEigen.js";
import { generalizedSymmetricEigen } from "../linalg/generalizedEigen.js";
import { multiply } from "../linalg/kernels/gemm.js";
import type { TwoPartNeighbours } from "../linalg/kernels/neighbourHeaps.js";
import { innerProducts } from "../linalg/orthogonalize.js";
import { CsrMatrix } from "../linalg/sparse.js";
import { checkComponentCount, kOption } from "./commonOptions.js";
import { defineMethod } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { FitWarning } from "./fitReport.js";
import { fitWarning } from "./fitWarnings.js";
import type { LPPOptions, ResolvedLPPOptions } from "./optionTypes.js";
import { closedForm, nonDegenerateSvd } from "./sharedSteps.js";
import type { TrainingData } from "./training.js";

export type LPPWeight = "heat" | "binary";

/** The weighted, symmetrised kNN graph of LPP and how it was built. */
export interface LPPGraph {
  /** n x n, symmetric, non-negative, zero diagonal. */
  readonly S: CsrMatrix;
  /** The bandwidth t used ("heat"), or null ("binary"). */
  readonly bandwidth: number | null;
  /** Number of undirected edges. */
  readonly edges: number;
}

/**
 * The union-symmetrised kNN graph from each sample's nearest neighbours (as
 * `nearestNeighbours` returns them), weighted by `weight` (see the file comment).
 */
export function localityGraph(
  knn: TwoPartNeighbours,
  weight: LPPWeight,
  bandwidth: number | null,
): LPPGraph {
  const n = knn.rows;
  const p = knn.count;
  let t: number | null = null;
  if (weight === "heat") {
    if (bandwidth !== null) {
      t = bandwidth;
    } else {
      let total = 0;
      for (let e = 0; e < n * p; e++) total += knn.primary[e];
      const mean = total / (n * p);
      t = mean > 0 ? mean : 1;
    }
  }
  // Both orientations of every directed edge; a pair chosen from both sides appears
  // twice in a row with the same weight (d_ij = d_ji exactly) and is kept once.
  const rowCount = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < p; a++) {
      rowCount[i + 1]++;
      rowCount[knn.indices[i * p + a] + 1]++;
    }
  }
  for (let i = 0; i < n; i++) rowCount[i + 1] += rowCount[i];
  const fill = rowCount.slice(0, n);
  const cols = new Int32Array(2 * n * p);
  const vals = new Float64Array(2 * n * p);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < p; a++) {
      const j = knn.indices[i * p + a];
      const w = t === null ? 1 : Math.exp(-knn.primary[i * p + a] / t);
      cols[fill[i]] = j;
      vals[fill[i]++] = w;
      cols[fill[j]] = i;
      vals[fill[j]++] = w;
    }
  }
  const rowPtr = new Int32Array(n + 1);
  const colIdx = new Int32Array(2 * n * p);
  const values = new Float64Array(2 * n * p);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const s = rowCount[i];
    const e = rowCount[i + 1];
    const order = Array.from({ length: e - s }, (_, q) => s + q).sort(
      (x, y) => cols[x] - cols[y] || vals[y] - vals[x],
    );
    for (const q of order) {
      if (at > rowPtr[i] && colIdx[at - 1] === cols[q]) continue;
      colIdx[at] = cols[q];
      values[at] = vals[q];
      at++;
    }
    rowPtr[i + 1] = at;
  }
  const S = new CsrMatrix(n, n, rowPtr, colIdx.slice(0, at), values.slice(0, at));
  return { S, bandwidth: t, edges: at / 2 };
}

const OPTIONS = {
  k: kOption,
  neighbours: {
    type: "integer",
    min: 1,
    default: 5,
    doc: "Nearest neighbours per sample in the graph (at most n - 1), before the union symmetrisation.",
  },
  weight: {
    type: "enum",
    values: ["heat", "binary"],
    default: "heat",
    doc: "Edge weights: heat kernel exp(-||x_i - x_j||^2 / t) or 0/1.",
  },
  bandwidth: {
    type: "number",
    min: 0,
    exclusiveMin: true,
    default: null,
    doc: "Heat-kernel bandwidth t; null means the mean squared distance to the neighbours.",
  },
} as const satisfies OptionSchema;

/** LPP's diagnostics (`fitInfo.details`). */
export type LPPDetails = {
  /** The k smallest generalised eigenvalues. */
  eigenvalues: number[];
  /** The heat-kernel bandwidth used (null for binary weights). */
  bandwidth: number | null;
  /** Undirected edges of the graph. */
  edges: number;
  neighbours: number;
  weight: LPPWeight;
  rank: number;
};

export class LPP extends Estimator<ResolvedLPPOptions, LPPDetails> {
  constructor(options: LPPOptions = {}) {
    super(LPP_METHOD, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<LPPDetails> {
    const { k, neighbours, weight, bandwidth } = this.params;
    const n = data.n;
    if (neighbours > n - 1) {
      throw new ValidationError(
        "neighbours",
        `The 'neighbours' parameter of ${this.displayName} must be an integer in [1, ${n - 1}] for ${n} training samples (n - 1). Got ${neighbours} instead.`,
      );
    }
    const limit = Math.min(n, data.d);
    checkComponentCount(this.displayName, k, limit, `at most min(n, d) = ${limit}`);
    const svd = nonDegenerateSvd(this.displayName, data, ctx);
    const r = svd.rank;
    checkComponentCount(
      this.displayName,
      k,
      r,
      `at most the numerical rank r = ${r} of the centred training data: LPP is solved in the span of the data`,
    );
    const knn = data.cached(`lpp:knn:${neighbours}`, () =>
      ctx.timeGraph(() =>
        initialNeighbours(data.X, neighbours, ctx.signal ? { signal: ctx.signal } : {}),
      ),
    );
    const graph = ctx.timeGraph(() => localityGraph(knn, weight, bandwidth));
    ctx.checkAborted();
    const U = svd.U;
    const degrees = graph.S.rowSums();
    let isolated = 0;
    for (let i = 0; i < n; i++) if (!(degrees[i] > 0)) isolated++;
    // A = U^T L U (L applied in the difference form) and B = U^T D U.
    const A = innerProducts(U, applyLaplacian(graph.S, U));
    const DU = U.clone();
    for (let i = 0; i < n; i++) {
      for (let a = 0; a < r; a++) DU.data[i * r + a] *= degrees[i];
    }
    const B = innerProducts(U, DU);
    symmetrizeInPlace(A);
    symmetrizeInPlace(B);
    let solution: ReturnType<typeof generalizedSymmetricEigen>;
    try {
      solution = ctx.timeEigen(() => generalizedSymmetricEigen(A, B, { smallest: k }));
    } catch (err) {
      if (err instanceof ValidationError && err.argument === "select.smallest") {
        throw new ValidationError(
          "k",
          `The 'k' parameter of ${this.displayName} must be at most the rank of X^T D X in the data span (${plural(isolated, "sample")} ${isolated === 1 ? "has" : "have"} zero degree, their heat weights underflow: raise 'bandwidth' or use weight "binary"). Got ${k} instead.`,
        );
      }
      throw err;
    }
    // W = R_r S_r^-1 Y.
    const Y = solution.vectors;
    const scaled = new Matrix(r, k);
    for (let a = 0; a < r; a++) {
      const f = 1 / svd.s[a];
      for (let j = 0; j < k; j++) scaled.data[a * k + j] = Y.data[a * k + j] * f;
    }
    const W = multiply(svd.V, scaled);
    normalizeEigenvectorSigns(W);
    const warnings: FitWarning[] = [];
    if (isolated > 0) {
      warnings.push(
        fitWarning(
          "isolated-samples",
          `${plural(isolated, "training sample")} ${isolated === 1 ? "has" : "have"} zero degree (every heat weight underflowed to 0 with t = ${graph.bandwidth}): ${isolated === 1 ? "it does" : "they do"} not enter the constraint W^T X^T D X W = I.`,
          { samples: isolated, bandwidth: graph.bandwidth },
        ),
      );
    }
    return closedForm(W, {
      warnings,
      details: {
        eigenvalues: Array.from(solution.values),
        bandwidth: graph.bandwidth,
        edges: graph.edges,
        neighbours,
        weight,
        rank: r,
      },
    });
  }
}

/** LPP: the method's declaration (see descriptor.ts). */
export const LPP_METHOD = defineMethod({
  name: "lpp",
  displayName: "LPP",
  summary: "Locality preserving projections on a kNN graph.",
  supervised: false,
  options: OPTIONS,
  create: (options) => new LPP(options),
});
