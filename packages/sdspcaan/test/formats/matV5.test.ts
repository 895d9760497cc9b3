/**
 * The level 5 reader element by element, on files built here byte by byte: the
 * array flags, dimensions and name, each class (logical, char in every encoding,
 * cell, struct, sparse, ...), complex data, the file's end, and compressed variables
 * whose header needs more than the first inflated bytes. Each case checks the
 * decoded values or the exact message.
 */
import { deflateSync } from "node:zlib";
import { nodeInflater } from "sdspcaan/node";
import {
  CLASS,
  concatBytes as concat,
  encodeValues,
  errorOf,
  MI,
  matElements,
} from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { DataFormatError } from "#internal/core/errors.js";
import { decompressionStreamInflate, type Inflater } from "#internal/formats/inflate.js";
import {
  looksLikeMatV5,
  matHeaderVersion,
  readMatV5,
  readMatV5Async,
} from "#internal/formats/matV5.js";

/** Little-endian unless a test says otherwise. */
let LE = true;

type Elements = ReturnType<typeof matElements>;
/** matElements' builders in the byte order LE says when called. */
function inOrder<K extends keyof Elements>(key: K): Elements[K] {
  return ((...args: unknown[]) =>
    (matElements(LE)[key] as (...a: unknown[]) => Uint8Array)(...args)) as Elements[K];
}
const u32 = inOrder("u32");
const el = inOrder("el");
const small = inOrder("small");
const flags = inOrder("flags");
const dims = inOrder("dims");
const name = inOrder("name");
const values = inOrder("values");
const matrix = inOrder("matrix");
const mat = inOrder("mat");
const compressed = inOrder("compressed");

function read(bytes: Uint8Array, limits = {}) {
  return readMatV5(bytes, "t.mat", limits, nodeInflater).variables;
}

function refusal(run: () => unknown): string {
  const err = errorOf(run);
  expect(err).toBeInstanceOf(DataFormatError);
  return err.message;
}

const double2x2 = () =>
  matrix(flags(CLASS.DOUBLE), dims(2, 2), name("a"), values(MI.DOUBLE, [1, 2, 3, 4]));

describe("the file around the variables", () => {
  it("reads the header text, the byte order and the version, both byte orders", () => {
    for (const le of [true, false]) {
      LE = le;
      const bytes = mat(double2x2());
      expect(looksLikeMatV5(bytes)).toBe(true);
      expect(matHeaderVersion(bytes)).toBe(0x0100);
      const m = readMatV5(bytes, "t.mat", {}, nodeInflater);
      expect(m.littleEndian).toBe(le);
      expect(m.headerText).toBe("MATLAB 5.0 MAT-file, built by matElements");
      expect(m.compressed).toBe(false);
      expect(Array.from(m.variables[0].values().data)).toEqual([1, 2, 3, 4]);
    }
    LE = true;
    expect(looksLikeMatV5(mat().subarray(0, 127))).toBe(false);
    expect(matHeaderVersion(mat().subarray(0, 127))).toBeNull();
    expect(refusal(() => read(mat().subarray(0, 127)))).toBe(
      "t.mat: 127 bytes is too short for a MAT-file (the header alone is 128)",
    );
  });

  it("stops at up to 7 zero bytes of padding at the end, and only zeros", () => {
    for (const n of [1, 7]) {
      expect(read(concat([mat(double2x2()), new Uint8Array(n)])).map((v) => v.name)).toEqual(["a"]);
    }
    const at = mat(double2x2()).length;
    expect(refusal(() => read(concat([mat(double2x2()), Uint8Array.of(0, 0, 1)])))).toBe(
      `t.mat: variable 2 (element at byte ${at}): truncated data element: 3 bytes left where an 8-byte tag is needed`,
    );
    expect(refusal(() => read(concat([mat(double2x2()), new Uint8Array(8)])))).toBe(
      `t.mat: variable 2 (element at byte ${at}): unexpected unknown type 0 element (expected miMATRIX or miCOMPRESSED)`,
    );
    expect(refusal(() => read(mat(values(MI.DOUBLE, [1]))))).toBe(
      "t.mat: variable 1 (element at byte 128): unexpected miDOUBLE element (expected miMATRIX or miCOMPRESSED)",
    );
  });

  it("reads an empty miMATRIX element as an empty double array", () => {
    const [v] = read(mat(el(MI.MATRIX, new Uint8Array(0))));
    expect(v).toMatchObject({
      name: "",
      kind: "numeric",
      className: "double",
      dims: [0, 0],
      complex: false,
    });
    expect(v.values()).toEqual({ data: new Float64Array(0), order: "F" });
    expect(v.texts()).toBeNull();
  });
});

