/**
 * The report files of a results directory, rebuilt from `results.jsonl` (and
 * `settings.json` when present): `table.md`, `table.csv`, `summary.json`,
 * `statistics.md` (statisticsFiles.node.ts), and the figures `figures/bca-vs-k`
 * (and `figures/bca-vs-k-per-dataset` for several data sets), `figures/sensitivity`
 * (when SDSPCAAN ran over more than one grid point: over the parameters the grid
 * varied), `figures/embedding` (a 2-D embedding of one data set) and
 * `figures/critical-difference`, each as SVG and PNG. Everything is a function of
 * the files, so `report` after an
 * interrupted or finished run gives the same output as the run itself. Of those
 * figures, the ones an earlier report left in the folder and this one does not make
 * (a report of another part of the run) are removed, and the notes name them.
 *
 * The report rebuilds the plan of the run from settings.json (plan.ts) to know
 * what was planned: a line counts only when its fit is planned and its settings
 * fingerprint is the planned one (a line without a fingerprint, written before
 * lines carried one, counts as made under settings.json), and an unfinished run
 * is reported as such (report.ts). Bad lines in results.jsonl are an error naming
 * file and line, with the way out (`experiment ... --repair`). A results file may
 * be gzip-compressed (results.jsonl.gz, runResults.node.ts): it reads the same.
 */
import { existsSync, lstatSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Label } from "sdspcaan";
import { createMethod, SdspcaanError, ValidationError } from "sdspcaan";
import {
  makeSplit,
  makeSyntheticDataset,
  methodDescriptor,
  normalizeMethodName,
  parseSplitFile,
  type Split,
  type SyntheticOptions,
} from "sdspcaan/methods";
import { writeAtomically } from "../io/atomicWrite.js";
import { FileAccessError, makeFolders } from "../io/fileErrors.js";
import { type LoadOptions, openDataset } from "../io/load.js";
import { datasetAtPath } from "../io/registry.js";
import { type BcaAtK, bcaVersusKFigure } from "../plot/bcaVersusK.js";
import { embeddingScatter, type SplitName } from "../plot/embedding.js";
import { type VegaLiteSpec, writeFigure } from "../plot/render.js";
import {
  type ProfilePlotPoint,
  type SensitivityPanels,
  sensitivityHeatmapPanels,
  sensitivityProfiles,
} from "../plot/sensitivity.js";
import { type ParamName, type Params, tunableParams, tunedParams } from "../protocol/grids.js";
import { fitOptions } from "../protocol/methodOptions.js";
import { type PlanDataset, planRun, type RunPlan } from "../protocol/plan.js";
import type { FitRecord } from "../protocol/records.js";
import { fitKey, paramsKey } from "../protocol/records.js";
import { selectModel } from "../protocol/selection.js";
import {
  describeFit,
  describeStored,
  isSkipped,
  presentForms,
  type ResultEntry,
  readJsonFile,
  resultsPaths,
  type SkippedFit,
} from "../runner/resultsFile.node.js";
import {
  type DatasetSettings,
  datasetChecksum,
  gridPoints,
  type RunSettings,
  readReportSettings,
  splitsChecksum,
} from "../runner/runner.node.js";
import {
  describeFiles,
  mergeRunEntries,
  type RunResultEntry,
  runResultsFiles,
  scanRunResults,
} from "../runner/runResults.node.js";
import { prepareSplit, type UnitDataset } from "../runner/units.node.js";
import {
  bcaVersusK,
  type CommonCurves,
  commonCurves,
  sensitivityProfile,
  sensitivitySurface,
  variedParams,
} from "./figures.js";
import {
  buildReports,
  type Completeness,
  completenessOf,
  completenessText,
  methodTitle,
  type ReportOptions,
  type ResultsSummary,
  summariseResults,
} from "./report.js";
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

function onGrid(settings: RunSettings | null): (r: FitRecord | SkippedFit) => boolean {
  if (settings === null) return () => true;
  const datasets = new Set(settings.datasets.map((d) => d.name));
  const grids = new Map(
    settings.methods.map((m) => [m, new Set(gridPoints(m, settings.grid).map(paramsKey))]),
  );
  return (r) =>
    datasets.has(r.dataset) &&
    r.repeat < settings.repeats &&
    (grids.get(r.method)?.has(paramsKey(r.params)) ?? false);
}

