/**
 * PCA (the paper's Section II-A, Eq. (MaxVar)): W = the top-k right singular vectors
 * of the centred training data. vPCA (W = R_k Sigma_k) differs only by a per-column
 * scale, which the standardised 1-NN classifier removes, so PCA stands for both.
 *
 * Only the k leading eigenpairs of the smaller Gram matrix (X^T X or X X^T) are
 * computed (leadingSingularTriplets in linalg/svd.ts), the numerical rank by a Sturm
 * count: the full thin SVD would cost ten times more and give the same columns.
 */

import { ModelFormatError, SdspcaanError, ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import type { OptionSchema } from "../core/options.js";
import type { Label } from "../core/validate.js";
import { trace } from "../linalg/basic.js";
import { orthogonalizeTwice } from "../linalg/orthogonalize.js";
import {
  type LeadingSingularTriplets,
  leadingTripletsOfColumnGram,
  leadingTripletsOfRowGram,
} from "../linalg/svd.js";
import { checkComponentCount, kOption } from "./commonOptions.js";
import { defineMethod } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext, type ModelJSON } from "./estimator.js";
import type { FitWarning } from "./fitReport.js";
import { fitWarning } from "./fitWarnings.js";
import type { PCAOptions, ResolvedPCAOptions } from "./optionTypes.js";
import { closedForm } from "./sharedSteps.js";
import type { TrainingData } from "./training.js";

const OPTIONS = {
  k: {
    ...kOption,
    fraction: true,
    doc: "Subspace dimensionality k (columns of W), or a fraction 0 < k < 1: the fewest components whose explained variance ratios sum to at least k (scikit-learn's n_components=0.95).",
  },
  whiten: {
    type: "boolean",
    default: false,
    since: 4,
    doc: "Divide each component's scores by its standard deviation (the square root of its explained variance), so that the projected training data have unit variance per column (scikit-learn's whiten).",
  },
} as const satisfies OptionSchema;

/** PCA's diagnostics (`fitInfo.details`). */
export type PCADetails = {
  /** Numerical rank of the centred training data. */
  rank: number;
  /** Variance along each kept component, s_j^2 / (n - 1) (at most `rank` of them). */
  explainedVariance: number[];
  /**
   * Each kept component's share of the total variance of the training data (absent in
   * models saved before model format version 4).
   */
  explainedVarianceRatio?: number[];
  /** The kept singular values s_j of the centred training data (absent before version 4). */
  singularValues?: number[];
  /** The total variance of the training data, the sum of its column variances (absent before version 4). */
  totalVariance?: number;
};

/** The leading singular triplets of the centred training data and its total sum of squares. */
export interface PCATriplets extends LeadingSingularTriplets {
  /** The sum of squares of the centred training data (the trace of its Gram matrix). */
  readonly totalSquares: number;
}

/**
 * Finds the k leading singular triplets of the centred training data: `leadingTriplets`
 * by default; a test passes another exact path (the full thin SVD) to compare with.
 */
export type TripletSolver = (data: TrainingData, k: number) => PCATriplets;

/**
 * The k leading singular triplets from the smaller Gram matrix, and the trace of that
 * Gram matrix (taken before the solver overwrites it).
 */
export const leadingTriplets: TripletSolver = (data, k) => {
  if (data.n > data.d) {
    const G = data.columnGram();
    const totalSquares = trace(G);
    return { ...leadingTripletsOfColumnGram(G, data.n, k), totalSquares };
  }
  return { ...leadingTripletsOfRowGram(data.X, k), totalSquares: data.gramTrace() };
};

/**
 * The fewest leading components whose variance ratios sum to at least `fraction`
 * (scikit-learn's n_components in (0, 1)); all `s.length` when round-off keeps the sum
 * just short of it.
 */
export function componentsForFraction(
  s: ArrayLike<number>,
  totalSquares: number,
  fraction: number,
): number {
  let sum = 0;
  for (let j = 0; j < s.length; j++) {
    sum += (s[j] * s[j]) / totalSquares;
    if (sum >= fraction) return j + 1;
  }
  return s.length;
}

/**
 * PCA's fit on prepared data, with the triplets from `triplets` (PCA's own solver; a
 * test passes the full thin SVD to compare the two).
 */
