import { describe, expect, it } from "vitest";
import type { FitRecord } from "#internal/protocol/records.js";
import {
  bcaVersusK,
  commonCurves,
  sensitivityProfile,
  sensitivitySurface,
  sensitivitySurfaces,
  variedParams,
} from "#internal/reports/figures.js";
import { flatInK } from "../helpers/flatInK.js";
import { rec } from "../helpers/makeRecord.js";

describe("bcaVersusK", () => {
  it("takes the best-validation params at each k, averages over repeats, then datasets", () => {
    const records: FitRecord[] = [
      // Dataset A, repeat 0: at k = 10 delta = 1 wins on validation.
      rec({ dataset: "A", repeat: 0, k: 10, params: { delta: 0.1 }, valBCA: 0.5, testBCA: 0.9 }),
      rec({ dataset: "A", repeat: 0, k: 10, params: { delta: 1 }, valBCA: 0.6, testBCA: 0.7 }),
      rec({ dataset: "A", repeat: 0, k: 20, params: { delta: 1 }, valBCA: 0.6, testBCA: 0.8 }),
      rec({ dataset: "A", repeat: 1, k: 10, params: { delta: 1 }, valBCA: 0.6, testBCA: 0.5 }),
      rec({ dataset: "A", repeat: 1, k: 20, params: { delta: 1 }, valBCA: 0.6, testBCA: 0.6 }),
      // Dataset B has only k = 10.
      rec({ dataset: "B", repeat: 0, k: 10, params: { delta: 1 }, valBCA: 0.6, testBCA: 0.3 }),
      rec({ dataset: "A", method: "pca", repeat: 0, k: 10, valBCA: 0.6, testBCA: 0.2 }),
    ];
    const curves = bcaVersusK(records);
    expect(curves.map((c) => c.method)).toEqual(["sdspcaan", "pca"]);
    const s = curves[0];
    expect(s.perDataset.A.map((p) => [p.k, p.n])).toEqual([
      [10, 2],
      [20, 2],
    ]);
    expect(s.perDataset.A[0].mean).toBeCloseTo(0.6, 15);
    expect(s.points.map((p) => p.k)).toEqual([10, 20]);
    expect(s.points[0].mean).toBeCloseTo((0.6 + 0.3) / 2, 15);
    expect(s.points[0].datasets).toEqual(["A", "B"]);
    expect(s.points[1].mean).toBeCloseTo(0.7, 15);
    expect(s.points[1].datasets).toEqual(["A"]);
    expect(bcaVersusK(records, { methods: ["pca"] })).toHaveLength(1);
  });
});

describe("commonCurves: every point of every curve averages the same data sets", () => {
  const datasets = ["Musk1", "Big", "Yale", "ORL"];

  it("keeps the data sets and k shared by every method, so a BCA flat in k gives flat curves", () => {
    const curves = bcaVersusK(flatInK(["Musk1", "Big"]));
    // The per-k average of today's Fig. 1 jumps with the data sets it includes.
    const naive = curves[0].points.map((p) => p.mean);
    expect(Math.max(...naive) - Math.min(...naive)).toBeGreaterThan(0.1);
    const common = commonCurves(curves, datasets);
    expect(common?.datasets).toEqual(["Musk1", "Big"]);
    expect(common?.curves.map((c) => c.method)).toEqual(["sdspcaan", "pca", "slnp"]);
    for (const c of common?.curves ?? []) {
      expect(c.points.map((p) => p.k)).toEqual([20, 30, 40]);
      for (const p of c.points) {
        expect(p.datasets).toEqual(["Musk1", "Big"]);
        expect(p.mean).toBeCloseTo(c.points[0].mean, 14);
      }
    }
    expect(common?.curves[0].points[0].mean).toBeCloseTo((0.95 + 0.65) / 2, 14);
    expect(common?.leftOutMethods).toEqual([]);
    expect(common?.leftOutDatasets).toEqual([
      { dataset: "Yale", missingMethods: ["slnp"], ks: [20, 30] },
      { dataset: "ORL", missingMethods: ["slnp"], ks: [40, 50] },
    ]);
    expect(common?.leftOutKs).toEqual([10, 50]);
  });

  it("leaves a method out when keeping it would cost more of the figure, and says where it has no results", () => {
    const common = commonCurves(bcaVersusK(flatInK(["Musk1"], [20, 30, 40])), datasets);
    // 2 methods x 2 k x 3 data sets = 12 points, as many as with Big only at 3 k;
    // the tie goes to more data sets.
    expect(common?.datasets).toEqual(["Musk1", "Big", "Yale"]);
    expect(common?.curves.map((c) => [c.method, c.points.map((p) => p.k)])).toEqual([
      ["sdspcaan", [20, 30]],
      ["pca", [20, 30]],
    ]);
    expect(common?.leftOutMethods).toEqual([{ method: "slnp", missing: ["Big", "Yale", "ORL"] }]);
    expect(common?.leftOutDatasets).toEqual([{ dataset: "ORL", missingMethods: [], ks: [40, 50] }]);
    expect(common?.leftOutKs).toEqual([40]);
  });

  it("is null when no method has a result", () => {
    expect(commonCurves([], datasets)).toBeNull();
  });
});