describe("array flags, dimensions and name", () => {
  const where = "t.mat: variable 1 (element at byte 128)";

  it("refuses flags that are not one 8-byte miUINT32 element", () => {
    expect(refusal(() => read(mat(matrix(el(MI.INT32, u32(6, 0)), dims(1, 1), name("a")))))).toBe(
      `${where}: array flags must be an 8-byte miUINT32 element, found miINT32 of 8 bytes`,
    );
    expect(refusal(() => read(mat(matrix(el(MI.UINT32, u32(6)), dims(1, 1), name("a")))))).toBe(
      `${where}: array flags must be an 8-byte miUINT32 element, found miUINT32 of 4 bytes`,
    );
  });

  it("refuses dimensions that are not at least two int32 values, or negative", () => {
    const f = flags(CLASS.DOUBLE);
    expect(refusal(() => read(mat(matrix(f, el(MI.UINT32, u32(1, 1)), name("a")))))).toBe(
      `${where}: dimensions must be an miINT32 element of at least 2 values, found miUINT32 of 8 bytes`,
    );
    expect(refusal(() => read(mat(matrix(f, el(MI.INT32, u32(1)), name("a")))))).toBe(
      `${where}: dimensions must be an miINT32 element of at least 2 values, found miINT32 of 4 bytes`,
    );
    expect(refusal(() => read(mat(matrix(f, el(MI.INT32, new Uint8Array(10)), name("a")))))).toBe(
      `${where}: dimensions must be an miINT32 element of at least 2 values, found miINT32 of 10 bytes`,
    );
    expect(refusal(() => read(mat(matrix(f, dims(2, -3), name("a")))))).toBe(
      `${where}: negative dimension -3`,
    );
    // Three dimensions, the last 0: an empty array, not an error.
    const [v] = read(mat(matrix(f, dims(2, 2, 0), name("e"), values(MI.DOUBLE, []))));
    expect(v.dims).toEqual([2, 2, 0]);
  });

  it("reads names stored as miINT8, miUINT8 or miUTF8, refuses others, and allows none", () => {
    for (const type of [MI.INT8, MI.UINT8, MI.UTF8]) {
      const [v] = read(
        mat(matrix(flags(CLASS.DOUBLE), dims(1, 1), name("fea", type), values(MI.DOUBLE, [5]))),
      );
      expect(v.name).toBe("fea");
    }
    expect(
      refusal(() => read(mat(matrix(flags(CLASS.DOUBLE), dims(1, 1), name("fea", MI.INT16))))),
    ).toBe(`${where}: array name must be an miINT8 element, found miINT16`);
    const [nameless] = read(mat(matrix(flags(CLASS.CELL), dims(0, 0))));
    expect(nameless).toMatchObject({ name: "", kind: "cell", dims: [0, 0] });
  });

  it("reads small data elements and refuses one declaring more than 4 bytes", () => {
    const [v] = read(
      mat(
        matrix(
          flags(CLASS.DOUBLE),
          dims(1, 2),
          small(MI.INT8, new TextEncoder().encode("ab")),
          small(MI.INT16, encodeValues([-3, 300], MI.INT16, LE)),
        ),
      ),
    );
    expect(v.name).toBe("ab");
    expect(Array.from(v.values().data)).toEqual([-3, 300]);
    expect(
      refusal(() =>
        read(mat(matrix(flags(CLASS.DOUBLE), dims(1, 1), small(MI.INT8, Uint8Array.of(97), 5)))),
      ),
    ).toBe(`${where}: small data element declares 5 bytes (at most 4 fit)`);
  });
});

