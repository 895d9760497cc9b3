/**
 * Data files that used to be read without an error and gave a silently wrong data
 * set: each is now refused naming the file, row (the file's line) and column, or
 * variable; or, where it is legitimate, read correctly.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DataFormatError, ValidationError } from "sdspcaan";
import { parseDelimited } from "sdspcaan/formats";
import { dataFile, numeric, writeMatV5 } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset, openDataset, parseDatasetSync } from "#internal/io/load.js";
import { cli } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";
import {
  csvText,
  errorOf,
  expectRefused,
  float64Bytes,
  npyBytes,
  rejectionOf,
  smallRows,
  writeText,
} from "./helpers.js";

let dir: string;
const { X, y } = smallRows();

beforeAll(() => {
  dir = tempDir("bad-files");
});
afterAll(() => removeDir(dir));

/** The rows of the small data set as CSV lines with the label last. */
function labelledLines(): string[] {
  return csvText(X, y).trimEnd().split("\n");
}

describe("CSV: a first row with a missing value is data, and refused", () => {
  it.each([
    ["NaN", "NaN"],
    ["an empty field", ""],
    ["?", "?"],
  ])("a first row holding %s is not dropped as a header", async (_what, missing) => {
    const rows = labelledLines();
    const cells = rows[0].split(",");
    cells[2] = missing;
    rows[0] = cells.join(",");
    const file = writeText(
      dir,
      `first-${rows.length}-${missing || "empty"}.csv`,
      `${rows.join("\n")}\n`,
    );
    const out = join(dir, "model-first.json");
    await expectRefused(
      ["fit", "--data", file, "--method", "pca", "--k", "2", "--out", out],
      [file, "row 1 (data row 0)", "column 2", `'${missing}'`, "missing"],
      out,
    );
  });

  it("still finds a header above a row with a missing value, and names the column", () => {
    const rows = labelledLines();
    const cells = rows[0].split(",");
    cells[1] = "NA";
    rows[0] = cells.join(",");
    const text = `f0,f1,f2,f3,label\n${rows.join("\n")}\n`;
    const err = errorOf(() => parseDelimited(text, "h.csv"));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain("row 2 (data row 0), column 1 (counting from 0, 'f1')");
  });

  it("does not drop a first row of integer data with a stray text cell as a header", () => {
    const body = "4,5,6,2\n7,8,9,1\n3,3,3,2\n";
    const err = errorOf(() => parseDelimited(`5,x,3,1\n${body}`, "pixels.csv"));
    expect(err.message).toContain(
      "row 1 (data row 0), column 1 (counting from 0): 'x' is not a number",
    );
    // Column numbers as names (pandas' default) still make a header.
    expect(parseDelimited(`0,1,2,label\n${body}`, "named.csv").info.header).toEqual([
      "0",
      "1",
      "2",
      "label",
    ]);
  });

  it("numbers rows as the lines of the file: blank lines and the header count, CRLF too", () => {
    const rows = labelledLines();
    rows[5] = rows[5].replace(/^[^,]+/, "inf");
    const text = ["a,b,c,d,label", ...rows.slice(0, 3), "", "", ...rows.slice(3)].join("\r\n");
    const err = errorOf(() => parseDelimited(text, "crlf.csv"));
    // Header line 1, three rows, two blank lines, then data rows 3, 4, 5 on lines 7, 8, 9.
    expect(err.message).toContain("row 9 (data row 5), column 0");
    expect(err.message).toContain("'inf'");
  });

  it("refuses numbers written with a decimal comma instead of dropping their column", () => {
    const text = "1,5;2;1\n2,25;3;1\n0,5;4;2\n1,75;1;2\n";
    const err = errorOf(() => parseDelimited(text, "comma.csv"));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain(
      "row 1 (data row 0), column 0 (counting from 0): '1,5' is a number written with a decimal comma",
    );
  });

  it("refuses a ragged row, naming its line and both field counts", async () => {
    const rows = labelledLines();
    rows[6] = `${rows[6]},7`;
    const file = writeText(dir, "ragged.csv", `${rows.join("\n")}\n`);
    await expectRefused(
      ["evaluate", "--data", file, "--method", "pca", "--k", "2"],
      [file, "row 7 has 6 fields but row 1 has 5"],
    );
  });

  it.each([
    ["empty", ""],
    ["blank lines only", "\n  \n\n"],
  ])("refuses a file that is %s", async (_what, text) => {
    const file = writeText(dir, `empty-${text.length}.csv`, text);
    await expectRefused(["datasets", "info", file], [file, "is empty"]);
  });

  it("refuses a header without data rows", () => {
    const err = errorOf(() => parseDelimited("a,b,c,label\n", "head.csv"));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain("a header without data rows");
  });

  it("refuses to fit on a file of one row, naming the file", async () => {
    const file = writeText(dir, "one-row.csv", csvText(X.slice(0, 1), y.slice(0, 1)));
    const out = join(dir, "one-row.json");
    await expectRefused(
      ["fit", "--data", file, "--method", "pca", "--k", "1", "--out", out],
      [file, "has 1 sample;", "at least 2"],
      out,
    );
  });

  it("refuses a label column named twice in the header", async () => {
    const text = `a,a,b,c,label\n${labelledLines().join("\n")}\n`;
    const file = writeText(dir, "dup-header.csv", text);
    await expectRefused(
      ["evaluate", "--data", file, "--label-col", "a", "--method", "pca", "--k", "2"],
      [file, "ambiguous", "columns 0 and 1"],
    );
  });

  it("refuses a label column name that is not in the header, listing the header", async () => {
    const text = `a,b,c,d,label\n${labelledLines().join("\n")}\n`;
    const file = writeText(dir, "no-such-col.csv", text);
    await expectRefused(
      ["evaluate", "--data", file, "--label-col", "class", "--method", "pca", "--k", "2"],
      [file, "'class'", "'a', 'b', 'c', 'd', 'label'"],
    );
  });
});

