/**
 * Class labels as files write them: numbers, text, one-hot matrices; what counts as
 * a missing label or value; and the check that labels look like classes (not a
 * continuous column taken for labels by mistake). variables.ts uses these when it
 * finds y among a file's variables; the CSV reader uses them for a label column.
 */
import { DataFormatError } from "../core/errors.js";
import type { Matrix } from "../core/matrix.js";

const NUMERIC_STRING = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** True for a decimal number as written in text data ("3", "-1.5e3", "1." as in UCI files). */
export function isNumericString(s: string): boolean {
  return NUMERIC_STRING.test(s);
}

/** The labels of a data set: numbers when every label is numeric, else strings. */
export type Labels = number[] | string[];

/** Labels given as text become numbers when every one of them is a decimal number. */
export function normalizeTextLabels(labels: string[]): Labels {
  if (labels.length > 0 && labels.every((s) => isNumericString(s.trim()))) {
    return labels.map((s) => Number(s.trim()));
  }
  return labels;
}

/** Spellings of a missing or non-finite value in text data (compared in lower case). */
const MISSING_SPELLINGS = new Set([
  "",
  "?",
  "na",
  "n/a",
  "nan",
  "null",
  "none",
  "inf",
  "-inf",
  "+inf",
  "infinity",
  "-infinity",
  "+infinity",
]);

/** True for a text cell that stands for a missing (or infinite) value: "", "?", "NaN", "NA", ... */
export function isMissingSpelling(s: string): boolean {
  return MISSING_SPELLINGS.has(s.trim().toLowerCase());
}

/**
 * Spellings that mean "no label". "None" is not among them: it is a plausible class
 * name ("none", "mild", "severe"), and a numeric label column holding it is refused
 * anyway as a stray text label.
 */
const MISSING_LABELS = new Set(["", "?", "na", "n/a", "nan", "null"]);

/**
 * Labels read as text (a CSV column, a cell array, a labels file) as numbers when
 * they all are, else strings. A missing label ("", "?", "NaN", "NA", "null") is an
 * error, and so is a column of numeric labels with a stray text entry (a typo would
 * otherwise turn every label into text and add a class): `where(i)` names the row.
 */
export function textLabels(
  file: string,
  raw: readonly string[],
  where: (i: number) => string,
): Labels {
  const items = raw.map((s) => s.trim());
  const missing = items.findIndex((s) => MISSING_LABELS.has(s.toLowerCase()));
  if (missing >= 0) {
    throw new DataFormatError(
      file,
      `${where(missing)}: the label ${items[missing] === "" ? "is empty" : `'${items[missing]}' marks a missing value`}; every sample needs its class label (remove the sample or fill in its label)`,
    );
  }
  let numeric = 0;
  for (const s of items) if (isNumericString(s)) numeric++;
  if (numeric === items.length) return items.map(Number);
  if (numeric > 0) {
    const text = items.findIndex((s) => !isNumericString(s));
    throw new DataFormatError(
      file,
      `${where(text)}: the label '${items[text]}' is not a number, but ${numeric} of the ${items.length} labels are; class labels must be all numbers or all text (is it a typo or a missing value?)`,
    );
  }
  return items;
}

/**
 * Refuses labels that do not look like class labels, as when a continuous column is
 * taken for the labels: non-integer numbers, or most classes holding one sample
 * (every method that needs labels, and the 1-NN accuracy, need at least two samples
 * of a class for it to count). `where(i)` names sample i, `source` the labels.
 */
export function checkClassLabels(
  file: string,
  y: Labels,
  source: string,
  where: (i: number) => string,
  hint: string,
): void {
  const n = y.length;
  if (n === 0) return;
  if (typeof y[0] === "number") {
    const nums = y as number[];
    let fractional = 0;
    let first = -1;
    for (let i = 0; i < n; i++) {
      if (!Number.isInteger(nums[i])) {
        fractional++;
        if (first < 0) first = i;
      }
    }
    if (fractional > 0) {
      throw new DataFormatError(
        file,
        `${source} do not look like class labels: ${where(first)} holds ${nums[first]}, and ${fractional} of the ${n} labels are not integers (a continuous column?); class labels are integers or text. ${hint}`,
      );
    }
  }
  const counts = new Map<number | string, number>();
  for (const v of y) counts.set(v, (counts.get(v) ?? 0) + 1);
  if (counts.size === 1 && n > 1) {
    throw new DataFormatError(
      file,
      `${source} are all ${JSON.stringify(y[0])}: a single class, where classification needs at least two (a constant column?). ${hint}`,
    );
  }
  let single = 0;
  for (const c of counts.values()) if (c === 1) single++;
  // Two or three tiny classes are a legitimate toy data set; beyond that, a majority of
  // one-sample classes is what a continuous column gives.
  if (counts.size >= 4 && 2 * single > counts.size) {
    throw new DataFormatError(
      file,
      `${source} do not look like class labels: ${single} of the ${counts.size} classes among ${n} samples have a single sample (a continuous column?); each class needs at least two samples. ${hint}`,
    );
  }
}

/** Checks numeric labels and returns them as a plain array. */
export function numericLabels(file: string, name: string, data: ArrayLike<number>): number[] {
  const out = new Array<number>(data.length);
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    if (!Number.isFinite(v)) {
      throw new DataFormatError(
        file,
        `labels '${name}', sample ${i} (counting from 0): ${v} is not a class label (a missing label?); every sample needs its class label`,
      );
    }
    out[i] = v;
  }
  return out;
}

/**
 * Decodes a one-hot (indicator) matrix with `nSamples` samples: each sample has
 * exactly one entry equal to 1 and every other entry equal to 0 (or -1). Labels are
 * the column indices counted from 0, as NumPy's argmax gives them. Returns null when
 * the matrix is not one-hot in that orientation.
 */
export function oneHotLabels(m: Matrix, nSamples: number): number[] | null {
  const byColumns = m.rows !== nSamples;
  if (byColumns && m.cols !== nSamples) return null;
  const k = byColumns ? m.rows : m.cols;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const x of m.data) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  if (!((lo === 0 || lo === -1) && hi === 1)) return null;
  const y = new Array<number>(nSamples);
  for (let i = 0; i < nSamples; i++) {
    let hit = -1;
    for (let j = 0; j < k; j++) {
      const x = byColumns ? m.data[j * m.cols + i] : m.data[i * m.cols + j];
      if (x === hi) {
        if (hit >= 0) return null;
        hit = j;
      } else if (x !== lo) return null;
    }
    if (hit < 0) return null;
    y[i] = hit;
  }
  return y;
}
