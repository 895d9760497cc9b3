/**
 * Matrices given to the library as `{ rows, cols, data }` used to be converted with
 * Float64Array.from, which turns null, "", " ", "0x10", true and [1] into numbers
 * and fits on them; the array-of-rows form refused them. Both forms (and the
 * Matrix constructors) now refuse them the same way, naming the row and column;
 * and an empty array of rows says plainly that it has no rows.
 */

import { errorOf, smallRows } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { NearestNeighbour1 } from "#internal/classify/nearestNeighbour.js";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { asMatrix } from "#internal/core/validate.js";
import { LDA } from "#internal/methods/lda.js";
import { PCA } from "#internal/methods/pca.js";
import { PCAN } from "#internal/methods/pcan.js";
import { Pipeline } from "#internal/methods/pipeline.js";
import { createMethod, methodNames } from "#internal/methods/registry.js";
import { TrainingData } from "#internal/methods/training.js";

const { X, y } = smallRows();
const flat = (rows: number[][]): unknown[] => rows.flat();

/** The entries JavaScript would quietly read as numbers, and how a message shows them. */
const LOOSE: [unknown, string][] = [
  [null, "null"],
  ["", '""'],
  [" ", '" "'],
  ["0x10", '"0x10"'],
  [true, "true"],
  [[1], "an array of length 1"],
  [undefined, "undefined"],
  [10n, "10n (a BigInt)"],
];

describe("{ rows, cols, data } refuses what the array-of-rows form refuses", () => {
  for (const [value, shown] of LOOSE) {
    it(`an entry ${shown}`, () => {
      const data = flat(X);
      data[2 * 4 + 3] = value;
      const expected = `X contains ${shown} at row 2, column 3; only finite numbers are allowed (remove or impute missing values first).`;
      const shaped = errorOf(() => asMatrix({ rows: X.length, cols: 4, data } as never));
      expect(shaped).toBeInstanceOf(ValidationError);
      expect(shaped.message).toBe(expected);
      const rows = X.map((r) => [...r]) as unknown[][];
      rows[2][3] = value;
      expect(errorOf(() => asMatrix(rows as never)).message).toBe(expected);
    });
  }

  it("every public entry taking a matrix refuses it, naming its argument", () => {
    const data = flat(X);
    data[5] = "0x10";
    const bad = { rows: X.length, cols: 4, data } as never;
    expect(errorOf(() => new PCA({ k: 2 }).fit(bad, y)).message).toMatch(
      /^X contains "0x10" at row 1, column 1;/,
    );
    expect(errorOf(() => new Pipeline(new PCA({ k: 2 })).fit(bad, y)).message).toMatch(
      /^X contains "0x10"/,
    );
    expect(errorOf(() => TrainingData.prepare(bad, y)).message).toMatch(/^X contains "0x10"/);
    expect(errorOf(() => new NearestNeighbour1().fit(bad, y)).message).toMatch(
      /^Ptrain contains "0x10"/,
    );
    const model = new PCA({ k: 2 }).fit(X, y);
    expect(errorOf(() => model.transform(bad)).message).toMatch(
      /^X contains "0x10" at row 1, column 1;/,
    );
    const pipeline = new Pipeline(new PCA({ k: 2 })).fit(X, y);
    expect(errorOf(() => pipeline.predict(bad)).message).toMatch(/^X contains "0x10"/);
    expect(errorOf(() => new NearestNeighbour1().fit(X, y).predict(bad)).message).toMatch(
      /^Pquery contains "0x10"/,
    );
  });

  it("data that is not an array of numbers", () => {
    expect(errorOf(() => asMatrix({ rows: 2, cols: 3, data: "123456" } as never)).message).toBe(
      'X.data must be an array (or typed array) of 2 x 3 numbers, row-major. Got "123456".',
    );
    expect(errorOf(() => asMatrix({ rows: 1, cols: 1, data: null } as never)).message).toBe(
      "X.data must be an array (or typed array) of 1 x 1 numbers, row-major. Got null.",
    );
  });

  it("typed arrays convert exactly, and their NaNs are still named", () => {
    const m = asMatrix({ rows: 2, cols: 2, data: Float32Array.of(0.5, -1, 3, 1e30) });
    expect(Array.from(m.data)).toEqual([0.5, -1, 3, Math.fround(1e30)]);
    expect(
      errorOf(() => asMatrix({ rows: 2, cols: 2, data: Float64Array.of(1, 2, Number.NaN, 4) }))
        .message,
    ).toBe(
      "X contains NaN at row 1, column 0; only finite numbers are allowed (remove or impute missing values first).",
    );
  });

  it("Matrix.fromRows and Matrix.fromColumnMajor refuse entries that are not numbers", () => {
    expect(() =>
      Matrix.fromRows([
        [1, 2],
        [3, null as never],
      ]),
    ).toThrow(new RangeError("Entry (1, 1) is null, not a number."));
    expect(() => Matrix.fromColumnMajor(2, 2, [1, "2", 3, 4] as never)).toThrow(
      new RangeError('Entry (1, 0) is "2", not a number.'),
    );
    expect(() => Matrix.fromRows([[[1] as never]])).toThrow(
      new RangeError("Entry (0, 0) is an array, not a number."),
    );
    expect(Matrix.fromColumnMajor(2, 2, [1, 2, 3, 4]).toRows()).toEqual([
      [1, 3],
      [2, 4],
    ]);
  });
});

