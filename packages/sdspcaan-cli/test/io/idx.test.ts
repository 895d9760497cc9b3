/**
 * IDX files (MNIST's format) on small files written here: every element type, raw and
 * gzip, the labels companion, the registry's Fashion-MNIST entry with its own test
 * set and its system lookup directory, and mutated files (truncations, bit flips,
 * overwritten sizes) that must parse consistently or fail with a DataFormatError.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { DataFormatError, ValidationError } from "sdspcaan";
import {
  idxLabelsCompanion,
  labelsFromBytes,
  parseBytes,
  type ReadLimits,
  readIdx as readIdxWith,
} from "sdspcaan/formats";
import { predefinedTestSplit } from "sdspcaan/methods";
import { nodeInflater } from "sdspcaan/node";
import { removeDir, tempDir } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import { detectFormat, loadDataset, loadFeatures, openDataset } from "#internal/io/load.js";
import { dataDirectories } from "#internal/io/locate.js";
import { findDataset } from "#internal/io/registry.js";

/** The IDX reader with node:zlib, as src/io/load.ts runs it. */
const readIdx = (bytes: Uint8Array, file: string, limits?: ReadLimits) =>
  readIdxWith(bytes, file, limits, nodeInflater);

const TYPE_CODES = { uint8: 8, int8: 9, int16: 0x0b, int32: 0x0c, float32: 0x0d, float64: 0x0e };
type IdxType = keyof typeof TYPE_CODES;
const SIZES: Record<IdxType, number> = {
  uint8: 1,
  int8: 1,
  int16: 2,
  int32: 4,
  float32: 4,
  float64: 8,
};

/** An IDX file of `values` (row-major) with `shape`, big-endian as the format prescribes. */
function idxBytes(type: IdxType, shape: number[], values: number[]): Uint8Array {
  const head = 4 + 4 * shape.length;
  const size = SIZES[type];
  const out = new Uint8Array(head + values.length * size);
  const dv = new DataView(out.buffer);
  out[2] = TYPE_CODES[type];
  out[3] = shape.length;
  shape.forEach((s, i) => {
    dv.setUint32(4 + 4 * i, s, false);
  });
  values.forEach((v, i) => {
    const p = head + i * size;
    if (type === "uint8") dv.setUint8(p, v);
    else if (type === "int8") dv.setInt8(p, v);
    else if (type === "int16") dv.setInt16(p, v, false);
    else if (type === "int32") dv.setInt32(p, v, false);
    else if (type === "float32") dv.setFloat32(p, v, false);
    else dv.setFloat64(p, v, false);
  });
  return out;
}

/** Three 2 x 3 "images" and their labels. */
const PIXELS = [0, 1, 2, 3, 4, 255, 10, 20, 30, 40, 50, 60, 7, 7, 7, 0, 0, 128];
const LABELS = [3, 1, 3];

const dirs: string[] = [];
function scratchDir(): string {
  const d = tempDir("idx");
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) removeDir(d);
});

