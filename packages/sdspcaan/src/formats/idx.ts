/**
 * IDX files, the format of MNIST and its relatives (Fashion-MNIST, KMNIST, EMNIST):
 * two zero bytes, a type byte, the number of dimensions, the dimension sizes as
 * big-endian uint32, then the values in row-major order, big-endian. The files are
 * usually distributed gzip-compressed (`train-images-idx3-ubyte.gz`); both forms are
 * read. An idx3 image file (n x h x w) becomes n rows of h * w values; an idx1 file
 * is a vector (labels).
 *
 * Sizes are checked before anything is allocated: the declared shape against the
 * bytes present (exactly: trailing bytes are an error too, as NumPy's reader would
 * not notice them but a truncated or concatenated download is worth reporting), and
 * the float64 result and the decompressed stream against `maxBytes`.
 *
 * Gunzipping goes through the caller's inflater, as MAT v5's zlib streams do
 * (inflate.ts): node:zlib in Node, `DecompressionStream` in browsers, where the
 * whole file is inflated ahead (`gunzippedAhead`) and the synchronous reader runs on
 * the result with the same messages.
 */
import { DataFormatError, failDataFormat as fail } from "../core/errors.js";
import { type NumberKind, numberReader } from "./binary.js";
import { baseName } from "./fileNames.js";
import {
  type AsyncInflate,
  InflateError,
  type Inflater,
  inflaterAhead,
  noInflater,
} from "./inflate.js";
import {
  checkFloat64Size,
  deflateBound,
  exactCount,
  formatBytes,
  maxBytesOf,
  type ReadLimits,
} from "./limits.js";
import { elementCount, type Labels, type RawVariable } from "./variables.js";

/** IDX element types: code, name, bytes per value and storage kind. */
const TYPES: ReadonlyMap<number, { name: string; size: number; kind: NumberKind }> = new Map([
  [0x08, { name: "uint8", size: 1, kind: "u" }],
  [0x09, { name: "int8", size: 1, kind: "i" }],
  [0x0b, { name: "int16", size: 2, kind: "i" }],
  [0x0c, { name: "int32", size: 4, kind: "i" }],
  [0x0d, { name: "float32", size: 4, kind: "f" }],
  [0x0e, { name: "float64", size: 8, kind: "f" }],
]);

/** A decoded IDX array: float64 values in row-major order with the declared shape. */
export interface IdxArray {
  /** "uint8", "int8", "int16", "int32", "float32" or "float64". */
  readonly type: string;
  readonly shape: readonly number[];
  readonly data: Float64Array;
  /** Whether the file was gzip-compressed. */
  readonly compressed: boolean;
}

interface IdxHeader {
  type: string;
  size: number;
  kind: NumberKind;
  shape: number[];
  dataStart: number;
}

export function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/** MNIST-style names: `*.idx3`, `*.idx1-ubyte`, `train-images-idx3-ubyte(.gz)`. */
export function hasIdxName(file: string): boolean {
  const name = baseName(file).toLowerCase().replace(/\.gz$/, "");
  return /\.idx\d?$/.test(name) || /-ubyte$/.test(name) || /idx\d-/.test(name);
}

/**
 * True when the (decompressed) bytes start like an IDX file: two zero bytes, a known
 * type code and 1 to 4 dimensions. (Four bytes are a weak signature, so
 * `detectFormat` asks for it only after the stronger magic numbers have been ruled
 * out.)
 */
export function looksLikeIdxHeader(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 &&
    bytes[0] === 0 &&
    bytes[1] === 0 &&
    TYPES.has(bytes[2]) &&
    bytes[3] >= 1 &&
    bytes[3] <= 4
  );
}

/**
 * The most a gzip file of this size may inflate to: the maxBytes limit, or what
 * deflate can encode in this many bytes (beyond that the stream is corrupt).
 */
function gunzipBound(bytes: Uint8Array, maxBytes: number): number {
  return Math.min(maxBytes, deflateBound(bytes.length));
}

/**
 * The size a file inside a gzip stream declares in its header, read from the
 * stream's first inflated bytes `head` (and checked against the limits, throwing
 * naming the file), or null when `head` does not hold such a header.
 */
export type DeclaredSize = (head: Uint8Array) => number | null;

/** Compressed bytes inflated to read a header: IDX needs 20, an .npy header rarely passes 1 KiB. */
const PEEK_INPUT = 4096;

/** The output bound of a peek: all that PEEK_INPUT bytes can give, so zlib never stops it short. */
const PEEK_OUTPUT = deflateBound(PEEK_INPUT);

