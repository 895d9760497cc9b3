import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fitRecordToLine } from "#internal/protocol/records.js";
import { writeRunReports } from "#internal/reports/reportFiles.node.js";
import { RESULTS_FILE } from "#internal/runner/resultsFile.node.js";
import { removeDir, tempDir } from "../helpers/runs.js";
import { fixtureRecords } from "../helpers/statisticsRecords.js";
import { PNG_SIGNATURE, pngSize, svgTexts } from "../helpers/svg.js";
import { expectClose, statisticsFixture } from "../stats/fixture.js";

const expected = statisticsFixture.results;
let root: string;

/** A results directory holding the synthetic results of the fixture (no settings.json). */
function resultsDir(name: string, records = fixtureRecords()): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const text = records.map(fitRecordToLine).join("");
  writeFileSync(join(dir, RESULTS_FILE), text, { flag: "w" });
  return dir;
}

beforeAll(() => {
  root = tempDir("statistics");
});
afterAll(() => removeDir(root));

describe("report writes the statistics of a results directory", () => {
  it("statistics.md, the critical-difference figure and the summary.json section", async () => {
    const dir = resultsDir("full");
    const report = await writeRunReports(dir);

    const md = readFileSync(join(dir, "statistics.md"), "utf8");
    expect(md).toContain(
      "| Alpha | 8 | **0.0078** (worse) | **0.0078** (worse) |  | **0.016** (worse) |",
    );
    expect(md).toContain("Critical-difference diagram: figures/critical-difference.svg and .png");
    expect(report.files).toContain(join(dir, "statistics.md"));

    const svg = readFileSync(join(dir, "figures", "critical-difference.svg"), "utf8");
    const texts = svgTexts(svg);
    for (const label of ["SDSPCAAN (1.38)", "LDA (2.00)", "PCA (2.75)", "Baseline (3.88)"]) {
      expect(texts).toContain(label);
    }
    // N = 4 data sets, 4 methods: the exact critical difference.
    expect(texts).toContain("CD = 2.38");
    const png = readFileSync(join(dir, "figures", "critical-difference.png"));
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(pngSize(png).width).toBeGreaterThan(400);

    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    const s = summary.statistics;
    expect(s.baseline).toBe("sdspcaan");
    expect(s.wilcoxon.Gamma.lda.test.pValue).toBe(expected.wilcoxon.Gamma.lda.pValue);
    expect(s.friedman.averageRanks).toEqual(expected.averageRanks);
    expectClose(s.friedman.test.pValue, expected.pValue, 1e-12, "Friedman p");
    expect(s.friedman.nemenyi.groups).toEqual(expected.groups);
    expect(s.leftOut).toEqual([{ dataset: "Epsilon", missing: ["lda"] }]);

    expect(report.statisticsSummary).toMatch(
      /^Statistics \(statistics\.md\), per data set against SDSPCAAN:/,
    );
    // The only warning: the embedding needs settings.json, which this directory lacks.
    expect(report.warnings.filter((w) => !w.startsWith("embedding"))).toEqual([]);
  });

  it("with --no-figures writes statistics.md without naming a figure, and takes a baseline", async () => {
    const dir = resultsDir("tables");
    const report = await writeRunReports(dir, { figures: false, baselineMethod: "pca" });
    expect(existsSync(join(dir, "figures"))).toBe(false);
    const md = readFileSync(join(dir, "statistics.md"), "utf8");
    expect(md).toContain("against PCA (chosen with --baseline-method)");
    expect(md).not.toContain("Critical-difference diagram");
    expect(report.warnings).toEqual([]);
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary.statistics.baseline).toBe("pca");
  });

  it("with one data set draws no diagram, without a warning, and says why in statistics.md", async () => {
    const dir = resultsDir("one", fixtureRecords({ datasets: ["Alpha"] }));
    const report = await writeRunReports(dir);
    expect(existsSync(join(dir, "figures", "critical-difference.svg"))).toBe(false);
    expect(report.warnings.filter((w) => w.startsWith("critical"))).toEqual([]);
    expect(readFileSync(join(dir, "statistics.md"), "utf8")).toMatch(
      /The Friedman test needs at least 2 data sets/,
    );
  });
});
