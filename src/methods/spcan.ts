/**
 * SPCAN, supervised PCAN. Two formulations:
 *
 * - "pcan" (default, SPEC section 3 item 5): PCAN (Algorithm 2) with the embedding F
 *   replaced by the one-hot labels Y and c the number of classes, the W-step solved
 *   in the data span. This is what the authors' code is said to have run.
 * - "literal": the paper's own definition, "SDSPCAAN with the first three terms
 *   removed" (delta -> inf): Q = the k trailing eigenvectors of Z = X X^T L X X^T,
 *   with SDSPCAAN's adaptive graph, rank control and stop test; W = X^T Q. Many
 *   eigenvalues of Z tie at zero (null directions of X X^T), so it degenerates,
 *   badly when n > d; the paper's SPCAN column (43 % on MSRA25, 17.9 % on USPST)
 *   looks like this formulation, and the NumPy reference implements it (15.9 % on
 *   USPST there). Offered to reproduce that column, not as a method to use.
 */
import { epsOption, kOption, maxIterOption, neighboursOption, tolOption } from "./common.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { fitPcanLoop } from "./pcanFamily.js";
import {
  fitQLoop,
  lambdaCapOption,
  seedOption,
  solverOption,
  stopRuleOption,
} from "./sdspcaFamily.js";
import type { StopRule } from "./stopRules.js";
import type { TrainingData } from "./training.js";
import type { ZSolverChoice } from "./zSolvers.js";

export interface SPCANOptions {
  k: number;
  /** "pcan" (supervised PCAN, default) or "literal" (the paper's definition). */
  formulation: "pcan" | "literal";
  m: number | null;
  tol: number;
  maxIter: number;
  eps: number;
  lambdaCap: number;
  /** Stop test of the literal formulation (see SDSPCAAN). */
  stopRule: StopRule;
  /** Eigen-solver of the literal formulation (see SDSPCAAN). */
  solver: ZSolverChoice;
  seed: number;
}

export class SPCAN extends Estimator<SPCANOptions> {
  static readonly schema = {
    k: kOption,
    formulation: {
      type: "enum",
      values: ["pcan", "literal"],
      default: "pcan",
      doc: 'Supervised PCAN ("pcan") or the paper\'s literal SDSPCAAN-without-its-first-three-terms ("literal").',
    },
    m: neighboursOption,
    tol: tolOption,
    maxIter: maxIterOption,
    eps: epsOption,
    lambdaCap: lambdaCapOption,
    stopRule: stopRuleOption,
    solver: solverOption,
    seed: seedOption,
  } as const;
  readonly method = "spcan";
  readonly displayName = "SPCAN";
  readonly supervised = true;

  constructor(options: Partial<SPCANOptions> = {}) {
    super("SPCAN", SPCAN.schema, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult {
    const p = this.params;
    if (p.formulation === "literal") {
      return fitQLoop(data, ctx, {
        owner: this.displayName,
        k: p.k,
        alpha: 0,
        beta: 0,
        delta: 1,
        graph: "adaptive",
        m: p.m,
        tol: p.tol,
        maxIter: p.maxIter,
        eps: p.eps,
        stopRule: p.stopRule,
        weighting: "absolute",
        lambdaCap: p.lambdaCap,
        solver: p.solver,
        seed: p.seed,
        reconstruction: false,
      });
    }
    return fitPcanLoop(data, ctx, {
      owner: this.displayName,
      k: p.k,
      embedding: "labels",
      clusters: null,
      m: p.m,
      tol: p.tol,
      maxIter: p.maxIter,
      eps: p.eps,
      lambdaCap: p.lambdaCap,
    });
  }
}
