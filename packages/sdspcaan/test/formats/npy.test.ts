/**
 * The .npy reader on headers written here: the three format versions and their
 * header encodings, the header dictionary as NumPy and other writers space and quote
 * it, each dtype family (readable or refused, and why), the shape's forms, sizes
 * against the data and the limit, and the variable a file becomes. Values and
 * messages are checked exactly.
 */

import { gzipSync } from "node:zlib";
import { nodeInflater } from "sdspcaan/node";
import { describe, expect, it } from "vitest";
import { DataFormatError } from "#internal/core/errors.js";
import { looksLikeNpy, npyDeclaredSize, npyVariable, readNpy } from "#internal/formats/npy.js";
import { parseBytes } from "#internal/formats/parse.js";

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];

/** An .npy file: magic, version, header length (2 or 4 bytes), header bytes, data. */
function npy(
  header: string | Uint8Array,
  body: Uint8Array = new Uint8Array(0),
  major = 1,
): Uint8Array {
  const h = typeof header === "string" ? new TextEncoder().encode(header) : header;
  const lenBytes = major === 1 ? 2 : 4;
  const out = new Uint8Array(8 + lenBytes + h.length + body.length);
  out.set([...MAGIC, major, 0]);
  const dv = new DataView(out.buffer);
  if (major === 1) dv.setUint16(8, h.length, true);
  else dv.setUint32(8, h.length, true);
  out.set(h, 8 + lenBytes);
  out.set(body, 8 + lenBytes + h.length);
  return out;
}

function dict(descr: string, shape: string, fortran = "False"): string {
  return `{'descr': '${descr}', 'fortran_order': ${fortran}, 'shape': (${shape}), }`;
}

function f64(values: number[], le = true): Uint8Array {
  const out = new Uint8Array(8 * values.length);
  values.forEach((v, i) => {
    new DataView(out.buffer).setFloat64(8 * i, v, le);
  });
  return out;
}

function refusal(bytes: Uint8Array, limits = {}): string {
  try {
    readNpy(bytes, "x.npy", limits);
  } catch (err) {
    expect(err).toBeInstanceOf(DataFormatError);
    return (err as Error).message.replace(/^x\.npy: /, "");
  }
  throw new Error("expected a DataFormatError");
}

describe("the magic, the version and the header's length", () => {
  it("tells .npy files by all six bytes of their magic", () => {
    expect(looksLikeNpy(Uint8Array.from(MAGIC))).toBe(true);
    expect(looksLikeNpy(Uint8Array.from(MAGIC.slice(0, 5)))).toBe(false);
    for (let i = 0; i < 6; i++) {
      const m = Uint8Array.from(MAGIC);
      m[i] ^= 1;
      expect(looksLikeNpy(m), String(i)).toBe(false);
    }
    expect(refusal(Uint8Array.of(0x93, 0x4e, 0x55, 0x4d, 0x50, 0x58, 1, 0, 0, 0))).toBe(
      "not a NumPy .npy file (no \\x93NUMPY magic)",
    );
  });

  it("refuses a header cut before its length, for each version", () => {
    expect(refusal(Uint8Array.from([...MAGIC, 1, 0, 0]))).toBe("truncated .npy header");
    expect(refusal(Uint8Array.from([...MAGIC, 2, 0, 0, 0, 0]))).toBe("truncated .npy header");
    expect(refusal(Uint8Array.from([...MAGIC, 3, 0, 0, 0, 0]))).toBe("truncated .npy header");
    // Exactly the length field and nothing more: an empty header, not a truncation.
    expect(refusal(Uint8Array.from([...MAGIC, 1, 0, 0, 0]))).toBe('malformed .npy header ""');
    expect(refusal(Uint8Array.from([...MAGIC, 2, 0, 0, 0, 0, 0]))).toBe('malformed .npy header ""');
  });

  it("refuses versions other than 1, 2 and 3", () => {
    expect(refusal(npy(dict("<f8", "1,"), f64([1]), 4))).toBe(
      "unsupported .npy format version 4.0",
    );
    expect(refusal(npy(dict("<f8", "1,"), f64([1]), 0))).toBe(
      "unsupported .npy format version 0.0",
    );
  });

  it("refuses a header longer than the file", () => {
    const bytes = npy(dict("<f8", "1,"), f64([1]));
    new DataView(bytes.buffer).setUint16(8, bytes.length - 9, true);
    expect(refusal(bytes)).toBe(
      `.npy header declares ${bytes.length - 9} bytes but only ${bytes.length - 10} remain`,
    );
    // A header reaching the file's last byte is read (and the missing data reported).
    new DataView(bytes.buffer).setUint16(8, bytes.length - 10, true);
    expect(refusal(bytes)).toBe(
      "shape (1) of <f8 needs 8 bytes but only 0 follow the header (truncated?)",
    );
  });

  it("reads version 2 and 3 headers, version 3's in UTF-8 and the others in Latin-1", () => {
    for (const major of [1, 2, 3]) {
      const a = readNpy(npy(dict("<f8", "2,"), f64([1.5, -2]), major), "v.npy");
      expect(Array.from(a.data)).toEqual([1.5, -2]);
    }
    const bad = (major: number) =>
      refusal(npy(new Uint8Array([...new TextEncoder().encode("{'é'"), 0xe9]), undefined, major));
    expect(bad(3)).toBe("malformed .npy header \"{'é'\ufffd\"");
    expect(bad(1)).toBe("malformed .npy header \"{'Ã©'é\"");
  });
});

