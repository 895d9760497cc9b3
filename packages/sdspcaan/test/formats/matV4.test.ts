/**
 * The level 4 MAT reader on files built byte by byte: both byte orders, each of the
 * six storage types, char and sparse matrices, complex data, names with and without
 * their NUL, several matrices in a row, and each way a header can be wrong, with the
 * values and the messages checked exactly.
 */
import { concatBytes } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { DataFormatError } from "#internal/core/errors.js";
import { looksLikeMatV4, readMatV4 } from "#internal/formats/matV4.js";
import { parseBytesSync } from "#internal/formats/parse.js";

interface V4 {
  name: string;
  rows: number;
  cols: number;
  /** Column-major values (real part, then the imaginary part when `imag`). */
  values: number[];
  /** P: 0 double, 1 single, 2 int32, 3 int16, 4 uint16, 5 uint8. */
  p?: number;
  /** T: 0 numeric, 1 text, 2 sparse. */
  t?: number;
  le?: boolean;
  imag?: boolean;
  /** The name's length as written (with its NUL unless `noNul`). */
  noNul?: boolean;
  /** Overrides of the header's five int32 fields. */
  header?: Partial<Record<"type" | "rows" | "cols" | "imagf" | "namlen", number>>;
}

const SIZE = [8, 4, 4, 2, 2, 1];

/** One matrix of a level 4 file: the 20-byte header, the name, the values. */
function v4(m: V4): Uint8Array {
  const { p = 0, t = 0, le = true } = m;
  const name = new TextEncoder().encode(m.noNul ? m.name : `${m.name}\0`);
  const out = new Uint8Array(20 + name.length + m.values.length * SIZE[p]);
  const dv = new DataView(out.buffer);
  const h = {
    type: (le ? 0 : 1000) + 10 * p + t,
    rows: m.rows,
    cols: m.cols,
    imagf: m.imag ? 1 : 0,
    namlen: name.length,
    ...m.header,
  };
  [h.type, h.rows, h.cols, h.imagf, h.namlen].forEach((v, i) => {
    dv.setInt32(4 * i, v, le);
  });
  out.set(name, 20);
  m.values.forEach((v, i) => {
    const q = 20 + name.length + i * SIZE[p];
    if (p === 0) dv.setFloat64(q, v, le);
    else if (p === 1) dv.setFloat32(q, v, le);
    else if (p === 2) dv.setInt32(q, v, le);
    else if (p === 3) dv.setInt16(q, v, le);
    else if (p === 4) dv.setUint16(q, v, le);
    else dv.setUint8(q, v);
  });
  return out;
}

function file(...parts: Uint8Array[]): Uint8Array {
  return concatBytes(parts);
}

function refusal(bytes: Uint8Array, limits = {}): string {
  try {
    const vars = readMatV4(bytes, "v4.mat", limits);
    for (const v of vars) v.values();
  } catch (err) {
    expect(err).toBeInstanceOf(DataFormatError);
    return (err as Error).message;
  }
  throw new Error("expected a DataFormatError");
}

const TYPES: [number, string, number[]][] = [
  [0, "double", [0.1, -1e300, 5e-324, 2 ** 60, -0, 7]],
  [1, "single", [0.5, -1.25, 2 ** 100, 3, -7, 1e-30].map(Math.fround)],
  [2, "int32", [-2147483648, 2147483647, 0, -1, 5, 6]],
  [3, "int16", [-32768, 32767, 0, -1, 5, 6]],
  [4, "uint16", [0, 65535, 1, 2, 3, 4]],
  [5, "uint8", [0, 255, 1, 2, 3, 4]],
];

