/**
 * The data elements of a level 5 MAT-file (matV5.ts reads the arrays and the file):
 * the tag and storage type numbers, one byte cursor in the file's byte order, the
 * error context naming file and variable, the element reader with its small-element
 * packing, and numeric values decoded as views or float64.
 */
import { DataFormatError } from "../core/errors.js";
import { plural } from "../core/plural.js";
import { type NumberKind, type NumberReader, numberReader } from "./binary.js";
import type { Inflater } from "./inflate.js";
import type { NumericArray } from "./variables.js";

export const mi = {
  INT8: 1,
  UINT8: 2,
  INT16: 3,
  UINT16: 4,
  INT32: 5,
  UINT32: 6,
  SINGLE: 7,
  DOUBLE: 9,
  INT64: 12,
  UINT64: 13,
  MATRIX: 14,
  COMPRESSED: 15,
  UTF8: 16,
  UTF16: 17,
  UTF32: 18,
} as const;

/**
 * A numeric storage type: bytes per value, its reader, and the typed array that views
 * it in the machine's byte order (none for 64-bit integers, which are converted).
 */
interface NumericType {
  readonly size: number;
  readonly read: NumberReader;
  readonly View:
    | (new (
        buffer: ArrayBufferLike,
        offset: number,
        length: number,
      ) => NumericArray)
    | null;
}

function numericType(kind: NumberKind, size: number, View: NumericType["View"]): NumericType {
  return { size, read: numberReader(kind, size), View };
}

/** The numeric storage types, by type number. */
export const NUMERIC: Readonly<Record<number, NumericType>> = {
  [mi.INT8]: numericType("i", 1, Int8Array),
  [mi.UINT8]: numericType("u", 1, Uint8Array),
  [mi.INT16]: numericType("i", 2, Int16Array),
  [mi.UINT16]: numericType("u", 2, Uint16Array),
  [mi.INT32]: numericType("i", 4, Int32Array),
  [mi.UINT32]: numericType("u", 4, Uint32Array),
  [mi.SINGLE]: numericType("f", 4, Float32Array),
  [mi.DOUBLE]: numericType("f", 8, Float64Array),
  [mi.INT64]: numericType("i", 8, null),
  [mi.UINT64]: numericType("u", 8, null),
};

const TYPE_NAMES: Record<number, string> = {
  1: "miINT8",
  2: "miUINT8",
  3: "miINT16",
  4: "miUINT16",
  5: "miINT32",
  6: "miUINT32",
  7: "miSINGLE",
  9: "miDOUBLE",
  12: "miINT64",
  13: "miUINT64",
  14: "miMATRIX",
  15: "miCOMPRESSED",
  16: "miUTF8",
  17: "miUTF16",
  18: "miUTF32",
};

const PLATFORM_LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Cells nested deeper than this are not followed (MATLAB itself stops far earlier). */
export const MAX_DEPTH = 32;

export function typeName(t: number): string {
  return TYPE_NAMES[t] ?? `unknown type ${t}`;
}

/** Byte-level access in the file's byte order. */
export class Bytes {
  readonly dv: DataView;
  constructor(
    readonly u8: Uint8Array,
    readonly le: boolean,
  ) {
    this.dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
  }
  u32(p: number): number {
    return this.dv.getUint32(p, this.le);
  }
  i32(p: number): number {
    return this.dv.getInt32(p, this.le);
  }
  u16(p: number): number {
    return this.dv.getUint16(p, this.le);
  }
}

export interface Ctx {
  file: string;
  maxBytes: number;
  inflater: Inflater;
}

/** A data element: its type, where its data starts and how many bytes it declares. */
export interface Element {
  type: number;
  start: number;
  nbytes: number;
  /** Position of the next element (after padding to 8 bytes). */
  next: number;
}

export function fail(ctx: Ctx, where: string, problem: string): never {
  throw new DataFormatError(ctx.file, where ? `${where}: ${problem}` : problem);
}

/**
 * The element whose tag is at `pos` (the small-data-element packing handled; `end`
 * bounds the data), or what is wrong with it, in words.
 */
export function elementAt(b: Bytes, pos: number, end: number): Element | string {
  if (end - pos < 8) {
    return `truncated data element: ${plural(end - pos, "byte")} left where an 8-byte tag is needed`;
  }
  const w0 = b.u32(pos);
  const small = w0 >>> 16;
  if (small !== 0) {
    // Small data element: byte count in the upper 16 bits, data in the tag's second word.
    if (small > 4) return `small data element declares ${small} bytes (at most 4 fit)`;
    return { type: w0 & 0xffff, start: pos + 4, nbytes: small, next: pos + 8 };
  }
  const nbytes = b.u32(pos + 4);
  const avail = end - pos - 8;
  if (nbytes > avail) {
    return `${typeName(w0)} element declares ${nbytes} bytes but only ${avail} remain (the file is truncated or corrupt)`;
  }
  const padded = pos + 8 + Math.ceil(nbytes / 8) * 8;
  return { type: w0, start: pos + 8, nbytes, next: Math.min(padded, end) };
}

/** `elementAt`, failing with a DataFormatError naming the file and `where`. */
export function readElement(b: Bytes, pos: number, end: number, ctx: Ctx, where: string): Element {
  const el = elementAt(b, pos, end);
  if (typeof el === "string") fail(ctx, where, el);
  return el;
}

/**
 * The `count` values of a numeric storage type at `start`. In the machine's byte
 * order this is a view of the bytes (copied only when misaligned); 64-bit integers
 * and the other byte order are converted to float64 here.
 */
export function decodeNumeric(b: Bytes, start: number, count: number, type: number): NumericArray {
  const { size, read, View } = NUMERIC[type];
  const { u8, dv, le } = b;
  if (View !== null && (size === 1 || le === PLATFORM_LE)) {
    const abs = u8.byteOffset + start;
    if (abs % size === 0) return new View(u8.buffer, abs, count);
    // Copied with `set`, not `slice`: a Node Buffer's slice is a view of its (pooled)
    // ArrayBuffer, whose `.buffer` would start at the pool's first byte.
    const copy = new Uint8Array(count * size);
    copy.set(u8.subarray(start, start + count * size));
    return new View(copy.buffer, 0, count);
  }
  const out = new Float64Array(count);
  for (let i = 0, p = start; i < count; i++, p += size) out[i] = read(dv, p, le);
  return out;
}
