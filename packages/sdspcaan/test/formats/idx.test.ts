/**
 * The IDX reader's smaller parts, each checked exactly: the names taken for IDX and
 * the labels file beside an images file, the header's checks and their messages,
 * the variable and the labels an array becomes, non-finite floats named by row, and
 * gzip streams refused or bounded by what their header declares, with node:zlib and
 * with an inflater inflating ahead (as DecompressionStream does).
 */
import { gzipSync } from "node:zlib";
import { nodeInflater } from "sdspcaan/node";
import { describe, expect, it } from "vitest";
import { DataFormatError } from "#internal/core/errors.js";
import {
  gunzipped,
  gunzippedAhead,
  hasIdxName,
  idxDeclaredSize,
  idxLabels,
  idxLabelsCompanion,
  idxVariable,
  isGzip,
  looksLikeIdxHeader,
  readIdx,
} from "#internal/formats/idx.js";
import {
  decompressionStreamInflate,
  InflateError,
  type Inflater,
} from "#internal/formats/inflate.js";
import { formatBytes } from "#internal/formats/limits.js";

/** An IDX file of `code` with `shape`, its values written big-endian by `write`. */
function idx(code: number, shape: number[], body: Uint8Array = new Uint8Array(0)): Uint8Array {
  const out = new Uint8Array(4 + 4 * shape.length + body.length);
  out[2] = code;
  out[3] = shape.length;
  shape.forEach((d, i) => {
    new DataView(out.buffer).setUint32(4 + 4 * i, d, false);
  });
  out.set(body, 4 + 4 * shape.length);
  return out;
}

function f64be(values: number[]): Uint8Array {
  const out = new Uint8Array(8 * values.length);
  values.forEach((v, i) => {
    new DataView(out.buffer).setFloat64(8 * i, v, false);
  });
  return out;
}

function f32be(values: number[]): Uint8Array {
  const out = new Uint8Array(4 * values.length);
  values.forEach((v, i) => {
    new DataView(out.buffer).setFloat32(4 * i, v, false);
  });
  return out;
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(DataFormatError);
    return (err as Error).message;
  }
  throw new Error("expected a DataFormatError");
}

describe("names", () => {
  it("takes MNIST's names, .idx and .idxN files for IDX, gzip'd or not, by the base name", () => {
    const yes = [
      "train-images-idx3-ubyte",
      "t10k-labels-idx1-ubyte.gz",
      "DIR/X.IDX3",
      "x.idx",
      "x.idx1.gz",
      "data/emnist-letters-train-images-idx3-ubyte",
      "C:\\mnist\\foo-ubyte",
    ];
    const no = [
      "x.csv",
      "idx3/data.csv",
      "x.idx12",
      "x.idx.npy",
      "ubyte.csv",
      "x-ubyte.bin",
      "x.gz",
      "images.ubyte",
    ];
    for (const f of yes) expect(hasIdxName(f), f).toBe(true);
    for (const f of no) expect(hasIdxName(f), f).toBe(false);
  });

  it("pairs an images file with its labels file, keeping the directory and the case", () => {
    const pairs: [string, string | null][] = [
      ["/a/b/train-images-idx3-ubyte.gz", "/a/b/train-labels-idx1-ubyte.gz"],
      ["C:\\d\\t10k-images-idx3-ubyte", "C:\\d\\t10k-labels-idx1-ubyte"],
      ["TRAIN-IMAGES-IDX3-UBYTE", "TRAIN-LABELS-idx1-UBYTE"],
      ["Images.idx3", "labels.idx1"],
      ["images-idx3/x.idx3", null],
      ["/a/b/pixels.idx", null],
      ["/a/images/x-idx1-ubyte", null],
    ];
    for (const [images, labels] of pairs) expect(idxLabelsCompanion(images), images).toBe(labels);
  });

  it("names the variable after the file, without its directory, .gz and .idxN", () => {
    const arr = readIdx(idx(0x08, [2, 2], Uint8Array.of(1, 2, 3, 4)), "x.idx", {}, nodeInflater);
    const names: [string, string][] = [
      ["dir/sub/imgs.idx3.gz", "imgs"],
      ["C:\\d\\IMGS.IDX.GZ", "IMGS"],
      ["train-images-idx3-ubyte", "train-images-idx3-ubyte"],
      [".idx", "array"],
    ];
    for (const [file, name] of names) expect(idxVariable(arr, file).name, file).toBe(name);
    const v = idxVariable(arr, "x.idx");
    expect([v.kind, v.className, v.dims, v.complex, v.texts()]).toEqual([
      "numeric",
      "uint8",
      [2, 2],
      false,
      null,
    ]);
    expect(v.values()).toEqual({ data: arr.data, order: "C" });
  });
});