/** The IDX file's declared size from its first bytes (see {@link DeclaredSize}). */
export function idxDeclaredSize(head: Uint8Array, file: string, maxBytes: number): number | null {
  if (!looksLikeIdxHeader(head) || head.length < 4 + 4 * head[3]) return null;
  const h = parseHeader(head, file);
  checkFloat64Size(exactCount(h.shape), maxBytes, shapeText(h), (problem) => fail(file, problem));
  return h.dataStart + elementCount(h.shape) * h.size;
}

/**
 * The file's bytes, inflated when gzip-compressed. The header inside is read from
 * the stream's first bytes when the inflater can (`gunzipPrefix`), so a declared
 * size past the limit is refused before inflating and the stream is inflated to
 * exactly that size; otherwise to at most the maxBytes limit.
 */
export function gunzipped(
  bytes: Uint8Array,
  file: string,
  maxBytes: number,
  inflater: Inflater,
  declaredSize: DeclaredSize = (head) => idxDeclaredSize(head, file, maxBytes),
) {
  if (!isGzip(bytes)) return bytes;
  const bound = gunzipBound(bytes, maxBytes);
  const head = inflater.gunzipPrefix?.(bytes.subarray(0, PEEK_INPUT), PEEK_OUTPUT) ?? null;
  const declared = head === null ? null : declaredSize(head);
  if (declared !== null && declared > bound) {
    fail(
      file,
      `declares ${declared} bytes inside its gzip stream, ${bound === maxBytes ? `more than the ${formatBytes(maxBytes)} limit (maxBytes)` : `more than deflate can encode in ${bytes.length} bytes: corrupt`}`,
    );
  }
  const cap = declared ?? bound;
  try {
    return inflater.gunzip(bytes, cap);
  } catch (err) {
    if (!(err instanceof InflateError)) throw err;
    if (err.reason === "too-large") {
      fail(
        file,
        declared !== null
          ? `the gzip stream holds more than the ${declared} bytes its header declares`
          : `the gzip stream inflates to more than ${formatBytes(cap)}${cap === maxBytes ? " (the maxBytes limit)" : " (beyond what deflate can encode in this many bytes: corrupt)"}`,
      );
    }
    if (err.reason === "truncated") fail(file, "the gzip stream is truncated");
    fail(file, `corrupt gzip stream (${err.message})`);
  }
}

/**
 * Output inflated ahead past a declared size: zlib reports a corrupt or truncated
 * stream before the size bound when it meets both in one step (16 KiB of output),
 * so the inflation ahead must see that far to report the same.
 */
const AHEAD_SLACK = 64 * 1024;

/**
 * An inflater for reading `bytes` synchronously: `inflation` itself when it is one
 * (node:zlib), else a gzip file inflated ahead with the asynchronous inflater (a
 * browser's `DecompressionStream`), bounded as the synchronous reader bounds it: the
 * stream's start is inflated first, for the declared size, then (unless that size
 * is refused) the whole stream to about that size.
 */
export async function gunzippedAhead(
  bytes: Uint8Array,
  file: string,
  limits: ReadLimits | undefined,
  inflation: Inflater | AsyncInflate,
  declaredSize: DeclaredSize = (head) => idxDeclaredSize(head, file, maxBytesOf(limits)),
): Promise<Inflater> {
  const maxBytes = maxBytesOf(limits);
  if (typeof inflation !== "function") return inflation;
  const ahead = inflaterAhead(inflation);
  if (!isGzip(bytes)) return ahead.inflater;
  const head = await ahead.add(bytes, PEEK_OUTPUT, "gzip");
  // A stream that ended or broke within the start is all there is.
  if (head.failure?.reason !== "too-large") return ahead.inflater;
  let declared: number | null;
  try {
    declared = declaredSize(head.output);
  } catch (err) {
    // Refused from the header alone (the reader says so again): nothing more is needed.
    if (!(err instanceof DataFormatError)) throw err;
    return ahead.inflater;
  }
  const bound = gunzipBound(bytes, maxBytes);
  // Past the bound the reader refuses the header too.
  if (declared !== null && declared > bound) return ahead.inflater;
  const cap = declared === null ? bound : Math.min(bound, declared + AHEAD_SLACK);
  if (cap > PEEK_OUTPUT) await ahead.add(bytes, cap, "gzip");
  return ahead.inflater;
}

