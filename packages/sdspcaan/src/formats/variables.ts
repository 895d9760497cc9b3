/**
 * Variables read from a data file, and how the data matrix X and the labels y are
 * found among them: fea/gnd, X/Y, X/y and the other usual pairs, `data` with the
 * label in its last column, one-hot label matrices, samples as rows or as columns,
 * or variables named by the caller. Every reader (MAT v4/v5/v7.3, NPY) describes
 * its contents with `RawVariable`, so the choice is made in one place.
 */
import { DataFormatError, ValidationError } from "../core/errors.js";
import { Matrix, transposeInto } from "../core/matrix.js";
import { plural } from "../core/plural.js";
import { labelSource, labelsInDataFile } from "./labelSource.js";
import {
  checkClassLabels,
  type Labels,
  numericLabels,
  oneHotLabels,
  textLabels,
} from "./labels.js";

export {
  checkClassLabels,
  isMissingSpelling,
  isNumericString,
  type Labels,
  normalizeTextLabels,
  textLabels,
} from "./labels.js";

/** What a variable holds; only "numeric" (and, as labels, "logical", "char", "cell") can be used. */
export type VariableKind =
  | "numeric"
  | "logical"
  | "char"
  | "cell"
  | "struct"
  | "object"
  | "sparse"
  | "function"
  | "opaque"
  | "unknown";

/** A variable as listed, before any of its data is decoded. */
export interface VariableInfo {
  readonly name: string;
  readonly kind: VariableKind;
  /** MATLAB class ("double", "uint8", "cell", ...) or NumPy dtype ("<f8"). */
  readonly className: string;
  /** Dimensions as the writing program sees them: MATLAB [rows, cols, ...] or the NumPy shape. */
  readonly dims: readonly number[];
  readonly complex: boolean;
}

/** Numbers as a reader can hand them over without a conversion pass. */
export type NumericArray =
  | Float64Array
  | Float32Array
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array;

/**
 * Decoded values in column-major ("F", MATLAB) or row-major ("C", NumPy) order. The
 * array may be a view of the reader's buffer: it is converted to float64 while it is
 * rearranged into X, so a large variable is copied once.
 */
export interface ArrayValues {
  readonly data: NumericArray;
  readonly order: "F" | "C";
}

/** A variable whose data is decoded on demand (large unused variables are never decoded). */
export interface RawVariable extends VariableInfo {
  /** Numeric, logical or char-code values; throws DataFormatError for other kinds. */
  values(): ArrayValues;
  /** The strings of a char array (one per row) or of a cell array of strings/scalars, else null. */
  texts(): string[] | null;
}

/** Which file format a data set came from. */
export type DataFormat = "mat-v4" | "mat-v5" | "mat-v7.3" | "hdf5" | "csv" | "tsv" | "npy" | "idx";

/** How a data set was read: which variables or columns, and what was done to them. */
export interface DatasetInfo {
  /** The file name used in messages (a path, or the name given with a buffer). */
  file: string;
  format: DataFormat;
  /** Variable holding X (null for delimited text). */
  xVar: string | null;
  /** Variable or column holding y, e.g. "gnd", "data[:, end]" or "column 168". */
  yVar: string | null;
  /** True when the stored matrix had samples as columns and was transposed. */
  transposed: boolean;
  /** True when y came from a one-hot (indicator) matrix; labels are then column indices from 0. */
  oneHot: boolean;
  /** Column of the stored matrix or text that held the labels, when y was a column. */
  labelColumn?: number;
  /** Variables found in the file (MAT, HDF5, NPY). */
  variables?: VariableInfo[];
  /** MAT v5: whether variables were zlib-compressed; IDX: whether the file was gzip-compressed. */
  compressed?: boolean;
  /** Delimited text: the header row when there was one. */
  header?: string[];
  /**
   * Delimited text: how the header was detected (option header "auto"): "names" above
   * numbers, or pandas' "column-numbers" 0, 1, 2, ... (the guess a data row could
   * also fit); absent when the header option decided.
   */
  headerDetected?: "names" | "column-numbers";
  /** Delimited text: the delimiter used ("," "\t" ";" or " " for runs of whitespace). */
  delimiter?: string;
  /** Delimited text: the columns left out of X as `dropColumns` asked (0-based), e.g. Musk's names. */
  droppedColumns?: number[];
  /** The file the predefined test rows came from (see `LoadedDataset.predefinedTest`). */
  testFile?: string;
}

