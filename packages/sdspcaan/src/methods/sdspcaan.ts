/**
 * SDSPCAAN (the paper's Section II-D, Algorithm 3): supervised discriminative sparse
 * PCA with adaptive neighbours. Alternates Q = the k trailing eigenvectors of
 * Z = -X X^T - alpha Y Y^T + beta D + delta X X^T L X X^T (Eq. SDSPCAAN-Q) with the
 * closed-form adaptive-neighbour update of S (Eq. SDSPCAAN-si) on distances
 * ||p_i - p_j||^2 + lambda ||y_i - y_j||^2, where lambda is doubled or halved until the
 * graph has exactly c connected components. W = X^T Q.
 *
 * delta = 0 gives SDSPCA exactly (no graph is built); keeping S at its initial value
 * is SDSPCA-LPP (sdspcaLpp.ts), the same loop with the graph frozen.
 */
import type { OptionSchema } from "../core/options.js";
import { defineMethod } from "./descriptor.js";
import type { ResolvedSDSPCAANOptions, SDSPCAANOptions } from "./optionTypes.js";
import { graphQLoopOptions, lambdaCapOption, tunedGraphQLoop } from "./qLoopOptions.js";
import { QLoopEstimator } from "./sdspcaFamily.js";

const OPTIONS = {
  ...graphQLoopOptions,
  lambdaCap: lambdaCapOption,
} as const satisfies OptionSchema;

/** SDSPCAAN (Algorithm 3), the paper's method: see the module comment above and docs/methods.md. */
export class SDSPCAAN extends QLoopEstimator<ResolvedSDSPCAANOptions> {
  protected readonly graph = "adaptive";

  constructor(options: SDSPCAANOptions = {}) {
    super(SDSPCAAN_METHOD, options);
  }
}

/** SDSPCAAN: the method's declaration (see descriptor.ts). */
export const SDSPCAAN_METHOD = defineMethod({
  name: "sdspcaan",
  displayName: "SDSPCAAN",
  summary: "SDSPCA with adaptive neighbours (Algorithm 3), the paper's method.",
  supervised: true,
  options: OPTIONS,
  tuned: tunedGraphQLoop,
  paperColumn: 7,
  create: (options) => new SDSPCAAN(options),
});
