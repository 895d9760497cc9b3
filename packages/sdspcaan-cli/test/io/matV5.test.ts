/**
 * The level 5 reader on files built byte by byte (test/io/matWriter.ts): both byte
 * orders, every storage type under a double class, the small-element packing, and
 * the corruptions a header can carry.
 */
import { deflateSync } from "node:zlib";
import { DataFormatError } from "sdspcaan";
import {
  CLASS,
  MI,
  matrixPayload,
  numeric,
  type WriteArray,
  writeMatV5,
} from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { parseDatasetSync } from "#internal/io/load.js";
import { readMatV5 } from "#internal/io/zlib.js";

const ROWS = [
  [1, 2, 3],
  [4, 5, 6],
  [7, 8, 9],
  [10, 11, 12],
];
const LABELS = [[1], [1], [2], [2]];

function formatErrorOf(f: () => unknown): DataFormatError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(DataFormatError);
    return err as DataFormatError;
  }
  throw new Error("expected a DataFormatError");
}

describe("readMatV5", () => {
  for (const littleEndian of [true, false]) {
    for (const compress of [false, true]) {
      it(`reads ${littleEndian ? "little" : "big"}-endian files ${compress ? "with" : "without"} compression`, () => {
        const bytes = writeMatV5([numeric("fea", ROWS), numeric("gnd", LABELS)], {
          littleEndian,
          compress,
        });
        const ds = parseDatasetSync(bytes, "t.mat");
        expect(ds.X.toRows()).toEqual(ROWS);
        expect(ds.y).toEqual([1, 1, 2, 2]);
        expect(ds.info.compressed).toBe(compress);
      });
    }
  }

  const storages: [string, number, number[][]][] = [
    [
      "miINT8",
      MI.INT8,
      [
        [-128, 127, 0],
        [-1, 1, 5],
        [2, 3, 4],
        [5, 6, 7],
      ],
    ],
    [
      "miUINT8",
      MI.UINT8,
      [
        [0, 255, 1],
        [2, 3, 4],
        [5, 6, 7],
        [8, 9, 10],
      ],
    ],
    [
      "miINT16",
      MI.INT16,
      [
        [-32768, 32767, 0],
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
      ],
    ],
    [
      "miUINT16",
      MI.UINT16,
      [
        [0, 65535, 1],
        [2, 3, 4],
        [5, 6, 7],
        [8, 9, 10],
      ],
    ],
    [
      "miINT32",
      MI.INT32,
      [
        [-2147483648, 2147483647, 0],
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
      ],
    ],
    [
      "miUINT32",
      MI.UINT32,
      [
        [0, 4294967295, 1],
        [2, 3, 4],
        [5, 6, 7],
        [8, 9, 10],
      ],
    ],
    [
      "miINT64",
      MI.INT64,
      [
        [-(2 ** 53), 2 ** 53, 0],
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
      ],
    ],
    [
      "miUINT64",
      MI.UINT64,
      [
        [0, 2 ** 60, 1],
        [2, 3, 4],
        [5, 6, 7],
        [8, 9, 10],
      ],
    ],
    [
      "miSINGLE",
      MI.SINGLE,
      [
        [0.5, -1.25, 2 ** 127],
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
      ],
    ],
    [
      "miDOUBLE",
      MI.DOUBLE,
      [
        [0.1, -1e300, 5e-324],
        [1, 2, 3],
        [4, 5, 6],
        [7, 8, 9],
      ],
    ],
  ];
  for (const [name, storage, rows] of storages) {
    for (const littleEndian of [true, false]) {
      it(`casts ${name} storage of a double array to float64 (${littleEndian ? "LE" : "BE"})`, () => {
        const bytes = writeMatV5(
          [
            numeric("fea", rows, CLASS.DOUBLE, storage),
            numeric("gnd", LABELS, CLASS.DOUBLE, MI.UINT8),
          ],
          { littleEndian },
        );
        expect(parseDatasetSync(bytes, "t.mat").X.toRows()).toEqual(rows);
      });
    }
  }

  it("reads data at an odd offset inside a compressed stream (misaligned typed arrays)", () => {
    // A 1-character name shifts nothing (elements are padded), so shift by hand: a
    // 9-byte name pads to 16, a 5-byte one to 8; both must give the same values.
    for (const name of ["f", "abcde", "abcdefghi"]) {
      const bytes = writeMatV5([numeric(name, ROWS, CLASS.DOUBLE, MI.DOUBLE)], { compress: true });
      const v = readMatV5(bytes, "t.mat").variables[0];
      expect(v.name).toBe(name);
      expect(Array.from(v.values().data)).toEqual([1, 4, 7, 10, 2, 5, 8, 11, 3, 6, 9, 12]);
    }
  });

  it("reads scalars in the small-data-element packing", () => {
    const bytes = writeMatV5([
      { name: "h", classId: CLASS.DOUBLE, dims: [1, 1], storage: MI.UINT8, values: [16] },
      { name: "w", classId: CLASS.DOUBLE, dims: [1, 2], storage: MI.INT16, values: [-3, 300] },
    ]);
    const vars = readMatV5(bytes, "t.mat").variables;
    expect(vars.map((v) => [v.name, Array.from(v.values().data)])).toEqual([
      ["h", [16]],
      ["w", [-3, 300]],
    ]);
  });

  it("reads char and cell arrays of strings as labels", () => {
    const chars = (s: string): WriteArray => ({
      name: "",
      classId: CLASS.CHAR,
      dims: [1, s.length],
      storage: MI.UINT16,
      values: [...s].map((c) => c.charCodeAt(0)),
    });
    const cell: WriteArray = {
      name: "gnd",
      classId: CLASS.CELL,
      dims: [4, 1],
      storage: MI.DOUBLE,
      values: [],
      cells: ["ab", "ab", "c", "c"].map(chars),
    };
    for (const compress of [false, true]) {
      const ds = parseDatasetSync(writeMatV5([numeric("fea", ROWS), cell], { compress }), "t.mat");
      expect(ds.y).toEqual(["ab", "ab", "c", "c"]);
    }
  });

  it("reads the header's byte order and refuses a v7.3 header or other versions", () => {
    const good = writeMatV5([numeric("fea", ROWS)]);
    const v73 = good.slice();
    new DataView(v73.buffer).setUint16(124, 0x0200, true);
    expect(formatErrorOf(() => readMatV5(v73, "a.mat")).message).toContain("v7.3");
    const v9 = good.slice();
    new DataView(v9.buffer).setUint16(124, 0x0900, true);
    expect(formatErrorOf(() => readMatV5(v9, "a.mat")).message).toContain("version 0x0900");
    const noMark = good.slice();
    noMark[126] = 0;
    expect(formatErrorOf(() => readMatV5(noMark, "a.mat")).message).toContain("byte-order");
  });
});

