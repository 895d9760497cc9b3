/**
 * The generated blocks of docs/reproduction.md, as lines, from what `report`
 * computes for a run (readRunReport: the selected fits, the Average row, the
 * statistics) and from the paper's Table IV. Pure functions: reading the runs is
 * scripts/reproduction.ts's job. Every number is computed by the project's own code
 * (protocol/selection.ts, reports/report.ts, reports/statistics.ts); here it is only
 * formatted.
 *
 * Conventions of the page: BCA in % with two decimals; Δ = ours − the paper's Table
 * IV, of the two-decimal mean as shown (as `report --compare-paper` computes it),
 * with a true minus sign; "--" where a method has no result; † on a cell whose run
 * misses planned fits there.
 */

import {
  PAPER_DATASETS,
  PAPER_METHODS,
  PAPER_TABLE_IV,
  PAPER_TABLE_IV_AVERAGE,
  type PaperCell,
  paperCell,
  paperDatasetName,
} from "../../packages/sdspcaan-cli/src/protocol/paperTable.js";
import type { FitRecord } from "../../packages/sdspcaan-cli/src/protocol/records.js";
import { mean } from "../../packages/sdspcaan-cli/src/protocol/stats.js";
import {
  cellCompleteness,
  columnCompleteness,
  comparesPaperAverage,
  isIncomplete,
  methodTitle,
  paperDatasetRank,
  pct,
  type ResultsSummary,
  summariseResults,
} from "../../packages/sdspcaan-cli/src/reports/report.js";
import type { RunReportContents } from "../../packages/sdspcaan-cli/src/reports/reportFiles.node.js";
import {
  BCA_TOLERANCE,
  compareOnDataset,
  formatPValue,
  type MethodStatistics,
  methodStatistics,
  type PairedComparison,
} from "../../packages/sdspcaan-cli/src/reports/statistics.js";
import {
  comparisonCell,
  formatStatistic,
} from "../../packages/sdspcaan-cli/src/reports/statisticsMarkdown.js";
import type { CellSummary, Completeness } from "../../packages/sdspcaan-cli/src/reports/summary.js";
import { markdownTable } from "./page.js";

/** The blocks of the page, in page order: what each is made from is in scripts/reproduction.ts. */
export const BLOCK_IDS = [
  "table4",
  "table4-paper",
  "how-close",
  "wilcoxon",
  "ranks",
  "paper-grid",
  "cost-authors",
  "cost",
] as const;
export type BlockId = (typeof BLOCK_IDS)[number];

/** Whether `id` names a block of the tool. */
export function isBlockId(id: string): id is BlockId {
  return (BLOCK_IDS as readonly string[]).includes(id);
}

/** What the blocks read of a run: `report`'s summary and statistics, and its lines. */
export type RunTables = Pick<
  RunReportContents,
  "summary" | "statistics" | "records" | "skipped" | "completeness"
>;

/** A signed difference with two decimals and a true minus sign ("+0.86", "−2.47"). */
export function signed(x: number): string {
  const s = x.toFixed(2);
  if (s.startsWith("-") && Number(s) !== 0) return `−${s.slice(1)}`;
  return `+${s.replace("-", "")}`;
}

/** Δ of a mean (a fraction) to a published cell (in %): of the mean as shown, to two decimals. */
export function shownDelta(ours: number, paper: PaperCell): number {
  return Math.round((Number(pct(ours)) - paper.mean) * 100) / 100;
}

/** "1,234". */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** "a", "a and b", "a, b and c". */
export function listText(items: readonly string[]): string {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** Greedy line breaking at `width` characters, as the page's prose is wrapped. */
export function wrap(text: string, width = 90): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line === "") line = word;
    else if (line.length + 1 + word.length <= width) line += ` ${word}`;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line !== "") lines.push(line);
  return lines;
}

/**
 * A method's column title in the Table IV blocks: its display name, with "(PCA
 * scores)" when the run fitted it on principal-component scores (SLNP under the
 * `authors` grid records `pcaDimensions` in its unit options).
 */
