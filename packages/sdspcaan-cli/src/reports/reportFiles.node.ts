/**
 * The report files of a results directory, rebuilt from `results.jsonl` (and
 * `settings.json` when present): `table.md`, `table.csv`, `summary.json`,
 * `statistics.md` (statisticsFiles.node.ts), and the figures of figureSpecs.node.ts
 * and embeddingFigure.node.ts, each as SVG and PNG. Everything is a function of the
 * files (the lines that count: reportLines.node.ts), so `report` after an interrupted
 * or finished run gives the same output as the run itself. Of those figures, the ones
 * an earlier report left in the folder and this one does not make (a report of
 * another part of the run) are removed, and the notes name them. A results file may
 * be gzip-compressed (results.jsonl.gz, runResults.node.ts): it reads the same.
 */
import { existsSync, lstatSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { SdspcaanError, ValidationError } from "sdspcaan";
import { writeAtomically } from "../io/atomicWrite.js";
import { FileAccessError, makeFolders } from "../io/fileErrors.js";
import { writeFigure } from "../plot/render.js";
import type { FitRecord } from "../protocol/records.js";
import {
  describeStored,
  presentForms,
  RESULTS_FILE,
  resultsPaths,
  type SkippedFit,
} from "../runner/resultsFile.node.js";
import { gridPoints, type RunSettings, readReportSettings } from "../runner/runner.node.js";
import { describeFiles, runResultsFiles } from "../runner/runResults.node.js";
import type { UnitDataset } from "../runner/units.node.js";
import { embeddingSpec } from "./embeddingFigure.node.js";
import { bcaVersusKIsAverage, bcaVersusKSpec, sensitivitySpec } from "./figureSpecs.node.js";
import {
  buildReports,
  type Completeness,
  type ReportOptions,
  type ResultsSummary,
  summariseResults,
} from "./report.js";
import { reportLines } from "./reportLines.node.js";
import { type MethodStatistics, methodStatistics } from "./statistics.js";
import { CRITICAL_DIFFERENCE_FIGURE, writeStatisticsFiles } from "./statisticsFiles.node.js";

export interface RunReportOptions {
  /** Put the paper's Table IV values and our differences beside each cell. */
  readonly comparePaper?: boolean;
  /** Write the figures (default true). */
  readonly figures?: boolean;
  /** Data already in memory, by data set name (the embedding figure refits on it). */
  readonly data?: ReadonlyMap<string, UnitDataset>;
  /** Method of the embedding figure (default SDSPCAAN if it ran, else the best on the data set). */
  readonly embeddingMethod?: string;
  /** Data set of the embedding figure (default the first of the table). */
  readonly embeddingDataset?: string;
  /** Reference method of the per-data-set tests in statistics.md (default SDSPCAAN). */
  readonly baselineMethod?: string;
  /**
   * Report only these methods (names as `experiment` takes them, in any case): the
   * tables, statistics, figures and completeness cover them alone. Needs `to`.
   */
  readonly methods?: readonly string[];
  /** Report only these data sets (names as in settings.json), as `methods`. Needs `to`. */
  readonly datasets?: readonly string[];
  /**
   * Folder the report files go to (created when missing), default the results
   * directory. A report of some methods or data sets needs it, so that it does not
   * replace the run's own report by accident; giving the results directory itself
   * replaces it on purpose.
   */
  readonly to?: string;
}

/** What `writeRunReports` wrote. */
export interface RunReport {
  /** The contents of table.md. */
  readonly tableMd: string;
  /** Absolute or directory-relative paths of the files written. */
  readonly files: string[];
  /** Figures that could not be made, and why. */
  readonly warnings: string[];
  readonly records: number;
  readonly skipped: readonly SkippedFit[];
  /** What the run planned and what is done, or why that cannot be known. */
  readonly completeness: Completeness | string;
  /** Notes for the user: how complete the run is, lines left out and why. */
  readonly notes: string[];
  /** A few lines on which differences are significant (statistics.md has the details). */
  readonly statisticsSummary: string;
}

/** Per (dataset, method): how many configurations were refused and the first reason. */
export interface SkippedSummary {
  readonly dataset: string;
  readonly method: string;
  readonly count: number;
  readonly reason: string;
}

/** Groups refused configurations by (dataset, method). */
export function summariseSkipped(skipped: readonly SkippedFit[]): SkippedSummary[] {
  const out = new Map<string, { dataset: string; method: string; count: number; reason: string }>();
  for (const s of skipped) {
    const key = JSON.stringify([s.dataset, s.method]);
    const cur = out.get(key);
    if (cur) cur.count++;
    else out.set(key, { dataset: s.dataset, method: s.method, count: 1, reason: s.reason });
  }
  return [...out.values()];
}

/** Whether two paths name the same folder (through symbolic links when both exist). */
function samePlace(a: string, b: string): boolean {
  if (existsSync(a) && existsSync(b)) return realpathSync(a) === realpathSync(b);
  return resolve(a) === resolve(b);
}

/**
 * Where the report files of `dir` go: `options.to`, else `dir`. A report of some
 * methods or data sets must name its folder, and a folder holding another run's
 * results or settings is refused, so that neither run's own report is replaced by
 * accident.
 */
function reportTarget(dir: string, options: RunReportOptions): string {
  const filtered = options.methods !== undefined || options.datasets !== undefined;
  const to = options.to;
  if (to === undefined) {
    if (filtered) {
      throw new ValidationError(
        "to",
        `A report of some methods or data sets ('methods' / 'datasets') needs 'to', the folder it goes to, so that it does not replace the report of the whole run in ${dir}; give ${dir} itself as 'to' to replace that report on purpose.`,
      );
    }
    return dir;
  }
  if (typeof to !== "string" || to.trim() === "") {
    throw new ValidationError(
      "to",
      `The 'to' option must name a folder. Got ${JSON.stringify(to)} instead.`,
    );
  }
  if (existsSync(to) && !statSync(to).isDirectory()) {
    throw new ValidationError("to", `The 'to' option must name a folder, but ${to} is a file.`);
  }
  if (!samePlace(to, dir)) {
    // A run's folder: its settings, results.jsonl or the files of its shards.
    const other = resultsPaths(to);
    const held = [other.settings, ...runResultsFiles(to)].find((p) => existsSync(p));
    if (held !== undefined) {
      throw new ValidationError(
        "to",
        `The 'to' option names ${to}, which holds another run (${held}); its report would be replaced by this one. Choose a new folder.`,
      );
    }
  }
  return to;
}

/**
 * The options of a run's tables and statistics: the grid order and the data sets and
 * methods of settings.json that have results (an unfinished run shows every planned
 * one, so that what is missing shows).
 */
function reportOptionsFor(
  settings: RunSettings | null,
  records: readonly FitRecord[],
  skipped: readonly SkippedFit[],
  completeness: Completeness | string,
  options: RunReportOptions,
): ReportOptions {
  const incomplete = typeof completeness !== "string" && completeness.done < completeness.planned;
  const present = new Set([...records, ...skipped].map((r) => r.method));
  const withData = new Set(records.map((r) => r.dataset));
  const plannedCells = typeof completeness === "string" ? null : completeness.cells;
  return {
    comparePaper: options.comparePaper === true,
    completeness,
    ...(options.baselineMethod !== undefined ? { baselineMethod: options.baselineMethod } : {}),
    ...(settings
      ? {
          grid: (method: string) => gridPoints(method, settings.grid),
          datasets: settings.datasets
            .map((d) => d.name)
            .filter((d) => withData.has(d) || (incomplete && plannedCells?.[d] !== undefined)),
          methods: settings.methods.filter(
            (m) =>
              present.has(m) ||
              (incomplete && Object.values(plannedCells ?? {}).some((row) => row[m] !== undefined)),
          ),
        }
      : {}),
  };
}

/** A run's tables and statistics as `report` computes them, and the lines they come from. */
export interface RunReportContents {
  readonly settings: RunSettings | null;
  /** The fit records the report uses (planned fits, made with the planned settings). */
  readonly records: readonly FitRecord[];
  readonly skipped: readonly SkippedFit[];
  readonly completeness: Completeness | string;
  readonly notes: readonly string[];
  /** The options the tables were made with (grid order, data sets, methods). */
  readonly reportOptions: ReportOptions;
  readonly summary: ResultsSummary;
  readonly statistics: MethodStatistics;
}

/**
 * What `writeRunReports` computes for a results directory, without writing anything
 * or drawing figures: the summary behind table.md and the statistics behind
 * statistics.md, of the chosen methods and data sets only when given. Throws as
 * `summariseResults` does when no fit record is left.
 */
export async function readRunReport(
  dir: string,
  options: Pick<RunReportOptions, "baselineMethod" | "methods" | "datasets" | "data"> = {},
): Promise<RunReportContents> {
  const settings = readReportSettings(dir);
  const loaded = new Map(options.data ?? []);
  const { records, skipped, completeness, notes } = await reportLines(
    dir,
    settings,
    loaded,
    options,
  );
  const reportOptions = reportOptionsFor(settings, records, skipped, completeness, options);
  const summary = summariseResults(records, reportOptions);
  const statistics = methodStatistics(summary, reportOptions);
  return { settings, records, skipped, completeness, notes, reportOptions, summary, statistics };
}

/** The figures' file names (each as .svg and .png in the report's figures/ folder). */
const FIGURES = {
  bcaVersusK: "bca-vs-k",
  bcaVersusKPerDataset: "bca-vs-k-per-dataset",
  sensitivity: "sensitivity",
  embedding: "embedding",
} as const;

/** Every figure a report can make, the statistics' diagram included. */
const REPORT_FIGURES = [...Object.values(FIGURES), CRITICAL_DIFFERENCE_FIGURE];

/**
 * Rebuilds table.md, table.csv, summary.json and the figures of a results
 * directory, into `options.to` when given, of the chosen methods and data sets only
 * when given. Throws a ValidationError when the directory (or the subset) holds no
 * fit record, and a DataFormatError naming file and line for a bad line in
 * results.jsonl.
 */
export async function writeRunReports(
  dir: string,
  options: RunReportOptions = {},
): Promise<RunReport> {
  const target = reportTarget(dir, options);
  const paths = resultsPaths(dir);
  const settings = readReportSettings(dir);
  const loaded = new Map(options.data ?? []);
  const { records, skipped, completeness, notes, partial } = await reportLines(
    dir,
    settings,
    loaded,
    options,
  );
  if (records.length === 0) {
    const why =
      skipped.length > 0
        ? ` Every configuration was refused, e.g. ${skipped[0].method} on ${skipped[0].dataset}: ${skipped[0].reason}`
        : partial
          ? ""
          : ` Run 'sdspcaan experiment --out ${dir}' first.`;
    const files = runResultsFiles(dir);
    const shards = files.length - presentForms(paths.results).length;
    // A folder without any results file: say which files a run writes.
    const held =
      files.length === 0
        ? `${dir} holds no results file (${RESULTS_FILE}, or a shard's results.shard-I-of-N.jsonl)`
        : `${shards === 0 ? describeStored(paths.results) : `The results files of ${dir} (${describeFiles(files)})`} ${files.length > 1 || shards > 0 ? "hold" : "holds"} no finished fit${partial ? " of the chosen methods and data sets" : ""}`;
    throw new ValidationError(
      partial ? (options.methods !== undefined ? "methods" : "datasets") : "out",
      `${held}, so there is nothing to report.${why}`,
    );
  }
  if (partial && samePlace(target, dir)) {
    notes.push(
      `The report files in ${dir} now cover only part of the run; 'sdspcaan report --out ${dir}' rebuilds the report of the whole run.`,
    );
  }
  const reportOptions = reportOptionsFor(settings, records, skipped, completeness, options);
  const skippedSummary = summariseSkipped(skipped);
  const { tableMd, tableCsv, summary, statistics } = buildReports(records, reportOptions, {
    ...(settings ?? {}),
    skipped: skippedSummary,
  });
  const files: string[] = [];
  const write = (name: string, text: string) => {
    const p = join(target, name);
    writeAtomically(p, text);
    files.push(p);
  };
  makeFolders(target);
  write("table.md", tableMd);
  write("table.csv", tableCsv);
  write("summary.json", `${JSON.stringify(summary, null, 2)}\n`);

  const warnings: string[] = [];
  if (options.figures !== false) {
    const figDir = join(target, "figures");
    const tryFigure = async (what: string, make: () => Promise<string[] | null>) => {
      try {
        const written = await make();
        if (written) files.push(...written);
      } catch (err) {
        // A figure the data cannot make is a warning; a file that cannot be written
        // (a full disk) stops the report, as for the tables.
        if (!(err instanceof SdspcaanError) || err instanceof FileAccessError) throw err;
        warnings.push(`${what}: ${err.message}`);
      }
    };
    await tryFigure("BCA versus k", async () => {
      const w = await writeFigure(
        bcaVersusKSpec(records, settings, reportOptions.methods),
        join(figDir, FIGURES.bcaVersusK),
      );
      return [w.svg, w.png];
    });
    // The panels per data set only beside a mean: without one, bca-vs-k is those panels.
    if (bcaVersusKIsAverage(records, settings, reportOptions.methods)) {
      await tryFigure("BCA versus k per data set", async () => {
        const w = await writeFigure(
          bcaVersusKSpec(records, settings, reportOptions.methods, { perDataset: true }),
          join(figDir, FIGURES.bcaVersusKPerDataset),
        );
        return [w.svg, w.png];
      });
    }
    await tryFigure("sensitivity", async () => {
      const spec = sensitivitySpec(records, settings);
      if (spec === null) return null;
      const w = await writeFigure(spec, join(figDir, FIGURES.sensitivity));
      return [w.svg, w.png];
    });
    await tryFigure("embedding", async () => {
      const spec = await embeddingSpec(
        records,
        settings,
        { ...options, data: loaded },
        warnings,
        dir,
      );
      if (spec === null) return null;
      const w = await writeFigure(spec, join(figDir, FIGURES.embedding));
      return [w.svg, w.png];
    });
  }
  const stats = await writeStatisticsFiles(target, statistics, options.figures !== false);
  files.push(...stats.files);
  warnings.push(...stats.warnings);
  if (options.figures !== false) {
    const removed = removeStaleFigures(join(target, "figures"), files);
    if (removed.length > 0) {
      notes.push(
        `Removed figures an earlier report left here that this one does not make: ${removed.join(", ")}.`,
      );
    }
  }
  return {
    tableMd,
    files,
    warnings,
    records: records.length,
    skipped,
    completeness,
    notes,
    statisticsSummary: stats.consoleSummary,
  };
}

/**
 * Deletes the report figures in `figDir` that this report did not write (`written`):
 * a report of part of a run, written where an earlier report was, must not leave that
 * report's figures beside its own as if they were of the same part. Only the names a
 * report makes are touched; returns them, relative to the report's folder.
 */
function removeStaleFigures(figDir: string, written: readonly string[]): string[] {
  const kept = new Set(written.map((p) => resolve(p)));
  const removed: string[] = [];
  for (const name of REPORT_FIGURES) {
    for (const ext of ["svg", "png"]) {
      const p = join(figDir, `${name}.${ext}`);
      // Only a regular file of that name is a stale figure; a link, a FIFO or a
      // device someone put there is not ours to remove.
      if (existsSync(p) && lstatSync(p).isFile() && !kept.has(resolve(p))) {
        unlinkSync(p);
        removed.push(`figures/${name}.${ext}`);
      }
    }
  }
  return removed;
}
