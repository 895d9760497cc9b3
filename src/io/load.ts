/**
 * One entry point for data files: `loadDataset(path)` picks the reader from the
 * file's content (magic numbers first, the extension only to tell text formats
 * apart), finds X and y, and returns samples as rows.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { DataFormatError, ValidationError } from "../core/errors.js";
import { Matrix } from "../linalg/matrix.js";
import { type DelimitedOptions, decodeText, parseDelimited } from "./csv.js";
import { idxLabelsCompanion, idxVariable, looksLikeIdx, readIdx } from "./idx.js";
import { formatBytes, maxBytesOf, type ReadLimits } from "./limits.js";
import { type DataSource, dataDirectories, type LocateOptions, locateDataFile } from "./locate.js";
import { looksLikeMatV4, readMatV4 } from "./matV4.js";
import { looksLikeMatV5, matHeaderVersion, readMatV5 } from "./matV5.js";
import { hdf5SuperblockOffset, looksLikeMatV73, withHdf5Variables } from "./matV73.js";
import { looksLikeNpy, npyVariable, readNpy } from "./npy.js";
import { type DatasetEntry, datasetNames, findDataset } from "./registry.js";
import {
  type DataFormat,
  datasetFromVariables,
  type Labels,
  type LoadedDataset,
  normalizeTextLabels,
  type RawVariable,
  type VariableInfo,
  type VariableOptions,
} from "./variables.js";

/** Options of `loadDataset` and `parseDataset`. */
export interface LoadOptions extends VariableOptions, DelimitedOptions, ReadLimits {
  /** Force a format instead of detecting it. */
  format?: "auto" | "mat" | "hdf5" | "npy" | "idx" | "csv" | "tsv";
  /**
   * A separate file holding the labels, one per sample: a 1-D .npy or text with one
   * label per line. X is then the whole matrix of the data file (no label column).
   */
  labelsFile?: string;
}

/** MNIST-style names: `*.idx3`, `*.idx1-ubyte`, `train-images-idx3-ubyte(.gz)`. */
function hasIdxName(file: string): boolean {
  const name = basename(file).toLowerCase().replace(/\.gz$/, "");
  return /\.idx\d?$/.test(name) || /-ubyte$/.test(name) || /idx\d-/.test(name);
}

/** Which reader a buffer needs. */
export function detectFormat(
  bytes: Uint8Array,
  file: string,
  forced?: LoadOptions["format"],
): DataFormat {
  const ext = extname(file).toLowerCase();
  if (forced === "csv") return "csv";
  if (forced === "tsv") return "tsv";
  if (looksLikeNpy(bytes)) return "npy";
  if (forced === "npy")
    throw new DataFormatError(file, "not a NumPy .npy file (no \\x93NUMPY magic)");
  if (looksLikeMatV73(bytes)) return "mat-v7.3";
  if (hdf5SuperblockOffset(bytes) === 0) return "hdf5";
  if (looksLikeMatV5(bytes)) {
    // A v7.3 header whose HDF5 part is damaged still goes to the HDF5 reader for its diagnosis.
    return matHeaderVersion(bytes) === 0x0200 ? "mat-v7.3" : "mat-v5";
  }
  if (forced === "hdf5" || ext === ".h5" || ext === ".hdf5") {
    throw new DataFormatError(file, "not an HDF5 file (no HDF5 signature)");
  }
  if (looksLikeMatV4(bytes)) return "mat-v4";
  if (forced === "mat" || ext === ".mat") {
    if (
      bytes.length < 128 &&
      bytes.length > 0 &&
      new TextDecoder("latin1").decode(bytes.subarray(0, 6)) === "MATLAB"
    ) {
      throw new DataFormatError(
        file,
        `${bytes.length} bytes is too short for a MAT-file (the header alone is 128)`,
      );
    }
    throw new DataFormatError(
      file,
      "not a MAT-file: no level 5 or v7.3 header (MATLAB text and 'IM'/'MI' mark at bytes 126-127) and no valid level 4 matrix header",
    );
  }
  // The IDX magic (two zero bytes, type, rank) is weak, so it is tried only after
  // every stronger signature, and for gzip only on an IDX name or when forced.
  if (forced === "idx" || hasIdxName(file) || !(bytes[0] === 0x1f && bytes[1] === 0x8b)) {
    if (looksLikeIdx(bytes)) return "idx";
  }
  if (forced === "idx" || hasIdxName(file)) {
    throw new DataFormatError(
      file,
      "not an IDX file: no IDX magic number (two zero bytes, a type code 0x08-0x0E and 1-4 dimensions), raw or gzip-compressed",
    );
  }
  if (ext === ".npy")
    throw new DataFormatError(file, "not a NumPy .npy file (no \\x93NUMPY magic)");
  if (ext === ".npz") {
    throw new DataFormatError(
      file,
      ".npz archives are not supported; save X and y with numpy.save (.npy) or as CSV",
    );
  }
  return ext === ".tsv" || ext === ".tab" ? "tsv" : "csv";
}