describe("headers", () => {
  it("tells an IDX header by its zero bytes, type and rank", () => {
    expect(looksLikeIdxHeader(Uint8Array.of(0, 0, 8, 1))).toBe(true);
    expect(looksLikeIdxHeader(Uint8Array.of(0, 0, 0x0e, 4))).toBe(true);
    for (const bad of [
      [0, 0, 8],
      [1, 0, 8, 1],
      [0, 1, 8, 1],
      [0, 0, 0x0a, 1],
      [0, 0, 8, 0],
      [0, 0, 8, 5],
    ]) {
      expect(looksLikeIdxHeader(Uint8Array.from(bad)), String(bad)).toBe(false);
    }
    expect(isGzip(Uint8Array.of(0x1f, 0x8b))).toBe(true);
    expect(isGzip(Uint8Array.of(0x1f))).toBe(false);
    expect(isGzip(Uint8Array.of(0x1f, 0x8c))).toBe(false);
    expect(isGzip(Uint8Array.of(0x1e, 0x8b))).toBe(false);
  });

  it("refuses each part of a bad header, word for word", () => {
    const read = (bytes: Uint8Array) => refusal(() => readIdx(bytes, "h.idx", {}, nodeInflater));
    expect(read(Uint8Array.of(0, 0, 8))).toBe(
      "h.idx: 3 bytes is too short for an IDX file (the magic number alone is 4)",
    );
    expect(read(Uint8Array.of(0x12, 0xab, 8, 1))).toBe(
      "h.idx: not an IDX file: the magic number must start with two zero bytes, got 0x12AB",
    );
    expect(read(Uint8Array.of(0, 0x0c, 8, 1))).toBe(
      "h.idx: not an IDX file: the magic number must start with two zero bytes, got 0x000C",
    );
    expect(read(Uint8Array.of(0, 0, 0xa, 1))).toBe(
      "h.idx: unknown IDX element type 0x0A (known: 0x08 uint8, 0x09 int8, 0x0B int16, 0x0C int32, 0x0D float32, 0x0E float64)",
    );
    expect(read(Uint8Array.of(0, 0, 8, 5))).toBe(
      "h.idx: IDX files with 5 dimensions are not supported (1 to 4)",
    );
    expect(read(Uint8Array.of(0, 0, 8, 0))).toBe(
      "h.idx: IDX files with 0 dimensions are not supported (1 to 4)",
    );
    expect(read(Uint8Array.of(0, 0, 8, 2, 0, 0, 0, 1, 0, 0, 0))).toBe(
      "h.idx: truncated IDX header: 2 dimension sizes need 12 bytes, got 11",
    );
    // Four dimensions, the most there may be: the last ones join into each row.
    const four = readIdx(
      idx(
        0x08,
        [2, 1, 2, 2],
        Uint8Array.from({ length: 8 }, (_, i) => i),
      ),
      "f.idx",
      {},
      nodeInflater,
    );
    expect(four.shape).toEqual([2, 1, 2, 2]);
    expect(idxVariable(four, "f.idx").dims).toEqual([2, 4]);
    // Zero images: an empty array, and a row length of 1 for an empty image.
    expect(
      idxVariable(readIdx(idx(0x08, [0, 0]), "z.idx", {}, nodeInflater), "z.idx").dims,
    ).toEqual([0, 1]);
  });

  it("names the first NaN or infinity by its index and row", () => {
    const nan = idx(0x0e, [2, 3], f64be([0, 1, 2, 3, Number.NaN, 5]));
    expect(refusal(() => readIdx(nan, "n.idx", {}, nodeInflater))).toBe(
      "n.idx: value 4 (row 1) is NaN",
    );
    const inf = idx(0x0d, [4], f32be([0, 1, Number.NEGATIVE_INFINITY, 3]));
    expect(refusal(() => readIdx(inf, "n.idx", {}, nodeInflater))).toBe(
      "n.idx: value 2 (row 2) is -Infinity",
    );
    const ok = readIdx(idx(0x0d, [2], f32be([-0, 1.5])), "n.idx", {}, nodeInflater);
    expect(Array.from(ok.data)).toEqual([-0, 1.5]);
  });

  it("reads labels from a vector only", () => {
    const labels = readIdx(idx(0x08, [3], Uint8Array.of(3, 1, 3)), "y.idx1", {}, nodeInflater);
    expect(idxLabels(labels, "y.idx1")).toEqual([3, 1, 3]);
    const square = readIdx(idx(0x08, [2, 2], Uint8Array.of(1, 2, 3, 4)), "y.idx", {}, nodeInflater);
    expect(refusal(() => idxLabels(square, "y.idx"))).toBe(
      "y.idx: labels must be a vector (an idx1 file); the IDX array has shape (2, 2)",
    );
  });
});

