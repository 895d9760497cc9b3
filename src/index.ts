/**
 * sdspcaan: the browser-safe core. Methods, linear algebra, graph, classifier and
 * protocol pieces that need no Node.js APIs. File reading, plotting, the experiment
 * runner and the CLI are in `sdspcaan/node`.
 */

export * from "./classify/index.js";
export * from "./core/errors.js";
export type { OptionSchema, OptionSpec } from "./core/options.js";
export { deriveSeed, Random } from "./core/rng.js";
export { Standardizer, type StandardizerJSON } from "./core/standardizer.js";
export type { EncodedLabels, Label } from "./core/validate.js";
export { encodeLabels } from "./core/validate.js";
export * from "./experiment/index.js";
export {
  type AdaptiveNeighbourGraph,
  embeddedAdaptiveGraph,
  initialAdaptiveGraph,
  labelledAdaptiveGraph,
} from "./graph/adaptive.js";
export { connectedComponents, type GraphComponents } from "./graph/components.js";
export { graphLaplacian, symmetrizeGraph } from "./graph/laplacian.js";
export { laplacianSmallestEigenpairs } from "./graph/laplacianSpectrum.js";
export { rankControl } from "./graph/rankControl.js";
export {
  dataSpanEigen,
  generalizedSymmetricEigen,
} from "./linalg/eigen/generalizedEigen.js";
export {
  type BlockOperator,
  type LobpcgOptions,
  type LobpcgResult,
  lobpcg,
} from "./linalg/eigen/lobpcg.js";
export {
  type Eigenpairs,
  leadingEigenpairs,
  type SymmetricEigenOptions,
  type SymmetricEigenResult,
  symmetricEigen,
  trailingEigenpairs,
} from "./linalg/eigen/symmetricEigen.js";
export { multiply, multiplyABt, multiplyAtB } from "./linalg/kernels/gemm.js";
export {
  initLinalg,
  type KernelBackend,
  kernelBackend,
  setKernelBackend,
} from "./linalg/kernels/wasm/backend.js";
export { Matrix, type MatrixLike } from "./linalg/matrix.js";
export { CsrMatrix } from "./linalg/sparse.js";
export { type ThinSvd, thinSvd } from "./linalg/svd.js";
export { Baseline, type BaselineOptions } from "./methods/baseline.js";
export {
  defineMethod,
  GRID_PRESETS,
  type GridPreset,
  type KBounds,
  type KBoundsContext,
  type MethodDescriptor,
  MULTIPLIER_GRID,
  type PresetContext,
  type PresetValues,
} from "./methods/descriptor.js";
export {
  type CoreFitResult,
  Estimator,
  FitContext,
  type InputPreprocessing,
  type ModelJSON,
  PREPROCESSING_METHODS,
} from "./methods/estimator.js";
export type {
  FitCallbacks,
  FitInfo,
  FitOptions,
  FitProgress,
  FitTimings,
  StopReason,
  TransformOptions,
} from "./methods/fitReport.js";
export { JPCDA, type JPCDAOptions } from "./methods/jpcda.js";
export { LDA, type LDAOptions } from "./methods/lda.js";
export { LPP, type LPPOptions } from "./methods/lpp.js";
export { methodOptionsMarkdown } from "./methods/optionDocs.js";
export { PCA, type PCAOptions } from "./methods/pca.js";
export { PCAN, type PCANOptions } from "./methods/pcan.js";
export { Pipeline, type PipelineOptions, type PipelineSaveOptions } from "./methods/pipeline.js";
export type { PipelineClassifierJSON, PipelineJSON } from "./methods/pipelineFormat.js";
export {
  createMethod,
  loadModel,
  methodDescriptor,
  methodDescriptors,
  methodNames,
  normalizeMethodName,
  protocolOrder,
  registerMethod,
  unregisterMethod,
} from "./methods/registry.js";
export { SDSPCA, type SDSPCAOptions } from "./methods/sdspca.js";
export { SDSPCAAN, type SDSPCAANOptions } from "./methods/sdspcaan.js";
export { SDSPCALPP, type SDSPCALPPOptions } from "./methods/sdspcaLpp.js";
export { SLNP, type SLNPOptions } from "./methods/slnp.js";
export { SPCAN, type SPCANOptions } from "./methods/spcan.js";
export type { StopRule } from "./methods/stopRules.js";
export { TrainingData } from "./methods/training.js";
export * from "./stats/index.js";
