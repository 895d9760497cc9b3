/**
 * The level 5 reader on layouts at the edges of its checks, built element by element
 * (matElements of sdspcaan-test-support): cells filled to the byte, empty and logical
 * cell elements, complex compressed variables at their size bound, how much of a
 * compressed stream is inflated to find a header, and the header text. Each case
 * checks the decoded values, the exact message, or what was inflated.
 */
import { nodeInflater } from "sdspcaan/node";
import {
  CLASS,
  cellColumn,
  chars,
  concatBytes,
  emptyDouble,
  errorOf,
  MI,
  matElements,
  numeric,
  type WriteArray,
  writeMatV5,
} from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { DataFormatError } from "#internal/core/errors.js";
import type { Inflater } from "#internal/formats/inflate.js";
import { readMatV5, readMatV5Async } from "#internal/formats/matV5.js";
import { parseBytesSync } from "#internal/formats/parse.js";

const { u32, el, flags, dims, name, values, matrix, mat, compressed } = matElements();

function read(bytes: Uint8Array, limits = {}, inflater: Inflater = nodeInflater) {
  return readMatV5(bytes, "t.mat", limits, inflater).variables;
}

function refusal(run: () => unknown): string {
  const err = errorOf(run);
  expect(err).toBeInstanceOf(DataFormatError);
  return err.message;
}

/** nodeInflater, recording the input length of each header look and each whole inflation. */
function recording() {
  const looks: number[] = [];
  let whole = 0;
  const inflater: Inflater = {
    ...nodeInflater,
    inflatePrefix(payload, max) {
      looks.push(payload.length);
      return nodeInflater.inflatePrefix(payload, max);
    },
    inflate(payload, max) {
      whole++;
      return nodeInflater.inflate(payload, max);
    },
  };
  return { inflater, looks, inflated: () => whole };
}

const emptyElement = () => el(MI.MATRIX, new Uint8Array(0));
const cell = (n: number, ...items: Uint8Array[]) =>
  matrix(flags(CLASS.CELL), dims(1, n), name("c"), ...items);

/** A 1 x n char array in miUINT16 ("" as 0 x 0), element by element. */
const text = (s: string, rows = s === "" ? 0 : 1) =>
  matrix(
    flags(CLASS.CHAR),
    dims(rows, s.length),
    name(""),
    values(
      MI.UINT16,
      [...s].map((ch) => ch.charCodeAt(0)),
    ),
  );

describe("cell arrays at their bounds", () => {
  it("reads a cell whose elements fill its bytes exactly, 8 bytes each", () => {
    const [c] = read(mat(cell(3, emptyElement(), emptyElement(), emptyElement())));
    expect([c.kind, c.dims]).toEqual(["cell", [1, 3]]);
    // Empty doubles are no texts.
    expect(c.texts()).toBeNull();
  });

  it("reads a 0 x 0 char element as an empty text, and a logical element as no text", () => {
    expect(read(mat(cell(2, text("ab"), text("", 0))))[0].texts()).toEqual(["ab", ""]);
    const flag = matrix(
      flags(CLASS.UINT8, { logical: true }),
      dims(1, 1),
      name(""),
      values(MI.UINT8, [1]),
    );
    expect(read(mat(cell(2, text("ab"), flag)))[0].texts()).toBeNull();
  });
});

describe("a cellstr with empty texts, as MATLAB saves one", () => {
  const X = numeric("X", [
    [1, 2],
    [3, 4],
    [5, 6],
  ]);
  // MATLAB saves '' as a 0 x 0 char array, in UTF-16 (v6) or UTF-8 (v7) codes, and the
  // element `cell(n, 1)` left unfilled as [], a 0 x 0 double.
  it.each<[string, WriteArray]>([
    ["'' in miUTF16", chars("", "", MI.UTF16)],
    ["'' in miUTF8", chars("", "", MI.UTF8)],
    ["[]", emptyDouble()],
  ])("reads %s between two texts as an empty text, the others intact", (_empty, empty) => {
    for (const compress of [false, true]) {
      const names = cellColumn("names", [chars("", "cat"), empty, chars("", "dog")]);
      const [, v] = read(writeMatV5([X, names], { compress }));
      expect([v.name, v.kind, v.dims]).toEqual(["names", "cell", [3, 1]]);
      expect(v.texts()).toEqual(["cat", "", "dog"]);
    }
  });

  it("reads an element with no payload as [], and a cell of nothing else as no texts", () => {
    expect(read(mat(cell(3, text("ab"), emptyElement(), text("c"))))[0].texts()).toEqual([
      "ab",
      "",
      "c",
    ]);
    const [onlyEmpty] = read(writeMatV5([cellColumn("c", [emptyDouble(), emptyDouble()])]));
    expect(onlyEmpty.texts()).toBeNull();
    // An empty cell inside is no text, empty or not.
    const nested = cellColumn("c", [chars("", "a"), cellColumn("", [])]);
    expect(read(writeMatV5([nested]))[0].texts()).toBeNull();
  });

  it("takes them as labels, refusing the empty one as a missing label by its sample", () => {
    const names = cellColumn("names", [chars("", "cat"), emptyDouble(), chars("", "dog")]);
    const err = errorOf(() =>
      parseBytesSync(writeMatV5([X, names]), "t.mat", { yVar: "names" }, nodeInflater),
    );
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toBe(
      "t.mat: labels 'names', sample 1 (counting from 0): the label is empty; every sample needs its class label (remove the sample or fill in its label)",
    );
  });
});

