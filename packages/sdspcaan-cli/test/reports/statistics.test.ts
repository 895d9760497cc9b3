import { readFileSync } from "node:fs";
import { ValidationError } from "sdspcaan";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import type { FitRecord } from "#internal/protocol/records.js";
import { buildReports, summariseResults } from "#internal/reports/report.js";
import {
  chooseBaseline,
  formatPValue,
  type MethodStatistics,
  methodStatistics,
} from "#internal/reports/statistics.js";
import {
  statisticsConsoleSummary,
  statisticsMarkdown,
} from "#internal/reports/statisticsMarkdown.js";
import { rec } from "../helpers/makeRecord.js";
import { fixtureRecords } from "../helpers/statisticsRecords.js";
import { expectClose, statisticsFixture } from "../stats/fixture.js";

const expected = statisticsFixture.results;
/** scripts/fixtures/stats_small_samples.py: the exact tests on the same synthetic results. */
const exactExpected = JSON.parse(
  readFileSync(fixtureFile("experiment/statistics-small-samples.json"), "utf8"),
).syntheticResults as {
  exactPValue: number;
  exactCriticalDifference: number;
  exactCriticalDifferenceLevel: number;
  asymptoticCriticalDifference: number;
};

/** Records with one repeat per (dataset, method) at the given test BCA, rows = data sets. */
function tableRecords(methods: readonly string[], rows: readonly number[][]): FitRecord[] {
  return rows.flatMap((row, i) =>
    methods.map((method, j) =>
      rec({ dataset: `D${i + 1}`, method, repeat: 0, k: 4, valBCA: 0.5, testBCA: row[j] }),
    ),
  );
}

function stats(
  records = fixtureRecords(),
  options: { baselineMethod?: string } = {},
): MethodStatistics {
  return methodStatistics(summariseResults(records), options);
}

