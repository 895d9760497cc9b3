/**
 * MATLAB level 5 MAT-files (MATLAB 5 to 7.2; scipy.io.savemat's default), read from a
 * buffer: both byte orders, miCOMPRESSED (zlib) variables, every numeric storage type
 * (miINT8 .. miUINT64, miSINGLE, miDOUBLE), the small-data-element packing, and
 * column-major order. Values are cast to float64.
 *
 * The data elements (tags, types, the byte cursor `Bytes`, the error context `Ctx`)
 * are in matV5Elements.ts, internal to the formats; this file reads top to bottom in
 * the order of the format: array headers, values, compressed variables, the file.
 *
 * Every size a file declares is checked against the bytes that are actually there
 * before anything is allocated, and zlib output is bounded by the size the variable
 * declares, so a corrupt file ends in a DataFormatError naming the file, the
 * variable and the problem.
 *
 * Inflation is passed in (node:zlib in Node, `DecompressionStream` in browsers via
 * `readMatV5Async`), so this file runs anywhere.
 */
import {
  type AsyncInflate,
  InflateError,
  type Inflater,
  inflaterAhead,
  noInflater,
  platformInflate,
} from "./inflate.js";
import {
  checkFloat64Size,
  deflateBound,
  exactCount,
  formatBytes,
  maxBytesOf,
  type ReadLimits,
} from "./limits.js";
import { cellTexts, charArrayRows, NUMERIC_CLASS_NAMES, singleRowText } from "./matClasses.js";
import {
  Bytes,
  type Ctx,
  decodeNumeric,
  type Element,
  elementAt,
  fail,
  MAX_DEPTH,
  mi,
  NUMERIC,
  readElement,
  typeName,
} from "./matV5Elements.js";
import {
  type ArrayValues,
  elementCount,
  type RawVariable,
  type VariableKind,
} from "./variables.js";

/** MATLAB's class names by mxClassID (the MAT v5 array flags' class field). */
export const CLASS_NAMES = [
  "",
  "cell",
  "struct",
  "object",
  "char",
  "sparse",
  ...NUMERIC_CLASS_NAMES,
  "function_handle",
  "opaque",
];

/** One array (the payload of an miMATRIX element), parsed but not decoded. */
interface ParsedArray {
  name: string;
  classId: number;
  kind: VariableKind;
  className: string;
  dims: number[];
  complex: boolean;
  /** The real-part (or char) data element, for numeric, logical and char arrays. */
  real: Element | null;
  /** The elements of a cell array. */
  cells: ParsedArray[] | null;
  /** Where the payload was parsed from (needed to decode later). */
  bytes: Bytes;
}

function kindOf(classId: number, logical: boolean): VariableKind {
  if (classId >= 6 && classId <= 15) return logical ? "logical" : "numeric";
  switch (classId) {
    case 1:
      return "cell";
    case 2:
      return "struct";
    case 3:
      return "object";
    case 4:
      return "char";
    case 5:
      return "sparse";
    case 16:
      return "function";
    case 17:
      return "opaque";
    default:
      return "unknown";
  }
}

interface ArrayHeader {
  name: string;
  classId: number;
  logical: boolean;
  complex: boolean;
  dims: number[];
  /** Position after the name element. */
  next: number;
}