describe("char arrays", () => {
  it("refuses a char array of more characters than any data can hold", () => {
    const max = 2 ** 31 - 1;
    const huge = matrix(flags(CLASS.CHAR), dims(max, max, max), name("s"), name("ab", MI.UTF8));
    expect(refusal(() => read(mat(huge)))).toBe(
      `t.mat: variable 's': char array ${max} x ${max} x ${max} does not match its 2-byte miUTF8 data`,
    );
  });
});

describe("compressed variables", () => {
  /** `m` with `extra` zero bytes more than it holds, declared. */
  const padded = (m: Uint8Array, extra: number) => {
    const out = concatBytes([m, new Uint8Array(extra)]);
    new DataView(out.buffer).setUint32(4, m.length - 8 + extra, true);
    return out;
  };

  it("bounds a complex variable by twice its values", () => {
    // Header 48 bytes, then the real and the imaginary part, 16 bytes each.
    const z = matrix(
      flags(CLASS.DOUBLE, { complex: true }),
      dims(1, 1),
      name("z"),
      values(MI.DOUBLE, [1]),
      values(MI.DOUBLE, [2]),
    );
    expect(z.length - 8).toBe(48 + 32);
    const [v] = read(mat(compressed(z)));
    expect([v.complex, Array.from(v.values().data)]).toEqual([true, [1]]);
    expect(refusal(() => read(mat(compressed(padded(z, 1)))))).toBe(
      "t.mat: variable 'z': declares 81 bytes of decompressed data, more than its 1 x 1 numeric array can hold",
    );
  });

  it.each([
    ["numeric", CLASS.DOUBLE, false],
    ["logical", CLASS.UINT8, true],
  ])("refuses %s values past maxBytes before inflating them", (_, classId, logical) => {
    const a = matrix(
      flags(classId, { logical }),
      dims(1, 20),
      name("a"),
      values(MI.UINT8, new Array(20).fill(1)),
    );
    const { inflater, inflated } = recording();
    const [v] = read(mat(compressed(a)), { maxBytes: 159 }, inflater);
    expect(refusal(() => v.values())).toBe(
      "t.mat: variable 'a': its 1 x 20 array declares 20 values and needs 160 bytes as float64, more than the 159 bytes limit (maxBytes)",
    );
    expect(inflated()).toBe(0);
  });

  it("looks for a header in the first 1 KiB of the stream, then 16 KiB, then all of it", () => {
    // Stored (level 0) deflate: a name of n bytes takes as many bytes of the stream.
    const variable = (length: number) =>
      mat(
        compressed(
          matrix(flags(CLASS.DOUBLE), dims(1, 1), name("n".repeat(length)), values(MI.DOUBLE, [7])),
          0,
        ),
      );
    for (const [length, firstLooks] of [
      [10, []],
      [2000, [1024]],
      [30000, [1024, 16384]],
    ] as const) {
      const bytes = variable(length);
      const payload = bytes.length - 128 - 8;
      const { inflater, looks } = recording();
      const [v] = read(bytes, {}, inflater);
      expect(v.name).toHaveLength(length);
      expect(looks).toEqual([...firstLooks, payload]);
      expect(Array.from(v.values().data)).toEqual([7]);
    }
  });
});

describe("a header the whole variable cannot give", () => {
  it("is refused at the first look that holds all of the variable", () => {
    // The stream ends within its first KiB; zeros after it make the element longer.
    const bad = concatBytes([u32(MI.MATRIX, 48), el(MI.INT32, u32(6, 0)), dims(1, 1), name("a")]);
    const z = compressed(bad).subarray(8);
    const element = concatBytes([u32(MI.COMPRESSED, z.length + 2000), z, new Uint8Array(2000)]);
    const { inflater, looks } = recording();
    expect(refusal(() => read(mat(element), {}, inflater))).toBe(
      "t.mat: variable 1 (compressed element at byte 128): array flags must be an 8-byte miUINT32 element, found miINT32 of 8 bytes",
    );
    expect(looks).toEqual([1024]);
  });
});

describe("readMatV5Async", () => {
  it("reads with a synchronous inflater as readMatV5 does", async () => {
    const bytes = mat(
      compressed(matrix(flags(CLASS.DOUBLE), dims(1, 2), name("a"), values(MI.DOUBLE, [3, 4]))),
    );
    const m = await readMatV5Async(bytes, "t.mat", {}, nodeInflater);
    expect(m.variables.map((v) => [v.name, Array.from(v.values().data)])).toEqual([["a", [3, 4]]]);
  });
});

describe("the file around the variables", () => {
  it("gives the header text without the blanks around it", () => {
    const bytes = mat();
    bytes.fill(0x20, 0, 116);
    bytes.set(new TextEncoder().encode("  MATLAB 5.0 MAT-file  "), 10);
    expect(readMatV5(bytes, "t.mat", {}, nodeInflater).headerText).toBe("MATLAB 5.0 MAT-file");
  });

  it("names how many bytes remain when an element declares more", () => {
    const cut = concatBytes([mat(), u32(MI.MATRIX, 100), new Uint8Array(16)]);
    expect(refusal(() => read(cut))).toBe(
      "t.mat: variable 1 (element at byte 128): miMATRIX element declares 100 bytes but only 16 remain (the file is truncated or corrupt)",
    );
  });
});
