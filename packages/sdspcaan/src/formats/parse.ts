/**
 * Data sets from bytes, wherever they come from (a file read by Node, a file the
 * user dropped on a web page): the reader is picked from the content (magic numbers
 * first, the name's extension only to tell text formats apart), X and y are found,
 * and samples come back as rows. Nothing here touches a file system; src/io/load.ts
 * reads files and calls these with node:zlib, the playground with the browser's
 * `DecompressionStream`.
 *
 * A new binary format joins in three places: `DataFormat` (variables.ts), a
 * `looksLike...` test in `detectFormat`, and its reader in `variablesOf`.
 */
import { DataFormatError, ValidationError } from "../core/errors.js";
import { optionNames, pickOptions } from "../core/options.js";
import { checkCallOptions } from "../core/validate.js";
import {
  DELIMITED_OPTION_NAMES,
  type DelimitedOptions,
  decodeText,
  parseDelimited,
} from "./csv.js";
import { baseName } from "./fileNames.js";
import { hdf5SuperblockOffset, looksLikeMatV73, withHdf5Variables } from "./hdf5.js";
import {
  gunzipped,
  gunzippedAhead,
  hasIdxName,
  idxDeclaredSize,
  idxLabels,
  idxVariable,
  isGzip,
  looksLikeIdxHeader,
  readIdx,
} from "./idx.js";
import { type AsyncInflate, type Inflater, noInflater, platformInflate } from "./inflate.js";
import { labelSource, labelsInDataFile } from "./labelSource.js";
import { maxBytesOf, type ReadLimits } from "./limits.js";
import { looksLikeMatV4, readMatV4 } from "./matV4.js";
import { looksLikeMatV5, matHeaderVersion, readMatV5, readMatV5Async } from "./matV5.js";
import { looksLikeNpy, npyDeclaredSize, npyVariable, readNpy } from "./npy.js";
import {
  checkClassLabels,
  type DataFormat,
  datasetFromVariables,
  type Labels,
  type LoadedDataset,
  type RawVariable,
  textLabels,
  type VariableInfo,
  type VariableOptions,
} from "./variables.js";

/** Options of the byte-level readers (the file-level ones add `labelsFile`). */
export interface ParseOptions extends VariableOptions, DelimitedOptions, ReadLimits {
  /** Force a format instead of detecting it. */
  format?: "auto" | "mat" | "hdf5" | "npy" | "idx" | "csv" | "tsv";
}

/** The names of {@link ParseOptions}. */
export const PARSE_OPTION_NAMES = optionNames<ParseOptions>({
  labels: true,
  xVar: true,
  yVar: true,
  labelColumn: true,
  transpose: true,
  delimiter: true,
  header: true,
  dropColumns: true,
  decimal: true,
  maxBytes: true,
  format: true,
});

/**
 * A call's options, and its maxBytes before the bytes are looked at: a bad limit is
 * refused as such, not after (or instead of) a message about the file's content.
 */
function checkParseOptions(options: ParseOptions, call: string): void {
  checkCallOptions(options, call, PARSE_OPTION_NAMES);
  maxBytesOf(options);
}

/**
 * How compressed MAT v5 variables and gzip-compressed IDX files are inflated:
 * synchronously (node:zlib) or not (browsers).
 */
export type Inflation = Inflater | AsyncInflate;

/** The extension of a file name, lower case with its dot ("" when none), as node:path's extname. */
export function extensionOf(file: string): string {
  const base = baseName(file);
  const dot = base.lastIndexOf(".");
  return dot <= 0 || /^\.+$/.test(base) ? "" : base.slice(dot).toLowerCase();
}

