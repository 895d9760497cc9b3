/**
 * SDSPCAAN (the paper's Section II-D, Algorithm 3): supervised discriminative sparse
 * PCA with adaptive neighbours. Alternates Q = the k trailing eigenvectors of
 * Z = -X X^T - alpha Y Y^T + beta D + delta X X^T L X X^T (Eq. SDSPCAAN-Q) with the
 * closed-form adaptive-neighbour update of S (Eq. SDSPCAAN-si) on distances
 * ||p_i - p_j||^2 + lambda ||y_i - y_j||^2, where lambda is doubled or halved until the
 * graph has exactly c connected components. W = X^T Q.
 *
 * delta = 0 gives SDSPCA exactly (no graph is built); `freezeGraph: true` keeps S at
 * its initial value and gives SDSPCA-LPP exactly.
 */
import { epsOption, kOption, maxIterOption, neighboursOption, tolOption } from "./common.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { multiplierSpec } from "./sdspca.js";
import {
  fitQLoop,
  lambdaCapOption,
  seedOption,
  solverOption,
  stopRuleOption,
  type Weighting,
  weightingOption,
} from "./sdspcaFamily.js";
import type { StopRule } from "./stopRules.js";
import type { TrainingData } from "./training.js";
import type { ZSolverChoice } from "./zSolvers.js";

export interface SDSPCAANOptions {
  k: number;
  /** Label-term multiplier a. */
  alpha: number;
  /** L2,1-term multiplier b. */
  beta: number;
  /** Graph-term multiplier c. */
  delta: number;
  /** Adaptive neighbours per row; null = min(15, n - 2). */
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
  lambdaCap: number;
  /** Keep S at the initial graph (then SDSPCAAN is SDSPCA-LPP). */
  freezeGraph: boolean;
}

export class SDSPCAAN extends Estimator<SDSPCAANOptions> {
  static readonly schema = {
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
    lambdaCap: lambdaCapOption,
    freezeGraph: {
      type: "boolean",
      default: false,
      doc: "Keep the graph at its initial value (SDSPCA-LPP).",
    },
  } as const;
  readonly method = "sdspcaan";
  readonly displayName = "SDSPCAAN";
  readonly supervised = true;

  constructor(options: Partial<SDSPCAANOptions> = {}) {
    super("SDSPCAAN", SDSPCAAN.schema, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult {
    const p = this.params;
    return fitQLoop(data, ctx, {
      owner: this.displayName,
      k: p.k,
      alpha: p.alpha,
      beta: p.beta,
      delta: p.delta,
      graph: p.freezeGraph ? "fixed" : "adaptive",
      m: p.m,
      tol: p.tol,
      maxIter: p.maxIter,
      eps: p.eps,
      stopRule: p.stopRule,
      weighting: p.weighting,
      solver: p.solver,
      seed: p.seed,
      lambdaCap: p.lambdaCap,
    });
  }
}
