/**
 * Delimited text, NPY, format detection and the choice of X and y, on inputs
 * built in the test.
 */
import { readFileSync } from "node:fs";
import { DataFormatError, ValidationError } from "sdspcaan";
import { parseDelimited, readNpy } from "sdspcaan/formats";
import { CLASS, fixtureFile, MI, numeric, writeMatV5 } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { detectFormat, loadDataset, parseDatasetSync } from "#internal/io/load.js";

const text = (s: string) => new TextEncoder().encode(s);

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error");
}

describe("delimited text", () => {
  it("detects a header, takes the label column by name, and keeps quoted fields whole", () => {
    const ds = parseDelimited(text('x1,"label, long",x2\n1,"a, b",2\n3,"c",4\n'), "q.csv", {
      labelColumn: "label, long",
    });
    expect(ds.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(ds.y).toEqual(["a, b", "c"]);
    expect(ds.info.header).toEqual(["x1", "label, long", "x2"]);
  });

  it("reads a header-less file with a BOM, CRLF line ends and blank lines", () => {
    const ds = parseDelimited(text("\ufeff1,2,0\r\n\r\n3,4,1\r\n"), "crlf.csv");
    expect(ds.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(ds.y).toEqual([0, 1]);
    expect(ds.info.header).toBeUndefined();
  });

  it("takes negative label columns from the end and 'first'", () => {
    expect(parseDelimited(text("1,2,3\n4,5,6\n"), "n.csv", { labelColumn: -2 }).y).toEqual([2, 5]);
    expect(parseDelimited(text("1,2,3\n4,5,6\n"), "n.csv", { labelColumn: "first" }).y).toEqual([
      1, 4,
    ]);
  });

  it("refuses ragged rows, text in a numeric column, empty input and unknown label columns", () => {
    expect(thrown(() => parseDelimited(text("1,2,3\n4,5\n"), "r.csv"))).toBeInstanceOf(
      DataFormatError,
    );
    const mixed = thrown(() => parseDelimited(text("1,2,0\nabc,5,1\n7,8,1\n"), "m.csv"));
    expect(mixed).toBeInstanceOf(DataFormatError);
    expect(mixed.message).toContain("'abc' is not a number");
    expect(thrown(() => parseDelimited(text("\n\n"), "e.csv")).message).toContain("empty");
    const col = thrown(() => parseDelimited(text("a,b\n1,2\n"), "c.csv", { labelColumn: "nope" }));
    expect(col).toBeInstanceOf(ValidationError);
    expect(col.message).toContain("'a', 'b'");
    expect(
      thrown(() => parseDelimited(text("1,2\n3,4\n"), "c.csv", { labelColumn: 5 })),
    ).toBeInstanceOf(ValidationError);
  });

  it("refuses binary content and invalid UTF-8 as text", () => {
    expect(
      thrown(() => parseDelimited(new Uint8Array([49, 44, 0, 50]), "b.csv")).message,
    ).toContain("binary");
    expect(
      thrown(() => parseDelimited(new Uint8Array([49, 44, 0xff, 50]), "b.csv")).message,
    ).toContain("UTF-8");
  });
});

function npy(header: string, data: Uint8Array, major = 1): Uint8Array {
  const pre = major === 1 ? 10 : 12;
  const pad = (64 - ((pre + header.length + 1) % 64)) % 64;
  const h = text(`${header}${" ".repeat(pad)}\n`);
  const out = new Uint8Array(pre + h.length + data.length);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, major, 0], 0);
  const dv = new DataView(out.buffer);
  if (major === 1) dv.setUint16(8, h.length, true);
  else dv.setUint32(8, h.length, true);
  out.set(h, pre);
  out.set(data, pre + h.length);
  return out;
}

describe("NPY", () => {
  it("reads version 2 headers, bool, and big-endian int16", () => {
    const be = new Uint8Array([0xff, 0xfe, 0x00, 0x07]);
    const a = readNpy(
      npy("{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }", be, 2),
      "v2.npy",
    );
    expect(Array.from(a.data)).toEqual([-2, 7]);
    const b = readNpy(
      npy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", new Uint8Array([1, 0, 2])),
      "b.npy",
    );
    expect(Array.from(b.data)).toEqual([1, 0, 1]);
  });

  it("refuses object arrays, unknown dtypes, and data of the wrong length", () => {
    const obj = thrown(() =>
      readNpy(
        npy("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", new Uint8Array(8)),
        "o.npy",
      ),
    );
    expect(obj.message).toContain("Python objects");
    const c16 = thrown(() =>
      readNpy(
        npy("{'descr': '<c16', 'fortran_order': False, 'shape': (1,), }", new Uint8Array(16)),
        "c.npy",
      ),
    );
    expect(c16.message).toContain("unsupported .npy dtype");
    const short = thrown(() =>
      readNpy(
        npy(
          "{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776, 2), }",
          new Uint8Array(16),
        ),
        "h.npy",
      ),
    );
    expect(short).toBeInstanceOf(DataFormatError);
    expect(short.message).toBe(
      "h.npy: shape (1099511627776, 2) of <f8 declares 2199023255552 values and needs 16.0 TiB as float64, more than the 2.0 GiB limit (maxBytes)",
    );
    const truncated = thrown(() =>
      readNpy(
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }", new Uint8Array(16)),
        "t.npy",
      ),
    );
    expect(truncated.message).toBe(
      "t.npy: shape (3, 2) of <f8 needs 48 bytes but only 16 follow the header (truncated?)",
    );
    const long = thrown(() =>
      readNpy(
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", new Uint8Array(16)),
        "l.npy",
      ),
    );
    expect(long.message).toContain("needs 8 bytes but 16 follow");
  });

  it("refuses a 1-D array as data and a 3-D one", () => {
    const one = npy(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }",
      new Uint8Array(16),
    );
    expect(thrown(() => parseDatasetSync(one, "one.npy")).message).toContain(
      "no numeric 2-D variable",
    );
    const three = npy(
      "{'descr': '<u1', 'fortran_order': False, 'shape': (2, 2, 2), }",
      new Uint8Array(8),
    );
    expect(thrown(() => parseDatasetSync(three, "three.npy"))).toBeInstanceOf(DataFormatError);
  });
});

