import { readFileSync } from "node:fs";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { checkPreprocessing, preprocessSplit } from "#internal/data/preprocess.js";
import type { Split } from "#internal/data/splits.js";

interface Fixture {
  preprocess: {
    X: number[][];
    train: number[];
    trainZscore: number[][];
    datasetZscore: number[][];
  };
}

const fixture = JSON.parse(readFileSync(fixtureFile("experiment/knn_bca.json"), "utf8")) as Fixture;
const { X, train } = fixture.preprocess;
const n = X.length;
const rest = [...Array(n).keys()].filter((i) => !train.includes(i));
const split: Split = {
  train: Int32Array.from(train),
  val: Int32Array.from(rest.slice(0, 3)),
  test: Int32Array.from(rest.slice(3)),
};

function expectRowsClose(M: Matrix, expected: number[][], rows: Int32Array): void {
  expect(M.rows).toBe(rows.length);
  rows.forEach((r, i) => {
    expected[r].forEach((v, j) => {
      expect(M.get(i, j)).toBeCloseTo(v, 12);
    });
  });
}

describe("preprocessSplit", () => {
  it("z-scores with training statistics like the NumPy reference ('zscore')", () => {
    const p = preprocessSplit(X, split, "train-zscore");
    expectRowsClose(p.train, fixture.preprocess.trainZscore, split.train);
    expectRowsClose(p.val, fixture.preprocess.trainZscore, split.val);
    expectRowsClose(p.test, fixture.preprocess.trainZscore, split.test);
    // The constant last column has std 0, which counts as 1.
    expect(p.scale[3]).toBe(1);
  });

  it("z-scores with whole-dataset statistics like the reference ('zscore-all')", () => {
    const p = preprocessSplit(X, split, "dataset-zscore");
    expectRowsClose(p.train, fixture.preprocess.datasetZscore, split.train);
    expectRowsClose(p.test, fixture.preprocess.datasetZscore, split.test);
  });

  it("gives standardised training columns under train-zscore", () => {
    const p = preprocessSplit(X, split, "train-zscore");
    for (let j = 0; j < 3; j++) {
      const col = Array.from(p.train.column(j));
      const m = col.reduce((a, b) => a + b, 0) / col.length;
      const v = col.reduce((a, b) => a + (b - m) ** 2, 0) / (col.length - 1);
      expect(m).toBeCloseTo(0, 12);
      expect(v).toBeCloseTo(1, 12);
    }
  });

  it("copies the rows unchanged under 'none' and never mutates X", () => {
    const M = Matrix.fromRows(X);
    const before = M.data.slice();
    const p = preprocessSplit(M, split, "none");
    expect(p.val.row(0)).toEqual(M.row(split.val[0]));
    preprocessSplit(M, split, "train-zscore");
    preprocessSplit(M, split, "dataset-zscore");
    expect(M.data).toEqual(before);
  });

  it("rejects unknown modes and bad splits, naming the argument", () => {
    expect(() => checkPreprocessing("zscore")).toThrow(
      /'preprocess' option must be one of "train-zscore", "dataset-zscore", "none"\. Got "zscore"/,
    );
    expect(() => preprocessSplit(X, { ...split, test: Int32Array.from([0, 99]) }, "none")).toThrow(
      /split\.test\[1\] is 99, outside \[0, 11\]/,
    );
  });
});
