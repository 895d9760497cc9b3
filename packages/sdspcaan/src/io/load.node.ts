/**
 * Data files in Node (`sdspcaan/node`), the sdspcaan command's own loaders:
 * `loadDataset(pathOrName)` finds a registry data set or reads a file, picking the
 * reader from the file's content (magic numbers first, the extension only to tell
 * text formats apart), finds X and y, and returns samples as rows. The parsing
 * itself is browser-safe and lives in src/formats/; this file reads files (regular
 * files only, their size checked before reading; delimited text streamed, plain or
 * gzip-compressed, so that memory is the matrix and not the text), inflates with
 * node:zlib, and finds registry data sets. MAT v7.3 / HDF5 files need
 * `import "sdspcaan-hdf5"` first (the library does not depend on it); without it
 * they are refused with a message saying so.
 */
import { existsSync } from "node:fs";
import { basename } from "node:path";
import { DataFormatError, ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { pickOptions } from "../core/options.js";
import { checkCallOptions } from "../core/validate.js";
import { idxLabelsCompanion } from "../formats/idx.js";
import { labelSource } from "../formats/labelSource.js";
import type { Labels } from "../formats/labels.js";
import type { ReadLimits } from "../formats/limits.js";
import {
  attachLabels,
  describeVariables,
  detectFormat,
  formatToRead,
  labelsFromBytes,
  PARSE_OPTION_NAMES,
  type ParseOptions,
  parseBytesAs,
  parseBytesSync,
} from "../formats/parse.js";
import type { DataFormat, DatasetInfo, LoadedDataset, VariableInfo } from "../formats/variables.js";
import { nodeInflater } from "../formats/zlib.node.js";
import { readInputFile, readInputFileSync } from "./inputFiles.node.js";
import {
  type DataSource,
  dataDirectories,
  LOCATE_OPTION_NAMES,
  type LocateOptions,
  locateDataFile,
} from "./locate.node.js";
import { type DatasetEntry, datasetAtPath, datasetNames, findDataset } from "./registry.node.js";
import { streamDataset } from "./streamText.node.js";

export { detectFormat };

/** Options of `loadDataset` and `parseDataset`. */
export interface LoadOptions extends ParseOptions {
  /**
   * A separate file holding the labels, one per sample: an idx1 file, a 1-D .npy or
   * text with one label per line. X is then the whole matrix of the data file (no
   * label column).
   */
  labelsFile?: string;
}

const LOAD_OPTION_NAMES = [...PARSE_OPTION_NAMES, "labelsFile"];
const OPEN_OPTION_NAMES = [...LOAD_OPTION_NAMES, ...LOCATE_OPTION_NAMES];
const LIMIT_NAMES = ["maxBytes"];

/** Refuses options `call` does not take, then labels asked for in two places. */
function checkOptions(
  options: LoadOptions,
  call: string,
  names: readonly string[] = LOAD_OPTION_NAMES,
): void {
  checkCallOptions(options, call, names);
  const source = labelSource(options);
  if (source.where === "none" && options.labels !== "optional") {
    throw new ValidationError(
      "labelColumn",
      "labelColumn 'none' (--label-col none: no labels in the data file) needs labelsFile (--labels-file), the file that holds the labels, where labels are required.",
    );
  }
  if (
    source.where === "labels-file" &&
    (options.yVar !== undefined ||
      (options.labelColumn !== undefined && options.labelColumn !== "none"))
  ) {
    throw new ValidationError(
      "labelsFile",
      "labelsFile cannot be combined with yVar or labelColumn: the labels come from one place.",
    );
  }
}

/**
 * What the byte-level readers take: with labelsFile the data file holds X only, and
 * the labels file is read here.
 */
function withoutLabelColumn(options: LoadOptions): ParseOptions {
  const parse = pickOptions(options, PARSE_OPTION_NAMES);
  return labelSource(options).where === "labels-file" ? { ...parse, labelColumn: "none" } : parse;
}

/**
 * Reads a data set from a buffer. `file` names it in messages and its extension
 * helps tell CSV from TSV. Samples are rows of X, with one label each.
 */
export async function parseDataset(
  bytes: Uint8Array,
  file: string,
  options: LoadOptions = {},
): Promise<LoadedDataset> {
  checkOptions(options, "parseDataset");
  return parseDatasetAs(bytes, file, formatToRead(bytes, file, options), options);
}

/** `parseDataset` on bytes whose format `formatToRead` has told already. */
async function parseDatasetAs(
  bytes: Uint8Array,
  file: string,
  format: DataFormat | "gzip",
  options: LoadOptions,
): Promise<LoadedDataset> {
  const ds = await parseBytesAs(bytes, file, format, withoutLabelColumn(options), nodeInflater);
  return withLabelsFile(ds, options);
}

/**
 * The synchronous reader for every format but HDF5 (MAT v4/v5, NPY, CSV/TSV), e.g.
 * for workers or tests; an HDF5 / MAT v7.3 buffer is refused with a hint.
 */
export function parseDatasetSync(
  bytes: Uint8Array,
  file: string,
  options: LoadOptions = {},
): LoadedDataset {
  checkOptions(options, "parseDatasetSync");
  const ds = parseBytesSync(bytes, file, withoutLabelColumn(options), nodeInflater);
  return withLabelsFileSync(ds, options);
}

/** Labels from a separate file: an idx1 file, a 1-D (or n x 1) .npy, or text with one label per line. */
export async function loadLabels(path: string, limits: ReadLimits = {}): Promise<Labels> {
  checkCallOptions(limits, "loadLabels", LIMIT_NAMES);
  const bytes = await readInputFile(path, "labels file", limits);
  return labelsFromBytes(bytes, path, limits, nodeInflater).labels;
}

/** `ds` with its labels replaced by those read from `bytes`, the labels file `path`. */
function withLabels(
  ds: LoadedDataset,
  bytes: Uint8Array,
  path: string,
  options: LoadOptions,
): LoadedDataset {
  return attachLabels(ds, labelsFromBytes(bytes, path, options, nodeInflater), path, options);
}

/** `ds`, with the labels of `options.labelsFile` when one is named. */
async function withLabelsFile(ds: LoadedDataset, options: LoadOptions): Promise<LoadedDataset> {
  if (options.labelsFile === undefined) return ds;
  const bytes = await readInputFile(options.labelsFile, "labels file", options, "labelsFile");
  return withLabels(ds, bytes, options.labelsFile, options);
}

/** `withLabelsFile`, synchronously. */
function withLabelsFileSync(ds: LoadedDataset, options: LoadOptions): LoadedDataset {
  if (options.labelsFile === undefined) return ds;
  const bytes = readInputFileSync(options.labelsFile, "labels file", options, "labelsFile");
  return withLabels(ds, bytes, options.labelsFile, options);
}

function readBytes(path: string, limits: ReadLimits): Promise<Uint8Array> {
  return readInputFile(path, "data file", limits);
}

/**
 * Loads a data set from the file at `path`, without the registry's lookups (see
 * {@link loadDataset}): MAT (level 4, level 5 compressed or not, v7.3 with
 * sdspcaan-hdf5 imported), HDF5, NPY, IDX (raw or gzip), CSV or TSV. X is float64
 * with samples as rows; y holds numbers when every label is numeric, else strings;
 * `info` says what was read and how.
 */
export async function loadDatasetFile(
  path: string,
  options: LoadOptions = {},
): Promise<LoadedDataset> {
  checkOptions(options, "loadDatasetFile");
  const streamed = await streamDataset(path, withoutLabelColumn(options));
  if (streamed === null) {
    const bytes = await readBytes(path, options);
    // Told once: whether to look for an IDX file's labels and how to read it both follow.
    const format = formatToRead(bytes, path, options);
    return parseDatasetAs(bytes, path, format, withIdxCompanion(format, path, options));
  }
  return withLabelsFile(streamed, options);
}

/**
 * An IDX images file keeps its labels in a separate idx1 file; when the caller names
 * none, the conventional companion next to it (`*-images-idx3-*` -> `*-labels-idx1-*`)
 * is used if it exists.
 */
function withIdxCompanion(
  format: DataFormat | "gzip",
  path: string,
  options: LoadOptions,
): LoadOptions {
  if (format !== "idx" || labelSource(options).where !== "unnamed") {
    return options;
  }
  const companion = idxLabelsCompanion(path);
  if (companion === null || !existsSync(companion)) return options;
  return { ...options, labelsFile: companion };
}

/** Data read without requiring labels: X, and y when the file or the options provide labels. */
export interface LoadedFeatures {
  X: Matrix;
  /** The labels when a label column, variable or file was named or found by name; else null. */
  y: Labels | null;
  info: DatasetInfo;
}

/**
 * Loads data that may have no labels, such as new samples to embed with a fitted
 * model. Every column of a CSV or NPY file, or the whole data variable of a
 * MAT/HDF5 file, is a feature unless the options name the labels (`labelColumn`,
 * `yVar`, `labelsFile`): these are then left out of X and returned as y. A label
 * variable found by its usual name (gnd, y, Y, labels, ...) is returned as y too;
 * a column of X is never taken for the labels unless named. Same as
 * `loadDatasetFile(path, { ...options, labels: "optional" })` with y null when absent.
 */
export async function loadFeatures(
  path: string,
  options: Omit<LoadOptions, "labels"> = {},
): Promise<LoadedFeatures> {
  checkCallOptions(options, "loadFeatures", FEATURE_OPTION_NAMES);
  return asFeatures(await loadDatasetFile(path, { ...options, labels: "optional" }));
}

const FEATURE_OPTION_NAMES = LOAD_OPTION_NAMES.filter((name) => name !== "labels");

/** A dataset read with `labels: "optional"` as features and labels-or-null. */
export function asFeatures(ds: LoadedDataset): LoadedFeatures {
  return { X: ds.X, y: ds.info.yVar === null ? null : ds.y, info: ds.info };
}

/**
 * Lists the variables of a MAT, HDF5 or NPY file without decoding their values;
 * sparse, cell, struct and other non-numeric variables are listed, not refused.
 */
export async function listVariables(
  path: string,
  limits: ReadLimits = {},
): Promise<VariableInfo[]> {
  checkCallOptions(limits, "listVariables", LIMIT_NAMES);
  return describeVariables(await readBytes(path, limits), path, limits, nodeInflater);
}

/** A data set opened by registry name or path, with where it was found. */
export interface OpenedDataset {
  /**
   * X and y; for an entry with its own test set (Fashion-MNIST) the training samples
   * come first and `dataset.predefinedTest` lists the rows of the test samples.
   */
  readonly dataset: LoadedDataset;
  readonly path: string;
  /** The registry entry, when the argument named one (or the file is a registry file). */
  readonly entry: DatasetEntry | null;
  /** Which lookup rule found it; null for a path given directly. */
  readonly source: DataSource | null;
}

/**
 * Loads a data set given a registry name (case-insensitive, looked up in the data
 * directories: --data-dir, $SDSPCAAN_DATA, the repository's data/, ../shared/data,
 * the cache, then the entry's system directories) or a file path. Registry entries
 * supply their variables unless the options name others; an entry's companion files
 * (separate labels, its own test set) are read from the directory its main file was
 * found in.
 */
export async function openDataset(
  nameOrPath: string,
  options: LoadOptions & LocateOptions = {},
): Promise<OpenedDataset> {
  return openDatasetAs(nameOrPath, options, "openDataset");
}

/** `openDataset`, its options refused naming `call`, the function the user called. */
async function openDatasetAs(
  nameOrPath: string,
  given: LoadOptions & LocateOptions,
  call: string,
): Promise<OpenedDataset> {
  checkCallOptions(given, call, OPEN_OPTION_NAMES);
  const options = pickOptions(given, LOAD_OPTION_NAMES) as LoadOptions;
  const locate = pickOptions(given, LOCATE_OPTION_NAMES) as LocateOptions;
  const asPath = existsSync(nameOrPath) ? nameOrPath : null;
  const named = asPath === null ? findDataset(nameOrPath) : null;
  let path: string;
  let source: DataSource | null = null;
  if (named) {
    const lookup: LocateOptions = {
      ...locate,
      systemDirs: [...(locate.systemDirs ?? []), ...(named.systemDirs ?? [])],
    };
    const found = locateDataFile(named.file, lookup);
    if (!found) {
      const dirs = dataDirectories(lookup)
        .map((d) => `${d.dir} (${d.source})`)
        .join(", ");
      throw new ValidationError(
        "dataset",
        `${named.name}: ${named.file} was not found in ${dirs}. Run 'sdspcaan datasets fetch ${named.name}', or give its folder with --data-dir (the dataDir option) or SDSPCAAN_DATA.`,
      );
    }
    path = found.path;
    source = found.source;
  } else if (asPath !== null) {
    path = asPath;
  } else {
    throw new ValidationError(
      "dataset",
      `'${nameOrPath}' is neither a file nor a data set of the registry (${datasetNames().join(", ")}).`,
    );
  }
  const entry = named ?? findDataset(basename(path)) ?? datasetAtPath(path);
  const custom = options.xVar !== undefined || labelSource(options).where !== "unnamed";
  // The entry's label column counts for text files too (clean1), so that data read
  // without labels needed still gets the labels the registry declares.
  const fromEntry: LoadOptions =
    entry && !custom
      ? {
          ...(entry.xVar !== null ? { xVar: entry.xVar } : {}),
          ...(entry.yVar !== null ? { yVar: entry.yVar } : {}),
          ...(entry.yVar === null && entry.labelColumn ? { labelColumn: entry.labelColumn } : {}),
        }
      : {};
  // An entry's identifier columns are left out however the labels are chosen (they
  // are in the file either way), unless the options name the columns to drop.
  const drop: LoadOptions =
    entry?.dropColumns !== undefined && options.dropColumns === undefined
      ? { dropColumns: entry.dropColumns }
      : {};
  // The entry's companion files (named, or its main file given by path: a run's
  // report reopens the path it recorded and must get the same rows).
  const labels = entry !== null && datasetAtPath(path) === entry ? entry.labelsFile : undefined;
  if (entry && labels !== undefined && !custom) {
    const labelsFile = companionPath(entry, path, labels.file);
    const train = await loadDatasetFile(path, { ...options, ...drop, labelsFile });
    if (entry.test === undefined) return { dataset: train, path, entry, source };
    const test = await loadDatasetFile(companionPath(entry, path, entry.test.file.file), {
      ...options,
      labelsFile: companionPath(entry, path, entry.test.labels.file),
    });
    return { dataset: withPredefinedTest(train, test), path, entry, source };
  }
  const dataset = await loadDatasetFile(path, { ...options, ...fromEntry, ...drop });
  return { dataset, path, entry, source };
}

/**
 * Loads a data set given a registry name (`"Yale"`, `"fashion-mnist"`: see
 * {@link DATASETS}) or a file path, as the sdspcaan command does: a name is looked up
 * in the data directories ({@link dataDirectories}), a registry file gets the
 * variables, label column and companion files its entry declares, and any other file
 * is read as {@link loadDatasetFile} reads it. {@link openDataset} also says where it
 * was found.
 *
 * @example
 * ```ts
 * import { loadDataset } from "sdspcaan/node";
 * const { X, y } = await loadDataset("Yale"); // or "data/my.csv"
 * ```
 */
export async function loadDataset(
  pathOrName: string,
  options: LoadOptions & LocateOptions = {},
): Promise<LoadedDataset> {
  return (await openDatasetAs(pathOrName, options, "loadDataset")).dataset;
}

/**
 * Where a companion file of `entry` is: next to the main file (`path` ends with
 * `entry.file`, so the data directory is what precedes it). A missing companion is
 * an error naming it, not a silent fallback to another directory's copy.
 */
function companionPath(entry: DatasetEntry, path: string, file: string): string {
  const root = path.slice(0, path.length - entry.file.length);
  const p = root + file;
  if (!existsSync(p)) {
    throw new ValidationError(
      "dataset",
      `${entry.name}: ${basename(file)} was not found next to ${path} (the data set needs both files in one directory).`,
    );
  }
  return p;
}

/** Training rows then test rows, with the test rows marked as the predefined test set. */
export function withPredefinedTest(train: LoadedDataset, test: LoadedDataset): LoadedDataset {
  if (test.X.cols !== train.X.cols) {
    throw new DataFormatError(
      test.info.file,
      `has ${test.X.cols} features per sample but the training file ${train.info.file} has ${train.X.cols}`,
    );
  }
  if (typeof train.y[0] !== typeof test.y[0]) {
    throw new DataFormatError(
      test.info.file,
      `holds ${typeof test.y[0] === "number" ? "numeric" : "text"} labels but ${train.info.file} does not`,
    );
  }
  const n = train.X.rows;
  const X = new Matrix(n + test.X.rows, train.X.cols);
  X.data.set(train.X.data);
  X.data.set(test.X.data, train.X.data.length);
  const y = [...train.y, ...test.y] as Labels;
  const predefinedTest = new Int32Array(test.X.rows);
  for (let i = 0; i < predefinedTest.length; i++) predefinedTest[i] = n + i;
  return { X, y, info: { ...train.info, testFile: test.info.file }, predefinedTest };
}

const MAT_OPTION_NAMES = LOAD_OPTION_NAMES.filter((name) => name !== "format");

/** Reads a MAT-file (level 4, level 5 or v7.3) from a buffer into (X, y). */
export async function parseMat(
  bytes: Uint8Array,
  file: string,
  options: Omit<LoadOptions, "format"> = {},
): Promise<LoadedDataset> {
  checkCallOptions(options, "parseMat", MAT_OPTION_NAMES);
  return parseDataset(bytes, file, { ...options, format: "mat" });
}