/** A loaded data set: X is samples x features (row-major float64), one label per row. */
export interface LoadedDataset {
  X: Matrix;
  y: Labels;
  info: DatasetInfo;
  /**
   * Rows of X (ascending) that form the data set's own test set, when it comes with
   * one (Fashion-MNIST); the other rows are its training set.
   */
  predefinedTest?: Int32Array;
}

/**
 * Whether the caller needs class labels. "required" (fit, evaluate, experiment): the
 * file must hold them, and they must look like classes. "optional" (new data to
 * embed with a fitted model): X is the whole data matrix unless a label column or
 * variable is named (or a label variable is found by its usual name), and y is empty
 * when there are none.
 */
export type LabelsNeed = "required" | "optional";

/** Options shared by every reader for choosing X and y. */
export interface VariableOptions {
  /** Whether labels are needed (default "required"); see {@link LabelsNeed}. */
  labels?: LabelsNeed;
  /** Name of the variable holding X (MAT, HDF5). */
  xVar?: string;
  /** Name of the variable holding y (MAT, HDF5). */
  yVar?: string;
  /**
   * Column of X holding the labels when there is no label variable: an index from 0
   * (negative counts from the end), "last" or "first". For text files also a header name.
   */
  labelColumn?: number | string;
  /** Force the orientation: true when the stored matrix has samples as columns. */
  transpose?: boolean;
}

/** The usual (X, y) variable pairs, in the order they are tried. */
export const KNOWN_PAIRS: readonly (readonly [string, string])[] = [
  ["fea", "gnd"],
  ["X", "Y"],
  ["X", "y"],
  ["x", "y"],
  ["data", "labels"],
  ["data", "label"],
  ["features", "labels"],
  ["feature", "label"],
  ["X", "labels"],
  ["X", "label"],
  ["fea", "label"],
];

function describeVar(v: VariableInfo): string {
  const cls = v.complex ? `complex ${v.className}` : v.className;
  return `'${v.name}' (${v.dims.join(" x ")} ${cls})`;
}

/** Number of elements of a dims list, or Infinity if it does not fit a safe integer. */
export function elementCount(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) {
    n *= d;
    if (n > Number.MAX_SAFE_INTEGER) return Number.POSITIVE_INFINITY;
  }
  return n;
}

/** Dimensions other than trailing singletons: [n, 1] -> [n], [n, d, 1] -> [n, d]. */
function squeezeTrailing(dims: readonly number[]): number[] {
  const out = [...dims];
  while (out.length > 2 && out[out.length - 1] === 1) out.pop();
  return out;
}

/** True when the variable is a vector (every dimension 1 except at most one). */
function isVector(v: VariableInfo): boolean {
  return v.dims.filter((d) => d !== 1).length <= 1;
}

function vectorLength(v: VariableInfo): number {
  return elementCount(v.dims);
}

function is2D(v: VariableInfo): boolean {
  return squeezeTrailing(v.dims).length <= 2;
}

function usableAsData(v: VariableInfo): boolean {
  return v.kind === "numeric" && !v.complex && is2D(v);
}

function usableAsLabels(v: VariableInfo): boolean {
  return (
    ((v.kind === "numeric" || v.kind === "logical") && !v.complex && is2D(v)) ||
    v.kind === "char" ||
    v.kind === "cell"
  );
}