describe("NPY", () => {
  it("reads a bool array as 0/1 features, the last column as labels", () => {
    const rows = [
      [1, 0, 1, 0],
      [0, 1, 1, 0],
      [1, 1, 0, 1],
      [0, 0, 0, 1],
    ];
    const body = Uint8Array.from(rows.flat());
    const bytes = npyBytes("{'descr': '|b1', 'fortran_order': False, 'shape': (4, 4), }", body);
    const ds = parseDatasetSync(bytes, "flags.npy");
    expect(ds.X.toRows()).toEqual(rows.map((r) => r.slice(0, 3)));
    expect(ds.y).toEqual([0, 0, 1, 1]);
  });

  it("fits on a bool .npy from the command line", async () => {
    const rows = X.map((r, i) => [...r.map((v) => (v > 1 ? 1 : 0)), y[i] === 1 ? 1 : 0]);
    const bytes = npyBytes(
      `{'descr': '|b1', 'fortran_order': False, 'shape': (${rows.length}, 5), }`,
      Uint8Array.from(rows.flat()),
    );
    const file = join(dir, "bool.npy");
    writeFileSync(file, bytes);
    const out = join(dir, "bool.json");
    const r = await cli(["fit", "--data", file, "--method", "pca", "--k", "2", "--out", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`on ${rows.length} samples x 4 features`);
    expect(existsSync(out)).toBe(true);
  });

  it("refuses a 3-D array with the reshape that fixes it", async () => {
    const bytes = npyBytes(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 3), }",
      float64Bytes([[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]]),
    );
    const file = join(dir, "cube.npy");
    writeFileSync(file, bytes);
    await expectRefused(
      ["evaluate", "--data", file, "--method", "pca", "--k", "1"],
      [file, "3-D array of shape (2, 2, 3)", "reshape"],
    );
  });

  it("refuses a 1-D array as data", () => {
    const bytes = npyBytes(
      "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
      float64Bytes([[1, 2, 3]]),
    );
    expect(errorOf(() => parseDatasetSync(bytes, "vec.npy")).message).toContain(
      "single column of 3 values",
    );
  });

  it.each([
    ["<c16", "complex numbers"],
    ["<U3", "strings"],
    ["<M8[ns]", "dates or times"],
  ])("refuses dtype %s, saying what it holds", (dtype, what) => {
    const bytes = npyBytes(
      `{'descr': '${dtype}', 'fortran_order': False, 'shape': (1, 1), }`,
      new Uint8Array(16),
    );
    const err = errorOf(() => parseDatasetSync(bytes, "odd.npy"));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain(`'${dtype}' (${what})`);
  });

  it("refuses a structured array", () => {
    const bytes = npyBytes(
      "{'descr': [('a', '<f8'), ('b', '<f8')], 'fortran_order': False, 'shape': (1,), }",
      new Uint8Array(16),
    );
    expect(errorOf(() => parseDatasetSync(bytes, "rec.npy")).message).toContain("structured array");
  });

  it("refuses a NaN feature, naming its row and column", async () => {
    const rows = X.map((r, i) => [...r, y[i]]);
    rows[4][1] = Number.NaN;
    const file = join(dir, "nan.npy");
    writeFileSync(
      file,
      npyBytes(
        `{'descr': '<f8', 'fortran_order': False, 'shape': (${rows.length}, 5), }`,
        float64Bytes(rows),
      ),
    );
    await expectRefused(
      ["evaluate", "--data", file, "--method", "pca", "--k", "2"],
      [file, "NaN at row 4, column 1"],
    );
  });
});