export function fitPCA(
  data: TrainingData,
  params: ResolvedPCAOptions,
  ctx: FitContext,
  triplets: TripletSolver = leadingTriplets,
): CoreFitResult<PCADetails> {
  const owner = "PCA";
  const limit = Math.min(data.n, data.d);
  const byFraction = params.k < 1;
  if (!byFraction) checkComponentCount(owner, params.k, limit, `at most min(n, d) = ${limit}`);
  const svd = ctx.timeEigen(() => triplets(data, byFraction ? limit : params.k));
  const { totalSquares } = svd;
  const r = svd.rank;
  if (byFraction && r === 0) {
    throw new ValidationError(
      "k",
      `The 'k' parameter of PCA is the fraction ${params.k} of the training data's variance, but the centred training data have no variance (every column is constant).`,
    );
  }
  const k = byFraction ? componentsForFraction(svd.s, totalSquares, params.k) : params.k;
  const warnings: FitWarning[] = [];
  const W = new Matrix(data.d, k);
  const kept = Math.min(k, r);
  const vCols = svd.V.cols;
  for (let i = 0; i < data.d; i++) {
    for (let j = 0; j < kept; j++) W.data[i * k + j] = svd.V.data[i * vCols + j];
  }
  if (k > r) {
    if (params.whiten) {
      throw new ValidationError(
        "whiten",
        `The 'whiten' option of PCA needs every component to carry variance, but k = ${k} exceeds the numerical rank ${r} of the centred training data; choose k <= ${r}.`,
      );
    }
    completeOrthonormalColumns(W, kept);
    warnings.push(
      fitWarning(
        "k-above-rank",
        `k = ${k} exceeds the numerical rank ${r} of the centred training data; the last ${k - r === 1 ? "component is an orthonormal direction that carries" : `${k - r} components are orthonormal directions that carry`} no training variance.`,
        { k, rank: r },
      ),
    );
  }
  const s = Array.from(svd.s.subarray(0, kept));
  return closedForm(W, {
    warnings,
    details: {
      rank: r,
      explainedVariance: s.map((v) => (v * v) / (data.n - 1)),
      explainedVarianceRatio: s.map((v) => (v * v) / totalSquares),
      singularValues: s,
      totalVariance: totalSquares / (data.n - 1),
    },
  });
}

/**
 * PCA. Besides the projection, a fitted PCA has scikit-learn's outputs:
 * `explainedVariance`, `explainedVarianceRatio` and `singularValues` (saved in its
 * model file); `k` may be a fraction of the variance to keep, and `whiten` scales the
 * scores to unit variance.
 */
export class PCA extends Estimator<ResolvedPCAOptions, PCADetails> {
  private whitening: Float64Array | null = null;

  constructor(options: PCAOptions = {}) {
    super(PCA_METHOD, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<PCADetails> {
    this.whitening = null;
    return fitPCA(data, this.params, ctx);
  }

  /**
   * Variance of the training data along each component, s_j^2 / (n - 1) (0 for the
   * components beyond the data's rank), as scikit-learn's `explained_variance_`.
   */
  get explainedVariance(): Float64Array {
    return this.padded(this.fitInfo.details.explainedVariance);
  }

  /**
   * Each component's share of the total variance of the training data (the sum of
   * its column variances), as scikit-learn's `explained_variance_ratio_`.
   */
  get explainedVarianceRatio(): Float64Array {
    return this.padded(this.savedDetail("explainedVarianceRatio"));
  }

  /** The singular values of the centred training data, one per component, descending. */
  get singularValues(): Float64Array {
    return this.padded(this.savedDetail("singularValues"));
  }

  private padded(values: readonly number[]): Float64Array {
    const out = new Float64Array(this.nComponents);
    out.set(values.slice(0, out.length));
    return out;
  }

  private savedDetail(name: "explainedVarianceRatio" | "singularValues"): number[] {
    const v = this.fitInfo.details[name];
    if (v === undefined) {
      throw new SdspcaanError(
        `This PCA model was loaded from a file of model format version 3 or older, which does not save ${name}; fit it again to get them.`,
      );
    }
    return v;
  }

  /** With `whiten`, the scores are divided by the components' standard deviations. */
  protected override outputScale(): Float64Array | null {
    if (!this.params.whiten) return null;
    this.whitening ??= this.explainedVariance.map(Math.sqrt);
    return this.whitening;
  }

  protected override outputDimension(classes: readonly Label[] | null) {
    // A fraction's k is chosen from the data: any width is possible.
    return this.params.k < 1 ? null : super.outputDimension(classes);
  }

  protected override restore(json: ModelJSON): this {
    this.whitening = null;
    super.restore(json);
    const ev = (json.fitInfo.details as { explainedVariance?: unknown }).explainedVariance;
    const k = json.components.cols;
    // Whitened scores divide by these: a file must give one positive variance per column.
    if (
      this.params.whiten &&
      !(Array.isArray(ev) && ev.length === k && ev.every((v) => Number.isFinite(v) && v > 0))
    ) {
      throw new ModelFormatError(
        "fitInfo.details.explainedVariance",
        `must hold ${k} finite positive numbers (one per component) for a whitened PCA; got ${JSON.stringify(ev)?.slice(0, 60)}`,
      );
    }
    return this;
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