describe("classes and their data", () => {
  it("reads a logical array as 0/1 and lists each class by name", () => {
    const lg = matrix(
      flags(CLASS.UINT8, { logical: true }),
      dims(1, 3),
      name("lg"),
      values(MI.UINT8, [1, 0, 1]),
    );
    const kinds: [number, string, string][] = [
      [CLASS.CELL, "cell", "cell"],
      [CLASS.STRUCT, "struct", "struct"],
      [3, "object", "object"],
      [CLASS.SPARSE, "sparse", "sparse"],
      [16, "function", "function_handle"],
      [17, "opaque", "opaque"],
      [99, "unknown", "class 99"],
      [0, "unknown", ""],
    ];
    const others = kinds.map(([id], i) =>
      matrix(
        flags(id),
        dims(0, 0),
        name(`v${i}`),
        ...(id === CLASS.SPARSE
          ? [values(MI.INT32, []), values(MI.INT32, [0]), values(MI.DOUBLE, [])]
          : []),
      ),
    );
    const vars = read(mat(lg, ...others));
    expect(vars[0]).toMatchObject({ kind: "logical", className: "logical", dims: [1, 3] });
    expect(Array.from(vars[0].values().data)).toEqual([1, 0, 1]);
    expect(vars.slice(1).map((v) => [v.kind, v.className])).toEqual(
      kinds.map(([, k, c]) => [k, c]),
    );
    expect(refusal(() => vars[1].values())).toBe(
      "t.mat: variable 'v0': a cell array has no numeric values",
    );
    expect(vars[2].texts()).toBeNull();
    for (const cls of [CLASS.SINGLE, CLASS.INT8, CLASS.UINT64]) {
      const [v] = read(mat(matrix(flags(cls), dims(1, 1), name("n"), values(MI.DOUBLE, [2.5]))));
      expect(v).toMatchObject({ kind: "numeric" });
      expect(Array.from(v.values().data)).toEqual([2.5]);
    }
  });

  it("refuses numeric data of a non-numeric type, or of the wrong length", () => {
    const f = flags(CLASS.DOUBLE);
    expect(
      refusal(() => read(mat(matrix(f, dims(1, 1), name("a"), el(MI.UTF8, Uint8Array.of(1)))))),
    ).toBe("t.mat: variable 'a': numeric data stored as miUTF8, which is not a numeric type");
    expect(
      refusal(() => read(mat(matrix(f, dims(2, 2), name("a"), values(MI.INT16, [1, 2, 3]))))),
    ).toBe(
      "t.mat: variable 'a': dimensions 2 x 2 need 8 bytes of miINT16 but the data element holds 6",
    );
  });

  it("reads complex arrays (the real part as values) and refuses a mismatched imaginary part", () => {
    const cx = flags(CLASS.DOUBLE, { complex: true });
    const [v] = read(
      mat(matrix(cx, dims(1, 2), name("z"), values(MI.DOUBLE, [1, 2]), values(MI.INT8, [3, 4]))),
    );
    expect(v.complex).toBe(true);
    expect(Array.from(v.values().data)).toEqual([1, 2]);
    const where = "t.mat: variable 'z'";
    expect(
      refusal(() =>
        read(
          mat(matrix(cx, dims(1, 2), name("z"), values(MI.DOUBLE, [1, 2]), values(MI.INT8, [3]))),
        ),
      ),
    ).toBe(`${where}: imaginary part does not match the dimensions 1 x 2`);
    expect(
      refusal(() =>
        read(
          mat(
            matrix(
              cx,
              dims(1, 1),
              name("z"),
              values(MI.DOUBLE, [1]),
              el(MI.MATRIX, new Uint8Array(8)),
            ),
          ),
        ),
      ),
    ).toBe(`${where}: imaginary part does not match the dimensions 1 x 1`);
  });

  const text = "aé€😀";
  const codes = Array.from(text, (c) => c.codePointAt(0) as number);
  const encodings: [string, number, Uint8Array][] = [
    ["miUTF8", MI.UTF8, new TextEncoder().encode(text)],
    [
      "miUINT16",
      MI.UINT16,
      encodeValues(
        codes.map((c) => c & 0xffff),
        MI.UINT16,
        true,
      ),
    ],
    ["miUINT32", MI.UINT32, encodeValues(codes, MI.UINT32, true)],
    ["miUTF32", 18, encodeValues(codes, MI.UINT32, true)],
    [
      "miUTF16",
      17,
      encodeValues(
        codes.map((c) => c & 0xffff),
        MI.UINT16,
        true,
      ),
    ],
    ["miINT32", MI.INT32, encodeValues(codes, MI.INT32, true)],
  ];
  for (const le of [true, false]) {
    for (const [label, type, bytes] of encodings) {
      it(`reads char data stored as ${label}, ${le ? "little" : "big"}-endian`, () => {
        LE = le;
        const data =
          type === MI.UTF8
            ? bytes
            : encodeValues(
                type === MI.UINT16 || type === 17 ? codes.map((c) => c & 0xffff) : codes,
                type === 18 ? MI.UINT32 : type === 17 ? MI.UINT16 : type,
                le,
              );
        const [v] = read(mat(matrix(flags(CLASS.CHAR), dims(1, 4), name("s"), el(type, data))));
        LE = true;
        expect(v).toMatchObject({ kind: "char", className: "char" });
        const expected = type === MI.UINT16 || type === 17 ? codes.map((c) => c & 0xffff) : codes;
        expect(Array.from(v.values().data)).toEqual(expected);
        expect(v.texts()).toEqual([String.fromCodePoint(...expected)]);
        expect(v.values().order).toBe("F");
      });
    }
  }

  it("reads 8-bit char data and a char matrix row by row", () => {
    const rows = ["ab", "cd", "ef"];
    const data = [0, 1].flatMap((j) => rows.map((r) => r.charCodeAt(j)));
    for (const type of [MI.UINT8, MI.INT8, MI.INT16]) {
      const [v] = read(mat(matrix(flags(CLASS.CHAR), dims(3, 2), name("m"), values(type, data))));
      expect(v.texts()).toEqual(rows);
    }
  });

  it("refuses char data that does not match its dimensions", () => {
    const ch = (type: number, bytes: Uint8Array, n: number) =>
      read(mat(matrix(flags(CLASS.CHAR), dims(1, n), name("s"), el(type, bytes))));
    expect(refusal(() => ch(MI.DOUBLE, new Uint8Array(8), 1))).toBe(
      "t.mat: variable 's': char data stored as miDOUBLE",
    );
    expect(refusal(() => ch(MI.UINT16, new Uint8Array(8), 5))).toBe(
      "t.mat: variable 's': char array 1 x 5 does not match its 8-byte miUINT16 data",
    );
    expect(refusal(() => ch(MI.UTF8, new TextEncoder().encode("ab"), 3))).toBe(
      "t.mat: variable 's': char array 1 x 3 does not match its 2-byte miUTF8 data",
    );
    const [v] = ch(MI.UTF8, new TextEncoder().encode("éa"), 3);
    expect(refusal(() => v.texts())).toBe(
      "t.mat: variable 's': char array of 3 characters holds 2 after UTF-8 decoding",
    );
  });

  it("reads cell arrays of strings and scalars as texts, and nothing else", () => {
    const str = (s: string) =>
      matrix(
        flags(CLASS.CHAR),
        dims(1, s.length),
        name(""),
        values(
          MI.UINT16,
          [...s].map((c) => c.charCodeAt(0)),
        ),
      );
    const num = (x: number) =>
      matrix(flags(CLASS.DOUBLE), dims(1, 1), name(""), values(MI.DOUBLE, [x]));
    const cell = (...items: Uint8Array[]) =>
      matrix(flags(CLASS.CELL), dims(items.length, 1), name("c"), ...items);
    expect(read(mat(cell(str("ab"), num(2.5), str("")))).map((v) => v.texts())).toEqual([
      ["ab", "2.5", ""],
    ]);
    const twoRows = matrix(flags(CLASS.CHAR), dims(2, 1), name(""), values(MI.UINT16, [97, 98]));
    const pair = matrix(flags(CLASS.DOUBLE), dims(1, 2), name(""), values(MI.DOUBLE, [1, 2]));
    const cx = matrix(
      flags(CLASS.DOUBLE, { complex: true }),
      dims(1, 1),
      name(""),
      values(MI.DOUBLE, [1]),
      values(MI.DOUBLE, [2]),
    );
    const inner = cell(str("x"));
    for (const odd of [twoRows, pair, cx, inner])
      expect(read(mat(cell(str("a"), odd)))[0].texts()).toBeNull();
    expect(refusal(() => read(mat(cell(values(MI.DOUBLE, [1])))))).toBe(
      "t.mat: variable 'c': cell element 0 is miDOUBLE, expected miMATRIX",
    );
    const many = matrix(flags(CLASS.CELL), dims(1000, 1000), name("c"), str("a"));
    const tail = str("a").length;
    expect(refusal(() => read(mat(many)))).toBe(
      `t.mat: variable 'c': cell array 1000 x 1000 declares 1000000 elements but only ${tail} bytes remain`,
    );
    // Three elements need 24 bytes at least: 20 cannot hold them.
    const three = matrix(flags(CLASS.CELL), dims(3, 1), name("c"), new Uint8Array(20));
    expect(refusal(() => read(mat(three)))).toBe(
      "t.mat: variable 'c': cell array 3 x 1 declares 3 elements but only 20 bytes remain",
    );
  });

  it("follows cells 32 deep and no deeper", () => {
    const nest = (depth: number): Uint8Array => {
      let m = matrix(flags(CLASS.DOUBLE), dims(1, 1), name(""), values(MI.DOUBLE, [7]));
      for (let d = 0; d < depth; d++)
        m = matrix(flags(CLASS.CELL), dims(1, 1), name(d === depth - 1 ? "c" : ""), m);
      return m;
    };
    expect(read(mat(nest(32)))[0].kind).toBe("cell");
    expect(refusal(() => read(mat(nest(33))))).toMatch(
      /^t\.mat: variable 'c' cell 0 cell 0 .* cell 0: cell arrays nested more than 32 deep$/,
    );
  });

  it("checks a sparse array's three parts are present", () => {
    const sp = (...parts: Uint8Array[]) =>
      read(mat(matrix(flags(CLASS.SPARSE), dims(2, 2), name("sp"), ...parts)));
    expect(
      sp(values(MI.INT32, [0]), values(MI.INT32, [0, 1, 1]), values(MI.DOUBLE, [5]))[0].kind,
    ).toBe("sparse");
    expect(refusal(() => sp(values(MI.INT32, [0]), values(MI.INT32, [0, 1, 1])))).toBe(
      "t.mat: variable 'sp' (sparse values): truncated data element: 0 bytes left where an 8-byte tag is needed",
    );
    expect(refusal(() => sp())).toBe(
      "t.mat: variable 'sp' (sparse row indices): truncated data element: 0 bytes left where an 8-byte tag is needed",
    );
    expect(refusal(() => sp(values(MI.INT32, [0])))).toBe(
      "t.mat: variable 'sp' (sparse column starts): truncated data element: 0 bytes left where an 8-byte tag is needed",
    );
  });

  it("copies misaligned values and views aligned ones, in either byte order", () => {
    // A 1-byte small element before the values shifts nothing (tags are 8 bytes), so
    // the file is given at an odd offset of a larger buffer instead.
    for (const le of [true, false]) {
      LE = le;
      const bytes = mat(
        matrix(flags(CLASS.DOUBLE), dims(1, 3), name("v"), values(MI.INT32, [-1, 2, 2147483647])),
      );
      LE = true;
      for (const offset of [0, 1, 2, 4]) {
        const big = new Uint8Array(bytes.length + offset);
        big.set(bytes, offset);
        const [v] = readMatV5(big.subarray(offset), "t.mat", {}, nodeInflater).variables;
        expect(Array.from(v.values().data), `${le} ${offset}`).toEqual([-1, 2, 2147483647]);
        if (le && offset === 0) expect(v.values().data.buffer).toBe(big.buffer);
        if (le && offset === 1) expect(v.values().data.buffer).not.toBe(big.buffer);
      }
    }
  });
});