describe("gzip streams", () => {
  const body = Uint8Array.from({ length: 24 }, (_, i) => i * 9);
  const raw = idx(0x08, [2, 3, 4], body);
  const gz = new Uint8Array(gzipSync(raw));

  it("finds the declared size in the stream's first bytes, or nothing", () => {
    expect(idxDeclaredSize(raw, "x", 1 << 20)).toBe(raw.length);
    expect(idxDeclaredSize(raw.subarray(0, 15), "x", 1 << 20)).toBeNull();
    expect(idxDeclaredSize(raw.subarray(0, 16), "x", 1 << 20)).toBe(raw.length);
    expect(idxDeclaredSize(Uint8Array.of(0x50, 0x4b, 3, 4), "x", 1 << 20)).toBeNull();
    expect(refusal(() => idxDeclaredSize(raw, "x", 191))).toBe(
      "x: shape (2, 3, 4) of uint8 declares 24 values and needs 192 bytes as float64, more than the 191 bytes limit (maxBytes)",
    );
    expect(idxDeclaredSize(raw, "x", 192)).toBe(raw.length);
  });

  it("returns what is not gzip as it is, and inflates what is to its declared size", () => {
    expect(gunzipped(raw, "x", 1 << 20, nodeInflater)).toBe(raw);
    expect(Array.from(gunzipped(gz, "x", 1 << 20, nodeInflater))).toEqual(Array.from(raw));
  });

  it("refuses a declared size more than deflate can give from the file's bytes", () => {
    const big = idx(0x08, [1, 2_000_000]);
    const head = new Uint8Array(gzipSync(big.subarray(0, 12)));
    expect(refusal(() => gunzipped(head, "x", 2 ** 31, nodeInflater))).toBe(
      `x: declares 2000012 bytes inside its gzip stream, more than deflate can encode in ${head.length} bytes: corrupt`,
    );
  });

  it("reports a truncated or corrupt stream in the same words either way", async () => {
    const truncated = gz.subarray(0, gz.length - 12);
    const corrupt = gz.slice();
    corrupt[gz.length - 6] ^= 0xff;
    const cases: [Uint8Array, string][] = [
      [truncated, "x: the gzip stream is truncated"],
      [corrupt, "x: corrupt gzip stream (incorrect data check)"],
    ];
    for (const [bytes, message] of cases) {
      expect(refusal(() => gunzipped(bytes, "x", 1 << 20, nodeInflater))).toBe(message);
      const ahead = await gunzippedAhead(bytes, "x", {}, decompressionStreamInflate);
      expect(refusal(() => gunzipped(bytes, "x", 1 << 20, ahead))).toBe(message);
    }
  });

  it("inflates ahead the start, then the whole to about its declared size, or nothing more", async () => {
    const seen: number[] = [];
    const counting = (payload: Uint8Array, max: number, format?: "gzip" | "deflate") => {
      seen.push(max);
      return decompressionStreamInflate(payload, max, format);
    };
    // A small stream: its start is all of it.
    const a = await gunzippedAhead(gz, "x", {}, counting);
    expect(seen).toHaveLength(1);
    expect(Array.from(a.gunzip(gz, raw.length))).toEqual(Array.from(raw));
    // A stream longer than the start: inflated again, to its size and a margin.
    const long = idx(0x08, [1, 5_000_000], new Uint8Array(5_000_000));
    const longGz = new Uint8Array(gzipSync(long));
    seen.length = 0;
    const b = await gunzippedAhead(longGz, "x", {}, counting);
    const bound = Math.min(longGz.length * 1032 + 1024, long.length + 64 * 1024);
    expect(seen).toEqual([4096 * 1032 + 1024, bound]);
    expect(b.gunzip(longGz, long.length).length).toBe(long.length);
    // Refused from its header: nothing more is inflated.
    seen.length = 0;
    await gunzippedAhead(longGz, "x", { maxBytes: 1 << 20 }, counting);
    expect(seen).toHaveLength(1);
    // Not gzip, or an inflater already: nothing at all.
    seen.length = 0;
    await gunzippedAhead(raw, "x", {}, counting);
    expect(seen).toHaveLength(0);
    expect(await gunzippedAhead(gz, "x", {}, nodeInflater)).toBe(nodeInflater);
  });

  it("without a gunzipPrefix, inflates to the limit and reads the header after", () => {
    const { gunzipPrefix: _, ...plain } = nodeInflater;
    const bounded: number[] = [];
    const inflater: Inflater = {
      ...plain,
      gunzip(p, max) {
        bounded.push(max);
        return plain.gunzip(p, max);
      },
    };
    expect(Array.from(readIdx(gz, "x.idx", { maxBytes: 4096 }, inflater).data)).toEqual(
      Array.from(body),
    );
    expect(bounded).toEqual([Math.min(4096, gz.length * 1032 + 1024)]);
  });
});

