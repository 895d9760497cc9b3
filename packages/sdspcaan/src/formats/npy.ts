/**
 * NumPy `.npy` files (format versions 1 to 3): booleans (read as 0 and 1), signed
 * and unsigned integers, float16/32/64, either byte order, C or Fortran order.
 * Pickled object arrays are refused (loading them would run code), and so are
 * complex, string and structured dtypes.
 */
import { failDataFormat as fail } from "../core/errors.js";
import { type NumberKind, numberReader } from "./binary.js";
import { formatBytes, maxBytesOf, type ReadLimits } from "./limits.js";
import { elementCount, type RawVariable } from "./variables.js";

/** A decoded .npy array: float64 values in the file's order, with its shape. */
export interface NpyArray {
  /** The NumPy dtype string, e.g. "<f8". */
  readonly dtype: string;
  readonly shape: readonly number[];
  readonly fortranOrder: boolean;
  /** Values as float64, in C order unless `fortranOrder`. */
  readonly data: Float64Array;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"

export function looksLikeNpy(bytes: Uint8Array): boolean {
  return bytes.length >= 6 && MAGIC.every((m, i) => bytes[i] === m);
}

interface NpyHeader {
  dtype: string;
  kind: NumberKind;
  size: number;
  le: boolean;
  fortranOrder: boolean;
  shape: number[];
  dataStart: number;
}

function parseHeader(bytes: Uint8Array, file: string): NpyHeader {
  if (!looksLikeNpy(bytes)) fail(file, "not a NumPy .npy file (no \\x93NUMPY magic)");
  if (bytes.length < 10) fail(file, "truncated .npy header");
  const major = bytes[6];
  let headerLen: number;
  let start: number;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (major === 1) {
    headerLen = dv.getUint16(8, true);
    start = 10;
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) fail(file, "truncated .npy header");
    headerLen = dv.getUint32(8, true);
    start = 12;
  } else {
    fail(file, `unsupported .npy format version ${major}.${bytes[7]}`);
  }
  if (headerLen > bytes.length - start) {
    fail(file, `.npy header declares ${headerLen} bytes but only ${bytes.length - start} remain`);
  }
  const text = new TextDecoder(major === 3 ? "utf-8" : "latin1").decode(
    bytes.subarray(start, start + headerLen),
  );
  if (/['"]descr['"]\s*:\s*\[/.test(text)) {
    fail(file, "holds a structured array (named fields); save a plain 2-D numeric array instead");
  }
  const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(text);
  const order = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(text);
  const shapeM = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(text);
  if (!descr || !order || !shapeM || !text.trim().startsWith("{")) {
    fail(file, `malformed .npy header ${JSON.stringify(text.trim().slice(0, 120))}`);
  }
  const shape: number[] = [];
  for (const part of shapeM[1].split(",")) {
    const t = part.trim();
    if (t === "") continue;
    if (!/^\d+L?$/.test(t)) fail(file, `malformed .npy shape (${shapeM[1]})`);
    shape.push(Number.parseInt(t, 10));
  }
  const dtype = descr[1];
  const m = /^([<>|=]?)([biuf])(\d+)$/.exec(dtype);
  if (!m) {
    if (dtype.includes("O")) {
      fail(file, `holds Python objects (dtype '${dtype}'); only numeric arrays can be read`);
    }
    const what = /c\d+$/.test(dtype)
      ? "complex numbers"
      : /[USa]\d*$/.test(dtype)
        ? "strings"
        : /[mM]/.test(dtype)
          ? "dates or times"
          : "values of another type";
    fail(
      file,
      `unsupported .npy dtype '${dtype}' (${what}); the readable dtypes are bool, int, uint and float`,
    );
  }
  const size = Number(m[3]);
  const kind = m[2] as NumberKind;
  const okSize =
    kind === "f"
      ? [2, 4, 8].includes(size)
      : kind === "b"
        ? size === 1
        : [1, 2, 4, 8].includes(size);
  if (!okSize) fail(file, `unsupported .npy dtype '${dtype}'`);
  const le = m[1] !== ">";
  return {
    dtype,
    kind,
    size,
    le,
    fortranOrder: order[1] === "True",
    shape,
    dataStart: start + headerLen,
  };
}

/** Reads a .npy array from a buffer, checking its declared size against the bytes present. */
export function readNpy(bytes: Uint8Array, file: string, limits?: ReadLimits): NpyArray {
  const h = parseHeader(bytes, file);
  const count = elementCount(h.shape);
  const avail = bytes.length - h.dataStart;
  const need = count * h.size;
  if (need !== avail) {
    fail(
      file,
      need > avail
        ? `shape (${h.shape.join(", ")}) of ${h.dtype} needs ${need} bytes but only ${avail} follow the header (truncated?)`
        : `shape (${h.shape.join(", ")}) of ${h.dtype} needs ${need} bytes but ${avail} follow the header`,
    );
  }
  const maxBytes = maxBytesOf(limits);
  if (count * 8 > maxBytes) {
    fail(
      file,
      `needs ${formatBytes(count * 8)} as float64, more than the ${formatBytes(maxBytes)} limit`,
    );
  }
  const dv = new DataView(bytes.buffer, bytes.byteOffset + h.dataStart, need);
  const out = new Float64Array(count);
  const { size, le } = h;
  const read = numberReader(h.kind, size);
  for (let i = 0, p = 0; i < count; i++, p += size) out[i] = read(dv, p, le);
  return { dtype: h.dtype, shape: h.shape, fortranOrder: h.fortranOrder, data: out };
}

/** The array of a .npy file as the one variable of a data file (named after the file). */
export function npyVariable(bytes: Uint8Array, file: string, limits?: ReadLimits): RawVariable {
  const h = parseHeader(bytes, file);
  let cached: NpyArray | null = null;
  const arr = (): NpyArray => {
    cached ??= readNpy(bytes, file, limits);
    return cached;
  };
  const base = file.replace(/^.*[\\/]/, "").replace(/\.npy$/i, "") || "array";
  return {
    name: base,
    // Booleans are data as 0/1 (NumPy's usual store for binary features).
    kind: "numeric",
    className: h.dtype,
    dims: h.shape.length === 0 ? [1, 1] : h.shape.length === 1 ? [h.shape[0], 1] : h.shape,
    complex: false,
    values: () => {
      const a = arr();
      return { data: a.data, order: a.fortranOrder ? "F" : "C" };
    },
    texts: () => null,
  };
}