describe("readMatV5 on corrupt files", () => {
  const valid = writeMatV5([numeric("fea", ROWS), numeric("gnd", LABELS)]);

  it("refuses a truncated file, naming the file and the variable", () => {
    for (const cut of [0, 100, 128, 131, 140, 200, valid.length - 1]) {
      const err = formatErrorOf(() => parseDatasetSync(valid.subarray(0, cut), "cut.mat"));
      expect(err.file).toBe("cut.mat");
      expect(err.message.startsWith("cut.mat: ")).toBe(true);
    }
  });

  it("refuses dimensions declaring 2^40 elements without allocating them", () => {
    const a = numeric("fea", ROWS);
    a.dims = [2 ** 20, 2 ** 20];
    const bytes = writeMatV5([a]);
    const before = process.memoryUsage().arrayBuffers;
    const err = formatErrorOf(() =>
      parseDatasetSync(bytes, "huge.mat", { xVar: "fea", labelColumn: "last" }),
    );
    expect(err.message).toContain("variable 'fea'");
    expect(err.message).toContain("1048576 x 1048576");
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses an element declaring more bytes than the file holds", () => {
    const bytes = valid.slice();
    new DataView(bytes.buffer).setUint32(132, 0x7fffffff, true);
    expect(formatErrorOf(() => readMatV5(bytes, "big.mat")).message).toMatch(
      /declares 2147483647 bytes but only \d+ remain/,
    );
  });

  it("refuses a compressed variable whose stream is garbage, truncated or longer than declared", () => {
    const z = writeMatV5([numeric("fea", ROWS)], { compress: true });
    const garbage = z.slice();
    for (let i = 136; i < garbage.length; i++) garbage[i] = (i * 37) & 0xff;
    expect(formatErrorOf(() => readMatV5(garbage, "g.mat").variables[0].values()).message).toMatch(
      /compressed/,
    );

    const truncated = z.slice();
    const dv = new DataView(truncated.buffer);
    const half = Math.floor((truncated.length - 136) / 2);
    dv.setUint32(132, half, true);
    const cut = truncated.subarray(0, 136 + half);
    expect(formatErrorOf(() => readMatV5(cut, "t.mat").variables[0].values()).message).toMatch(
      /variable 'fea'|compressed/,
    );

    // The inner tag claims fewer bytes than the stream really holds.
    const payload = matrixPayload(numeric("fea", ROWS), true);
    const inner = new Uint8Array(8 + payload.length + 64);
    const idv = new DataView(inner.buffer);
    idv.setUint32(0, MI.MATRIX, true);
    idv.setUint32(4, payload.length, true);
    inner.set(payload, 8);
    const zz = deflateSync(inner);
    const file = new Uint8Array(136 + zz.length);
    file.set(z.subarray(0, 128), 0);
    new DataView(file.buffer).setUint32(128, MI.COMPRESSED, true);
    new DataView(file.buffer).setUint32(132, zz.length, true);
    file.set(zz, 136);
    expect(
      formatErrorOf(() => readMatV5(file, "long.mat").variables[0].values()).message,
    ).toContain("expands beyond its declared");
  });

  it("refuses a compressed variable declaring more than deflate can produce", () => {
    const z = writeMatV5([numeric("fea", ROWS)], { compress: true });
    const payload = matrixPayload(numeric("fea", ROWS), true);
    const inner = new Uint8Array(8 + payload.length);
    const idv = new DataView(inner.buffer);
    idv.setUint32(0, MI.MATRIX, true);
    idv.setUint32(4, 0xfffffff0, true);
    inner.set(payload, 8);
    const zz = deflateSync(inner);
    const file = new Uint8Array(136 + zz.length);
    file.set(z.subarray(0, 128), 0);
    new DataView(file.buffer).setUint32(128, MI.COMPRESSED, true);
    new DataView(file.buffer).setUint32(132, zz.length, true);
    file.set(zz, 136);
    const err = formatErrorOf(() => readMatV5(file, "bomb.mat"));
    expect(err.message).toMatch(/limit|impossible/);
  });

  it("refuses data whose length does not match the dimensions", () => {
    const a = numeric("fea", ROWS);
    a.values = a.values.slice(0, 11);
    expect(formatErrorOf(() => readMatV5(writeMatV5([a]), "short.mat")).message).toContain(
      "need 96 bytes of miDOUBLE but the data element holds 88",
    );
  });

  it("refuses a cell array declaring more elements than bytes", () => {
    const cell: WriteArray = {
      name: "c",
      classId: CLASS.CELL,
      dims: [1000000, 1000],
      storage: 0,
      values: [],
      cells: [],
    };
    expect(formatErrorOf(() => readMatV5(writeMatV5([cell]), "cell.mat")).message).toContain(
      "declares 1000000000 elements",
    );
  });

  it("refuses NaN and infinity in X, naming row and column", () => {
    const rows = ROWS.map((r) => [...r]);
    rows[2][1] = Number.POSITIVE_INFINITY;
    const err = formatErrorOf(() =>
      parseDatasetSync(writeMatV5([numeric("fea", rows), numeric("gnd", LABELS)]), "inf.mat"),
    );
    expect(err.message).toContain("Infinity at row 2, column 1");
  });
});