describe("compressed variables", () => {
  const where = "t.mat: variable 1 (compressed element at byte 128)";

  it("reads the header from the first inflated bytes, and further when a long name needs it", async () => {
    for (const length of [10, 2000, 30000]) {
      const long = "n".repeat(length);
      // Stored (level 0) deflate: the name spans as many compressed bytes as it has.
      const bytes = mat(
        compressed(
          matrix(flags(CLASS.DOUBLE), dims(1, 2), name(long), values(MI.DOUBLE, [3, 4])),
          0,
        ),
      );
      const m = readMatV5(bytes, "t.mat", {}, nodeInflater);
      expect(m.compressed).toBe(true);
      expect(m.variables[0].name).toBe(long);
      expect(Array.from(m.variables[0].values().data)).toEqual([3, 4]);
      const a = await readMatV5Async(bytes, "t.mat", {}, decompressionStreamInflate);
      expect(a.variables[0].name).toBe(long);
    }
  });

  it("names the class and dimensions before inflating the values", () => {
    const lg = matrix(
      flags(CLASS.UINT8, { logical: true }),
      dims(2, 1),
      name("lg"),
      values(MI.UINT8, [1, 0]),
    );
    const unknown = matrix(flags(99), dims(1, 1), name("u"));
    const vars = read(mat(compressed(lg), compressed(unknown)));
    expect(vars.map((v) => [v.name, v.kind, v.className, v.dims, v.complex])).toEqual([
      ["lg", "logical", "logical", [2, 1], false],
      ["u", "unknown", "class 99", [1, 1], false],
    ]);
    expect(Array.from(vars[0].values().data)).toEqual([1, 0]);
    expect(vars[0].texts()).toBeNull();
  });

  it("refuses a stream that does not hold an miMATRIX, or ends before its tag", () => {
    expect(refusal(() => read(mat(compressed(values(MI.DOUBLE, [1, 2])))))).toBe(
      `${where}: compressed data holds miDOUBLE, expected miMATRIX`,
    );
    expect(refusal(() => read(mat(compressed(new Uint8Array(4)))))).toBe(
      `${where}: compressed data ends before the variable's tag`,
    );
    const garbage = concat([
      u32(MI.COMPRESSED, 16),
      Uint8Array.from({ length: 16 }, (_, i) => i * 37),
    ]);
    expect(refusal(() => read(mat(garbage)))).toBe(
      `${where}: corrupt compressed data (zlib: incorrect header check)`,
    );
  });

  it("refuses a header it cannot read, even from the whole stream", () => {
    const bad = concat([u32(MI.MATRIX, 48), el(MI.INT32, u32(6, 0)), dims(1, 1), name("a")]);
    expect(refusal(() => read(mat(compressed(bad))))).toBe(
      `${where}: array flags must be an 8-byte miUINT32 element, found miINT32 of 8 bytes`,
    );
  });

  it("refuses declared sizes past maxBytes, past what deflate can give, or past the stream", () => {
    const a = matrix(
      flags(CLASS.DOUBLE),
      dims(1, 128),
      name("a"),
      values(MI.DOUBLE, new Array(128).fill(1)),
    );
    expect(refusal(() => read(mat(compressed(a)), { maxBytes: 1000 }))).toBe(
      "t.mat: variable 'a': declares 1.1 KiB of decompressed data, more than the 1000 bytes limit (maxBytes)",
    );
    // Stored as int8, 128 values may declare up to 8 bytes each: 8 more bytes pass that
    // bound, and the stream then ends short of them.
    const small = matrix(
      flags(CLASS.DOUBLE),
      dims(1, 128),
      name("a"),
      values(MI.INT8, new Array(128).fill(1)),
    );
    const length = small.length - 8;
    const short = small.slice();
    new DataView(short.buffer).setUint32(4, length + 8, true);
    expect(refusal(() => read(mat(compressed(short)))[0].values())).toBe(
      `t.mat: variable 'a': compressed data ends after ${length} of the ${length + 8} bytes the variable declares`,
    );
    const huge = a.slice();
    new DataView(huge.buffer).setUint32(4, 2 ** 31, true);
    expect(refusal(() => read(mat(compressed(huge)), { maxBytes: 2 ** 40 }))).toMatch(
      /^t\.mat: variable 'a': declares 2147483648 bytes of decompressed data, impossible from \d+ compressed bytes$/,
    );
  });

  it("refuses a truncated stream", () => {
    const a = matrix(
      flags(CLASS.DOUBLE),
      dims(1, 64),
      name("a"),
      values(
        MI.DOUBLE,
        Array.from({ length: 64 }, (_, i) => i * 1.5),
      ),
    );
    const z = deflateSync(a);
    const cut = concat([u32(MI.COMPRESSED, z.length - 10), z.subarray(0, z.length - 10)]);
    expect(refusal(() => read(mat(cut))[0].values())).toBe(
      "t.mat: variable 'a': compressed data is truncated",
    );
  });

  it("inflates nothing for listing, and each variable once for its values", () => {
    let whole = 0;
    const counting: Inflater = {
      ...nodeInflater,
      inflate(p, max) {
        whole++;
        return nodeInflater.inflate(p, max);
      },
    };
    const bytes = mat(
      compressed(double2x2()),
      compressed(matrix(flags(CLASS.DOUBLE), dims(1, 1), name("b"), values(MI.DOUBLE, [9]))),
    );
    const vars = readMatV5(bytes, "t.mat", {}, counting).variables;
    expect(whole).toBe(0);
    expect(Array.from(vars[1].values().data)).toEqual([9]);
    expect(Array.from(vars[1].values().data)).toEqual([9]);
    expect(whole).toBe(1);
  });

  it("inflates ahead only the compressed elements, and stops quietly where the walk breaks", async () => {
    const bytes = mat(
      double2x2(),
      compressed(matrix(flags(CLASS.DOUBLE), dims(1, 1), name("b"), values(MI.DOUBLE, [9]))),
    );
    const seen: number[] = [];
    const m = await readMatV5Async(bytes, "t.mat", {}, (payload, max, format) => {
      seen.push(payload.length);
      return decompressionStreamInflate(payload, max, format);
    });
    expect(seen).toHaveLength(1);
    expect(m.variables.map((v) => Array.from(v.values().data))).toEqual([[1, 2, 3, 4], [9]]);
    const broken = concat([mat(double2x2()), u32(MI.MATRIX, 1_000_000)]);
    await expect(readMatV5Async(broken, "b.mat", {}, decompressionStreamInflate)).rejects.toThrow(
      /^b\.mat: variable 2 \(element at byte \d+\): miMATRIX element declares 1000000 bytes but only 0 remain/,
    );
    await expect(
      readMatV5Async(new Uint8Array(10), "n.mat", {}, decompressionStreamInflate),
    ).rejects.toThrow(
      new DataFormatError(
        "n.mat",
        "10 bytes is too short for a MAT-file (the header alone is 128)",
      ),
    );
  });
});