describe("the header dictionary", () => {
  it("reads it spaced and quoted as any writer may", () => {
    const headers = [
      "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1), }",
      '{"descr":"<f8","fortran_order":False,"shape":(2,1)}',
      "  {  'shape' :  ( 2 , 1 ) ,  'fortran_order' :  False , 'descr' :  '<f8' }   \n",
      "{'descr':'<f8','fortran_order':False,'shape':(2L, 1L)}",
    ];
    for (const header of headers) {
      const a = readNpy(npy(header, f64([3, 4])), "d.npy");
      expect([a.dtype, a.shape, a.fortranOrder, Array.from(a.data)], header).toEqual([
        "<f8",
        [2, 1],
        false,
        [3, 4],
      ]);
    }
  });

  it("refuses a header that is not a dictionary with descr, fortran_order and shape", () => {
    const long = `  ${"x".repeat(200)}  `;
    expect(refusal(npy(long))).toBe(`malformed .npy header "${"x".repeat(120)}"`);
    expect(refusal(npy("{'descr': '<f8', 'shape': (1,), }", f64([1])))).toBe(
      "malformed .npy header \"{'descr': '<f8', 'shape': (1,), }\"",
    );
    expect(refusal(npy(`x${dict("<f8", "1,")}`, f64([1])))).toBe(
      `malformed .npy header "x${dict("<f8", "1,")}"`,
    );
    expect(
      refusal(npy("{'descr': '<f8', 'fortran_order': false, 'shape': (1,), }", f64([1]))),
    ).toMatch(/^malformed \.npy header /);
  });

  it("refuses structured arrays, however spaced", () => {
    for (const header of [
      "{'descr': [('a', '<f8'), ('b', '<i4')], 'fortran_order': False, 'shape': (1,), }",
      "{'descr' :  [('a', '<f8')], 'fortran_order': False, 'shape': (1,), }",
    ]) {
      expect(refusal(npy(header, new Uint8Array(12)))).toBe(
        "holds a structured array (named fields); save a plain 2-D numeric array instead",
      );
    }
  });

  it("reads the shape's forms and refuses anything but integers", () => {
    expect(readNpy(npy(dict("<f8", ""), f64([7])), "s.npy").shape).toEqual([]);
    expect(readNpy(npy(dict("<f8", "3,"), f64([1, 2, 3])), "s.npy").shape).toEqual([3]);
    expect(readNpy(npy(dict("<f8", "1, 2, 1"), f64([1, 2])), "s.npy").shape).toEqual([1, 2, 1]);
    for (const shape of ["2, x", "a2,", "2a,", "-1,", "2.0,"]) {
      expect(refusal(npy(dict("<f8", shape), f64([1, 2]))), shape).toBe(
        `malformed .npy shape (${shape})`,
      );
    }
  });
});