export function columnTitle(method: string, records: readonly FitRecord[]): string {
  const onScores = records.some(
    (r) => r.method === method && r.unitOptions?.pcaDimensions !== undefined,
  );
  return onScores ? `${methodTitle(method)} (PCA scores)` : methodTitle(method);
}

/** "77.00 ± 3.23 (−2.47)", "--", with † when the cell misses planned fits. */
function meanStdCell(
  value: { mean: number; std: number } | null | undefined,
  paper: PaperCell | null | undefined,
  incomplete: boolean,
): string {
  if (value === null || value === undefined) return incomplete ? "-- †" : "--";
  const core = `${pct(value.mean)} ± ${pct(value.std)}${incomplete ? " †" : ""}`;
  return paper ? `${core} (${signed(shownDelta(value.mean, paper))})` : core;
}

/** The completeness sentence above the table, wrapped as the page's prose. */
export function completenessLines(c: Completeness | string | null): string[] {
  if (c === null) return ["Completeness: not known (the run has no settings.json)."];
  if (typeof c === "string") return wrap(`Completeness: not known (${c})`);
  if (c.done < c.planned) {
    const share = Math.min((100 * c.done) / c.planned, 99.9).toFixed(1);
    return wrap(
      `Completeness: ${count(c.done)} of ${count(c.planned)} planned fits (${share} %); the cells marked † miss planned fits, so their selection is not final.`,
    );
  }
  return wrap(
    `Completeness: ${count(c.done)} of ${count(c.planned)} planned fits (\`report\` marks cells missing fits with †).`,
  );
}

/** Block `table4`: the completeness line and the 10-repeat table, mean ± std (Δ). */
export function table4Block(run: RunTables): string[] {
  const { summary, records } = run;
  const header = ["Dataset", ...summary.methods.map((m) => columnTitle(m, records))];
  const rows = summary.datasets.map((d) => [
    d,
    ...summary.methods.map((m) =>
      meanStdCell(
        summary.cells[d][m],
        paperCell(d, m),
        isIncomplete(cellCompleteness(summary, d, m)),
      ),
    ),
  ]);
  const compare = comparesPaperAverage(summary.datasets);
  rows.push([
    "Average",
    ...summary.methods.map((m) =>
      meanStdCell(
        summary.average[m],
        compare ? PAPER_TABLE_IV_AVERAGE[m] : undefined,
        isIncomplete(columnCompleteness(summary, m)),
      ),
    ),
  ]);
  return [...completenessLines(summary.completeness), "", ...markdownTable(header, rows)];
}

/** Block `table4-paper`: the paper's Table IV as transcribed in protocol/paperTable.ts. */
export function paperTableBlock(): string[] {
  const cell = (c: PaperCell | null | undefined) =>
    c ? `${c.mean.toFixed(2)} ± ${c.std.toFixed(2)}` : "--";
  const rows = PAPER_DATASETS.map((d) => [
    d,
    ...PAPER_METHODS.map((m) => cell(PAPER_TABLE_IV[d][m])),
  ]);
  rows.push(["Average", ...PAPER_METHODS.map((m) => cell(PAPER_TABLE_IV_AVERAGE[m]))]);
  return markdownTable(["Dataset", ...PAPER_METHODS.map(methodTitle)], rows);
}

/** One cell's distance to the paper, as shown. */
export interface PaperDistance {
  readonly dataset: string;
  readonly method: string;
  /** Δ in percentage points, rounded as shown. */
  readonly delta: number;
  readonly paperStd: number;
}

/** Every cell of the table with a published value, in table order. */
export function paperDistances(summary: ResultsSummary): PaperDistance[] {
  const out: PaperDistance[] = [];
  for (const d of summary.datasets) {
    for (const m of summary.methods) {
      const ours = summary.cells[d][m];
      const paper = paperCell(d, m);
      if (!ours || !paper) continue;
      out.push({ dataset: d, method: m, delta: shownDelta(ours.mean, paper), paperStd: paper.std });
    }
  }
  return out;
}