describe("format detection", () => {
  it("goes by content first and by extension only for text", () => {
    const mat = writeMatV5([numeric("fea", [[1]])]);
    expect(detectFormat(mat, "data.csv")).toBe("mat-v5");
    expect(detectFormat(text("1,2\n"), "x.tsv")).toBe("tsv");
    expect(detectFormat(text("1,2\n"), "x.txt")).toBe("csv");
    expect(thrown(() => detectFormat(text("1,2\n"), "x.mat")).message).toContain("not a MAT-file");
    expect(thrown(() => detectFormat(text("PK"), "x.npz")).message).toContain(".npz");
    expect(thrown(() => detectFormat(text("1,2"), "x.h5")).message).toContain("not an HDF5 file");
    expect(detectFormat(text("1,2"), "x.npy", "csv")).toBe("csv");
  });
});

describe("choosing X and y", () => {
  const fea = numeric("fea", [
    [1, 2],
    [3, 4],
    [5, 6],
  ]);
  const gnd = numeric("gnd", [[1], [2], [2]]);

  it("names a misspelled variable's likely match and lists the variables", () => {
    const bytes = writeMatV5([fea, gnd]);
    const err = thrown(() => parseDatasetSync(bytes, "v.mat", { xVar: "FEA" }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain("did you mean 'fea'?");
    expect(err.message).toContain("'gnd' (3 x 1 double)");
  });

  it("finds X for an explicit y, and transposes when samples are columns", () => {
    const t = numeric("samples", [
      [1, 3, 5],
      [2, 4, 6],
    ]);
    const ds = parseDatasetSync(writeMatV5([t, numeric("lab", [[1, 2, 2]])]), "t.mat", {
      yVar: "lab",
    });
    expect(ds.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(ds.info).toMatchObject({ xVar: "samples", yVar: "lab", transposed: true });
  });

  it("lists the candidates when two label vectors fit", () => {
    const bytes = writeMatV5([fea, numeric("a", [[1], [2], [2]]), numeric("b", [[0], [1], [1]])]);
    const err = thrown(() => parseDatasetSync(bytes, "two.mat"));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain("'a' (3 x 1 double), 'b' (3 x 1 double)");
  });

  it("refuses to guess a label column for a matrix not named data", () => {
    const bytes = writeMatV5([fea, numeric("other", [[1, 2, 3, 4]])]);
    const err = thrown(() => parseDatasetSync(bytes, "nol.mat"));
    expect(err.message).toContain("no label variable");
    const ds = parseDatasetSync(bytes, "nol.mat", { xVar: "fea", labelColumn: "last" });
    expect(ds.y).toEqual([2, 4, 6]);
  });

  it("reads uint8-stored doubles, as MATLAB saves integer-valued images", () => {
    const img = numeric(
      "fea",
      [
        [0, 255],
        [128, 7],
        [1, 2],
      ],
      CLASS.DOUBLE,
      MI.UINT8,
    );
    const ds = parseDatasetSync(writeMatV5([img, gnd], { compress: true }), "img.mat");
    expect(ds.X.toRows()).toEqual([
      [0, 255],
      [128, 7],
      [1, 2],
    ]);
  });

  it("takes labels from a separate file, checking the count", async () => {
    const x = fixtureFile("io/rt_X_only.npy");
    const ds = await loadDataset(x, {
      labelColumn: "none",
      labelsFile: fixtureFile("io/rt_labels.txt"),
    });
    expect(ds.y).toEqual([1, 1, 2, 2, 3, 3]);
    expect(ds.X.cols).toBe(4);
    const wrong = await loadDataset(x, {
      labelColumn: "none",
      labelsFile: fixtureFile("io/rt_first.tsv"),
    }).catch((e: unknown) => e);
    expect((wrong as Error).message).toContain("one label per line");
    const text = await loadDataset(fixtureFile("io/rt_space.txt"), {
      labelsFile: fixtureFile("io/rt_labels.npy"),
    });
    expect([text.X.cols, text.info.yVar]).toEqual([5, fixtureFile("io/rt_labels.npy")]);
    expect(text.y).toEqual([1, 1, 2, 2, 3, 3]);
    const sync = parseDatasetSync(readFileSync(x), "x.npy", {
      labelsFile: fixtureFile("io/rt_labels.txt"),
    });
    expect(sync.y).toEqual([1, 1, 2, 2, 3, 3]);
    await expect(loadDataset(x, { labelColumn: "none" })).rejects.toBeInstanceOf(ValidationError);
    await expect(
      loadDataset(x, { labelsFile: fixtureFile("io/rt_labels.txt"), yVar: "y" }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(loadDataset("/nonexistent/file.mat")).rejects.toBeInstanceOf(ValidationError);
  });
});