describe("MAT", () => {
  it("refuses a file holding only X for a command that needs labels, listing its variables", async () => {
    const file = join(dir, "x-only.mat");
    writeFileSync(file, writeMatV5([numeric("X", X)]));
    const out = join(dir, "x-only.json");
    await expectRefused(
      ["fit", "--data", file, "--method", "pca", "--k", "2", "--out", out],
      [file, "no label variable", "'X' (24 x 4 double)", "--y-var", "--label-col"],
      out,
    );
  });

  it("takes a column of X for the labels when it is named", () => {
    const bytes = writeMatV5([
      numeric(
        "X",
        X.map((r, i) => [...r, y[i]]),
      ),
    ]);
    const ds = parseDatasetSync(bytes, "x-labels.mat", { labelColumn: "last" });
    expect(ds.X.toRows()).toEqual(X);
    expect(ds.y).toEqual(y);
  });

  it("keeps the `data` convention: labels in the last column of a variable named data", () => {
    const bytes = writeMatV5([
      numeric(
        "data",
        X.map((r, i) => [...r, y[i]]),
      ),
    ]);
    const ds = parseDatasetSync(bytes, "d.mat");
    expect(ds.info.yVar).toBe("data[:, end]");
    expect(ds.y).toEqual(y);
  });

  it("still reads Musk1.mat through the registry's declared label column", async () => {
    const { dataset } = await openDataset(dataFile("Musk1.mat"));
    expect(dataset.info.yVar).toBe("data[:, end]");
    expect([dataset.X.rows, dataset.X.cols]).toEqual([476, 166]);
    expect(new Set<number | string>(dataset.y)).toEqual(new Set([0, 1]));
  });

  it("refuses a NaN in the data variable, naming the variable, row and column", async () => {
    const bad = X.map((r) => [...r]);
    bad[3][2] = Number.NaN;
    const file = join(dir, "nan.mat");
    writeFileSync(
      file,
      writeMatV5([
        numeric("fea", bad),
        numeric(
          "gnd",
          y.map((v) => [v]),
        ),
      ]),
    );
    const err = await rejectionOf(loadDataset(file));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain(`${file}: variable 'fea' contains NaN at row 3, column 2`);
  });

  it("refuses --x-var naming a variable the file lacks, listing the variables", async () => {
    const file = join(dir, "fea-gnd.mat");
    writeFileSync(
      file,
      writeMatV5([
        numeric("fea", X),
        numeric(
          "gnd",
          y.map((v) => [v]),
        ),
      ]),
    );
    const err = await rejectionOf(loadDataset(file, { xVar: "X" }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain("has no variable 'X'");
    expect(err.message).toContain("'fea' (24 x 4 double)");
  });
});
