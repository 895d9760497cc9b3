/**
 * Binary files that declare more than they hold, or more than the limits allow, are
 * refused from their headers before anything is inflated or decoded; a data set
 * without labels is refused before its (perhaps large) X is; and a compressed file
 * read without an inflater is inflated with DecompressionStream by the asynchronous
 * readers, and refused by the synchronous ones saying what to pass. An inflater that counts what it
 * inflates shows what was done before the refusal.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import {
  listVariables,
  loadDataset,
  loadFeatures,
  loadLabels,
  nodeInflater,
  parseDataset,
  parseDatasetSync,
} from "sdspcaan/node";
import {
  CLASS,
  errorOf,
  MI,
  matrixPayload,
  npyBytes,
  numeric,
  removeDir,
  tempDir,
  writeMatV5,
} from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import { DataFormatError, ValidationError } from "#internal/core/errors.js";
import { DelimitedReader, parseDelimited } from "#internal/formats/csv.js";
import { withHdf5Variables } from "#internal/formats/hdf5.js";
import { readIdx } from "#internal/formats/idx.js";
import type { Inflater } from "#internal/formats/inflate.js";
import { DEFAULT_MAX_BYTES, maxBytesOf } from "#internal/formats/limits.js";
import { readMatV4 } from "#internal/formats/matV4.js";
import { readMatV5, readMatV5Async } from "#internal/formats/matV5.js";
import { readNpy } from "#internal/formats/npy.js";
import {
  describeVariables,
  labelsFromBytes,
  labelsFromBytesAsync,
  parseBytes,
  parseBytesAs,
  parseBytesSync,
} from "#internal/formats/parse.js";

/** node:zlib, counting the bytes each kind of call gave and keeping the last bound asked for. */
function counting(): {
  inflater: Inflater;
  whole: () => number;
  prefix: () => number;
  bound: () => number;
} {
  let whole = 0;
  let prefix = 0;
  let bound = 0;
  const inflater: Inflater = {
    inflate(p, max) {
      bound = max;
      const out = nodeInflater.inflate(p, max);
      whole += out.length;
      return out;
    },
    gunzip(p, max) {
      bound = max;
      const out = nodeInflater.gunzip(p, max);
      whole += out.length;
      return out;
    },
    inflatePrefix(p, max) {
      const out = nodeInflater.inflatePrefix(p, max);
      prefix += out?.length ?? 0;
      return out;
    },
    gunzipPrefix(p, max) {
      const out = nodeInflater.gunzipPrefix?.(p, max) ?? null;
      prefix += out?.length ?? 0;
      return out;
    },
  };
  return { inflater, whole: () => whole, prefix: () => prefix, bound: () => bound };
}

/** A compressed MAT v5 file of one zero matrix `rows` x `cols` named `name`. */
function zeroMatrixFile(name: string, rows: number, cols: number): Uint8Array {
  const head = writeMatV5([numeric("x", [[0]])]).subarray(0, 128);
  const payload = matrixPayload(
    { name, classId: CLASS.DOUBLE, dims: [rows, cols], storage: MI.DOUBLE, values: [] },
    true,
  );
  // The values element's tag declares rows * cols doubles, all zero.
  const values = rows * cols * 8;
  const inner = new Uint8Array(8 + payload.length - 8 + 8 + values);
  const dv = new DataView(inner.buffer);
  dv.setUint32(0, MI.MATRIX, true);
  dv.setUint32(4, inner.length - 8, true);
  inner.set(payload.subarray(0, payload.length - 8), 8);
  dv.setUint32(8 + payload.length - 8, MI.DOUBLE, true);
  dv.setUint32(8 + payload.length - 4, values, true);
  const z = deflateSync(inner);
  const file = new Uint8Array(136 + z.length);
  file.set(head);
  new DataView(file.buffer).setUint32(128, MI.COMPRESSED, true);
  new DataView(file.buffer).setUint32(132, z.length, true);
  file.set(z, 136);
  return file;
}

