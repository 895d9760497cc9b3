/**
 * SDSPCA (Feng et al. 2019; the paper's Section II-B, Algorithm 1): Q = the k
 * trailing eigenvectors of Z = -X X^T - alpha Y Y^T + beta D, D the L2,1 reweighting,
 * iterated until Q settles; W = X^T Q.
 */

import { epsOption, kOption, maxIterOption, tolOption } from "./common.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import {
  fitQLoop,
  seedOption,
  solverOption,
  stopRuleOption,
  type Weighting,
  weightingOption,
} from "./sdspcaFamily.js";
import type { StopRule } from "./stopRules.js";
import type { TrainingData } from "./training.js";
import type { ZSolverChoice } from "./zSolvers.js";

export interface SDSPCAOptions {
  /** Subspace dimensionality k. */
  k: number;
  /** Label-term multiplier a (alpha = a Tr(XX^T)/Tr(YY^T) when weighting is "scaled"). */
  alpha: number;
  /** L2,1-term multiplier b (beta = b Tr(XX^T)/Tr(D), current D). */
  beta: number;
  tol: number;
  maxIter: number;
  eps: number;
  stopRule: StopRule;
  weighting: Weighting;
  /** Eigen-solver for Z: "auto" (by size), "dense" or "lobpcg" (matrix-free). */
  solver: ZSolverChoice;
  /** Seed of LOBPCG's random start vectors. */
  seed: number;
}

export const multiplierSpec = (what: string) =>
  ({
    type: "number",
    min: 0,
    default: 1,
    doc: `${what} (a multiplier of the paper's trace scale unless weighting is "absolute").`,
  }) as const;

export class SDSPCA extends Estimator<SDSPCAOptions> {
  static readonly schema = {
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
  };
  readonly method = "sdspca";
  readonly displayName = "SDSPCA";
  readonly supervised = true;

  constructor(options: Partial<SDSPCAOptions> = {}) {
    super("SDSPCA", SDSPCA.schema, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult {
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
