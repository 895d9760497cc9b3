/**
 * sdspcaan/methods: the method framework, for writing a method of one's own and for
 * running protocols over the registered ones (the protocol's seeded splits, their
 * preprocessing and generated data sets included). A method is an `Estimator`
 * subclass with an option schema and a descriptor ({@link defineMethod}); registering
 * it ({@link registerMethod}) makes it known to `createMethod`, `loadModel`, the
 * experiment protocol's grids and the CLI.
 * @module sdspcaan/methods
 */
export { throwIfAborted } from "../core/errors.js";
export {
  type OptionSchema,
  type OptionSpec,
  type OptionsOf,
  resolveOptions,
} from "../core/options.js";
export { deriveSeed, Random } from "../core/rng.js";
export { asMatrix, type EncodedLabels, encodeLabels } from "../core/validate.js";
export {
  checkPreprocessing,
  PREPROCESSINGS,
  type PreprocessedSplit,
  type Preprocessing,
  preprocessSplit,
  zscoreStatistics,
} from "../data/preprocess.js";
export {
  classesMissingFromTraining,
  makeSplit,
  makeSplits,
  missingClassesReport,
  missingClassesWarning,
  PAPER_FRACTIONS,
  PREDEFINED_VAL_FRACTION,
  parseSplitFile,
  predefinedTestSplit,
  roundedCount,
  type Split,
  type SplitFileOptions,
  type SplitFractions,
  type SplitOptions,
  splitSeed,
  splitSizes,
  splitsToJSON,
} from "../data/splits.js";
export {
  makeSyntheticDataset,
  SYNTHETIC_SCHEMA,
  type SyntheticDataset,
  type SyntheticOptions,
} from "../data/synthetic.js";
export { orthogonalizeTwice } from "../linalg/orthogonalize.js";
export {
  type ContractCheck,
  type ContractCheckOptions,
  contractChecks,
} from "./contractChecks.js";
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
} from "./descriptor.js";
export {
  type CoreFitResult,
  FitContext,
  type InputPreprocessing,
  PREPROCESSING_METHODS,
} from "./estimator.js";
export type { FitTimings, StopReason } from "./fitReport.js";
export { FIT_WARNING_CODES, warningFromText } from "./fitWarnings.js";
export { methodPlugin, setMethodPlugin } from "./methodPlugins.js";
export { MAX_MODEL_BYTES, MAX_MODEL_DEPTH } from "./modelText.js";
export { methodOptionsMarkdown } from "./optionDocs.js";
export {
  isBuiltInMethod,
  loadModelFile,
  methodDescriptor,
  methodDescriptors,
  normalizeMethodName,
  protocolOrder,
  registerMethod,
  unregisterMethod,
} from "./registry.js";
export type { StopRule } from "./stopRules.js";
