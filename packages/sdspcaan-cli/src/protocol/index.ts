/**
 * The paper's experiment protocol, browser-safe: seeded splits, preprocessing, the k
 * grid, hyperparameter grids and presets, selection, fit records, the paper's Table IV,
 * synthetic data and the plan of a run's fits. The splits, their preprocessing and the
 * synthetic data sets live in the library (`sdspcaan/methods`) and are handed on here.
 */

export {
  checkPreprocessing,
  classesMissingFromTraining,
  makeSplit,
  makeSplits,
  makeSyntheticDataset,
  missingClassesWarning,
  PAPER_FRACTIONS,
  PREDEFINED_VAL_FRACTION,
  PREPROCESSINGS,
  type PreprocessedSplit,
  type Preprocessing,
  parseSplitFile,
  predefinedTestSplit,
  preprocessSplit,
  roundedCount,
  type Split,
  type SplitFileOptions,
  type SplitFractions,
  type SplitOptions,
  SYNTHETIC_SCHEMA,
  type SyntheticDataset,
  type SyntheticOptions,
  splitSeed,
  splitSizes,
  splitsToJSON,
  zscoreStatistics,
} from "sdspcaan/methods";
export * from "./grids.js";
export * from "./kGrid.js";
export * from "./paperTable.js";
export * from "./records.js";
export * from "./selection.js";
