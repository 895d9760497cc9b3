/**
 * MATLAB level 4 MAT-files (MATLAB 4, `save -v4`, scipy.io.savemat(format="4")):
 * a sequence of matrices, each a 20-byte header (type, rows, cols, imagf, name
 * length), the name, then column-major data. Old, but still written by some tools,
 * so it is read rather than rejected.
 */
import { DataFormatError } from "../core/errors.js";
import { checkFloat64Size, exactCount, maxBytesOf, type ReadLimits } from "./limits.js";
import type { RawVariable, VariableKind } from "./variables.js";

/** Bytes per value for the P digit of the type code. */
const P_SIZE = [8, 4, 4, 2, 2, 1];
const P_CLASS = ["double", "single", "int32", "int16", "uint16", "uint8"];

interface V4Header {
  le: boolean;
  p: number;
  t: number;
  rows: number;
  cols: number;
  imag: boolean;
  namlen: number;
}

function readHeader(dv: DataView, pos: number): V4Header | null {
  for (const le of [true, false]) {
    const type = dv.getInt32(pos, le);
    if (type < 0 || type > 1052) continue;
    const m = Math.floor(type / 1000);
    const o = Math.floor((type % 1000) / 100);
    const p = Math.floor((type % 100) / 10);
    const t = type % 10;
    // M = 0 is IEEE little-endian, 1 IEEE big-endian (type <= 1052 leaves no other); VAX
    // and Cray formats (M = 2, 3) are not supported.
    if ((m === 0) !== le || o !== 0 || p > 5 || t > 2) continue;
    const rows = dv.getInt32(pos + 4, le);
    const cols = dv.getInt32(pos + 8, le);
    const imagf = dv.getInt32(pos + 12, le);
    const namlen = dv.getInt32(pos + 16, le);
    if (rows < 0 || cols < 0 || (imagf !== 0 && imagf !== 1) || namlen < 1) continue;
    return { le, p, t, rows, cols, imag: imagf === 1, namlen };
  }
  return null;
}

/** True when the buffer starts like a level 4 MAT-file. */
export function looksLikeMatV4(bytes: Uint8Array): boolean {
  // A 20-byte header and a name of at least one byte.
  if (bytes.length < 21) return false;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const h = readHeader(dv, 0);
  return h !== null && 20 + h.namlen <= bytes.length && h.namlen <= 4096;
}

/** Reads the matrices of a level 4 MAT-file; values are decoded on demand. */
export function readMatV4(bytes: Uint8Array, file: string, limits?: ReadLimits): RawVariable[] {
  const maxBytes = maxBytesOf(limits);
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const vars: RawVariable[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const where = `matrix ${vars.length + 1} (at byte ${pos})`;
    if (bytes.length - pos < 20) {
      throw new DataFormatError(file, `${where}: truncated header (${bytes.length - pos} bytes)`);
    }
    const h = readHeader(dv, pos);
    if (h === null) {
      throw new DataFormatError(file, `${where}: not a valid level 4 MAT-file matrix header`);
    }
    if (h.namlen > bytes.length - pos - 20) {
      throw new DataFormatError(file, `${where}: name length ${h.namlen} exceeds the file`);
    }
    const nameBytes = bytes.subarray(pos + 20, pos + 20 + h.namlen);
    const nul = nameBytes.indexOf(0);
    const name = new TextDecoder("latin1").decode(
      nul >= 0 ? nameBytes.subarray(0, nul) : nameBytes,
    );
    const here = `variable '${name}'`;
    const size = P_SIZE[h.p];
    const count = h.rows * h.cols;
    const dataStart = pos + 20 + h.namlen;
    const need = count * size * (h.imag ? 2 : 1);
    if (need > bytes.length - dataStart) {
      const exact = exactCount([h.rows, h.cols, size, h.imag ? 2 : 1]);
      throw new DataFormatError(
        file,
        `${here}: ${h.rows} x ${h.cols} needs ${exact} bytes of data but only ${bytes.length - dataStart} remain`,
      );
    }
    const kind: VariableKind = h.t === 0 ? "numeric" : h.t === 1 ? "char" : "sparse";
    const { le, p } = h;
    const decode = (): Float64Array => {
      checkFloat64Size(
        exactCount([h.rows, h.cols]),
        maxBytes,
        `its ${h.rows} x ${h.cols} matrix`,
        (problem) => {
          throw new DataFormatError(file, `${here}: ${problem}`);
        },
      );
      const out = new Float64Array(count);
      for (let i = 0, q = dataStart; i < count; i++, q += size) {
        out[i] =
          p === 0
            ? dv.getFloat64(q, le)
            : p === 1
              ? dv.getFloat32(q, le)
              : p === 2
                ? dv.getInt32(q, le)
                : p === 3
                  ? dv.getInt16(q, le)
                  : p === 4
                    ? dv.getUint16(q, le)
                    : dv.getUint8(q);
      }
      return out;
    };
    vars.push({
      name,
      kind,
      className: kind === "char" ? "char" : kind === "sparse" ? "sparse" : P_CLASS[p],
      dims: [h.rows, h.cols],
      complex: h.imag,
      values: () => {
        if (kind === "sparse") {
          throw new DataFormatError(file, `${here} is a sparse matrix; save it as a full matrix`);
        }
        return { data: decode(), order: "F" };
      },
      texts: () => {
        if (kind !== "char") return null;
        const codes = decode();
        const out: string[] = [];
        for (let i = 0; i < h.rows; i++) {
          let s = "";
          for (let j = 0; j < h.cols; j++) s += String.fromCharCode(codes[i + h.rows * j]);
          out.push(s);
        }
        return out;
      },
    });
    pos = dataStart + need;
  }
  return vars;
}