function notUsableReason(v: VariableInfo, role: "data" | "labels"): string {
  if (v.complex) return `variable ${describeVar(v)} is complex; only real data can be used`;
  switch (v.kind) {
    case "sparse":
      return `variable ${describeVar(v)} is a sparse matrix; save it as a full (dense) matrix (MATLAB: full(${v.name}))`;
    case "cell":
      return `variable ${describeVar(v)} is a cell array; ${role === "data" ? "the data must be a numeric matrix (MATLAB: cell2mat)" : "only cell arrays of strings or scalars can be labels"}`;
    case "struct":
    case "object":
      return `variable ${describeVar(v)} is a ${v.kind}; name the numeric field's variable instead (save it as a top-level variable)`;
    case "char":
      return `variable ${describeVar(v)} is a char array; the data must be numeric`;
    case "logical":
      return `variable ${describeVar(v)} is a logical array; convert it to double if it really is the data (MATLAB: double(${v.name}))`;
    case "function":
    case "opaque":
    case "unknown":
      return `variable ${describeVar(v)} of class ${v.className} cannot be read as ${role}`;
    default:
      return `variable ${describeVar(v)} has ${v.dims.length} dimensions; ${role === "data" ? "the data must be a 2-D matrix" : "labels must be a vector or a one-hot matrix"}`;
  }
}

/** Row-major float64 copy of a rows x cols array given in either order. */
function toRowMajor(values: ArrayValues, rows: number, cols: number): Float64Array {
  const src = values.data;
  if (values.order === "C") return src instanceof Float64Array ? src : Float64Array.from(src);
  // Column-major is the row-major cols x rows transposed.
  const out = new Float64Array(rows * cols);
  transposeInto(src instanceof Float64Array ? src : Float64Array.from(src), cols, rows, out);
  return out;
}

/**
 * The rows and columns of the 2-D matrix a variable holds, from its header alone
 * (nothing decoded), or the reason it cannot be used in `role`.
 */
function matrixShape(
  file: string,
  v: VariableInfo,
  role: "data" | "labels" = "data",
): { rows: number; cols: number } {
  const usable = role === "data" ? usableAsData(v) : usableAsLabels(v) && v.kind !== "char";
  if (!usable || v.kind === "cell") throw new DataFormatError(file, notUsableReason(v, role));
  const dims = squeezeTrailing(v.dims);
  const rows = dims[0] ?? 1;
  const cols = dims.length > 1 ? dims[1] : 1;
  if (rows * cols === 0) {
    throw new DataFormatError(file, `variable '${v.name}' is empty (${v.dims.join(" x ")})`);
  }
  return { rows, cols };
}

/** The 2-D matrix held by a data variable, row-major, with MATLAB's dims. */
function readMatrix(file: string, v: RawVariable, role: "data" | "labels" = "data"): Matrix {
  const { rows, cols } = matrixShape(file, v, role);
  const values = v.values();
  if (values.data.length !== rows * cols) {
    throw new DataFormatError(
      file,
      `variable '${v.name}' declares ${rows} x ${cols} but holds ${values.data.length} values`,
    );
  }
  const M = new Matrix(rows, cols, toRowMajor(values, rows, cols));
  if (!(values.data instanceof Float64Array || values.data instanceof Float32Array)) {
    // Integer storage cannot hold NaN or infinity: skip the scan for X.
    integerSourced.add(M);
  }
  return M;
}

/** Matrices read from integer storage (and so finite), kept to skip a needless scan. */
const integerSourced = new WeakSet<Matrix>();

/** Like checkFinite, but free for matrices read from integer storage. */
function checkFiniteRead(file: string, source: Matrix, X: Matrix, what: string): void {
  if (!integerSourced.has(source)) checkFinite(file, X, what);
}

/** Throws a DataFormatError naming the first NaN or infinity of X (rows and columns from 0). */
export function checkFinite(file: string, X: Matrix, what: string): void {
  const d = X.data;
  for (let k = 0; k < d.length; k++) {
    const v = d[k];
    if (v - v !== 0) {
      const i = Math.floor(k / X.cols);
      const j = k % X.cols;
      throw new DataFormatError(
        file,
        `${what} contains ${v} at row ${i}, column ${j} (counting from 0); only finite numbers can be used (remove or impute missing values first)`,
      );
    }
  }
}