/** Which reader a buffer needs. */
export function detectFormat(
  bytes: Uint8Array,
  file: string,
  forced?: ParseOptions["format"],
): DataFormat {
  const ext = extensionOf(file);
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
  // every stronger signature; a gzip file is taken for IDX only on an IDX name or
  // when forced (its header is checked once it is inflated).
  if (looksLikeIdxHeader(bytes)) return "idx";
  if (forced === "idx" || hasIdxName(file)) {
    if (isGzip(bytes)) return "idx";
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

type BinaryFormat = "mat-v4" | "mat-v5" | "npy" | "idx";

/** The variables of a MAT v4/v5, NPY or IDX buffer, and whether any was compressed. */
export function variablesOf(
  bytes: Uint8Array,
  file: string,
  format: BinaryFormat,
  limits: ReadLimits,
  inflater: Inflater,
): { variables: RawVariable[]; compressed?: boolean } {
  if (format === "mat-v5") {
    const m = readMatV5(bytes, file, limits, inflater);
    return { variables: m.variables, compressed: m.compressed };
  }
  if (format === "mat-v4") return { variables: readMatV4(bytes, file, limits) };
  if (format === "idx") {
    const arr = readIdx(bytes, file, limits, inflater);
    return { variables: [idxVariable(arr, file)], compressed: arr.compressed };
  }
  return { variables: [npyVariable(bytes, file, limits)] };
}

async function variablesOfAsync(
  bytes: Uint8Array,
  file: string,
  format: BinaryFormat,
  limits: ReadLimits,
  inflation: Inflation,
): Promise<{ variables: RawVariable[]; compressed?: boolean }> {
  if (format === "mat-v5" && typeof inflation === "function") {
    const m = await readMatV5Async(bytes, file, limits, inflation);
    return { variables: m.variables, compressed: m.compressed };
  }
  if (format === "idx") {
    const inflater = await gunzippedAhead(bytes, file, limits, inflation);
    return variablesOf(bytes, file, format, limits, inflater);
  }
  return variablesOf(bytes, file, format, limits, inflation as Inflater);
}

/** What `detectFormat` found, as the `format` option that forces it. */
const FORCED: Readonly<Record<DataFormat, NonNullable<ParseOptions["format"]>>> = {
  csv: "csv",
  tsv: "tsv",
  npy: "npy",
  idx: "idx",
  hdf5: "hdf5",
  "mat-v4": "mat",
  "mat-v5": "mat",
  "mat-v7.3": "mat",
};

/**
 * A gzip-compressed file (data.csv.gz, X.npy.gz): inflated whole (within maxBytes),
 * its format told from the inflated bytes and the name without ".gz", then read as
 * that format, messages still naming the file as given.
 */
async function parseGzipped(
  bytes: Uint8Array,
  file: string,
  options: ParseOptions,
  inflation: Inflation,
): Promise<LoadedDataset> {
  const maxBytes = maxBytesOf(options);
  // An .npy or IDX file inside declares its size: checked before inflating, then the
  // stream is inflated to that size.
  const declaredSize = (head: Uint8Array, name: string) =>
    options.format === "csv" || options.format === "tsv"
      ? null
      : (npyDeclaredSize(head, name, maxBytes) ?? idxDeclaredSize(head, name, maxBytes));
  const inflater = await gunzippedAhead(bytes, file, options, inflation, (head) =>
    declaredSize(head, file),
  );
  const inner = gunzipped(bytes, file, maxBytes, inflater, (head) => declaredSize(head, file));
  if (isGzip(inner)) {
    throw new DataFormatError(file, "is gzip-compressed twice; decompress it once (gunzip) first");
  }
  const format = detectFormat(inner, file.replace(/\.gz$/i, ""), options.format);
  return parseBytes(inner, file, { ...options, format: FORCED[format] }, inflation);
}

/**
 * Reads a data set from a buffer. `file` names it in messages and its extension
 * helps tell CSV from TSV. Samples are rows of X, with one label each unless
 * `labels: "optional"` or `labelColumn: "none"` (labels from elsewhere). Compressed
 * data (MAT v5 variables, gzip files) is inflated with `inflation`, by default the
 * platform's `DecompressionStream` (browsers, Node >= 18, Bun, Deno); Node's
 * `nodeInflater` (sdspcaan/node) reads the same bytes synchronously.
 */
export async function parseBytes(
  bytes: Uint8Array,
  file: string,
  options: ParseOptions = {},
  inflation: Inflation = platformInflate(file, "parseBytes"),
): Promise<LoadedDataset> {
  checkParseOptions(options, "parseBytes");
  return parseBytesAs(bytes, file, formatToRead(bytes, file, options), options, inflation);
}

/**
 * How `parseBytes` reads a buffer: "gzip" for a gzip-compressed file that is not IDX
 * (it is inflated and its format told from what it holds), else what `detectFormat`
 * tells. A loader that decides something from the format (a file loader looking for
 * an IDX file's labels) asks here once and passes the answer to `parseBytesAs`.
 */
export function formatToRead(
  bytes: Uint8Array,
  file: string,
  options: Pick<ParseOptions, "format"> = {},
): DataFormat | "gzip" {
  if (isGzip(bytes) && options.format !== "idx" && !hasIdxName(file)) return "gzip";
  return detectFormat(bytes, file, options.format);
}

/** `parseBytes` on a buffer whose format `formatToRead` has told already. */
export async function parseBytesAs(
  bytes: Uint8Array,
  file: string,
  format: DataFormat | "gzip",
  options: ParseOptions = {},
  inflation: Inflation = noInflater(file, "parseBytesAs"),
): Promise<LoadedDataset> {
  checkParseOptions(options, "parseBytesAs");
  if (format === "gzip") return parseGzipped(bytes, file, options, inflation);
  if (format === "mat-v7.3" || format === "hdf5") {
    return withHdf5Variables(
      bytes,
      file,
      ({ format: f, variables }) => fromVariables(file, f, variables, options),
      options,
    );
  }
  if (format === "csv" || format === "tsv") return parseText(bytes, file, options, format);
  checkIdxLabels(format, file, options);
  const { variables, compressed } = await variablesOfAsync(bytes, file, format, options, inflation);
  return withCompressed(fromVariables(file, format, variables, options), compressed);
}

/**
 * The synchronous reader for every format but HDF5 (MAT v4/v5, NPY, CSV/TSV); an
 * HDF5 / MAT v7.3 buffer is refused with a hint. Compressed data needs a synchronous
 * `inflater` (`nodeInflater` from sdspcaan/node); without one it is refused, naming
 * `parseBytes`, which inflates by itself.
 */
export function parseBytesSync(
  bytes: Uint8Array,
  file: string,
  options: ParseOptions = {},
  inflater: Inflater = noInflater(file, "parseBytesSync", "parseBytes"),
): LoadedDataset {
  checkParseOptions(options, "parseBytesSync");
  const format = detectFormat(bytes, file, options.format);
  if (format === "mat-v7.3" || format === "hdf5") {
    throw new ValidationError(
      "format",
      `${file} is an HDF5 / MAT v7.3 file, which is read asynchronously: use parseDataset or loadDataset.`,
    );
  }
  if (format === "csv" || format === "tsv") return parseText(bytes, file, options, format);
  checkIdxLabels(format, file, options);
  const { variables, compressed } = variablesOf(bytes, file, format, options, inflater);
  return withCompressed(fromVariables(file, format, variables, options), compressed);
}

/** A delimited text file, read with the options of the delimited reader. */
function parseText(
  bytes: Uint8Array,
  file: string,
  options: ParseOptions,
  format: "csv" | "tsv",
): LoadedDataset {
  return parseDelimited(bytes, file, pickOptions(options, DELIMITED_OPTION_NAMES), format);
}

/**
 * An IDX file is one array: its labels are in a file of their own, never a column of
 * the pixels. Without labels needed (new data to embed), the array is X.
 */
function checkIdxLabels(format: DataFormat, file: string, options: ParseOptions): void {
  const source = labelSource(options);
  if (format !== "idx" || !labelsInDataFile(source)) return;
  if (source.where === "named" || options.labels !== "optional") {
    throw new DataFormatError(
      file,
      "an IDX file holds one array and no labels: give the idx1 labels file with labelsFile (--labels-file)",
    );
  }
}

function withCompressed(ds: LoadedDataset, compressed: boolean | undefined): LoadedDataset {
  if (compressed !== undefined) ds.info.compressed = compressed;
  return ds;
}

function fromVariables(
  file: string,
  format: DataFormat,
  variables: RawVariable[],
  options: ParseOptions,
): LoadedDataset {
  if (!labelsInDataFile(labelSource(options))) {
    // The labels come from elsewhere, so X is the whole of the data variable.
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

/** Labels read from a labels file, and how a message names label i. */
export interface LabelsRead {
  readonly labels: Labels;
  readonly where: (i: number) => string;
}

/**
 * Labels from the bytes of a labels file: an idx1 file (raw or gzip, inflated with
 * `inflater`), a 1-D (or n x 1) .npy, or text with one label per line.
 */
export function labelsFromBytes(
  bytes: Uint8Array,
  path: string,
  limits: ReadLimits = {},
  inflater: Inflater = noInflater(path, "labelsFromBytes", "labelsFromBytesAsync"),
): LabelsRead {
  // A text labels file has no buffer to cap, but a bad limit is refused all the same.
  maxBytesOf(limits);
  // A gzip-compressed labels file can only be IDX (MNIST's `*-labels-idx1-ubyte.gz`).
  if (looksLikeIdxHeader(bytes) || isGzip(bytes)) {
    const labels = idxLabels(readIdx(bytes, path, limits, inflater), path);
    return { labels, where: (i) => `label ${i} (counting from 0)` };
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

/**
 * `labelsFromBytes` with an asynchronous inflater too, by default the platform's
 * `DecompressionStream`.
 */
export async function labelsFromBytesAsync(
  bytes: Uint8Array,
  path: string,
  limits: ReadLimits = {},
  inflation: Inflation = platformInflate(path, "labelsFromBytesAsync"),
): Promise<LabelsRead> {
  return labelsFromBytes(bytes, path, limits, await gunzippedAhead(bytes, path, limits, inflation));
}

/** Replaces y with the labels of a labels file, checking there is one per sample. */
export function attachLabels(
  ds: LoadedDataset,
  read: LabelsRead,
  labelsFile: string,
  options: ParseOptions,
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
 * The variables of a MAT, HDF5 or NPY buffer without decoding their values; sparse,
 * cell, struct and other non-numeric variables are listed, not refused.
 */
export async function describeVariables(
  bytes: Uint8Array,
  file: string,
  limits: ReadLimits = {},
  inflation: Inflation = platformInflate(file, "describeVariables"),
): Promise<VariableInfo[]> {
  maxBytesOf(limits);
  const format = detectFormat(bytes, file);
  const describe = (vs: RawVariable[]): VariableInfo[] =>
    vs.map((v) => ({
      name: v.name,
      kind: v.kind,
      className: v.className,
      dims: [...v.dims],
      complex: v.complex,
    }));
  if (format === "mat-v7.3" || format === "hdf5") {
    return withHdf5Variables(bytes, file, ({ variables }) => describe(variables), limits);
  }
  if (format === "csv" || format === "tsv") {
    throw new ValidationError(
      "path",
      `${file} is delimited text, which has columns rather than variables.`,
    );
  }
  const { variables } = await variablesOfAsync(bytes, file, format, limits, inflation);
  return describe(variables.filter((v) => v.name !== ""));
}