/**
 * Rebuilds the plan of a run from its settings. Labels are loaded only when the
 * plan depends on them (stratified splits, LDA's k bound), explicit splits are
 * read from their recorded file. Returns a string saying why when the plan cannot
 * be rebuilt (data given in memory, a file gone or changed). `dir` is the results
 * directory (see reloadDataset).
 */
export async function rebuildPlan(
  settings: RunSettings,
  loaded: Map<string, UnitDataset>,
  dir?: string,
): Promise<RunPlan | string> {
  // Labels decide stratified splits and the k bounds a method takes from the training classes.
  const needsLabels =
    settings.stratify || settings.methods.some((m) => methodDescriptor(m).kBounds !== undefined);
  const inputs: PlanDataset[] = [];
  try {
    for (const entry of settings.datasets) {
      let y: UnitDataset["y"] | null = null;
      if (needsLabels) {
        let data = loaded.get(entry.name) ?? null;
        if (data === null) {
          data = await reloadDataset(entry, dir);
          if (data === null) {
            return `the plan needs the labels of ${entry.name}, which was given in memory and cannot be reloaded.`;
          }
          loaded.set(entry.name, data);
        }
        y = data.y;
      }
      let splits: PlanDataset["splits"] = null;
      if (entry.splitsChecksum !== null) {
        if (entry.splitsFile === null) {
          return `the explicit splits of ${entry.name} were given in memory, not as a file.`;
        }
        const read = parseSplitFile(readJsonFile(entry.splitsFile), entry.n);
        if (
          read.length < settings.repeats ||
          splitsChecksum(read.slice(0, settings.repeats)) !== entry.splitsChecksum
        ) {
          return `the split file ${entry.splitsFile} of ${entry.name} changed since the run.`;
        }
        splits = read;
      }
      inputs.push({ y, splits });
    }
    return planRun(settings, inputs);
  } catch (err) {
    if (!(err instanceof SdspcaanError)) throw err;
    return `the plan cannot be rebuilt from settings.json (${err.message})`;
  }
}

/** The methods and data sets a report is restricted to (each absent: all of the run's). */
interface ReportSubset {
  readonly methods?: readonly string[];
  readonly datasets?: readonly string[];
}

/**
 * The run's names that `requested` names (methods compared as `experiment` normalises
 * them, data sets exactly), or null when nothing was requested. An empty list or a
 * name the run lacks is an error naming the option and listing the run's names.
 */
function chosenNames(
  argument: "methods" | "datasets",
  requested: readonly string[] | undefined,
  known: readonly string[],
  where: string,
): Set<string> | null {
  if (requested === undefined) return null;
  const what = argument === "methods" ? "method" : "data set";
  const listing = `${where} has ${known.join(", ")}`;
  if (!Array.isArray(requested) || requested.length === 0) {
    throw new ValidationError(
      argument,
      `The '${argument}' option must be a non-empty list of ${what} names; ${listing}.`,
    );
  }
  const key = (name: string) => (argument === "methods" ? normalizeMethodName(name) : name);
  const chosen = new Set<string>();
  const unknown: unknown[] = [];
  for (const name of requested) {
    const found = typeof name === "string" ? known.find((k) => key(k) === key(name)) : undefined;
    if (found === undefined) unknown.push(name);
    else chosen.add(found);
  }
  if (unknown.length > 0) {
    const names = unknown.map((n) => JSON.stringify(n)).join(", ");
    throw new ValidationError(
      argument,
      `The '${argument}' option names ${names}, not ${unknown.length === 1 ? `a ${what}` : `${what}s`} of this run; ${listing}.`,
    );
  }
  return chosen;
}

/** The lines of a results directory that the report uses, and what it found out about the rest. */
interface ReportLines {
  readonly records: FitRecord[];
  readonly skipped: SkippedFit[];
  readonly completeness: Completeness | string;
  readonly notes: string[];
  /** Whether `subset` left out some of the run's methods or data sets. */
  readonly partial: boolean;
}

