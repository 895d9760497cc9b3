/**
 * A minimal level 5 MAT-file writer for tests: either byte order, any numeric
 * storage type for any class (MATLAB stores doubles as miUINT8 when they fit),
 * the small-data-element packing, and miCOMPRESSED. scipy writes only the
 * machine's byte order and each array in its own type, so these cases are built here.
 * `matElements` builds files element by element, for layouts no writer makes (wrong
 * types, sizes and flags, padding, streams cut or padded).
 */
import { deflateSync } from "node:zlib";

export const MI = {
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

export const CLASS = {
  CELL: 1,
  STRUCT: 2,
  CHAR: 4,
  SPARSE: 5,
  DOUBLE: 6,
  SINGLE: 7,
  INT8: 8,
  UINT8: 9,
  INT16: 10,
  UINT16: 11,
  INT32: 12,
  UINT32: 13,
  INT64: 14,
  UINT64: 15,
} as const;

const SIZE: Record<number, number> = {
  1: 1,
  2: 1,
  3: 2,
  4: 2,
  5: 4,
  6: 4,
  7: 4,
  9: 8,
  12: 8,
  13: 8,
  16: 1,
  17: 2,
  18: 4,
};

export interface WriteArray {
  name: string;
  classId: number;
  dims: number[];
  /** Storage type of the values. */
  storage: number;
  /** Values in column-major order. */
  values: number[];
  logical?: boolean;
  /** For cell arrays: the elements. */
  cells?: WriteArray[];
}

class Writer {
  parts: Uint8Array[] = [];
  constructor(readonly le: boolean) {}
  bytes(): Uint8Array {
    const n = this.parts.reduce((s, p) => s + p.length, 0);
    const out = new Uint8Array(n);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
  u32pair(a: number, b: number): Uint8Array {
    const u = new Uint8Array(8);
    const dv = new DataView(u.buffer);
    dv.setUint32(0, a, this.le);
    dv.setUint32(4, b, this.le);
    return u;
  }
  /** One data element, packed small when it fits in 4 bytes. */
  element(type: number, data: Uint8Array, allowSmall = true): void {
    if (allowSmall && data.length <= 4 && data.length > 0) {
      const u = new Uint8Array(8);
      new DataView(u.buffer).setUint32(0, (data.length << 16) | type, this.le);
      u.set(data, 4);
      this.parts.push(u);
      return;
    }
    this.parts.push(this.u32pair(type, data.length));
    this.parts.push(data);
    const pad = (8 - (data.length % 8)) % 8;
    if (pad) this.parts.push(new Uint8Array(pad));
  }
}

export function encodeValues(values: number[], type: number, le: boolean): Uint8Array {
  const size = SIZE[type];
  const u = new Uint8Array(values.length * size);
  const dv = new DataView(u.buffer);
  values.forEach((v, i) => {
    const p = i * size;
    switch (type) {
      case MI.INT8:
        dv.setInt8(p, v);
        break;
      case MI.UINT8:
      case MI.UTF8:
        dv.setUint8(p, v);
        break;
      case MI.INT16:
        dv.setInt16(p, v, le);
        break;
      case MI.UINT16:
      case MI.UTF16:
        dv.setUint16(p, v, le);
        break;
      case MI.INT32:
        dv.setInt32(p, v, le);
        break;
      case MI.UINT32:
      case MI.UTF32:
        dv.setUint32(p, v, le);
        break;
      case MI.SINGLE:
        dv.setFloat32(p, v, le);
        break;
      case MI.DOUBLE:
        dv.setFloat64(p, v, le);
        break;
      case MI.INT64:
        dv.setBigInt64(p, BigInt(v), le);
        break;
      case MI.UINT64:
        dv.setBigUint64(p, BigInt(v), le);
        break;
    }
  });
  return u;
}

/** The payload of an miMATRIX element (flags, dims, name, data). */
export function matrixPayload(a: WriteArray, le: boolean): Uint8Array {
  const w = new Writer(le);
  const flags = a.classId | (a.logical ? 0x200 : 0);
  const fb = new Uint8Array(8);
  new DataView(fb.buffer).setUint32(0, flags, le);
  w.element(MI.UINT32, fb, false);
  w.element(MI.INT32, encodeValues(a.dims, MI.INT32, le), false);
  w.element(MI.INT8, new TextEncoder().encode(a.name));
  if (a.classId === CLASS.CELL) {
    for (const c of a.cells ?? []) {
      const p = matrixPayload(c, le);
      w.parts.push(w.u32pair(MI.MATRIX, p.length));
      w.parts.push(p);
    }
  } else {
    w.element(a.storage, encodeValues(a.values, a.storage, le));
  }
  return w.bytes();
}

/** A whole MAT-file: 128-byte header, then each array, compressed or not. */
export function writeMatV5(
  arrays: WriteArray[],
  { littleEndian = true, compress = false }: { littleEndian?: boolean; compress?: boolean } = {},
): Uint8Array {
  const w = new Writer(littleEndian);
  const header = new Uint8Array(128);
  header.fill(0x20, 0, 116);
  header.set(new TextEncoder().encode("MATLAB 5.0 MAT-file, written by the sdspcaan tests"), 0);
  new DataView(header.buffer).setUint16(124, 0x0100, littleEndian);
  header[126] = littleEndian ? 0x49 : 0x4d;
  header[127] = littleEndian ? 0x4d : 0x49;
  w.parts.push(header);
  for (const a of arrays) {
    const payload = matrixPayload(a, littleEndian);
    if (compress) {
      const inner = new Uint8Array(8 + payload.length);
      inner.set(w.u32pair(MI.MATRIX, payload.length), 0);
      inner.set(payload, 8);
      const z = deflateSync(inner);
      w.parts.push(w.u32pair(MI.COMPRESSED, z.length));
      w.parts.push(z);
    } else {
      w.parts.push(w.u32pair(MI.MATRIX, payload.length));
      w.parts.push(payload);
    }
  }
  return w.bytes();
}

/** A numeric array from rows (row-major input, written column-major). */
export function numeric(
  name: string,
  rows: number[][],
  classId: number = CLASS.DOUBLE,
  storage: number = MI.DOUBLE,
): WriteArray {
  const r = rows.length;
  const c = r === 0 ? 0 : rows[0].length;
  const values: number[] = [];
  for (let j = 0; j < c; j++) for (let i = 0; i < r; i++) values.push(rows[i][j]);
  return { name, classId, dims: [r, c], storage, values };
}

/**
 * A char row as MATLAB saves one: 1 x n, and "" as a 0 x 0 char array with an empty
 * data element; the codes in `storage` (miUTF16 by default, miUTF8 as v7 files may).
 */
export function chars(name: string, text: string, storage: number = MI.UTF16): WriteArray {
  const codes = [...text].map((c) => c.charCodeAt(0));
  return {
    name,
    classId: CLASS.CHAR,
    dims: text === "" ? [0, 0] : [1, codes.length],
    storage,
    values: codes,
  };
}

/** MATLAB's empty array [] (0 x 0 double), what `cell(n, 1)` holds where nothing was put. */
export function emptyDouble(name = ""): WriteArray {
  return { name, classId: CLASS.DOUBLE, dims: [0, 0], storage: MI.DOUBLE, values: [] };
}

/** A column cell array of `elements` (n x 1, as MATLAB saves a cellstr of labels). */
export function cellColumn(name: string, elements: WriteArray[]): WriteArray {
  return {
    name,
    classId: CLASS.CELL,
    dims: [elements.length, 1],
    storage: MI.DOUBLE,
    values: [],
    cells: elements,
  };
}

/** The bytes of `parts`, one after the other. */
export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Builders of a level 5 file's parts in one byte order, each an element's bytes, to be
 * put together as a test needs: `mat(matrix(flags(CLASS.DOUBLE), dims(1, 1), name("a"),
 * values(MI.DOUBLE, [5])))` is a file holding `a = 5`.
 */
export function matElements(le = true) {
  const u32 = (...words: number[]): Uint8Array => encodeValues(words, MI.UINT32, le);
  /** A data element: tag (declaring `declared` bytes), data, padding to 8 bytes. */
  const el = (type: number, data: Uint8Array, declared = data.length): Uint8Array =>
    concatBytes([u32(type, declared), data, new Uint8Array((8 - (data.length % 8)) % 8)]);
  return {
    u32,
    el,
    /** A small data element (1 to 4 bytes in the tag's second word). */
    small(type: number, data: Uint8Array, declared = data.length): Uint8Array {
      const out = new Uint8Array(8);
      out.set(u32((declared << 16) | type));
      out.set(data, 4);
      return out;
    },
    flags(classId: number, { logical = false, complex = false } = {}): Uint8Array {
      return el(MI.UINT32, u32(classId | (logical ? 0x200 : 0) | (complex ? 0x800 : 0), 0));
    },
    dims: (...d: number[]): Uint8Array => el(MI.INT32, encodeValues(d, MI.INT32, le)),
    name: (text: string, type: number = MI.INT8): Uint8Array =>
      el(type, new TextEncoder().encode(text)),
    values: (type: number, v: number[]): Uint8Array => el(type, encodeValues(v, type, le)),
    /** An miMATRIX element of the given parts. */
    matrix: (...parts: Uint8Array[]): Uint8Array => el(MI.MATRIX, concatBytes(parts)),
    /** The 128-byte header with `text`, then the elements. */
    mat(...elements: Uint8Array[]): Uint8Array {
      const h = new Uint8Array(128);
      h.fill(0x20, 0, 116);
      h.set(new TextEncoder().encode("MATLAB 5.0 MAT-file, built by matElements"));
      new DataView(h.buffer).setUint16(124, 0x0100, le);
      h.set(le ? [0x49, 0x4d] : [0x4d, 0x49], 126);
      return concatBytes([h, ...elements]);
    },
    /** An miCOMPRESSED element holding `inner` (an element), deflated at `level`. */
    compressed(inner: Uint8Array, level = 6): Uint8Array {
      const z = deflateSync(inner, { level });
      return concatBytes([u32(MI.COMPRESSED, z.length), z]);
    },
  };
}
