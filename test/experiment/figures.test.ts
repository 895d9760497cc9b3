import { describe, expect, it } from "vitest";
import {
  bcaVersusK,
  sensitivitySurface,
  sensitivitySurfaces,
} from "../../src/experiment/figures.js";
import type { FitRecord } from "../../src/experiment/records.js";
import { rec } from "./makeRecord.js";

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
