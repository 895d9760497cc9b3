/**
 * Baseline (the paper's Section III-B, item 1): W = I_{d x k}, i.e. the first k
 * features are kept as they are (after centring).
 */
import { Matrix } from "../linalg/matrix.js";
import { checkComponentCount, kOption } from "./common.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { TrainingData } from "./training.js";

export interface BaselineOptions {
  /** Number of leading features kept. */
  k: number;
}

export class Baseline extends Estimator<BaselineOptions> {
  static readonly schema = { k: kOption };
  readonly method = "baseline";
  readonly displayName = "Baseline";
  readonly supervised = false;

  constructor(options: Partial<BaselineOptions> = {}) {
    super("Baseline", Baseline.schema, options);
  }

  protected fitCore(data: TrainingData, _ctx: FitContext): CoreFitResult {
    const { k } = this.params;
    checkComponentCount(this.displayName, k, data.d, `at most the ${data.d} features`);
    return {
      components: Matrix.identity(data.d, k),
      iterations: 0,
      converged: true,
      stopReason: "closed-form",
      solver: "closed-form",
    };
  }
}
