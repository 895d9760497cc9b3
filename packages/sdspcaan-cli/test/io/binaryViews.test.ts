/**
 * Every binary reader on the bytes as they really arrive: a Node Buffer read from
 * disk (a view into a larger, pooled ArrayBuffer), a Buffer.from copy, and
 * subarrays starting at each odd byte of a larger buffer, raw and gzip-compressed;
 * and MAT v5 files written by scipy that mix compressed and uncompressed variables
 * (scripts/fixtures/io_mixed_layouts.py), where an odd-length compressed element
 * leaves every later value misaligned. Each read gives the values a plain,
 * aligned Uint8Array gives, and those are the values scipy wrote.
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import {
  decompressionStreamInflate,
  type LoadedDataset,
  type ParseOptions,
  parseBytes,
  readMatV5 as readMatV5With,
} from "sdspcaan/formats";
import { nodeInflater } from "sdspcaan/node";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { loadDataset, parseDataset } from "#internal/io/load.js";
import { readMatV5 } from "#internal/io/zlib.js";

interface MixedFile {
  file: string;
  /** [offset, type, length] of each top-level element. */
  elements: [number, number, number][];
  /** Each variable's values as float64, column-major (char arrays as character codes). */
  values: Record<string, number[]>;
  X: number[][];
  y: number[];
}

const mixed = JSON.parse(readFileSync(fixtureFile("io/mixed.json"), "utf8")) as {
  files: MixedFile[];
};

/** `bytes` copied to start at byte `offset` of a larger ArrayBuffer (a view, as a Buffer slice is). */
function at(bytes: Uint8Array, offset: number): Uint8Array {
  const big = new Uint8Array(offset + bytes.length + 5);
  big.fill(0xa5);
  big.set(bytes, offset);
  return big.subarray(offset, offset + bytes.length);
}

/** The same bytes in each of the ways a caller may hold them. */
function holders(bytes: Uint8Array): [string, Uint8Array][] {
  return [
    ["a plain Uint8Array", new Uint8Array(bytes)],
    ["a pooled Buffer.from copy", Buffer.from(bytes)],
    ...[1, 2, 3, 4, 5, 6, 7].map((o): [string, Uint8Array] => [
      `a view at offset ${o}`,
      at(bytes, o),
    ]),
    ...[1, 3, 5].map((o): [string, Uint8Array] => [
      `a Buffer slice at offset ${o}`,
      Buffer.from(at(bytes, o).buffer).subarray(o, o + bytes.length),
    ]),
  ];
}

function summary(ds: LoadedDataset) {
  return { X: ds.X.toRows(), y: ds.y, xVar: ds.info.xVar, yVar: ds.info.yVar };
}

describe("MAT v5 files mixing compressed and uncompressed variables (scipy)", () => {
  for (const m of mixed.files) {
    const path = fixtureFile(`io/${m.file}`);

    it(`${m.file}: holds an odd-length compressed element before uncompressed values`, () => {
      const odd = m.elements.findIndex(([, type, n]) => type === 15 && n % 2 === 1);
      expect(odd).toBeGreaterThanOrEqual(0);
      expect(
        m.elements.slice(odd + 1).some(([offset, type]) => type === 14 && offset % 8 !== 0),
      ).toBe(true);
    });

    it(`${m.file}: every variable read from the file on disk has scipy's values`, () => {
      const fromDisk = readFileSync(path);
      const vars = readMatV5(fromDisk, m.file).variables;
      expect(vars.map((v) => v.name).sort()).toEqual(Object.keys(m.values).sort());
      for (const v of vars) {
        expect(Array.from(v.values().data), v.name).toEqual(m.values[v.name]);
      }
      expect(vars.find((v) => v.name === "txt")?.texts()).toEqual(["héllo wörld"]);
    });

    it(`${m.file}: loadDataset reads X and y as scipy wrote them, for every storage type`, async () => {
      for (const xVar of Object.keys(m.values).filter((k) => k.startsWith("d_"))) {
        const ds = await loadDataset(path, { xVar, yVar: "gnd" });
        const d = m.X[0].length;
        const rows = m.X.map((_, i) =>
          Array.from({ length: d }, (_, j) => m.values[xVar][i + m.X.length * j]),
        );
        expect(ds.X.toRows(), xVar).toEqual(rows);
        expect(ds.y).toEqual(m.y);
      }
    });

    it(`${m.file}: gives the same data set however its bytes are held, with either inflater`, async () => {
      const bytes = new Uint8Array(readFileSync(path));
      const expected = summary(
        await parseDataset(bytes, m.file, { xVar: "d_double", yVar: "gnd" }),
      );
      expect(expected.X).toEqual(m.X);
      for (const [how, held] of holders(bytes)) {
        for (const inflation of [nodeInflater, decompressionStreamInflate]) {
          const ds = await parseBytes(held, m.file, { xVar: "d_double", yVar: "gnd" }, inflation);
          expect(summary(ds), how).toEqual(expected);
        }
        const vars = readMatV5With(held, m.file, {}, nodeInflater).variables;
        for (const v of vars)
          expect(Array.from(v.values().data), `${how}: ${v.name}`).toEqual(m.values[v.name]);
      }
    });
  }
});