/** Array flags, dimensions and name: the start of every miMATRIX payload. */
function parseArrayHeader(
  b: Bytes,
  start: number,
  end: number,
  ctx: Ctx,
  where: string,
): ArrayHeader {
  const flags = readElement(b, start, end, ctx, where);
  if (flags.type !== mi.UINT32 || flags.nbytes !== 8) {
    fail(
      ctx,
      where,
      `array flags must be an 8-byte miUINT32 element, found ${typeName(flags.type)} of ${flags.nbytes} bytes`,
    );
  }
  const f = b.u32(flags.start);
  const classId = f & 0xff;
  const dimsEl = readElement(b, flags.next, end, ctx, where);
  if (dimsEl.type !== mi.INT32 || dimsEl.nbytes % 4 !== 0 || dimsEl.nbytes < 8) {
    fail(
      ctx,
      where,
      `dimensions must be an miINT32 element of at least 2 values, found ${typeName(dimsEl.type)} of ${dimsEl.nbytes} bytes`,
    );
  }
  const dims: number[] = [];
  for (let p = dimsEl.start; p < dimsEl.start + dimsEl.nbytes; p += 4) {
    const d = b.i32(p);
    if (d < 0) fail(ctx, where, `negative dimension ${d}`);
    dims.push(d);
  }
  let name = "";
  let next = dimsEl.next;
  // Cell and struct elements carry an empty name; it is still present as an element.
  if (next < end) {
    const nameEl = readElement(b, next, end, ctx, where);
    if (nameEl.type !== mi.INT8 && nameEl.type !== mi.UINT8 && nameEl.type !== mi.UTF8) {
      fail(ctx, where, `array name must be an miINT8 element, found ${typeName(nameEl.type)}`);
    }
    name = new TextDecoder("latin1").decode(
      b.u8.subarray(nameEl.start, nameEl.start + nameEl.nbytes),
    );
    next = nameEl.next;
  }
  return {
    name,
    classId,
    logical: (f & 0x200) !== 0,
    complex: (f & 0x800) !== 0,
    dims,
    next,
  };
}

/** Parses the payload of an miMATRIX element spanning [start, end) without decoding values. */
function parseArray(
  b: Bytes,
  start: number,
  end: number,
  ctx: Ctx,
  where: string,
  depth: number,
): ParsedArray {
  if (start === end) {
    // MATLAB writes empty cell elements as miMATRIX elements with no payload.
    return {
      name: "",
      classId: 6,
      kind: "numeric",
      className: "double",
      dims: [0, 0],
      complex: false,
      real: null,
      cells: null,
      bytes: b,
    };
  }
  const h = parseArrayHeader(b, start, end, ctx, where);
  const here = h.name && depth === 0 ? `variable '${h.name}'` : where;
  const kind = kindOf(h.classId, h.logical);
  const out: ParsedArray = {
    name: h.name,
    classId: h.classId,
    kind,
    className: kind === "logical" ? "logical" : (CLASS_NAMES[h.classId] ?? `class ${h.classId}`),
    dims: h.dims,
    complex: h.complex,
    real: null,
    cells: null,
    bytes: b,
  };
  const numel = elementCount(h.dims);
  if (kind === "numeric" || kind === "logical") {
    const real = readElement(b, h.next, end, ctx, here);
    const size = NUMERIC[real.type]?.size;
    if (size === undefined) {
      fail(ctx, here, `numeric data stored as ${typeName(real.type)}, which is not a numeric type`);
    }
    if (numel * size !== real.nbytes) {
      fail(
        ctx,
        here,
        `dimensions ${h.dims.join(" x ")} need ${exactCount(h.dims) * BigInt(size)} bytes of ${typeName(real.type)} but the data element holds ${real.nbytes}`,
      );
    }
    out.real = real;
    if (h.complex) {
      const imag = readElement(b, real.next, end, ctx, here);
      // A type without a size (not numeric) gives NaN, which no byte count equals.
      if (numel * (NUMERIC[imag.type]?.size ?? Number.NaN) !== imag.nbytes) {
        fail(ctx, here, `imaginary part does not match the dimensions ${h.dims.join(" x ")}`);
      }
    }
  } else if (kind === "char") {
    const real = readElement(b, h.next, end, ctx, here);
    const unit =
      real.type === mi.UTF8 || real.type === mi.UINT8 || real.type === mi.INT8
        ? 1
        : real.type === mi.UTF16 || real.type === mi.UINT16 || real.type === mi.INT16
          ? 2
          : real.type === mi.UTF32 || real.type === mi.UINT32 || real.type === mi.INT32
            ? 4
            : 0;
    if (unit === 0) fail(ctx, here, `char data stored as ${typeName(real.type)}`);
    // UTF-8 may use several bytes per character; every other encoding is exact. (A count
    // past 2^53, Infinity, matches no byte count.)
    const ok = real.type === mi.UTF8 ? real.nbytes >= numel : real.nbytes === numel * unit;
    if (!ok) {
      fail(
        ctx,
        here,
        `char array ${h.dims.join(" x ")} does not match its ${real.nbytes}-byte ${typeName(real.type)} data`,
      );
    }
    out.real = real;
  } else if (kind === "cell") {
    if (depth >= MAX_DEPTH) fail(ctx, here, `cell arrays nested more than ${MAX_DEPTH} deep`);
    // Each cell needs at least an 8-byte tag: a larger count cannot be genuine.
    if (numel > (end - h.next) / 8) {
      fail(
        ctx,
        here,
        `cell array ${h.dims.join(" x ")} declares ${exactCount(h.dims)} elements but only ${end - h.next} bytes remain`,
      );
    }
    const cells: ParsedArray[] = [];
    let p = h.next;
    for (let k = 0; k < numel; k++) {
      const el = readElement(b, p, end, ctx, here);
      if (el.type !== mi.MATRIX) {
        fail(ctx, here, `cell element ${k} is ${typeName(el.type)}, expected miMATRIX`);
      }
      cells.push(
        parseArray(b, el.start, el.start + el.nbytes, ctx, `${here} cell ${k}`, depth + 1),
      );
      p = el.next;
    }
    out.cells = cells;
  } else if (kind === "sparse") {
    // Row indices, column starts and values must at least be present and well-formed.
    let p = h.next;
    for (const part of ["row indices", "column starts", "values"]) {
      const el = readElement(b, p, end, ctx, `${here} (sparse ${part})`);
      p = el.next;
    }
  }
  return out;
}