/**
 * Reads results.jsonl for a report: bad lines are an error (with the way out);
 * with a plan, a line is used when its fit is planned and its fingerprint (for a
 * line without one: the planned one, as settings.json made it) is the planned
 * one. Lines of planned fits made with other settings are left out, and said so.
 * Only the lines and planned fits of `subset` count.
 */
async function reportLines(
  dir: string,
  settings: RunSettings | null,
  loaded: Map<string, UnitDataset>,
  subset: ReportSubset,
): Promise<ReportLines> {
  const scanned = scanRunResults(dir);
  const where = scanned.files.length === 1 ? scanned.files[0] : describeFiles(scanned.files);
  // The run's names: settings.json's, else (no plan to say) those of its results.
  const runMethods = settings
    ? settings.methods
    : [...new Set(scanned.entries.map((e) => e.line.method))];
  const runDatasets = settings
    ? settings.datasets.map((d) => d.name)
    : [...new Set(scanned.entries.map((e) => e.line.dataset))];
  const source = settings ? "its settings.json" : where;
  const methods = chosenNames("methods", subset.methods, runMethods, source);
  const datasets = chosenNames("datasets", subset.datasets, runDatasets, source);
  const inSubset = (r: { method: string; dataset: string }) =>
    (methods?.has(r.method) ?? true) && (datasets?.has(r.dataset) ?? true);
  const partial =
    (methods !== null && methods.size < runMethods.length) ||
    (datasets !== null && datasets.size < runDatasets.length);
  const plan =
    settings === null
      ? "there is no settings.json to say what was planned."
      : await rebuildPlan(settings, loaded, dir);
  const planned = typeof plan === "string" ? null : plan.fingerprints;
  const effective = (e: ResultEntry) =>
    e.line.fingerprint ?? planned?.get(fitKey(e.line)) ?? "settings.json";
  const entries = mergeRunEntries(
    scanned.entries.filter((e) => inSubset(e.line)),
    // Without a plan, lines of one fit cannot be told apart by their settings: any two disagree.
    planned === null ? (e) => fitKey(e.line) : (e) => `${fitKey(e.line)}|${effective(e)}`,
  );
  const notes: string[] = [];
  if (scanned.files.length > 1) notes.push(`Merged ${where}.`);
  if (partial) {
    const list = (chosen: Set<string> | null, all: readonly string[]) =>
      all.filter((n) => chosen?.has(n) ?? true).join(", ");
    notes.push(
      `Report of part of the run: methods ${list(methods, runMethods)}; data sets ${list(datasets, runDatasets)}.`,
    );
  }
  const used: ResultEntry[] = [];
  if (planned === null) {
    const inRun = onGrid(settings);
    used.push(...entries.filter((e) => inRun(e.line)));
  } else {
    const other: RunResultEntry[] = [];
    for (const e of entries) {
      const fp = planned.get(fitKey(e.line));
      if (fp === undefined) continue;
      if (effective(e) === fp) used.push(e);
      else other.push(e);
    }
    if (other.length > 0) {
      notes.push(
        `${other.length} line${other.length === 1 ? "" : "s"} of ${where} left out: made with other settings than settings.json describes (the settings fingerprint differs), e.g. line ${other[0].lineNo} of ${other[0].file} (${describeFit(other[0].line)}). Run the experiment again with --force to redo those fits.`,
      );
    }
  }
  const records: FitRecord[] = [];
  const skipped: SkippedFit[] = [];
  for (const e of used) {
    if (isSkipped(e.line)) skipped.push(e.line);
    else records.push(e.line);
  }
  let completeness: Completeness | string;
  if (typeof plan === "string") {
    completeness = plan;
    notes.push(`Completeness unknown: ${plan}`);
  } else {
    const done = new Set(used.map((e) => fitKey(e.line)));
    const fits = [...plannedFits(plan, settings as RunSettings)].filter(inSubset);
    completeness = { ...completenessOf(fits, done), ...(partial ? { subset: true } : {}) };
    notes.push(
      completeness.done < completeness.planned
        ? `Incomplete run: ${completenessText(completeness)}; cells marked † are not final.`
        : partial
          ? `Complete for these methods and data sets: all ${completeness.planned} planned fits are done.`
          : `Complete run: all ${completeness.planned} planned fits are done.`,
    );
  }
  return { records, skipped, completeness, notes, partial };
}

