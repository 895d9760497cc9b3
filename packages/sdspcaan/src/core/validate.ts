/**
 * Input validation shared by every entry point. Errors name the argument, what is
 * allowed and what was given, never a silent NaN further down.
 */

import { ValidationError } from "./errors.js";
import { Matrix, type MatrixLike } from "./matrix.js";
import { checkOptionNames } from "./options.js";
import { plural } from "./plural.js";

/** A class label: any number or string. */
export type Label = number | string;

/** A value as a message quotes it: a string in quotes, an object by its kind. */
export function describeValue(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) return `an array of length ${value.length}`;
  if (value === null) return "null";
  if (typeof value === "bigint") return `${value}n (a BigInt)`;
  if (typeof value === "object") return `an object (${value.constructor?.name ?? "Object"})`;
  return String(value);
}

function isNumberTypedArray(data: object): boolean {
  return (
    ArrayBuffer.isView(data) && !(data instanceof BigInt64Array || data instanceof BigUint64Array)
  );
}

function firstNonFinite(data: ArrayLike<number>): number {
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    // v - v is NaN exactly when v is NaN or +-Infinity (or not a number at all).
    if (typeof v !== "number" || v - v !== 0) return i;
  }
  return -1;
}

/**
 * Converts and checks a data matrix: rectangular, numeric, finite, and at least
 * `minRows` rows. A Matrix is returned as is (not copied); callers never mutate it.
 */
export function asMatrix(
  value: MatrixLike,
  name = "X",
  { minRows = 1, minCols = 1 }: { minRows?: number; minCols?: number } = {},
): Matrix {
  let m: Matrix;
  if (value instanceof Matrix) {
    m = value;
  } else if (
    value !== null &&
    typeof value === "object" &&
    "data" in value &&
    "rows" in value &&
    "cols" in value &&
    typeof value.rows === "number"
  ) {
    const { rows, cols, data } = value as { rows: number; cols: number; data: ArrayLike<number> };
    if (!Number.isInteger(rows) || !Number.isInteger(cols) || rows < 0 || cols < 0) {
      throw new ValidationError(name, `${name} has an invalid shape ${rows} x ${cols}.`);
    }
    if (data === null || typeof data !== "object" || typeof data.length !== "number") {
      throw new ValidationError(
        name,
        `${name}.data must be an array (or typed array) of ${rows} x ${cols} numbers, row-major. Got ${describeValue(data)}.`,
      );
    }
    if (data.length !== rows * cols) {
      throw new ValidationError(
        name,
        `${name} declares ${rows} x ${cols} = ${rows * cols} entries but its data has ${data.length}.`,
      );
    }
    // Float64Array.from would turn null, "", " ", "0x10", true and [1] into numbers;
    // the array-of-rows form refuses them, and so does this one.
    // (A typed array of numbers converts exactly; its NaNs are found below.)
    if (!isNumberTypedArray(data)) {
      const bad = firstNonFinite(data);
      if (bad >= 0) throw notFinite(name, data[bad], Math.floor(bad / cols), bad % cols);
    }
    m = new Matrix(rows, cols, Float64Array.from(data));
  } else if (
    value !== null &&
    typeof value === "object" &&
    typeof (value as ArrayLike<unknown>).length === "number"
  ) {
    const rowsLike = value as ArrayLike<ArrayLike<number>>;
    const n = rowsLike.length;
    if (n === 0) {
      throw new ValidationError(
        name,
        minRows > 0
          ? `${name} is an empty array: it has no rows, and at least ${plural(minRows, "row")} (samples) ${minRows === 1 ? "is" : "are"} needed.`
          : `${name} is an empty array: it has no rows, so its number of columns is unknown; for no samples pass {rows: 0, cols, data: []} or a Matrix with 0 rows.`,
      );
    }
    const first = rowsLike[0];
    if (first === null || typeof first !== "object" || typeof first.length !== "number") {
      throw new ValidationError(
        name,
        `${name} must be a 2-D array (an array of rows of numbers) or a Matrix. Got a 1-D array; reshape it to one row per sample.`,
      );
    }
    const d = first.length;
    const out = new Matrix(n, d);
    for (let i = 0; i < n; i++) {
      const r = rowsLike[i];
      if (r === null || typeof r !== "object" || r.length !== d) {
        throw new ValidationError(
          name,
          `${name} must be rectangular: row 0 has ${d} entries, but row ${i} has ${r === null || typeof r !== "object" ? describeValue(r) : r.length}.`,
        );
      }
      const bad = firstNonFinite(r);
      if (bad >= 0) throw notFinite(name, r[bad], i, bad);
      out.data.set(r, i * d);
    }
    m = out;
  } else {
    throw new ValidationError(
      name,
      `${name} must be a Matrix, an array of rows, or {rows, cols, data}. Got ${describeValue(value)}.`,
    );
  }
  if (m.rows < minRows) {
    throw new ValidationError(
      name,
      `${name} must have at least ${plural(minRows, "row")} (samples). Got ${m.rows}.`,
    );
  }
  if (m.cols < minCols) {
    throw new ValidationError(
      name,
      `${name} must have at least ${plural(minCols, "column")} (features). Got ${m.cols}.`,
    );
  }
  const bad = firstNonFinite(m.data);
  if (bad >= 0) throw notFinite(name, m.data[bad], Math.floor(bad / m.cols), bad % m.cols);
  return m;
}

