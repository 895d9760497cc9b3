/**
 * Numbers stored in bytes: one reader per storage type (kind and size), shared by the
 * NPY and MAT v5 readers. Each returns float64: 64-bit integers round to the nearest
 * double, half floats (NumPy's float16) widen exactly, booleans read as 0 and 1.
 */

/** Reads the value stored at byte `p` of `dv`, little-endian when `le`. */
export type NumberReader = (dv: DataView, p: number, le: boolean) => number;

/** Storage kinds: boolean, IEEE float, signed and unsigned integer (NumPy's letters). */
export type NumberKind = "b" | "f" | "i" | "u";

function halfToFloat(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const f = h & 0x3ff;
  if (e === 0) return s * 2 ** -14 * (f / 1024);
  if (e === 31) return f ? Number.NaN : s * Number.POSITIVE_INFINITY;
  return s * 2 ** (e - 15) * (1 + f / 1024);
}

const READERS: Readonly<Record<string, NumberReader>> = {
  b1: (dv, p) => (dv.getUint8(p) ? 1 : 0),
  f2: (dv, p, le) => halfToFloat(dv.getUint16(p, le)),
  f4: (dv, p, le) => dv.getFloat32(p, le),
  f8: (dv, p, le) => dv.getFloat64(p, le),
  i1: (dv, p) => dv.getInt8(p),
  i2: (dv, p, le) => dv.getInt16(p, le),
  i4: (dv, p, le) => dv.getInt32(p, le),
  i8: (dv, p, le) => Number(dv.getBigInt64(p, le)),
  u1: (dv, p) => dv.getUint8(p),
  u2: (dv, p, le) => dv.getUint16(p, le),
  u4: (dv, p, le) => dv.getUint32(p, le),
  u8: (dv, p, le) => Number(dv.getBigUint64(p, le)),
};

/**
 * The reader of `size`-byte values of `kind`. The callers check the type against what
 * they support first, so a missing reader is a bug: it throws.
 */
export function numberReader(kind: NumberKind, size: number): NumberReader {
  const read = READERS[`${kind}${size}`];
  if (read === undefined) throw new RangeError(`numberReader: no ${size}-byte '${kind}' type.`);
  return read;
}
