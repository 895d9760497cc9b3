/**
 * The one standardiser (core/standardizer.ts): divisor n - 1, constant columns only
 * centred, a relative floor for round-off columns, rows and kept columns on demand,
 * JSON round trip, and statistics that survive data near the ends of double precision.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Standardizer } from "#internal/linalg/standardizer.js";

const X = Matrix.fromRows([
  [1, 5, 2, 1e-12],
  [3, 5, 4, 2e-12],
  [5, 5, 9, 3e-12],
]);

describe("Standardizer", () => {
  it("centres with the mean and scales with the n - 1 standard deviation", () => {
    const s = Standardizer.fit(X, { method: "train-zscore" });
    expect(Array.from(s.center)).toEqual([3, 5, 5, 2e-12]);
    expect(s.scale[0]).toBe(2); // sqrt(((1-3)^2 + 0 + (5-3)^2) / 2)
    expect(s.scale[1]).toBe(1); // constant: only centred
    expect(Array.from(s.kept)).toEqual([0, 2, 3]);
    const Z = s.transform(X);
    expect(Array.from(Z.row(0)).slice(0, 2)).toEqual([-1, 0]);
  });

  it("treats columns below floor * (largest std) as constant", () => {
    const s = Standardizer.fit(X, { floor: 1e-10 });
    expect(Array.from(s.kept)).toEqual([0, 2]);
    expect(s.scale[3]).toBe(1);
    const Z = s.transform(X, { keptOnly: true, rows: Int32Array.from([2, 0]) });
    expect(Z.cols).toBe(2);
    expect(Z.row(0)[0]).toBe(1);
    expect(Z.row(1)[0]).toBe(-1);
  });

  it("round-trips through JSON and refuses a bad one, naming it", () => {
    const s = Standardizer.fit(X, { method: "dataset-zscore" });
    const t = Standardizer.fromJSON(s.toJSON(), 4);
    expect(Array.from(t.transform(X).data)).toEqual(Array.from(s.transform(X).data));
    expect(() => Standardizer.fromJSON({ ...s.toJSON(), scale: [1, 0, 1, 1] }, 4)).toThrow(
      ValidationError,
    );
    expect(() => Standardizer.fromJSON(s.toJSON(), 3)).toThrow(/3 finite numbers in center/);
  });

  it("gives the same standardised data for X scaled by 1e200 or 1e-200", () => {
    const ref = Standardizer.fit(X).transform(X);
    for (const f of [1e200, 1e-200]) {
      const Y = new Matrix(
        X.rows,
        X.cols,
        X.data.map((v) => v * f),
      );
      const Z = Standardizer.fit(Y).transform(Y);
      for (let t = 0; t < Z.data.length; t++) {
        expect(Math.abs(Z.data[t] - ref.data[t])).toBeLessThan(1e-12);
      }
    }
  });

  it("refuses data with another number of columns", () => {
    expect(() => Standardizer.fit(X).transform(new Matrix(2, 3))).toThrow(/3 features/);
  });
});
