/**
 * Inputs that used to be accepted silently or answered unclearly: each is now
 * refused with a message naming what is wrong, read correctly, or accepted with a
 * warning that says what the result means.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { Matrix, PCA, SDSPCAAN, ValidationError } from "sdspcaan";
import { classesMissingFromTraining, parseSplitFile } from "sdspcaan/methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadFeatures } from "#internal/io/load.js";
import { summariseResults, tableCsv, tableMarkdown } from "#internal/reports/report.js";
import { cli, lines } from "../helpers/cli.js";
import { rec } from "../helpers/makeRecord.js";
import { removeDir, tempDir } from "../helpers/runs.js";
import { csvText, errorOf, smallRows, writeText } from "./helpers.js";

let dir: string;
let csv: string;
const { X, y } = smallRows();

beforeAll(() => {
  dir = tempDir("silent");
  csv = writeText(dir, "small.csv", csvText(X, y));
});
afterAll(() => removeDir(dir));

describe("k above what the data can give", () => {
  it("SDSPCAAN refuses k > d instead of returning dependent columns", () => {
    // 24 samples in 4 features: W = X^T Q has rank at most 4.
    const err = errorOf(() => new SDSPCAAN({ k: 5 }).fit(X, y));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toMatch(/at most min\(n, d\) = 4/);
    expect(new SDSPCAAN({ k: 4 }).fit(X, y).transform(X).cols).toBe(4);
  });

  it("fit says when a method outputs another number of components than k (JPCDA: c)", async () => {
    const r = await cli([
      "fit",
      "--data",
      csv,
      "--label-col",
      "last",
      "--method",
      "jpcda",
      "--k",
      "4",
      "--out",
      join(dir, "jpcda.json"),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Fitted JPCDA \(k = 4, 3 output components\)/);
  });
});

describe("numbers on the command line", () => {
  it.each([
    ["--k", "0x2"],
    ["--k", "1e1"],
    ["--k", "0b11"],
    ["--alpha", "0x10"],
    ["--alpha", ""],
  ])("%s %j is refused, not read as another number", async (flag, value) => {
    const args = ["fit", "--data", csv, "--label-col", "last", "--method", "sdspca", "--k", "2"];
    args.push(flag, value, "--out", join(dir, "never.json"));
    const r = await cli(args);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toContain(`The '${flag}' option must be`);
    expect(r.stderr).toContain(JSON.stringify(value));
  });

  it("--set tol=0x2 does not become 2", async () => {
    const r = await cli([
      "fit",
      "--data",
      csv,
      "--label-col",
      "last",
      "--method",
      "sdspcaan",
      "--k",
      "2",
      "--set",
      "tol=0x2",
      "--out",
      join(dir, "never2.json"),
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/0x2/);
  });
});

describe("split files", () => {
  it("a split file without index_base is refused, saying how to fix it", () => {
    const err = errorOf(() =>
      parseSplitFile({ splits: [{ train: [0, 1], val: [2], test: [3] }] }, 4),
    );
    expect(err.message).toMatch(/no "index_base"/);
    expect(
      parseSplitFile({ index_base: 1, splits: [{ train: [1, 2], val: [3], test: [4] }] }, 4),
    ).toHaveLength(1);
  });

  it("classes absent from the training part are found", () => {
    const split = {
      train: Int32Array.from([0, 1]),
      val: Int32Array.from([2]),
      test: Int32Array.from([3]),
    };
    expect(classesMissingFromTraining(["a", "a", "b", "c"], split)).toEqual(["b", "c"]);
    expect(classesMissingFromTraining(["a", "b", "a", "b"], split)).toEqual([]);
  });

  it("evaluate warns when a class has no training sample", async () => {
    // Class 3 (rows 16-23) is only in validation and test.
    const train = Array.from({ length: 12 }, (_, i) => i);
    const val = [12, 13, 14, 15, 16, 17, 18, 19];
    const test = [20, 21, 22, 23];
    const splits = join(dir, "missing-class.json");
    writeFileSync(splits, JSON.stringify({ index_base: 0, splits: [{ train, val, test }] }));
    const r = await cli([
      "evaluate",
      "--data",
      csv,
      "--label-col",
      "last",
      "--method",
      "pca",
      "--k",
      "2",
      "--splits",
      splits,
      "--no-progress",
    ]);
    expect(r.code).toBe(0);
    // On standard error, as every warning of evaluate: standard output is its result.
    expect(r.stderr).toMatch(
      /^warning: small, this split: class 3 has no training sample, so 1-NN never predicts it: its recall is 0 and the BCA is at most 2\/3\.$/m,
    );
    expect(r.stdout).not.toMatch(/warning/);
    // With --json, its values hold the numbers the message quotes.
    const json = await cli([
      ...["evaluate", "--data", csv, "--label-col", "last", "--method", "pca", "--k", "2"],
      ...["--splits", splits, "--no-progress", "--json"],
    ]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).warnings).toEqual([
      {
        code: "missing-classes",
        message:
          "small, this split: class 3 has no training sample, so 1-NN never predicts it: its recall is 0 and the BCA is at most 2/3.",
        values: { classes: 1, totalClasses: 3, bcaBound: 2 / 3 },
      },
    ]);
  });
});

describe("tables of one repeat", () => {
  it("print no '± 0.00' spread", () => {
    const one = [
      rec({ dataset: "Yale", method: "pca", repeat: 0, k: 10, valBCA: 0.5, testBCA: 0.7 }),
      rec({ dataset: "ORL", method: "pca", repeat: 0, k: 10, valBCA: 0.5, testBCA: 0.8 }),
    ];
    const summary = summariseResults(one);
    const md = tableMarkdown(summary);
    expect(md).not.toContain("±");
    expect(md).toContain("Test BCA (%) of 1 repeat (no standard deviation)");
    expect(md).toContain("| Yale | **70.00** |");
    const csvRows = tableCsv(summary).trim().split("\n");
    expect(csvRows[1]).toMatch(/^Yale,pca,70\.0000,,1,/);
  });
});

describe("compressed and extreme data", () => {
  it("reads a gzip-compressed CSV as the CSV itself", async () => {
    const gz = join(dir, "small.csv.gz");
    writeFileSync(gz, gzipSync(Buffer.from(csvText(X, y))));
    const plain = await loadFeatures(csv, { labelColumn: "last" });
    const packed = await loadFeatures(gz, { labelColumn: "last" });
    expect(Array.from(packed.X.data)).toEqual(Array.from(plain.X.data));
    expect(packed.y).toEqual(plain.y);
  });

  it("a gzip file holding garbage names the file, not NUL bytes", async () => {
    const gz = join(dir, "twice.csv.gz");
    writeFileSync(gz, gzipSync(gzipSync(Buffer.from(csvText(X, y)))));
    await expect(loadFeatures(gz)).rejects.toThrow(/twice\.csv\.gz.*gzip-compressed twice/);
  });

  it("transform names the file and the data row whose projection overflows", async () => {
    const model = join(dir, "pca.json");
    const fit = await cli(
      ["fit", "--data", csv, "--label-col", "last", "--method", "pca"].concat([
        "--k",
        "2",
        "--preprocess",
        "none",
        "--out",
        model,
      ]),
    );
    expect(fit.code).toBe(0);
    // Values of the first component's signs: its projection is 1.7e308 times the
    // component's 1-norm, above the largest double whenever two entries are non-zero.
    const W = new PCA({ k: 2 }).fit(X, y).components;
    const rows = X.map((r) => [...r]);
    rows[5] = rows[5].map((_, j) => Math.sign(W.get(j, 0)) * 1.7e308);
    const huge = writeText(dir, "huge.csv", csvText(rows));
    const r = await cli(["transform", "--model", model, "--data", huge, "--out", "-"]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /huge\.csv: data row 5 \(counting from 0\): projecting it with PCA overflows/,
    );
  });

  it("predict names the file and the data row whose projection overflows", async () => {
    const pipeline = join(dir, "pca-pipeline.json");
    const fit = await cli(
      ["fit", "--data", csv, "--label-col", "last", "--method", "pca", "--k", "2"].concat([
        "--pipeline",
        "--preprocess",
        "none",
        "--out",
        pipeline,
      ]),
    );
    expect(fit.code).toBe(0);
    const W = new PCA({ k: 2 }).fit(X, y).components;
    const rows = X.map((r) => [...r]);
    rows[1] = rows[1].map((_, j) => Math.sign(W.get(j, 0)) * 1.7e308);
    const huge = writeText(dir, "huge-predict.csv", csvText(rows));
    const r = await cli(["predict", "--model", pipeline, "--data", huge]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /huge-predict\.csv: data row 1 \(counting from 0\): projecting it with PCA overflows/,
    );
  });

  it("the library names the row it cannot project", () => {
    const model = new SDSPCAAN({ k: 2 }).fit(X, y);
    const rows = X.map((r) => [...r]);
    rows[3] = rows[3].map(() => -1.7e308);
    expect(() => model.transform(Matrix.fromRows(rows))).toThrow(/Row 3 of X \(counting from 0\)/);
  });
});