describe("readIdx", () => {
  it("reads every element type, big-endian, raw and gzip", () => {
    const cases: [IdxType, number[]][] = [
      ["uint8", [0, 1, 254, 255]],
      ["int8", [-128, -1, 0, 127]],
      ["int16", [-32768, -2, 513, 32767]],
      ["int32", [-(2 ** 31), -70000, 65537, 2 ** 31 - 1]],
      ["float32", [-1.5, 0, 0.25, 2 ** 120]],
      ["float64", [-Math.PI, 0, 1e-300, 1.7e308]],
    ];
    for (const [type, values] of cases) {
      const raw = idxBytes(type, [2, 2], values);
      for (const bytes of [raw, new Uint8Array(gzipSync(raw))]) {
        const a = readIdx(bytes, `x.${type}`);
        expect(a.type).toBe(type);
        expect(a.shape).toEqual([2, 2]);
        expect(Array.from(a.data)).toEqual(values);
        expect(a.compressed).toBe(bytes !== raw);
        expect(detectFormat(bytes, `x-${type}.idx`)).toBe("idx");
      }
      // Told from its magic number alone, whatever the name.
      expect(detectFormat(raw, "x.bin")).toBe("idx");
    }
  });

  it("flattens images to rows and reads labels as a vector", async () => {
    const images = await parseBytes(
      idxBytes("uint8", [3, 2, 3], PIXELS),
      "dir/imgs.idx3",
      { labels: "optional" },
      nodeInflater,
    );
    expect(images.info.xVar).toBe("imgs");
    expect(images.info.variables?.[0].dims).toEqual([3, 6]);
    expect(images.info.variables?.[0].className).toBe("uint8");
    expect([images.X.rows, images.X.cols]).toEqual([3, 6]);
    expect(Array.from(images.X.data)).toEqual(PIXELS);
    const labels = labelsFromBytes(idxBytes("int16", [3], LABELS), "l.idx1", {}, nodeInflater);
    expect(labels.labels).toEqual(LABELS);
  });

  it("refuses bad files with a DataFormatError naming the problem", () => {
    const good = idxBytes("uint8", [3, 2, 3], PIXELS);
    const refuse = (bytes: Uint8Array, problem: RegExp, limits = {}) => {
      const err = (() => {
        try {
          readIdx(bytes, "bad.idx", limits);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(DataFormatError);
      expect((err as DataFormatError).file).toBe("bad.idx");
      expect((err as DataFormatError).problem).toMatch(problem);
    };
    refuse(good.subarray(0, 3), /too short/);
    const magic = good.slice();
    magic[1] = 1;
    refuse(magic, /two zero bytes/);
    const type = good.slice();
    type[2] = 0x0a;
    refuse(type, /unknown IDX element type 0x0A/);
    const rank = good.slice();
    rank[3] = 0;
    refuse(rank, /0 dimensions/);
    refuse(good.subarray(0, 10), /truncated IDX header/);
    refuse(good.subarray(0, good.length - 1), /needs 18 bytes but only 17.*truncated/);
    const longer = new Uint8Array(good.length + 2);
    longer.set(good);
    refuse(longer, /needs 18 bytes but 20 follow/);
    // A header declaring 2^32 - 1 images is refused before any allocation.
    const huge = good.slice();
    new DataView(huge.buffer).setUint32(4, 0xffffffff, false);
    refuse(huge, /needs 25769803770 bytes but only 18/);
    // Within the bytes present, the float64 result may still exceed maxBytes.
    refuse(good, /needs 144 bytes as float64, more than the 100 bytes limit/, { maxBytes: 100 });
    // A gzip stream whose header declares more than maxBytes is refused before it is
    // inflated (its header is read from the stream's first bytes).
    const bomb = new Uint8Array(
      gzipSync(idxBytes("uint8", [1, 100_000], new Array(100_000).fill(0))),
    );
    refuse(
      bomb,
      /^shape \(1, 100000\) of uint8 declares 100000 values and needs 781.3 KiB as float64, more than the 64.0 KiB limit \(maxBytes\)$/,
      { maxBytes: 65536 },
    );
    // One whose header declares less than the stream holds is stopped at the declared size.
    const lying = idxBytes("uint8", [1, 100_000], new Array(100_000).fill(0));
    new DataView(lying.buffer).setUint32(8, 10, false);
    refuse(
      new Uint8Array(gzipSync(lying)),
      /^the gzip stream holds more than the 22 bytes its header declares$/,
    );
    const corrupt = new Uint8Array(gzipSync(good));
    corrupt[corrupt.length - 6] ^= 0xff; // the CRC-32
    refuse(corrupt, /corrupt gzip stream/);
    const nan = idxBytes("float64", [2], [1, Number.NaN]);
    refuse(nan, /value 1 \(row 1\) is NaN/);
  });
});

describe("IDX files through loadDataset", () => {
  it("finds the labels companion next to an images file, raw or gzip", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "train-images-idx3-ubyte"), idxBytes("uint8", [3, 2, 3], PIXELS));
    writeFileSync(join(dir, "train-labels-idx1-ubyte"), idxBytes("uint8", [3], LABELS));
    writeFileSync(
      join(dir, "t10k-images-idx3-ubyte.gz"),
      gzipSync(idxBytes("uint8", [3, 2, 3], PIXELS)),
    );
    writeFileSync(join(dir, "t10k-labels-idx1-ubyte.gz"), gzipSync(idxBytes("uint8", [3], LABELS)));
    for (const name of ["train-images-idx3-ubyte", "t10k-images-idx3-ubyte.gz"]) {
      const ds = await loadDataset(join(dir, name));
      expect(ds.X.rows).toBe(3);
      expect(ds.X.cols).toBe(6);
      expect(Array.from(ds.X.data)).toEqual(PIXELS);
      expect(ds.y).toEqual(LABELS);
      expect(ds.info.yVar).toBe(join(dir, name.replace("images-idx3", "labels-idx1")));
    }
    expect(idxLabelsCompanion("/a/b/train-images-idx3-ubyte.gz")).toBe(
      "/a/b/train-labels-idx1-ubyte.gz",
    );
    expect(idxLabelsCompanion("/a/b/pixels.idx")).toBeNull();
  });

  it("explains what is missing when an images file has no labels", async () => {
    const dir = scratchDir();
    const path = join(dir, "images.idx3");
    writeFileSync(path, idxBytes("uint8", [3, 2, 3], PIXELS));
    await expect(loadDataset(path)).rejects.toThrow(/IDX file holds one array and no labels/);
    const labels = join(dir, "labels.idx1");
    writeFileSync(labels, idxBytes("uint8", [2], [1, 2]));
    await expect(loadDataset(path, { labelsFile: labels })).rejects.toThrow(
      /holds 2 labels but .* has 3 samples/,
    );
    const square = join(dir, "square.idx");
    writeFileSync(square, idxBytes("uint8", [3, 2], [1, 2, 3, 4, 5, 6]));
    await expect(loadDataset(path, { labelsFile: square })).rejects.toThrow(
      /labels must be a vector \(an idx1 file\)/,
    );
  });

  it("detects IDX by content, and refuses a non-IDX file with an IDX name", () => {
    const raw = idxBytes("uint8", [3, 2, 3], PIXELS);
    expect(detectFormat(raw, "anything.bin")).toBe("idx");
    expect(detectFormat(new Uint8Array(gzipSync(raw)), "x-ubyte.gz")).toBe("idx");
    expect(() => detectFormat(new TextEncoder().encode("1,2\n"), "x.idx3")).toThrow(
      /not an IDX file/,
    );
    // A gzip file that is not IDX and has no IDX name is left to the other readers.
    expect(detectFormat(new Uint8Array(gzipSync(new TextEncoder().encode("1,2\n"))), "a.csv")).toBe(
      "csv",
    );
  });

  it("refuses a gzip file with an IDX name that does not inflate to IDX", async () => {
    const dir = scratchDir();
    const path = join(dir, "train-images-idx3-ubyte.gz");
    writeFileSync(path, gzipSync(new TextEncoder().encode("1,2\n3,4\n")));
    const err = await loadDataset(path, { labels: "optional" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataFormatError);
    expect((err as DataFormatError).file).toBe(path);
    expect((err as DataFormatError).problem).toMatch(/not an IDX file: .*two zero bytes/);
  });

  it("reads an images file without labels as features, but never a pixel column as labels", async () => {
    const dir = scratchDir();
    const path = join(dir, "pixels.idx3");
    writeFileSync(path, idxBytes("uint8", [3, 2, 3], PIXELS));
    const features = await loadFeatures(path);
    expect([features.X.rows, features.X.cols]).toEqual([3, 6]);
    expect(Array.from(features.X.data)).toEqual(PIXELS);
    expect(features.y).toBeNull();
    await expect(loadFeatures(path, { labelColumn: "last" })).rejects.toThrow(
      /IDX file holds one array and no labels/,
    );
  });

  it("reads gzip idx1 labels, and refuses a gzip labels file that is not IDX", async () => {
    const dir = scratchDir();
    const images = join(dir, "pixels.idx3");
    writeFileSync(images, idxBytes("uint8", [3, 2, 3], PIXELS));
    const labels = join(dir, "y.idx1.gz");
    writeFileSync(labels, gzipSync(idxBytes("uint8", [3], LABELS)));
    expect((await loadDataset(images, { labelsFile: labels })).y).toEqual(LABELS);
    const text = join(dir, "y.txt.gz");
    writeFileSync(text, gzipSync(new TextEncoder().encode("3\n1\n3\n")));
    await expect(loadDataset(images, { labelsFile: text })).rejects.toThrow(/not an IDX file/);
  });
});

describe("the FashionMNIST registry entry", () => {
  /** The entry's four files, tiny, under `root/fashion-mnist/`. */
  function writeFashion(root: string, trainRows = 4): void {
    const dir = join(root, "fashion-mnist");
    mkdirSync(dir, { recursive: true });
    const px = Array.from({ length: trainRows * 6 }, (_, i) => (i * 37) % 256);
    const train = idxBytes("uint8", [trainRows, 2, 3], px);
    const trainY = idxBytes(
      "uint8",
      [trainRows],
      Array.from({ length: trainRows }, (_, i) => i % 2),
    );
    writeFileSync(join(dir, "train-images-idx3-ubyte.gz"), gzipSync(train));
    writeFileSync(join(dir, "train-labels-idx1-ubyte.gz"), gzipSync(trainY));
    writeFileSync(
      join(dir, "t10k-images-idx3-ubyte.gz"),
      gzipSync(idxBytes("uint8", [3, 2, 3], PIXELS)),
    );
    writeFileSync(join(dir, "t10k-labels-idx1-ubyte.gz"), gzipSync(idxBytes("uint8", [3], LABELS)));
  }

  it("declares its files, checksums, own test set and system directory", () => {
    const entry = findDataset("fashion-mnist");
    expect(entry?.name).toBe("FashionMNIST");
    expect(entry?.format).toBe("idx");
    expect(entry?.labelsFile?.file).toBe("fashion-mnist/train-labels-idx1-ubyte.gz");
    expect(entry?.test?.file.file).toBe("fashion-mnist/t10k-images-idx3-ubyte.gz");
    expect(entry?.test?.samples).toBe(10000);
    expect(entry?.systemDirs).toEqual(["/usr/share/datasets"]);
    for (const sum of [entry?.sha256, entry?.labelsFile?.sha256, entry?.test?.labels.sha256]) {
      expect(sum).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it("loads training rows then test rows, marking the predefined test set", async () => {
    const root = scratchDir();
    writeFashion(root);
    const opened = await openDataset("FashionMNIST", { dataDir: root, env: {}, cwd: root });
    expect(opened.source).toBe("data-dir");
    const ds = opened.dataset;
    expect(ds.X.rows).toBe(7);
    expect(ds.y).toEqual([0, 1, 0, 1, ...LABELS]);
    expect(Array.from(ds.predefinedTest ?? [])).toEqual([4, 5, 6]);
    expect(Array.from(ds.X.data.subarray(24))).toEqual(PIXELS);
    expect(ds.info.testFile).toBe(join(root, "fashion-mnist", "t10k-images-idx3-ubyte.gz"));
  });

  it("is looked up in the system directories last", async () => {
    const root = scratchDir();
    const system = join(root, "system");
    writeFashion(system);
    const empty = join(root, "cwd");
    mkdirSync(empty);
    const options = { env: {}, cwd: empty, cacheDir: join(root, "cache"), systemDirs: [system] };
    // The repository's data/ comes before them but does not hold Fashion-MNIST.
    expect(dataDirectories(options).map((d) => d.source)).toEqual([
      "repository",
      "shared",
      "cache",
      "system",
    ]);
    const opened = await openDataset("fmnist", options);
    expect(opened.source).toBe("system");
    expect(opened.path).toBe(join(system, "fashion-mnist", "train-images-idx3-ubyte.gz"));
    // An earlier directory wins.
    writeFashion(join(root, "cache"), 5);
    const cached = await openDataset("fmnist", options);
    expect(cached.source).toBe("cache");
    expect(cached.dataset.X.rows).toBe(8);
  });

  it("opened by the path of its main file, it is the same data set (a run's report reopens that path)", async () => {
    const root = scratchDir();
    writeFashion(root);
    const byName = await openDataset("FashionMNIST", { dataDir: root, env: {}, cwd: root });
    const byPath = await openDataset(join(root, "fashion-mnist", "train-images-idx3-ubyte.gz"));
    expect(byPath.entry?.name).toBe("FashionMNIST");
    expect(byPath.source).toBeNull();
    expect(Array.from(byPath.dataset.X.data)).toEqual(Array.from(byName.dataset.X.data));
    expect(byPath.dataset.y).toEqual(byName.dataset.y);
    expect(Array.from(byPath.dataset.predefinedTest ?? [])).toEqual([4, 5, 6]);
  });

  it("names a companion file that is missing", async () => {
    const root = scratchDir();
    writeFashion(root);
    rmSync(join(root, "fashion-mnist", "t10k-labels-idx1-ubyte.gz"));
    await expect(
      openDataset("FashionMNIST", { dataDir: root, env: {}, cwd: root }),
    ).rejects.toThrow(/t10k-labels-idx1-ubyte.gz was not found next to/);
  });
});

describe("predefinedTestSplit", () => {
  it("trains on every non-test row, or holds a seeded sixth out for validation", () => {
    const test = Int32Array.from([9, 2, 5]);
    const whole = predefinedTestSplit(12, test, { validation: false });
    expect(Array.from(whole.test)).toEqual([2, 5, 9]);
    expect(Array.from(whole.train)).toEqual([0, 1, 3, 4, 6, 7, 8, 10, 11]);
    expect(whole.val.length).toBe(0);
    const n = 6003;
    const rows = Int32Array.from({ length: 1000 }, (_, i) => 5003 + i);
    const a = predefinedTestSplit(n, rows, { validation: true, seed: 1, dataset: "F", repeat: 0 });
    const b = predefinedTestSplit(n, rows, { validation: true, seed: 1, dataset: "F", repeat: 0 });
    const c = predefinedTestSplit(n, rows, { validation: true, seed: 1, dataset: "F", repeat: 1 });
    expect(a.val.length).toBe(834); // round(5003 / 6)
    expect(a.train.length).toBe(5003 - 834);
    expect(Array.from(a.val)).toEqual(Array.from(b.val));
    expect(Array.from(a.val)).not.toEqual(Array.from(c.val));
    const all = new Set([...a.train, ...a.val, ...a.test]);
    expect(all.size).toBe(n);
    expect(Math.max(...a.val)).toBeLessThan(5003);
  });

  it("refuses test rows that are out of range, repeated, or everything", () => {
    expect(() => predefinedTestSplit(5, Int32Array.from([1, 1]), { validation: false })).toThrow(
      ValidationError,
    );
    expect(() => predefinedTestSplit(5, Int32Array.from([5]), { validation: false })).toThrow(
      /distinct indices in \[0, 4\]/,
    );
    expect(() => predefinedTestSplit(4, Int32Array.from([0, 1, 2]), { validation: false })).toThrow(
      /leaves 1 for training/,
    );
  });
});

describe("fuzzing the IDX reader (fixed seed)", () => {
  const base = idxBytes("uint8", [3, 2, 3], PIXELS);
  const cases: [string, Uint8Array][] = [
    ["fuzz.idx3", base],
    ["fuzz.idx3.gz", new Uint8Array(gzipSync(base))],
    [
      "fuzz_f.idx",
      idxBytes(
        "float32",
        [3, 6],
        PIXELS.map((v) => v / 7),
      ),
    ],
  ];
  for (const [name, bytes] of cases) {
    it(`${name}: parses consistently with its header or fails with a DataFormatError`, () => {
      fc.assert(
        fc.property(
          fc.oneof(
            fc.record({ kind: fc.constant("truncate" as const), at: fc.nat() }),
            fc.record({
              kind: fc.constant("flip" as const),
              at: fc.nat(),
              bit: fc.integer({ min: 0, max: 7 }),
            }),
            fc.record({
              kind: fc.constant("word" as const),
              at: fc.integer({ min: 0, max: 20 }),
              value: fc.constantFrom(0, 1, 3, 0xff, 0x10000, 0x7fffffff, 0xffffffff),
            }),
          ),
          (m) => {
            const b = bytes.slice();
            let mutated: Uint8Array = b;
            if (m.kind === "truncate") mutated = b.slice(0, m.at % (b.length + 1));
            else if (m.kind === "flip") b[m.at % b.length] ^= 1 << m.bit;
            else if (m.at + 4 <= b.length) new DataView(b.buffer).setUint32(m.at, m.value, false);
            try {
              const a = readIdx(mutated, name, { maxBytes: 1 << 20 });
              const declared = a.shape.reduce((p, s) => p * s, 1);
              expect(a.data.length).toBe(declared);
              for (const v of a.data) expect(Number.isFinite(v)).toBe(true);
            } catch (err) {
              if (!(err instanceof DataFormatError)) throw err;
              expect(err.file).toBe(name);
              expect(err.problem.length).toBeGreaterThan(5);
            }
          },
        ),
        { seed: 15_015, numRuns: 300 },
      );
    });
  }
});
