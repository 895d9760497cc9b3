/**
 * sdspcaan-cli: the `sdspcaan` command and what it is made of, for programs that run
 * the paper's protocol themselves: file reading (MAT, HDF5, CSV, NPY, IDX) and the
 * data set registry, the experiment runner and its results files, the reports,
 * statistics and figures. The methods themselves are the `sdspcaan` package.
 * @module sdspcaan-cli
 */

export { runCli } from "./cli/main.js";
export { buildProgram } from "./cli/program.js";
export * from "./io/index.js";
export * from "./plot/index.js";
export * from "./protocol/index.js";
export * from "./reports/index.js";
export {
  type RunReport,
  type RunReportContents,
  type RunReportOptions,
  readRunReport,
  type SkippedSummary,
  summariseSkipped,
  writeRunReports,
} from "./reports/reportFiles.node.js";
export {
  type CompressedFile,
  type CompressResult,
  compressRunResults,
} from "./runner/compress.node.js";
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
} from "./runner/resultsFile.node.js";
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
} from "./runner/runner.node.js";
export * from "./stats/index.js";
