/**
 * sdspcaan: supervised linear dimensionality reduction, browser-safe. The methods of
 * the SDSPCAAN paper (each a class with `fit`, `transform`, `toJSON`), building them
 * by name and loading saved models, the paper's 1-NN classifier and balanced
 * accuracy, the standardiser, the `Matrix` type, a seeded stratified train /
 * validation / test split (`stratifiedSplit`), the errors the library throws, and the
 * choice of kernels (`setKernelBackend`: "fast" by default, "portable" for the bits of
 * results computed before "fast" existed).
 *
 * More is in the subpath entries: `sdspcaan/formats` (data files from bytes),
 * `sdspcaan/methods` (the method framework: descriptors, the registry, option
 * schemas), `sdspcaan/node` (Node.js only: helper threads, native kernels).
 * @module sdspcaan
 */

export {
  accuracy,
  balancedAccuracy,
  type ConfusionMatrix,
  confusionMatrix,
} from "./classify/metrics.js";
export { NearestNeighbour1, type NearestNeighbourOptions } from "./classify/nearestNeighbour.js";
export {
  AbortError,
  ContractError,
  ConvergenceError,
  DataFormatError,
  ModelFormatError,
  NotFittedError,
  RowValueError,
  SdspcaanError,
  ValidationError,
} from "./core/errors.js";
export { Matrix, type MatrixLike } from "./core/matrix.js";
export type { Label } from "./core/validate.js";
export {
  type StratifiedSplit,
  type StratifiedSplitOptions,
  stratifiedSplit,
} from "./data/stratifiedSplit.js";
export {
  type KernelBackend,
  type KernelBackendRequest,
  kernelBackend,
  setKernelBackend,
} from "./linalg/kernels/wasm/backend.js";
export { Standardizer, type StandardizerJSON } from "./linalg/standardizer.js";
export { Baseline } from "./methods/baseline.js";
export { Estimator, type ModelJSON } from "./methods/estimator.js";
export type {
  FitCallbacks,
  FitInfo,
  FitOptions,
  FitProgress,
  FitWarning,
  FitWarningCode,
  TransformOptions,
  TransformWarning,
} from "./methods/fitReport.js";
export { JPCDA } from "./methods/jpcda.js";
export { LDA } from "./methods/lda.js";
export { LPP } from "./methods/lpp.js";
export type { MethodName, MethodRegistry } from "./methods/methodRegistry.js";
export type {
  BaselineOptions,
  JPCDAOptions,
  LDAOptions,
  LPPOptions,
  PCANOptions,
  PCAOptions,
  ResolvedBaselineOptions,
  ResolvedJPCDAOptions,
  ResolvedLDAOptions,
  ResolvedLPPOptions,
  ResolvedPCANOptions,
  ResolvedPCAOptions,
  ResolvedSDSPCAANOptions,
  ResolvedSDSPCALPPOptions,
  ResolvedSDSPCAOptions,
  ResolvedSLNPOptions,
  ResolvedSPCANOptions,
  SDSPCAANOptions,
  SDSPCALPPOptions,
  SDSPCAOptions,
  SLNPOptions,
  SPCANOptions,
} from "./methods/optionTypes.js";
export { PCA } from "./methods/pca.js";
export { PCAN } from "./methods/pcan.js";
export {
  Pipeline,
  type PipelineOptions,
  type PipelineSaveOptions,
} from "./methods/pipeline.js";
export type { PipelineJSON } from "./methods/pipelineFormat.js";
export { createMethod, loadModel, methodNames } from "./methods/registry.js";
export { SDSPCA } from "./methods/sdspca.js";
export { SDSPCAAN } from "./methods/sdspcaan.js";
export { SDSPCALPP } from "./methods/sdspcaLpp.js";
export { SLNP } from "./methods/slnp.js";
export { SPCAN } from "./methods/spcan.js";
export { TrainingData } from "./methods/training.js";
