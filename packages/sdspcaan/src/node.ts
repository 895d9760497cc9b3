/**
 * sdspcaan/node: what only Node.js has. Data files by path or registry name
 * ({@link loadDataset}, {@link loadFeatures}: the sdspcaan command's own loaders, with
 * the paper's data set registry and the data directories searched), helper threads
 * for the kernels ({@link setKernelThreads}), the native GEMM of the optional package
 * sdspcaan-native ({@link setNativeKernels}), the worker-thread starter the experiment
 * runner shares, a fit that leaves the event loop free ({@link fitAsync}, in a worker
 * thread), and node:zlib as the file readers' inflater ({@link nodeInflater}).
 * Never imported by the browser-safe entries.
 * @module sdspcaan/node
 */

export { nodeInflater } from "./formats/zlib.node.js";
export {
  checkInputFileSync,
  checkInputStats,
  MAX_JSON_BYTES,
  type OpenedInput,
  openInputFile,
  readAt,
  readInputFile,
  readInputFileSync,
} from "./io/inputFiles.node.js";
export {
  asFeatures,
  type LoadedFeatures,
  type LoadOptions,
  listVariables,
  loadDataset,
  loadDatasetFile,
  loadFeatures,
  loadLabels,
  type OpenedDataset,
  openDataset,
  parseDataset,
  parseDatasetSync,
  parseMat,
  withPredefinedTest,
} from "./io/load.node.js";
export {
  type DataDirectory,
  type DataLocation,
  type DataSource,
  dataDirectories,
  defaultCacheDir,
  type LocateOptions,
  locateDataFile,
  repositoryDataDir,
} from "./io/locate.node.js";
export {
  type CompanionFile,
  DATASETS,
  type DatasetEntry,
  datasetAtPath,
  datasetNames,
  findDataset,
  type PredefinedTestFiles,
} from "./io/registry.node.js";
export { type HeaderDecision, peekHeader, streamDataset } from "./io/streamText.node.js";
export {
  installNativeOnHelper,
  nativeGemmUnavailable,
  nativeKernelsActive,
  setNativeKernels,
} from "./linalg/kernels/nativeGemm.node.js";
export { kernelThreads, setKernelThreads } from "./threads/helperThread.node.js";
export { startWorker } from "./threads/workerThreads.node.js";
export { fitAsync } from "./worker/fitAsync.node.js";
