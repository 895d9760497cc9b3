/**
 * SPCAN, supervised PCAN: PCAN (Algorithm 2) with the embedding F replaced by the
 * one-hot labels Y and c the number of classes, the W-step solved in the data span.
 *
 * The paper defines SPCAN as SDSPCAAN with its first three terms removed (delta -> inf,
 * Z = X X^T L X X^T); its authors' code ran supervised PCAN, which produced the paper's
 * table, and that is what this class is. The literal reading picks null directions of
 * X X^T (many eigenvalues tie at zero) and degenerates (SPEC section 3, item 5).
 */
import { epsOption, kOption, maxIterOption, neighboursOption, tolOption } from "./common.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { fitPcanLoop } from "./pcanFamily.js";
import { lambdaCapOption } from "./sdspcaFamily.js";
import type { TrainingData } from "./training.js";

export interface SPCANOptions {
  k: number;
  m: number | null;
  tol: number;
  maxIter: number;
  eps: number;
  lambdaCap: number;
}

export class SPCAN extends Estimator<SPCANOptions> {
  static readonly schema = {
    k: kOption,
    m: neighboursOption,
    tol: tolOption,
    maxIter: maxIterOption,
    eps: epsOption,
    lambdaCap: lambdaCapOption,
  } as const;
  readonly method = "spcan";
  readonly displayName = "SPCAN";
  readonly supervised = true;

  constructor(options: Partial<SPCANOptions> = {}) {
    super("SPCAN", SPCAN.schema, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult {
    const p = this.params;
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