/** Character codes of a char array, column-major. */
function charCodes(a: ParsedArray, ctx: Ctx, where: string): number[] {
  const el = a.real as Element;
  const { u8, dv, le } = a.bytes;
  const numel = elementCount(a.dims);
  if (el.type === mi.UTF8) {
    const s = new TextDecoder("utf-8").decode(u8.subarray(el.start, el.start + el.nbytes));
    const codes = Array.from(s, (ch) => ch.codePointAt(0) as number);
    if (codes.length !== numel) {
      fail(
        ctx,
        where,
        `char array of ${numel} characters holds ${codes.length} after UTF-8 decoding`,
      );
    }
    return codes;
  }
  const unit = el.nbytes / Math.max(numel, 1);
  return Array.from({ length: numel }, (_, i) => {
    const p = el.start + i * unit;
    return unit === 1 ? u8[p] : unit === 2 ? dv.getUint16(p, le) : dv.getUint32(p, le);
  });
}

/** Rows of a 2-D char array as strings (trailing blanks kept, as MATLAB pads them). */
function charRows(a: ParsedArray, ctx: Ctx, where: string): string[] {
  return charArrayRows(charCodes(a, ctx, where), a.dims[0], (c) => String.fromCodePoint(c));
}

function arrayValues(a: ParsedArray, ctx: Ctx, where: string): ArrayValues {
  if (a.kind === "char") {
    checkValuesSize(a.dims, ctx, where);
    return { data: Float64Array.from(charCodes(a, ctx, where)), order: "F" };
  }
  // Only numeric, logical and char arrays have data, and an empty miMATRIX none.
  if (a.real === null) {
    if (a.kind === "numeric") return { data: new Float64Array(0), order: "F" };
    fail(ctx, where, `a ${a.className} array has no numeric values`);
  }
  checkValuesSize(a.dims, ctx, where);
  const count = elementCount(a.dims);
  return { data: decodeNumeric(a.bytes, a.real.start, count, a.real.type), order: "F" };
}

function arrayTexts(a: ParsedArray, ctx: Ctx, where: string): string[] | null {
  if (a.kind === "char") return charRows(a, ctx, where);
  // Only a cell array has cells.
  if (a.cells === null) return null;
  return cellTexts(a.cells, (c) => {
    if (c.kind === "char") return singleRowText(charRows(c, ctx, where));
    if (c.kind !== "numeric" || c.complex) return null;
    // MATLAB's [] (a 0 x 0 double, or an element with no payload) stands for an empty text.
    const n = elementCount(c.dims);
    if (n === 0) return undefined;
    return n === 1 ? String(arrayValues(c, ctx, where).data[0]) : null;
  });
}