describe("data elements", () => {
  it("names every storage type in messages", () => {
    const names: [number, string][] = [
      [1, "miINT8"],
      [2, "miUINT8"],
      [3, "miINT16"],
      [4, "miUINT16"],
      [5, "miINT32"],
      [6, "miUINT32"],
      [7, "miSINGLE"],
      [8, "unknown type 8"],
      [9, "miDOUBLE"],
      [12, "miINT64"],
      [13, "miUINT64"],
      [16, "miUTF8"],
      [17, "miUTF16"],
      [18, "miUTF32"],
      [19, "unknown type 19"],
    ];
    for (const [type, text] of names) {
      expect(refusal(() => read(mat(el(type, new Uint8Array(8)))))).toBe(
        `t.mat: variable 1 (element at byte 128): unexpected ${text} element (expected miMATRIX or miCOMPRESSED)`,
      );
    }
    const nested = (type: number) =>
      refusal(() =>
        read(mat(matrix(flags(CLASS.DOUBLE), dims(1, 1), name("a"), el(type, new Uint8Array(8))))),
      );
    expect(nested(MI.MATRIX)).toBe(
      "t.mat: variable 'a': numeric data stored as miMATRIX, which is not a numeric type",
    );
    expect(nested(MI.COMPRESSED)).toBe(
      "t.mat: variable 'a': numeric data stored as miCOMPRESSED, which is not a numeric type",
    );
  });

  it("gives values as views in the machine's byte order, converted otherwise", () => {
    for (const le of [true, false]) {
      LE = le;
      const bytes = mat(
        matrix(flags(CLASS.DOUBLE), dims(1, 2), name("u8"), values(MI.UINT8, [7, 250])),
        matrix(flags(CLASS.DOUBLE), dims(1, 2), name("i16"), values(MI.INT16, [-7, 300])),
        matrix(flags(CLASS.DOUBLE), dims(1, 2), name("i64"), values(MI.INT64, [-(2 ** 53), 5])),
        matrix(flags(CLASS.DOUBLE), dims(1, 2), name("u64"), values(MI.UINT64, [2 ** 60, 5])),
      );
      LE = true;
      const [u8, i16, i64, u64] = read(bytes).map((v) => v.values().data);
      // One-byte values are the same in either byte order: always a view.
      expect(u8).toBeInstanceOf(Uint8Array);
      expect(u8.buffer).toBe(bytes.buffer);
      expect(i16).toBeInstanceOf(le ? Int16Array : Float64Array);
      expect(i16.buffer === bytes.buffer).toBe(le);
      expect(i64).toBeInstanceOf(Float64Array);
      expect(u64).toBeInstanceOf(Float64Array);
      expect([u8, i16, i64, u64].map((d) => Array.from(d))).toEqual([
        [7, 250],
        [-7, 300],
        [-(2 ** 53), 5],
        [2 ** 60, 5],
      ]);
    }
  });

  it("reads an element that ends the file without its padding", () => {
    const a = matrix(flags(CLASS.DOUBLE), dims(1, 3), name("a"), values(MI.UINT8, [1, 2, 3]));
    // The values element's 5 bytes of padding cut off: the element ends the file.
    const cut = a.subarray(0, a.length - 5);
    new DataView(cut.buffer, cut.byteOffset).setUint32(4, cut.length - 8, true);
    const [v] = read(mat(cut));
    expect(Array.from(v.values().data)).toEqual([1, 2, 3]);
    // Inside a cell, what follows an unpadded last element is nothing, not a negative count.
    const inner = matrix(flags(CLASS.DOUBLE), dims(1, 3), name(""), values(MI.UINT8, [1, 2, 3]));
    const cell = concat([
      flags(CLASS.CELL),
      dims(2, 1),
      name("c"),
      inner.subarray(0, inner.length - 5),
    ]);
    const tag = u32(MI.MATRIX, cell.length);
    new DataView(cell.buffer).setUint32(16 + 16 + 16 + 4, inner.length - 5 - 8, true);
    expect(refusal(() => read(mat(concat([tag, cell]))))).toBe(
      "t.mat: variable 'c': truncated data element: 0 bytes left where an 8-byte tag is needed",
    );
  });

  it("reads a small element of 4 bytes, and an 8-byte tag with nothing after it", () => {
    const [v] = read(
      mat(
        matrix(
          flags(CLASS.DOUBLE),
          dims(1, 4),
          name("a"),
          small(MI.UINT8, Uint8Array.of(1, 2, 3, 4)),
        ),
      ),
    );
    expect(Array.from(v.values().data)).toEqual([1, 2, 3, 4]);
    const [e] = read(
      mat(matrix(flags(CLASS.DOUBLE), dims(0, 0), name("e"), el(MI.DOUBLE, new Uint8Array(0)))),
    );
    expect(Array.from(e.values().data)).toEqual([]);
  });
});