describe("readMatV4", () => {
  for (const le of [true, false]) {
    for (const [p, cls, values] of TYPES) {
      it(`reads ${cls} (P = ${p}), ${le ? "little" : "big"}-endian`, () => {
        const [v] = readMatV4(v4({ name: "fea", rows: 3, cols: 2, values, p, le }), "v4.mat");
        expect(v).toMatchObject({ name: "fea", kind: "numeric", className: cls, dims: [3, 2] });
        expect(v.complex).toBe(false);
        expect(Array.from(v.values().data)).toEqual(values);
        expect(v.values().order).toBe("F");
        expect(v.texts()).toBeNull();
      });
    }
  }

  it("reads several matrices, after a complex one too, and finds X and y", () => {
    const bytes = file(
      v4({ name: "z", rows: 1, cols: 2, values: [1, 2, 3, 4], imag: true, p: 3 }),
      v4({ name: "fea", rows: 2, cols: 2, values: [1, 3, 2, 4], le: false }),
      v4({ name: "gnd", rows: 2, cols: 1, values: [1, 2], p: 5, noNul: true }),
    );
    const vars = readMatV4(bytes, "v4.mat");
    expect(vars.map((v) => [v.name, v.complex, v.dims])).toEqual([
      ["z", true, [1, 2]],
      ["fea", false, [2, 2]],
      ["gnd", false, [2, 1]],
    ]);
    expect(Array.from(vars[2].values().data)).toEqual([1, 2]);
    const ds = parseBytesSync(bytes, "v4.mat", { xVar: "fea", yVar: "gnd" });
    expect(ds.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(ds.y).toEqual([1, 2]);
    expect(ds.info.format).toBe("mat-v4");
  });

  it("reads a char matrix as text, row by row", () => {
    const text = ["cat", "dog"];
    const codes = [0, 1, 2].flatMap((j) => text.map((s) => s.charCodeAt(j)));
    const [v] = readMatV4(
      v4({ name: "txt", rows: 2, cols: 3, values: codes, t: 1, p: 4 }),
      "c.mat",
    );
    expect(v).toMatchObject({ kind: "char", className: "char" });
    expect(v.texts()).toEqual(["cat", "dog"]);
    expect(Array.from(v.values().data)).toEqual(codes);
  });

  it("lists a sparse matrix and refuses its values", () => {
    const [v] = readMatV4(
      v4({ name: "sp", rows: 2, cols: 3, values: [1, 2, 3, 4, 5, 6], t: 2 }),
      "s.mat",
    );
    expect(v).toMatchObject({ kind: "sparse", className: "sparse", dims: [2, 3] });
    expect(v.texts()).toBeNull();
    expect(() => v.values()).toThrow(
      new DataFormatError("s.mat", "variable 'sp' is a sparse matrix; save it as a full matrix"),
    );
  });

  it("reads a name with or without its NUL, and stops at the first NUL", () => {
    const a = readMatV4(v4({ name: "abc", rows: 1, cols: 1, values: [1], noNul: true }), "n.mat");
    const b = readMatV4(v4({ name: "abc\0xy", rows: 1, cols: 1, values: [1] }), "n.mat");
    expect([a[0].name, b[0].name]).toEqual(["abc", "abc"]);
  });

  it("refuses values past maxBytes as float64", () => {
    const bytes = v4({ name: "u", rows: 3, cols: 5, values: new Array(15).fill(1), p: 5 });
    expect(refusal(bytes, { maxBytes: 119 })).toBe(
      "v4.mat: variable 'u': its 3 x 5 matrix declares 15 values and needs 120 bytes as float64, more than the 119 bytes limit (maxBytes)",
    );
    expect(Array.from(readMatV4(bytes, "v4.mat", { maxBytes: 120 })[0].values().data)).toHaveLength(
      15,
    );
  });
});

describe("readMatV4 on bad headers", () => {
  const good = v4({ name: "fea", rows: 2, cols: 2, values: [1, 2, 3, 4] });
  const bad = (header: V4["header"], le = true) =>
    refusal(v4({ name: "fea", rows: 2, cols: 2, values: [1, 2, 3, 4], header, le }));
  const invalid = "v4.mat: matrix 1 (at byte 0): not a valid level 4 MAT-file matrix header";

  it("refuses types outside M 0-1, O 0, P 0-5, T 0-2, and a byte order the type denies", () => {
    for (const type of [-1, 1053, 2000, 100, 60, 3, 1100]) expect(bad({ type })).toBe(invalid);
    // "Big-endian" (M = 1) written little-endian, and little-endian's 0 read either way.
    expect(bad({ type: 1000 })).toBe(invalid);
    // The edges that are valid: P = 5 (uint8), T = 2 (sparse), M = 1 (big-endian).
    const valid: [number, boolean][] = [
      [52, true],
      [2, true],
      [50, true],
      [1052, false],
      [1000, false],
    ];
    for (const [type, le] of valid) {
      const p = Math.floor((type % 100) / 10);
      const m = v4({ name: "x", rows: 1, cols: 1, values: [1], p, le, header: { type } });
      const expected = type % 10 === 2 ? "sparse" : p === 5 ? "uint8" : "double";
      expect(readMatV4(m, "ok.mat")[0].className, String(type)).toBe(expected);
    }
  });

  it("refuses negative sizes, an imaginary flag other than 0 and 1, and an empty name", () => {
    expect(bad({ rows: -1 })).toBe(invalid);
    expect(bad({ cols: -1 })).toBe(invalid);
    expect(bad({ imagf: 2 })).toBe(invalid);
    expect(bad({ imagf: -1 })).toBe(invalid);
    expect(bad({ namlen: 0 })).toBe(invalid);
    const empty = readMatV4(v4({ name: "e", rows: 0, cols: 0, values: [] }), "v4.mat");
    expect(empty[0].dims).toEqual([0, 0]);
  });

  it("names the matrix and the byte where a later one goes wrong", () => {
    expect(refusal(file(good, new Uint8Array(5)))).toBe(
      `v4.mat: matrix 2 (at byte ${good.length}): truncated header (5 bytes)`,
    );
    expect(refusal(file(good, good.subarray(0, 19)))).toBe(
      `v4.mat: matrix 2 (at byte ${good.length}): truncated header (19 bytes)`,
    );
    const second = v4({ name: "gnd", rows: 2, cols: 1, values: [1, 2], header: { namlen: 100 } });
    expect(refusal(file(good, second))).toBe(
      `v4.mat: matrix 2 (at byte ${good.length}): name length 100 exceeds the file`,
    );
    const exact = v4({ name: "gnd", rows: 2, cols: 1, values: [1, 2] });
    const namlen = exact.length - 20;
    expect(
      refusal(
        file(
          good,
          v4({ name: "gnd", rows: 2, cols: 1, values: [1, 2], header: { namlen: namlen + 1 } }),
        ),
      ),
    ).toBe(`v4.mat: matrix 2 (at byte ${good.length}): name length ${namlen + 1} exceeds the file`);
    expect(
      refusal(
        file(good, v4({ name: "gnd", rows: 2, cols: 1, values: [1, 2], header: { type: 7 } })),
      ),
    ).toBe(`v4.mat: matrix 2 (at byte ${good.length}): not a valid level 4 MAT-file matrix header`);
  });

  it("refuses data shorter than the sizes declare, quoting the bytes exactly", () => {
    expect(refusal(good.subarray(0, good.length - 1))).toBe(
      "v4.mat: variable 'fea': 2 x 2 needs 32 bytes of data but only 31 remain",
    );
    expect(refusal(v4({ name: "z", rows: 2, cols: 1, values: [1, 2, 3], imag: true }))).toBe(
      "v4.mat: variable 'z': 2 x 1 needs 32 bytes of data but only 24 remain",
    );
    expect(refusal(v4({ name: "h", rows: 2147483647, cols: 2147483647, values: [1] }))).toBe(
      "v4.mat: variable 'h': 2147483647 x 2147483647 needs 36893488113059364872 bytes of data but only 8 remain",
    );
  });
});

describe("looksLikeMatV4", () => {
  it("needs a valid header and the whole name, of at most 4096 bytes", () => {
    const shortest = v4({ name: "x", rows: 0, cols: 0, values: [], noNul: true });
    expect(shortest.length).toBe(21);
    expect(looksLikeMatV4(shortest)).toBe(true);
    expect(looksLikeMatV4(shortest.subarray(0, 20))).toBe(false);
    const one = v4({ name: "x", rows: 1, cols: 1, values: [] });
    expect(one.length).toBe(22);
    expect(looksLikeMatV4(one)).toBe(true);
    expect(looksLikeMatV4(one.subarray(0, 21))).toBe(false);
    expect(looksLikeMatV4(one.subarray(0, 19))).toBe(false);
    expect(looksLikeMatV4(v4({ name: "x".repeat(4095), rows: 1, cols: 1, values: [] }))).toBe(true);
    expect(looksLikeMatV4(v4({ name: "x".repeat(4096), rows: 1, cols: 1, values: [] }))).toBe(
      false,
    );
    expect(
      looksLikeMatV4(v4({ name: "x", rows: 1, cols: 1, values: [], header: { t: 3 } as never })),
    ).toBe(true);
    expect(
      looksLikeMatV4(v4({ name: "x", rows: 1, cols: 1, values: [], header: { type: 3 } })),
    ).toBe(false);
    expect(looksLikeMatV4(v4({ name: "x", rows: 1, cols: 1, values: [], le: false }))).toBe(true);
  });
});

describe("readMatV4 at the edges", () => {
  it("reads a one-byte name without its NUL, and an empty name before a NUL", () => {
    expect(
      readMatV4(v4({ name: "x", rows: 1, cols: 1, values: [2], noNul: true }), "e.mat")[0].name,
    ).toBe("x");
    expect(
      readMatV4(v4({ name: "\0ab", rows: 1, cols: 1, values: [2], noNul: true }), "e.mat")[0].name,
    ).toBe("");
  });

  it("reads a last header of exactly 20 bytes as a header (whose name then exceeds the file)", () => {
    const good = v4({ name: "fea", rows: 1, cols: 1, values: [1] });
    const header = v4({ name: "gnd", rows: 1, cols: 1, values: [1] }).subarray(0, 20);
    expect(refusal(file(good, header))).toBe(
      `v4.mat: matrix 2 (at byte ${good.length}): name length 4 exceeds the file`,
    );
  });

  it("refuses VAX and Cray types (M = 2, 3) and negative types in either byte order", () => {
    for (const le of [true, false]) {
      for (const type of [2000, 3000, 2052, -1000, -1]) {
        const bytes = v4({ name: "x", rows: 1, cols: 1, values: [1], le, header: { type } });
        expect(refusal(bytes), `${type} ${le}`).toBe(
          "v4.mat: matrix 1 (at byte 0): not a valid level 4 MAT-file matrix header",
        );
        expect(looksLikeMatV4(bytes)).toBe(false);
      }
    }
  });
});
