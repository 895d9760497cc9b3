/**
 * Labels that used to become classes without a word: missing labels, a stray text
 * label among numbers, a continuous column taken for the labels, one class. Each is
 * refused naming the row (or sample); the --label-column spelling is accepted.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DataFormatError } from "sdspcaan";
import { parseDelimited } from "sdspcaan/formats";
import { CLASS, MI, numeric, type WriteArray, writeMatV5 } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset, parseDatasetSync } from "#internal/io/load.js";
import { cli } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";
import { csvText, errorOf, expectRefused, rejectionOf, smallRows, writeText } from "./helpers.js";

let dir: string;
const { X, y } = smallRows();

beforeAll(() => {
  dir = tempDir("bad-labels");
});
afterAll(() => removeDir(dir));

describe("missing labels", () => {
  it.each([
    ["NaN", "'NaN' marks a missing value"],
    ["", "is empty"],
    ["?", "'?' marks a missing value"],
  ])("refuses a label written %j, naming its row", async (label, says) => {
    const labels: (number | string)[] = [...y];
    labels[9] = label;
    const file = writeText(
      dir,
      `missing-label-${label.length}-${label}.csv`.replace("?", "q"),
      csvText(X, labels),
    );
    const out = join(dir, "missing-label.json");
    await expectRefused(
      ["fit", "--data", file, "--method", "lda", "--k", "2", "--out", out],
      [file, "row 10 (data row 9), column 4", says],
      out,
    );
  });

  it("refuses a stray text label among numeric ones, naming its row", () => {
    const labels: (number | string)[] = [...y];
    labels[3] = "l";
    const err = errorOf(() => parseDelimited(csvText(X, labels), "typo.csv"));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain("row 4 (data row 3), column 4");
    expect(err.message).toContain("'l' is not a number, but 23 of the 24 labels are");
  });

  it("accepts text labels, a class called 'none' among them", () => {
    const names = y.map((v) => ["none", "mild", "severe"][v - 1]);
    const ds = parseDelimited(csvText(X, names), "text.csv");
    expect(ds.y).toEqual(names);
  });

  it("refuses a NaN in a MAT label vector, naming the sample", () => {
    const gnd = y.map((v, i) => [i === 13 ? Number.NaN : v]);
    const bytes = writeMatV5([numeric("fea", X), numeric("gnd", gnd)]);
    const err = errorOf(() => parseDatasetSync(bytes, "gnd-nan.mat"));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain("labels 'gnd', sample 13 (counting from 0): NaN");
  });

  it("refuses an empty string in a MAT cell array of labels", () => {
    const chars = (s: string): WriteArray => ({
      name: "",
      classId: CLASS.CHAR,
      dims: [s.length === 0 ? 0 : 1, s.length],
      storage: MI.UINT16,
      values: [...s].map((c) => c.charCodeAt(0)),
    });
    const names = y.map((v, i) => (i === 20 ? "" : `c${v}`));
    const cell: WriteArray = {
      name: "gnd",
      classId: CLASS.CELL,
      dims: [names.length, 1],
      storage: MI.DOUBLE,
      values: [],
      cells: names.map(chars),
    };
    const err = errorOf(() => parseDatasetSync(writeMatV5([numeric("fea", X), cell]), "c.mat"));
    expect(err.message).toContain("labels 'gnd', sample 20 (counting from 0): the label is empty");
  });

  it("refuses a '?' in a labels file, naming its line", async () => {
    const data = join(dir, "x.npy-less.csv");
    writeFileSync(data, csvText(X));
    const labels = writeText(
      dir,
      "labels.txt",
      `${y.map((v, i) => (i === 6 ? "?" : v)).join("\n")}\n`,
    );
    const err = await rejectionOf(loadDataset(data, { labelsFile: labels }));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain(`${labels}: line 7: the label '?' marks a missing value`);
  });
});

describe("labels that do not look like classes", () => {
  it("refuses a continuous column chosen with --label-col first", async () => {
    const file = writeText(dir, "continuous-first.csv", csvText(X, y));
    await expectRefused(
      ["evaluate", "--data", file, "--label-col", "first", "--method", "pca", "--k", "2"],
      [file, "column 0", "do not look like class labels", "not integers", "--label-col"],
    );
  });

  it("refuses integer labels where most classes have a single sample", () => {
    const ids = X.map((_, i) => (i < 4 ? 0 : i));
    const err = errorOf(() => parseDelimited(csvText(X, ids), "ids.csv"));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toContain("20 of the 21 classes among 24 samples have a single sample");
  });

  it("refuses a single class", async () => {
    const file = writeText(
      dir,
      "one-class.csv",
      csvText(
        X,
        y.map(() => 7),
      ),
    );
    await expectRefused(
      ["evaluate", "--data", file, "--method", "pca", "--k", "2"],
      [file, "are all 7: a single class"],
    );
  });

  it("accepts a toy data set of three one-sample classes", () => {
    const ds = parseDelimited(csvText(X.slice(0, 3), [1, 2, 3]), "toy.csv");
    expect(ds.y).toEqual([1, 2, 3]);
  });

  it("refuses a continuous label variable in a MAT-file", () => {
    const bytes = writeMatV5([
      numeric("X", X),
      numeric(
        "y",
        X.map((r) => [r[0]]),
      ),
    ]);
    const err = errorOf(() => parseDatasetSync(bytes, "reg.mat"));
    expect(err.message).toContain("the labels 'y' do not look like class labels");
  });
});

describe("--label-column and --label-col", () => {
  const labelFirst = () => {
    const rows = X.map((r, i) => [y[i], ...r]);
    return writeText(dir, "label-first.csv", csvText(rows));
  };

  it("fit accepts --label-column as --label-col and saves the same model", async () => {
    const file = labelFirst();
    const a = join(dir, "col.json");
    const b = join(dir, "column.json");
    const common = ["--data", file, "--method", "lda", "--k", "2", "--preprocess", "none"];
    expect((await cli(["fit", ...common, "--label-col", "first", "--out", a])).code).toBe(0);
    expect((await cli(["fit", ...common, "--label-column", "first", "--out", b])).code).toBe(0);
    const strip = (p: string) => {
      const j = JSON.parse(readFileSync(p, "utf8"));
      j.fitInfo.timings = null;
      return j;
    };
    expect(strip(b)).toEqual(strip(a));
    expect(strip(a).classes).toEqual([1, 2, 3]);
  });

  it("evaluate and datasets info accept both spellings", async () => {
    const file = labelFirst();
    const ev = await cli([
      "evaluate",
      "--data",
      file,
      "--label-column",
      "0",
      "--method",
      "pca",
      "--k",
      "2",
      "--json",
    ]);
    expect(ev.code).toBe(0);
    const info = await cli(["datasets", "info", file, "--label-col", "first", "--json"]);
    expect(info.code).toBe(0);
    expect(JSON.parse(info.stdout).classes).toBe(3);
  });

  it("refuses two different columns given with the two spellings", async () => {
    const file = labelFirst();
    await expectRefused(
      [
        "evaluate",
        "--data",
        file,
        "--label-col",
        "0",
        "--label-column",
        "4",
        "--method",
        "pca",
        "--k",
        "2",
      ],
      ["--label-col and --label-column", "'0' and '4'"],
    );
  });

  it("fit --label-col none fits an unsupervised method on unlabelled data", async () => {
    const file = writeText(dir, "unlabelled.csv", csvText(X));
    const out = join(dir, "unlabelled.json");
    const r = await cli([
      "fit",
      "--data",
      file,
      "--label-col",
      "none",
      "--method",
      "pca",
      "--k",
      "2",
      "--out",
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("on 24 samples x 4 features");
  });

  it("refuses --label-col none for a supervised method and for evaluate", async () => {
    const file = writeText(dir, "unlabelled-2.csv", csvText(X));
    const out = join(dir, "none.json");
    await expectRefused(
      ["fit", "--data", file, "--label-col", "none", "--method", "lda", "--out", out, "--k", "2"],
      ["LDA is supervised", "--label-col none"],
      out,
    );
    await expectRefused(
      ["evaluate", "--data", file, "--label-col", "none", "--method", "pca", "--k", "2"],
      ["needs the class labels"],
    );
  });

  it("refuses --label-col none for experiment, writing nothing", async () => {
    const file = writeText(dir, "unlabelled-3.csv", csvText(X));
    const out = join(dir, "run");
    await expectRefused(
      ["experiment", "--data", file, "--label-col", "none", "--out", out],
      ["experiment needs the class labels"],
      out,
    );
  });
});
