/**
 * Reading data files (Node only): MAT level 4/5/v7.3, HDF5, NPY, CSV/TSV (parsed by
 * the browser-safe src/formats/); the paper's data set registry; the data lookup
 * order; downloads into the cache.
 */

export type { MatV5Contents } from "sdspcaan/formats";
export {
  type ArrayValues,
  type DataFormat,
  type DatasetInfo,
  DEFAULT_MAX_BYTES,
  type DelimitedOptions,
  datasetFromVariables,
  type Labels,
  type LabelsNeed,
  type LoadedDataset,
  type NpyArray,
  type NumericArray,
  parseDelimited,
  type RawVariable,
  type ReadLimits,
  readMatV4,
  readNpy,
  type VariableInfo,
  type VariableKind,
  type VariableOptions,
} from "sdspcaan/formats";
export { type Hdf5Contents, withHdf5Variables } from "sdspcaan-hdf5";
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
