/**
 * SDSPCAAN (the paper's Section II-D, Algorithm 3): supervised discriminative sparse
 * PCA with adaptive neighbours. Alternates Q = the k trailing eigenvectors of
 * Z = -X X^T - alpha Y Y^T + beta D + delta X X^T L X X^T (Eq. SDSPCAAN-Q) with the
 * closed-form adaptive-neighbour update of S (Eq. SDSPCAAN-si) on distances
 * ||p_i - p_j||^2 + lambda ||y_i - y_j||^2, where lambda is doubled or halved until the
 * graph has exactly c connected components. W = X^T Q.
 *
 * delta = 0 gives SDSPCA exactly (no graph is built); keeping S at its initial value
 * is SDSPCA-LPP (sdspcaLpp.ts), the same loop with the graph frozen.
 */
import type { OptionSchema, OptionsOf } from "../core/options.js";
import { epsOption, kOption, maxIterOption, neighboursOption, tolOption } from "./commonOptions.js";
import { defineMethod, MULTIPLIER_GRID } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { multiplierSpec } from "./sdspca.js";
import {
  fitQLoop,
  lambdaCapOption,
  largeScaleOption,
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
  delta: multiplierSpec("Weight of the adaptive graph term delta"),
  m: neighboursOption,
  tol: tolOption,
  maxIter: maxIterOption,
  eps: epsOption,
  stopRule: stopRuleOption,
  weighting: weightingOption,
  solver: solverOption,
  seed: seedOption,
  largeScale: largeScaleOption,
  lambdaCap: lambdaCapOption,
} as const satisfies OptionSchema;

export type SDSPCAANOptions = OptionsOf<typeof OPTIONS>;

export class SDSPCAAN extends Estimator<SDSPCAANOptions, QLoopDetails, QLoopArtifacts> {
  constructor(options: Partial<SDSPCAANOptions> = {}) {
    super(SDSPCAAN_METHOD, options);
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
      graph: "adaptive",
      m: p.m,
      tol: p.tol,
      maxIter: p.maxIter,
      eps: p.eps,
      stopRule: p.stopRule,
      weighting: p.weighting,
      solver: p.solver,
      seed: p.seed,
      largeScale: p.largeScale,
      lambdaCap: p.lambdaCap,
    });
  }
}

/** SDSPCAAN: the method's declaration (see descriptor.ts). */
export const SDSPCAAN_METHOD = defineMethod({
  name: "sdspcaan",
  displayName: "SDSPCAAN",
  summary: "SDSPCA with adaptive neighbours (Algorithm 3), the paper's method.",
  supervised: true,
  options: OPTIONS,
  tuned: {
    alpha: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
    beta: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
    delta: { paper: MULTIPLIER_GRID, authors: MULTIPLIER_GRID, quick: [0.1, 1, 10] },
  },
  paperColumn: 7,
  create: (options) => new SDSPCAAN(options),
});