/** Block `how-close`: per method, how far its cells are from the paper's. */
export function howCloseBlock(run: RunTables): string[] {
  const { summary, records } = run;
  const distances = paperDistances(summary);
  const rows: string[][] = [];
  for (const m of summary.methods) {
    const mine = distances.filter((x) => x.method === m);
    if (mine.length === 0) continue;
    let worst = mine[0];
    for (const x of mine) if (Math.abs(x.delta) > Math.abs(worst.delta)) worst = x;
    rows.push([
      columnTitle(m, records),
      String(mine.length),
      mean(mine.map((x) => Math.abs(x.delta))).toFixed(2),
      String(mine.filter((x) => Math.abs(x.delta) <= x.paperStd).length),
      String(mine.filter((x) => Math.abs(x.delta) <= 2 * x.paperStd).length),
      `${worst.dataset} ${signed(worst.delta)}`,
    ]);
  }
  return markdownTable(
    ["method", "datasets", "mean abs(Δ)", "within the paper's std", "within 2 std", "largest Δ"],
    rows,
  );
}

/** The cells more than 2 of the paper's standard deviations from it (for the prose). */
export function farCells(run: RunTables): string[] {
  return paperDistances(run.summary)
    .filter((x) => Math.abs(x.delta) > 2 * x.paperStd)
    .map(
      (x) =>
        `${x.dataset} ${columnTitle(x.method, run.records)}: ${signed(x.delta)} (${(Math.abs(x.delta) / x.paperStd).toFixed(1)} std)`,
    );
}

/** Block `wilcoxon`: per data set, each method against the reference (SDSPCAAN). */
export function wilcoxonBlock(run: RunTables): string[] {
  const { statistics } = run;
  const others = statistics.methods.filter((m) => m !== statistics.baseline);
  const rows = statistics.datasets.map((d) => [
    d,
    ...others.map((m) => comparisonCell(statistics.wilcoxon[d]?.[m])),
  ]);
  return markdownTable(["Data set", ...others.map(methodTitle)], rows);
}

/** `summary` restricted to some of its methods (the same cells and Average entries). */
function withMethods(summary: ResultsSummary, methods: readonly string[]): ResultsSummary {
  return { ...summary, methods: summary.methods.filter((m) => methods.includes(m)) };
}

function rankingRow(label: string, over: string, stats: MethodStatistics): string[] {
  const f = stats.friedman;
  if (f === null) return [label, over, "--", "--", "--", "--"];
  const order = [...stats.methods].sort(
    (a, b) =>
      f.averageRanks[a] - f.averageRanks[b] || stats.methods.indexOf(a) - stats.methods.indexOf(b),
  );
  const ranks = order.map((m) => `${methodTitle(m)} ${f.averageRanks[m].toFixed(2)}`).join(", ");
  const t = f.test;
  const friedman = t ? `${formatStatistic(t.chiSquare)} (${formatPValue(t.pValue)})` : "--";
  const id = t?.imanDavenport;
  const iman =
    id === undefined
      ? "--"
      : id.statistic === null
        ? "∞ (--)"
        : `${formatStatistic(id.statistic)} (${formatPValue(id.pValue as number)})`;
  const nem = f.nemenyi;
  const cd =
    nem === null
      ? "--"
      : nem.criticalDifference === null
        ? "none"
        : `${nem.criticalDifference.toFixed(2)}${nem.method === "exact" ? " (exact)" : ""}`;
  return [label, over, ranks, friedman, iman, cd];
}

/**
 * Block `ranks`: the Friedman test and the Nemenyi critical difference over the data
 * sets. When some method lacks a data set (SLNP), two rankings: the methods that ran
 * everywhere over every data set, and every method over the data sets where all ran.
 */