describe("sensitivitySurface", () => {
  // One dataset, one repeat; alpha = 1, beta and delta in {0.1, 1}, k in {10, 20}.
  const records: FitRecord[] = [];
  for (const k of [10, 20]) {
    for (const beta of [0.1, 1]) {
      for (const delta of [0.1, 1]) {
        // Validation is best at k = 20, beta = 1, delta = 1; at k = 10 every cell
        // validates a little worse except (0.1, 0.1), which is best at k = 10.
        const atTwenty = k === 20;
        const cornerAtTen = k === 10 && beta === 0.1 && delta === 0.1;
        const val =
          (atTwenty ? 0.5 : 0.4) +
          (beta === 1 && delta === 1 && atTwenty ? 0.3 : 0) +
          (cornerAtTen ? 0.2 : 0);
        records.push(
          rec({
            k,
            params: { alpha: 1, beta, delta },
            valBCA: val,
            testBCA: k / 100 + beta + delta / 10,
          }),
        );
      }
    }
  }

  it("'selected' holds k and alpha at the protocol's choice (k = 20)", () => {
    const s = sensitivitySurface(records, { x: "beta", y: "delta" });
    expect(s.xValues).toEqual([0.1, 1]);
    expect(s.yValues).toEqual([0.1, 1]);
    expect(s.cells.map((c) => [c.x, c.y])).toEqual([
      [0.1, 0.1],
      [0.1, 1],
      [1, 0.1],
      [1, 1],
    ]);
    expect(s.cells[0].mean).toBeCloseTo(0.2 + 0.1 + 0.01, 15);
    expect(s.cells[3].mean).toBeCloseTo(0.2 + 1 + 0.1, 15);
  });

  it("'best' re-selects k per cell by validation", () => {
    const s = sensitivitySurface(records, { x: "beta", y: "delta", others: "best" });
    // (0.1, 0.1) validates best at k = 10; the other cells at k = 20.
    expect(s.cells[0].mean).toBeCloseTo(0.1 + 0.1 + 0.01, 15);
    expect(s.cells[1].mean).toBeCloseTo(0.2 + 0.1 + 0.1, 15);
    expect(s.cells[0].valMean).toBeCloseTo(0.6, 15);
  });

  it("builds the three panels of Fig. 2 and validates the axes", () => {
    const panels = sensitivitySurfaces(records);
    expect(panels.map((p) => [p.x, p.y])).toEqual([
      ["beta", "delta"],
      ["alpha", "delta"],
      ["alpha", "beta"],
    ]);
    expect(panels[1].xValues).toEqual([1]);
    expect(() => sensitivitySurface(records, { x: "beta", y: "beta" })).toThrow(/different/);
    expect(() => sensitivitySurface(records, { x: "gamma" as never, y: "beta" })).toThrow(
      /'x' axis must be one of alpha, beta, delta, eta/,
    );
  });
});