function rawFromParsed(a: ParsedArray, ctx: Ctx, where: string): RawVariable {
  return {
    name: a.name,
    kind: a.kind,
    className: a.className,
    dims: a.dims,
    complex: a.complex,
    values: () => arrayValues(a, ctx, where),
    texts: () => arrayTexts(a, ctx, where),
  };
}

/** Inflates a zlib stream, refusing more output than `limit` bytes. */
function inflateBounded(payload: Uint8Array, limit: number, ctx: Ctx, where: string): Uint8Array {
  try {
    return ctx.inflater.inflate(payload, Math.max(1, limit));
  } catch (err) {
    if (!(err instanceof InflateError)) throw err;
    if (err.reason === "too-large") {
      fail(ctx, where, `compressed data expands beyond its declared ${limit} bytes`);
    }
    if (err.reason === "truncated") fail(ctx, where, "compressed data is truncated");
    fail(ctx, where, `corrupt compressed data (zlib: ${err.message})`);
  }
}

/** The most a header is looked for in: a name this long is not a MATLAB variable's. */
const PEEK_MAX = 16 * 1024 * 1024;

/**
 * Decompresses just enough of a zlib stream to read a variable's tag and header:
 * what its first `inputBytes` give, cut at `cap` bytes (deflate's ratio bounds it
 * further for small inputs).
 */
function peekInflate(payload: Uint8Array, inputBytes: number, cap: number, ctx: Ctx) {
  return ctx.inflater.inflatePrefix(payload.subarray(0, inputBytes), cap);
}

/** A compressed variable: header read eagerly from a partial inflation, values on demand. */
function compressedVariable(fileBytes: Bytes, el: Element, ctx: Ctx, index: number): RawVariable {
  const payload = fileBytes.u8.subarray(el.start, el.start + el.nbytes);
  let where = `variable ${index + 1} (compressed element at byte ${el.start - 8})`;
  let head: Uint8Array | null = null;
  let header: ArrayHeader | null = null;
  const attempts = [
    ...new Set([1024, 16384, payload.length].map((n) => Math.min(n, payload.length))),
  ];
  for (const n of attempts) {
    const got = peekInflate(payload, n, Math.min(ctx.maxBytes, PEEK_MAX), ctx);
    if (got === null || got.length < 8) continue;
    head = got;
    const hb = new Bytes(head, fileBytes.le);
    const type = hb.u32(0);
    if (type !== mi.MATRIX) {
      fail(ctx, where, `compressed data holds ${typeName(type)}, expected miMATRIX`);
    }
    const declared = hb.u32(4);
    // Short of what the variable declares, the header may be cut: more input gives more.
    const short = head.length < 8 + declared;
    try {
      header = parseArrayHeader(hb, 8, Math.min(head.length, 8 + declared), ctx, where);
    } catch (err) {
      if (!short || n === payload.length) throw err;
      continue;
    }
    // A header reaching the end of a cut inflation may have lost its name: look further.
    if (short && header.next >= head.length) {
      header = null;
      continue;
    }
    break;
  }
  if (head === null) {
    // Inflate the whole stream once more to report zlib's own diagnosis.
    inflateBounded(payload, PEEK_MAX, ctx, where);
    fail(ctx, where, "compressed data ends before the variable's tag");
  }
  if (header === null) fail(ctx, where, "compressed variable header could not be read");
  const declared = new Bytes(head, fileBytes.le).u32(4);
  if (header.name) where = `variable '${header.name}'`;
  if (declared + 8 > ctx.maxBytes) {
    fail(
      ctx,
      where,
      `declares ${formatBytes(declared)} of decompressed data, more than the ${formatBytes(ctx.maxBytes)} limit (maxBytes)`,
    );
  }
  if (declared > deflateBound(payload.length)) {
    fail(
      ctx,
      where,
      `declares ${declared} bytes of decompressed data, impossible from ${payload.length} compressed bytes`,
    );
  }
  const kind = kindOf(header.classId, header.logical);
  const most = dataBytesAtMost(kind, header);
  if (most !== null && BigInt(declared) > BigInt(header.next - 8) + most) {
    fail(
      ctx,
      where,
      `declares ${declared} bytes of decompressed data, more than its ${header.dims.join(" x ")} ${kind} array can hold`,
    );
  }
  let parsed: ParsedArray | null = null;
  const full = (): ParsedArray => {
    if (parsed) return parsed;
    // Writers may pad the element to 8 bytes inside the stream.
    const data = inflateBounded(payload, declared + 8 + 7, ctx, where);
    if (data.length < declared + 8) {
      fail(
        ctx,
        where,
        `compressed data ends after ${data.length - 8} of the ${declared} bytes the variable declares`,
      );
    }
    const b = new Bytes(data, fileBytes.le);
    parsed = parseArray(b, 8, 8 + declared, ctx, where, 0);
    return parsed;
  };
  return {
    name: header.name,
    kind,
    className:
      kind === "logical" ? "logical" : (CLASS_NAMES[header.classId] ?? `class ${header.classId}`),
    dims: header.dims,
    complex: header.complex,
    values: () => {
      // Checked before inflating: the stored values may be 8 times smaller than float64.
      if (kind === "numeric" || kind === "logical" || kind === "char") {
        checkValuesSize(header.dims, ctx, where);
      }
      return arrayValues(full(), ctx, where);
    },
    texts: () => arrayTexts(full(), ctx, where),
  };
}