/**
 * Reads labels for a data matrix with `counts` = [rows, cols] (the sample count is
 * one of them). One-hot matrices are decoded in the orientation that fits.
 */
function readLabels(
  file: string,
  v: RawVariable,
  counts: readonly number[],
): { y: Labels; oneHot: boolean } {
  if (!usableAsLabels(v)) throw new DataFormatError(file, notUsableReason(v, "labels"));
  if (v.kind === "char" || v.kind === "cell") {
    const texts = v.texts();
    if (texts === null) throw new DataFormatError(file, notUsableReason(v, "labels"));
    // A char row vector is one string; as labels it means one character per sample.
    const items =
      v.kind === "char" && texts.length === 1 && counts.includes(texts[0].length)
        ? [...texts[0]]
        : texts.map((s) => s.trim());
    return {
      y: textLabels(file, items, (i) => `labels '${v.name}', sample ${i} (counting from 0)`),
      oneHot: false,
    };
  }
  if (isVector(v)) return { y: numericLabels(file, v.name, v.values().data), oneHot: false };
  const m = readMatrix(file, v, "labels");
  for (const n of counts) {
    const y = oneHotLabels(m, n);
    if (y) return { y, oneHot: true };
  }
  throw new DataFormatError(
    file,
    `labels '${v.name}' form a ${m.rows} x ${m.cols} matrix that is not a one-hot matrix for ${[...new Set(counts)].join(" or ")} samples (one 1 per sample, 0 or -1 elsewhere)`,
  );
}

/** Resolves a label column ("last", "first", an index, negative from the end) against a width. */
export function resolveLabelColumn(
  file: string,
  labelColumn: number | string | undefined,
  width: number,
  header?: readonly string[],
): number {
  if (labelColumn === undefined || labelColumn === "last") return width - 1;
  if (labelColumn === "first") return 0;
  if (typeof labelColumn === "string") {
    if (header) {
      const idx = header.indexOf(labelColumn);
      const again = header.indexOf(labelColumn, idx + 1);
      if (idx >= 0 && again >= 0) {
        throw new ValidationError(
          "labelColumn",
          `The label column '${labelColumn}' of ${file} is ambiguous: columns ${idx} and ${again} (counting from 0) are both named '${labelColumn}' in the header; give the column's index instead.`,
        );
      }
      if (idx >= 0) return idx;
    }
    if (/^-?\d+$/.test(labelColumn.trim())) {
      return resolveLabelColumn(file, Number(labelColumn.trim()), width, header);
    }
    throw new ValidationError(
      "labelColumn",
      `The label column '${labelColumn}' of ${file} is not a header name${header ? ` (the header has ${header.map((h) => `'${h}'`).join(", ")})` : " (the file has no header)"}, an index, 'first' or 'last'.`,
    );
  }
  if (!Number.isInteger(labelColumn) || labelColumn >= width || labelColumn < -width) {
    throw new ValidationError(
      "labelColumn",
      `The label column of ${file} must be an integer in [${-width}, ${width - 1}] (the data has ${width} columns). Got ${labelColumn} instead.`,
    );
  }
  return labelColumn < 0 ? width + labelColumn : labelColumn;
}

/** Splits a label column off a matrix of samples (rows). */
function splitLabelColumn(
  file: string,
  M: Matrix,
  name: string,
  labelColumn: number | string | undefined,
): { X: Matrix; y: number[]; column: number } {
  if (M.cols < 2) {
    throw new DataFormatError(
      file,
      `variable '${name}' has ${plural(M.cols, "column")}; with the labels in a column it needs at least 2`,
    );
  }
  const col = resolveLabelColumn(file, labelColumn, M.cols);
  const keep = new Int32Array(M.cols - 1);
  for (let j = 0, k = 0; j < M.cols; j++) if (j !== col) keep[k++] = j;
  const y = numericLabels(file, `${name}[:, ${col}]`, M.column(col));
  return { X: M.selectColumns(keep), y, column: col };
}

