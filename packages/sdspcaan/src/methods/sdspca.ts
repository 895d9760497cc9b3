/**
 * SDSPCA (Feng et al. 2019; the paper's Section II-B, Algorithm 1): Q = the k
 * trailing eigenvectors of Z = -X X^T - alpha Y Y^T + beta D, D the L2,1 reweighting,
 * iterated until Q settles; W = X^T Q.
 */
import type { OptionSchema } from "../core/options.js";
import { defineMethod } from "./descriptor.js";
import type { ResolvedSDSPCAOptions, SDSPCAOptions } from "./optionTypes.js";
import { sdspcaOptions, tunedLabelAndSparsity } from "./qLoopOptions.js";
import { QLoopEstimator } from "./sdspcaFamily.js";

const OPTIONS = sdspcaOptions satisfies OptionSchema;

/** SDSPCA (Algorithm 1): see the module comment above and docs/methods.md. */
export class SDSPCA extends QLoopEstimator<ResolvedSDSPCAOptions> {
  protected readonly graph = "none";

  constructor(options: SDSPCAOptions = {}) {
    super(SDSPCA_METHOD, options);
  }
}

/** SDSPCA: the method's declaration (see descriptor.ts). */
export const SDSPCA_METHOD = defineMethod({
  name: "sdspca",
  displayName: "SDSPCA",
  summary: "Supervised discriminative sparse PCA (Algorithm 1).",
  supervised: true,
  options: OPTIONS,
  tuned: tunedLabelAndSparsity,
  paperColumn: 3,
  create: (options) => new SDSPCA(options),
});
