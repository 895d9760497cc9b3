/**
 * One entry point for data files: `loadDataset(path)` picks the reader from the
 * file's content (magic numbers first, the extension only to tell text formats
 * apart), finds X and y, and returns samples as rows.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { basename, extname } from "node:path";
import { DataFormatError, ValidationError } from "../core/errors.js";
import type { Matrix } from "../linalg/matrix.js";
import { type DelimitedOptions, decodeText, parseDelimited } from "./csv.js";
import { formatBytes, maxBytesOf, type ReadLimits } from "./limits.js";
import { type DataSource, dataDirectories, type LocateOptions, locateDataFile } from "./locate.js";
import { looksLikeMatV4, readMatV4 } from "./matV4.js";
import { looksLikeMatV5, matHeaderVersion, readMatV5 } from "./matV5.js";
import { hdf5SuperblockOffset, looksLikeMatV73, withHdf5Variables } from "./matV73.js";
import { looksLikeNpy, npyVariable, readNpy } from "./npy.js";
import { type DatasetEntry, datasetNames, findDataset } from "./registry.js";
import {
  checkClassLabels,
  type DataFormat,
  type DatasetInfo,
  datasetFromVariables,
  type Labels,
  type LoadedDataset,
  type RawVariable,
  textLabels,
  type VariableInfo,
  type VariableOptions,
} from "./variables.js";

/** Options of `loadDataset` and `parseDataset`. */
export interface LoadOptions extends VariableOptions, DelimitedOptions, ReadLimits {
  /** Force a format instead of detecting it. */
  format?: "auto" | "mat" | "hdf5" | "npy" | "csv" | "tsv";
  /**
   * A separate file holding the labels, one per sample: a 1-D .npy or text with one
   * label per line. X is then the whole matrix of the data file (no label column).
   */
  labelsFile?: string;
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
  format: "mat-v4" | "mat-v5" | "npy",
  limits: ReadLimits,
): { variables: RawVariable[]; compressed?: boolean } {
  if (format === "mat-v5") {
    const m = readMatV5(bytes, file, limits);
    return { variables: m.variables, compressed: m.compressed };
  }
  if (format === "mat-v4") return { variables: readMatV4(bytes, file, limits) };
  return { variables: [npyVariable(bytes, file, limits)] };
}

function checkOptions(options: LoadOptions): void {
  if (
    options.labelColumn === "none" &&
    options.labelsFile === undefined &&
    options.labels !== "optional"
  ) {
    throw new ValidationError(
      "labelColumn",
      "labelColumn 'none' (--label-col none: no labels in the data file) needs labelsFile (--labels-file), the file that holds the labels, where labels are required.",
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
function attachLabels(
  ds: LoadedDataset,
  read: LabelsRead,
  labelsFile: string,
  options: LoadOptions,
): LoadedDataset {
  const { labels } = read;
  if (labels.length !== ds.X.rows) {
    throw new DataFormatError(
      labelsFile,
      `holds ${labels.length} labels but ${ds.info.file} has ${ds.X.rows} samples (rows)`,
    );
  }
  if (options.labels !== "optional") {
    checkClassLabels(
      labelsFile,
      labels,
      "the labels",
      read.where,
      "Check that this is the labels file of the data.",
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
  const read = labelsFromBytes(
    await readBytes(options.labelsFile, options),
    options.labelsFile,
    options,
  );
  return attachLabels(ds, read, options.labelsFile, options);
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
  const read = labelsFromBytes(
    readLabelsFileSync(options.labelsFile, options),
    options.labelsFile,
    options,
  );
  return attachLabels(ds, read, options.labelsFile, options);
}

function parseNonHdf5(
  bytes: Uint8Array,
  file: string,
  format: DataFormat,
  options: LoadOptions,
): LoadedDataset {
  if (format === "csv" || format === "tsv") return parseDelimited(bytes, file, options, format);
  const { variables, compressed } = variablesOf(
    bytes,
    file,
    format as "mat-v4" | "mat-v5" | "npy",
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
  return labelsFromBytes(await readBytes(path, limits), path, limits).labels;
}

/** Labels read from a labels file, and how a message names label i. */
interface LabelsRead {
  readonly labels: Labels;
  readonly where: (i: number) => string;
}

function labelsFromBytes(bytes: Uint8Array, path: string, limits: ReadLimits): LabelsRead {
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
    return { labels: out, where: (i) => `label ${i} (counting from 0)` };
  }
  const text = decodeText(bytes, path);
  // Keep blank lines inside the file (a missing label) so that label i is line i + 1;
  // only the trailing ones go.
  const lines = text.split(/\r\n|\n|\r/).map((l) => l.trim());
  while (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  if (lines.length === 0) throw new DataFormatError(path, "holds no labels");
  const multi = lines.findIndex((l) => /[,;\t ]/.test(l) && !/^"[^"]*"$/.test(l));
  if (multi >= 0) {
    throw new DataFormatError(
      path,
      `line ${multi + 1} holds several fields; a labels file has one label per line`,
    );
  }
  const where = (i: number) => `line ${i + 1}`;
  return {
    labels: textLabels(
      path,
      lines.map((l) => l.replace(/^"(.*)"$/, "$1")),
      where,
    ),
    where,
  };
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
  return parseDataset(await readBytes(path, options), path, options);
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
 * `loadDataset(path, { ...options, labels: "optional" })` with y null when absent.
 */
export async function loadFeatures(
  path: string,
  options: Omit<LoadOptions, "labels"> = {},
): Promise<LoadedFeatures> {
  return asFeatures(await loadDataset(path, { ...options, labels: "optional" }));
}

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
 * the cache) or a file path. Registry entries supply their variables unless the
 * options name others.
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
    const found = locateDataFile(named.file, options);
    if (!found) {
      const dirs = dataDirectories(options)
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
  const dataset = await loadDataset(path, { ...options, ...fromEntry });
  return { dataset, path, entry, source };
}

/** Reads a MAT-file (level 4, level 5 or v7.3) from a buffer into (X, y). */
export async function parseMat(
  bytes: Uint8Array,
  file: string,
  options: Omit<LoadOptions, "format"> = {},
): Promise<LoadedDataset> {
  return parseDataset(bytes, file, { ...options, format: "mat" });
}
