/**
 * Reports of a protocol run, built from fit records (SPEC 5): `table.md` in the
 * layout of the paper's Table IV, `table.csv`, and `summary.json`. Everything is
 * returned as strings or plain objects; writing files is the runner's job.
 *
 * Numbers: a cell is the mean and standard deviation (divisor n - 1, as the paper)
 * over repeats of the test BCA at the selected (k, params), in percent with two
 * decimals. The Average row takes, for each repeat, the mean over datasets of that
 * repeat's test BCA, then the mean and standard deviation of those per-repeat
 * averages (the authors' `std(mean(tmp, 1), [], 3)`). A method without results on
 * some dataset of the table (SLNP on Palm, Yale, ORL) shows "--" there and in the
 * Average row, as in the paper.
 *
 * Completeness: given what the run planned (`ReportOptions.completeness`), a run
 * with fits still missing is reported as such, because its selection is over a
 * partial grid: a line at the top says how many of the planned fits are done, each
 * incomplete cell (and the Average of its method) is marked "†" with a list of
 * "done / planned" per cell below the table, table.csv gains the columns
 * fits_done and fits_planned, and summary.json a "completeness" object. The
 * reports of a complete run carry no marks.
 *
 * Warnings: under the table, the selected fits that gave each warning (stopped at
 * maxIter, at the lambda cap, ...) are counted per cell (warningCounts.ts), and each
 * cell of summary.json holds the counts.
 */

import { ValidationError } from "sdspcaan";
import { protocolOrder } from "sdspcaan/methods";
import { plural } from "../plural.js";
import { displayNameOf } from "../protocol/grids.js";
import {
  PAPER_DATASETS,
  PAPER_TABLE_IV_AVERAGE,
  type PaperCell,
  paperCell,
  paperDatasetName,
} from "../protocol/paperTable.js";
import { canonicalParams, type FitIdentity, type FitRecord, fitKey } from "../protocol/records.js";
import { dedupeRecords, type SelectionOptions, selectAll } from "../protocol/selection.js";
import { groupBy, mean, sampleStd } from "../protocol/stats.js";
import { markdownText } from "./markdown.js";
import { type MethodStatistics, methodStatistics, type StatisticsOptions } from "./statistics.js";
import type {
  AverageSummary,
  CellCompleteness,
  CellSummary,
  Completeness,
  ResultsSummary,
} from "./summary.js";
import { countWarnings, warningLines } from "./warningCounts.js";

export interface ReportOptions extends SelectionOptions, StatisticsOptions {
  /**
   * Row order. Default: the datasets of the records, those of the paper first in
   * the paper's order, the others in order of first appearance.
   */
  readonly datasets?: readonly string[];
  /**
   * Column order. Default: the methods of the records in the paper's column order
   * (Baseline, PCA, JPCDA, SDSPCA, SLNP, SPCAN, SDSPCA-LPP, SDSPCAAN), then PCAN,
   * LDA, LPP, then any other name in order of first appearance.
   */
  readonly methods?: readonly string[];
  /** Put the paper's Table IV value and our difference beside each cell. */
  readonly comparePaper?: boolean;
  /**
   * How much of the planned run the records cover (see `completenessOf`); a string
   * says why it is not known. Absent: the records are taken as the whole run.
   */
  readonly completeness?: Completeness | string;
}

/**
 * Counts, per (dataset, method), the planned fits and those done: `done` holds the
 * fitKey of every fit with a result line (a fit or a refused configuration).
 */
export function completenessOf(
  planned: Iterable<FitIdentity>,
  done: ReadonlySet<string>,
): Completeness {
  const perRepeat = new Map<string, { planned: number; done: number }>();
  let total = 0;
  let finished = 0;
  for (const fit of planned) {
    const key = JSON.stringify([fit.dataset, fit.method, fit.repeat]);
    const cur = perRepeat.get(key) ?? { planned: 0, done: 0 };
    cur.planned++;
    total++;
    if (done.has(fitKey(fit))) {
      cur.done++;
      finished++;
    }
    perRepeat.set(key, cur);
  }
  const cells: Record<string, Record<string, CellCompleteness>> = {};
  for (const [key, counts] of perRepeat) {
    const [dataset, method] = JSON.parse(key) as [string, string, number];
    cells[dataset] ??= {};
    const cur = cells[dataset][method] ?? { planned: 0, done: 0, repeats: 0, repeatsComplete: 0 };
    cells[dataset][method] = {
      planned: cur.planned + counts.planned,
      done: cur.done + counts.done,
      repeats: cur.repeats + 1,
      repeatsComplete: cur.repeatsComplete + (counts.done === counts.planned ? 1 : 0),
    };
  }
  return { planned: total, done: finished, cells };
}

