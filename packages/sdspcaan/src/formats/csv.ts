/**
 * Delimited text: CSV, TSV, semicolon- or whitespace-separated, with or without a
 * header row, the label in a chosen column (the last by default when labels are
 * needed; none when they are optional). Read from bytes as they arrive
 * (`DelimitedReader`: push chunks, then finish), numbers parsed from the bytes into
 * the matrix, so memory is the matrix and not the text. Nothing is left out
 * silently: a column of text (identifiers such as the molecule names of the UCI Musk
 * `clean1.data`) is refused unless `dropColumns` names it; a column that mixes
 * numbers and text, a missing value ("", "?", "NaN", "NA", ...), a number written
 * with a decimal comma or thousands separators, or a missing label is an error
 * naming its row (the line of the file, counting from 1) and column.
 */
import { failDataFormat as fail, ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { optionNames } from "../core/options.js";
import { plural } from "../core/plural.js";
import { checkCallOptions } from "../core/validate.js";
import {
  asciiString,
  CELL_MISSING,
  CELL_NUMBER,
  cellKind,
  cellValue,
  type DecimalMark,
  isAscii,
  numberAt,
  numberNotationProblem,
} from "./csvCells.js";
import {
  BAD_MISSING,
  BAD_OVERFLOW,
  ColumnStats,
  columnsPhrase,
  IntList,
  resolveDropColumns,
  ValueStore,
} from "./csvColumns.js";
import { delimiterInText, detectHeader, sniffDelimiter } from "./csvSniff.js";
import { DelimitedTokenizer, type FieldSink } from "./csvTokenizer.js";
import { labelSource, labelsInDataFile } from "./labelSource.js";
import { maxBytesOf, type ReadLimits } from "./limits.js";
import {
  checkClassLabels,
  type LabelsNeed,
  type LoadedDataset,
  resolveLabelColumn,
  textLabels,
} from "./variables.js";

/** Options for delimited text. */
export interface DelimitedOptions extends ReadLimits {
  /**
   * Field delimiter, one ASCII character; default from the extension (.tsv: tab) or
   * sniffed. " " means runs of whitespace.
   */
  delimiter?: string;
  /**
   * Whether the first row is a header; default "auto": it is when it has text above
   * numbers (any numbers in it being column numbers), or is pandas' column numbers
   * 0, 1, 2, ... (after an empty cell over an index column). `info.headerDetected`
   * says when "auto" took it for one.
   */
  header?: boolean | "auto";
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
  /**
   * Columns left out of X (indices from 0, negative from the end, or header names),
   * such as identifiers. A column of text is refused unless it is named here.
   */
  dropColumns?: readonly (number | string)[];
  /** The decimal mark of the numbers: "." (default) or "," ("1,5"; fields then separated by ';' or tabs). */
  decimal?: DecimalMark;
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

/** Line breaks read before the delimiter is sniffed from the first lines. */
const SNIFF_LINES = 64;
/** ... or this many bytes (8 MiB), whichever comes first (a file of very long lines). */
const SNIFF_BYTES = 0x800000;
/** Bytes validated as UTF-8 at once (a decoded string per slice, never one of the whole file). */
const UTF8_SLICE = 1 << 20;

/** The names of {@link DelimitedOptions}. */
export const DELIMITED_OPTION_NAMES = optionNames<DelimitedOptions>({
  maxBytes: true,
  delimiter: true,
  header: true,
  labelColumn: true,
  labels: true,
  dropColumns: true,
  decimal: true,
});

function checkOptions(options: DelimitedOptions, call: string): void {
  checkCallOptions(options, call, DELIMITED_OPTION_NAMES);
  const d = options.delimiter;
  if (
    d !== undefined &&
    (typeof d !== "string" || d.length !== 1 || d.charCodeAt(0) > 0x7e || /["\r\n]/.test(d))
  ) {
    throw new ValidationError(
      "delimiter",
      `The delimiter must be one ASCII character other than a quote or a line break, or " " for runs of whitespace. Got ${JSON.stringify(d)} instead.`,
    );
  }
  if (options.decimal !== undefined && options.decimal !== "." && options.decimal !== ",") {
    throw new ValidationError(
      "decimal",
      `The decimal mark must be "." or ",". Got ${JSON.stringify(options.decimal)} instead.`,
    );
  }
  const h = options.header;
  if (h !== undefined && h !== true && h !== false && h !== "auto") {
    throw new ValidationError(
      "header",
      `header must be true, false or "auto". Got ${JSON.stringify(h)} instead.`,
    );
  }
}

/**
 * Reads delimited text from its bytes in chunks: `push` each chunk as it arrives (cut
 * anywhere; the chunk is not kept), then `finish` for the data set. The result does
 * not depend on where the chunks were cut; `parseDelimited` is one push of the whole
 * buffer. Memory: the matrix (twice, briefly, at the end), a number per row for its
 * line and label, and the first lines (to sniff the delimiter and the header).
 */
export class DelimitedReader implements FieldSink {
  private readonly file: string;
  private readonly options: DelimitedOptions;
  private readonly format: "csv" | "tsv";
  private readonly mark: DecimalMark;
  private readonly markByte: number;
  private readonly utf8 = new TextDecoder("utf-8", { fatal: true });
  /** Decodes fields: a U+FEFF inside the file is a character of its field, not a mark to drop. */
  private readonly text = new TextDecoder("utf-8", { ignoreBOM: true });
  private readonly maxBytes: number;

  // Before the delimiter is known: the first lines.
  private sniffing = true;
  private prefix: Uint8Array[] = [];
  private prefixBytes = 0;
  private breaks = 0;
  private prevCR = false;
  private tokenizer: DelimitedTokenizer | null = null;
  private delimiter = ",";

  // Rows: the first two as text until the header is decided, then cell by cell.
  private rows = 0;
  private width = -1;
  private fieldCount = 0;
  /** The first data row as text (for the single-row message). */
  private firstRow: string[] = [];
  private early: string[][] = [[]];
  private earlyLines: number[] = [];
  private decided = false;
  private header: string[] | undefined;
  private headerDetected: "names" | "column-numbers" | null = null;
  private labelCol = -1;
  private dropped: number[] = [];
  /** Per column of the file: its feature slot, LABEL or DROPPED. */
  private slotOf = new Int32Array(0);
  private features = 0;
  private stats = new ColumnStats(0);
  private values: ValueStore;
  private lines = new IntList();
  private labelIds = new IntList();
  private labelNames: string[] = [];
  private labelIndex = new Map<string, number>();
  /** Data rows so far (rows after the header). */
  private n = 0;

  constructor(file: string, options: DelimitedOptions = {}, format: "csv" | "tsv" = "csv") {
    checkOptions(options, "DelimitedReader");
    this.file = file;
    this.options = options;
    this.format = format;
    this.mark = options.decimal ?? ".";
    this.markByte = this.mark.charCodeAt(0);
    this.maxBytes = maxBytesOf(options);
    this.values = new ValueStore(file, this.maxBytes);
  }

  /**
   * The header decision once the first two rows have been read (null before): the
   * header row when there is one, and how "auto" detected it (null when the option decided).
   */
  get headerDecision(): {
    header: string[] | undefined;
    detected: "names" | "column-numbers" | null;
  } | null {
    return this.decided ? { header: this.header, detected: this.headerDetected } : null;
  }

  /** Reads the next bytes of the file. */
  push(chunk: Uint8Array): void {
    if (chunk.includes(0)) {
      fail(this.file, "contains NUL bytes: this is a binary file, not delimited text");
    }
    for (let at = 0; at < chunk.length; at += UTF8_SLICE) {
      try {
        this.utf8.decode(chunk.subarray(at, Math.min(chunk.length, at + UTF8_SLICE)), {
          stream: true,
        });
      } catch {
        fail(this.file, "is not valid UTF-8 text");
      }
    }
    if (!this.sniffing) {
      (this.tokenizer as DelimitedTokenizer).push(chunk);
      return;
    }
    // Only the first lines are kept (copied) for sniffing; the rest goes on as it is.
    let cut = Math.min(chunk.length, SNIFF_BYTES - this.prefixBytes);
    for (let i = 0; i < cut; i++) {
      const c = chunk[i];
      if (c === 0x0d || (c === 0x0a && !this.prevCR)) {
        if (++this.breaks === SNIFF_LINES) cut = i + 1;
      }
      this.prevCR = c === 0x0d;
    }
    this.prefix.push(chunk.slice(0, cut));
    this.prefixBytes += cut;
    if (this.breaks < SNIFF_LINES && this.prefixBytes < SNIFF_BYTES) return;
    this.startRows(false);
    (this.tokenizer as DelimitedTokenizer).push(chunk.subarray(cut));
  }

  /** The data set, once every byte has been pushed. */
  finish(): LoadedDataset {
    try {
      this.utf8.decode();
    } catch {
      fail(this.file, "is not valid UTF-8 text");
    }
    if (this.sniffing) this.startRows(true);
    // At least one row: a first line that is not blank is one (startRows checks there is one).
    (this.tokenizer as DelimitedTokenizer).finish();
    if (!this.decided) this.decide();
    return this.dataset();
  }

  /** Sniffs the delimiter from the first lines, then reads them as rows. */
  private startRows(ended: boolean): void {
    this.sniffing = false;
    let bytes: Uint8Array;
    if (this.prefix.length === 1) bytes = this.prefix[0];
    else {
      bytes = new Uint8Array(this.prefixBytes);
      let at = 0;
      for (const part of this.prefix) {
        bytes.set(part, at);
        at += part.length;
      }
    }
    this.prefix = [];
    // Byte order marks left in the text change no line's fields, and trim() drops them.
    const text = new TextDecoder("utf-8").decode(bytes);
    // Two byte order marks are skipped, as the previous reader did: TextDecoder dropped
    // one, and decodeText a second.
    let start = 0;
    while (
      start < 6 &&
      bytes[start] === 0xef &&
      bytes[start + 1] === 0xbb &&
      bytes[start + 2] === 0xbf
    ) {
      start += 3;
    }
    let lines = text.split(/\r?\n|\r/, SNIFF_LINES);
    // Cut off by the byte limit: the last line is incomplete.
    if (!ended && this.breaks < SNIFF_LINES && lines.length > 1) lines = lines.slice(0, -1);
    const firstLines = lines.filter((l) => l.trim().length > 0).slice(0, 20);
    if (firstLines.length === 0) fail(this.file, "is empty");
    this.delimiter =
      this.options.delimiter ??
      (this.format === "tsv" ? "\t" : sniffDelimiter(firstLines, this.mark));
    this.tokenizer = new DelimitedTokenizer(this.delimiter, this, this.file);
    this.tokenizer.push(bytes.subarray(start));
  }

  /** A field's text as csv-parse gave it: trimmed at the end unless quoted, "" unescaped. */
  private fieldText(buf: Uint8Array, s: number, e: number, quoted: boolean, escaped: boolean) {
    if (isAscii(buf, s, e)) {
      const t = asciiString(buf, s, e);
      return escaped ? t.replaceAll('""', '"') : t;
    }
    const t = this.text.decode(buf.subarray(s, e));
    return escaped ? t.replaceAll('""', '"') : quoted ? t : t.trimEnd();
  }

  field(buf: Uint8Array, s: number, e: number, quoted: boolean, escaped: boolean): void {
    const j = this.fieldCount++;
    if (!this.decided) {
      this.early[this.early.length - 1].push(this.fieldText(buf, s, e, quoted, escaped));
      return;
    }
    if (j >= this.width) return; // a ragged row, refused at its end
    const k = this.slotOf[j];
    if (k < LABEL) {
      const v = quoted ? Number.NaN : numberAt(buf, s, e, this.markByte);
      if (!Number.isNaN(v)) {
        this.number(k, v);
        return;
      }
      this.cell(k, this.fieldText(buf, s, e, quoted, escaped));
    } else if (k === LABEL) {
      this.label(this.fieldText(buf, s, e, quoted, escaped));
    }
  }

  endRow(line: number): void {
    const count = this.fieldCount;
    this.fieldCount = 0;
    if (this.width < 0) this.width = count;
    else if (count !== this.width) {
      const first = this.earlyLines[0];
      fail(
        this.file,
        `row ${line} has ${plural(count, "field")} but row ${first} has ${this.width}; every row needs the same number of columns`,
      );
    }
    this.rows++;
    if (!this.decided) {
      this.earlyLines.push(line);
      if (this.rows < 2) {
        this.early.push([]);
        return;
      }
      this.decide();
      return;
    }
    this.endDataRow(line);
  }

  private endDataRow(line: number): void {
    this.lines.push(line);
    this.n++;
  }

  /** Takes the header decision on the first two rows, then reads them as data. */
  private decide(): void {
    this.decided = true;
    const rows = this.early.slice(0, this.rows);
    const width = this.width;
    const option = this.options.header ?? "auto";
    this.headerDetected = option === "auto" ? detectHeader(rows, this.mark) : null;
    const hasHeader = option === "auto" ? this.headerDetected !== null : option;
    this.header = hasHeader ? rows[0] : undefined;
    const required = this.options.labels !== "optional";
    const source = labelSource(this.options);
    const column = source.where === "named" ? source.labelColumn : undefined;
    // Labels elsewhere (a labels file, "none"), or not needed and no column named: every
    // column is a feature. A y variable names nothing in a text file.
    this.labelCol =
      !labelsInDataFile(source) || (!required && column === undefined)
        ? -1
        : resolveLabelColumn(this.file, column, width, this.header);
    if (this.labelCol >= 0 && width < 2) {
      fail(
        this.file,
        `has ${width} column; the data needs at least one feature column and a label column`,
      );
    }
    this.dropped = resolveDropColumns(
      this.file,
      this.options.dropColumns,
      width,
      this.header,
      this.labelCol,
    );
    this.slotOf = new Int32Array(width);
    const dropped = new Set(this.dropped);
    for (let j = 0; j < width; j++) {
      this.slotOf[j] = j === this.labelCol ? LABEL : dropped.has(j) ? DROPPED : this.features++;
    }
    this.stats = new ColumnStats(this.features);
    if (this.header) {
      // pandas' unnamed index column: checked for the row numbers 0, 1, 2, ...
      for (let j = 0; j < width; j++) {
        const k = this.slotOf[j];
        if (k < LABEL && /^(|Unnamed: \d+)$/.test(this.header[j])) this.stats.rowIndex[k] = 1;
      }
    }
    this.early = [];
    this.firstRow = rows[hasHeader ? 1 : 0] ?? [];
    const lines = this.earlyLines;
    for (let i = hasHeader ? 1 : 0; i < rows.length; i++) {
      const row = rows[i];
      for (let j = 0; j < width; j++) {
        const k = this.slotOf[j];
        if (k < LABEL) this.cell(k, row[j]);
        else if (k === LABEL) this.label(row[j]);
      }
      this.endDataRow(lines[i]);
    }
  }

  /** A feature cell read as a number from its bytes. */
  private number(k: number, v: number): void {
    const st = this.stats;
    st.hasNumber[k] = 1;
    if (st.rowIndex[k] === 1 && v !== this.n) st.rowIndex[k] = 0;
    this.values.push(v);
  }

  /** A feature cell from its text. */
  private cell(k: number, s: string): void {
    const st = this.stats;
    const kind = cellKind(s, this.mark);
    if (kind === CELL_NUMBER) {
      const v = cellValue(s, this.mark);
      if (v === Number.POSITIVE_INFINITY || v === Number.NEGATIVE_INFINITY) {
        this.bad(k, BAD_OVERFLOW, s);
      }
      this.number(k, v);
      return;
    }
    st.rowIndex[k] = 0;
    this.values.push(Number.NaN);
    if (kind === CELL_MISSING) {
      this.bad(k, BAD_MISSING, s);
      return;
    }
    st.hasText[k] = 1;
    if (st.firstText[k] < 0) {
      st.firstText[k] = this.n;
      st.firstTextValue[k] = s;
    }
    if (st.notationRow[k] < 0) {
      const problem = numberNotationProblem(s, this.mark);
      if (problem !== null) {
        st.notationRow[k] = this.n;
        st.notation[k] = problem;
      }
    }
  }

  private bad(k: number, kind: number, s: string): void {
    const st = this.stats;
    if (st.badRow[k] >= 0) return;
    st.badRow[k] = this.n;
    st.badKind[k] = kind;
    st.badValue[k] = s;
  }

  private label(s: string): void {
    let id = this.labelIndex.get(s);
    if (id === undefined) {
      id = this.labelNames.length;
      this.labelNames.push(s);
      this.labelIndex.set(s, id);
    }
    this.labelIds.push(id);
  }

  private columnName(j: number): string {
    const h = this.header;
    return `column ${j} (counting from 0${h && h[j] !== "" ? `, '${h[j]}'` : ""})`;
  }

  private at(i: number, j: number): string {
    return `row ${this.lines.data[i]} (data row ${i}), ${this.columnName(j)}`;
  }

  /** The column checks, in column order, then X and y. */
  private dataset(): LoadedDataset {
    const { file, n, width, stats: st, header } = this;
    if (n === 0) fail(file, "has a header but no data rows");
    const textOnly: number[] = [];
    let numeric = false;
    for (let j = 0; j < width; j++) {
      const k = this.slotOf[j];
      if (k >= LABEL) continue;
      if (st.hasText[k] === 0) {
        numeric = true;
        continue;
      }
      // Numbers in a notation the reader does not guess at are named, not taken for text.
      if (st.notationRow[k] >= 0) fail(file, `${this.at(st.notationRow[k], j)}: ${st.notation[k]}`);
      if (st.hasNumber[k] === 1) {
        const i = st.firstText[k];
        fail(
          file,
          `${this.at(i, j)}: '${st.firstTextValue[k]}' is not a number, but the column holds numbers elsewhere`,
        );
      }
      textOnly.push(j);
    }
    if (!numeric) {
      fail(
        file,
        n === 1 && textOnly.length > 0
          ? `holds a single row, of text only (${this.firstRow.map((c) => `'${c}'`).join(", ")}): a header without data rows?`
          : "has no numeric feature columns",
      );
    }
    if (textOnly.length > 0) this.refuseText(textOnly);
    for (let j = 0; j < width; j++) {
      const k = this.slotOf[j];
      if (k < LABEL && st.rowIndex[k] === 1 && n >= 2) {
        fail(
          file,
          `${this.columnName(j)} has no name in the header and holds the row numbers 0 to ${n - 1}: it is the index pandas writes (DataFrame.to_csv without index=False), not a feature; leave it out with dropColumns: [${j}]`,
        );
      }
    }
    this.refuseBadValue();
    const X = new Matrix(n, this.features, this.values.take(n * this.features));
    const labelCol = this.labelCol;
    const where = (i: number) =>
      `row ${this.lines.data[i]} (data row ${i}), ${this.columnName(labelCol)}`;
    let y: number[] | string[] = [];
    if (labelCol >= 0) {
      const raw = new Array<string>(n);
      for (let i = 0; i < n; i++) raw[i] = this.labelNames[this.labelIds.data[i]];
      // A last column empty in every row is what a delimiter after each row's last field
      // leaves, not labels left out one by one.
      if (labelCol === width - 1 && this.labelNames.length === 1 && this.labelNames[0] === "") {
        fail(
          file,
          `${where(0)}: the label is empty, in every row: each row ends with a delimiter (${delimiterName(this.delimiter)}), the likely cause; remove the trailing delimiters, or name the label column with --label-col (labelColumn)`,
        );
      }
      y = textLabels(file, raw, where);
      if (this.options.labels !== "optional") {
        checkClassLabels(
          file,
          y,
          `the labels in ${this.columnName(labelCol)}`,
          where,
          "Say which column holds the labels with --label-col (labelColumn), or none if the data has no labels.",
        );
      }
    }
    return {
      X,
      y,
      info: {
        file,
        format: this.format,
        xVar: null,
        yVar: labelCol < 0 ? null : header ? header[labelCol] : `column ${labelCol}`,
        transposed: false,
        oneHot: false,
        ...(labelCol < 0 ? {} : { labelColumn: labelCol }),
        ...(header ? { header } : {}),
        ...(this.headerDetected !== null ? { headerDetected: this.headerDetected } : {}),
        delimiter: this.delimiter,
        ...(this.dropped.length > 0 ? { droppedColumns: this.dropped } : {}),
      },
    };
  }

  private refuseText(cols: number[]): never {
    const st = this.stats;
    const first = cols[0];
    const k = this.slotOf[first];
    const one = cols.length === 1;
    const what = `${columnsPhrase(cols, this.header)} hold${one ? "s" : ""} text, not numbers ('${st.firstTextValue[k]}' in row ${this.lines.data[st.firstText[k]]})`;
    const guessed = this.options.delimiter === undefined && this.format !== "tsv";
    // Numbers joined by another delimiter are a wrong guess, not text to leave out.
    const other = guessed ? delimiterInText(st.firstTextValue[k], this.delimiter, this.mark) : null;
    if (other !== null) {
      const cure =
        this.mark === "." && this.delimiter === ","
          ? `if the numbers have decimal commas, read the file with --decimal-comma (decimal: ","), whose fields are separated by ';' or tabs`
          : `give the delimiter (delimiter: ${JSON.stringify(other)})`;
      fail(
        this.file,
        `${what}: numbers separated by ${delimiterName(other)}, so the delimiter taken from the first lines (${delimiterName(this.delimiter)}) is likely wrong; ${cure}`,
      );
    }
    const source = labelSource(this.options);
    // Without labels needed (predict) any text column may be the labels; with them, a
    // named one may be (the label is taken from the last column unless named).
    const labelHint =
      labelsInDataFile(source) &&
      this.options.labelColumn === undefined &&
      (this.labelCol < 0 || cols.some((j) => this.header !== undefined && this.header[j] !== ""))
        ? ", or name the label column with labelColumn"
        : "";
    fail(
      this.file,
      `${what}; features must be numbers: leave ${one ? "it" : "them"} out with dropColumns: [${cols.join(", ")}]${labelHint}`,
    );
  }

  /** The first missing or overflowing value in row order, then column order. */
  private refuseBadValue(): void {
    const st = this.stats;
    let row = -1;
    let col = -1;
    for (let j = 0; j < this.width; j++) {
      const k = this.slotOf[j];
      if (k >= LABEL || st.badRow[k] < 0) continue;
      if (row < 0 || st.badRow[k] < row) {
        row = st.badRow[k];
        col = j;
      }
    }
    if (row < 0) return;
    const k = this.slotOf[col];
    const s = st.badValue[k];
    fail(
      this.file,
      st.badKind[k] === BAD_OVERFLOW
        ? `${this.at(row, col)}: value '${s}' overflows float64`
        : `${this.at(row, col)}: missing or non-finite value '${s}'; missing values are not accepted: remove or impute them first`,
    );
  }
}

/** A delimiter as messages name it. */
function delimiterName(d: string): string {
  return d === "\t" ? "tabs" : d === " " ? "whitespace" : `'${d}'`;
}

/** `slotOf` for the label column and the dropped ones (above every feature slot). */
const LABEL = 0x7ffffffe;
const DROPPED = 0x7fffffff;

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
  checkCallOptions(options, "parseDelimited", DELIMITED_OPTION_NAMES);
  const reader = new DelimitedReader(file, options, format);
  reader.push(typeof input === "string" ? new TextEncoder().encode(input) : input);
  return reader.finish();
}
