/**
 * The built-in methods by name with their option types and classes, generated from
 * their declarations by scripts/docs/optionTypes.ts (`npm run docs`); do not edit by
 * hand. Apart from optionTypes.ts because it names the classes, whose files import
 * their option types from there.
 */

import type { Baseline } from "./baseline.js";
import type { JPCDA } from "./jpcda.js";
import type { LDA } from "./lda.js";
import type { LPP } from "./lpp.js";
import type {
  BaselineOptions,
  JPCDAOptions,
  LDAOptions,
  LPPOptions,
  PCANOptions,
  PCAOptions,
  SDSPCAANOptions,
  SDSPCALPPOptions,
  SDSPCAOptions,
  SLNPOptions,
  SPCANOptions,
} from "./optionTypes.js";
import type { PCA } from "./pca.js";
import type { PCAN } from "./pcan.js";
import type { SDSPCA } from "./sdspca.js";
import type { SDSPCAAN } from "./sdspcaan.js";
import type { SDSPCALPP } from "./sdspcaLpp.js";
import type { SLNP } from "./slnp.js";
import type { SPCAN } from "./spcan.js";

/**
 * The registered methods by name, with their options and model classes: what
 * `createMethod` and `fitInWorker` accept (a name not here does not compile). A
 * method registered with `registerMethod` adds itself by declaration merging:
 * `declare module "sdspcaan" { interface MethodRegistry { mine: { options: MineOptions;
 * model: Mine } } }`.
 */
export interface MethodRegistry {
  baseline: { options: BaselineOptions; model: Baseline };
  pca: { options: PCAOptions; model: PCA };
  sdspca: { options: SDSPCAOptions; model: SDSPCA };
  pcan: { options: PCANOptions; model: PCAN };
  spcan: { options: SPCANOptions; model: SPCAN };
  "sdspca-lpp": { options: SDSPCALPPOptions; model: SDSPCALPP };
  sdspcaan: { options: SDSPCAANOptions; model: SDSPCAAN };
  jpcda: { options: JPCDAOptions; model: JPCDA };
  slnp: { options: SLNPOptions; model: SLNP };
  lda: { options: LDAOptions; model: LDA };
  lpp: { options: LPPOptions; model: LPP };
}

/** The name of a method in {@link MethodRegistry}. */
export type MethodName = keyof MethodRegistry & string;
