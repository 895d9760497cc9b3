/**
 * sdspcaan: supervised linear dimensionality reduction, browser-safe. The methods of
 * the SDSPCAAN paper (each a class with `fit`, `transform`, `toJSON`), building them
 * by name and loading saved models, the paper's 1-NN classifier and balanced
 * accuracy, the standardiser, the `Matrix` type, the errors the library throws, and
 * the choice of kernels (`setKernelBackend`: "fast" by default, "portable" for the bits
 * of results computed before "fast" existed).
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
  type KernelBackend,
  type KernelBackendRequest,
  kernelBackend,
  setKernelBackend,
} from "./linalg/kernels/wasm/backend.js";
export { Standardizer, type StandardizerJSON } from "./linalg/standardizer.js";
export { Baseline, type BaselineOptions } from "./methods/baseline.js";
export { Estimator, type ModelJSON } from "./methods/estimator.js";
export type {
  FitCallbacks,
  FitInfo,
  FitOptions,
  FitProgress,
  FitWarning,
  FitWarningCode,
  TransformOptions,
} from "./methods/fitReport.js";
export { JPCDA, type JPCDAOptions } from "./methods/jpcda.js";
export { LDA, type LDAOptions } from "./methods/lda.js";
export { LPP, type LPPOptions } from "./methods/lpp.js";
export { PCA, type PCAOptions } from "./methods/pca.js";
export { PCAN, type PCANOptions } from "./methods/pcan.js";
export {
  Pipeline,
  type PipelineOptions,
  type PipelineSaveOptions,
} from "./methods/pipeline.js";
export type { PipelineJSON } from "./methods/pipelineFormat.js";
export { createMethod, loadModel, methodNames } from "./methods/registry.js";
export { SDSPCA, type SDSPCAOptions } from "./methods/sdspca.js";
export { SDSPCAAN, type SDSPCAANOptions } from "./methods/sdspcaan.js";
export { SDSPCALPP, type SDSPCALPPOptions } from "./methods/sdspcaLpp.js";
export { SLNP, type SLNPOptions } from "./methods/slnp.js";
export { SPCAN, type SPCANOptions } from "./methods/spcan.js";
export { TrainingData } from "./methods/training.js";
