/**
 * The delimited-text reader as it was before the streaming one (csv-parse/sync on the
 * whole text), kept verbatim as the reference the streaming reader is compared with
 * (test/formats/csvStreaming.test.ts): the same data sets and messages where the two are
 * meant to agree. Not used by the packages.
 *
 * Delimited text: CSV, TSV, semicolon- or whitespace-separated, with or without a
 * header row, the label in a chosen column (the last by default when labels are
 * needed; none when they are optional). Columns that are text in every row
 * (identifiers such as the molecule and conformation names of the UCI Musk
 * `clean1.data`) are left out of X and reported; a column that mixes numbers and
 * text, a missing value ("", "?", "NaN", "NA", ...) or a missing label is an error
 * naming its row (the line of the file, counting from 1) and column.
 */
import { parse } from "csv-parse/sync";
import { failDataFormat as fail } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import {
  checkClassLabels,
  isMissingSpelling,
  isNumericString,
  type LabelsNeed,
  type LoadedDataset,
  resolveLabelColumn,
  textLabels,
} from "#internal/formats/variables.js";

/** Options for delimited text. */
export interface ReferenceOptions {
  /** Field delimiter; default from the extension (.tsv: tab) or sniffed. " " means runs of whitespace. */
  delimiter?: string;
  /** Whether the first row is a header; default: detected. */
  header?: boolean;
  /**
   * Label column: index from 0 (negative from the end), a header name, "first" or
   * "last" (default when labels are required); "none" when the labels come from
   * elsewhere (y is then empty).
   */
  labelColumn?: number | string;
  /**
   * "required" (default) or "optional": with "optional" and no labelColumn, every
   * column is a feature (new data to embed with a fitted model) and y is empty.
   */
  labels?: LabelsNeed;
}

/** A number with a decimal comma, as some locales write them ("1,5", "-0,25"). */
const DECIMAL_COMMA = /^[+-]?\d+,\d+$/;

/**
 * Picks the delimiter that splits the first lines into the same number (> 1) of
 * fields; when several do, the one giving the most fields ("1,5;2;1" is three
 * fields with decimal commas, not two).
 */