describe("dtypes", () => {
  const readable: [string, Uint8Array, number[]][] = [
    ["|b1", Uint8Array.of(0, 1, 2), [0, 1, 1]],
    [
      "<f2",
      Uint8Array.of(0x00, 0x3c, 0x01, 0x00, 0x00, 0xfc),
      [1, 2 ** -24, Number.NEGATIVE_INFINITY],
    ],
    [">f2", Uint8Array.of(0x7e, 0x00, 0x80, 0x00, 0xc0, 0x00), [Number.NaN, -0, -2]],
    ["<f4", Uint8Array.of(0, 0, 0xc0, 0x3f, 0, 0, 0x80, 0xbf, 0, 0, 0, 0), [1.5, -1, 0]],
    ["=f8", f64([0.1, -1e300, 5e-324]), [0.1, -1e300, 5e-324]],
    [">f8", f64([0.1, -1e300, 5e-324], false), [0.1, -1e300, 5e-324]],
    ["|i1", Uint8Array.of(0x80, 0x7f, 0xff), [-128, 127, -1]],
    ["|u1", Uint8Array.of(0x80, 0x7f, 0xff), [128, 127, 255]],
    [">i2", Uint8Array.of(0x80, 0x00, 0x01, 0x2c, 0xff, 0xff), [-32768, 300, -1]],
    ["<u2", Uint8Array.of(0xff, 0xff, 0x2c, 0x01, 0, 0), [65535, 300, 0]],
    [
      "<i4",
      Uint8Array.of(0, 0, 0, 0x80, 0xff, 0xff, 0xff, 0x7f, 0xfe, 0xff, 0xff, 0xff),
      [-2147483648, 2147483647, -2],
    ],
    [">u4", Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 0, 1, 0), [4294967295, 1, 256]],
    [
      "i8",
      new Uint8Array(new BigInt64Array([-(2n ** 53n), 2n ** 53n, -7n]).buffer),
      [-(2 ** 53), 2 ** 53, -7],
    ],
    [
      "<u8",
      new Uint8Array(new BigUint64Array([2n ** 64n - 1n, 0n, 2n ** 40n]).buffer),
      [2 ** 64, 0, 2 ** 40],
    ],
  ];
  for (const [dtype, body, values] of readable) {
    it(`reads ${dtype}`, () => {
      const a = readNpy(npy(dict(dtype, "3,"), body), "t.npy");
      expect(a.dtype).toBe(dtype);
      expect(Array.from(a.data)).toEqual(values);
    });
  }

  it("refuses the other dtypes, saying what they hold", () => {
    const cases: [string, string][] = [
      ["|O", "holds Python objects (dtype '|O'); only numeric arrays can be read"],
      [
        "<c16",
        "unsupported .npy dtype '<c16' (complex numbers); the readable dtypes are bool, int, uint and float",
      ],
      [
        "c2z",
        "unsupported .npy dtype 'c2z' (values of another type); the readable dtypes are bool, int, uint and float",
      ],
      [
        "<U5",
        "unsupported .npy dtype '<U5' (strings); the readable dtypes are bool, int, uint and float",
      ],
      [
        "|S",
        "unsupported .npy dtype '|S' (strings); the readable dtypes are bool, int, uint and float",
      ],
      [
        "<U5x",
        "unsupported .npy dtype '<U5x' (values of another type); the readable dtypes are bool, int, uint and float",
      ],
      [
        "<M8[ns]",
        "unsupported .npy dtype '<M8[ns]' (dates or times); the readable dtypes are bool, int, uint and float",
      ],
      [
        "<m8",
        "unsupported .npy dtype '<m8' (dates or times); the readable dtypes are bool, int, uint and float",
      ],
      [
        "|V8",
        "unsupported .npy dtype '|V8' (values of another type); the readable dtypes are bool, int, uint and float",
      ],
      [
        "x<f8",
        "unsupported .npy dtype 'x<f8' (values of another type); the readable dtypes are bool, int, uint and float",
      ],
      [
        "<f8x",
        "unsupported .npy dtype '<f8x' (values of another type); the readable dtypes are bool, int, uint and float",
      ],
      ["<f16", "unsupported .npy dtype '<f16'"],
      ["<f1", "unsupported .npy dtype '<f1'"],
      ["|b2", "unsupported .npy dtype '|b2'"],
      ["<i3", "unsupported .npy dtype '<i3'"],
      ["<u16", "unsupported .npy dtype '<u16'"],
    ];
    for (const [dtype, message] of cases) {
      expect(refusal(npy(dict(dtype, "1,"), new Uint8Array(16))), dtype).toBe(message);
    }
  });
});

describe("sizes", () => {
  it("refuses data shorter or longer than the shape, and past maxBytes", () => {
    expect(refusal(npy(dict("<i2", "2, 3"), new Uint8Array(11)))).toBe(
      "shape (2, 3) of <i2 needs 12 bytes but only 11 follow the header (truncated?)",
    );
    expect(refusal(npy(dict("<i2", "2, 3"), new Uint8Array(13)))).toBe(
      "shape (2, 3) of <i2 needs 12 bytes but 13 follow the header",
    );
    const ok = npy(dict("|u1", "4, 4"), new Uint8Array(16));
    expect(refusal(ok, { maxBytes: 127 })).toBe(
      "shape (4, 4) of |u1 declares 16 values and needs 128 bytes as float64, more than the 127 bytes limit (maxBytes)",
    );
    expect(readNpy(ok, "x.npy", { maxBytes: 128 }).data).toHaveLength(16);
  });
});