/** Every planned fit of a plan, as fit identities. */
function* plannedFits(
  plan: RunPlan,
  settings: RunSettings,
): Generator<{ dataset: string; repeat: number; method: string; k: number; params: Params }> {
  for (const u of plan.units) {
    const dataset = settings.datasets[u.dataset].name;
    for (const f of u.fits) {
      yield { dataset, repeat: u.repeat, method: u.method, k: f.k, params: f.params };
    }
  }
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
        `The 'to' folder ${to} holds another run (${held}); its report would be replaced by this one. Choose a new folder.`,
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
    const held = presentForms(paths.results).length;
    throw new ValidationError(
      partial ? (options.methods !== undefined ? "methods" : "datasets") : "out",
      `${describeStored(paths.results)} ${held > 1 ? "hold" : "holds"} no finished fit${partial ? " of the chosen methods and data sets" : ""}, so there is nothing to report.${why}`,
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
    if (new Set(records.map((r) => r.dataset)).size > 1) {
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

/**
 * Fig. 1 from records: one line per method, ± std over data sets (or over repeats for
 * one). Every point of every line averages the same data sets (`commonCurves`): the
 * paper's average changes the data sets it averages from one k to the next (Yale
 * allows only k = 20, 30, ORL only 40..80), so its dips and jumps would show which
 * data sets are in the mean. The subtitle names the data sets averaged and what was
 * left out and why. When no two data sets share a k for the methods, or with
 * `perDataset`, one panel per data set, ± std over repeats.
 */
export function bcaVersusKSpec(
  records: readonly FitRecord[],
  settings: RunSettings | null,
  methods?: readonly string[],
  how: { readonly perDataset?: boolean } = {},
): ReturnType<typeof bcaVersusKFigure> {
  const grid = settings ? (m: string) => gridPoints(m, settings.grid) : undefined;
  const curves = bcaVersusK(records, {
    ...(grid ? { grid } : {}),
    ...(methods ? { methods } : {}),
  });
  const present = new Set(records.map((r) => r.dataset));
  // The run's order of data sets (and so of the panels), else the order of the records.
  const datasets = settings
    ? settings.datasets.map((d) => d.name).filter((d) => present.has(d))
    : [...present];
  const single = datasets.length === 1;
  const found = how.perDataset === true || single ? null : commonCurves(curves, datasets);
  // A "mean" over one of several data sets would be that data set under another name.
  const common = found !== null && found.datasets.length >= 2 ? found : null;
  const series: BcaAtK[] = [];
  if (how.perDataset === true || (!single && common === null)) {
    for (const dataset of datasets) {
      for (const curve of curves) {
        for (const p of curve.perDataset[dataset] ?? []) {
          const method = methodTitle(curve.method);
          series.push({ panel: dataset, method, k: p.k, bca: p.mean, std: p.std });
        }
      }
    }
    return bcaVersusKFigure(series, {
      // The legend in the table's order, whichever panel comes first.
      methodOrder: curves
        .map((c) => methodTitle(c.method))
        .filter((m) => series.some((p) => p.method === m)),
      title: "Test BCA versus subspace dimension k, per data set",
      subtitle:
        how.perDataset === true
          ? "Mean ± std over repeats at each valid k, hyperparameters chosen on validation at each k"
          : "Mean ± std over repeats at each valid k; no two data sets share a k for the methods, so there is no common average over data sets",
    });
  }
  if (single) {
    for (const curve of curves) {
      for (const p of curve.perDataset[datasets[0]] ?? []) {
        series.push({ method: methodTitle(curve.method), k: p.k, bca: p.mean, std: p.std });
      }
    }
    return bcaVersusKFigure(series, {
      title: "Test BCA versus subspace dimension k",
      subtitle: `${datasets[0]}: mean ± std over repeats, hyperparameters chosen on validation at each k`,
    });
  }
  const shown = common as NonNullable<typeof common>;
  for (const curve of shown.curves) {
    for (const p of curve.points) {
      series.push({ method: methodTitle(curve.method), k: p.k, bca: p.mean, std: p.std });
    }
  }
  return bcaVersusKFigure(series, {
    title: "Test BCA versus subspace dimension k",
    subtitle: commonCurvesSubtitle(shown),
  });
}

function kList(ks: readonly number[]): string {
  return ks.length === 1 ? `k = ${ks[0]}` : `k = ${ks.join(", ")}`;
}

/** What the averaged Fig. 1 averages, and what it leaves out and why, one line each. */
export function commonCurvesSubtitle(common: CommonCurves): string {
  const lines = [
    `Mean over the same ${common.datasets.length} data sets at every point (${common.datasets.join(", ")}; ± std across them), hyperparameters chosen on validation at each k`,
  ];
  const left: string[] = [];
  for (const m of common.leftOutMethods) {
    left.push(`${methodTitle(m.method)} (no results on ${m.missing.join(", ")})`);
  }
  for (const d of common.leftOutDatasets) {
    left.push(
      d.missingMethods.length > 0
        ? `${d.dataset} (no ${d.missingMethods.map(methodTitle).join(", ")})`
        : `${d.dataset} (only ${kList(d.ks)})`,
    );
  }
  if (common.leftOutKs.length > 0) {
    left.push(`${kList(common.leftOutKs)} (not valid on all of them)`);
  }
  if (left.length > 0) lines.push(`Left out: ${left.join("; ")}`);
  return lines.join("\n");
}

const SYMBOL: Readonly<Record<ParamName, string>> = {
  alpha: "α",
  beta: "β",
  delta: "δ",
  eta: "η",
};

function paramTitle(p: ParamName): string {
  return p === "eta" ? "η" : `${SYMBOL[p]} multiplier`;
}

/** The heatmap panels of Fig. 2, in the paper's order, by the pair of parameters they show. */
const PAIRS: ReadonlyArray<[keyof SensitivityPanels, ParamName, ParamName]> = [
  ["betaDelta", "beta", "delta"],
  ["alphaDelta", "alpha", "delta"],
  ["alphaBeta", "alpha", "beta"],
];

/**
 * Fig. 2 for a method (default SDSPCAAN) over the parameters its grid actually varied,
 * or null when it varied none. Three varied multipliers give the paper's three
 * heatmaps; two give the one heatmap of that pair; one (the authors' grid varies only
 * delta) gives its profile per data set, test and validation BCA, since a heatmap
 * with a constant axis would say nothing.
 */
export function sensitivitySpec(
  records: readonly FitRecord[],
  settings: RunSettings | null,
  method = "sdspcaan",
): VegaLiteSpec | null {
  const own = records.filter((r) => r.method === method);
  const varied = variedParams(own, method);
  if (varied.length === 0) return null;
  const grid = settings ? (m: string) => gridPoints(m, settings.grid) : undefined;
  const datasets = [...new Set(own.map((r) => r.dataset))];
  const title = methodTitle(method);
  if (varied.length === 1) {
    const param = varied[0];
    const profile = sensitivityProfile(own, { method, param, ...(grid ? { grid } : {}) });
    const points: ProfilePlotPoint[] = [];
    let repeats = 0;
    for (const dataset of datasets) {
      for (const p of profile.perDataset[dataset] ?? []) {
        repeats = Math.max(repeats, p.n);
        points.push({
          panel: dataset,
          line: "test",
          value: p.value,
          bca: p.testMean,
          std: p.testStd,
        });
        points.push({ panel: dataset, line: "validation", value: p.value, bca: p.valMean });
      }
    }
    const others = tunedParams(method).filter((p) => p !== param);
    return sensitivityProfiles(points, {
      title: `${title}: BCA over ${SYMBOL[param]}, the only parameter the grid varied`,
      subtitle: `k${others.length > 0 ? ` and ${others.map((p) => SYMBOL[p]).join(", ")}` : ""} at each repeat's selected values; mean over ${repeats} repeat${repeats === 1 ? "" : "s"}, test ± std`,
      xTitle: paramTitle(param),
    });
  }
  const panels: Partial<SensitivityPanels> = {};
  const averaged = new Set<string>();
  const leftOut = new Set<string>();
  let leftOutCells = 0;
  for (const [key, x, y] of PAIRS) {
    if (!varied.includes(x) || !varied.includes(y)) continue;
    const surface = sensitivitySurface(own, { method, x, y, ...(grid ? { grid } : {}) });
    panels[key] = surface.cells.map((c) => ({ x: c.x, y: c.y, bca: c.mean }));
    for (const d of surface.datasets) averaged.add(d);
    for (const d of surface.leftOutDatasets) leftOut.add(d);
    leftOutCells += surface.leftOutCells;
  }
  const used = datasets.filter((d) => averaged.has(d));
  const where =
    (used.length === 1
      ? used[0]
      : `mean over the same ${used.length} data sets in every cell${used.length <= 6 ? ` (${used.join(", ")})` : ""}`) +
    (leftOut.size > 0 ? `; left out: ${[...leftOut].join(", ")} (missing some cells)` : "") +
    (leftOutCells > 0
      ? `; ${leftOutCells} cell${leftOutCells === 1 ? "" : "s"} left out (missing on some data set)`
      : "");
  const count = Object.keys(panels).length;
  return sensitivityHeatmapPanels(panels, {
    title:
      count === 1
        ? `${title}: test BCA over the two multipliers the grid varied`
        : `${title}: test BCA over pairs of its multipliers`,
    subtitle:
      count === 1
        ? `${where}; k at its selected value`
        : `${where}; k and the third multiplier at their selected values`,
  });
}

/**
 * What to reopen a data file of a run by: the absolute path it recorded; else, for
 * a results directory moved or cloned elsewhere (a committed run in another
 * clone), the file at the recorded path relative to the results directory, or a
 * registry data set by name, found in this machine's data directories. The
 * checksum the caller compares makes sure that it is the same data either way.
 */
function reopenTarget(name: string, path: string, relative: unknown, dir: string | undefined) {
  if (existsSync(path)) return path;
  const moved = typeof relative === "string" && dir !== undefined ? resolve(dir, relative) : null;
  if (moved !== null && existsSync(moved)) return moved;
  const registered = datasetAtPath(path);
  if (registered !== null) return registered.name;
  throw new ValidationError(
    "data",
    `settings.json records ${path} as the file of ${name}, and it is not there${moved === null ? "" : ` nor at ${moved}`}.`,
  );
}

/**
 * Loads a data set of a run again from what settings.json recorded, or null.
 * `dir` is the results directory, where a path relative to it is looked for.
 */
export async function reloadDataset(
  entry: DatasetSettings,
  dir?: string,
): Promise<UnitDataset | null> {
  const origin = entry.origin;
  if (origin === null || origin === undefined) return null;
  let X: UnitDataset["X"];
  let y: Label[];
  if (origin.kind === "file" && typeof origin.path === "string") {
    // openDataset, as the run did: a registry file gets its entry's variables.
    const target = reopenTarget(entry.name, origin.path, origin.relative, dir);
    const opened = await openDataset(target, (origin.load ?? {}) as LoadOptions);
    X = opened.dataset.X;
    y = [...opened.dataset.y];
  } else if (origin.kind === "synthetic" && origin.options && typeof origin.options === "object") {
    const ds = makeSyntheticDataset(origin.options as Partial<SyntheticOptions>);
    X = ds.X;
    y = ds.y;
  } else {
    return null;
  }
  if (datasetChecksum(X, y) !== entry.checksum) {
    throw new ValidationError(
      "data",
      `${entry.name} reloaded from its recorded origin differs from the data of the run (checksum).`,
    );
  }
  return { name: entry.name, X, y };
}

/** The split of one repeat as the run made it, or null when it cannot be recreated. */
export function recreateSplit(
  settings: RunSettings,
  entry: DatasetSettings,
  data: UnitDataset,
  repeat: number,
): Split | null {
  if (entry.splitsChecksum !== null) {
    if (entry.splitsFile === null) return null;
    return parseSplitFile(readJsonFile(entry.splitsFile), data.X.rows)[repeat] ?? null;
  }
  return makeSplit(data.X.rows, {
    seed: settings.seed,
    dataset: entry.name,
    repeat,
    stratify: settings.stratify,
    fractions: settings.fractions,
    ...(settings.stratify ? { y: data.y } : {}),
  });
}

function describeParams(params: Params): string {
  const symbol: Record<string, string> = { alpha: "α", beta: "β", delta: "δ", eta: "η" };
  return tunableParams()
    .filter((p) => params[p] !== undefined)
    .map((p) => `${symbol[p]} = ${params[p]}`)
    .join(", ");
}

async function embeddingSpec(
  records: readonly FitRecord[],
  settings: RunSettings | null,
  options: RunReportOptions,
  warnings: string[],
  dir: string,
): Promise<ReturnType<typeof embeddingScatter> | null> {
  if (settings === null) {
    warnings.push("embedding: no settings.json, so the data and split cannot be recreated.");
    return null;
  }
  const datasetName =
    options.embeddingDataset ??
    settings.datasets.find((d) => records.some((r) => r.dataset === d.name))?.name;
  const entry = settings.datasets.find((d) => d.name === datasetName);
  if (entry === undefined) {
    throw new ValidationError("embeddingDataset", `The run has no data set '${datasetName}'.`);
  }
  const onData = records.filter((r) => r.dataset === entry.name);
  const method = options.embeddingMethod ?? pickEmbeddingMethod(onData, settings);
  const repeat = Math.min(...onData.filter((r) => r.method === method).map((r) => r.repeat));
  const group = onData.filter((r) => r.method === method && r.repeat === repeat);
  if (group.length === 0) {
    throw new ValidationError("embeddingMethod", `No ${method} results on ${entry.name}.`);
  }
  const chosen = selectModel(group, { grid: (m) => gridPoints(m, settings.grid) });
  const data = options.data?.get(entry.name) ?? (await reloadDataset(entry, dir));
  if (data === null) {
    warnings.push(`embedding: ${entry.name} was given in memory and cannot be reloaded.`);
    return null;
  }
  const split = recreateSplit(settings, entry, data, repeat);
  if (split === null) {
    warnings.push(`embedding: the explicit splits of ${entry.name} were not recorded as a file.`);
    return null;
  }
  const prepared = prepareSplit(data, split, settings.preprocess);
  const model = createMethod(
    method,
    fitOptions({
      fixed: settings.methodOptions[method],
      unit: chosen.record.unitOptions,
      k: chosen.k,
      params: chosen.params,
    }),
  );
  model.fitPrepared(prepared.data);
  if (model.nComponents < 2) {
    warnings.push(`embedding: ${method} at k = ${chosen.k} has fewer than 2 components.`);
    return null;
  }
  const Ptr = model.transform(prepared.parts.train);
  const Pte = model.transform(prepared.parts.test);
  const x: number[] = [];
  const y: number[] = [];
  const label: Array<string | number> = [];
  const part: SplitName[] = [];
  const add = (P: typeof Ptr, labels: Label[], name: SplitName) => {
    for (let i = 0; i < P.rows; i++) {
      x.push(P.data[i * P.cols]);
      y.push(P.data[i * P.cols + 1]);
      label.push(labels[i]);
      part.push(name);
    }
  };
  add(Ptr, prepared.yTrain, "train");
  add(Pte, prepared.yTest, "test");
  const params = describeParams(chosen.params);
  return embeddingScatter(
    { x, y, label },
    {
      title: `${methodTitle(method)} embedding of ${entry.name}`,
      subtitle: `repeat ${repeat + 1}, k = ${chosen.k}${params ? `, ${params}` : ""}; first two components (test BCA ${(100 * chosen.testBCA).toFixed(1)} %)`,
      split: part,
    },
  );
}

/** SDSPCAAN when it ran on the data set, else the method with the best mean test BCA there. */
function pickEmbeddingMethod(records: readonly FitRecord[], settings: RunSettings): string {
  const methods = settings.methods.filter((m) => records.some((r) => r.method === m));
  if (methods.includes("sdspcaan")) return "sdspcaan";
  let best = methods[0];
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const m of methods) {
    const own = records.filter((r) => r.method === m);
    const repeats = [...new Set(own.map((r) => r.repeat))];
    const scores = repeats.map(
      (rep) =>
        selectModel(
          own.filter((r) => r.repeat === rep),
          { grid: (name) => gridPoints(name, settings.grid) },
        ).testBCA,
    );
    const score = scores.reduce((a, b) => a + b, 0) / scores.length;
    if (score > bestScore) {
      bestScore = score;
      best = m;
    }
  }
  return best;
}