/** asMatrix's error for a value that is not a finite number at row i, column j. */
function notFinite(name: string, value: unknown, i: number, j: number): ValidationError {
  return new ValidationError(
    name,
    `${name} contains ${describeValue(value)} at row ${i}, column ${j}; only finite numbers are allowed (remove or impute missing values first).`,
  );
}

/** Encoded class labels: codes index into `classes` (sorted), `counts` per class. */
export interface EncodedLabels {
  /** Class index of each sample, in 0..classes.length-1. */
  readonly codes: Int32Array;
  /** The distinct labels in sorted order (numbers ascending, or strings by code unit). */
  readonly classes: readonly Label[];
  /** Number of samples of each class. */
  readonly counts: Int32Array;
}

/**
 * The options object of a call such as `fit(X, y, options)`: refused, naming the
 * argument, unless it is an object holding only the option `names`; a null or a
 * number would otherwise surface as a TypeError about one of its fields, and a
 * misspelt name would be ignored. `call` names the function as the user called it,
 * e.g. "PCA.fit".
 */
export function checkCallOptions<T extends object>(
  options: T,
  call: string,
  names: readonly string[],
  argument = "options",
): T {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    throw new ValidationError(
      argument,
      `The ${argument} of ${call} must be an object. Got ${describeValue(options)} instead.`,
    );
  }
  checkOptionNames(call, options, names);
  return options;
}

/**
 * A callback field of a call's options (`onProgress`, `onWarning`): absent, null or a
 * function; anything else is refused before the call does any work, not when it is
 * first called.
 */
export function checkCallbackOption(
  value: unknown,
  field: string,
  call: string,
  shape: string,
): void {
  if (value !== undefined && value !== null && typeof value !== "function") {
    throw new ValidationError(
      field,
      `The '${field}' option of ${call} must be a function ${shape}. Got ${describeValue(value)} instead.`,
    );
  }
}

/** The `signal` field of a call's options: absent, null or an AbortSignal (one that can cancel). */
export function checkSignalOption(value: unknown, call: string): void {
  if (
    value !== undefined &&
    value !== null &&
    (typeof value !== "object" || typeof (value as { aborted?: unknown }).aborted !== "boolean")
  ) {
    throw new ValidationError(
      "signal",
      `The 'signal' option of ${call} must be an AbortSignal. Got ${describeValue(value)} instead.`,
    );
  }
}

/** Sorts labels: numbers ascending, strings by UTF-16 code units. */
export function compareLabels(a: Label, b: Label): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/**
 * Checks and encodes a label vector of length `nSamples`. Labels are all numbers
 * or all strings; numbers must be finite.
 */
