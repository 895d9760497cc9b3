/**
 * PCAN, projected clustering with adaptive neighbours (Nie, Wang & Huang 2014; the
 * paper's Section II-C, Algorithm 2). Unsupervised: labels, when given, only supply
 * the default number of clusters c (the paper's experiments use the class count).
 * The W-step is solved in the data span (see pcanFamily.ts), so k is at most the rank
 * of the centred training data.
 */
import { epsOption, kOption, maxIterOption, neighboursOption, tolOption } from "./common.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { fitPcanLoop } from "./pcanFamily.js";
import { lambdaCapOption } from "./sdspcaFamily.js";
import type { TrainingData } from "./training.js";

export interface PCANOptions {
  k: number;
  /** Number of clusters c; null = the number of classes in y. */
  clusters: number | null;
  m: number | null;
  tol: number;
  maxIter: number;
  eps: number;
  lambdaCap: number;
}

export class PCAN extends Estimator<PCANOptions> {
  static readonly schema = {
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
  } as const;
  readonly method = "pcan";
  readonly displayName = "PCAN";
  readonly supervised = false;

  constructor(options: Partial<PCANOptions> = {}) {
    super("PCAN", PCAN.schema, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult {
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