describe("a data set without labels is refused before X is inflated", () => {
  it("a compressed 2,000 x 2,000 zero matrix with no label variable", () => {
    const bytes = zeroMatrixFile("zeros", 2000, 2000);
    expect(bytes.length).toBeLessThan(64 * 1024);
    const { inflater, whole, prefix } = counting();
    const err = errorOf(() => parseBytesSync(bytes, "zeros.mat", {}, inflater));
    expect(err).toBeInstanceOf(DataFormatError);
    expect((err as Error).message).toMatch(
      /^zeros\.mat: found the data 'zeros' but no label variable \(variables: 'zeros' \(2000 x 2000 double\)\)/,
    );
    // Only the variable's header was inflated, not its 32 MB of values.
    expect(whole()).toBe(0);
    expect(prefix()).toBeLessThan(2 * 1024 * 1024);
    // With a label column named, the same file is inflated and read.
    const ds = parseBytesSync(
      bytes,
      "zeros.mat",
      { labelColumn: "last", labels: "optional" },
      inflater,
    );
    expect([ds.X.rows, ds.X.cols]).toEqual([2000, 1999]);
    expect(whole()).toBe(2000 * 2000 * 8 + 8 + 56);
  });

  it("labels that do not fit X are refused before X is decoded", () => {
    const bytes = writeMatV5(
      [
        numeric("fea", [
          [1, 2, 3, 4],
          [5, 6, 7, 8],
          [9, 10, 11, 12],
        ]),
        numeric("gnd", [[1], [2]]),
      ],
      { compress: true },
    );
    const { inflater, whole } = counting();
    const err = errorOf(() =>
      parseBytesSync(bytes, "t.mat", { xVar: "fea", yVar: "gnd" }, inflater),
    );
    expect((err as Error).message).toBe(
      "t.mat: the data 'fea' is 3 x 4 but the labels 'gnd' give 2 samples; neither the rows nor the columns match",
    );
    // gnd was inflated, fea's 12 values were not.
    expect(whole()).toBe(numericInflated([[1], [2]], "gnd"));
  });
});

/** The bytes a compressed numeric variable inflates to (tag and payload). */
function numericInflated(rows: number[][], name: string): number {
  return 8 + matrixPayload(numeric(name, rows), true).length;
}

describe("compressed MAT v5 variables are bounded by their dimensions", () => {
  it("refuses a stream declaring more bytes than its dimensions can hold", () => {
    const payload = matrixPayload(
      numeric("fea", [
        [1, 2],
        [3, 4],
      ]),
      true,
    );
    const inner = new Uint8Array(8 + payload.length + 4096);
    new DataView(inner.buffer).setUint32(0, MI.MATRIX, true);
    new DataView(inner.buffer).setUint32(4, payload.length + 4096, true);
    inner.set(payload, 8);
    const z = deflateSync(inner);
    const file = new Uint8Array(136 + z.length);
    file.set(writeMatV5([numeric("x", [[0]])]).subarray(0, 128));
    new DataView(file.buffer).setUint32(128, MI.COMPRESSED, true);
    new DataView(file.buffer).setUint32(132, z.length, true);
    file.set(z, 136);
    const err = errorOf(() => readMatV5(file, "pad.mat", {}, nodeInflater));
    expect((err as Error).message).toBe(
      `pad.mat: variable 'fea': declares ${payload.length + 4096} bytes of decompressed data, more than its 2 x 2 numeric array can hold`,
    );
  });

  it("refuses values past maxBytes as float64 before inflating them", () => {
    const a = numeric(
      "fea",
      [Array.from({ length: 300 }, (_, j) => j % 200)],
      CLASS.UINT8,
      MI.UINT8,
    );
    const bytes = writeMatV5([a], { compress: true });
    const { inflater, whole } = counting();
    const v = readMatV5(bytes, "u8.mat", { maxBytes: 2048 }, inflater).variables[0];
    const err = errorOf(() => v.values());
    expect((err as Error).message).toBe(
      "u8.mat: variable 'fea': its 1 x 300 array declares 300 values and needs 2.3 KiB as float64, more than the 2.0 KiB limit (maxBytes)",
    );
    expect(whole()).toBe(0);
  });
});

/** An IDX uint8 file of `shape`, its values all zero. */
function idxZeros(shape: number[]): Uint8Array {
  const count = shape.reduce((a, b) => a * b, 1);
  const out = new Uint8Array(4 + 4 * shape.length + count);
  out[2] = 0x08;
  out[3] = shape.length;
  shape.forEach((d, i) => {
    new DataView(out.buffer).setUint32(4 + 4 * i, d, false);
  });
  return out;
}

