/**
 * SDSPCA (Feng et al. 2019; the paper's Section II-B, Algorithm 1): Q = the k
 * trailing eigenvectors of Z = -X X^T - alpha Y Y^T + beta D, D the L2,1 reweighting,
 * iterated until Q settles; W = X^T Q.
 */

import type { OptionSchema, OptionsOf } from "../core/options.js";
import { epsOption, kOption, maxIterOption, tolOption } from "./commonOptions.js";
import { defineMethod, MULTIPLIER_GRID } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import {
  fitQLoop,
  type QLoopArtifacts,
  type QLoopDetails,
  seedOption,
  solverOption,
  stopRuleOption,
  weightingOption,
} from "./sdspcaFamily.js";
import type { TrainingData } from "./training.js";

export const multiplierSpec = (what: string) =>
  ({
    type: "number",
    min: 0,
    default: 1,
    doc: `${what} (a multiplier of the paper's trace scale unless weighting is "absolute").`,
  }) as const;

const OPTIONS = {
  k: kOption,
  alpha: multiplierSpec("Weight of the label term alpha"),
  beta: multiplierSpec("Weight of the L2,1 sparsity term beta"),
  tol: tolOption,
  maxIter: maxIterOption,
  eps: epsOption,
  stopRule: stopRuleOption,
  weighting: weightingOption,
  solver: solverOption,
  seed: seedOption,
} as const satisfies OptionSchema;

export type SDSPCAOptions = OptionsOf<typeof OPTIONS>;

export class SDSPCA extends Estimator<SDSPCAOptions, QLoopDetails, QLoopArtifacts> {
  constructor(options: Partial<SDSPCAOptions> = {}) {
    super(SDSPCA_METHOD, options);
  }

  protected fitCore(
    data: TrainingData,
    ctx: FitContext,
  ): CoreFitResult<QLoopDetails, QLoopArtifacts> {
    const p = this.params;
    return fitQLoop(data, ctx, {
      owner: this.displayName,
      k: p.k,
      alpha: p.alpha,
      beta: p.beta,
      delta: 0,
      graph: "none",
      m: null,
      tol: p.tol,
      maxIter: p.maxIter,
      eps: p.eps,
      stopRule: p.stopRule,
      weighting: p.weighting,
      solver: p.solver,
      seed: p.seed,
      lambdaCap: Number.POSITIVE_INFINITY,
    });
  }
}

/** SDSPCA: the method's declaration (see descriptor.ts). */
export const SDSPCA_METHOD = defineMethod({
  name: "sdspca",
  displayName: "SDSPCA",
  summary: "Supervised discriminative sparse PCA (Algorithm 1).",
  supervised: true,
  options: OPTIONS,
  tuned: {
    alpha: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
    beta: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
  },
  paperColumn: 3,
  create: (options) => new SDSPCA(options),
});