describe("methodStatistics on the synthetic results (SciPy reference)", () => {
  const s = stats();

  it("compares every method with SDSPCAAN per data set: p, direction, identical", () => {
    expect(s.baseline).toBe("sdspcaan");
    expect(s.baselineChosenBy).toBe("default");
    for (const [dataset, row] of Object.entries(expected.wilcoxon)) {
      for (const [method, want] of Object.entries(row)) {
        const got = s.wilcoxon[dataset][method];
        expect(got, `${dataset} ${method}`).not.toBeNull();
        // BCA values are multiples of 1/64: the exact p-values agree to the bit.
        expect(got?.test?.pValue, `${dataset} ${method}`).toBe(want.pValue);
        expect(got?.test?.nonZero).toBe(want.nonZero);
        expect(got?.direction).toBe(want.direction);
        expect(got?.significant).toBe(want.pValue < 0.05);
        expect(got?.identical).toBe(want.nonZero === 0);
        expect(got?.pairedRepeats).toBe(expected.repeats);
      }
    }
    expect(s.wilcoxon.Epsilon.lda).toBeNull();
    expect(s.wilcoxon.Alpha.sdspcaan).toBeUndefined();
  });

  it("ranks the mean BCA per data set and runs Friedman, Iman-Davenport and Nemenyi", () => {
    const f = s.friedman;
    expect(f).not.toBeNull();
    expect(f?.datasets).toEqual(expected.friedmanDatasets);
    expect(s.leftOut).toEqual([{ dataset: "Epsilon", missing: ["lda"] }]);
    expect(f?.ranks).toEqual(expected.ranks);
    expect(f?.averageRanks).toEqual(expected.averageRanks);
    expectClose(f?.test?.chiSquare as number, expected.chiSquare, 1e-13, "chi-square");
    expectClose(f?.test?.pValue as number, expected.pValue, 1e-12, "Friedman p");
    const id = f?.test?.imanDavenport;
    expectClose(id?.statistic as number, expected.imanDavenport.statistic, 1e-12, "F");
    expectClose(id?.pValue as number, expected.imanDavenport.pValue, 1e-11, "F p");
    expect([id?.df1, id?.df2]).toEqual([expected.imanDavenport.df1, expected.imanDavenport.df2]);
    expect(Math.abs((f?.nemenyi?.q as number) - expected.q)).toBeLessThan(1e-6);
    expectClose(
      f?.nemenyi?.asymptoticCriticalDifference as number,
      expected.criticalDifference,
      1e-6,
      "CD",
    );
    // N = 4, k = 4: small enough to enumerate, so the decision and the CD are exact.
    expect(f?.test?.exact?.by).toBe("enumeration");
    expectClose(f?.test?.exact?.pValue as number, exactExpected.exactPValue, 1e-12, "exact p");
    expect(f?.test?.decision).toEqual({
      by: "exact",
      pValue: f?.test?.exact?.pValue,
      rejected: true,
    });
    expect(f?.nemenyi?.method).toBe("exact");
    expectClose(
      f?.nemenyi?.criticalDifference as number,
      exactExpected.exactCriticalDifference,
      1e-12,
      "exact CD",
    );
    expectClose(
      f?.nemenyi?.level as number,
      exactExpected.exactCriticalDifferenceLevel,
      1e-12,
      "CD level",
    );
    // The exact CD (2.375) separates the same pairs as the asymptotic one (2.35) here.
    expect(f?.nemenyi?.groups).toEqual(expected.groups);
  });

  it("is plain JSON (summary.json round-trips it)", () => {
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    const { summary, statistics } = buildReports(fixtureRecords());
    expect(summary.statistics).toBe(statistics);
    expect(statistics).toEqual(s);
  });

  it("writes statistics.md: p-value table with markers and directions, ranks, tests, groups", () => {
    const md = statisticsMarkdown(s, "figures/critical-difference.svg and .png");
    expect(md).toContain("## Per data set: Wilcoxon signed-rank test against SDSPCAAN");
    expect(md).toContain("| Data set | Repeats | Baseline | PCA | SDSPCAAN (reference) | LDA |");
    expect(md).toContain(
      "| Alpha | 8 | **0.0078** (worse) | **0.0078** (worse) |  | **0.016** (worse) |",
    );
    expect(md).toContain(
      "| Beta | 8 | **0.0078** (worse) | **0.016** (worse) |  | **0.016** (better) |",
    );
    expect(md).toContain("| Delta | 8 | **0.0078** (worse) | 1 (identical) |  | 0.28 |");
    expect(md).toContain("| Epsilon | 8 | **0.0078** (worse) | **0.016** (worse) |  | -- |");
    // Epsilon has no LDA, so the ranks below the Wilcoxon rows come from the other four,
    // and the row says so rather than sitting under Epsilon as if it counted.
    expect(md).toContain(
      "| Average rank (Alpha, Beta, Gamma, Delta only) | | 3.88 | 2.75 | 1.38 | 2.00 |",
    );
    expect(md).not.toContain("| Average rank | | 3.88");
    expect(md).toContain("Left out: Epsilon (no LDA).");
    expect(md).toContain("| Gamma | 1 | 2 | 3.5 | 3.5 |");
    expect(md).toMatch(
      /Friedman test .*: χ²_F = 8\.76 with 3 df \(corrected for tied ranks\), p = 0\.033 \(chi-square approximation\)\./,
    );
    expect(md).toMatch(
      /Iman-Davenport variant: F_F = 8\.12 with 3 and 9 df, p = 0\.0063 \(F approximation\)\./,
    );
    expect(md).toMatch(/Exact p-value \(all 4!\^4 orders .*\): p = 0\.013\./);
    expect(md).toContain("is rejected at α = 0.05 (exact p, p = 0.013)");
    expect(md).toContain("Nemenyi critical difference, exact (α = 0.05, k = 4, N = 4): CD = 2.38,");
    expect(md).toContain("(P = 0.019)");
    expect(md).toContain(
      "(The asymptotic formula, q·√(k(k+1)/(6N)) = 2.569 · √(4·5/(6·4)) = 2.35,",
    );
    expect(md).toContain(
      "{SDSPCAAN 1.38, LDA 2.00, PCA 2.75}; {LDA 2.00, PCA 2.75, Baseline 3.88}",
    );
    expect(md).toContain("figures/critical-difference.svg");
    // N = 4 < 10: the approximations are flagged, and the exact distribution used.
    expect(md).toMatch(/do not hold .* enumerated over all 4!\^4 orders/);
  });

  it("prints a short console summary", () => {
    const text = statisticsConsoleSummary(s);
    expect(text.split("\n")).toHaveLength(4);
    expect(text).toContain("against SDSPCAAN");
    expect(text).toContain("Baseline worse on 5, better on 0 of 5");
    expect(text).toContain("LDA worse on 1, better on 1 of 4");
    expect(text).toContain("SDSPCAAN 1.38, LDA 2.00, PCA 2.75, Baseline 3.88");
    expect(text).toMatch(
      /Friedman χ² = 8\.76, p = 0\.033; Iman-Davenport F = 8\.12, p = 0\.0063; exact p = 0\.013; rejected at α = 0\.05; Nemenyi CD \(exact\) = 2\.38\./,
    );
  });
});

