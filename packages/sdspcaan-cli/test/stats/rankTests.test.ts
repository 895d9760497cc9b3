import fc from "fast-check";
import { ValidationError } from "sdspcaan";
import { describe, expect, it } from "vitest";
import { normalTails } from "#internal/stats/distributions.js";
import {
  averageRanks,
  criticalDifferenceGroups,
  friedmanTest,
  NEMENYI_MAX_TREATMENTS,
  NEMENYI_Q_05,
  nemenyiCriticalDifference,
  rankWithTies,
  wilcoxonMinimumP,
  wilcoxonSignedRank,
} from "#internal/stats/rankTests.js";
import { expectClose, statisticsFixture } from "./fixture.js";

describe("rankWithTies", () => {
  it("gives tied values the average of their ranks (scipy rankdata 'average')", () => {
    const r = rankWithTies([0.3, 0.1, 0.3, 0.2, 0.3, 0.1]);
    expect(Array.from(r.ranks)).toEqual([5, 1.5, 5, 3, 5, 1.5]);
    expect([...r.tieSizes].sort()).toEqual([2, 3]);
  });

  it("with a tolerance, treats round-off differences as ties", () => {
    const a = 0.9 - 0.8; // 0.09999999999999998
    const b = 0.8 - 0.7; // 0.10000000000000009
    expect(a).not.toBe(b);
    expect(Array.from(averageRanks([a, b, 0.05]))).toEqual([2, 3, 1]);
    expect(Array.from(averageRanks([a, b, 0.05], 1e-12))).toEqual([2.5, 2.5, 1]);
  });

  it("ranks always sum to n(n + 1)/2", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 30 }),
        (v) => {
          const sum = averageRanks(v).reduce((a, r) => a + r, 0);
          expect(sum).toBe((v.length * (v.length + 1)) / 2);
        },
      ),
    );
  });
});

describe("wilcoxonSignedRank against SciPy", () => {
  for (const c of statisticsFixture.wilcoxon) {
    it(`${c.name} (${c.method})`, () => {
      const r = wilcoxonSignedRank(c.x, c.y, { method: c.method });
      expect(r.method).toBe(c.method);
      expect(r.nonZero).toBe(c.nonZero);
      expect(r.zeros).toBe(c.x.length - c.nonZero);
      expect(r.ties).toBe(c.ties);
      expect(r.rankSumPositive).toBe(c.rankSumPositive);
      expect(r.rankSumNegative).toBe(c.rankSumNegative);
      expect(r.statistic).toBe(c.statistic);
      if (c.method === "exact") {
        // Multiples of 2^-n, computed exactly on both sides.
        expect(r.pValue).toBe(c.pValue);
      } else {
        expectClose(r.pValue, c.pValue, 1e-12, c.name);
      }
    });
  }

  it("'auto' is exact up to 50 non-zero differences and asymptotic above", () => {
    for (const c of statisticsFixture.wilcoxon) {
      const auto = wilcoxonSignedRank(c.x, c.y);
      expect(auto.method).toBe(c.nonZero <= 50 ? "exact" : "asymptotic");
      if (c.nonZero > 50)
        expect(auto.pValue).toBe(wilcoxonSignedRank(c.x, c.y, { method: "asymptotic" }).pValue);
    }
    expect(statisticsFixture.wilcoxon.some((c) => c.nonZero > 50)).toBe(true);
  });
});

