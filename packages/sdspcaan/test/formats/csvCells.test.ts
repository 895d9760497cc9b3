/**
 * The cells of delimited text, at their edges: a number read from the bytes stops at
 * the cell's end even when digits, a decimal mark or an exponent follow it in the
 * buffer; and a number written in a notation the reader does not guess at gets its own
 * message, word for word, while anything else around the pattern gets none.
 */
import { describe, expect, it } from "vitest";
import { cellValue, isAscii, numberAt, numberNotationProblem } from "#internal/formats/csvCells.js";

/** numberAt on `cell`, followed in the buffer by `after` (which is not part of the cell). */
function fastBefore(cell: string, after: string, mark = 0x2e): number {
  const b = new TextEncoder().encode(`${cell}${after}`);
  return numberAt(b, 0, cell.length, mark);
}

describe("numbers read from the bytes stop at the cell's end", () => {
  it("whatever digits, marks or exponents follow in the buffer", () => {
    expect(fastBefore("12", "34")).toBe(12);
    expect(fastBefore("12", ".5")).toBe(12);
    expect(fastBefore("1.2", "3")).toBe(1.2);
    expect(fastBefore("12", "e5")).toBe(12);
    expect(fastBefore("1e5", "5")).toBe(1e5);
    expect(fastBefore("1,2", "3", 0x2c)).toBe(1.2);
  });

  it("read every digit, 9 included, in the fraction and the exponent", () => {
    expect(fastBefore("1.9", "")).toBe(1.9);
    expect(fastBefore("0.99", "")).toBe(0.99);
    expect(fastBefore("1e9", "")).toBe(1e9);
    expect(fastBefore("3e19", "")).toBe(3e19);
  });

  it("count only significant digits: leading zeros of a fraction do not use up the 15", () => {
    expect(fastBefore("0.00000000000000001", "")).toBe(1e-17);
    expect(fastBefore("0.000000000000000123", "")).toBe(1.23e-16);
  });

  it("refuse a byte that is not a digit in the exponent, even one just below '0'", () => {
    // '/' is the byte before '0': read as a digit it would be -1.
    expect(fastBefore("1e/", "")).toBeNaN();
    expect(fastBefore("1e1/", "")).toBeNaN();
  });
});

describe("ASCII and the decimal comma's value", () => {
  it("takes DEL (0x7f) as ASCII and 0x80 not", () => {
    expect(isAscii(Uint8Array.of(0x41, 0x7f), 0, 2)).toBe(true);
    expect(isAscii(Uint8Array.of(0x41, 0x80), 0, 2)).toBe(false);
  });

  it("reads a decimal comma as the decimal point", () => {
    expect(cellValue("1,5", ",")).toBe(1.5);
    expect(cellValue("-0,25", ",")).toBe(-0.25);
    expect(cellValue("1.5e3", ".")).toBe(1500);
  });
});

describe("numbers in a notation the reader does not guess at", () => {
  const decimalComma = (s: string) =>
    `'${s}' is a number written with a decimal comma; read the file with --decimal-comma (decimal: ","), or write numbers with a decimal point (and separate fields with ',', ';' or tabs)`;
  const thousands = (s: string, plain: string) =>
    `'${s}' is a number written with thousands separators; write it without them (${plain}): separators are not read, as ',' may also be a decimal comma`;
  const ambiguous = (s: string, comma: string, plain: string) =>
    `'${s}' is ambiguous: ${comma} written with a decimal comma, or ${plain} with a comma between thousands; read decimal commas with --decimal-comma (decimal: ","), or write the number without thousands separators`;
  const pointThousands = (s: string, plain: string) =>
    `'${s}' is a number written with a point between thousands (or a decimal point) in a file read with decimal commas; write it without thousands separators (${plain})`;
  const decimalPoint = (s: string) =>
    `'${s}' is a number written with a decimal point, but the file is read with decimal commas (decimal: ","); read it without --decimal-comma`;

  it("names a decimal comma, signed or padded, in a file read with decimal points", () => {
    expect(numberNotationProblem("1,5", ".")).toBe(decimalComma("1,5"));
    expect(numberNotationProblem("-12,25", ".")).toBe(decimalComma("-12,25"));
    expect(numberNotationProblem("+1,5", ".")).toBe(decimalComma("+1,5"));
    expect(numberNotationProblem(" 1,5 ", ".")).toBe(decimalComma(" 1,5 "));
  });

  it("names thousands separators, with or without a fraction, and says when both readings fit", () => {
    expect(numberNotationProblem("2,189.05", ".")).toBe(thousands("2,189.05", "2189.05"));
    expect(numberNotationProblem("1,000,000.5", ".")).toBe(thousands("1,000,000.5", "1000000.5"));
    expect(numberNotationProblem("-1,000,000", ".")).toBe(thousands("-1,000,000", "-1000000"));
    expect(numberNotationProblem("1,000", ".")).toBe(ambiguous("1,000", "1.000", "1000"));
    expect(numberNotationProblem("674,577", ".")).toBe(ambiguous("674,577", "674.577", "674577"));
  });

  it("says nothing of text around those patterns, in a file read with decimal points", () => {
    for (const s of [
      "a1,5",
      "1,5a",
      "x1,000.5",
      "1,000.5x",
      "a1,000",
      "1,5.5",
      "1234,567.5",
      "1.5",
      "abc",
      "",
    ]) {
      expect(numberNotationProblem(s, "."), s).toBeNull();
    }
  });

  it("names points between thousands and decimal points in a file read with decimal commas", () => {
    expect(numberNotationProblem("2.189,05", ",")).toBe(pointThousands("2.189,05", "2189,05"));
    expect(numberNotationProblem("1.000.000", ",")).toBe(pointThousands("1.000.000", "1000000"));
    expect(numberNotationProblem("12.345", ",")).toBe(pointThousands("12.345", "12345"));
    expect(numberNotationProblem("-1.000", ",")).toBe(pointThousands("-1.000", "-1000"));
    expect(numberNotationProblem("1.000,", ",")).toBe(pointThousands("1.000,", "1000,"));
    for (const s of ["1.5", "12.5", "+1.5", ".55", "1.5e10", "1.5E-3", "1.5e+3", "3.e7"]) {
      expect(numberNotationProblem(s, ","), s).toBe(decimalPoint(s));
    }
  });

  it("says nothing of text around those patterns, in a file read with decimal commas", () => {
    for (const s of [
      "x1.000",
      "1.000x",
      "a1.000",
      "1.000,2x",
      "x1.5",
      "a1.5",
      "1.5x",
      "1.5e",
      "1.5ex",
      "1.5e+",
      ".x",
      "1,5",
      "abc",
    ]) {
      expect(numberNotationProblem(s, ","), s).toBeNull();
    }
  });
});
