/**
 * Reading data files (Node only): MAT level 4/5/v7.3, HDF5, NPY, CSV/TSV (parsed by
 * the browser-safe src/formats/); the paper's data set registry; the data lookup
 * order; downloads into the cache.
 */
export { type DelimitedOptions, parseDelimited } from "../formats/csv.js";
export { DEFAULT_MAX_BYTES, type ReadLimits } from "../formats/limits.js";
export { readMatV4 } from "../formats/matV4.js";
export type { MatV5Contents } from "../formats/matV5.js";
export { type Hdf5Contents, withHdf5Variables } from "../formats/matV73.js";
export { type NpyArray, readNpy } from "../formats/npy.js";
export {
  type ArrayValues,
  type DataFormat,
  type DatasetInfo,
  datasetFromVariables,
  type Labels,
  type LabelsNeed,
  type LoadedDataset,
  type NumericArray,
  type RawVariable,
  type VariableInfo,
  type VariableKind,
  type VariableOptions,
} from "../formats/variables.js";
export {
  FetchError,
  type FetchOptions,
  type FetchProgress,
  type FetchResult,
  fetchDataset,
  sha256File,
} from "./fetch.js";
export {
  asFeatures,
  detectFormat,
  type LoadedFeatures,
  type LoadOptions,
  listVariables,
  loadDataset,
  loadFeatures,
  loadLabels,
  type OpenedDataset,
  openDataset,
  parseDataset,
  parseDatasetSync,
  parseMat,
} from "./load.js";
export {
  type DataDirectory,
  type DataLocation,
  type DataSource,
  dataDirectories,
  defaultCacheDir,
  type LocateOptions,
  locateDataFile,
} from "./locate.js";
export { DATASETS, type DatasetEntry, datasetNames, findDataset } from "./registry.js";
export { readMatV5 } from "./zlib.js";