function variablesOf(
  bytes: Uint8Array,
  file: string,
  format: "mat-v4" | "mat-v5" | "npy" | "idx",
  limits: ReadLimits,
): { variables: RawVariable[]; compressed?: boolean } {
  if (format === "idx") return { variables: [idxVariable(bytes, file, limits)] };
  if (format === "mat-v5") {
    const m = readMatV5(bytes, file, limits);
    return { variables: m.variables, compressed: m.compressed };
  }
  if (format === "mat-v4") return { variables: readMatV4(bytes, file, limits) };
  return { variables: [npyVariable(bytes, file, limits)] };
}

function checkOptions(options: LoadOptions): void {
  if (options.labelColumn === "none" && options.labelsFile === undefined) {
    throw new ValidationError(
      "labelColumn",
      "labelColumn 'none' (no labels in the data file) needs labelsFile, the file that holds the labels.",
    );
  }
  if (
    options.labelsFile !== undefined &&
    (options.yVar !== undefined ||
      (options.labelColumn !== undefined && options.labelColumn !== "none"))
  ) {
    throw new ValidationError(
      "labelsFile",
      "labelsFile cannot be combined with yVar or labelColumn: the labels come from one place.",
    );
  }
}

/** With labelsFile the data file holds X only. */
function withoutLabelColumn(options: LoadOptions): LoadOptions {
  return options.labelsFile === undefined ? options : { ...options, labelColumn: "none" };
}

/** Replaces y with the labels of labelsFile, checking there is one per sample. */
function attachLabels(ds: LoadedDataset, labels: Labels, labelsFile: string): LoadedDataset {
  if (labels.length !== ds.X.rows) {
    throw new DataFormatError(
      labelsFile,
      `holds ${labels.length} labels but ${ds.info.file} has ${ds.X.rows} samples (rows)`,
    );
  }
  ds.y = labels;
  ds.info.yVar = labelsFile;
  return ds;
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
  checkOptions(options);
  const opts = withoutLabelColumn(options);
  const format = detectFormat(bytes, file, opts.format);
  let ds: LoadedDataset;
  if (format === "mat-v7.3" || format === "hdf5") {
    ds = await withHdf5Variables(
      bytes,
      file,
      ({ format: f, variables }) => fromVariables(file, f, variables, opts),
      opts,
    );
  } else {
    ds = parseNonHdf5(bytes, file, format, opts);
  }
  if (options.labelsFile === undefined) return ds;
  return attachLabels(ds, await loadLabels(options.labelsFile, options), options.labelsFile);
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
  checkOptions(options);
  const opts = withoutLabelColumn(options);
  const format = detectFormat(bytes, file, opts.format);
  if (format === "mat-v7.3" || format === "hdf5") {
    throw new ValidationError(
      "format",
      `${file} is an HDF5 / MAT v7.3 file, which is read asynchronously: use parseDataset or loadDataset.`,
    );
  }
  const ds = parseNonHdf5(bytes, file, format, opts);
  if (options.labelsFile === undefined) return ds;
  const labels = labelsFromBytes(
    readLabelsFileSync(options.labelsFile, options),
    options.labelsFile,
    options,
  );
  return attachLabels(ds, labels, options.labelsFile);
}

function parseNonHdf5(
  bytes: Uint8Array,
  file: string,
  format: DataFormat,
  options: LoadOptions,
): LoadedDataset {
  if (format === "csv" || format === "tsv") return parseDelimited(bytes, file, options, format);
  if (format === "idx" && options.labelColumn !== "none") {
    throw new DataFormatError(
      file,
      "an IDX file holds one array and no labels: give the idx1 labels file with labelsFile (--labels-file)",
    );
  }
  const { variables, compressed } = variablesOf(
    bytes,
    file,
    format as "mat-v4" | "mat-v5" | "npy" | "idx",
    options,
  );
  const ds = fromVariables(file, format, variables, options);
  if (compressed !== undefined) ds.info.compressed = compressed;
  return ds;
}