describe("few data sets or methods: no rejection from a degenerate formula", () => {
  it("2 data sets x 2 methods in perfect agreement: exact p = 0.5, not rejected, no CD", () => {
    const s = stats(
      tableRecords(
        ["sdspcaan", "pca"],
        [
          [0.9, 0.8],
          [0.7, 0.6],
        ],
      ),
    );
    const t = s.friedman?.test;
    expect(t?.imanDavenport.statistic).toBeNull();
    expect(t?.imanDavenport.pValue).toBeNull();
    expect(t?.exact).toEqual({ pValue: 0.5, by: "enumeration" });
    expect(t?.decision).toEqual({ by: "exact", pValue: 0.5, rejected: false });
    expect(s.friedman?.nemenyi).toMatchObject({
      method: "exact",
      criticalDifference: null,
      groups: [["sdspcaan", "pca"]],
    });
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    const md = statisticsMarkdown(s);
    expect(md).toContain("the F approximation gives no p-value there");
    expect(md).toContain("p = 0.50.");
    expect(md).toContain("is not rejected at α = 0.05 (exact p, p = 0.50)");
    expect(md).not.toMatch(/is rejected|p = 0[^.]/);
    expect(md).toContain("no pair of methods can differ significantly");
    expect(md).toContain("{SDSPCAAN 1.00, PCA 2.00}");
    const text = statisticsConsoleSummary(s);
    expect(text).toContain("Iman-Davenport F = ∞, no p-value; exact p = 0.50; not rejected");
    expect(text).toContain("Nemenyi (exact): no difference can be significant.");
  });

  it("4 data sets x 2 methods in perfect agreement: the asymptotic CD (0.98) would split them; the exact test does not", () => {
    const s = stats(
      tableRecords(
        ["sdspcaan", "pca"],
        [
          [0.9, 0.8],
          [0.7, 0.6],
          [0.5, 0.4],
          [0.8, 0.75],
        ],
      ),
    );
    // The exact sign test: 2 of the 2^4 sign patterns are this extreme.
    expect(s.friedman?.test?.decision).toEqual({ by: "exact", pValue: 0.125, rejected: false });
    expect(s.friedman?.nemenyi?.asymptoticCriticalDifference).toBeLessThan(1);
    expect(s.friedman?.nemenyi?.criticalDifference).toBeNull();
    expect(s.friedman?.nemenyi?.groups).toEqual([["sdspcaan", "pca"]]);
  });

  it("6 data sets x 2 methods in perfect agreement: exact p = 1/32, rejected, exact CD 1", () => {
    const rows = Array.from({ length: 6 }, (_, i) => [0.9 - i / 20, 0.85 - i / 20]);
    const s = stats(tableRecords(["sdspcaan", "pca"], rows));
    expect(s.friedman?.test?.decision).toEqual({ by: "exact", pValue: 1 / 32, rejected: true });
    expect(s.friedman?.nemenyi).toMatchObject({ criticalDifference: 1, level: 1 / 32, groups: [] });
  });
});

describe("the reference method", () => {
  it("can be any method of the table, by name or title, case-insensitively", () => {
    const s = stats(fixtureRecords(), { baselineMethod: "LDA" });
    expect(s.baseline).toBe("lda");
    expect(s.baselineChosenBy).toBe("option");
    expect(s.wilcoxon.Beta.sdspcaan?.direction).toBe("worse");
    expect(s.wilcoxon.Epsilon.sdspcaan).toBeNull();
    expect(statisticsMarkdown(s)).toContain("against LDA (chosen with --baseline-method)");
  });

  it("refuses a method that is not in the table, listing those that are", () => {
    const summary = summariseResults(fixtureRecords());
    expect(() => chooseBaseline(summary, "slnp")).toThrow(ValidationError);
    expect(() => chooseBaseline(summary, "slnp")).toThrow(
      /"slnp" is not among the methods of this report \(baseline, pca, sdspcaan, lda\)/,
    );
  });

  it("without SDSPCAAN is the method with the best Average row", () => {
    const s = stats(fixtureRecords({ drop: ["sdspcaan"] }));
    // LDA lacks Epsilon, so it has no Average; PCA's is the best of the rest.
    expect(s.baseline).toBe("pca");
    expect(s.baselineChosenBy).toBe("best-average");
    expect(statisticsMarkdown(s)).toContain("SDSPCAAN is not in this report");
  });
});

