/**
 * The data elements of a level 5 MAT-file on their own: the tag and its small-element
 * packing, bounds named in words, and numeric values decoded from any offset in either
 * byte order (views where the machine's order and alignment allow, copies or float64
 * otherwise). Inputs are generated (fast-check) where the property holds for any.
 */
import fc from "fast-check";
import { concatBytes, encodeValues, MI } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { Bytes, decodeNumeric, elementAt } from "#internal/formats/matV5Elements.js";

/** `data` at `offset` of a buffer that ends with it. */
function placed(data: Uint8Array, offset: number): Uint8Array {
  const buffer = new Uint8Array(offset + data.length);
  buffer.set(data, offset);
  return buffer.subarray(offset);
}

function tag(le: boolean, first: number, second: number): Uint8Array {
  return encodeValues([first, second], MI.UINT32, le);
}

describe("elementAt", () => {
  it.each([
    [0, "0 bytes"],
    [1, "1 byte"],
    [7, "7 bytes"],
  ])("names the %i bytes left where a tag is needed", (left, bytes) => {
    expect(elementAt(new Bytes(new Uint8Array(20), true), 20 - left, 20)).toBe(
      `truncated data element: ${bytes} left where an 8-byte tag is needed`,
    );
  });

  it.each([true, false])("unpacks small elements of 1 to 4 bytes (little-endian %s)", (le) => {
    for (const n of [1, 2, 3, 4]) {
      const b = new Bytes(placed(tag(le, (n << 16) | MI.UINT8, 0), 0), le);
      expect(elementAt(b, 0, 8)).toEqual({ type: MI.UINT8, start: 4, nbytes: n, next: 8 });
    }
    const five = new Bytes(tag(le, (5 << 16) | MI.UINT8, 0), le);
    expect(elementAt(five, 0, 8)).toBe("small data element declares 5 bytes (at most 4 fit)");
  });

  it("pads the next element to 8 bytes, but not past the end", () => {
    const b = new Bytes(concatBytes([tag(true, MI.INT8, 3), new Uint8Array(13)]), true);
    expect(elementAt(b, 0, 21)).toEqual({ type: MI.INT8, start: 8, nbytes: 3, next: 16 });
    expect(elementAt(b, 0, 11)).toEqual({ type: MI.INT8, start: 8, nbytes: 3, next: 11 });
    expect(elementAt(b, 0, 10)).toBe(
      "miINT8 element declares 3 bytes but only 2 remain (the file is truncated or corrupt)",
    );
  });
});

/** Each numeric storage type with values it holds exactly. */
const TYPES: [number, fc.Arbitrary<number>][] = [
  [MI.INT8, fc.integer({ min: -128, max: 127 })],
  [MI.UINT8, fc.integer({ min: 0, max: 255 })],
  [MI.INT16, fc.integer({ min: -32768, max: 32767 })],
  [MI.UINT16, fc.integer({ min: 0, max: 65535 })],
  [MI.INT32, fc.integer()],
  [MI.UINT32, fc.nat({ max: 2 ** 32 - 1 })],
  [MI.SINGLE, fc.float({ noNaN: true }).map(Math.fround)],
  [MI.DOUBLE, fc.double({ noNaN: true })],
  [MI.INT64, fc.integer({ min: -(2 ** 53), max: 2 ** 53 })],
  [MI.UINT64, fc.nat({ max: 2 ** 53 })],
];

describe("decodeNumeric", () => {
  it.each(TYPES)("decodes type %i at any offset, in either byte order", (type, value) => {
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 6 }),
        fc.nat({ max: 7 }),
        fc.boolean(),
        (values, offset, le) => {
          const bytes = placed(encodeValues(values, type, le), offset);
          const out = decodeNumeric(new Bytes(bytes, le), 0, values.length, type);
          expect(Array.from(out)).toEqual(values);
        },
      ),
    );
  });

  it("views aligned values in the machine's order, copies misaligned ones, converts the rest", () => {
    const values = [-1, 2, 2147483647];
    for (const le of [true, false]) {
      for (const offset of [0, 1, 2, 4]) {
        const bytes = placed(encodeValues(values, MI.INT32, le), offset);
        const out = decodeNumeric(new Bytes(bytes, le), 0, 3, MI.INT32);
        expect(Array.from(out)).toEqual(values);
        const kind = !le ? Float64Array : Int32Array;
        expect(out).toBeInstanceOf(kind);
        expect(out.buffer === bytes.buffer).toBe(le && offset % 4 === 0);
      }
    }
  });
});
