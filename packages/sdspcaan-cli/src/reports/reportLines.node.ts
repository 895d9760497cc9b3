/**
 * The lines of a results directory that a report uses. The plan of the run is rebuilt
 * from settings.json (plan.ts) to know what was planned: a line counts only when its
 * fit is planned and its settings fingerprint is the planned one (a line without a
 * fingerprint, written before lines carried one, counts as made under settings.json);
 * lines made with other settings are left out and said so, and how complete the run
 * is goes into the notes. Bad lines in results.jsonl are an error naming file and
 * line, with the way out (`experiment ... --repair`).
 */
import { SdspcaanError, ValidationError } from "sdspcaan";
import { methodDescriptor, normalizeMethodName, parseSplitFile } from "sdspcaan/methods";
import type { Params } from "../protocol/grids.js";
import { type PlanDataset, planRun, type RunPlan } from "../protocol/plan.js";
import type { FitRecord } from "../protocol/records.js";
import { fitKey, paramsKey } from "../protocol/records.js";
import {
  describeFit,
  isSkipped,
  type ResultEntry,
  readJsonFile,
  type SkippedFit,
} from "../runner/resultsFile.node.js";
import { gridPoints, type RunSettings, splitsChecksum } from "../runner/runner.node.js";
import {
  describeFiles,
  mergeRunEntries,
  missingShardsText,
  type RunResultEntry,
  scanRunResults,
} from "../runner/runResults.node.js";
import type { UnitDataset } from "../runner/units.node.js";
import { reloadDataset } from "./reloadData.node.js";
import { type Completeness, completenessOf, completenessText } from "./report.js";

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
export interface ReportSubset {
  readonly methods?: readonly string[];
  readonly datasets?: readonly string[];
}

/**
 * The run's names that `requested` names (methods compared as `experiment` normalises
 * them, data sets in any case), or null when nothing was requested. An empty list or a
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
  // Data set names in any case, as the registry takes them; an exact match first, so
  // that a run with two names differing only in case still reaches each.
  const key = (name: string) =>
    argument === "methods" ? normalizeMethodName(name) : name.toLowerCase();
  const chosen = new Set<string>();
  const unknown: unknown[] = [];
  for (const name of requested) {
    const found =
      typeof name !== "string"
        ? undefined
        : (known.find((k) => k === name) ?? known.find((k) => key(k) === key(name)));
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
export interface ReportLines {
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
export async function reportLines(
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
    const missingShards = missingShardsText(scanned.files);
    notes.push(
      completeness.done < completeness.planned
        ? `Incomplete run: ${completenessText(completeness)}; cells marked † are not final.${missingShards === null ? "" : ` ${missingShards}`}`
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
