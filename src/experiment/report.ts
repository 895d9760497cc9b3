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
 */
import { ValidationError } from "../core/errors.js";
import { METHOD_DISPLAY_NAMES, METHOD_NAMES, type MethodName, type Params } from "./grids.js";
import {
  PAPER_DATASETS,
  PAPER_TABLE_IV_AVERAGE,
  type PaperCell,
  paperCell,
  paperDatasetName,
} from "./paperTable.js";
import { canonicalParams, type FitRecord } from "./records.js";
import { dedupeRecords, type SelectionOptions, selectAll } from "./selection.js";
import { type MethodStatistics, methodStatistics, type StatisticsOptions } from "./statistics.js";
import { groupBy, mean, sampleStd } from "./stats.js";

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
}

/** The selected fit of one repeat, as reported. */
export interface ChosenFit {
  readonly repeat: number;
  readonly k: number;
  readonly params: Params;
  readonly valBCA: number;
  readonly testBCA: number;
  readonly iterations: number;
  readonly converged: boolean;
  readonly fitMs: number;
}

/** Results of one (dataset, method) over its repeats. BCA values are fractions. */
export interface CellSummary {
  readonly dataset: string;
  readonly method: string;
  /** Number of repeats with a selected fit. */
  readonly n: number;
  /** Mean of the selected test BCA over repeats. */
  readonly mean: number;
  /** Standard deviation (n - 1) of the selected test BCA over repeats. */
  readonly std: number;
  /** Mean of the selected validation BCA over repeats. */
  readonly valMean: number;
  /** The selected fit of each repeat, ascending repeat. */
  readonly chosen: readonly ChosenFit[];
  /** Number of fits run (all k and parameter points of all repeats). */
  readonly nFits: number;
  /** Mean and total wall time per fit, over all fits. */
  readonly meanFitMs: number;
  readonly totalFitMs: number;
  /** Mean iterations per fit and the fraction of fits that converged, over all fits. */
  readonly meanIterations: number;
  readonly convergedFraction: number;
}

/** The Average row entry of one method. */
export interface AverageSummary {
  readonly method: string;
  /** The repeats every dataset has (the per-repeat averages are over these). */
  readonly repeats: readonly number[];
  /** Per-repeat mean over datasets of the selected test BCA. */
  readonly perRepeat: readonly number[];
  readonly mean: number;
  readonly std: number;
}

/** Everything the reports show. */
export interface ResultsSummary {
  readonly datasets: readonly string[];
  readonly methods: readonly string[];
  /** cells[dataset][method], absent where the method has no results on the dataset. */
  readonly cells: Readonly<Record<string, Readonly<Record<string, CellSummary>>>>;
  /** average[method], null where the method lacks a dataset of the table ("--"). */
  readonly average: Readonly<Record<string, AverageSummary | null>>;
}

function defaultDatasets(records: readonly FitRecord[]): string[] {
  const seen = [...new Set(records.map((r) => r.dataset))];
  const rank = (d: string): number => {
    const p = paperDatasetName(d);
    return p === null ? PAPER_DATASETS.length : PAPER_DATASETS.indexOf(p);
  };
  return seen
    .map((d, i) => ({ d, i, r: rank(d) }))
    .sort((a, b) => a.r - b.r || a.i - b.i)
    .map((x) => x.d);
}

