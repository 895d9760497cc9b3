/**
 * sdspcaan/formats: data files from bytes, browser-safe. MAT level 4/5, NPY, IDX (raw
 * or gzip), CSV/TSV, any of them gzip-compressed; MAT v7.3 and HDF5 once the package
 * sdspcaan-hdf5 is imported. No file system and no node:zlib: the asynchronous readers
 * inflate with the platform's `DecompressionStream` unless given an inflater (node:zlib's
 * `nodeInflater` from sdspcaan/node reads synchronously). Delimited text is
 * read in chunks as it arrives (`DelimitedReader`), with no package beside it.
 * @module sdspcaan/formats
 */
export { type DelimitedOptions, DelimitedReader, parseDelimited } from "./csv.js";
export type { DecimalMark } from "./csvCells.js";
export { featureNamesOf } from "./featureNames.js";
export {
  type Hdf5Contents,
  type Hdf5Reader,
  hdf5SuperblockOffset,
  looksLikeMatV73,
  setHdf5Reader,
  withHdf5Variables,
} from "./hdf5.js";
export { hasIdxName, type IdxArray, idxLabelsCompanion, isGzip, readIdx } from "./idx.js";
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
export {
  type LabelOptions,
  type LabelSource,
  labelSource,
  labelsInDataFile,
} from "./labelSource.js";
export {
  DEFAULT_MAX_BYTES,
  formatBytes,
  MAX_DEFLATE_RATIO,
  maxBytesOf,
  type ReadLimits,
} from "./limits.js";
export { type DatasetNames, findByName, type ManifestEntry } from "./manifest.js";
export {
  cellTexts,
  charArrayRows,
  NUMERIC_CLASS_NAMES,
  singleRowText,
} from "./matClasses.js";
export { readMatV4 } from "./matV4.js";
export { type MatV5Contents, readMatV5, readMatV5Async } from "./matV5.js";
export { type NpyArray, readNpy } from "./npy.js";
export {
  attachLabels,
  describeVariables,
  detectFormat,
  extensionOf,
  formatToRead,
  type Inflation,
  type LabelsRead,
  labelsFromBytes,
  labelsFromBytesAsync,
  type ParseOptions,
  parseBytes,
  parseBytesAs,
  parseBytesSync,
} from "./parse.js";
export {
  type ArrayValues,
  type DataFormat,
  type DatasetInfo,
  datasetFromVariables,
  elementCount,
  type Labels,
  type LabelsNeed,
  type LoadedDataset,
  type NumericArray,
  type RawVariable,
  type VariableInfo,
  type VariableKind,
  type VariableOptions,
} from "./variables.js";