function fromVariables(
  file: string,
  format: DataFormat,
  variables: RawVariable[],
  options: LoadOptions,
): LoadedDataset {
  if (options.labelColumn === "none") {
    // The labels come from labelsFile, so X is the whole of the data variable.
    const xVar = options.xVar ?? soleDataVariable(file, variables);
    return datasetFromVariables(
      file,
      format,
      variables,
      { xVar, transpose: options.transpose },
      true,
    );
  }
  return datasetFromVariables(file, format, variables, options);
}

function soleDataVariable(file: string, variables: RawVariable[]): string {
  const cands = variables.filter(
    (v) => v.kind === "numeric" && !v.complex && v.dims.filter((d) => d !== 1).length === 2,
  );
  if (cands.length !== 1) {
    throw new DataFormatError(
      file,
      cands.length === 0
        ? "no numeric 2-D variable to use as data"
        : `cannot tell which variable is the data: candidates ${cands.map((v) => `'${v.name}'`).join(", ")}; choose with --x-var (xVar)`,
    );
  }
  return cands[0].name;
}

/** Labels from a separate file: a 1-D (or n x 1) .npy, or text with one label per line. */
export async function loadLabels(path: string, limits: ReadLimits = {}): Promise<Labels> {
  return labelsFromBytes(await readBytes(path, limits), path, limits);
}

function labelsFromBytes(bytes: Uint8Array, path: string, limits: ReadLimits): Labels {
  if (looksLikeIdx(bytes)) {
    const a = readIdx(bytes, path, limits);
    if (a.shape.length !== 1) {
      throw new DataFormatError(
        path,
        `labels must be a vector (an idx1 file); the IDX array has shape (${a.shape.join(", ")})`,
      );
    }
    return Array.from(a.data);
  }
  if (looksLikeNpy(bytes)) {
    const a = readNpy(bytes, path, limits);
    if (a.shape.filter((d) => d !== 1).length > 1) {
      throw new DataFormatError(
        path,
        `labels must be a vector; the array has shape (${a.shape.join(", ")})`,
      );
    }
    const out = Array.from(a.data);
    const bad = out.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) throw new DataFormatError(path, `label ${bad} is ${out[bad]}`);
    return out;
  }
  const text = decodeText(bytes, path);
  const lines = text
    .split(/\r?\n|\r/)
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  if (lines.length === 0) throw new DataFormatError(path, "holds no labels");
  const multi = lines.findIndex((l) => /[,;\t ]/.test(l) && !/^"[^"]*"$/.test(l));
  if (multi >= 0) {
    throw new DataFormatError(
      path,
      `line ${multi + 1} holds several fields; a labels file has one label per line`,
    );
  }
  return normalizeTextLabels(lines.map((l) => l.replace(/^"(.*)"$/, "$1")));
}

function readLabelsFileSync(path: string, limits: ReadLimits): Uint8Array {
  let size: number;
  try {
    size = statSync(path).size;
  } catch (err) {
    throw new ValidationError("labelsFile", `Cannot read ${path}: ${(err as Error).message}`);
  }
  const maxBytes = maxBytesOf(limits);
  if (size > maxBytes) {
    throw new DataFormatError(
      path,
      `is ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} limit (maxBytes)`,
    );
  }
  return readFileSync(path);
}

async function readBytes(path: string, limits: ReadLimits): Promise<Uint8Array> {
  let size: number;
  try {
    const st = await stat(path);
    if (st.isDirectory())
      throw new ValidationError("path", `${path} is a directory, not a data file.`);
    size = st.size;
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    throw new ValidationError(
      "path",
      code === "ENOENT"
        ? `The data file ${path} does not exist.`
        : `Cannot read ${path}: ${(err as Error).message}`,
    );
  }
  const maxBytes = maxBytesOf(limits);
  if (size > maxBytes) {
    throw new DataFormatError(
      path,
      `is ${formatBytes(size)}, more than the ${formatBytes(maxBytes)} limit (maxBytes)`,
    );
  }
  try {
    return await readFile(path);
  } catch (err) {
    throw new ValidationError("path", `Cannot read ${path}: ${(err as Error).message}`);
  }
}

/**
 * Loads a data set from a file: MAT (level 4, level 5 compressed or not, v7.3),
 * HDF5, NPY, CSV or TSV. X is float64 with samples as rows; y holds numbers when
 * every label is numeric, else strings; `info` says what was read and how.
 */
export async function loadDataset(path: string, options: LoadOptions = {}): Promise<LoadedDataset> {
  checkOptions(options);
  const bytes = await readBytes(path, options);
  return parseDataset(bytes, path, withIdxCompanion(bytes, path, options));
}