/**
 * The most bytes an array's data elements take after its header, by its dimensions:
 * 8 bytes a value at most (twice for complex), 4 a character, each element with an
 * 8-byte tag and padded to 8 bytes; null for arrays of other arrays (cell, struct,
 * sparse, ...), which are not bounded this way.
 */
function dataBytesAtMost(kind: VariableKind, h: ArrayHeader): bigint | null {
  const numel = exactCount(h.dims);
  if (kind === "numeric" || kind === "logical") return (h.complex ? 2n : 1n) * (8n + 8n * numel);
  if (kind === "char") return 8n + ((4n * numel + 7n) / 8n) * 8n;
  return null;
}

/** Refuses values that would need more than maxBytes as float64. */
function checkValuesSize(dims: readonly number[], ctx: Ctx, where: string): void {
  checkFloat64Size(exactCount(dims), ctx.maxBytes, `its ${dims.join(" x ")} array`, (problem) =>
    fail(ctx, where, problem),
  );
}

/** A parsed level 5 MAT-file: its header and variables (decoded on demand). */
export interface MatV5Contents {
  readonly version: 5;
  readonly littleEndian: boolean;
  /** The descriptive text at the start of the file. */
  readonly headerText: string;
  /** True when at least one variable was stored compressed. */
  readonly compressed: boolean;
  readonly variables: RawVariable[];
}

/** True when the 128-byte header is a level 5 MAT-file header (any version). */
export function looksLikeMatV5(bytes: Uint8Array): boolean {
  // (Shorter than 128 bytes, the mark reads as NULs.)
  const e = String.fromCharCode(bytes[126], bytes[127]);
  return e === "IM" || e === "MI";
}

/** The header's version field (0x0100 for level 5, 0x0200 for v7.3/HDF5), or null. */
export function matHeaderVersion(bytes: Uint8Array): number | null {
  if (!looksLikeMatV5(bytes)) return null;
  const le = bytes[126] === 0x49;
  return le ? bytes[124] | (bytes[125] << 8) : (bytes[124] << 8) | bytes[125];
}

/**
 * Reads the variables of a level 5 MAT-file, inflating compressed ones with
 * `inflater`. Values are decoded only when asked for, so listing a file with a large
 * unused variable stays cheap.
 */
