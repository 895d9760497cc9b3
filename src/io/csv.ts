/**
 * Delimited text: CSV, TSV, semicolon- or whitespace-separated, with or without a
 * header row, the label in a chosen column (the last by default). Columns that are
 * text in every row (identifiers such as the molecule and conformation names of
 * the UCI Musk `clean1.data`) are left out of X and reported; a column that mixes
 * numbers and text, or a missing value, is an error naming its row and column.
 */
import { parse } from "csv-parse/sync";
import { DataFormatError } from "../core/errors.js";
import { Matrix } from "../linalg/matrix.js";
import {
  isNumericString,
  type LoadedDataset,
  normalizeTextLabels,
  resolveLabelColumn,
} from "./variables.js";

/** Options for delimited text. */
export interface DelimitedOptions {
  /** Field delimiter; default from the extension (.tsv: tab) or sniffed. " " means runs of whitespace. */
  delimiter?: string;
  /** Whether the first row is a header; default: detected. */
  header?: boolean;
  /**
   * Label column: index from 0 (negative from the end), a header name, "first" or
   * "last" (default); "none" when the labels come from elsewhere (y is then empty).
   */
  labelColumn?: number | string;
}

/** Spellings of a missing value: reported as such rather than as a text column. */
const MISSING = new Set([
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
]);

function fail(file: string, problem: string): never {
  throw new DataFormatError(file, problem);
}

/** Picks the delimiter that splits the first lines into the same number (> 1) of fields. */
function sniffDelimiter(lines: string[]): string {
  for (const d of [",", "\t", ";"]) {
    const counts = lines.map((l) => l.split(d).length);
    if (counts[0] > 1 && counts.every((c) => c === counts[0])) return d;
  }
  const ws = lines.map((l) => l.trim().split(/\s+/).length);
  if (ws[0] > 1 && ws.every((c) => c === ws[0])) return " ";
  // Ragged first lines (e.g. quoted fields holding delimiters): fall back to the commonest.
  let best = ",";
  let bestCount = -1;
  for (const d of [",", "\t", ";"]) {
    const c = lines.reduce((s, l) => s + l.split(d).length - 1, 0);
    if (c > bestCount) {
      best = d;
      bestCount = c;
    }
  }
  return bestCount > 0 ? best : " ";
}

function splitRows(text: string, delimiter: string, file: string): string[][] {
  if (delimiter === " ") {
    return text
      .split(/\r?\n|\r/)
      .map((l) => l.trim())
      .filter((l) => l.length > 0)
      .map((l) => l.split(/\s+/));
  }
  try {
    return parse(text, {
      delimiter,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: false,
    }) as string[][];
  } catch (err) {
    fail(file, `not valid delimited text: ${(err as Error).message}`);
  }
}

/** Decodes a buffer as UTF-8 text, refusing binary content. */
export function decodeText(bytes: Uint8Array, file: string): string {
  if (bytes.includes(0)) {
    fail(file, "contains NUL bytes: this is a binary file, not delimited text");
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    fail(file, "is not valid UTF-8 text");
  }
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * Parses delimited text into (X, y). `format` is what to report ("csv" or "tsv");
 * the delimiter comes from the options, else from the format, else is sniffed.
 */
export function parseDelimited(
  input: string | Uint8Array,
  file: string,
  options: DelimitedOptions = {},
  format: "csv" | "tsv" = "csv",
): LoadedDataset {
  const text = typeof input === "string" ? input : decodeText(input, file);
  const firstLines = text
    .split(/\r?\n|\r/, 64)
    .filter((l) => l.trim().length > 0)
    .slice(0, 20);
  if (firstLines.length === 0) fail(file, "is empty");
  const delimiter = options.delimiter ?? (format === "tsv" ? "\t" : sniffDelimiter(firstLines));
  let rows = splitRows(text, delimiter, file);
  if (rows.length === 0) fail(file, "is empty");
  const width = rows[0].length;
  for (let i = 1; i < rows.length; i++) {
    if (rows[i].length !== width) {
      fail(file, `row ${i + 1} has ${rows[i].length} fields but row 1 has ${width}`);
    }
  }
  // A header row is text where the row below holds a number.
  const detected =
    rows.length > 1 &&
    rows[0].some((s, j) => !isNumericString(s) && isNumericString(rows[1][j] ?? ""));
  const hasHeader = options.header ?? detected;
  const header = hasHeader ? rows[0] : undefined;
  if (hasHeader) rows = rows.slice(1);
  const firstDataLine = hasHeader ? 2 : 1;
  if (rows.length === 0) fail(file, "has a header but no data rows");
  if (width < 2) {
    fail(
      file,
      `has ${width} column; the data needs at least one feature column and a label column`,
    );
  }
  // "none": the labels are elsewhere (loadDataset's labelsFile), every column is a feature.
  const labelCol =
    options.labelColumn === "none"
      ? -1
      : resolveLabelColumn(file, options.labelColumn, width, header);

  const featureCols: number[] = [];
  const dropped: number[] = [];
  for (let j = 0; j < width; j++) {
    if (j === labelCol) continue;
    let numeric = 0;
    let text = 0;
    let firstText = -1;
    for (let i = 0; i < rows.length; i++) {
      const s = rows[i][j];
      if (isNumericString(s)) numeric++;
      else if (!MISSING.has(s.toLowerCase())) {
        text++;
        if (firstText < 0) firstText = i;
      }
    }
    if (numeric === 0 && text > 0) {
      dropped.push(j);
    } else if (text > 0) {
      fail(
        file,
        `row ${firstText + firstDataLine} (data row ${firstText}), column ${j} (counting from 0): '${rows[firstText][j]}' is not a number, but the column holds numbers elsewhere`,
      );
    } else featureCols.push(j);
  }
  if (featureCols.length === 0) fail(file, "has no numeric feature columns");

  const n = rows.length;
  const d = featureCols.length;
  const X = new Matrix(n, d);
  for (let i = 0; i < n; i++) {
    const r = rows[i];
    const off = i * d;
    for (let k = 0; k < d; k++) {
      const s = r[featureCols[k]];
      if (!isNumericString(s)) {
        fail(
          file,
          `missing or non-finite value '${s}' at row ${i + firstDataLine} (data row ${i}), column ${featureCols[k]} (counting from 0); remove or impute missing values first`,
        );
      }
      const v = Number(s);
      if (!Number.isFinite(v)) {
        fail(
          file,
          `value '${s}' at row ${i + firstDataLine}, column ${featureCols[k]} overflows float64`,
        );
      }
      X.data[off + k] = v;
    }
  }
  const rawLabels = labelCol < 0 ? [] : rows.map((r) => r[labelCol]);
  const emptyAt = rawLabels.indexOf("");
  if (emptyAt >= 0) fail(file, `row ${emptyAt + firstDataLine} has an empty label`);
  const y = labelCol < 0 ? [] : normalizeTextLabels(rawLabels);
  return {
    X,
    y,
    info: {
      file,
      format,
      xVar: null,
      yVar: labelCol < 0 ? null : header ? header[labelCol] : `column ${labelCol}`,
      transposed: false,
      oneHot: false,
      ...(labelCol < 0 ? {} : { labelColumn: labelCol }),
      ...(header ? { header } : {}),
      delimiter,
      ...(dropped.length > 0 ? { droppedColumns: dropped } : {}),
    },
  };
}