describe("the edges of the checks", () => {
  it("refuses a file that is not level 5 in exact words, and reads one with no variables", () => {
    const bytes = mat(double2x2());
    const noMark = bytes.slice();
    noMark[126] = 0;
    expect(refusal(() => read(noMark))).toBe(
      "t.mat: not a level 5 MAT-file (no 'IM'/'MI' byte-order mark at bytes 126-127)",
    );
    const v73 = bytes.slice();
    new DataView(v73.buffer).setUint16(124, 0x0200, true);
    expect(refusal(() => read(v73))).toBe(
      "t.mat: is a MAT v7.3 file (HDF5); read it with the HDF5 reader (loadDataset does)",
    );
    const v9 = bytes.slice();
    new DataView(v9.buffer).setUint16(124, 0x0009, true);
    expect(refusal(() => read(v9))).toBe("t.mat: unsupported MAT-file version 0x0009");
    const empty = readMatV5(mat(), "t.mat", {}, nodeInflater);
    expect(empty.variables).toEqual([]);
    expect(looksLikeMatV5(mat())).toBe(true);
  });

  it("names a variable without a name by its place in the file", () => {
    const unnamed = matrix(flags(CLASS.DOUBLE), dims(2, 2), name(""), values(MI.INT16, [1, 2, 3]));
    expect(refusal(() => read(mat(unnamed)))).toBe(
      "t.mat: variable 1 (element at byte 128): dimensions 2 x 2 need 8 bytes of miINT16 but the data element holds 6",
    );
    const big = matrix(
      flags(CLASS.DOUBLE),
      dims(1, 200),
      name(""),
      values(MI.DOUBLE, new Array(200).fill(0)),
    );
    expect(refusal(() => read(mat(compressed(big)), { maxBytes: 1000 }))).toBe(
      "t.mat: variable 1 (compressed element at byte 128): declares 1.6 KiB of decompressed data, more than the 1000 bytes limit (maxBytes)",
    );
  });

  it("refuses values past maxBytes as float64, stored or compressed, logical too, before inflating", () => {
    const u8 = (n: string, logical = false) =>
      matrix(
        flags(logical ? CLASS.UINT8 : CLASS.DOUBLE, { logical }),
        dims(1, 20),
        name(n),
        values(MI.UINT8, new Array(20).fill(1)),
      );
    expect(refusal(() => read(mat(u8("a")), { maxBytes: 159 })[0].values())).toBe(
      "t.mat: variable 'a': its 1 x 20 array declares 20 values and needs 160 bytes as float64, more than the 159 bytes limit (maxBytes)",
    );
    expect(read(mat(u8("a")), { maxBytes: 160 })[0].values().order).toBe("F");
    let inflated = 0;
    const counting: Inflater = {
      ...nodeInflater,
      inflate(p, max) {
        inflated++;
        return nodeInflater.inflate(p, max);
      },
    };
    const [lg] = readMatV5(
      mat(compressed(u8("lg", true))),
      "t.mat",
      { maxBytes: 159 },
      counting,
    ).variables;
    expect(lg.kind).toBe("logical");
    expect(refusal(() => lg.values())).toBe(
      "t.mat: variable 'lg': its 1 x 20 array declares 20 values and needs 160 bytes as float64, more than the 159 bytes limit (maxBytes)",
    );
    expect(inflated).toBe(0);
  });

  it("lets through errors that are not the inflater's reports", () => {
    const broken: Inflater = {
      ...nodeInflater,
      inflate() {
        throw new TypeError("the inflater broke");
      },
    };
    const [v] = readMatV5(mat(compressed(double2x2())), "t.mat", {}, broken).variables;
    expect(() => v.values()).toThrow(new TypeError("the inflater broke"));
  });

  it("bounds a compressed variable by maxBytes exactly", async () => {
    const inner = double2x2();
    const declared = inner.length - 8;
    const bytes = mat(compressed(inner));
    expect(Array.from(read(bytes, { maxBytes: declared + 8 })[0].values().data)).toEqual([
      1, 2, 3, 4,
    ]);
    const a = await readMatV5Async(
      bytes,
      "t.mat",
      { maxBytes: declared + 8 },
      decompressionStreamInflate,
    );
    expect(Array.from(a.variables[0].values().data)).toEqual([1, 2, 3, 4]);
    expect(refusal(() => read(bytes, { maxBytes: declared + 7 }))).toBe(
      `t.mat: variable 'a': declares ${declared} bytes of decompressed data, more than the ${declared + 7} bytes limit (maxBytes)`,
    );
  });

  it("bounds a compressed variable by its dimensions exactly: numeric, logical and char", () => {
    const padded = (m: Uint8Array, extra: number) => {
      const out = concat([m, new Uint8Array(extra)]);
      new DataView(out.buffer).setUint32(4, m.length - 8 + extra, true);
      return out;
    };
    // 1 x 1 double: its header (48 bytes) and one 8-byte value with its tag.
    const one = matrix(flags(CLASS.DOUBLE), dims(1, 1), name("a"), values(MI.DOUBLE, [5]));
    expect(one.length - 8).toBe(48 + 16);
    expect(Array.from(read(mat(compressed(one)))[0].values().data)).toEqual([5]);
    expect(refusal(() => read(mat(compressed(padded(one, 1)))))).toBe(
      "t.mat: variable 'a': declares 65 bytes of decompressed data, more than its 1 x 1 numeric array can hold",
    );
    const lg = matrix(
      flags(CLASS.UINT8, { logical: true }),
      dims(1, 1),
      name("l"),
      values(MI.UINT8, [1]),
    );
    expect(refusal(() => read(mat(compressed(padded(lg, 1)))))).toBe(
      "t.mat: variable 'l': declares 65 bytes of decompressed data, more than its 1 x 1 logical array can hold",
    );
    // 1 x 3 char: up to 12 bytes of data, padded to 16, with its tag: 24 after the header.
    const ch = matrix(flags(CLASS.CHAR), dims(1, 3), name("c"), values(MI.UINT32, [97, 98, 99]));
    expect(ch.length - 8).toBe(48 + 24);
    expect(read(mat(compressed(ch)))[0].texts()).toEqual(["abc"]);
    expect(refusal(() => read(mat(compressed(padded(ch, 1)))))).toBe(
      "t.mat: variable 'c': declares 73 bytes of decompressed data, more than its 1 x 3 char array can hold",
    );
    // A cell is not bounded by its dimensions.
    const cell = matrix(flags(CLASS.CELL), dims(1, 1), name("k"), double2x2());
    expect(read(mat(compressed(padded(cell, 4000))))[0].kind).toBe("cell");
  });

  it("refuses a declared size past what deflate gives from the stream's bytes, and not at it", () => {
    // Stored (level 0): the stream's length does not depend on the declared size.
    const probe = compressed(
      matrix(flags(CLASS.DOUBLE), dims(1, 2 ** 28), name("a"), values(MI.DOUBLE, [])),
      0,
    );
    const payload = probe.length - 8;
    const at = (declared: number) => {
      const inner = matrix(flags(CLASS.DOUBLE), dims(1, 2 ** 28), name("a"), values(MI.DOUBLE, []));
      new DataView(inner.buffer).setUint32(4, declared, true);
      const z = compressed(inner, 0);
      expect(z.length - 8).toBe(payload);
      return mat(z);
    };
    const bound = payload * 1032 + 1024;
    expect(read(at(bound), { maxBytes: 2 ** 40 })[0].dims).toEqual([1, 2 ** 28]);
    expect(refusal(() => read(at(bound + 1), { maxBytes: 2 ** 40 }))).toBe(
      `t.mat: variable 'a': declares ${bound + 1} bytes of decompressed data, impossible from ${payload} compressed bytes`,
    );
  });

  it("refuses a stream holding only a tag", () => {
    expect(refusal(() => read(mat(compressed(u32(MI.MATRIX, 0)))))).toBe(
      "t.mat: variable 1 (compressed element at byte 128): truncated data element: 0 bytes left where an 8-byte tag is needed",
    );
  });

  it("reads a header cut by maxBytes no further, and refuses one it cannot finish", () => {
    // Stored (level 0): 47 bytes of stream give 40 of output, the tag, flags and dims.
    const v = matrix(flags(CLASS.DOUBLE), dims(1, 1), name("abcdefgh"), values(MI.DOUBLE, [1]));
    expect(refusal(() => read(mat(compressed(v, 0)), { maxBytes: 40 }))).toBe(
      "t.mat: variable 1 (compressed element at byte 128): compressed variable header could not be read",
    );
    // A name cut by the limit on the last look is refused with what cut it.
    const long = matrix(
      flags(CLASS.DOUBLE),
      dims(1, 1),
      name("n".repeat(2000)),
      values(MI.DOUBLE, [1]),
    );
    expect(refusal(() => read(mat(compressed(long, 0)), { maxBytes: 1500 }))).toMatch(
      /^t\.mat: variable 1 \(compressed element at byte 128\): miINT8 element declares 2000 bytes but only \d+ remain \(the file is truncated or corrupt\)$/,
    );
  });

  it("inflates nothing ahead for bytes that are not a MAT-file, and reads big-endian files ahead", async () => {
    let calls = 0;
    const counting = (payload: Uint8Array, max: number, format?: "deflate" | "gzip") => {
      calls++;
      return decompressionStreamInflate(payload, max, format);
    };
    // "I?" where "IM" belongs: the walk would read the element as little-endian.
    const notMat = mat(compressed(double2x2()));
    notMat[127] = 0;
    await expect(readMatV5Async(notMat, "n.mat", {}, counting)).rejects.toThrow(
      /not a level 5 MAT-file/,
    );
    expect(calls).toBe(0);
    LE = false;
    const be = mat(compressed(double2x2()), double2x2());
    LE = true;
    const m = await readMatV5Async(be, "b.mat", {}, counting);
    expect(calls).toBe(1);
    expect(m.variables.map((v) => Array.from(v.values().data))).toEqual([
      [1, 2, 3, 4],
      [1, 2, 3, 4],
    ]);
  });
});