describe("gzip-compressed IDX and NPY files are refused from their headers", () => {
  it("an IDX .gz declaring more than maxBytes is refused without inflating it", () => {
    const gz = new Uint8Array(gzipSync(idxZeros([1000, 28, 28])));
    const { inflater, whole } = counting();
    const err = errorOf(() => readIdx(gz, "big-idx3-ubyte.gz", { maxBytes: 1 << 20 }, inflater));
    expect((err as Error).message).toBe(
      "big-idx3-ubyte.gz: shape (1000, 28, 28) of uint8 declares 784000 values and needs 6.0 MiB as float64, more than the 1.0 MiB limit (maxBytes)",
    );
    expect(whole()).toBe(0);
  });

  it("a header declaring 2^32 - 1 images of 2^32 - 1 pixels is quoted exactly", () => {
    const raw = idxZeros([1, 1]);
    new DataView(raw.buffer).setUint32(4, 0xffffffff, false);
    new DataView(raw.buffer).setUint32(8, 0xffffffff, false);
    const err = errorOf(() => readIdx(raw, "huge.idx", {}, nodeInflater));
    expect((err as Error).message).toBe(
      "huge.idx: shape (4294967295, 4294967295) of uint8 needs 18446744065119617025 bytes but only 1 follow the header (truncated?)",
    );
    const gzErr = errorOf(() =>
      readIdx(new Uint8Array(gzipSync(raw)), "huge.idx", {}, nodeInflater),
    );
    expect((gzErr as Error).message).toBe(
      "huge.idx: shape (4294967295, 4294967295) of uint8 declares 18446744065119617025 values and needs 128.0 EiB as float64, more than the 2.0 GiB limit (maxBytes)",
    );
  });

  it("an IDX .gz is inflated to exactly its declared size", () => {
    const bytes = idxZeros([3, 4, 4]);
    const { inflater, whole, bound } = counting();
    const arr = readIdx(new Uint8Array(gzipSync(bytes)), "x-idx3-ubyte.gz", {}, inflater);
    expect(arr.shape).toEqual([3, 4, 4]);
    expect(whole()).toBe(bytes.length);
    expect(bound()).toBe(bytes.length);
  });

  it("without gunzipPrefix the stream is inflated up to the limit, as before", () => {
    const gz = new Uint8Array(gzipSync(idxZeros([1, 100_000])));
    const { gunzipPrefix: _, ...plain } = nodeInflater;
    const err = errorOf(() => readIdx(gz, "bomb.idx", { maxBytes: 65536 }, plain));
    expect((err as Error).message).toBe(
      "bomb.idx: the gzip stream inflates to more than 64.0 KiB (the maxBytes limit)",
    );
  });

  it("an .npy.gz declaring (2^64, 1) is refused with its shape as written", async () => {
    const npy = npyBytes(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551616, 1), }",
      new Uint8Array(8),
    );
    const expected =
      "shape (18446744073709551616, 1) of <f8 declares 18446744073709551616 values and needs 128.0 EiB as float64, more than the 2.0 GiB limit (maxBytes)";
    for (const [bytes, file] of [
      [npy, "x.npy"],
      [new Uint8Array(gzipSync(npy)), "x.npy.gz"],
    ] as const) {
      const { inflater, whole } = counting();
      const err = await parseBytes(bytes, file, {}, inflater).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataFormatError);
      expect((err as Error).message).toBe(`${file}: ${expected}`);
      expect(whole()).toBe(0);
    }
  });
});