describe("when a test cannot be run", () => {
  it("with a single repeat, says the Wilcoxon test cannot be run (the ranks still can)", () => {
    const s = stats(fixtureRecords({ repeats: 1 }));
    const c = s.wilcoxon.Alpha.pca;
    expect(c?.test).toBeNull();
    expect(c?.reason).toMatch(/1 paired repeat: a test over repeats needs at least 2/);
    expect(s.notes.join(" ")).toMatch(
      /single repeat per method: the Wilcoxon test over repeats cannot be run/,
    );
    expect(statisticsMarkdown(s)).toContain(
      "| Alpha | 1 | n/a (1 repeat) | n/a (1 repeat) |  | n/a (1 repeat) |",
    );
    expect(s.friedman?.test).not.toBeNull();
    expect(statisticsConsoleSummary(s)).toContain("Wilcoxon signed-rank over repeats: not run");
  });

  it("with fewer than 6 differing repeats, notes that p < 0.05 is out of reach", () => {
    const s = stats(fixtureRecords({ repeats: 5 }));
    const fewest = Math.min(
      ...Object.values(s.wilcoxon).flatMap((row) =>
        Object.values(row).flatMap((c) => (c?.test && !c.identical ? [c.test.nonZero] : [])),
      ),
    );
    expect(fewest).toBeLessThanOrEqual(5);
    expect(s.notes.join(" ")).toContain(
      `the exact Wilcoxon test cannot reach p < 0.05: its smallest two-sided p-value with n differing repeats is 2/2^n (${formatPValue(2 ** (1 - fewest))} for n = ${fewest}, the fewest here)`,
    );
    for (const row of Object.values(s.wilcoxon)) {
      for (const c of Object.values(row))
        if (c?.test) expect(c.test.pValue).toBeGreaterThanOrEqual(0.0625);
    }
  });

  it("with a single method, runs nothing and says why", () => {
    const s = stats(fixtureRecords({ drop: ["baseline", "pca", "lda"] }));
    expect(s.baseline).toBeNull();
    expect(s.friedman).toBeNull();
    expect(s.notes[0]).toMatch(/single method \(SDSPCAAN\), so there is nothing to compare/);
    expect(statisticsConsoleSummary(s)).toMatch(/^Statistics: The table has a single method/);
    expect(statisticsMarkdown(s)).toContain("Not available (see the notes below).");
  });

  it("with one complete data set, ranks but runs no Friedman test", () => {
    const s = stats(fixtureRecords({ datasets: ["Alpha", "Epsilon"] }));
    expect(s.friedman?.datasets).toEqual(["Alpha"]);
    expect(s.friedman?.test).toBeNull();
    expect(s.friedman?.nemenyi).toBeNull();
    expect(s.notes.join(" ")).toMatch(
      /needs at least 2 data sets where every method has results; this report has 1 \(Alpha\)/,
    );
    expect(statisticsConsoleSummary(s)).toContain("Friedman test: not run");
  });

  it("with no complete data set, says the methods cannot be ranked", () => {
    const s = stats(
      fixtureRecords({ datasets: ["Epsilon"], drop: [] }).concat(
        fixtureRecords({ datasets: ["Alpha"], drop: ["baseline"] }),
      ),
    );
    expect(s.friedman).toBeNull();
    expect(s.notes.join(" ")).toMatch(/No data set has results for every method/);
  });
});

describe("formatPValue", () => {
  it("shows two significant digits, scientific below 0.001", () => {
    expect(formatPValue(0.0078125)).toBe("0.0078");
    expect(formatPValue(0.28125)).toBe("0.28");
    expect(formatPValue(1)).toBe("1");
    expect(formatPValue(2.5e-5)).toBe("2.5e-5");
    expect(formatPValue(0)).toBe("0");
  });
});