function sniffDelimiter(lines: string[]): string {
  let chosen: string | null = null;
  let most = 1;
  for (const d of [",", "\t", ";"]) {
    const counts = lines.map((l) => l.split(d).length);
    if (counts[0] > most && counts.every((c) => c === counts[0])) {
      chosen = d;
      most = counts[0];
    }
  }
  if (chosen !== null) return chosen;
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

/**
 * The rows of a text, with the 1-based line (as an editor shows it) where each
 * starts: messages call it the row, so blank lines and the header count.
 */
interface SplitText {
  readonly rows: string[][];
  readonly lines: number[];
}

function splitRows(text: string, delimiter: string, file: string): SplitText {
  const rows: string[][] = [];
  const lines: number[] = [];
  if (delimiter === " ") {
    text.split(/\r\n|\n|\r/).forEach((l, i) => {
      const t = l.trim();
      if (t.length === 0) return;
      rows.push(t.split(/\s+/));
      lines.push(i + 1);
    });
  } else {
    let records: Array<{ record: string[]; info: { lines: number } }>;
    try {
      records = parse(text, {
        delimiter,
        skip_empty_lines: true,
        trim: true,
        // Ragged rows are reported below, by line and with both field counts.
        relax_column_count: true,
        info: true,
      }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
    } catch (err) {
      fail(file, `not valid delimited text: ${(err as Error).message}`);
    }
    for (const { record, info } of records) {
      // info.lines is the line where the record ends; a quoted field may span lines.
      let breaks = 0;
      for (const f of record) breaks += (f.match(/\r\n|\n|\r/g) ?? []).length;
      rows.push(record);
      lines.push(info.lines - breaks);
    }
  }
  for (let i = 1; i < rows.length; i++) {
    if (rows[i].length !== rows[0].length) {
      fail(
        file,
        `row ${lines[i]} has ${rows[i].length} field${rows[i].length === 1 ? "" : "s"} but row ${lines[0]} has ${rows[0].length}; every row needs the same number of columns`,
      );
    }
  }
  return { rows, lines };
}

/**
 * True when the first row is a header: it has a text cell (not a number, not a
 * missing-value spelling such as "NaN", "" or "?") above a number in the second row,
 * and any numbers in it are column numbers (pandas names columns 0, 1, 2, ...: the
 * value minus the position is the same for all). A first row of data with a stray
 * text cell (or a missing value) is therefore never dropped as a header; it is
 * reported where it fails.
 */
function looksLikeHeader(rows: string[][]): boolean {
  if (rows.length < 2) return false;
  const [first, second] = rows;
  const textOverNumber = first.some(
    (s, j) => !isNumericString(s) && !isMissingSpelling(s) && isNumericString(second[j] ?? ""),
  );
  if (!textOverNumber) return false;
  let offset: number | null = null;
  for (let j = 0; j < first.length; j++) {
    if (!isNumericString(first[j])) continue;
    const v = Number(first[j]);
    if (!Number.isInteger(v) || v < 0 || (offset !== null && v - j !== offset)) return false;
    offset = v - j;
  }
  return true;
}

/** Decodes a buffer as UTF-8 text, refusing binary content. */
function decodeText(bytes: Uint8Array, file: string): string {
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
export function parseDelimitedReference(
  input: string | Uint8Array,
  file: string,
  options: ReferenceOptions = {},
  format: "csv" | "tsv" = "csv",
): LoadedDataset {
  const text = typeof input === "string" ? input : decodeText(input, file);
  const firstLines = text
    .split(/\r?\n|\r/, 64)
    .filter((l) => l.trim().length > 0)
    .slice(0, 20);
  if (firstLines.length === 0) fail(file, "is empty");
  const delimiter = options.delimiter ?? (format === "tsv" ? "\t" : sniffDelimiter(firstLines));
  const split = splitRows(text, delimiter, file);
  let { rows, lines } = split;
  if (rows.length === 0) fail(file, "is empty");
  const width = rows[0].length;
  const hasHeader = options.header ?? looksLikeHeader(rows);
  const header = hasHeader ? rows[0] : undefined;
  if (hasHeader) {
    rows = rows.slice(1);
    lines = lines.slice(1);
  }
  if (rows.length === 0) fail(file, "has a header but no data rows");
  const required = options.labels !== "optional";
  // "none": the labels are elsewhere (loadDataset's labelsFile); without labels needed
  // and none named, every column is a feature.
  const labelCol =
    options.labelColumn === "none" || (!required && options.labelColumn === undefined)
      ? -1
      : resolveLabelColumn(file, options.labelColumn, width, header);
  if (labelCol >= 0 && width < 2) {
    fail(
      file,
      `has ${width} column; the data needs at least one feature column and a label column`,
    );
  }
  const columnName = (j: number): string =>
    `column ${j} (counting from 0${header && header[j] !== "" ? `, '${header[j]}'` : ""})`;

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
      else if (!isMissingSpelling(s)) {
        text++;
        if (firstText < 0) firstText = i;
      }
    }
    if (numeric === 0 && text > 0) {
      // Numbers written with a decimal comma look like text; left out, they would
      // silently take a feature away.
      const comma = rows.findIndex((r) => DECIMAL_COMMA.test(r[j]));
      if (comma >= 0) {
        fail(
          file,
          `row ${lines[comma]} (data row ${comma}), ${columnName(j)}: '${rows[comma][j]}' is a number written with a decimal comma; write numbers with a decimal point (and separate fields with ',', ';' or tabs)`,
        );
      }
      dropped.push(j);
    } else if (text > 0) {
      fail(
        file,
        `row ${lines[firstText]} (data row ${firstText}), ${columnName(j)}: '${rows[firstText][j]}' is not a number, but the column holds numbers elsewhere`,
      );
    } else featureCols.push(j);
  }
  if (featureCols.length === 0) {
    fail(
      file,
      rows.length === 1
        ? `holds a single row, of text only (${rows[0].map((c) => `'${c}'`).join(", ")}): a header without data rows?`
        : "has no numeric feature columns",
    );
  }

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
          `row ${lines[i]} (data row ${i}), ${columnName(featureCols[k])}: missing or non-finite value '${s}'; missing values are not accepted: remove or impute them first`,
        );
      }
      const v = Number(s);
      if (!Number.isFinite(v)) {
        fail(
          file,
          `row ${lines[i]} (data row ${i}), ${columnName(featureCols[k])}: value '${s}' overflows float64`,
        );
      }
      X.data[off + k] = v;
    }
  }
  const where = (i: number) => `row ${lines[i]} (data row ${i}), ${columnName(labelCol)}`;
  const y =
    labelCol < 0
      ? []
      : textLabels(
          file,
          rows.map((r) => r[labelCol]),
          where,
        );
  if (labelCol >= 0 && required) {
    checkClassLabels(
      file,
      y,
      `the labels in ${columnName(labelCol)}`,
      where,
      "Say which column holds the labels with --label-col (labelColumn), or none if the data has no labels.",
    );
  }
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
