/**
 * Baseline (the paper's Section III-B, item 1): W = I_{d x k}, i.e. the first k
 * features are kept as they are (after centring).
 */

import { Matrix } from "../core/matrix.js";
import type { OptionSchema } from "../core/options.js";
import { checkComponentCount, kOption } from "./commonOptions.js";
import { defineMethod } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { BaselineOptions, ResolvedBaselineOptions } from "./optionTypes.js";
import { closedForm } from "./sharedSteps.js";
import type { TrainingData } from "./training.js";

const OPTIONS = { k: kOption } as const satisfies OptionSchema;

export class Baseline extends Estimator<ResolvedBaselineOptions> {
  constructor(options: BaselineOptions = {}) {
    super(BASELINE_METHOD, options);
  }

  protected fitCore(data: TrainingData, _ctx: FitContext): CoreFitResult {
    const { k } = this.params;
    checkComponentCount(this.displayName, k, data.d, `at most the ${data.d} features`);
    return closedForm(Matrix.identity(data.d, k));
  }
}

/** Baseline: the method's declaration (see descriptor.ts). */
export const BASELINE_METHOD = defineMethod({
  name: "baseline",
  displayName: "Baseline",
  summary: "The first k features as they are (after centring).",
  supervised: false,
  options: OPTIONS,
  paperColumn: 0,
  create: (options) => new Baseline(options),
});