describe("edges", () => {
  it("refuses a first byte that is not zero, whatever the second", () => {
    expect(refusal(() => readIdx(Uint8Array.of(0x12, 0, 8, 1), "h.idx", {}, nodeInflater))).toBe(
      "h.idx: not an IDX file: the magic number must start with two zero bytes, got 0x1200",
    );
  });

  it("names variables without taking .gz or .idx from the middle of a name", () => {
    const arr = readIdx(idx(0x08, [1], Uint8Array.of(1)), "x.idx", {}, nodeInflater);
    expect(idxVariable(arr, "a.gz.idx").name).toBe("a.gz");
    expect(idxVariable(arr, "b.idx3.v2").name).toBe("b.idx3.v2");
    expect(idxVariable(arr, "dir\\sub/c.idx1").name).toBe("c");
    expect(hasIdxName("idx/data.idx.csv")).toBe(false);
    expect(hasIdxName("x.GZ.idx")).toBe(true);
  });

  it("bounds a gzip'd file by maxBytes, header included, at the edge and one past", () => {
    // Four float64 values: 32 bytes as float64, within a 32-byte limit; the file is 40.
    const raw = idx(0x0e, [4], f64be([1, 2, 3, 4]));
    const gz = new Uint8Array(gzipSync(raw));
    expect(Array.from(readIdx(raw, "r.idx", { maxBytes: 32 }, nodeInflater).data)).toEqual([
      1, 2, 3, 4,
    ]);
    expect(refusal(() => readIdx(gz, "g.idx", { maxBytes: 39 }, nodeInflater))).toBe(
      "g.idx: declares 40 bytes inside its gzip stream, more than the 39 bytes limit (maxBytes)",
    );
    expect(Array.from(readIdx(gz, "g.idx", { maxBytes: 40 }, nodeInflater).data)).toEqual([
      1, 2, 3, 4,
    ]);
  });

  it("lets through an inflater's own errors, and says what too large means without a header", () => {
    const gz = new Uint8Array(gzipSync(idx(0x08, [2], Uint8Array.of(1, 2))));
    const broken: Inflater = {
      ...nodeInflater,
      gunzip() {
        throw new TypeError("the inflater broke");
      },
    };
    expect(() => readIdx(gz, "b.idx", {}, broken)).toThrow(new TypeError("the inflater broke"));
    const { gunzipPrefix: _, ...plain } = nodeInflater;
    const tooLarge: Inflater = {
      ...plain,
      gunzip() {
        throw new InflateError("too-large", "more");
      },
    };
    const bound = gz.length * 1032 + 1024;
    expect(refusal(() => readIdx(gz, "t.idx", {}, tooLarge))).toBe(
      `t.idx: the gzip stream inflates to more than ${formatBytes(bound)} (beyond what deflate can encode in this many bytes: corrupt)`,
    );
  });

  it("inflates ahead no more than the reader will read", async () => {
    const seen: number[] = [];
    const counting = (payload: Uint8Array, max: number, format?: "gzip" | "deflate") => {
      seen.push(max);
      return decompressionStreamInflate(payload, max, format);
    };
    const peek = 4096 * 1032 + 1024;
    const zeros = new Uint8Array(5_000_000);
    // A header declaring less than the stream holds: its size and a margin are within the start.
    const lying = idx(0x08, [1, 10], zeros);
    seen.length = 0;
    const a = await gunzippedAhead(new Uint8Array(gzipSync(lying)), "l", {}, counting);
    expect(seen).toEqual([peek]);
    expect(refusal(() => readIdx(new Uint8Array(gzipSync(lying)), "l", {}, a))).toBe(
      "l: the gzip stream holds more than the 22 bytes its header declares",
    );
    // Its size and margin exactly the start's length: nothing more either.
    const edge = idx(0x08, [1, 1, peek - 65536 - 16], zeros);
    seen.length = 0;
    await gunzippedAhead(new Uint8Array(gzipSync(edge)), "e", {}, counting);
    expect(seen).toEqual([peek]);
    // Declaring more than deflate can give from the file: refused from the header.
    const big = idx(0x08, [1, 100_000_000], zeros);
    const bigGz = new Uint8Array(gzipSync(big));
    seen.length = 0;
    await gunzippedAhead(bigGz, "b", {}, counting);
    expect(seen).toEqual([peek]);
    expect(refusal(() => readIdx(bigGz, "b", {}, nodeInflater))).toBe(
      `b: declares 100000012 bytes inside its gzip stream, more than deflate can encode in ${bigGz.length} bytes: corrupt`,
    );
    // A stream whose start breaks: what broke is all there is.
    const broken = new Uint8Array(gzipSync(idx(0x08, [1, 5_000_000], zeros)));
    broken.fill(0xff, 40, 60);
    seen.length = 0;
    const c = await gunzippedAhead(broken, "c", {}, counting);
    expect(seen).toEqual([peek]);
    expect(refusal(() => readIdx(broken, "c", {}, c))).toMatch(/^c: corrupt gzip stream \(.+\)$/);
    // A stream whose header is not IDX: inflated to the bound.
    const other = new Uint8Array(gzipSync(zeros));
    seen.length = 0;
    await gunzippedAhead(other, "o", {}, counting);
    expect(seen).toEqual([peek, Math.min(2 ** 31, other.length * 1032 + 1024)]);
  });
});
