/**
 * Data file formats from bytes, browser-safe: MAT level 4/5/v7.3, HDF5, NPY, IDX, CSV/TSV.
 * No file system and no node:zlib: inflation is passed in (`decompressionStreamInflate`
 * in browsers). Uses two packages that run in browsers: csv-parse (its browser build
 * when bundled for one) and h5wasm (loaded only when an HDF5 file comes).
 */
export { type DelimitedOptions, parseDelimited } from "./csv.js";
export { featureNamesOf } from "./featureNames.js";
export { type IdxArray, idxLabelsCompanion, readIdx } from "./idx.js";
export {
  type AsyncInflate,
  decompressionStreamInflate,
  hasDecompressionStream,
  InflateError,
  type InflateFailure,
  type InflateResult,
  type Inflater,
  inflatedAhead,
  type StreamFormat,
} from "./inflate.js";
export { DEFAULT_MAX_BYTES, formatBytes, type ReadLimits } from "./limits.js";
export { readMatV4 } from "./matV4.js";
export { type MatV5Contents, readMatV5, readMatV5Async } from "./matV5.js";
export { type Hdf5Contents, withHdf5Variables } from "./matV73.js";
export { type NpyArray, readNpy } from "./npy.js";
export {
  attachLabels,
  describeVariables,
  detectFormat,
  extensionOf,
  type Inflation,
  type LabelsRead,
  labelsFromBytes,
  labelsFromBytesAsync,
  type ParseOptions,
  parseBytes,
  parseBytesSync,
} from "./parse.js";
export type {
  DataFormat,
  DatasetInfo,
  Labels,
  LabelsNeed,
  LoadedDataset,
  RawVariable,
  VariableInfo,
  VariableKind,
  VariableOptions,
} from "./variables.js";