/** The committed binary fixtures and how each is read (its roundtrip.json options). */
const BINARY: [string, ParseOptions][] = [
  ["rt_types_u.mat", { xVar: "d_int16", yVar: "gnd" }],
  ["rt_types_z.mat", { xVar: "d_uint64", yVar: "gnd" }],
  ["rt_feagnd_z.mat", {}],
  ["rt_special.mat", {}],
  ["rt_cellstr.mat", {}],
  ["rt_charlabels.mat", {}],
  ["rt_onehot_t.mat", {}],
  ["rt_v4.mat", {}],
  ["rt_c_f8.npy", {}],
  ["rt_f_f8.npy", {}],
  ["rt_be_f8.npy", {}],
  ["rt_c_f4.npy", {}],
  ["rt_c_f2.npy", {}],
  ["rt_c_i4.npy", {}],
  ["rt_f_u1.npy", {}],
  ["rt_c_i8.npy", {}],
  ["rt_v73.mat", {}],
  ["rt_plain.h5", { xVar: "X", yVar: "y" }],
];

describe("every binary reader on Buffers and misaligned views, raw and gzip-compressed", () => {
  for (const [file, options] of BINARY) {
    it(`${file}`, async () => {
      const path = fixtureFile(`io/${file}`);
      const expected = summary(await loadDataset(path, options));
      const bytes = new Uint8Array(readFileSync(path));
      const gz = new Uint8Array(gzipSync(bytes));
      for (const [how, held] of holders(bytes)) {
        expect(summary(await parseBytes(held, file, options, nodeInflater)), how).toEqual(expected);
      }
      // A gzip-compressed copy (X.npy.gz), but not HDF5, which is read from the file as it is.
      if (!file.endsWith(".h5") && file !== "rt_v73.mat") {
        for (const [how, held] of holders(gz)) {
          for (const inflation of [nodeInflater, decompressionStreamInflate]) {
            const ds = await parseBytes(held, `${file}.gz`, options, inflation);
            expect(summary(ds), `gzip, ${how}`).toEqual(expected);
          }
        }
      }
    });
  }
});

/** An IDX file of `type` (big-endian values) with `shape`. */
function idxFile(code: number, size: number, shape: number[], values: number[]): Uint8Array {
  const head = 4 + 4 * shape.length;
  const out = new Uint8Array(head + values.length * size);
  const dv = new DataView(out.buffer);
  out[2] = code;
  out[3] = shape.length;
  shape.forEach((d, i) => {
    dv.setUint32(4 + 4 * i, d, false);
  });
  values.forEach((v, i) => {
    const p = head + i * size;
    if (code === 0x08) dv.setUint8(p, v);
    else if (code === 0x09) dv.setInt8(p, v);
    else if (code === 0x0b) dv.setInt16(p, v, false);
    else if (code === 0x0c) dv.setInt32(p, v, false);
    else if (code === 0x0d) dv.setFloat32(p, v, false);
    else dv.setFloat64(p, v, false);
  });
  return out;
}

describe("IDX on Buffers and misaligned views, raw and gzip-compressed", () => {
  const values = [0, 1, -2, 3, -4, 5, 100, -100, 7, 8, -9, 10];
  const types: [string, number, number, number[]][] = [
    ["uint8", 0x08, 1, values.map((v) => Math.abs(v))],
    ["int8", 0x09, 1, values],
    ["int16", 0x0b, 2, values.map((v) => v * 300)],
    ["int32", 0x0c, 4, values.map((v) => v * 20_000_000)],
    ["float32", 0x0d, 4, values.map((v) => v / 4)],
    ["float64", 0x0e, 8, values.map((v) => v / 3)],
  ];
  for (const [name, code, size, vals] of types) {
    it(`${name} images (3 x 2 x 2)`, async () => {
      const bytes = idxFile(code, size, [3, 2, 2], vals);
      for (const [how, held] of [...holders(bytes), ...holders(new Uint8Array(gzipSync(bytes)))]) {
        for (const inflation of [nodeInflater, decompressionStreamInflate]) {
          const ds = await parseBytes(held, "x-idx3-ubyte.gz", { labels: "optional" }, inflation);
          expect(Array.from(ds.X.data), how).toEqual(vals);
          expect([ds.X.rows, ds.X.cols]).toEqual([3, 4]);
        }
      }
    });
  }
});
