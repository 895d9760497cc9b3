/**
 * SDSPCA-LPP (the paper's Section III-B, item 7): SDSPCAAN with the graph S fixed at
 * its initial value, i.e. the SDSPCA loop on Z = -X X^T - alpha Y Y^T + beta D +
 * delta X X^T L0 X X^T with L0 the Laplacian of the initial adaptive-neighbour graph.
 * Stops on the Q test alone (with S fixed there is no rank control).
 */
import { epsOption, kOption, maxIterOption, neighboursOption, tolOption } from "./common.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { multiplierSpec } from "./sdspca.js";
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

export interface SDSPCALPPOptions {
  k: number;
  alpha: number;
  beta: number;
  /** Graph-term multiplier c (delta = c Tr(XX^T)/Tr(XX^T L XX^T)). */
  delta: number;
  /** Neighbours per row of the initial graph; null = min(15, n - 2). */
  m: number | null;
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

export class SDSPCALPP extends Estimator<SDSPCALPPOptions> {
  static readonly schema = {
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
  };
  readonly method = "sdspca-lpp";
  readonly displayName = "SDSPCA-LPP";
  readonly supervised = true;

  constructor(options: Partial<SDSPCALPPOptions> = {}) {
    super("SDSPCA-LPP", SDSPCALPP.schema, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult {
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