describe("wilcoxonSignedRank properties", () => {
  it("exact without ties: all one sign gives 2 / 2^n", () => {
    for (const n of [1, 3, 5, 6, 10]) {
      const x = Array.from({ length: n }, (_, i) => i + 1);
      const r = wilcoxonSignedRank(x, new Array(n).fill(0));
      expect(r.pValue).toBe(wilcoxonMinimumP(n));
    }
    expect(wilcoxonMinimumP(5)).toBeGreaterThan(0.05);
    expect(wilcoxonMinimumP(6)).toBeLessThan(0.05);
  });

  it("drops zero differences, and every difference zero gives p = 1", () => {
    const r = wilcoxonSignedRank([0.5, 0.5, 0.7], [0.5, 0.5, 0.7]);
    expect(r).toMatchObject({ nonZero: 0, zeros: 3, pValue: 1, rankSumPositive: 0 });
    const withZeros = wilcoxonSignedRank([1, 2, 3, 5, 5], [0, 0, 0, 5, 5]);
    const without = wilcoxonSignedRank([1, 2, 3], [0, 0, 0]);
    expect(withZeros.pValue).toBe(without.pValue);
    expect(withZeros.zeros).toBe(2);
  });

  it("is symmetric: swapping x and y swaps the rank sums and keeps p", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 12 })), {
          minLength: 1,
          maxLength: 60,
        }),
        fc.constantFrom("auto" as const, "exact" as const, "asymptotic" as const),
        (pairs, method) => {
          const x = pairs.map((p) => p[0] / 16);
          const y = pairs.map((p) => p[1] / 16);
          const a = wilcoxonSignedRank(x, y, { method });
          const b = wilcoxonSignedRank(y, x, { method });
          expect(b.pValue).toBe(a.pValue);
          expect(b.rankSumPositive).toBe(a.rankSumNegative);
          expect(a.pValue).toBeGreaterThan(0);
          expect(a.pValue).toBeLessThanOrEqual(1);
        },
      ),
    );
  });

  it("exact and asymptotic agree closely for a large sample without ties", () => {
    const n = 45;
    const x = Array.from({ length: n }, (_, i) => ((i * 37) % 101) / 10 + (i % 3 === 0 ? 1 : 0));
    const y = Array.from({ length: n }, (_, i) => ((i * 53) % 97) / 10 + 0.001 * i);
    const exact = wilcoxonSignedRank(x, y, { method: "exact" });
    const approx = wilcoxonSignedRank(x, y, { method: "asymptotic" });
    expect(exact.ties).toBe(false);
    expect(Math.abs(exact.pValue - approx.pValue)).toBeLessThan(0.01);
  });

  it("the continuity correction stops at zero instead of crossing it", () => {
    // n = 2 with ranks 1 and 2: T+ = 1 is 0.5 from the mean 1.5, so |T - mu| - 1/2 = 0.
    const r = wilcoxonSignedRank([2, 0], [0, 1], { method: "asymptotic" });
    expect(r.rankSumPositive).toBe(2);
    const s = wilcoxonSignedRank([1, 0], [0, 2], { method: "asymptotic" });
    expect(s.rankSumPositive).toBe(1);
    expect(s.z).toBe(0);
    expect(s.pValue).toBe(1);
    expect(r.pValue).toBe(1);
    // Away from the centre: p = 2 (1 - Phi(z)).
    const t = wilcoxonSignedRank([1, 2, 3, 4, 5, 6], [0, 0, 0, 0, 0, 0], { method: "asymptotic" });
    const sigma = Math.sqrt((6 * 7 * 13) / 24);
    expect(t.z).toBeCloseTo((21 - 10.5 - 0.5) / sigma, 14);
    expect(t.pValue).toBeCloseTo(2 * normalTails(t.z as number).upper, 15);
  });

  it("refuses bad input, naming the argument", () => {
    expect(() => wilcoxonSignedRank([1, 2], [1])).toThrow(/same length/);
    expect(() => wilcoxonSignedRank([], [])).toThrow(/at least one pair/);
    expect(() => wilcoxonSignedRank([1, Number.NaN], [1, 2])).toThrow(
      /'x\[1\]' must be a finite number/,
    );
    expect(() => wilcoxonSignedRank([1], [2], { method: "bogus" as "exact" })).toThrow(
      ValidationError,
    );
    expect(() => wilcoxonSignedRank([1], [2], { tolerance: -1 })).toThrow(/'tolerance'/);
    const big = Array.from({ length: 401 }, (_, i) => i + 1);
    expect(() => wilcoxonSignedRank(big, new Array(401).fill(0), { method: "exact" })).toThrow(
      /at most 400/,
    );
  });
});

