import { readFileSync } from "node:fs";
import { ValidationError } from "sdspcaan";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { kGrid, kGridFilter } from "#internal/protocol/kGrid.js";

interface Fixture {
  validKs: Array<{ nTrain: number; d: number; c: number; ks: number[] }>;
}

describe("kGrid", () => {
  it("filters {10, ..., 100} to c <= k <= min(n_train, d): Yale -> [20, 30]", () => {
    expect(kGrid({ nTrain: 33, d: 1024, nClasses: 15 })).toEqual([20, 30]);
    expect(kGrid({ nTrain: 95, d: 166, nClasses: 2 })).toEqual([
      10, 20, 30, 40, 50, 60, 70, 80, 90,
    ]);
  });

  it("agrees with the reference's valid_ks wherever that is non-empty", () => {
    const fixture = JSON.parse(
      readFileSync(fixtureFile("experiment/knn_bca.json"), "utf8"),
    ) as Fixture;
    for (const c of fixture.validKs) {
      expect(kGrid({ nTrain: c.nTrain, d: c.d, nClasses: c.c })).toEqual(c.ks);
    }
  });

  it("falls back to the valid k nearest to the grid when the grid misses the range", () => {
    // Range [12, 18] between 10 and 20: both ends are 2 away, the smaller wins.
    expect(kGrid({ nTrain: 18, d: 500, nClasses: 12 })).toEqual([12]);
    // Range [13, 19]: 19 is 1 away from 20.
    expect(kGrid({ nTrain: 19, d: 500, nClasses: 13 })).toEqual([19]);
    // Whole grid above the range (n_train = 8): the largest valid k.
    expect(kGrid({ nTrain: 8, d: 500, nClasses: 2 })).toEqual([8]);
    // Whole grid below the range (c = 120): the smallest valid k.
    expect(kGrid({ nTrain: 400, d: 1024, nClasses: 120 })).toEqual([120]);
  });

  it("applies a method's own bounds", () => {
    // LDA: k <= c - 1, with its own lower bound 1.
    expect(kGrid({ nTrain: 80, d: 1024, nClasses: 40, minK: 1, maxK: 39 })).toEqual([10, 20, 30]);
    expect(kGrid({ nTrain: 95, d: 166, nClasses: 2, minK: 1, maxK: 1 })).toEqual([1]);
    // A data-span method limited to the rank.
    expect(kGrid({ nTrain: 80, d: 1024, nClasses: 10, maxK: 45 })).toEqual([10, 20, 30, 40]);
    expect(kGrid({ nTrain: 80, d: 1024, nClasses: 10, grid: [5, 50, 50, 500] })).toEqual([50]);
  });

  it("throws, explaining the bounds, when no k is valid", () => {
    try {
      kGrid({ nTrain: 33, d: 1024, nClasses: 40 });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as Error).message).toMatch(
        /k must be at least the number of classes c = 40 and at most min\(n_train = 33, d = 1024\) = 33/,
      );
    }
    expect(() => kGrid({ nTrain: 0, d: 5, nClasses: 2 })).toThrow(
      /'nTrain' parameter of kGrid must be an integer in \[1, inf\)\. Got 0/,
    );
    expect(() => kGrid({ nTrain: 10, d: 5, nClasses: 2, grid: [] })).toThrow(/non-empty/);
  });

  it("says which grid values it dropped, and when it substituted the nearest valid k", () => {
    const yale = kGridFilter({ nTrain: 33, d: 1024, nClasses: 15 });
    expect(yale).toMatchObject({ ks: [20, 30], lo: 15, hi: 33, substituted: false });
    expect(yale.below).toEqual([10]);
    expect(yale.above).toEqual([40, 50, 60, 70, 80, 90, 100]);
    expect(yale.range).toBe(
      "[15, 33] (k >= the number of classes c = 15, k <= min(n_train = 33, d = 1024))",
    );
    const far = kGridFilter({ nTrain: 33, d: 1024, nClasses: 15, grid: [500, 500] });
    expect(far).toMatchObject({ ks: [33], below: [], above: [500], substituted: true });
    const lda = kGridFilter({ nTrain: 95, d: 166, nClasses: 2, minK: 1, maxK: 1 });
    expect(lda).toMatchObject({ ks: [1], substituted: true });
    expect(lda.range).toMatch(/the method's maxK = 1/);
  });
});
