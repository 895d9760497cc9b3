/**
 * The browser's way of reading compressed MAT v5 variables and gzip-compressed IDX
 * files (every stream inflated ahead with `DecompressionStream`, which Node has too)
 * against the Node way (node:zlib, synchronously, on demand): the same data set, or
 * the same error message, for real files, hand-built corrupt ones and mutated copies.
 */

import { readFileSync } from "node:fs";
import { deflateSync, gzipSync } from "node:zlib";
import fc from "fast-check";
import {
  decompressionStreamInflate,
  hasDecompressionStream,
  labelsFromBytes,
  labelsFromBytesAsync,
  type ParseOptions,
  parseBytes,
  parseBytesSync,
} from "sdspcaan/formats";
import { nodeInflater } from "sdspcaan/node";
import { dataFile, MI, matrixPayload, numeric, writeMatV5 } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";

const ROWS = [
  [1, 2, 3],
  [4, 5, 6],
  [7, 8, 9],
  [10, 11, 12],
];

type Outcome = { ok: true; X: number[]; y: unknown[]; rows: number } | { ok: false; error: string };

function summary(run: () => { X: { data: Float64Array; rows: number }; y: unknown[] }): Outcome {
  try {
    const ds = run();
    return { ok: true, X: Array.from(ds.X.data), y: [...ds.y], rows: ds.X.rows };
  } catch (err) {
    return { ok: false, error: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

async function both(
  bytes: Uint8Array,
  file: string,
  options: ParseOptions = {},
): Promise<[Outcome, Outcome]> {
  const sync = summary(() => parseBytesSync(bytes, file, options, nodeInflater));
  let asyncOutcome: Outcome;
  try {
    const ds = await parseBytes(bytes, file, options, decompressionStreamInflate);
    asyncOutcome = summary(() => ds);
  } catch (err) {
    asyncOutcome = { ok: false, error: `${(err as Error).name}: ${(err as Error).message}` };
  }
  return [sync, asyncOutcome];
}

/** A file whose one compressed variable inflates to `inner`. */
function compressedFile(inner: Uint8Array): Uint8Array {
  const head = writeMatV5([numeric("fea", ROWS)], { compress: true }).subarray(0, 128);
  const zz = deflateSync(inner);
  const file = new Uint8Array(136 + zz.length);
  file.set(head, 0);
  new DataView(file.buffer).setUint32(128, MI.COMPRESSED, true);
  new DataView(file.buffer).setUint32(132, zz.length, true);
  file.set(zz, 136);
  return file;
}

describe("MAT v5 with an asynchronous inflater", () => {
  it("Node has DecompressionStream, so the browser path runs here", () => {
    expect(hasDecompressionStream()).toBe(true);
  });

  it("reads the paper's compressed files exactly as node:zlib does", async () => {
    for (const name of ["Yale_32x32.mat", "ORL_32x32.mat", "MSRA25_uni.mat"]) {
      const bytes = new Uint8Array(readFileSync(dataFile(name)));
      const [sync, async_] = await both(bytes, name);
      expect(sync.ok).toBe(true);
      expect(async_).toEqual(sync);
    }
  });

  it("reports garbage, truncated and over-long streams with the same message", async () => {
    const z = writeMatV5([numeric("fea", ROWS), numeric("gnd", [[1], [1], [2], [2]])], {
      compress: true,
    });
    const garbage = z.slice();
    for (let i = 136; i < garbage.length; i++) garbage[i] = (i * 37) & 0xff;

    const truncated = z.slice();
    const half = Math.floor((new DataView(z.buffer).getUint32(132, true) * 2) / 3);
    new DataView(truncated.buffer).setUint32(132, half, true);

    const payload = matrixPayload(numeric("fea", ROWS), true);
    const long = new Uint8Array(8 + payload.length + 64);
    new DataView(long.buffer).setUint32(0, MI.MATRIX, true);
    new DataView(long.buffer).setUint32(4, payload.length, true);
    long.set(payload, 8);

    const bomb = new Uint8Array(8 + payload.length);
    new DataView(bomb.buffer).setUint32(0, MI.MATRIX, true);
    new DataView(bomb.buffer).setUint32(4, 0xfffffff0, true);
    bomb.set(payload, 8);

    const cases: [string, Uint8Array, RegExp][] = [
      ["garbage.mat", garbage, /compressed|zlib/],
      ["truncated.mat", truncated.subarray(0, 136 + half), /truncated|ends|compressed/],
      ["long.mat", compressedFile(long), /expands beyond its declared/],
      ["bomb.mat", compressedFile(bomb), /limit|impossible/],
    ];
    for (const [file, bytes, pattern] of cases) {
      // (The label column named: a file without labels is refused before it is inflated.)
      const [sync, async_] = await both(bytes, file, { labelColumn: "last" });
      expect(sync.ok, file).toBe(false);
      expect(async_, file).toEqual(sync);
      if (!sync.ok) expect(sync.error).toMatch(pattern);
    }
  });

  it("agrees with node:zlib on mutated copies of a compressed file", async () => {
    const z = writeMatV5([numeric("fea", ROWS), numeric("gnd", [[1], [1], [2], [2]])], {
      compress: true,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(fc.integer({ min: 128, max: z.length - 1 }), fc.integer({ min: 0, max: 255 })),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        async (edits) => {
          const bytes = z.slice();
          for (const [at, value] of edits) bytes[at] = value;
          const [sync, async_] = await both(bytes, "mutated.mat");
          expect(async_).toEqual(sync);
        },
      ),
      { numRuns: 300, seed: 14 },
    );
  });
});

/** An IDX file (uint8, big-endian sizes) of `values` with `shape`. */
function idxFile(shape: number[], values: number[]): Uint8Array {
  const out = new Uint8Array(4 + 4 * shape.length + values.length);
  out[2] = 0x08;
  out[3] = shape.length;
  shape.forEach((d, i) => {
    new DataView(out.buffer).setUint32(4 + 4 * i, d, false);
  });
  out.set(values, 4 + 4 * shape.length);
  return out;
}

const IMAGES = idxFile(
  [4, 2, 3],
  Array.from({ length: 24 }, (_, i) => (i * 29) % 256),
);
const FEATURES: ParseOptions = { labels: "optional" };

describe("gzip-compressed IDX with an asynchronous inflater", () => {
  it("reads raw and gzip images exactly as node:zlib does", async () => {
    for (const bytes of [IMAGES, new Uint8Array(gzipSync(IMAGES))]) {
      const [sync, async_] = await both(bytes, "train-images-idx3-ubyte.gz", FEATURES);
      expect(sync.ok).toBe(true);
      expect(async_).toEqual(sync);
    }
  });

  it("reads gzip idx1 labels as node:zlib does, errors included", async () => {
    const limits = {};
    const outcome = async (run: () => Promise<unknown>) =>
      run().then(
        (r) => ({ ok: true, r }),
        (e: Error) => ({ ok: false, error: `${e.name}: ${e.message}` }),
      );
    const labels = new Uint8Array(gzipSync(idxFile([4], [3, 1, 3, 0])));
    const truncated = labels.subarray(0, labels.length - 9);
    const square = new Uint8Array(gzipSync(idxFile([2, 2], [1, 2, 3, 4])));
    for (const bytes of [labels, truncated, square]) {
      const sync = await outcome(
        async () => labelsFromBytes(bytes, "y.idx1.gz", limits, nodeInflater).labels,
      );
      const async_ = await outcome(
        async () =>
          (await labelsFromBytesAsync(bytes, "y.idx1.gz", limits, decompressionStreamInflate))
            .labels,
      );
      expect(async_).toEqual(sync);
    }
  });

  it("stops a gzip bomb at its header or its declared size with the same message", async () => {
    const zeros = idxFile([1, 200_000], new Array(200_000).fill(0));
    const bomb = new Uint8Array(gzipSync(zeros));
    const [sync, async_] = await both(bomb, "bomb.idx3.gz", { ...FEATURES, maxBytes: 65536 });
    expect(sync).toEqual({
      ok: false,
      error:
        "DataFormatError: bomb.idx3.gz: shape (1, 200000) of uint8 declares 200000 values and needs 1.5 MiB as float64, more than the 64.0 KiB limit (maxBytes)",
    });
    expect(async_).toEqual(sync);
    // A header declaring 10 values of the 200,000 the stream holds.
    new DataView(zeros.buffer).setUint32(8, 10, false);
    const lying = new Uint8Array(gzipSync(zeros));
    const [sync2, async2] = await both(lying, "lying.idx3.gz", FEATURES);
    expect(sync2).toEqual({
      ok: false,
      error:
        "DataFormatError: lying.idx3.gz: the gzip stream holds more than the 22 bytes its header declares",
    });
    expect(async2).toEqual(sync2);
  });

  it("agrees with node:zlib on mutated copies of a gzip file", async () => {
    const gz = new Uint8Array(gzipSync(IMAGES));
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.array(
            fc.tuple(fc.integer({ min: 0, max: gz.length - 1 }), fc.integer({ min: 0, max: 255 })),
            { minLength: 1, maxLength: 4 },
          ),
          fc.integer({ min: 0, max: gz.length - 1 }).map((cut) => [cut] as const),
        ),
        async (edit) => {
          let bytes = gz.slice();
          if (edit.length === 1 && typeof edit[0] === "number") bytes = bytes.subarray(0, edit[0]);
          else for (const [at, value] of edit as [number, number][]) bytes[at] = value;
          const [sync, async_] = await both(bytes, "mutated-idx3-ubyte.gz", FEATURES);
          expect(async_).toEqual(sync);
        },
      ),
      { numRuns: 300, seed: 15 },
    );
  });
});
