/**
 * The rank tests where the asymptotic formulas fail: few data sets or methods,
 * perfect agreement, ties and zeros, against the SciPy values of
 * scripts/fixtures/stats_small_samples.py.
 */
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import {
  friedmanExact,
  friedmanTest,
  nemenyiCriticalDifference,
  wilcoxonSignedRank,
} from "#internal/stats/rankTests.js";
import { expectClose } from "./fixture.js";

interface SmallSamplesFixture {
  alpha: number;
  friedman: Array<{
    name: string;
    scores: number[][];
    chiSquare: number;
    asymptoticPValue: number;
    imanDavenport: { statistic: number | null; pValue: number | null };
    exactPValue: number;
    exactCriticalDifference: number | null;
    exactCriticalDifferenceLevel: number | null;
    asymptoticCriticalDifference: number;
  }>;
  wilcoxon: Array<{ name: string; x: number[]; y: number[]; pValue: number }>;
}

const fixture = JSON.parse(
  readFileSync(fixtureFile("experiment/statistics-small-samples.json"), "utf8"),
) as SmallSamplesFixture;

describe("friedmanExact against SciPy's permutation_test", () => {
  for (const c of fixture.friedman) {
    it(c.name, () => {
      const exact = friedmanExact(c.scores);
      expect(exact).not.toBeNull();
      expectClose(exact?.pValue as number, c.exactPValue, 1e-12, `${c.name}: exact p`);
      if (c.exactCriticalDifference === null) {
        expect(exact?.criticalDifference).toBeNull();
      } else {
        expectClose(
          exact?.criticalDifference as number,
          c.exactCriticalDifference,
          1e-9,
          `${c.name}: exact CD`,
        );
        expectClose(
          exact?.criticalDifferenceLevel as number,
          c.exactCriticalDifferenceLevel as number,
          1e-12,
          `${c.name}: level of the exact CD`,
        );
      }
      const asymptotic = friedmanTest(c.scores);
      expectClose(asymptotic.chiSquare, c.chiSquare, 1e-12, `${c.name}: chi-square`);
      if (c.imanDavenport.pValue === null) expect(asymptotic.imanDavenport.pValue).toBeNaN();
      else expectClose(asymptotic.imanDavenport.pValue, c.imanDavenport.pValue, 1e-11, "F p");
      const k = c.scores[0].length;
      expectClose(
        nemenyiCriticalDifference(k, c.scores.length).cd,
        c.asymptoticCriticalDifference,
        1e-6,
        `${c.name}: asymptotic CD`,
      );
    });
  }

  it("2 data sets x 2 methods in perfect agreement: p = 0.5, no difference can be significant", () => {
    const exact = friedmanExact([
      [0.9, 0.8],
      [0.7, 0.6],
    ]);
    expect(exact).toEqual({ pValue: 0.5, criticalDifference: null, criticalDifferenceLevel: null });
  });

  it("with 2 methods it is the two-sided sign test over the data sets without a tie", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(-1, 0, 1), { minLength: 2, maxLength: 12 }), (signs) => {
        const scores = signs.map((s) => [0.5 + s / 4, 0.5]);
        const exact = friedmanExact(scores);
        const n = signs.filter((s) => s !== 0).length;
        const wins = signs.filter((s) => s > 0).length;
        // P(|W - n/2| >= |wins - n/2|) for W ~ Binomial(n, 1/2).
        let p = 0;
        let choose = 1;
        for (let w = 0; w <= n; w++) {
          if (Math.abs(w - n / 2) >= Math.abs(wins - n / 2) - 1e-9) p += choose / 2 ** n;
          choose = (choose * (n - w)) / (w + 1);
        }
        expect(Math.abs((exact?.pValue as number) - Math.min(1, p))).toBeLessThan(1e-12);
      }),
      { numRuns: 60 },
    );
  });

  it("gives up (null) beyond its work budget instead of running for ever", () => {
    const scores = Array.from({ length: 12 }, (_, i) =>
      Array.from({ length: 7 }, (_, j) => ((i * 7 + j * 3) % 11) / 11),
    );
    expect(friedmanExact(scores, { maxWork: 1000 })).toBeNull();
  });
});

describe("wilcoxonSignedRank at its small-sample edges, against SciPy", () => {
  for (const c of fixture.wilcoxon) {
    it(c.name, () => {
      expectClose(wilcoxonSignedRank(c.x, c.y).pValue, c.pValue, 1e-12, c.name);
    });
  }
});
