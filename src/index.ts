/**
 * sdspcaan: the browser-safe core. Methods, linear algebra, graph, classifier and
 * protocol pieces that need no Node.js APIs. File reading, plotting and the CLI are
 * in `sdspcaan/node`.
 */

export * from "./classify/index.js";
export * from "./core/errors.js";
export { deriveSeed, Random } from "./core/rng.js";
export type { EncodedLabels, Label } from "./core/validate.js";
export { encodeLabels } from "./core/validate.js";
export * from "./experiment/index.js";
export { Matrix, type MatrixLike } from "./linalg/matrix.js";
export { Estimator, type ModelJSON } from "./methods/estimator.js";
export { TrainingData } from "./methods/training.js";
export type {
  FitCallbacks,
  FitInfo,
  FitProgress,
  FitTimings,
  StopReason,
} from "./methods/types.js";