/** Whether a cell (or a column's sum) misses planned fits; not when its completeness is unknown. */
export function isIncomplete(c: CellCompleteness | undefined): boolean {
  return c !== undefined && c.done < c.planned;
}

export type {
  AverageSummary,
  CellCompleteness,
  CellSummary,
  ChosenFit,
  Completeness,
  ResultsSummary,
} from "./summary.js";

/** A cell or an Average entry: a mean and its spread over repeats. */
type MeanOverRepeats = CellSummary | AverageSummary;

/** Over how many repeats a cell or an Average entry is. */
function repeatCount(v: MeanOverRepeats): number {
  return "n" in v ? v.n : v.repeats.length;
}

/** A data set's place in the paper's order of rows; every other data set comes after them. */
export function paperDatasetRank(dataset: string): number {
  const p = paperDatasetName(dataset);
  return p === null ? PAPER_DATASETS.length : PAPER_DATASETS.indexOf(p);
}

function defaultDatasets(records: readonly FitRecord[]): string[] {
  const seen = [...new Set(records.map((r) => r.dataset))];
  return seen
    .map((d, i) => ({ d, i, r: paperDatasetRank(d) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.d);
}

function defaultMethods(records: readonly FitRecord[]): string[] {
  const seen = [...new Set(records.map((r) => r.method))];
  const order = protocolOrder();
  const rank = (m: string): number => {
    const i = order.indexOf(m);
    return i < 0 ? order.length : i;
  };
  return seen
    .map((m, i) => ({ m, i, r: rank(m) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.m);
}

function checkNames(name: string, list: unknown): readonly string[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list) || list.some((v) => typeof v !== "string")) {
    throw new ValidationError(name, `'${name}' must be an array of names.`);
  }
  if (new Set(list).size !== list.length) {
    throw new ValidationError(name, `'${name}' must not repeat a name.`);
  }
  return list as string[];
}

/**
 * Selects the fit of every (dataset, repeat, method) and summarises each (dataset,
 * method) and each method's Average. Only the datasets and methods of the table
 * (options.datasets / options.methods) enter it.
 */
export function summariseResults(
  records: readonly FitRecord[],
  options: ReportOptions = {},
): ResultsSummary {
  checkConflicts(records);
  const all = dedupeRecords(records);
  const datasets = checkNames("datasets", options.datasets) ?? defaultDatasets(all);
  const methods = checkNames("methods", options.methods) ?? defaultMethods(all);
  const dSet = new Set(datasets);
  const mSet = new Set(methods);
  const used = all.filter((r) => dSet.has(r.dataset) && mSet.has(r.method));
  if (used.length === 0 || datasets.length === 0 || methods.length === 0) {
    throw new ValidationError(
      "records",
      `No fit records for the requested datasets and methods (${plural(records.length, "record")} given); there is nothing to report.`,
    );
  }
  const selections = groupBy(selectAll(used, options), (s) =>
    JSON.stringify([s.dataset, s.method]),
  );
  const fits = groupBy(used, (r) => JSON.stringify([r.dataset, r.method]));
  const cells: Record<string, Record<string, CellSummary>> = {};
  for (const dataset of datasets) {
    cells[dataset] = {};
    for (const method of methods) {
      const key = JSON.stringify([dataset, method]);
      const sel = selections.get(key);
      if (sel === undefined) continue;
      const groupFits = fits.get(key) as FitRecord[];
      const tests = sel.map((s) => s.testBCA);
      cells[dataset][method] = {
        dataset,
        method,
        n: sel.length,
        mean: mean(tests),
        std: sampleStd(tests),
        valMean: mean(sel.map((s) => s.valBCA)),
        chosen: sel.map((s) => ({
          repeat: s.repeat,
          k: s.k,
          params: canonicalParams(s.params),
          valBCA: s.valBCA,
          testBCA: s.testBCA,
          iterations: s.record.iterations,
          converged: s.record.converged,
          fitMs: s.record.fitMs,
        })),
        nFits: groupFits.length,
        meanFitMs: mean(groupFits.map((r) => r.fitMs)),
        totalFitMs: groupFits.reduce((a, r) => a + r.fitMs, 0),
        meanIterations: mean(groupFits.map((r) => r.iterations)),
        convergedFraction: groupFits.filter((r) => r.converged).length / groupFits.length,
        warnings: countWarnings(sel.map((s) => s.record)),
      };
    }
  }
  const average: Record<string, AverageSummary | null> = {};
  for (const method of methods) {
    const rows = datasets.map((d) => cells[d][method]);
    if (rows.length === 0 || rows.some((c) => c === undefined)) {
      average[method] = null;
      continue;
    }
    const byRepeat = rows.map(
      (c) => new Map((c as CellSummary).chosen.map((f) => [f.repeat, f.testBCA])),
    );
    const repeats = [...byRepeat[0].keys()]
      .filter((r) => byRepeat.every((m) => m.has(r)))
      .sort((a, b) => a - b);
    if (repeats.length === 0) {
      average[method] = null;
      continue;
    }
    const perRepeat = repeats.map((r) => mean(byRepeat.map((m) => m.get(r) as number)));
    average[method] = {
      method,
      repeats,
      perRepeat,
      mean: mean(perRepeat),
      std: sampleStd(perRepeat),
    };
  }
  return { datasets, methods, cells, average, completeness: options.completeness ?? null };
}

/** Two records of the same fit with different BCA are a contradiction, not a duplicate to drop. */
function checkConflicts(records: readonly FitRecord[]): void {
  const seen = new Map<string, FitRecord>();
  for (const r of records) {
    const key = fitKey(r);
    const first = seen.get(key);
    if (first === undefined) seen.set(key, r);
    else if (first.valBCA !== r.valBCA || first.testBCA !== r.testBCA) {
      throw new ValidationError(
        "records",
        `Two records of the same fit (${r.dataset}, repeat ${r.repeat}, ${r.method}, k = ${r.k}, params ${JSON.stringify(canonicalParams(r.params))}) have different results (valBCA ${first.valBCA} vs ${r.valBCA}, testBCA ${first.testBCA} vs ${r.testBCA}).`,
      );
    }
  }
}

/** The cell's completeness, or undefined when not given. */
export function cellCompleteness(
  summary: ResultsSummary,
  dataset: string,
  method: string,
): CellCompleteness | undefined {
  const c = summary.completeness;
  return c === null || typeof c === "string" ? undefined : c.cells[dataset]?.[method];
}

/** The summed completeness of a method over the datasets of the table (for its Average). */
export function columnCompleteness(
  summary: ResultsSummary,
  method: string,
): CellCompleteness | undefined {
  const parts = summary.datasets
    .map((d) => cellCompleteness(summary, d, method))
    .filter((c): c is CellCompleteness => c !== undefined);
  if (parts.length === 0) return undefined;
  return parts.reduce((a, b) => ({
    planned: a.planned + b.planned,
    done: a.done + b.done,
    repeats: a.repeats + b.repeats,
    repeatsComplete: a.repeatsComplete + b.repeatsComplete,
  }));
}

/** Whether the run the summary covers is known to be unfinished. */
export function isIncompleteRun(summary: ResultsSummary): boolean {
  const c = summary.completeness;
  return c !== null && typeof c !== "string" && c.done < c.planned;
}

/** "972 of 12345 planned fits done (7.9 %)", "... fits of these methods and data sets done ...". */
export function completenessText(c: Completeness): string {
  const share = c.planned === 0 ? 100 : (100 * c.done) / c.planned;
  const shown = c.done < c.planned ? Math.min(share, 99.9).toFixed(1) : "100";
  const of = c.subset === true ? " of these methods and data sets" : "";
  return `${c.done} of ${c.planned} planned fits${of} done (${shown} %)`;
}

/** A method's column title: the paper's spelling where known. */
export function methodTitle(method: string): string {
  return displayNameOf(method);
}

/** A fraction as a percentage with two decimals. */
export function pct(x: number): string {
  return (100 * x).toFixed(2);
}

function signed(x: number): string {
  const s = x.toFixed(2);
  return x >= 0 || s === "-0.00" ? `+${s.replace("-", "")}` : s;
}

function paperNote(
  ours: { mean: number } | undefined,
  paper: PaperCell | null | undefined,
): string {
  if (paper === undefined) return "";
  if (paper === null) return ours === undefined ? "" : " (paper --)";
  const base = `paper ${paper.mean.toFixed(2)} ± ${paper.std.toFixed(2)}`;
  if (ours === undefined) return ` (${base})`;
  return ` (${base}, Δ ${signed(Number(pct(ours.mean)) - paper.mean)})`;
}

/** Indices of the largest displayed means (all of them on a tie at two decimals). */
function bestIndices(values: Array<{ mean: number } | undefined | null>): Set<number> {
  let best = Number.NEGATIVE_INFINITY;
  const shown = values.map((v) => (v ? Number(pct(v.mean)) : Number.NaN));
  for (const s of shown) if (s > best) best = s;
  const out = new Set<number>();
  shown.forEach((s, i) => {
    if (s === best) out.add(i);
  });
  return out;
}

/**
 * Whether the rows are exactly the paper's nine data sets (under any of their
 * names), so that an Average row compares with the paper's.
 */
export function comparesPaperAverage(datasets: readonly string[]): boolean {
  const names = datasets.map(paperDatasetName);
  return names.length === PAPER_DATASETS.length && PAPER_DATASETS.every((d) => names.includes(d));
}

/**
 * `table.md`: rows = datasets plus Average, columns = methods, cells "mean ± std"
 * of the test BCA in %, the best mean of each row in bold (every method that ties
 * at the two decimals shown), "--" where a method has no result. With
 * `comparePaper`, each cell also gives the paper's value and our difference in
 * percentage points; the Average row is compared only when the rows are exactly
 * the paper's nine datasets.
 */
export function tableMarkdown(summary: ResultsSummary, options: ReportOptions = {}): string {
  const { datasets, methods, cells, average } = summary;
  const compare = options.comparePaper === true;
  const ns = new Set<number>();
  for (const d of datasets) for (const m of methods) if (cells[d][m]) ns.add(cells[d][m].n);
  const repeatsText =
    ns.size === 1 ? `${[...ns][0]} repeat${[...ns][0] === 1 ? "" : "s"}` : "the repeats run";
  const lines: string[] = [];
  const completeness = summary.completeness;
  const incomplete = isIncompleteRun(summary);
  if (typeof completeness === "string") {
    lines.push(`Completeness unknown: ${markdownText(completeness)}`);
    lines.push("");
  } else if (incomplete && completeness !== null) {
    lines.push(
      `**Incomplete run: ${completenessText(completeness)}.** Cells marked † miss planned fits: their selection is over a partial grid and is not final.`,
    );
    lines.push("");
  }
  lines.push(
    ns.size === 1 && [...ns][0] === 1
      ? "Test BCA (%) of 1 repeat (no standard deviation); best per row in bold."
      : `Mean ± standard deviation of the test BCA (%) over ${repeatsText}; best per row in bold.`,
  );
  if (compare) {
    lines.push(
      "In parentheses: the paper's Table IV value and Δ = ours − paper (percentage points).",
    );
  }
  lines.push("");
  const title = (m: string) => markdownText(methodTitle(m));
  lines.push(`| Dataset | ${methods.map(title).join(" | ")} |`);
  lines.push(`|---|${methods.map(() => "---").join("|")}|`);
  const row = (
    name: string,
    values: Array<MeanOverRepeats | undefined | null>,
    paper: (i: number) => PaperCell | null | undefined,
    marked: (i: number) => boolean,
  ): string => {
    const best = bestIndices(values);
    const text = values.map((v, i) => {
      // One repeat has no spread: "± 0.00" would claim one.
      const core = v ? (repeatCount(v) > 1 ? `${pct(v.mean)} ± ${pct(v.std)}` : pct(v.mean)) : "--";
      const bold = v && best.has(i) ? `**${core}**` : core;
      const shown = marked(i) ? `${bold} †` : bold;
      return compare ? shown + paperNote(v ?? undefined, paper(i)) : shown;
    });
    return `| ${name} | ${text.join(" | ")} |`;
  };
  for (const d of datasets) {
    lines.push(
      row(
        markdownText(d),
        methods.map((m) => cells[d][m]),
        (i) => paperCell(d, methods[i]),
        (i) => isIncomplete(cellCompleteness(summary, d, methods[i])),
      ),
    );
  }
  const averageComparable = comparesPaperAverage(datasets);
  lines.push(
    row(
      "Average",
      methods.map((m) => average[m]),
      (i) => (averageComparable ? PAPER_TABLE_IV_AVERAGE[methods[i]] : undefined),
      (i) => isIncomplete(columnCompleteness(summary, methods[i])),
    ),
  );
  if (incomplete) {
    lines.push("");
    lines.push("† Fits done / planned in the incomplete cells:");
    for (const d of datasets) {
      const row = methods
        .map((m) => ({ m, c: cellCompleteness(summary, d, m) }))
        .filter((x): x is { m: string; c: CellCompleteness } => isIncomplete(x.c));
      if (row.length === 0) continue;
      if (row.length === methods.length && row.every((x) => x.c.done === 0)) {
        const planned = row.reduce((a, x) => a + x.c.planned, 0);
        lines.push(`- ${markdownText(d)}: not started (0 / ${planned} fits)`);
        continue;
      }
      const parts = row.map(
        ({ m, c }) =>
          `${title(m)} ${c.done} / ${c.planned} (${c.repeatsComplete} of ${c.repeats} repeats complete)`,
      );
      lines.push(`- ${markdownText(d)}: ${parts.join(", ")}`);
    }
  }
  const warned = warningLines(summary);
  if (warned.length > 0) lines.push("", ...warned);
  return `${lines.join("\n")}\n`;
}

function csvField(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * `table.csv`, one line per (dataset, method) plus one per method for the Average:
 * `dataset,method,mean_pct,std_pct,n_repeats,paper_mean_pct,paper_std_pct`.
 * Percentages have 4 decimals; an empty field means "--" (or no paper value). For a
 * run with planned fits still missing, two more columns `fits_done,fits_planned`
 * count them per cell (summed over datasets on the Average lines).
 */
export function tableCsv(summary: ResultsSummary): string {
  const { datasets, methods, cells, average } = summary;
  const counts = isIncompleteRun(summary);
  const out = [
    `dataset,method,mean_pct,std_pct,n_repeats,paper_mean_pct,paper_std_pct${counts ? ",fits_done,fits_planned" : ""}`,
  ];
  const f4 = (x: number) => (100 * x).toFixed(4);
  const line = (
    d: string,
    m: string,
    v: MeanOverRepeats | undefined | null,
    n: number | undefined,
    paper: PaperCell | null | undefined,
    done: CellCompleteness | undefined,
  ) => {
    const fields = [
      csvField(d),
      csvField(m),
      v ? f4(v.mean) : "",
      v && repeatCount(v) > 1 ? f4(v.std) : "",
      n === undefined ? "" : String(n),
      paper ? paper.mean.toFixed(2) : "",
      paper ? paper.std.toFixed(2) : "",
    ];
    if (counts) fields.push(done ? String(done.done) : "", done ? String(done.planned) : "");
    out.push(fields.join(","));
  };
  for (const d of datasets) {
    for (const m of methods) {
      const c = cells[d][m];
      line(d, m, c, c?.n, paperCell(d, m), cellCompleteness(summary, d, m));
    }
  }
  const comparable = comparesPaperAverage(datasets);
  for (const m of methods) {
    const a = average[m];
    line(
      "Average",
      m,
      a,
      a?.repeats.length,
      comparable ? PAPER_TABLE_IV_AVERAGE[m] : undefined,
      columnCompleteness(summary, m),
    );
  }
  return `${out.join("\n")}\n`;
}

/** The JSON document written as `summary.json`. */
export interface SummaryJSON {
  readonly format: "sdspcaan-summary";
  readonly version: 1;
  /** BCA values in this file are fractions in [0, 1]; times are milliseconds. */
  readonly units: { readonly bca: "fraction"; readonly time: "ms" };
  readonly datasets: readonly string[];
  readonly methods: readonly string[];
  readonly results: Readonly<Record<string, Readonly<Record<string, CellSummary | null>>>>;
  readonly average: Readonly<Record<string, AverageSummary | null>>;
  readonly paper?: Readonly<Record<string, Readonly<Record<string, PaperCell | null>>>>;
  readonly settings?: Readonly<Record<string, unknown>>;
  /**
   * Whether the results cover the planned run ("complete"), not yet
   * ("incomplete": selections over partial grids, not final), or cannot be
   * checked ("unknown", with the reason); absent when no plan was given.
   */
  readonly completeness?: SummaryCompleteness;
  /** Significance tests between the methods (statistics.ts); added by `buildReports`. */
  readonly statistics?: MethodStatistics;
}

/** The "completeness" object of summary.json. */
export type SummaryCompleteness =
  | {
      readonly status: "complete" | "incomplete";
      readonly fitsDone: number;
      readonly fitsPlanned: number;
      /** Present (true) when the counts cover only the report's methods and data sets. */
      readonly subset?: true;
      /** Per dataset and method, for the incomplete cells only. */
      readonly incompleteCells: Readonly<
        Record<string, Readonly<Record<string, CellCompleteness>>>
      >;
    }
  | { readonly status: "unknown"; readonly reason: string };

function summaryCompleteness(summary: ResultsSummary): SummaryCompleteness | undefined {
  const c = summary.completeness;
  if (c === null) return undefined;
  if (typeof c === "string") return { status: "unknown", reason: c };
  const incompleteCells: Record<string, Record<string, CellCompleteness>> = {};
  for (const [d, row] of Object.entries(c.cells)) {
    for (const [m, cell] of Object.entries(row)) {
      if (!isIncomplete(cell)) continue;
      incompleteCells[d] ??= {};
      incompleteCells[d][m] = cell;
    }
  }
  return {
    status: c.done < c.planned ? "incomplete" : "complete",
    fitsDone: c.done,
    fitsPlanned: c.planned,
    ...(c.subset === true ? { subset: true as const } : {}),
    incompleteCells,
  };
}

/**
 * `summary.json`: per dataset and method the mean, std and number of repeats of
 * the test BCA, the chosen k and parameters (with val/test BCA, iterations, time)
 * per repeat, the mean fit time and iterations over all fits; the Average row;
 * the paper's values where it has them; and any run settings the caller passes.
 */
export function summaryJSON(
  summary: ResultsSummary,
  settings?: Readonly<Record<string, unknown>>,
): SummaryJSON {
  const results: Record<string, Record<string, CellSummary | null>> = {};
  const paper: Record<string, Record<string, PaperCell | null>> = {};
  for (const d of summary.datasets) {
    results[d] = {};
    for (const m of summary.methods) {
      results[d][m] = summary.cells[d][m] ?? null;
      const p = paperCell(d, m);
      if (p !== undefined) {
        paper[d] ??= {};
        paper[d][m] = p;
      }
    }
  }
  const completeness = summaryCompleteness(summary);
  return {
    format: "sdspcaan-summary",
    version: 1,
    units: { bca: "fraction", time: "ms" },
    datasets: [...summary.datasets],
    methods: [...summary.methods],
    results,
    average: summary.average,
    ...(Object.keys(paper).length > 0 ? { paper } : {}),
    ...(settings ? { settings } : {}),
    ...(completeness ? { completeness } : {}),
  };
}

/** The report files' contents from the records of a run. */
export function buildReports(
  records: readonly FitRecord[],
  options: ReportOptions = {},
  settings?: Readonly<Record<string, unknown>>,
): {
  tableMd: string;
  tableCsv: string;
  summary: SummaryJSON;
  statistics: MethodStatistics;
} {
  const s = summariseResults(records, options);
  const statistics = methodStatistics(s, options);
  return {
    tableMd: tableMarkdown(s, options),
    tableCsv: tableCsv(s),
    summary: { ...summaryJSON(s, settings), statistics },
    statistics,
  };
}
