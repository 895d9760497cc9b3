/**
 * SDSPCA-LPP (the paper's Section III-B, item 7): SDSPCAAN with the graph S fixed at
 * its initial value, i.e. the SDSPCA loop on Z = -X X^T - alpha Y Y^T + beta D +
 * delta X X^T L0 X X^T with L0 the Laplacian of the initial adaptive-neighbour graph.
 * Stops on the Q test alone (with S fixed there is no rank control).
 */
import type { OptionSchema } from "../core/options.js";
import { defineMethod } from "./descriptor.js";
import type { ResolvedSDSPCALPPOptions, SDSPCALPPOptions } from "./optionTypes.js";
import { graphQLoopOptions, tunedGraphQLoop } from "./qLoopOptions.js";
import { QLoopEstimator } from "./sdspcaFamily.js";

const OPTIONS = graphQLoopOptions satisfies OptionSchema;

/** SDSPCA-LPP: SDSPCAAN with the graph fixed at its initial value; see docs/methods.md. */
export class SDSPCALPP extends QLoopEstimator<ResolvedSDSPCALPPOptions> {
  protected readonly graph = "fixed";

  constructor(options: SDSPCALPPOptions = {}) {
    super(SDSPCA_LPP_METHOD, options);
  }
}

/** SDSPCA-LPP: the method's declaration (see descriptor.ts). */
export const SDSPCA_LPP_METHOD = defineMethod({
  name: "sdspca-lpp",
  displayName: "SDSPCA-LPP",
  summary: "SDSPCA with a fixed adaptive-neighbour graph term.",
  supervised: true,
  options: OPTIONS,
  tuned: tunedGraphQLoop,
  paperColumn: 6,
  create: (options) => new SDSPCALPP(options),
});