export function ranksBlock(run: RunTables): string[] {
  const { summary, statistics } = run;
  const rows: string[][] = [];
  const missing = new Set(statistics.leftOut.flatMap((l) => l.missing));
  const everywhere = summary.methods.filter((m) => !missing.has(m));
  if (missing.size > 0 && everywhere.length >= 2) {
    const stats = methodStatistics(withMethods(summary, everywhere));
    rows.push(
      rankingRow(
        `${everywhere.length} methods (no ${listText([...missing].map(methodTitle))})`,
        String(summary.datasets.length),
        stats,
      ),
    );
  }
  const used = statistics.friedman?.datasets.length ?? 0;
  const leftOut = statistics.leftOut.map((l) => l.dataset);
  rows.push(
    rankingRow(
      `all ${summary.methods.length} methods`,
      leftOut.length > 0 ? `${used} (no ${leftOut.join(", ")})` : String(used),
      statistics,
    ),
  );
  return markdownTable(
    [
      "ranking",
      "N data sets",
      "average ranks (1 = best)",
      "Friedman χ² (p)",
      "Iman-Davenport F (p)",
      "Nemenyi CD",
    ],
    rows,
  );
}

/** A `paper`-grid run against the `authors`-grid subset of its own fits, per cell. */
export interface GridComparison {
  readonly dataset: string;
  readonly method: string;
  /** The selection among the fits with a = b = 1 (the `authors` grid). */
  readonly authors: CellSummary;
  /** The selection among all the run's fits (the `paper` grid). */
  readonly paper: CellSummary;
  /** Per paired repeat, `paper` − `authors` test BCA in percentage points. */
  readonly differences: readonly number[];
  readonly better: number;
  readonly worse: number;
  readonly tied: number;
  /** The Wilcoxon test of `paper` against `authors`, paired by repeat (statistics.ts). */
  readonly test: PairedComparison;
}

/** Whether a fit is on the `authors` grid's a = b = 1 (methods without a and b: every fit). */
export function onAuthorsGrid(r: FitRecord): boolean {
  return (r.params.alpha ?? 1) === 1 && (r.params.beta ?? 1) === 1;
}

/** gridComparisons of each run, made once (the paper-grid block and the check both need them). */
const comparisonsOf = new WeakMap<RunTables, readonly GridComparison[]>();

/**
 * The `authors` grid is a subset of the `paper` grid (a = b = 1, the same c), so a
 * `paper`-grid run holds both: the selection among its a = b = 1 fits is the
 * `authors` cell on the same splits, paired by repeat with the `paper` cell.
 */
export function gridComparisons(run: RunTables): readonly GridComparison[] {
  let made = comparisonsOf.get(run);
  if (made === undefined) {
    made = compareGrids(run);
    comparisonsOf.set(run, made);
  }
  return made;
}

function compareGrids(run: RunTables): GridComparison[] {
  const { summary } = run;
  const authors = summariseResults(run.records.filter(onAuthorsGrid), {
    grid: "authors",
    datasets: summary.datasets,
    methods: summary.methods,
  });
  const out: GridComparison[] = [];
  for (const d of summary.datasets) {
    for (const m of summary.methods) {
      const p = summary.cells[d][m];
      const a = authors.cells[d]?.[m];
      if (!p || !a) continue;
      const byRepeat = new Map(a.chosen.map((f) => [f.repeat, f.testBCA]));
      const pairs = p.chosen
        .filter((f) => byRepeat.has(f.repeat))
        .map((f) => [f.testBCA, byRepeat.get(f.repeat) as number]);
      const diff = pairs.map(([x, y]) => x - y);
      out.push({
        dataset: d,
        method: m,
        authors: a,
        paper: p,
        differences: diff.map((x) => 100 * x),
        better: diff.filter((x) => x > BCA_TOLERANCE).length,
        worse: diff.filter((x) => x < -BCA_TOLERANCE).length,
        tied: diff.filter((x) => Math.abs(x) <= BCA_TOLERANCE).length,
        test: compareOnDataset(a, p),
      });
    }
  }
  return out;
}