function lookup(file: string, vars: RawVariable[], name: string, option: string): RawVariable {
  const v = vars.find((u) => u.name === name);
  if (v) return v;
  const ci = vars.filter((u) => u.name.toLowerCase() === name.toLowerCase());
  const listing = vars.map(describeVar).join(", ") || "none";
  throw new ValidationError(
    option,
    `${file} has no variable '${name}'${ci.length === 1 ? ` (did you mean '${ci[0].name}'?)` : ""}. Variables: ${listing}.`,
  );
}

interface Choice {
  x: RawVariable;
  y: RawVariable | null;
}

/** Chooses X and y among the variables when the caller named neither. */
function chooseAutomatically(file: string, vars: RawVariable[]): Choice {
  const pairs = KNOWN_PAIRS.filter(
    ([xn, yn]) => vars.some((v) => v.name === xn) && vars.some((v) => v.name === yn),
  );
  if (pairs.length > 1) {
    throw new DataFormatError(
      file,
      `several (X, y) variable pairs are present: ${pairs.map(([a, b]) => `${a}/${b}`).join(", ")}; choose one with --x-var and --y-var (xVar/yVar)`,
    );
  }
  if (pairs.length === 1) {
    const [xn, yn] = pairs[0];
    return {
      x: vars.find((v) => v.name === xn) as RawVariable,
      y: vars.find((v) => v.name === yn) as RawVariable,
    };
  }
  const matrices = vars.filter((v) => usableAsData(v) && !isVector(v) && elementCount(v.dims) > 0);
  if (matrices.length === 0) {
    const all = vars.map(describeVar).join(", ") || "no variables";
    throw new DataFormatError(file, `no numeric 2-D variable to use as data (found ${all})`);
  }
  let x: RawVariable;
  if (matrices.length === 1) {
    x = matrices[0];
  } else {
    // Two matrices where one is a one-hot label matrix for the other: that is (X, Y).
    const found: Choice[] = [];
    for (const cand of matrices) {
      for (const lab of matrices) {
        if (lab === cand) continue;
        const dims = squeezeTrailing(cand.dims);
        const ld = squeezeTrailing(lab.dims);
        if (!ld.some((d) => d === dims[0] || d === dims[1])) continue;
        const m = readMatrix(file, lab, "labels");
        if (dims.some((n) => oneHotLabels(m, n) !== null)) found.push({ x: cand, y: lab });
      }
    }
    if (found.length === 1) return found[0];
    throw new DataFormatError(
      file,
      `cannot tell which variable is the data: candidates ${matrices.map(describeVar).join(", ")}; choose with --x-var (xVar)`,
    );
  }
  return {
    x,
    y: chooseLabelFor(
      file,
      x,
      vars.filter((v) => v !== x),
    ),
  };
}

/** The data variable `x` (read as `read`) alone, transposed when asked: no labels. */
function unlabelled(
  file: string,
  read: Matrix,
  x: RawVariable,
  transpose: boolean | undefined,
  base: Pick<DatasetInfo, "file" | "format" | "variables">,
): LoadedDataset {
  const M = transpose ? read.transpose() : read;
  checkFiniteRead(file, read, M, `variable '${x.name}'`);
  return {
    X: M,
    y: [],
    info: { ...base, xVar: x.name, yVar: null, transposed: transpose === true, oneHot: false },
  };
}

/**
 * Builds (X, y) from a file's variables: by name when given, else the usual pairs,
 * else the only data matrix and the only label vector that fits it, else a named
 * label column, or the last column of a matrix named `data` or of a .npy array.
 * Samples become rows. With `labels: "required"` (the default) the labels must look
 * like classes; with "optional", y is empty when no label variable or column is found.
 */
