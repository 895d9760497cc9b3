/**
 * sdspcaan/node: the Node.js-only entry. Everything in the browser-safe core plus
 * file reading (MAT, HDF5, CSV, NPY), plotting, the experiment runner and the CLI.
 */

export { buildProgram, runCli } from "./cli/main.js";
export {
  type RunReport,
  type RunReportOptions,
  type SkippedSummary,
  summariseSkipped,
  writeRunReports,
} from "./experiment/reportFiles.node.js";
export {
  isSkipped,
  type ParsedResults,
  parseResultLines,
  RESULTS_FILE,
  type ResultLine,
  ResultsWriter,
  readResultsFile,
  SETTINGS_FILE,
  type SkippedFit,
} from "./experiment/resultsFile.node.js";
export {
  type DatasetOrigin,
  type DatasetSettings,
  datasetChecksum,
  type ExperimentCallbacks,
  type ExperimentDataset,
  type ExperimentOptions,
  type ExperimentProgress,
  type ExperimentResult,
  type RunSettings,
  readRunSettings,
  runExperiment,
  type SettingsDifference,
  settingsDifferences,
} from "./experiment/runner.node.js";
export { featureNamesOf } from "./formats/featureNames.js";
export * from "./index.js";
export * from "./io/index.js";
export { kernelThreads, setKernelThreads } from "./linalg/kernels/helperThread.node.js";
export {
  nativeGemmUnavailable,
  nativeKernelsActive,
  setNativeKernels,
} from "./linalg/kernels/nativeGemm.node.js";
export * from "./plot/index.js";