describe("more edges", () => {
  it("names an element inside a cell by its place, whatever its own name", () => {
    const named = matrix(
      flags(CLASS.DOUBLE),
      dims(2, 2),
      name("inner"),
      values(MI.INT16, [1, 2, 3]),
    );
    const cell = matrix(flags(CLASS.CELL), dims(1, 1), name("c"), named);
    expect(refusal(() => read(mat(cell)))).toBe(
      "t.mat: variable 'c' cell 0: dimensions 2 x 2 need 8 bytes of miINT16 but the data element holds 6",
    );
  });

  it("bounds char values by maxBytes too, before inflating them", () => {
    const text = "x".repeat(200);
    const ch = matrix(
      flags(CLASS.CHAR),
      dims(1, 200),
      name("s"),
      el(MI.UTF8, new TextEncoder().encode(text)),
    );
    const message =
      "t.mat: variable 's': its 1 x 200 array declares 200 values and needs 1.6 KiB as float64, more than the 1000 bytes limit (maxBytes)";
    expect(refusal(() => read(mat(ch), { maxBytes: 1000 })[0].values())).toBe(message);
    let inflated = 0;
    const counting: Inflater = {
      ...nodeInflater,
      inflate(p, max) {
        inflated++;
        return nodeInflater.inflate(p, max);
      },
    };
    const [z] = readMatV5(mat(compressed(ch)), "t.mat", { maxBytes: 1000 }, counting).variables;
    expect(refusal(() => z.values())).toBe(message);
    expect(inflated).toBe(0);
    // Its texts need no float64 values.
    expect(z.texts()).toEqual([text]);
    expect(read(mat(ch), { maxBytes: 1600 })[0].values().data).toHaveLength(200);
  });

  it("says a compressed sparse array has no values, whatever its size", () => {
    const sp = matrix(
      flags(CLASS.SPARSE),
      dims(100000, 100000),
      name("sp"),
      values(MI.INT32, [0]),
      values(MI.INT32, [0, 1]),
      values(MI.DOUBLE, [5]),
    );
    const [v] = read(mat(compressed(sp)));
    expect(refusal(() => v.values())).toBe(
      "t.mat: variable 'sp': a sparse array has no numeric values",
    );
  });
});
