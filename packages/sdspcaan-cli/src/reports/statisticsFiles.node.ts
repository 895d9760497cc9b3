/**
 * The statistics files of a results directory: `statistics.md` and the
 * critical-difference diagram `figures/critical-difference` (SVG and PNG), from the
 * statistics `buildReports` computed (statistics.ts).
 */

import { join } from "node:path";
import { SdspcaanError } from "sdspcaan";
import { writeAtomically } from "../io/atomicWrite.js";
import { criticalDifferenceDiagram } from "../plot/criticalDifference.js";
import { writeFigure } from "../plot/render.js";
import { methodTitle } from "./report.js";
import type { MethodStatistics } from "./statistics.js";
import { statisticsConsoleSummary, statisticsMarkdown } from "./statisticsMarkdown.js";

export const STATISTICS_FILE = "statistics.md";
export const CRITICAL_DIFFERENCE_FIGURE = "critical-difference";

/** The critical-difference diagram of a run, or null when there is no Nemenyi test. */
export function criticalDifferenceSpec(
  statistics: MethodStatistics,
): ReturnType<typeof criticalDifferenceDiagram> | null {
  const friedman = statistics.friedman;
  if (friedman === null || friedman.nemenyi === null) return null;
  return criticalDifferenceDiagram(
    statistics.methods.map((m) => ({
      method: methodTitle(m),
      averageRank: friedman.averageRanks[m],
    })),
    friedman.nemenyi.criticalDifference,
    {
      title: "Critical difference diagram",
      subtitle: criticalDifferenceSubtitle(statistics),
    },
  );
}

/**
 * What the diagram ranks over: the data sets (named, up to a handful), the ones left
 * out for lack of some method's results, and which Nemenyi test draws the bars.
 */
export function criticalDifferenceSubtitle(statistics: MethodStatistics): string {
  const friedman = statistics.friedman;
  if (friedman === null || friedman.nemenyi === null) return "";
  const N = friedman.datasets.length;
  const over = N <= 6 ? `${N} data sets (${friedman.datasets.join(", ")})` : `${N} data sets`;
  const leftOut =
    statistics.leftOut.length === 0
      ? ""
      : `; left out: ${statistics.leftOut.map((l) => `${l.dataset} (no ${l.missing.map(methodTitle).join(", ")})`).join(", ")}`;
  const test = friedman.nemenyi.method === "exact" ? "exact Nemenyi-type test" : "Nemenyi test";
  return `Average ranks over ${over}, 1 = best${leftOut}; a bar joins methods the ${test} (α = ${statistics.alpha}) does not separate`;
}

/**
 * Writes statistics.md into `dir` and, when `figures`, the critical-difference
 * diagram into `dir/figures`. Returns the files written, why the figure could not be
 * rendered (if so), and a short summary for the console.
 */
export async function writeStatisticsFiles(
  dir: string,
  statistics: MethodStatistics,
  figures: boolean,
): Promise<{ files: string[]; warnings: string[]; consoleSummary: string }> {
  const files: string[] = [];
  const warnings: string[] = [];
  let figure: string | undefined;
  if (figures) {
    // Without a Nemenyi test (one data set, one method, ...) there is no diagram to
    // draw; statistics.md says why, so that is not a warning.
    const spec = criticalDifferenceSpec(statistics);
    if (spec !== null) {
      try {
        const written = await writeFigure(spec, join(dir, "figures", CRITICAL_DIFFERENCE_FIGURE));
        files.push(written.svg, written.png);
        figure = `figures/${CRITICAL_DIFFERENCE_FIGURE}.svg and .png`;
      } catch (err) {
        if (!(err instanceof SdspcaanError)) throw err;
        warnings.push(`critical difference: ${err.message}`);
      }
    }
  }
  const path = join(dir, STATISTICS_FILE);
  writeAtomically(path, statisticsMarkdown(statistics, figure));
  files.push(path);
  return { files, warnings, consoleSummary: statisticsConsoleSummary(statistics) };
}
