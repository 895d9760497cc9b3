/**
 * PCAN, projected clustering with adaptive neighbours (Nie, Wang & Huang 2014; the
 * paper's Section II-C, Algorithm 2). Unsupervised: labels, when given, only supply
 * the default number of clusters c (the paper's experiments use the class count).
 * The W-step is solved in the data span (see pcanFamily.ts), so k is at most the rank
 * of the centred training data.
 */
import type { OptionSchema } from "../core/options.js";
import { kOption } from "./commonOptions.js";
import { defineMethod } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { PCANOptions, ResolvedPCANOptions } from "./optionTypes.js";
import {
  fitPcanLoop,
  type PcanArtifacts,
  type PcanDetails,
  pcanLoopOptions,
  pcanSettings,
} from "./pcanFamily.js";
import type { TrainingData } from "./training.js";

const OPTIONS = {
  k: kOption,
  clusters: {
    type: "integer",
    min: 1,
    default: null,
    doc: "Number of clusters c the graph is driven to; null = the number of classes in y.",
  },
  ...pcanLoopOptions,
} as const satisfies OptionSchema;

export class PCAN extends Estimator<ResolvedPCANOptions, PcanDetails, PcanArtifacts> {
  constructor(options: PCANOptions = {}) {
    super(PCAN_METHOD, options);
  }

  protected fitCore(
    data: TrainingData,
    ctx: FitContext,
  ): CoreFitResult<PcanDetails, PcanArtifacts> {
    const p = this.params;
    return fitPcanLoop(data, ctx, pcanSettings(this.displayName, p, "unsupervised", p.clusters));
  }
}

/** PCAN: the method's declaration (see descriptor.ts). */
export const PCAN_METHOD = defineMethod({
  name: "pcan",
  displayName: "PCAN",
  summary: "Projected clustering with adaptive neighbours (Algorithm 2), unsupervised.",
  supervised: false,
  options: OPTIONS,
  create: (options) => new PCAN(options),
});
