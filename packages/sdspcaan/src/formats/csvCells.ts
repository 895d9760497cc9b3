/**
 * The cells of delimited text: numbers read straight from the bytes (no string per
 * cell), missing-value spellings, text, and numbers written in a way the reader will
 * not guess at (a decimal comma, thousands separators). The byte path and the string
 * path decide alike: a cell is a number exactly when `isNumericString` (or, with
 * decimal commas, the same pattern with "," for ".") accepts it, and its value is
 * `Number(...)` of it, bit for bit.
 */
import { isMissingSpelling, isNumericString } from "./labels.js";

/** The character between a number's integer and fractional digits. */
export type DecimalMark = "." | ",";

/** Exact powers of ten: a product or quotient with one of them is correctly rounded. */
const POW10 = [
  1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
  1e18, 1e19, 1e20, 1e21, 1e22,
];

const DIGIT_0 = 0x30;
const PLUS = 0x2b;
const MINUS = 0x2d;

/** Returned by `numberAt` for bytes that are not a plain decimal number (or need the slow path). */
export const NOT_FAST = Number.NaN;

/**
 * The value of the decimal number in `buf[start, end)`, or NaN when the bytes are not
 * one that the fast path reads exactly: at most 15 significant digits and a decimal
 * exponent within +-22 (Clinger's fast path: one correctly rounded product or
 * quotient of two exact doubles, so the result is Number()'s). Anything else (a longer
 * mantissa, a large exponent, text) goes to `cellNumber` on the string.
 */
export function numberAt(buf: Uint8Array, start: number, end: number, mark: number): number {
  let p = start;
  if (p === end) return NOT_FAST;
  let negative = false;
  const c0 = buf[p];
  if (c0 === MINUS || c0 === PLUS) {
    negative = c0 === MINUS;
    p++;
  }
  let mantissa = 0;
  let significant = 0;
  let digits = 0;
  let fraction = 0;
  for (; p < end; p++) {
    const d = buf[p] - DIGIT_0;
    if (d < 0 || d > 9) break;
    digits++;
    if (significant > 0 || d !== 0) {
      mantissa = mantissa * 10 + d;
      significant++;
    }
  }
  if (p < end && buf[p] === mark) {
    p++;
    for (; p < end; p++) {
      const d = buf[p] - DIGIT_0;
      if (d < 0 || d > 9) break;
      digits++;
      fraction++;
      if (significant > 0 || d !== 0) {
        mantissa = mantissa * 10 + d;
        significant++;
      }
    }
  }
  if (digits === 0 || significant > 15) return NOT_FAST;
  let exponent = 0;
  if (p < end && (buf[p] | 0x20) === 0x65) {
    p++;
    let expNegative = false;
    if (p < end && (buf[p] === MINUS || buf[p] === PLUS)) {
      expNegative = buf[p] === MINUS;
      p++;
    }
    const expStart = p;
    for (; p < end && p - expStart < 4; p++) {
      const d = buf[p] - DIGIT_0;
      if (d < 0 || d > 9) break;
      exponent = exponent * 10 + d;
    }
    if (p === expStart || p !== end) return NOT_FAST;
    if (expNegative) exponent = -exponent;
  }
  if (p !== end) return NOT_FAST;
  const scale = exponent - fraction;
  let v: number;
  if (mantissa === 0) v = 0;
  else if (scale >= 0 && scale <= 22) v = mantissa * POW10[scale];
  else if (scale < 0 && scale >= -22) v = mantissa / POW10[-scale];
  else return NOT_FAST;
  return negative ? -v : v;
}

/** True when every byte of `buf[start, end)` is ASCII. */
export function isAscii(buf: Uint8Array, start: number, end: number): boolean {
  for (let p = start; p < end; p++) if (buf[p] > 0x7f) return false;
  return true;
}

/** `buf[start, end)` of ASCII bytes as a string. */
export function asciiString(buf: Uint8Array, start: number, end: number): string {
  let s = "";
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let p = start; p < end; p += 8192) {
    s += String.fromCharCode.apply(
      null,
      buf.subarray(p, Math.min(end, p + 8192)) as unknown as number[],
    );
  }
  return s;
}

/**
 * True when `s` is a number in the file's notation: `isNumericString`, or the same with
 * a decimal comma ("1,5", "-0,25").
 */
export function isNumberCell(s: string, mark: DecimalMark): boolean {
  // The patterns here and below are written where they are used (not as module
  // constants), so that a mutation test runs only the tests that reach them.
  return mark === "." ? isNumericString(s) : /^[+-]?(?:\d+,?\d*|,\d+)(?:[eE][+-]?\d+)?$/.test(s);
}

/** The value of a cell `isNumberCell` accepted (Infinity when it overflows float64). */
export function cellValue(s: string, mark: DecimalMark): number {
  return Number(mark === "." ? s : s.replace(",", "."));
}

/** What a cell holds. */
export const CELL_NUMBER = 0;
export const CELL_MISSING = 1;
export const CELL_TEXT = 2;

/** Number, missing-value spelling ("", "?", "NaN", ...) or text. */
export function cellKind(s: string, mark: DecimalMark): number {
  if (isNumberCell(s, mark)) return CELL_NUMBER;
  return isMissingSpelling(s) ? CELL_MISSING : CELL_TEXT;
}

/**
 * Why a text cell that looks like a number is not read as one, or null: written with
 * a decimal comma, thousands separators, or a decimal point in a file read with
 * decimal commas. Said outright rather than dropping or refusing the cell as text.
 */
export function numberNotationProblem(s: string, mark: DecimalMark): string | null {
  const t = s.trim();
  if (mark === ".") {
    // A decimal comma ("1,5": one comma between digits); thousands separated by commas,
    // perhaps with a decimal point ("2,189.05", "1,000").
    const comma = /^[+-]?\d+,\d+$/.test(t);
    const thousands = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?$/.test(t);
    if (comma && thousands) {
      return `'${s}' is ambiguous: ${t.replace(",", ".")} written with a decimal comma, or ${t.replace(/,/g, "")} with a comma between thousands; read decimal commas with --decimal-comma (decimal: ","), or write the number without thousands separators`;
    }
    if (comma) {
      return `'${s}' is a number written with a decimal comma; read the file with --decimal-comma (decimal: ","), or write numbers with a decimal point (and separate fields with ',', ';' or tabs)`;
    }
    if (thousands) {
      return `'${s}' is a number written with thousands separators; write it without them (${t.replace(/,/g, "")}): separators are not read, as ',' may also be a decimal comma`;
    }
    return null;
  }
  // Thousands separated by points, perhaps with a decimal comma ("2.189,05", "1.000").
  if (/^[+-]?\d{1,3}(?:\.\d{3})+(?:,\d*)?$/.test(t)) {
    return `'${s}' is a number written with a point between thousands (or a decimal point) in a file read with decimal commas; write it without thousands separators (${t.replace(/\./g, "")})`;
  }
  if (/^[+-]?(?:\d+\.\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(t)) {
    return `'${s}' is a number written with a decimal point, but the file is read with decimal commas (decimal: ","); read it without --decimal-comma`;
  }
  return null;
}