export function datasetFromVariables(
  file: string,
  format: DataFormat,
  variables: RawVariable[],
  options: VariableOptions = {},
  withoutLabels = false,
): LoadedDataset {
  const source = labelSource(options);
  const named = source.where === "named" ? source : undefined;
  const [yVar, labelColumn] = [named?.yVar, named?.labelColumn];
  const whole = withoutLabels || !labelsInDataFile(source);
  const vars = variables.filter((v) => v.name !== "" && !v.name.startsWith("#"));
  const infoVars: VariableInfo[] = vars.map((v) => ({
    name: v.name,
    kind: v.kind,
    className: v.className,
    dims: [...v.dims],
    complex: v.complex,
  }));
  const base = { file, format, variables: infoVars };
  if (format === "npy" && vars.length === 1) {
    const dims = squeezeTrailing(vars[0].dims);
    if (dims.length > 2) {
      throw new DataFormatError(
        file,
        `no numeric 2-D variable to use as data: it holds a ${vars[0].dims.length}-D array of shape (${vars[0].dims.join(", ")}); the data must be a 2-D array with one row per sample (in NumPy: X.reshape(len(X), -1))`,
      );
    }
    if (isVector(vars[0]) && !whole) {
      throw new DataFormatError(
        file,
        `no numeric 2-D variable to use as data: it holds a single column of ${elementCount(vars[0].dims)} values; the data must be a 2-D array with one row per sample and one column per feature${options.labels === "optional" ? "" : " (and the labels in its last column)"}`,
      );
    }
  }
  if (whole) {
    if (options.xVar === undefined) {
      throw new ValidationError("xVar", "Reading X without labels needs the name of its variable.");
    }
    const x = lookup(file, vars, options.xVar, "xVar");
    return unlabelled(file, readMatrix(file, x), x, options.transpose, base);
  }
  let choice: Choice;
  if (options.xVar !== undefined) {
    const x = lookup(file, vars, options.xVar, "xVar");
    if (!usableAsData(x)) throw new DataFormatError(file, notUsableReason(x, "data"));
    let y: RawVariable | null = null;
    if (yVar !== undefined) y = lookup(file, vars, yVar, "yVar");
    else if (labelColumn === undefined) {
      const pair = KNOWN_PAIRS.find(([xn, yn]) => xn === x.name && vars.some((v) => v.name === yn));
      if (pair) y = vars.find((v) => v.name === pair[1]) ?? null;
      else
        y = chooseLabelFor(
          file,
          x,
          vars.filter((v) => v !== x),
        );
    }
    choice = { x, y };
  } else if (yVar !== undefined) {
    const y = lookup(file, vars, yVar, "yVar");
    const n = y.kind === "char" ? y.dims[0] : vectorLength(y);
    const cands = vars.filter(
      (v) =>
        v !== y &&
        usableAsData(v) &&
        (squeezeTrailing(v.dims)[0] === n || squeezeTrailing(v.dims)[1] === n),
    );
    if (cands.length !== 1) {
      throw new DataFormatError(
        file,
        cands.length === 0
          ? `no numeric 2-D variable has ${n} rows or columns to match the labels '${y.name}'`
          : `cannot tell which variable is the data for labels '${y.name}': candidates ${cands.map(describeVar).join(", ")}; choose with --x-var (xVar)`,
      );
    }
    choice = { x: cands[0], y };
  } else {
    choice = chooseAutomatically(file, vars);
  }

  // Everything that can be refused from the variables' headers is refused before X,
  // which may be large, is decoded (or inflated): a missing label variable, a label
  // column beside a label variable, labels that do not fit.
  const required = options.labels !== "optional";
  const { rows: r, cols: c } = matrixShape(file, choice.x);
  if (choice.y === null) {
    if (labelColumn === undefined) {
      // A column of the data is taken for the labels only when one was named, or by the
      // two documented conventions: a MAT variable called `data` (Musk1) and a single
      // NPY array (a table, like CSV). Anything else would turn a feature into labels.
      const convention = choice.x.name.toLowerCase() === "data" || format === "npy";
      if (required && !convention) {
        throw new DataFormatError(
          file,
          `found the data '${choice.x.name}' but no label variable (variables: ${vars.map(describeVar).join(", ")}); name the labels with --y-var (yVar), or the column of '${choice.x.name}' that holds them with --label-col (labelColumn)`,
        );
      }
      if (!required) {
        return unlabelled(file, readMatrix(file, choice.x), choice.x, options.transpose, base);
      }
    }
    const read = readMatrix(file, choice.x);
    let M = read;
    let transposed = false;
    if (options.transpose) {
      M = M.transpose();
      transposed = true;
    }
    const split = splitLabelColumn(file, M, choice.x.name, labelColumn);
    checkFiniteRead(file, read, split.X, `variable '${choice.x.name}'`);
    const colName = split.column === M.cols - 1 ? "end" : String(split.column);
    const yName = `${choice.x.name}[:, ${colName}]`;
    if (required) {
      checkClassLabels(
        file,
        split.y,
        `the labels ${yName} (column ${split.column} of '${choice.x.name}', counting from 0)`,
        (i) => `sample ${i} (counting from 0)`,
        "Name the label variable with --y-var (yVar) or the label column with --label-col (labelColumn), or none if the data has no labels.",
      );
    }
    return {
      X: split.X,
      y: split.y,
      info: {
        ...base,
        xVar: choice.x.name,
        yVar: yName,
        transposed,
        oneHot: false,
        labelColumn: split.column,
      },
    };
  }

  if (labelColumn !== undefined) {
    throw new ValidationError(
      "labelColumn",
      `A label column was given, but ${file} has a label variable '${choice.y.name}'; use one or the other.`,
    );
  }
  const counts =
    options.transpose === true ? [c] : options.transpose === false ? [r] : r === c ? [r] : [r, c];
  const labels = readLabels(file, choice.y, counts);
  const n = labels.y.length;
  const transposed = options.transpose ?? (r !== n && c === n);
  if ((transposed ? c : r) !== n) {
    throw new DataFormatError(
      file,
      `the data '${choice.x.name}' is ${r} x ${c} but the labels '${choice.y.name}' give ${n} samples; neither the rows nor the columns match`,
    );
  }
  const read = readMatrix(file, choice.x);
  const M = transposed ? read.transpose() : read;
  checkFiniteRead(file, read, M, `variable '${choice.x.name}'`);
  if (required && !labels.oneHot) {
    checkClassLabels(
      file,
      labels.y,
      `the labels '${choice.y.name}'`,
      (i) => `sample ${i} (counting from 0)`,
      "Name the label variable with --y-var (yVar).",
    );
  }
  return {
    X: M,
    y: labels.y,
    info: {
      ...base,
      xVar: choice.x.name,
      yVar: choice.y.name,
      transposed,
      oneHot: labels.oneHot,
    },
  };
}

/** Picks the label variable for an explicitly named X among the other variables, or null. */
function chooseLabelFor(file: string, x: RawVariable, others: RawVariable[]): RawVariable | null {
  const dims = squeezeTrailing(x.dims);
  const cands = others.filter(
    (v) =>
      usableAsLabels(v) &&
      (isVector(v) || v.kind === "char") &&
      vectorLength(v) > 1 &&
      (vectorLength(v) === dims[0] ||
        vectorLength(v) === dims[1] ||
        (v.kind === "char" && (v.dims[0] === dims[0] || v.dims[0] === dims[1]))),
  );
  if (cands.length > 1) {
    throw new DataFormatError(
      file,
      `cannot tell which variable holds the labels of '${x.name}': candidates ${cands.map(describeVar).join(", ")}; choose with --y-var (yVar)`,
    );
  }
  return cands[0] ?? null;
}