describe("friedmanTest against SciPy", () => {
  for (const c of statisticsFixture.friedman) {
    it(c.name, () => {
      const r = friedmanTest(c.scores);
      expect(r.ranks.map((row) => Array.from(row))).toEqual(c.ranks);
      expect(Array.from(r.averageRanks)).toEqual(c.averageRanks);
      expectClose(r.chiSquare, c.chiSquare, 1e-13, `${c.name}: chi-square`);
      expectClose(r.pValue, c.pValue, 1e-12, `${c.name}: p`);
      expect(r.imanDavenport.df1).toBe(c.imanDavenport.df1);
      expect(r.imanDavenport.df2).toBe(c.imanDavenport.df2);
      expectClose(r.imanDavenport.statistic, c.imanDavenport.statistic, 1e-12, `${c.name}: F`);
      expectClose(r.imanDavenport.pValue, c.imanDavenport.pValue, 1e-11, `${c.name}: F p`);
    });
  }

  it("lower is better when asked: the ranks reverse", () => {
    const c = statisticsFixture.friedman[1];
    const r = friedmanTest(
      c.scores.map((row) => row.map((v) => -v)),
      { higherIsBetter: false },
    );
    expect(Array.from(r.averageRanks)).toEqual(c.averageRanks);
  });

  it("identical rankings in every block: chi-square N(k - 1), F infinite and its p undefined", () => {
    const rows = Array.from({ length: 5 }, (_, i) => [0.9 + i / 100, 0.8, 0.7, 0.6]);
    const r = friedmanTest(rows);
    expect(r.chiSquare).toBeCloseTo(5 * 3, 12);
    expect(r.imanDavenport.statistic).toBe(Number.POSITIVE_INFINITY);
    expect(r.imanDavenport.pValue).toBeNaN();
  });

  it("all treatments tied in every block: nothing to rank, p = 1", () => {
    const r = friedmanTest([
      [0.5, 0.5, 0.5],
      [0.7, 0.7, 0.7],
    ]);
    expect(r).toMatchObject({ chiSquare: 0, pValue: 1 });
    expect(r.imanDavenport.pValue).toBe(1);
  });

  it("refuses fewer than 2 blocks or treatments and ragged rows", () => {
    expect(() => friedmanTest([[1, 2, 3]])).toThrow(/at least 2 blocks/);
    expect(() => friedmanTest([[1], [2]])).toThrow(/at least 2 treatments/);
    expect(() =>
      friedmanTest([
        [1, 2],
        [1, 2, 3],
      ]),
    ).toThrow(/'scores\[1\]' has 3 scores/);
  });
});

describe("Nemenyi critical difference", () => {
  it("the q table matches scipy's studentized range / sqrt(2) for k = 2..20", () => {
    for (const { k, q } of statisticsFixture.nemenyi) {
      expect(Math.abs(NEMENYI_Q_05[k] - q)).toBeLessThan(1e-6);
    }
    expect(NEMENYI_MAX_TREATMENTS).toBe(20);
  });

  it("agrees with Demšar's Table 5(a) (k = 2..10, three decimals, not all rounded the same way)", () => {
    const demsar = [1.96, 2.343, 2.569, 2.728, 2.85, 2.949, 3.031, 3.102, 3.164];
    demsar.forEach((q, i) => {
      expect(Math.abs(NEMENYI_Q_05[i + 2] - q)).toBeLessThan(1e-3);
    });
  });

  it("q for two treatments is the normal z_0.975", () => {
    expect(normalTails(NEMENYI_Q_05[2]).upper).toBeCloseTo(0.025, 7);
  });

  it("CD = q sqrt(k (k + 1) / (6 N))", () => {
    const { q, cd } = nemenyiCriticalDifference(8, 9);
    expect(q).toBe(NEMENYI_Q_05[8]);
    expect(cd).toBeCloseTo(q * Math.sqrt((8 * 9) / 54), 14);
    expect(() => nemenyiCriticalDifference(21, 9)).toThrow(/\[2, 20\]/);
    expect(() => nemenyiCriticalDifference(4, 0)).toThrow(/'N'/);
  });

  it("groups are the maximal runs of average ranks less than CD apart", () => {
    // Sorted: a 1.0, b 1.5, c 2.9, d 3.2, e 4.0
    const ranks = [2.9, 1.0, 4.0, 1.5, 3.2];
    const groups = criticalDifferenceGroups(ranks, 2.0);
    // From a: 1.0 .. 2.9 (3.2 is 2.2 away); from b: 1.5 .. 3.2; from c: 2.9 .. 4.0.
    expect(groups).toEqual([
      [1, 3, 0],
      [3, 0, 4],
      [0, 4, 2],
    ]);
    // A difference of exactly CD is significant: no group.
    expect(criticalDifferenceGroups([1, 2], 1)).toEqual([]);
    expect(criticalDifferenceGroups([1, 2], 1.0000001)).toEqual([[0, 1]]);
  });
});
