import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { makeSyntheticDataset } from "#internal/data/synthetic.js";

describe("makeSyntheticDataset", () => {
  const small = { samples: 50, features: 30, classes: 5, signalDim: 4, nuisanceDim: 3 };

  it("is a function of its options and seed", () => {
    const a = makeSyntheticDataset({ ...small, seed: 7 });
    const b = makeSyntheticDataset({ ...small, seed: 7 });
    const c = makeSyntheticDataset({ ...small, seed: 8 });
    expect(Array.from(a.X.data)).toEqual(Array.from(b.X.data));
    expect(a.y).toEqual(b.y);
    expect(Array.from(c.X.data)).not.toEqual(Array.from(a.X.data));
  });

  it("has the asked shape, balanced labels 1..c, and the outliers it reports", () => {
    const ds = makeSyntheticDataset({ ...small, outlierFraction: 0.1, seed: 1 });
    expect([ds.X.rows, ds.X.cols]).toEqual([50, 30]);
    const counts = new Map<number, number>();
    for (const l of ds.y) counts.set(l, (counts.get(l) ?? 0) + 1);
    expect([...counts.keys()].sort()).toEqual([1, 2, 3, 4, 5]);
    expect([...counts.values()]).toEqual([10, 10, 10, 10, 10]);
    expect(ds.outliers).toHaveLength(5);
    expect(ds.X.data.every(Number.isFinite)).toBe(true);
    expect(ds.options.seed).toBe(1);
  });

  it("puts most variance in the nuisance directions, so the class structure is not the top of PCA", () => {
    const ds = makeSyntheticDataset({ samples: 300, features: 40, outlierFraction: 0, seed: 2 });
    // Total variance ~ nuisanceDim * 8^2 (nuisance) + signal + d * 1 (noise); nuisance dominates.
    const d = ds.X.cols;
    let total = 0;
    for (let j = 0; j < d; j++) {
      let m = 0;
      for (let i = 0; i < ds.X.rows; i++) m += ds.X.data[i * d + j];
      m /= ds.X.rows;
      for (let i = 0; i < ds.X.rows; i++) total += (ds.X.data[i * d + j] - m) ** 2;
    }
    const perSample = total / (ds.X.rows - 1);
    expect(perSample).toBeGreaterThan(12 * 64 * 0.8);
  });

  it("refuses unknown and inconsistent options, naming them", () => {
    expect(() => makeSyntheticDataset({ sampels: 10 } as never)).toThrow(/no option 'sampels'/);
    expect(() => makeSyntheticDataset({ features: 10, signalDim: 8, nuisanceDim: 5 })).toThrow(
      ValidationError,
    );
    expect(() => makeSyntheticDataset({ samples: 6, classes: 7 })).toThrow(/samples/);
  });
});