describe("an empty array of rows says so plainly", () => {
  it("where rows are needed and where none may be", () => {
    const model = new PCA({ k: 2 }).fit(X, y);
    expect(errorOf(() => model.transform([])).message).toBe(
      "X is an empty array: it has no rows, so its number of columns is unknown; for no samples pass {rows: 0, cols, data: []} or a Matrix with 0 rows.",
    );
    const pipeline = new Pipeline(new PCA({ k: 2 })).fit(X, y);
    expect(errorOf(() => pipeline.predict([])).message).toBe(
      "X is an empty array: it has no rows, so its number of columns is unknown; for no samples pass {rows: 0, cols, data: []} or a Matrix with 0 rows.",
    );
    expect(pipeline.predict({ rows: 0, cols: 4, data: [] })).toEqual([]);
    expect(errorOf(() => new PCA({ k: 2 }).fit([], [])).message).toBe(
      "X is an empty array: it has no rows, and at least 2 rows (samples) are needed.",
    );
  });
});

describe("labels that do not look like classes are refused where classes are needed", () => {
  const { X, y } = smallRows();
  // A feature column taken for the labels: 24 distinct non-integers among 24 samples.
  const continuous = X.map((r) => r[3]);
  const first = continuous.findIndex((v) => !Number.isInteger(v));

  it("by every supervised method and by a pipeline, naming y, its first non-integer and the count", () => {
    for (const name of methodNames()) {
      const model = createMethod(name, { k: 1 });
      if (!model.supervised) continue;
      const err = errorOf(() => model.fit(X, continuous));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe("y");
      expect(err.message).toBe(
        `${model.displayName} needs class labels, integers or text, but y does not look like them: y[${first}] is ${continuous[first]}, and 24 of the 24 labels are not integers (a continuous column?).`,
      );
    }
    expect(errorOf(() => new Pipeline(new PCA({ k: 2 })).fit(X, continuous)).message).toBe(
      `Pipeline.fit needs class labels, integers or text, but y does not look like them: y[${first}] is ${continuous[first]}, and 24 of the 24 labels are not integers (a continuous column?).`,
    );
  });

  it("counts the labels that are not integers, whatever their position", () => {
    const mixed = y.map((v, i) => (i === 5 || i === 9 ? v + 0.5 : v));
    expect(errorOf(() => new LDA({ k: 1 }).fit(X, mixed)).message).toBe(
      "LDA needs class labels, integers or text, but y does not look like them: y[5] is 1.5, and 2 of the 24 labels are not integers (a continuous column?).",
    );
  });

  it("takes integers and text however many classes they make, and ignores y where no classes are needed", () => {
    const distinct = y.map((_, i) => i % 12);
    expect(new LDA({ k: 1 }).fit(X, distinct).classes).toHaveLength(12);
    expect(new LDA({ k: 1 }).fit(X, y.map(String)).classes).toEqual(["1", "2", "3"]);
    expect(new PCA({ k: 2 }).fit(X, continuous).nComponents).toBe(2);
    expect(new PCAN({ k: 2, clusters: 3 }).fit(X, continuous).nComponents).toBe(2);
  });

  it("by PCAN where y's classes would give the number of clusters", () => {
    expect(errorOf(() => new PCAN({ k: 2 }).fit(X, continuous)).message).toBe(
      `PCAN needs class labels, integers or text, but y does not look like them: y[${first}] is ${continuous[first]}, and 24 of the 24 labels are not integers (a continuous column?).`,
    );
  });
});