/** The paper's data sets without a `paper`-grid run, as a sentence after a blank line ([] when none). */
function absentSentence(absent: readonly string[]): string[] {
  if (absent.length === 0) return [];
  const verb = absent.length === 1 ? "has" : "have";
  return ["", ...wrap(`${listText(absent)} ${verb} no \`paper\`-grid run in the repository.`)];
}

/** The paper's data sets that none of the runs covers, in the paper's order. */
export function absentDatasets(runs: readonly RunTables[]): string[] {
  const covered = new Set(
    runs.flatMap((r) => r.summary.datasets.map((d) => paperDatasetName(d) ?? d)),
  );
  return PAPER_DATASETS.filter((d) => !covered.has(d));
}

/** Rows in the paper's data set order, then the others by name. */
function paperOrder(a: string, b: string): number {
  return paperDatasetRank(a) - paperDatasetRank(b) || a.localeCompare(b);
}

/** Block `paper-grid`: each `paper`-grid run against its `authors` subset. */
export function paperGridBlock(runs: readonly RunTables[]): string[] {
  const rows = runs
    .flatMap((run) => gridComparisons(run).map((c) => ({ c, summary: run.summary })))
    .sort((x, y) => paperOrder(x.c.dataset, y.c.dataset));
  const table = markdownTable(
    ["data set", "method", "`authors`", "`paper`", "paired"],
    rows.map(({ c, summary }) => {
      const paper = paperCell(c.dataset, c.method);
      const t = c.test.test;
      return [
        c.dataset,
        methodTitle(c.method),
        meanStdCell(c.authors, paper, false),
        meanStdCell(c.paper, paper, isIncomplete(cellCompleteness(summary, c.dataset, c.method))),
        t === null
          ? "--"
          : `${signed(mean(c.differences))}, ${c.better}/${c.worse}/${c.tied}, ${formatPValue(t.pValue)}`,
      ];
    }),
  );
  return [...table, ...absentSentence(absentDatasets(runs))];
}

/**
 * Where the `authors` cells selected from a `paper`-grid run differ, as shown, from
 * the 10-repeat run's (the page says they are the same).
 */
export function authorsCellMismatches(
  paperRuns: readonly RunTables[],
  table4: RunTables,
): string[] {
  const out: string[] = [];
  for (const run of paperRuns) {
    for (const c of gridComparisons(run)) {
      const other = table4.summary.cells[c.dataset]?.[c.method];
      if (other === undefined) continue;
      const a = meanStdCell(c.authors, undefined, false);
      const b = meanStdCell(other, undefined, false);
      if (a !== b) {
        out.push(
          `${c.dataset} ${methodTitle(c.method)}: the \`authors\` subset of the \`paper\`-grid run gives ${a}, the 10-repeat run ${b}`,
        );
      }
    }
  }
  return out;
}

/** Fitting time of some fits: as recorded, and as each grid point's median over its repeats. */
export interface FitTime {
  readonly fits: number;
  /** The recorded fit times summed (ms). */
  readonly recordedMs: number;
  /**
   * Each grid point's (data set, method, k, params) median fit time over the repeats
   * times its fits, summed (ms): a fit slowed by something else (the run paused, the
   * machine busy) moves the sum, not the median.
   */
  readonly medianMs: number;
}

/** The recorded fit times of `records` summed (ms). */
function recordedMs(records: readonly FitRecord[]): number {
  return records.reduce((a, r) => a + r.fitMs, 0);
}

/** The fitting time of `records` (see FitTime). */
export function fitTime(records: readonly FitRecord[]): FitTime {
  const points = new Map<string, number[]>();
  for (const r of records) {
    const key = JSON.stringify([r.dataset, r.method, r.k, r.params]);
    const list = points.get(key);
    if (list) list.push(r.fitMs);
    else points.set(key, [r.fitMs]);
  }
  let medianMs = 0;
  for (const times of points.values()) {
    const sorted = [...times].sort((x, y) => x - y);
    const h = sorted.length >> 1;
    const median = sorted.length % 2 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
    medianMs += median * times.length;
  }
  return {
    fits: records.length,
    recordedMs: recordedMs(records),
    medianMs,
  };
}