describe("a compressed file read without an inflater", () => {
  const message = (file: string, call: string, asyncCall: string) =>
    `${file}: is compressed (zlib or gzip), and ${call} was given no inflater to decompress it: pass one as its fourth argument (in Node, nodeInflater of "sdspcaan/node"), or read it with ${asyncCall}, which decompresses with the platform's DecompressionStream`;
  const z = writeMatV5(
    [
      numeric("fea", [
        [1, 2],
        [3, 4],
      ]),
      numeric("gnd", [[1], [2]]),
    ],
    {
      compress: true,
    },
  );
  const gz = new Uint8Array(gzipSync(idxZeros([2, 2, 2])));

  it("is read by the asynchronous readers with the platform's DecompressionStream", async () => {
    const ds = await parseBytes(z, "z.mat");
    expect(ds.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(ds.y).toEqual([1, 2]);
    expect(ds.info.compressed).toBe(true);
    const idx = await parseBytes(gz, "x-idx3-ubyte.gz", { labels: "optional" });
    expect([idx.X.rows, idx.X.cols, idx.info.compressed]).toEqual([2, 4, true]);
    const csv = await parseBytes(new Uint8Array(gzipSync("a,b,y\n1,2,x\n3,4,z\n")), "d.csv.gz");
    expect(csv.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    const m = await readMatV5Async(z, "z.mat", {});
    expect(m.variables.map((v) => v.name)).toEqual(["fea", "gnd"]);
    expect((await describeVariables(z, "z.mat")).map((v) => v.name)).toEqual(["fea", "gnd"]);
    const labels = await labelsFromBytesAsync(
      new Uint8Array(gzipSync(new Uint8Array([0, 0, 8, 1, 0, 0, 0, 2, 7, 9]))),
      "y-labels-idx1-ubyte.gz",
    );
    expect(labels.labels).toEqual([7, 9]);
  });

  it("is refused by the synchronous readers naming the file and what to pass", () => {
    expect(() => parseBytesSync(z, "z.mat")).toThrow(
      message("z.mat", "parseBytesSync", "parseBytes"),
    );
    expect(() => readMatV5(z, "z.mat", {})).toThrow(
      message("z.mat", "readMatV5", "readMatV5Async"),
    );
    expect(() => readIdx(gz, "x.idx.gz", {})).toThrow(message("x.idx.gz", "readIdx", "parseBytes"));
    expect(() => labelsFromBytes(gz, "y.idx1.gz")).toThrow(
      message("y.idx1.gz", "labelsFromBytes", "labelsFromBytesAsync"),
    );
  });

  it("is not needed for a file that is not compressed", async () => {
    const u = writeMatV5([
      numeric("fea", [
        [1, 2],
        [3, 4],
      ]),
      numeric("gnd", [[1], [2]]),
    ]);
    const ds = await parseBytes(u, "u.mat");
    expect(ds.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(ds.y).toEqual([1, 2]);
  });
});

describe("maxBytes that is not a positive finite number is refused, naming it", () => {
  const refusal = (shown: string) =>
    `maxBytes must be a positive finite number of bytes (the largest buffer a reader may allocate; default 2147483648, 2 GiB). Got ${shown} instead.`;
  const bad = fc.oneof(
    fc.double({ max: 0 }),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY),
    fc.string(),
    fc.constantFrom(null, true, [1024], { bytes: 1024 }),
    fc.bigInt({ min: 1n }),
  );

  it("by maxBytesOf, for any such value", () => {
    fc.assert(
      fc.property(bad, (maxBytes) => {
        const err = errorOf(() => maxBytesOf({ maxBytes } as never));
        expect(err).toBeInstanceOf(ValidationError);
        expect((err as ValidationError).argument).toBe("maxBytes");
      }),
    );
    expect(errorOf(() => maxBytesOf({ maxBytes: -1 })).message).toBe(refusal("-1"));
    expect(errorOf(() => maxBytesOf({ maxBytes: 0 })).message).toBe(refusal("0"));
    expect(errorOf(() => maxBytesOf({ maxBytes: "big" } as never)).message).toBe(refusal('"big"'));
    expect(errorOf(() => maxBytesOf({ maxBytes: Number.POSITIVE_INFINITY })).message).toBe(
      refusal("Infinity"),
    );
  });

  it("while a positive finite number is the limit, and none is the default", () => {
    fc.assert(
      fc.property(
        fc.double({ min: Number.MIN_VALUE, max: Number.MAX_VALUE, noNaN: true }),
        (maxBytes) => {
          expect(maxBytesOf({ maxBytes })).toBe(maxBytes);
        },
      ),
    );
    expect(maxBytesOf(undefined)).toBe(DEFAULT_MAX_BYTES);
    expect(maxBytesOf({})).toBe(DEFAULT_MAX_BYTES);
    expect(maxBytesOf({ maxBytes: undefined })).toBe(DEFAULT_MAX_BYTES);
  });

  const csv = new TextEncoder().encode("a,b,y\n1,2,x\n3,4,z\n");
  const mat = writeMatV5([
    numeric("fea", [
      [1, 2],
      [3, 4],
    ]),
    numeric("gnd", [[1], [2]]),
  ]);
  const npy = npyBytes(
    "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
    new Uint8Array(new Float64Array([1, 2]).buffer),
  );
  const idx = idxZeros([2, 2, 2]);
  const hdf5 = new Uint8Array(1024);
  hdf5.set([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a]);
  const dir = tempDir("maxbytes");
  afterAll(() => removeDir(dir));
  const csvPath = join(dir, "d.csv");
  writeFileSync(csvPath, csv);
  const labelsPath = join(dir, "y.txt");
  writeFileSync(labelsPath, "x\nz\n");
  const matPath = join(dir, "d.mat");
  writeFileSync(matPath, mat);

  type Limits = { maxBytes: never };
  const readers: [string, (limits: Limits) => unknown][] = [
    ["DelimitedReader", (o) => new DelimitedReader("d.csv", o)],
    ["parseDelimited", (o) => parseDelimited(csv, "d.csv", o)],
    ["parseBytes", (o) => parseBytes(csv, "d.csv", o, nodeInflater)],
    ["parseBytes (MAT)", (o) => parseBytes(mat, "d.mat", o, nodeInflater)],
    ["parseBytes (HDF5)", (o) => parseBytes(hdf5, "d.h5", o)],
    ["parseBytes (gzip)", (o) => parseBytes(new Uint8Array(gzipSync(csv)), "d.csv.gz", o)],
    ["parseBytesAs", (o) => parseBytesAs(mat, "d.mat", "mat-v5", o, nodeInflater)],
    ["parseBytesSync", (o) => parseBytesSync(npy, "d.npy", { ...o, labels: "optional" })],
    ["readMatV4", (o) => readMatV4(mat, "d.mat", o)],
    ["readMatV5", (o) => readMatV5(mat, "d.mat", o)],
    ["readMatV5Async", (o) => readMatV5Async(mat, "d.mat", o)],
    ["readNpy", (o) => readNpy(npy, "d.npy", o)],
    ["readIdx", (o) => readIdx(idx, "d.idx", o)],
    ["withHdf5Variables", (o) => withHdf5Variables(hdf5, "d.h5", () => 0, o)],
    ["labelsFromBytes", (o) => labelsFromBytes(csv.subarray(0, 1), "y.txt", o)],
    ["labelsFromBytesAsync", (o) => labelsFromBytesAsync(new Uint8Array(gzipSync(idx)), "y.gz", o)],
    ["describeVariables", (o) => describeVariables(mat, "d.mat", o)],
    ["loadDataset", (o) => loadDataset(csvPath, o)],
    ["loadFeatures", (o) => loadFeatures(csvPath, o)],
    ["loadDataset (MAT)", (o) => loadDataset(matPath, o)],
    ["loadLabels", (o) => loadLabels(labelsPath, o)],
    ["listVariables", (o) => listVariables(matPath, o)],
    ["parseDataset", (o) => parseDataset(mat, "d.mat", o)],
    ["parseDatasetSync", (o) => parseDatasetSync(csv, "d.csv", o)],
  ];

  it.each(readers)("by %s", async (_, read) => {
    for (const [maxBytes, shown] of [
      [-1, "-1"],
      [0, "0"],
      ["big", '"big"'],
      [Number.NaN, "NaN"],
    ] as const) {
      let err: unknown;
      try {
        await read({ maxBytes } as Limits);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ValidationError);
      expect([(err as ValidationError).argument, (err as Error).message]).toEqual([
        "maxBytes",
        refusal(shown),
      ]);
    }
  });

  it("while the loaders read with a valid one as they do without it", async () => {
    const without = await loadDataset(csvPath);
    const within = await loadDataset(csvPath, { maxBytes: 1024 });
    expect(within.X.toRows()).toEqual(without.X.toRows());
    expect(within.y).toEqual(["x", "z"]);
  });
});
