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
import type { OptionSchema } from "../core/options.js";
import { kOption } from "./commonOptions.js";
import { defineMethod } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { ResolvedSPCANOptions, SPCANOptions } from "./optionTypes.js";
import {
  fitPcanLoop,
  type PcanArtifacts,
  type PcanDetails,
  pcanLoopOptions,
  pcanSettings,
} from "./pcanFamily.js";
import { qLoopSettings, seedOption, solverOption, stopRuleOption } from "./qLoopOptions.js";
import { fitQLoop, type QLoopArtifacts, type QLoopDetails } from "./sdspcaFamily.js";
import type { TrainingData } from "./training.js";

const OPTIONS = {
  k: kOption,
  formulation: {
    type: "enum",
    values: ["pcan", "literal"],
    default: "pcan",
    doc: 'Supervised PCAN ("pcan") or the paper\'s literal SDSPCAAN-without-its-first-three-terms ("literal").',
  },
  ...pcanLoopOptions,
  stopRule: stopRuleOption,
  solver: solverOption,
  seed: seedOption,
} as const satisfies OptionSchema;

/** SPCAN's diagnostics: supervised PCAN's, or the Q-loop's for the literal formulation. */
export type SPCANDetails = PcanDetails | QLoopDetails;
export type SPCANArtifacts = Partial<PcanArtifacts & QLoopArtifacts>;

export class SPCAN extends Estimator<ResolvedSPCANOptions, SPCANDetails, SPCANArtifacts> {
  constructor(options: SPCANOptions = {}) {
    super(SPCAN_METHOD, options);
  }

  protected fitCore(
    data: TrainingData,
    ctx: FitContext,
  ): CoreFitResult<SPCANDetails, SPCANArtifacts> {
    const p = this.params;
    if (p.formulation === "literal") {
      // Z = delta X X^T L X X^T alone: no reconstruction, label or L2,1 term.
      return fitQLoop(
        data,
        ctx,
        qLoopSettings(this.displayName, p, {
          graph: "adaptive",
          delta: 1,
          weighting: "absolute",
          reconstruction: false,
        }),
      );
    }
    return fitPcanLoop(data, ctx, pcanSettings(this.displayName, p, "labels", null));
  }
}

/** SPCAN: the method's declaration (see descriptor.ts). */
export const SPCAN_METHOD = defineMethod({
  name: "spcan",
  displayName: "SPCAN",
  summary: "Supervised PCAN, or the paper's literal formulation (option formulation).",
  supervised: true,
  options: OPTIONS,
  paperColumn: 5,
  create: (options) => new SPCAN(options),
});
