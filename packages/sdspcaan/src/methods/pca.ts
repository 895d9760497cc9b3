/**
 * PCA (the paper's Section II-A, Eq. (MaxVar)): W = the top-k right singular vectors
 * of the centred training data. vPCA (W = R_k Sigma_k) differs only by a per-column
 * scale, which the standardised 1-NN classifier removes, so PCA stands for both.
 *
 * Only the k leading eigenpairs of the smaller Gram matrix (X^T X or X X^T) are
 * computed (leadingSingularTriplets in linalg/svd.ts), the numerical rank by a Sturm
 * count: the full thin SVD would cost ten times more and give the same columns.
 */

import { Matrix } from "../core/matrix.js";
import type { OptionSchema, OptionsOf } from "../core/options.js";
import { orthogonalizeTwice } from "../linalg/orthogonalize.js";
import {
  type LeadingSingularTriplets,
  leadingTripletsOfColumnGram,
  leadingTripletsOfRowGram,
} from "../linalg/svd.js";
import { checkComponentCount, kOption } from "./commonOptions.js";
import { defineMethod } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { FitWarning } from "./fitReport.js";
import { fitWarning } from "./fitWarnings.js";
import { closedForm } from "./sharedSteps.js";
import type { TrainingData } from "./training.js";

const OPTIONS = { k: kOption } as const satisfies OptionSchema;

/** Options of {@link PCA}, each described in docs/method-options.md. */
export type PCAOptions = OptionsOf<typeof OPTIONS>;

/** PCA's diagnostics (`fitInfo.details`). */
export type PCADetails = {
  /** Numerical rank of the centred training data. */
  rank: number;
  /** Variance along each kept component, s_j^2 / (n - 1). */
  explainedVariance: number[];
};

/**
 * Test hook: `triplets` replaces the k leading eigenpairs by another exact path (the
 * tests put the full thin SVD there, the slower path the default is tested against).
 * The replacement lives in the tests, so that a bundle of PCA carries no second solver.
 */
export const pcaTestHooks: {
  triplets: ((data: TrainingData, k: number) => LeadingSingularTriplets) | null;
} = { triplets: null };

export class PCA extends Estimator<PCAOptions, PCADetails> {
  constructor(options: Partial<PCAOptions> = {}) {
    super(PCA_METHOD, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<PCADetails> {
    const { k } = this.params;
    const limit = Math.min(data.n, data.d);
    checkComponentCount(this.displayName, k, limit, `at most min(n, d) = ${limit}`);
    const svd = ctx.timeEigen(() =>
      pcaTestHooks.triplets !== null
        ? pcaTestHooks.triplets(data, k)
        : data.n > data.d
          ? leadingTripletsOfColumnGram(data.columnGram(), data.n, k)
          : leadingTripletsOfRowGram(data.X, k),
    );
    const r = svd.rank;
    const warnings: FitWarning[] = [];
    const W = new Matrix(data.d, k);
    const kept = Math.min(k, r);
    const vCols = svd.V.cols;
    for (let i = 0; i < data.d; i++) {
      for (let j = 0; j < kept; j++) W.data[i * k + j] = svd.V.data[i * vCols + j];
    }
    if (k > r) {
      completeOrthonormalColumns(W, kept);
      warnings.push(
        fitWarning(
          "k-above-rank",
          `k = ${k} exceeds the numerical rank ${r} of the centred training data; the last ${k - r} component(s) are orthonormal directions that carry no training variance.`,
          { k, rank: r },
        ),
      );
    }
    const variances = Array.from(svd.s.subarray(0, kept), (s) => (s * s) / (data.n - 1));
    return closedForm(W, { warnings, details: { rank: r, explainedVariance: variances } });
  }
}

/**
 * Fills columns `from..k-1` of W (whose first `from` columns are orthonormal) with
 * orthonormal vectors orthogonal to them: Gram-Schmidt (twice, for stability) over
 * the unit vectors e_1, e_2, ... in order, which makes the completion deterministic.
 */
export function completeOrthonormalColumns(W: Matrix, from: number): void {
  const d = W.rows;
  const k = W.cols;
  const w = W.data;
  const v = new Float64Array(d);
  let col = from;
  for (let unit = 0; unit < d && col < k; unit++) {
    v.fill(0);
    v[unit] = 1;
    const norm = orthogonalizeTwice(v, W, col);
    if (norm < 1e-8) continue;
    for (let i = 0; i < d; i++) w[i * k + col] = v[i] / norm;
    col++;
  }
}

/** PCA: the method's declaration (see descriptor.ts). */
export const PCA_METHOD = defineMethod({
  name: "pca",
  displayName: "PCA",
  summary: "PCA: the top-k right singular vectors of the centred data.",
  supervised: false,
  options: OPTIONS,
  paperColumn: 1,
  create: (options) => new PCA(options),
});