function parseHeader(bytes: Uint8Array, file: string): IdxHeader {
  if (bytes.length < 4) {
    fail(file, `${bytes.length} bytes is too short for an IDX file (the magic number alone is 4)`);
  }
  if (bytes[0] !== 0 || bytes[1] !== 0) {
    fail(
      file,
      `not an IDX file: the magic number must start with two zero bytes, got 0x${hex(bytes[0])}${hex(bytes[1])}`,
    );
  }
  const t = TYPES.get(bytes[2]);
  if (!t) {
    fail(
      file,
      `unknown IDX element type 0x${hex(bytes[2])} (known: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64)`,
    );
  }
  const nd = bytes[3];
  if (nd < 1 || nd > 4) fail(file, `IDX files with ${nd} dimensions are not supported (1 to 4)`);
  const dataStart = 4 + 4 * nd;
  if (bytes.length < dataStart) {
    fail(
      file,
      `truncated IDX header: ${nd} dimension sizes need ${dataStart} bytes, got ${bytes.length}`,
    );
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const shape: number[] = [];
  for (let i = 0; i < nd; i++) shape.push(dv.getUint32(4 + 4 * i, false));
  return { type: t.name, size: t.size, kind: t.kind, shape, dataStart };
}

function shapeText(h: IdxHeader): string {
  return `shape (${h.shape.join(", ")}) of ${h.type}`;
}

function hex(b: number): string {
  return b.toString(16).padStart(2, "0").toUpperCase();
}

/**
 * Reads an IDX array (raw, or gzip inflated with `inflater`) from a buffer, checking
 * its declared size first.
 */
export function readIdx(
  bytes: Uint8Array,
  file: string,
  limits: ReadLimits | undefined,
  inflater: Inflater = noInflater(file, "readIdx", "parseBytes"),
): IdxArray {
  const maxBytes = maxBytesOf(limits);
  const compressed = isGzip(bytes);
  const raw = gunzipped(bytes, file, maxBytes, inflater);
  const h = parseHeader(raw, file);
  const count = exactCount(h.shape);
  const need = count * BigInt(h.size);
  const avail = raw.length - h.dataStart;
  if (need !== BigInt(avail)) {
    fail(
      file,
      // Stryker disable next-line EqualityOperator: need differs from avail here, so > and >= agree
      need > avail
        ? `${shapeText(h)} needs ${need} bytes but only ${avail} follow the header (truncated?)`
        : `${shapeText(h)} needs ${need} bytes but ${avail} follow the header`,
    );
  }
  checkFloat64Size(count, maxBytes, shapeText(h), (problem) => fail(file, problem));
  const n = Number(count);
  const out = new Float64Array(n);
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: the loop below reads uint8 to the same values; this is its fast path (MNIST's images)
  if (h.type === "uint8") {
    out.set(raw.subarray(h.dataStart, h.dataStart + n));
  } else {
    const dv = new DataView(raw.buffer, raw.byteOffset + h.dataStart, avail);
    const read = numberReader(h.kind, h.size);
    for (let i = 0; i < n; i++) {
      const v = read(dv, i * h.size, false);
      // Only floats can be NaN or infinite.
      if (v - v !== 0) fail(file, `value ${i} (row ${Math.floor(i / rowLength(h.shape))}) is ${v}`);
      out[i] = v;
    }
  }
  return { type: h.type, shape: h.shape, data: out, compressed };
}

function withoutSuffix(name: string, suffix: RegExp): string {
  return name.replace(suffix, "");
}

function rowLength(shape: readonly number[]): number {
  return Math.max(1, elementCount(shape.slice(1)));
}

/**
 * The IDX array as the one variable of a data file: a 1-D file is a column vector,
 * an n x h x w (x ...) file is n rows of h * w values, as image rows.
 */
export function idxVariable(arr: IdxArray, file: string): RawVariable {
  // A vector's rows hold one value each.
  const dims = [arr.shape[0], rowLength(arr.shape)];
  const base = withoutSuffix(withoutSuffix(baseName(file), /\.gz$/i), /\.idx\d?$/i) || "array";
  return {
    name: base,
    kind: "numeric",
    className: arr.type,
    dims,
    complex: false,
    values: () => ({ data: arr.data, order: "C" }),
    texts: () => null,
  };
}

/** The labels of an idx1 file (a vector; anything else is refused). */
export function idxLabels(arr: IdxArray, file: string): Labels {
  if (arr.shape.length !== 1) {
    fail(
      file,
      `labels must be a vector (an idx1 file); the IDX array has shape (${arr.shape.join(", ")})`,
    );
  }
  return Array.from(arr.data);
}

/**
 * The labels file conventionally paired with an IDX images file: the name with
 * "images" -> "labels" and "idx3" -> "idx1" (MNIST's `train-images-idx3-ubyte` ->
 * `train-labels-idx1-ubyte`), or null when the name does not follow the convention.
 */
export function idxLabelsCompanion(imagesFile: string): string | null {
  const slash = Math.max(imagesFile.lastIndexOf("/"), imagesFile.lastIndexOf("\\"));
  const dir = imagesFile.slice(0, slash + 1);
  const name = imagesFile.slice(slash + 1);
  if (!/images/i.test(name) || !/idx3/i.test(name)) return null;
  return (
    dir +
    name.replace(/images/i, (m) => (m === "IMAGES" ? "LABELS" : "labels")).replace(/idx3/i, "idx1")
  );
}