/** A duration: minutes below an hour, else hours; one decimal below 10, else none. */
export function duration(ms: number): string {
  const minutes = ms / 60_000;
  const [value, unit] = minutes < 60 ? [minutes, "min"] : [minutes / 60, "h"];
  return `${value < 10 ? value.toFixed(1) : value.toFixed(0)} ${unit}`;
}

function repeatsOf(records: readonly FitRecord[]): number {
  return new Set(records.map((r) => r.repeat)).size;
}

/**
 * Block `cost-authors`: the 10-repeat run's fitting time and its slowest cells (with
 * how many of their fits stopped at the iteration limit).
 */
export function costAuthorsBlock(run: RunTables): string[] {
  const { summary, records, skipped, completeness } = run;
  const hours = recordedMs(records) / 3.6e6;
  const cells = summary.datasets.flatMap((d) =>
    summary.methods.flatMap((m) => {
      const c = summary.cells[d][m];
      return c ? [c] : [];
    }),
  );
  cells.sort((a, b) => b.totalFitMs - a.totalFitMs);
  const slowest = cells.slice(0, 2).map((c) => {
    const limit = records.filter(
      (r) => r.dataset === c.dataset && r.method === c.method && r.stopReason === "max-iterations",
    ).length;
    const stops =
      limit > 0
        ? `; ${count(limit)} of its ${count(c.nFits)} fits stop at the iteration limit`
        : "";
    return `${methodTitle(c.method)} on ${c.dataset} (${duration(c.totalFitMs)}${stops})`;
  });
  const unfinished =
    typeof completeness !== "string" && completeness.done < completeness.planned
      ? ` (unfinished: ${count(completeness.done)} of ${count(completeness.planned)} planned fits)`
      : "";
  const refused = skipped.length > 0 ? ` and ${count(skipped.length)} refused configurations` : "";
  return wrap(
    `The 10-repeat \`authors\` run${unfinished} is ${count(records.length)} fits${refused}: ${hours.toFixed(1)} hours of fitting time summed over the fits (each one's wall time in its worker, as recorded in \`results.jsonl\`). The slowest cells: ${listText(slowest)}.`,
  );
}

/**
 * Block `cost`: per `paper`-grid run and data set, the fits of one repeat, their time
 * measured from the grid points' medians, 25 times the 10-repeat `authors` run's
 * recorded time of the same methods, and ten repeats.
 */
export function costBlock(paperRuns: readonly RunTables[], table4: RunTables): string[] {
  const rows: Array<{ dataset: string; cells: string[] }> = [];
  for (const run of paperRuns) {
    for (const d of run.summary.datasets) {
      const mine = run.records.filter((r) => r.dataset === d);
      if (mine.length === 0) continue;
      const repeats = repeatsOf(mine);
      const methods = new Set(mine.map((r) => r.method));
      const authors = table4.records.filter((r) => r.dataset === d && methods.has(r.method));
      const perRepeat = fitTime(mine).medianMs / repeats;
      rows.push({
        dataset: d,
        cells: [
          d,
          count(Math.round(mine.length / repeats)),
          duration(perRepeat),
          authors.length === 0 ? "--" : duration((25 * recordedMs(authors)) / repeatsOf(authors)),
          duration(10 * perRepeat),
        ],
      });
    }
  }
  rows.sort((a, b) => paperOrder(a.dataset, b.dataset));
  const table = markdownTable(
    ["data set", "fits per repeat", "measured (`paper` grid)", "25 x `authors`", "10 repeats"],
    rows.map((r) => r.cells),
  );
  return [...table, ...absentSentence(absentDatasets(paperRuns))];
}
