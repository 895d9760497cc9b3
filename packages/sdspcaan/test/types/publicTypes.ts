/**
 * The public types as a user's program meets them, checked by `npm run typecheck`
 * (scripts/typecheck.mjs compiles this folder as a program of its own, so that the
 * plug-in's declaration merging below stays here): what must compile compiles, and
 * each line under `@ts-expect-error` must not (tsc fails when such a line compiles).
 * Nothing here runs.
 */
import {
  createMethod,
  type Estimator,
  type FitInfo,
  type LDAOptions,
  type MethodName,
  PCA,
  type PCAOptions,
  type Pipeline,
  type ResolvedPCAOptions,
  type ResolvedSDSPCAANOptions,
  SDSPCAAN,
  type SDSPCAANOptions,
} from "sdspcaan";
import type { OptionSchema, OptionsOf } from "sdspcaan/methods";
import { fitInWorker, type WorkerLike } from "sdspcaan/worker";
import type { BASELINE_METHOD } from "#internal/methods/baseline.js";
import type { JPCDA_METHOD } from "#internal/methods/jpcda.js";
import type { LDA_METHOD } from "#internal/methods/lda.js";
import type { LPP_METHOD } from "#internal/methods/lpp.js";
import type {
  ResolvedBaselineOptions,
  ResolvedJPCDAOptions,
  ResolvedLDAOptions,
  ResolvedLPPOptions,
  ResolvedPCANOptions,
  ResolvedSDSPCALPPOptions,
  ResolvedSDSPCAOptions,
  ResolvedSLNPOptions,
  ResolvedSPCANOptions,
} from "#internal/methods/optionTypes.js";
import type { PCA_METHOD } from "#internal/methods/pca.js";
import type { PCAN_METHOD } from "#internal/methods/pcan.js";
import type { SDSPCA_METHOD } from "#internal/methods/sdspca.js";
import type { SDSPCAAN_METHOD } from "#internal/methods/sdspcaan.js";
import type { SDSPCA_LPP_METHOD } from "#internal/methods/sdspcaLpp.js";
import type { SLNP_METHOD } from "#internal/methods/slnp.js";
import type { SPCAN_METHOD } from "#internal/methods/spcan.js";

/** true when A and B are the same type (not only assignable both ways). */
type Equal<A, B> =
  (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Assert<T extends true> = T;
type Declared<D extends { readonly options: OptionSchema }> = OptionsOf<D["options"]>;

/** The generated interfaces are the declarations' own types, option for option. */
export type GeneratedMatchDeclarations = [
  Assert<Equal<ResolvedBaselineOptions, Declared<typeof BASELINE_METHOD>>>,
  Assert<Equal<ResolvedPCAOptions, Declared<typeof PCA_METHOD>>>,
  Assert<Equal<ResolvedSDSPCAOptions, Declared<typeof SDSPCA_METHOD>>>,
  Assert<Equal<ResolvedPCANOptions, Declared<typeof PCAN_METHOD>>>,
  Assert<Equal<ResolvedSPCANOptions, Declared<typeof SPCAN_METHOD>>>,
  Assert<Equal<ResolvedSDSPCALPPOptions, Declared<typeof SDSPCA_LPP_METHOD>>>,
  Assert<Equal<ResolvedSDSPCAANOptions, Declared<typeof SDSPCAAN_METHOD>>>,
  Assert<Equal<ResolvedJPCDAOptions, Declared<typeof JPCDA_METHOD>>>,
  Assert<Equal<ResolvedSLNPOptions, Declared<typeof SLNP_METHOD>>>,
  Assert<Equal<ResolvedLDAOptions, Declared<typeof LDA_METHOD>>>,
  Assert<Equal<ResolvedLPPOptions, Declared<typeof LPP_METHOD>>>,
  // The input type is the resolved one with every field optional.
  Assert<Equal<Required<SDSPCAANOptions>, ResolvedSDSPCAANOptions>>,
];

// Options as users write them: the fields they set, nothing else.
const options: SDSPCAANOptions = { k: 2 };
const lda: LDAOptions = {};
const fraction: PCAOptions = { k: 0.95, whiten: true };
// @ts-expect-error: an option SDSPCAAN does not have
const misspelt: SDSPCAANOptions = { k: 2, detla: 1 };
// @ts-expect-error: an enum option takes its own values only
const badEnum: SDSPCAANOptions = { stopRule: "sometimes" };

// A fitted model's params and fitInfo are named types.
const model = new SDSPCAAN(options);
const params: ResolvedSDSPCAANOptions = model.params;
const info: FitInfo = model.fitInfo;
const pca = new PCA(fraction);
const resolved: ResolvedPCAOptions = pca.params;
const ratios: Float64Array = pca.explainedVarianceRatio;

// createMethod by name: the method's class and options.
const built: PCA = createMethod("pca", { k: 3, whiten: true });
const names: MethodName[] = ["pca", "sdspcaan", "sdspca-lpp", "lda"];
// @ts-expect-error: a misspelt method name does not compile
createMethod("sdspcann", { k: 2 });
// @ts-expect-error: PCA has no option alpha
createMethod("pca", { k: 2, alpha: 1 });
// @ts-expect-error: k is a number
createMethod("lda", { k: "2" });
// A name read at run time (a string) gives an Estimator, its options checked then.
const fromConfig: string = names[0];
const dynamic: Estimator = createMethod(fromConfig, { k: 2, anything: 1 });

// fitInWorker by name alike.
declare const worker: WorkerLike;
declare const X: number[][];
const inWorker: Promise<PCA> = fitInWorker(worker, { method: "pca", options: { k: 2 }, X });
const piped: Promise<Pipeline<SDSPCAAN>> = fitInWorker(worker, {
  method: "sdspcaan",
  options: { k: 2, delta: 0.5 },
  X,
  y: [0, 1],
  pipeline: true,
});
// @ts-expect-error: a misspelt method name does not compile
fitInWorker(worker, { method: "sdspcann", X });
// @ts-expect-error: SDSPCAAN has no option kk
fitInWorker(worker, { method: "sdspcaan", options: { kk: 2 }, X });
const anyMethod: Promise<Estimator> = fitInWorker(worker, { method: fromConfig, X });

// A plug-in method adds its name by declaration merging, and is then typed like the others.
interface ScaledBaselineOptions {
  k?: number;
  gain?: number;
}
declare module "sdspcaan" {
  interface MethodRegistry {
    "scaled-baseline": { options: ScaledBaselineOptions; model: Estimator };
  }
}
const plugin: Estimator = createMethod("scaled-baseline", { k: 2, gain: 3 });
// @ts-expect-error: the plug-in's options are its own
createMethod("scaled-baseline", { gain: "high" });

export const used = [
  lda,
  misspelt,
  badEnum,
  params,
  info,
  resolved,
  ratios,
  built,
  dynamic,
  inWorker,
  piped,
  anyMethod,
  plugin,
];
