/**
 * SDSPCA-LPP (the paper's Section III-B, item 7): SDSPCAAN with the graph S fixed at
 * its initial value, i.e. the SDSPCA loop on Z = -X X^T - alpha Y Y^T + beta D +
 * delta X X^T L0 X X^T with L0 the Laplacian of the initial adaptive-neighbour graph.
 * Stops on the Q test alone (with S fixed there is no rank control).
 */
import type { OptionSchema, OptionsOf } from "../core/options.js";
import { epsOption, kOption, maxIterOption, neighboursOption, tolOption } from "./commonOptions.js";
import { defineMethod, MULTIPLIER_GRID } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { multiplierSpec } from "./sdspca.js";
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

const OPTIONS = {
  k: kOption,
  alpha: multiplierSpec("Weight of the label term alpha"),
  beta: multiplierSpec("Weight of the L2,1 sparsity term beta"),
  delta: multiplierSpec("Weight of the graph term delta"),
  m: neighboursOption,
  tol: tolOption,
  maxIter: maxIterOption,
  eps: epsOption,
  stopRule: stopRuleOption,
  weighting: weightingOption,
  solver: solverOption,
  seed: seedOption,
} as const satisfies OptionSchema;

export type SDSPCALPPOptions = OptionsOf<typeof OPTIONS>;

export class SDSPCALPP extends Estimator<SDSPCALPPOptions, QLoopDetails, QLoopArtifacts> {
  constructor(options: Partial<SDSPCALPPOptions> = {}) {
    super(SDSPCA_LPP_METHOD, options);
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
      delta: p.delta,
      graph: "fixed",
      m: p.m,
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

/** SDSPCA-LPP: the method's declaration (see descriptor.ts). */
export const SDSPCA_LPP_METHOD = defineMethod({
  name: "sdspca-lpp",
  displayName: "SDSPCA-LPP",
  summary: "SDSPCA with a fixed adaptive-neighbour graph term.",
  supervised: true,
  options: OPTIONS,
  tuned: {
    alpha: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
    beta: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
    delta: { paper: MULTIPLIER_GRID, authors: MULTIPLIER_GRID, quick: [0.1, 1, 10] },
  },
  paperColumn: 6,
  create: (options) => new SDSPCALPP(options),
});