export function readMatV5(
  bytes: Uint8Array,
  file: string,
  limits: ReadLimits | undefined,
  inflater: Inflater = noInflater(file, "readMatV5", "readMatV5Async"),
): MatV5Contents {
  const ctx: Ctx = { file, maxBytes: maxBytesOf(limits), inflater };
  if (bytes.length < 128) {
    fail(ctx, "", `${bytes.length} bytes is too short for a MAT-file (the header alone is 128)`);
  }
  if (!looksLikeMatV5(bytes)) {
    fail(ctx, "", "not a level 5 MAT-file (no 'IM'/'MI' byte-order mark at bytes 126-127)");
  }
  const le = bytes[126] === 0x49;
  const b = new Bytes(bytes, le);
  const version = b.u16(124);
  if (version === 0x0200) {
    fail(ctx, "", "is a MAT v7.3 file (HDF5); read it with the HDF5 reader (loadDataset does)");
  }
  if (version !== 0x0100) {
    fail(ctx, "", `unsupported MAT-file version 0x${version.toString(16).padStart(4, "0")}`);
  }
  const headerText = new TextDecoder("latin1").decode(bytes.subarray(0, 116)).trim();
  const variables: RawVariable[] = [];
  let compressed = false;
  let pos = 128;
  const end = bytes.length;
  for (;;) {
    // Some writers pad the file's end with zeros; fewer than a tag's 8 bytes cannot be
    // data. (At the end, nothing is left: zero bytes, all of them zero.)
    if (end - pos < 8 && bytes.subarray(pos).every((x) => x === 0)) break;
    const where = `variable ${variables.length + 1} (element at byte ${pos})`;
    const el = readElement(b, pos, end, ctx, where);
    if (el.type === mi.COMPRESSED) {
      compressed = true;
      variables.push(compressedVariable(b, el, ctx, variables.length));
      // Compressed elements are not padded to 8 bytes.
      pos = el.start + el.nbytes;
    } else if (el.type === mi.MATRIX) {
      const a = parseArray(b, el.start, el.start + el.nbytes, ctx, where, 0);
      variables.push(rawFromParsed(a, ctx, a.name ? `variable '${a.name}'` : where));
      pos = el.next;
    } else {
      fail(
        ctx,
        where,
        `unexpected ${typeName(el.type)} element (expected miMATRIX or miCOMPRESSED)`,
      );
    }
  }
  return { version: 5, littleEndian: le, headerText, compressed, variables };
}

/**
 * The payloads of the top-level miCOMPRESSED elements, for inflating them ahead.
 * Stops quietly at the first malformed element: `readMatV5` reports it.
 */
function compressedPayloads(bytes: Uint8Array): Uint8Array[] {
  // Bytes readMatV5 refuses outright are not inflated.
  if (!looksLikeMatV5(bytes)) return [];
  const b = new Bytes(bytes, bytes[126] === 0x49);
  const out: Uint8Array[] = [];
  // The same walk as readMatV5's, so that every stream it will ask for is inflated.
  for (let pos = 128; ; ) {
    const el = elementAt(b, pos, bytes.length);
    if (typeof el === "string") return out;
    if (el.type === mi.COMPRESSED) {
      out.push(bytes.subarray(el.start, el.start + el.nbytes));
      pos = el.start + el.nbytes;
    } else pos = el.next;
  }
}

/**
 * `readMatV5` with an asynchronous inflater (by default the platform's
 * `DecompressionStream`): every compressed variable is inflated first, each bounded by
 * what the format allows, then the file is read as `readMatV5` does, with the same
 * messages.
 */
export async function readMatV5Async(
  bytes: Uint8Array,
  file: string,
  limits: ReadLimits | undefined,
  inflate: AsyncInflate | Inflater = platformInflate(file, "readMatV5Async"),
): Promise<MatV5Contents> {
  if (typeof inflate !== "function") return readMatV5(bytes, file, limits, inflate);
  const maxBytes = maxBytesOf(limits);
  const { inflater, add } = inflaterAhead(inflate);
  for (const payload of compressedPayloads(bytes)) {
    // The variable's tag and padding may add up to 15 bytes to what it declares.
    // Stryker disable next-line MethodExpression: a bound on memory only; readMatV5 refuses what passes min(maxBytes, deflateBound) itself, so a looser bound reads the same
    await add(payload, Math.min(maxBytes, deflateBound(payload.length)) + 16);
  }
  return readMatV5(bytes, file, limits, inflater);
}