function defaultMethods(records: readonly FitRecord[]): string[] {
  const seen = [...new Set(records.map((r) => r.method))];
  const rank = (m: string): number => {
    const i = (METHOD_NAMES as readonly string[]).indexOf(m);
    return i < 0 ? METHOD_NAMES.length : i;
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
  const all = dedupeRecords(records);
  const datasets = checkNames("datasets", options.datasets) ?? defaultDatasets(all);
  const methods = checkNames("methods", options.methods) ?? defaultMethods(all);
  const dSet = new Set(datasets);
  const mSet = new Set(methods);
  const used = all.filter((r) => dSet.has(r.dataset) && mSet.has(r.method));
  if (used.length === 0 || datasets.length === 0 || methods.length === 0) {
    throw new ValidationError(
      "records",
      `No fit records for the requested datasets and methods (${records.length} record(s) given); there is nothing to report.`,
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
  return { datasets, methods, cells, average };
}

/** A method's column title: the paper's spelling where known. */
export function methodTitle(method: string): string {
  return METHOD_DISPLAY_NAMES[method as MethodName] ?? method;
}

function pct(x: number): string {
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

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
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
  lines.push(
    `Mean ± standard deviation of the test BCA (%) over ${repeatsText}; best per row in bold.`,
  );
  if (compare) {
    lines.push(
      "In parentheses: the paper's Table IV value and Δ = ours − paper (percentage points).",
    );
  }
  lines.push("");
  lines.push(`| Dataset | ${methods.map(methodTitle).join(" | ")} |`);
  lines.push(`|---|${methods.map(() => "---").join("|")}|`);
  const row = (
    name: string,
    values: Array<{ mean: number; std: number } | undefined | null>,
    paper: (i: number) => PaperCell | null | undefined,
  ): string => {
    const best = bestIndices(values);
    const text = values.map((v, i) => {
      const core = v ? `${pct(v.mean)} ± ${pct(v.std)}` : "--";
      const shown = v && best.has(i) ? `**${core}**` : core;
      return compare ? shown + paperNote(v ?? undefined, paper(i)) : shown;
    });
    return `| ${name} | ${text.join(" | ")} |`;
  };
  for (const d of datasets) {
    lines.push(
      row(
        d,
        methods.map((m) => cells[d][m]),
        (i) => paperCell(d, methods[i]),
      ),
    );
  }
  const paperRows = datasets.map(paperDatasetName);
  const averageComparable =
    paperRows.every((p) => p !== null) && sameSet(paperRows as string[], PAPER_DATASETS);
  lines.push(
    row(
      "Average",
      methods.map((m) => average[m]),
      (i) => (averageComparable ? PAPER_TABLE_IV_AVERAGE[methods[i] as MethodName] : undefined),
    ),
  );
  return `${lines.join("\n")}\n`;
}

function csvField(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * `table.csv`, one line per (dataset, method) plus one per method for the Average:
 * `dataset,method,mean_pct,std_pct,n_repeats,paper_mean_pct,paper_std_pct`.
 * Percentages have 4 decimals; an empty field means "--" (or no paper value).
 */
export function tableCsv(summary: ResultsSummary): string {
  const { datasets, methods, cells, average } = summary;
  const out = ["dataset,method,mean_pct,std_pct,n_repeats,paper_mean_pct,paper_std_pct"];
  const f4 = (x: number) => (100 * x).toFixed(4);
  const line = (
    d: string,
    m: string,
    v: { mean: number; std: number } | undefined | null,
    n: number | undefined,
    paper: PaperCell | null | undefined,
  ) => {
    out.push(
      [
        csvField(d),
        csvField(m),
        v ? f4(v.mean) : "",
        v ? f4(v.std) : "",
        n === undefined ? "" : String(n),
        paper ? paper.mean.toFixed(2) : "",
        paper ? paper.std.toFixed(2) : "",
      ].join(","),
    );
  };
  for (const d of datasets) {
    for (const m of methods) {
      const c = cells[d][m];
      line(d, m, c, c?.n, paperCell(d, m));
    }
  }
  const paperRows = datasets.map(paperDatasetName);
  const comparable =
    paperRows.every((p) => p !== null) && sameSet(paperRows as string[], PAPER_DATASETS);
  for (const m of methods) {
    const a = average[m];
    line(
      "Average",
      m,
      a,
      a?.repeats.length,
      comparable ? PAPER_TABLE_IV_AVERAGE[m as MethodName] : undefined,
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
  /** Significance tests between the methods (statistics.ts); added by `buildReports`. */
  readonly statistics?: MethodStatistics;
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