describe("sensitivitySurface over several data sets: the same data sets in every cell", () => {
  // A test BCA that depends on the dataset only; the `lacking` datasets have no (1, 1) cell.
  function surfaceRecords(lacking: readonly string[], datasets = ["A", "B", "C"]): FitRecord[] {
    const out: FitRecord[] = [];
    const base: Record<string, number> = { A: 0.9, B: 0.3, C: 0.5, D: 0.7 };
    for (const dataset of datasets) {
      for (const beta of [0.1, 1]) {
        for (const delta of [0.1, 1]) {
          if (lacking.includes(dataset) && beta === 1 && delta === 1) continue;
          const params = { alpha: 1, beta, delta };
          out.push(rec({ dataset, k: 10, params, valBCA: 0.5, testBCA: base[dataset] }));
        }
      }
    }
    return out;
  }

  it("drops the cell a dataset lacks when that keeps more than dropping the dataset", () => {
    // Keeping A, B, C on 3 cells (9 values) beats A alone on 4 cells (4 values).
    const s = sensitivitySurface(surfaceRecords(["B", "C"]), {
      x: "beta",
      y: "delta",
      others: "best",
    });
    expect(s.datasets).toEqual(["A", "B", "C"]);
    expect(s.leftOutCells).toBe(1);
    expect(s.cells.map((c) => [c.x, c.y])).toEqual([
      [0.1, 0.1],
      [0.1, 1],
      [1, 0.1],
    ]);
    // The BCA does not depend on beta or delta: every cell is the same mean.
    for (const c of s.cells) expect(c.mean).toBeCloseTo((0.9 + 0.3 + 0.5) / 3, 14);
  });

  it("drops a dataset that lacks a cell when that keeps as much or more", () => {
    // A, C, D on 4 cells (12 values) against A, B, C, D on 3 cells (12): the cells stay.
    const s = sensitivitySurface(surfaceRecords(["B"], ["A", "B", "C", "D"]), {
      x: "beta",
      y: "delta",
      others: "best",
    });
    expect(s.datasets).toEqual(["A", "C", "D"]);
    expect(s.leftOutDatasets).toEqual(["B"]);
    expect(s.leftOutCells).toBe(0);
    expect(s.cells).toHaveLength(4);
    for (const c of s.cells) expect(c.mean).toBeCloseTo((0.9 + 0.5 + 0.7) / 3, 14);
  });
});

describe("sensitivityProfile (a grid that varies one parameter)", () => {
  // The authors' grid: alpha = beta = 1, delta in {0.1, 1, 10}; k in {10, 20}; two
  // datasets, two repeats of A and one of B.
  const records: FitRecord[] = [];
  const add = (dataset: string, repeat: number, best: { k: number; delta: number }) => {
    for (const k of [10, 20]) {
      for (const delta of [0.1, 1, 10]) {
        const chosen = k === best.k && delta === best.delta;
        records.push(
          rec({
            dataset,
            repeat,
            k,
            params: { alpha: 1, beta: 1, delta },
            valBCA: chosen ? 0.9 : 0.5 + delta / 100,
            testBCA: (repeat + 1) / 10 + k / 1000 + delta / 100,
          }),
        );
      }
    }
  };
  add("A", 0, { k: 20, delta: 1 });
  add("A", 1, { k: 10, delta: 10 });
  add("B", 0, { k: 10, delta: 0.1 });

  it("finds the parameters that vary", () => {
    expect(variedParams(records, "sdspcaan")).toEqual(["delta"]);
    expect(variedParams(records, "pca")).toEqual([]);
  });

  it("'selected' holds k at each repeat's choice and averages over repeats per dataset", () => {
    const p = sensitivityProfile(records, { param: "delta" });
    expect(p.values).toEqual([0.1, 1, 10]);
    expect(Object.keys(p.perDataset)).toEqual(["A", "B"]);
    const a = p.perDataset.A;
    expect(a.map((x) => [x.value, x.n])).toEqual([
      [0.1, 2],
      [1, 2],
      [10, 2],
    ]);
    // Repeat 0 at k = 20, repeat 1 at k = 10.
    const test = (repeat: number, k: number, delta: number) =>
      (repeat + 1) / 10 + k / 1000 + delta / 100;
    expect(a[1].testMean).toBeCloseTo((test(0, 20, 1) + test(1, 10, 1)) / 2, 15);
    expect(a[1].testStd).toBeCloseTo(Math.abs(test(0, 20, 1) - test(1, 10, 1)) / Math.SQRT2, 15);
    // The chosen value's point is the selected fit's (val 0.9) averaged with the other repeat.
    expect(a[1].valMean).toBeCloseTo((0.9 + 0.51) / 2, 15);
    expect(p.perDataset.B.map((x) => x.testStd)).toEqual([0, 0, 0]);
  });

  it("'best' chooses k again at each value", () => {
    const p = sensitivityProfile(records, { param: "delta", others: "best", datasets: ["B"] });
    expect(Object.keys(p.perDataset)).toEqual(["B"]);
    // At delta = 1 and 10 both k validate alike (0.5 + delta / 100): ties go to the smaller k.
    expect(p.perDataset.B[2].testMean).toBeCloseTo(0.1 + 0.01 + 0.1, 15);
    expect(p.perDataset.B[0].valMean).toBeCloseTo(0.9, 15);
  });

  it("refuses a parameter that is not one and an unknown reading", () => {
    expect(() => sensitivityProfile(records, { param: "gamma" as never })).toThrow(
      /'param' axis must be one of alpha, beta, delta, eta/,
    );
    expect(() => sensitivityProfile(records, { param: "delta", others: "worst" as never })).toThrow(
      /"selected" or "best"/,
    );
  });
});