describe("the file as a variable", () => {
  it("is named after the file and shaped as a matrix", () => {
    const cases: [string, string, number[]][] = [
      ["dir/sub/X.npy", "3, 2", [3, 2]],
      ["C:\\data\\Y.NPY", "6,", [6, 1]],
      ["Z.npy.gz", "6,", [6, 1]],
      [".npy", "", [1, 1]],
      ["T", "1, 2, 3", [1, 2, 3]],
    ];
    const names = ["X", "Y", "Z", "array", "T"];
    cases.forEach(([file, shape, dims], i) => {
      const count = dims.reduce((a, b) => a * b, 1);
      const v = npyVariable(npy(dict("<f8", shape), f64(new Array(count).fill(1))), file);
      expect([v.name, v.kind, v.className, v.dims, v.complex, v.texts()]).toEqual([
        names[i],
        "numeric",
        "<f8",
        dims,
        false,
        null,
      ]);
    });
  });

  it("gives its values in the file's order", () => {
    for (const [fortran, order] of [
      ["False", "C"],
      ["True", "F"],
    ]) {
      const v = npyVariable(npy(dict("<f8", "2, 2", fortran), f64([1, 2, 3, 4])), "o.npy");
      expect(v.values().order).toBe(order);
      expect(Array.from(v.values().data)).toEqual([1, 2, 3, 4]);
      expect(v.values().data).toBe(v.values().data);
    }
  });

  it("is refused when listed if its size is wrong", () => {
    expect(() => npyVariable(npy(dict("<f8", "2, 2"), f64([1])), "w.npy")).toThrow(
      new DataFormatError(
        "w.npy",
        "shape (2, 2) of <f8 needs 32 bytes but only 8 follow the header (truncated?)",
      ),
    );
  });
});

describe("the declared size read from a gzip stream's start", () => {
  it("is the header and the data, for each version, or nothing from a start too short", () => {
    for (const major of [1, 2, 3]) {
      const file = npy(dict("<i2", "3, 2"), new Uint8Array(12), major);
      const headerEnd = file.length - 12;
      expect(npyDeclaredSize(file, "x", 1 << 20), String(major)).toBe(file.length);
      // The header's last byte is enough; one short of it is not.
      expect(npyDeclaredSize(file.subarray(0, headerEnd), "x", 1 << 20)).toBe(file.length);
      expect(npyDeclaredSize(file.subarray(0, headerEnd - 1), "x", 1 << 20)).toBeNull();
    }
    const v2 = npy(dict("<f8", "1,"), f64([1]), 2);
    expect(npyDeclaredSize(v2.subarray(0, 11), "x", 1 << 20)).toBeNull();
    // Twelve bytes hold a version 2 length: an empty header is read, and refused.
    expect(() =>
      npyDeclaredSize(Uint8Array.from([...MAGIC, 2, 0, 0, 0, 0, 0]), "x", 1 << 20),
    ).toThrow(new DataFormatError("x", 'malformed .npy header ""'));
    expect(
      npyDeclaredSize(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), "x", 1 << 20),
    ).toBeNull();
    expect(() => npyDeclaredSize(npy(dict("<f8", "4, 4"), f64([])), "x", 127)).toThrow(
      new DataFormatError(
        "x",
        "shape (4, 4) of <f8 declares 16 values and needs 128 bytes as float64, more than the 127 bytes limit (maxBytes)",
      ),
    );
  });

  it("reads .npy.gz of every version through parseBytes", async () => {
    for (const major of [1, 2, 3]) {
      const file = npy(dict("<f8", "2, 2"), f64([1, 2, 3, 1]), major);
      const ds = await parseBytes(new Uint8Array(gzipSync(file)), "v.npy.gz", {}, nodeInflater);
      expect([ds.X.toRows(), ds.y]).toEqual([
        [[1], [3]],
        [2, 1],
      ]);
    }
  });

  it("names the variable without taking .gz or .npy from the middle of a name", () => {
    const body = f64([1, 2]);
    expect(npyVariable(npy(dict("<f8", "2,"), body), "a.gz.npy").name).toBe("a.gz");
    expect(npyVariable(npy(dict("<f8", "2,"), body), "b.npy.v1.npy").name).toBe("b.npy.v1");
    expect(
      npyVariable(npy(dict("<f8", "12L, 1L"), f64(new Array(12).fill(0))), "l.npy").dims,
    ).toEqual([12, 1]);
  });
});
