/**
 * What the delimited reader keeps per column while the rows stream past, and the
 * decisions it takes once they have all been read: which columns are features,
 * which are refused (text, numbers in a notation it does not guess at, pandas' row
 * index) and the first missing or overflowing value. Only the numbers themselves
 * are kept for every row (in `ValueStore`); per column, a few counters and the first
 * cell of each kind, so the messages name the row of the file and the column.
 */
import { failDataFormat as fail, ValidationError } from "../core/errors.js";
import { formatBytes } from "./limits.js";

/** Doubles per block once the store is large (8 MiB). */
const BLOCK = 1 << 20;

/**
 * The numbers of the feature columns, row after row, in blocks: growing never
 * copies what was read, and the matrix is one copy of the blocks at the end, so the
 * peak is about twice the matrix.
 */
export class ValueStore {
  private readonly blocks: Float64Array[] = [];
  private current: Float64Array;
  private used = 0;
  private stored = 0;
  private readonly maxValues: number;
  private readonly file: string;
  private readonly maxBytes: number;

  constructor(file: string, maxBytes: number) {
    this.file = file;
    this.maxBytes = maxBytes;
    this.maxValues = Math.floor(maxBytes / 8);
    this.current = new Float64Array(Math.min(1024, this.maxValues));
  }

  push(v: number): void {
    if (this.used === this.current.length) this.grow();
    this.current[this.used++] = v;
  }

  private grow(): void {
    if (this.stored + this.used >= this.maxValues) {
      fail(
        this.file,
        `its numbers take more than ${formatBytes(this.maxBytes)} as float64, the limit on one buffer (maxBytes)`,
      );
    }
    if (this.current.length < BLOCK) {
      // Small data: one array, doubled (its few values copied) up to a block's size.
      const next = new Float64Array(Math.min(this.current.length * 2, this.maxValues));
      next.set(this.current);
      this.current = next;
      return;
    }
    this.blocks.push(this.current);
    this.stored += this.used;
    this.used = 0;
    this.current = new Float64Array(Math.min(BLOCK, this.maxValues - this.stored));
  }

  /** The first `count` values as one array (the store is not used afterwards). */
  take(count: number): Float64Array {
    if (this.blocks.length === 0 && this.current.length === count) return this.current;
    const out = new Float64Array(count);
    let at = 0;
    for (let b = 0; b < this.blocks.length; b++) {
      out.set(this.blocks[b], at);
      at += this.blocks[b].length;
      // Dropped as soon as copied, so that the collector may reclaim it meanwhile.
      this.blocks[b] = new Float64Array(0);
    }
    out.set(this.current.subarray(0, count - at), at);
    return out;
  }
}

/** A growing Int32Array (row lines, label ids). */
export class IntList {
  data = new Int32Array(256);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/** A missing value, or a number too large for float64. */
export const BAD_MISSING = 0;
export const BAD_OVERFLOW = 1;

/** Per feature column: what its cells were, and where each kind was first seen. */
export class ColumnStats {
  readonly hasNumber: Uint8Array;
  readonly hasText: Uint8Array;
  /** Data row (from 0) of the first text cell, -1 when none; its text. */
  readonly firstText: Float64Array;
  readonly firstTextValue: string[];
  /** Data row of the first number in a notation the reader refuses, and why. */
  readonly notationRow: Float64Array;
  readonly notation: string[];
  /** Data row of the first missing or overflowing value, its kind and text. */
  readonly badRow: Float64Array;
  readonly badKind: Uint8Array;
  readonly badValue: string[];
  /** 1 while every value of the column equals its data row (pandas' index). */
  readonly rowIndex: Uint8Array;

  constructor(count: number) {
    this.hasNumber = new Uint8Array(count);
    this.hasText = new Uint8Array(count);
    this.firstText = new Float64Array(count).fill(-1);
    this.firstTextValue = new Array<string>(count).fill("");
    this.notationRow = new Float64Array(count).fill(-1);
    this.notation = new Array<string>(count).fill("");
    this.badRow = new Float64Array(count).fill(-1);
    this.badKind = new Uint8Array(count);
    this.badValue = new Array<string>(count).fill("");
    this.rowIndex = new Uint8Array(count);
  }
}

/** Resolves one column given by index (negative from the end) or header name. */
function resolveColumn(
  file: string,
  argument: string,
  what: string,
  col: number | string,
  width: number,
  header: readonly string[] | undefined,
): number {
  if (typeof col === "string") {
    const idx = header ? header.indexOf(col) : -1;
    if (idx >= 0) {
      const again = (header as readonly string[]).indexOf(col, idx + 1);
      if (again >= 0) {
        throw new ValidationError(
          argument,
          `The ${what} '${col}' of ${file} is ambiguous: columns ${idx} and ${again} (counting from 0) are both named '${col}' in the header; give the column's index instead.`,
        );
      }
      return idx;
    }
    if (/^-?\d+$/.test(col.trim())) {
      return resolveColumn(file, argument, what, Number(col.trim()), width, header);
    }
    throw new ValidationError(
      argument,
      `The ${what} '${col}' of ${file} is not a header name${header ? ` (the header has ${header.map((h) => `'${h}'`).join(", ")})` : " (the file has no header)"} or a column index.`,
    );
  }
  if (!Number.isInteger(col) || col >= width || col < -width) {
    throw new ValidationError(
      argument,
      `The ${what} of ${file} must be an integer in [${-width}, ${width - 1}] (the data has ${width} columns). Got ${col} instead.`,
    );
  }
  return col < 0 ? width + col : col;
}

/** The columns `dropColumns` names, sorted and without repeats; never the label column. */
export function resolveDropColumns(
  file: string,
  drop: readonly (number | string)[] | undefined,
  width: number,
  header: readonly string[] | undefined,
  labelCol: number,
): number[] {
  if (drop === undefined) return [];
  if (!Array.isArray(drop)) {
    throw new ValidationError(
      "dropColumns",
      `dropColumns must be a list of column indices or header names. Got ${JSON.stringify(drop)} instead.`,
    );
  }
  const out = new Set<number>();
  for (const col of drop) {
    const j = resolveColumn(file, "dropColumns", "column to drop", col, width, header);
    if (j === labelCol) {
      throw new ValidationError(
        "dropColumns",
        `Column ${j} of ${file} (counting from 0) is the label column; it cannot also be dropped (--drop-columns, dropColumns).`,
      );
    }
    out.add(j);
  }
  return [...out].sort((a, b) => a - b);
}

/** "columns 0 ('a'), 1 ('b') (counting from 0)" for a list of columns. */
export function columnsPhrase(cols: readonly number[], header: readonly string[] | undefined) {
  const named = cols.map((j) => (header && header[j] !== "" ? `${j} ('${header[j]}')` : `${j}`));
  return `column${cols.length === 1 ? "" : "s"} ${named.join(", ")} (counting from 0)`;
}