/**
 * An IDX images file keeps its labels in a separate idx1 file; when the caller names
 * none, the conventional companion next to it (`*-images-idx3-*` -> `*-labels-idx1-*`)
 * is used if it exists.
 */
function withIdxCompanion(bytes: Uint8Array, path: string, options: LoadOptions): LoadOptions {
  if (
    options.labelsFile !== undefined ||
    options.labelColumn !== undefined ||
    options.yVar !== undefined ||
    detectFormat(bytes, path, options.format) !== "idx"
  ) {
    return options;
  }
  const companion = idxLabelsCompanion(path);
  if (companion === null || !existsSync(companion)) return options;
  return { ...options, labelsFile: companion };
}

/**
 * Lists the variables of a MAT, HDF5 or NPY file without decoding their values;
 * sparse, cell, struct and other non-numeric variables are listed, not refused.
 */
export async function listVariables(
  path: string,
  limits: ReadLimits = {},
): Promise<VariableInfo[]> {
  const bytes = await readBytes(path, limits);
  const format = detectFormat(bytes, path);
  const describe = (vs: RawVariable[]): VariableInfo[] =>
    vs.map((v) => ({
      name: v.name,
      kind: v.kind,
      className: v.className,
      dims: [...v.dims],
      complex: v.complex,
    }));
  if (format === "mat-v7.3" || format === "hdf5") {
    return withHdf5Variables(bytes, path, ({ variables }) => describe(variables), limits);
  }
  if (format === "csv" || format === "tsv") {
    throw new ValidationError(
      "path",
      `${path} is delimited text, which has columns rather than variables.`,
    );
  }
  return describe(variablesOf(bytes, path, format, limits).variables.filter((v) => v.name !== ""));
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
 * directories: --data-dir, $SDSPCAAN_DATA, ../shared/data, the cache, then the
 * entry's system directories) or a file path. Registry entries supply their
 * variables unless the options name others; an entry's companion files (separate
 * labels, its own test set) are read from the directory its main file was found in.
 */
export async function openDataset(
  nameOrPath: string,
  options: LoadOptions & LocateOptions = {},
): Promise<OpenedDataset> {
  const asPath = existsSync(nameOrPath) ? nameOrPath : null;
  const named = asPath === null ? findDataset(nameOrPath) : null;
  let path: string;
  let source: DataSource | null = null;
  if (named) {
    const lookup: LocateOptions = {
      ...options,
      systemDirs: [...(options.systemDirs ?? []), ...(named.systemDirs ?? [])],
    };
    const found = locateDataFile(named.file, lookup);
    if (!found) {
      const dirs = dataDirectories(lookup)
        .map((d) => `${d.dir} (${d.source})`)
        .join(", ");
      throw new ValidationError(
        "dataset",
        `${named.name}: ${named.file} was not found in ${dirs}. Run 'sdspcaan datasets fetch ${named.name}', or give its folder with --data-dir or SDSPCAAN_DATA.`,
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
  const entry = named ?? findDataset(basename(path));
  const custom =
    options.xVar !== undefined ||
    options.yVar !== undefined ||
    options.labelColumn !== undefined ||
    options.labelsFile !== undefined;
  const fromEntry: LoadOptions =
    entry && !custom && entry.xVar !== null
      ? {
          xVar: entry.xVar,
          ...(entry.yVar !== null ? { yVar: entry.yVar } : {}),
          ...(entry.yVar === null && entry.labelColumn ? { labelColumn: entry.labelColumn } : {}),
        }
      : {};
  if (named && !custom && named.labelsFile !== undefined) {
    const labelsFile = companionPath(named, path, named.labelsFile.file);
    const train = await loadDataset(path, { ...options, labelsFile });
    if (named.test === undefined) return { dataset: train, path, entry, source };
    const test = await loadDataset(companionPath(named, path, named.test.file.file), {
      ...options,
      labelsFile: companionPath(named, path, named.test.labels.file),
    });
    return { dataset: withPredefinedTest(train, test), path, entry, source };
  }
  const dataset = await loadDataset(path, { ...options, ...fromEntry });
  return { dataset, path, entry, source };
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

/** Reads a MAT-file (level 4, level 5 or v7.3) from a buffer into (X, y). */
export async function parseMat(
  bytes: Uint8Array,
  file: string,
  options: Omit<LoadOptions, "format"> = {},
): Promise<LoadedDataset> {
  return parseDataset(bytes, file, { ...options, format: "mat" });
}
