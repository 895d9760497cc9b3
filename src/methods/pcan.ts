/**
 * PCAN, projected clustering with adaptive neighbours (Nie, Wang & Huang 2014; the
 * paper's Section II-C, Algorithm 2). Unsupervised: labels, when given, only supply
 * the default number of clusters c (the paper's experiments use the class count).
 * The W-step is solved in the data span (see pcanFamily.ts), so k is at most the rank
 * of the centred training data.
 */
import type { OptionSchema, OptionsOf } from "../core/options.js";
import { epsOption, kOption, maxIterOption, neighboursOption, tolOption } from "./commonOptions.js";
import { defineMethod } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { fitPcanLoop, type PcanArtifacts, type PcanDetails } from "./pcanFamily.js";
import { lambdaCapOption } from "./sdspcaFamily.js";
import type { TrainingData } from "./training.js";

const OPTIONS = {
  k: kOption,
  clusters: {
    type: "integer",
    min: 1,
    default: null,
    doc: "Number of clusters c the graph is driven to; null = the number of classes in y.",
  },
  m: neighboursOption,
  tol: tolOption,
  maxIter: maxIterOption,
  eps: epsOption,
  lambdaCap: lambdaCapOption,
} as const satisfies OptionSchema;

export type PCANOptions = OptionsOf<typeof OPTIONS>;

export class PCAN extends Estimator<PCANOptions, PcanDetails, PcanArtifacts> {
  constructor(options: Partial<PCANOptions> = {}) {
    super(PCAN_METHOD, options);
  }

  protected fitCore(
    data: TrainingData,
    ctx: FitContext,
  ): CoreFitResult<PcanDetails, PcanArtifacts> {
    const p = this.params;
    return fitPcanLoop(data, ctx, {
      owner: this.displayName,
      k: p.k,
      embedding: "unsupervised",
      clusters: p.clusters,
      m: p.m,
      tol: p.tol,
      maxIter: p.maxIter,
      eps: p.eps,
      lambdaCap: p.lambdaCap,
    });
  }
}

/** PCAN: the method's declaration (see descriptor.ts). */
export const PCAN_METHOD = defineMethod({
  name: "pcan",
  displayName: "PCAN",
  summary: "Projected clustering with adaptive neighbours (Algorithm 2), unsupervised.",
  supervised: false,
  options: OPTIONS,
  create: (options) => new PCAN(options),
});
