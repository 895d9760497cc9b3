/**
 * NumPy `.npy` files (format versions 1 to 3): booleans (read as 0 and 1), signed
 * and unsigned integers, float16/32/64, either byte order, C or Fortran order.
 * Pickled object arrays are refused (loading them would run code), and so are
 * complex, string and structured dtypes.
 */
import { failDataFormat as fail } from "../core/errors.js";
import { type NumberKind, numberReader } from "./binary.js";
import { baseName } from "./fileNames.js";
import { checkFloat64Size, exactCount, maxBytesOf, type ReadLimits } from "./limits.js";
import type { RawVariable } from "./variables.js";

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
  // (Past the end, bytes[i] is undefined, which no magic byte equals.)
  return MAGIC.every((m, i) => bytes[i] === m);
}

interface NpyHeader {
  dtype: string;
  kind: NumberKind;
  size: number;
  le: boolean;
  fortranOrder: boolean;
  shape: number[];
  /** The shape as the header writes it ("18446744073709551616, 1"), for messages. */
  shapeText: string;
  /** The number of values the shape declares, exactly. */
  count: bigint;
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
  const dims: string[] = [];
  for (const part of shapeM[1].split(",")) {
    const t = part.trim();
    if (t === "") continue;
    // Python 2 wrote long integers with an L.
    const digits = /^(\d+)L?$/.exec(t);
    if (digits === null) fail(file, `malformed .npy shape (${shapeM[1]})`);
    dims.push(digits[1]);
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
    shape: dims.map(Number),
    shapeText: dims.join(", "),
    count: exactCount(dims),
    dataStart: start + headerLen,
  };
}

/**
 * Checks the size the header declares, before anything is allocated: against the
 * maxBytes limit (as float64), then against the `total` bytes of the file.
 */
function checkSize(h: NpyHeader, total: number, file: string, maxBytes: number): void {
  const what = `shape (${h.shapeText}) of ${h.dtype}`;
  checkFloat64Size(h.count, maxBytes, what, (problem) => fail(file, problem));
  const need = Number(h.count) * h.size;
  const avail = total - h.dataStart;
  if (need !== avail) {
    fail(
      file,
      // Stryker disable next-line EqualityOperator: need differs from avail here, so > and >= agree
      need > avail
        ? `${what} needs ${need} bytes but only ${avail} follow the header (truncated?)`
        : `${what} needs ${need} bytes but ${avail} follow the header`,
    );
  }
}

/**
 * The size of the whole .npy file whose first bytes are `head` (a gzip stream's
 * start), checked against maxBytes; null when `head` is not an .npy file or ends
 * inside its header.
 */
export function npyDeclaredSize(head: Uint8Array, file: string, maxBytes: number): number | null {
  if (!looksLikeNpy(head) || head.length < 12) return null;
  const dv = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const end = head[6] === 1 ? 10 + dv.getUint16(8, true) : 12 + dv.getUint32(8, true);
  if (end > head.length) return null;
  const h = parseHeader(head.subarray(0, end), file);
  checkFloat64Size(h.count, maxBytes, `shape (${h.shapeText}) of ${h.dtype}`, (problem) =>
    fail(file, problem),
  );
  return h.dataStart + Number(h.count) * h.size;
}

/** Reads a .npy array from a buffer, checking its declared size against the bytes present. */
export function readNpy(bytes: Uint8Array, file: string, limits?: ReadLimits): NpyArray {
  const h = parseHeader(bytes, file);
  checkSize(h, bytes.length, file, maxBytesOf(limits));
  const count = Number(h.count);
  const need = count * h.size;
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
  // The declared size is checked when the file is listed: a shape past the limit
  // would otherwise be listed (and described in messages) in rounded numbers.
  checkSize(h, bytes.length, file, maxBytesOf(limits));
  let cached: NpyArray | null = null;
  const arr = (): NpyArray => {
    cached ??= readNpy(bytes, file, limits);
    return cached;
  };
  // X.npy.gz's array is X, as X.npy's is.
  const base =
    baseName(file)
      .replace(/\.gz$/i, "")
      .replace(/\.npy$/i, "") || "array";
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