export function encodeLabels(y: ArrayLike<Label>, nSamples: number, name = "y"): EncodedLabels {
  if (y === null || typeof y !== "object" || typeof y.length !== "number") {
    throw new ValidationError(
      name,
      `${name} must be an array of class labels (numbers or strings). Got ${describeValue(y)}.`,
    );
  }
  if (y.length !== nSamples) {
    throw new ValidationError(
      name,
      `${name} has ${y.length} labels, but X has ${nSamples} rows; give one label per sample.`,
    );
  }
  let kind: "number" | "string" | null = null;
  for (let i = 0; i < y.length; i++) {
    const v = y[i];
    const t = typeof v;
    if (t !== "number" && t !== "string") {
      throw new ValidationError(
        name,
        `${name}[${i}] is ${describeValue(v)}; labels must be numbers or strings.`,
      );
    }
    if (t === "number" && !Number.isFinite(v)) {
      throw new ValidationError(name, `${name}[${i}] is ${v}; numeric labels must be finite.`);
    }
    if (kind === null) kind = t as "number" | "string";
    else if (kind !== t) {
      throw new ValidationError(
        name,
        `${name} mixes numbers and strings (${name}[${i}] is ${describeValue(v)}); use one type for all labels.`,
      );
    }
  }
  const index = new Map<Label, number>();
  for (let i = 0; i < y.length; i++) if (!index.has(y[i])) index.set(y[i], 0);
  const classes = [...index.keys()].sort(compareLabels);
  for (let k = 0; k < classes.length; k++) index.set(classes[k], k);
  const codes = new Int32Array(y.length);
  const counts = new Int32Array(classes.length);
  for (let i = 0; i < y.length; i++) {
    const k = index.get(y[i]) as number;
    codes[i] = k;
    counts[k]++;
  }
  return { codes, classes, counts };
}

/**
 * Refuses numeric labels that are not all integers: a continuous column taken for the
 * classes (scikit-learn refuses it as "Unknown label type: continuous"), which would
 * otherwise make nearly every sample a class of its own. Integers and text are class
 * labels, however many classes they make: a small training split may hold one sample
 * of most classes. `owner` is what needs classes ("SDSPCA", "Pipeline.fit").
 */
export function checkLabelType(labels: EncodedLabels, name: string, owner: string): void {
  const { classes, codes, counts } = labels;
  let fractional = 0;
  for (let k = 0; k < classes.length; k++) {
    if (typeof classes[k] === "number" && !Number.isInteger(classes[k])) fractional += counts[k];
  }
  if (fractional === 0) return;
  let first = 0;
  while (Number.isInteger(classes[codes[first]])) first++;
  throw new ValidationError(
    name,
    `${owner} needs class labels, integers or text, but ${name} does not look like them: ${name}[${first}] is ${classes[codes[first]]}, and ${fractional} of the ${codes.length} labels are not integers (a continuous column?).`,
  );
}

/**
 * Throws a ValidationError naming `name` unless A has `width` columns: "`name` has
 * A.cols `unit`, but `expected`." (`expected` says what the columns must match).
 */
export function checkWidth(
  A: Matrix,
  name: string,
  width: number,
  unit: "features" | "columns",
  expected: string,
): void {
  if (A.cols !== width) {
    throw new ValidationError(name, `${name} has ${A.cols} ${unit}, but ${expected}.`);
  }
}

/** Checks that `value` is an integer in [min, max]; `owner` names the estimator or function. */
export function checkInteger(
  owner: string,
  name: string,
  value: unknown,
  min: number,
  max = Number.POSITIVE_INFINITY,
  why = "",
): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ValidationError(
      name,
      `The '${name}' parameter of ${owner} must be an integer in [${min}, ${max === Number.POSITIVE_INFINITY ? "inf" : max}]${why ? ` ${why}` : ""}. Got ${describeValue(value)} instead.`,
    );
  }
  return value;
}

/**
 * Throws a ValidationError naming the parameter `name` of `owner` at the first entry
 * of A that is not a finite number (its row and column).
 */
export function checkFiniteEntries(owner: string, name: string, A: Matrix): void {
  const data = A.data;
  for (let t = 0; t < data.length; t++) {
    const v = data[t];
    if (v - v !== 0) {
      throw new ValidationError(
        name,
        `The '${name}' parameter of ${owner} must hold finite numbers only. Got ${v} at row ${Math.floor(t / A.cols)}, column ${t % A.cols} instead.`,
      );
    }
  }
}
