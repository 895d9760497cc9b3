/**
 * The experiment runner (Node): the paper's protocol over data sets x repeats x
 * methods x k x hyperparameters, in worker threads, with a results file that a
 * re-run resumes.
 *
 * Work is cut into units of (dataset, repeat, method); a unit's fits share the
 * split, its preprocessing and the prepared training data, and run in a fixed
 * order inside one worker (units.node.ts). Results therefore do not depend on the
 * number of workers, nor on where an interrupted run stopped: nothing is carried
 * from one grid point to the next.
 *
 * Every finished fit is appended to `<out>/results.jsonl` at once, with the
 * settings fingerprint of the fit (plan.ts); a re-run skips every fit whose line
 * is there with the fingerprint the run now asks for, so an interrupted run loses
 * at most the fits in flight, and a line made under other settings is never
 * taken for a result of this run. `settings.json` records what the run was asked
 * to do; a resumed run with different settings, or with lines of other settings,
 * is refused unless `force` is set, which reuses every fit whose fingerprint
 * matches and sets the other lines aside. Bad lines (not JSON, not a results
 * line, two lines of one fit with different results) are an error unless
 * `repair` is set, which moves them to results.rejected.jsonl and redoes them.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join, resolve as resolvePath } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import {
  AbortError,
  ConvergenceError,
  DataFormatError,
  SdspcaanError,
  throwIfAborted,
  ValidationError,
} from "../core/errors.js";
import { asMatrix, encodeLabels, type Label } from "../core/validate.js";
import type { LoadOptions } from "../io/load.js";
import { openDataset } from "../io/load.js";
import type { LocateOptions } from "../io/locate.js";
import type { MatrixLike } from "../linalg/matrix.js";
import {
  createMethod,
  methodDescriptor,
  methodNames,
  normalizeMethodName,
} from "../methods/registry.js";
import { type GridSpec, METHOD_NAMES, METHOD_PARAMS, parseGridSpec } from "./grids.js";
import { PAPER_K_GRID } from "./kGrid.js";
import {
  type DatasetOrigin,
  type DatasetSettings,
  FitFingerprints,
  gridPoints,
  planRun,
  planSplit,
  type RunPlan,
  type RunSettings,
} from "./plan.js";
import { checkPreprocessing, PREPROCESSINGS, type Preprocessing } from "./preprocess.js";
import { type FitRecord, fitKey } from "./records.js";
import {
  appendSetAside,
  badLinesError,
  type ConflictingLines,
  dedupeEntries,
  describeConflict,
  describeFit,
  isSkipped,
  RESULTS_FILE,
  type ResultEntry,
  type ResultLine,
  ResultsWriter,
  readJsonFile,
  resultLineText,
  resultsPaths,
  rewriteResultsFile,
  SETTINGS_FILE,
  type SkippedFit,
  scanResultsFile,
  writeJsonFile,
} from "./resultsFile.node.js";
import { PAPER_FRACTIONS, parseSplitFile, type Split, type SplitFractions } from "./splits.js";
import {
  shareDataset,
  type UnitDataset,
  UnitRunner,
  type UnitSettings,
  type WorkUnit,
} from "./units.node.js";
import type { ErrorMessage, FromWorker, ToWorker, WorkerInit } from "./worker.node.js";

export type { DatasetOrigin, DatasetSettings, RunSettings } from "./plan.js";
export { gridPoints, presetUnitOptions } from "./plan.js";

/** A data set of the run: a registry name or file path, or data in memory. */
export type ExperimentDataset =
  | {
      /** Name in tables and records (default: the registry name, else the file name). */
      readonly name?: string;
      /** A registry name (e.g. "Yale") or a path to a MAT, NPY or CSV file. */
      readonly source: string;
      /** Variables, label column and data directories (see `openDataset`). */
      readonly load?: LoadOptions & LocateOptions;
      /** Explicit splits (a split file path or the splits) instead of seeded ones. */
      readonly splits?: string | readonly Split[];
    }
  | {
      readonly name: string;
      readonly X: MatrixLike;
      readonly y: ArrayLike<Label>;
      /** How to make the data again (recorded in settings.json, e.g. generator options). */
      readonly origin?: DatasetOrigin;
      readonly splits?: string | readonly Split[];
    };

/** What to run. */
export interface ExperimentOptions {
  readonly datasets: readonly ExperimentDataset[];
  /** Method names (case-insensitive, "_" for "-"), or "all" = every registered method (default). */
  readonly methods?: readonly string[] | "all";
  /** Hyperparameter grid: "paper" (default), "authors", "quick", or a custom grid. */
  readonly grid?: GridSpec | string;
  /** Candidate k values (default {10, 20, ..., 100}); filtered per split as in the paper. */
  readonly kGrid?: readonly number[];
  /** Repeats (splits) per data set (default 10, or the number of explicit splits). */
  readonly repeats?: number;
  /** Base seed of the splits (default 0). */
  readonly seed?: number;
  /** Feature preprocessing (default "train-zscore"). */
  readonly preprocess?: Preprocessing;
  /** Stratified splits (default false, as the paper). */
  readonly stratify?: boolean;
  /** Training and validation fractions (default 0.2 / 0.4). */
  readonly fractions?: SplitFractions;
  /** Fixed options per method name (e.g. `{ sdspcaan: { maxIter: 100 } }`). */
  readonly methodOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /**
   * Fixed options for every method that has them (e.g. `{ maxIter: 100, tol: 1e-4 }`);
   * a method without the option ignores it. `methodOptions` wins on a clash.
   */
  readonly commonMethodOptions?: Readonly<Record<string, unknown>>;
  /** Worker threads (default: one per core). Results do not depend on it. */
  readonly workers?: number;
  /**
   * Fit in the calling thread instead of worker threads (default: when workers = 1).
   * A long fit then blocks the event loop: abort takes effect between iterations.
   */
  readonly inProcess?: boolean;
  /** Results directory (results.jsonl, settings.json). Without it nothing is written. */
  readonly out?: string;
  /**
   * Go on in a results directory whose settings.json or lines were made with other
   * settings: every fit whose settings fingerprint matches is reused, the lines
   * that do not match are moved to results.jsonl.old-N, and their fits are redone.
   */
  readonly force?: boolean;
  /**
   * Move bad lines of results.jsonl (not JSON, not a results line, two lines of one
   * fit with different results) to results.rejected.jsonl and redo their fits,
   * instead of stopping with an error.
   */
  readonly repair?: boolean;
}

/** Reported after every finished fit (and once at the start). */
export interface ExperimentProgress {
  /** Fits finished, including those found in the results file at the start. */
  readonly done: number;
  /** Fits of the whole run. */
  readonly total: number;
  /** Fits found in the results file at the start (not redone). */
  readonly resumed: number;
  /** Configurations the methods refused so far (part of `done`). */
  readonly skipped: number;
  /** Milliseconds since the run started. */
  readonly elapsedMs: number;
  /** Estimated milliseconds left (null until a fit of this session has finished). */
  readonly etaMs: number | null;
  /** The line just written (absent in the first report). */
  readonly line?: ResultLine;
}

/** A message for the user, given while the run is prepared (before any fit). */
export interface ExperimentMessage {
  /** "warning": the run does not do all it was asked (e.g. k values dropped); "note": for information. */
  readonly level: "note" | "warning";
  readonly text: string;
}

/** Progress and cancellation of a run. */
export interface ExperimentCallbacks {
  readonly onProgress?: (progress: ExperimentProgress) => void;
  /** Each note and warning as it arises (they are also in the result). */
  readonly onMessage?: (message: ExperimentMessage) => void;
  /** Aborting stops the run: in-flight fits are lost, the results file stays consistent. */
  readonly signal?: AbortSignal;
}

/** What a run produced. */
export interface ExperimentResult {
  readonly settings: RunSettings;
  /** Every fit record of the run (resumed ones first), one per configuration. */
  readonly records: FitRecord[];
  /** Every refused configuration of the run. */
  readonly skipped: SkippedFit[];
  /** Fits of the whole run, and how many were found in the results file at the start. */
  readonly total: number;
  readonly resumed: number;
  /** Notes for the user, e.g. a method with no valid k on a data set, or what a resume reused. */
  readonly notes: string[];
  /** Warnings: what the run does not do although asked (e.g. k values dropped from the k grid). */
  readonly warnings: string[];
  /** The loaded data sets, by name (for reports that refit, e.g. the embedding figure). */
  readonly data: ReadonlyMap<string, UnitDataset>;
  readonly elapsedMs: number;
}

function checkPositiveInteger(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > max) {
    throw new ValidationError(
      name,
      `The '${name}' option must be an integer in [1, ${max === Number.MAX_SAFE_INTEGER ? "inf)" : `${max}]`}. Got ${JSON.stringify(value)} instead.`,
    );
  }
  return value;
}

/** Resolves the method list: registered names, normalised, without repeats, in the paper's column order. */
export function resolveMethods(methods: readonly string[] | "all" | undefined): string[] {
  if (methods === undefined || methods === "all") {
    return orderMethods(methodNames());
  }
  if (!Array.isArray(methods) || methods.length === 0) {
    throw new ValidationError(
      "methods",
      `The 'methods' option must be "all" or a non-empty list of method names (${methodNames().join(", ")}). Got ${JSON.stringify(methods)} instead.`,
    );
  }
  const out: string[] = [];
  for (const m of methods) {
    if (typeof m === "string" && normalizeMethodName(m) === "all")
      return orderMethods(methodNames());
    methodDescriptor(m);
    const name = normalizeMethodName(m);
    if (!out.includes(name)) out.push(name);
  }
  return orderMethods(out);
}

/** Methods in the paper's column order, then any other in registry order. */
function orderMethods(names: readonly string[]): string[] {
  const rank = (m: string) => {
    const i = (METHOD_NAMES as readonly string[]).indexOf(m);
    return i < 0 ? METHOD_NAMES.length : i;
  };
  return names
    .map((m, i) => ({ m, i }))
    .sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i)
    .map((x) => x.m);
}

function resolveGrid(grid: GridSpec | string | undefined): GridSpec {
  if (grid === undefined) return "paper";
  if (typeof grid === "string" && !["paper", "authors", "quick"].includes(grid)) {
    return parseGridSpec(grid);
  }
  return grid as GridSpec;
}

/** Fixed options per method: common options the method has, then its own. */
function resolveMethodOptions(
  methods: readonly string[],
  common: Readonly<Record<string, unknown>> | undefined,
  perMethod: Readonly<Record<string, Readonly<Record<string, unknown>>>> | undefined,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const given = new Map<string, Readonly<Record<string, unknown>>>();
  for (const [name, opts] of Object.entries(perMethod ?? {})) {
    methodDescriptor(name);
    given.set(normalizeMethodName(name), opts);
  }
  for (const m of methods) {
    const schema = methodDescriptor(m).options;
    const opts: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(common ?? {})) {
      if (Object.hasOwn(schema, key) && value !== undefined) opts[key] = value;
    }
    Object.assign(opts, given.get(m) ?? {});
    if (Object.hasOwn(opts, "k")) {
      throw new ValidationError("methodOptions", `'k' of ${m} is set by the k grid ('kGrid').`);
    }
    const tuned = (METHOD_PARAMS as Readonly<Record<string, readonly string[]>>)[m] ?? [];
    for (const name of tuned) {
      if (Object.hasOwn(opts, name)) {
        throw new ValidationError(
          "methodOptions",
          `'${name}' of ${m} is set by the hyperparameter grid; give a one-value grid (e.g. "${name}=1") instead of a fixed option.`,
        );
      }
    }
    // Construct once now so that a bad option fails the run before any fit starts.
    createMethod(m, { ...opts });
    out[m] = opts;
  }
  return out;
}

/** A stable 64-bit hash (hex) of bytes, for telling data sets and splits apart. */
function hashBytes(bytes: Uint8Array, h1 = 0x811c9dc5, h2 = 0x01000193): [number, number] {
  for (let i = 0; i < bytes.length; i++) {
    h1 = Math.imul(h1 ^ bytes[i], 0x01000193);
    h2 = Math.imul(h2 ^ bytes[i], 0x5bd1e995) ^ (h2 >>> 15);
  }
  return [h1 >>> 0, h2 >>> 0];
}

function hex(pair: [number, number]): string {
  return pair.map((v) => v.toString(16).padStart(8, "0")).join("");
}

/** Checksum of a data set's X and labels. */
export function datasetChecksum(X: { data: Float64Array }, y: ArrayLike<Label>): string {
  const view = new Uint8Array(X.data.buffer, X.data.byteOffset, X.data.byteLength);
  const [a, b] = hashBytes(view);
  const labels = new TextEncoder().encode(JSON.stringify(Array.from(y)));
  return hex(hashBytes(labels, a, b));
}

/** Checksum of explicit splits, as settings.json records it. */
export function splitsChecksum(splits: readonly Split[]): string {
  const text = JSON.stringify(
    splits.map((s) => [Array.from(s.train), Array.from(s.val), Array.from(s.test)]),
  );
  return hex(hashBytes(new TextEncoder().encode(text)));
}

interface LoadedRunDataset {
  readonly data: UnitDataset;
  readonly classes: number;
  readonly origin: DatasetOrigin | null;
  readonly splits: readonly Split[] | null;
  readonly splitsFile: string | null;
}

async function loadRunDataset(spec: ExperimentDataset, index: number): Promise<LoadedRunDataset> {
  if (spec === null || typeof spec !== "object") {
    throw new ValidationError(
      "datasets",
      `datasets[${index}] must be {source} or {name, X, y}. Got ${JSON.stringify(spec)}.`,
    );
  }
  let name: string;
  let X: UnitDataset["X"];
  let y: Label[];
  let origin: DatasetOrigin | null;
  if ("source" in spec) {
    const opened = await openDataset(spec.source, spec.load ?? {});
    name = spec.name ?? opened.entry?.name ?? datasetNameFromPath(opened.path);
    if (opened.dataset.predefinedTest !== undefined && spec.splits === undefined) {
      // Seeded 20/40/40 splits would mix the data set's own test images into training.
      throw new ValidationError(
        "datasets",
        `${name} comes with its own test set (${opened.dataset.predefinedTest.length} samples, rows ${opened.dataset.predefinedTest[0]} on); the experiment needs explicit splits for it: write them with 'sdspcaan datasets splits ${name} --out splits.json' (test = those rows, validation = a seeded sixth of the training samples) and pass --splits splits.json, or use 'sdspcaan evaluate', which trains on all training samples.`,
      );
    }
    X = opened.dataset.X;
    y = [...opened.dataset.y];
    const { dataDir: _d, env: _e, cwd: _c, cacheDir: _k, ...load } = spec.load ?? {};
    origin = { kind: "file", path: resolvePath(opened.path), load };
  } else {
    if (typeof spec.name !== "string" || spec.name.trim() === "") {
      throw new ValidationError(
        "datasets",
        `datasets[${index}] holds data in memory and needs a non-empty 'name'.`,
      );
    }
    name = spec.name;
    X = asMatrix(spec.X, `datasets[${index}].X`, { minRows: 3 });
    y = Array.from(spec.y);
    origin = spec.origin ?? null;
  }
  const { classes } = encodeLabels(y, X.rows, `labels of ${name}`);
  let splits: Split[] | null = null;
  if (spec.splits !== undefined) {
    splits =
      typeof spec.splits === "string"
        ? parseSplitFile(readJsonFile(spec.splits), X.rows)
        : parseSplitFile(
            {
              index_base: 0,
              splits: spec.splits.map((s) => ({
                train: Array.from(s.train),
                val: Array.from(s.val),
                test: Array.from(s.test),
              })),
            },
            X.rows,
          );
  }
  const splitsFile = typeof spec.splits === "string" ? resolvePath(spec.splits) : null;
  return { data: { name, X, y }, classes: classes.length, origin, splits, splitsFile };
}

/** "Yale_32x32" from "/data/Yale_32x32.mat". */
export function datasetNameFromPath(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

/** Everything a run needs before fitting: data, settings, and the plan with its work units. */
interface Plan {
  readonly settings: RunSettings;
  readonly datasets: readonly LoadedRunDataset[];
  /** The pure plan (units, fingerprints, notes, warnings). */
  readonly run: RunPlan;
  /** The plan's units as the workers take them. */
  readonly units: WorkUnit[];
}

async function makePlan(options: ExperimentOptions): Promise<Plan> {
  if (options === null || typeof options !== "object") {
    throw new ValidationError("options", "runExperiment needs an options object {datasets, ...}.");
  }
  if (!Array.isArray(options.datasets) || options.datasets.length === 0) {
    throw new ValidationError(
      "datasets",
      "The 'datasets' option must be a non-empty list of data sets ({source} or {name, X, y}).",
    );
  }
  const methods = resolveMethods(options.methods);
  const grid = resolveGrid(options.grid);
  for (const m of methods) gridPoints(m, grid);
  const kCandidates = [...(options.kGrid ?? PAPER_K_GRID)];
  if (kCandidates.length === 0) {
    throw new ValidationError("kGrid", "The 'kGrid' option must list at least one k.");
  }
  for (const k of kCandidates) checkPositiveInteger("kGrid", k);
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1) {
    throw new ValidationError(
      "seed",
      `The 'seed' option must be an integer in [0, 4294967295]. Got ${JSON.stringify(seed)} instead.`,
    );
  }
  const preprocess = checkPreprocessing(options.preprocess ?? "train-zscore");
  const stratify = options.stratify ?? false;
  if (typeof stratify !== "boolean") {
    throw new ValidationError(
      "stratify",
      `'stratify' must be true or false. Got ${JSON.stringify(stratify)}.`,
    );
  }
  const fractions = options.fractions ?? PAPER_FRACTIONS;
  const methodOptions = resolveMethodOptions(
    methods,
    options.commonMethodOptions,
    options.methodOptions,
  );

  const datasets: LoadedRunDataset[] = [];
  for (let i = 0; i < options.datasets.length; i++) {
    const ds = await loadRunDataset(options.datasets[i], i);
    if (datasets.some((o) => o.data.name === ds.data.name)) {
      throw new ValidationError(
        "datasets",
        `Two data sets are named '${ds.data.name}'; give them different names.`,
      );
    }
    datasets.push(ds);
  }
  const withSplits = datasets.filter((d) => d.splits !== null);
  const repeats =
    options.repeats ??
    (withSplits.length === datasets.length
      ? Math.min(...withSplits.map((d) => (d.splits as Split[]).length))
      : 10);
  checkPositiveInteger("repeats", repeats);
  for (const d of withSplits) {
    const count = (d.splits as Split[]).length;
    if (repeats > count) {
      throw new ValidationError(
        "repeats",
        `${d.data.name} has ${count} explicit split(s), fewer than the ${repeats} repeats asked for.`,
      );
    }
  }

  const settings: RunSettings = {
    format: "sdspcaan-experiment",
    version: 1,
    datasets: datasets.map((d) => ({
      name: d.data.name,
      n: d.data.X.rows,
      d: d.data.X.cols,
      classes: d.classes,
      checksum: datasetChecksum(d.data.X, d.data.y),
      splitsChecksum: d.splits === null ? null : splitsChecksum(d.splits.slice(0, repeats)),
      origin: d.origin,
      splitsFile: d.splitsFile,
    })),
    methods,
    grid,
    kGrid: kCandidates,
    repeats,
    seed,
    preprocess,
    stratify,
    fractions,
    methodOptions,
  };

  const run = planRun(
    settings,
    datasets.map((d) => ({ y: d.data.y, splits: d.splits })),
    { explicitKGrid: options.kGrid !== undefined },
  );
  const units: WorkUnit[] = run.units.map((u, id) => ({
    id,
    dataset: u.dataset,
    repeat: u.repeat,
    method: u.method,
    seed: u.seed,
    split: u.split,
    fits: u.fits.map(({ k, params }) => ({ k, params })),
    ...(u.unitOptions ? { unitOptions: u.unitOptions } : {}),
  }));
  return { settings, datasets, run, units };
}

/** One way in which the settings of a resumed run differ from the recorded ones. */
export interface SettingsDifference {
  readonly setting: string;
  readonly message: string;
  /**
   * True when the change alone leaves the fits already made valid in general (more
   * or fewer methods, grid points, k values or repeats). A forced resume decides
   * fit by fit from the settings fingerprints, so a fit this change does affect
   * (e.g. SLNP under the "authors" preset, whose PCA dimension is the largest k)
   * is redone all the same.
   */
  readonly keepsResults: boolean;
}

const EXTENDING_SETTINGS = new Set(["methods", "grid", "kGrid", "repeats"]);

/** How two run settings differ (empty when a resumed run may reuse every finished fit). */
export function settingsDifferences(
  previous: RunSettings,
  current: RunSettings,
): SettingsDifference[] {
  const out: SettingsDifference[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const strip = (list: readonly DatasetSettings[]) =>
    list.map(({ origin: _o, splitsFile: _f, ...rest }) => rest);
  if (!same(strip(previous.datasets ?? []), strip(current.datasets))) {
    const describe = (list: readonly DatasetSettings[]) =>
      list.map((d) => `${d.name} (${d.n} x ${d.d}, checksum ${d.checksum})`).join(", ");
    out.push({
      setting: "datasets",
      message: `datasets: ${describe(previous.datasets ?? [])} before, ${describe(current.datasets)} now`,
      keepsResults: false,
    });
  }
  for (const key of [
    "methods",
    "grid",
    "kGrid",
    "repeats",
    "seed",
    "preprocess",
    "stratify",
    "fractions",
    "methodOptions",
  ] as const) {
    if (!same(previous[key], current[key])) {
      out.push({
        setting: key,
        message: `${key}: ${JSON.stringify(previous[key])} before, ${JSON.stringify(current[key])} now`,
        keepsResults: EXTENDING_SETTINGS.has(key),
      });
    }
  }
  return out;
}

/** A free name "results.jsonl.old-N" beside the results file, for setting old results aside. */
function asideName(path: string): string {
  for (let i = 1; ; i++) {
    const candidate = `${path}.old-${i}`;
    if (!existsSync(candidate)) return candidate;
  }
}

/** Reads settings.json of a results directory (null when there is none). */
export function readRunSettings(dir: string): RunSettings | null {
  const { settings } = resultsPaths(dir);
  if (!existsSync(settings)) return null;
  const value = readJsonFile(settings) as RunSettings;
  if (value === null || typeof value !== "object" || value.format !== "sdspcaan-experiment") {
    throw new DataFormatError(
      settings,
      `not the settings of an sdspcaan experiment (no "format": "sdspcaan-experiment")`,
    );
  }
  checkRunSettings(value, settings);
  return value;
}

/**
 * Checks the fields of settings.json that resuming and reporting rely on, so that
 * a damaged file is named rather than failing somewhere inside the plan.
 */
function checkRunSettings(value: RunSettings, file: string): void {
  const bad = (field: string, what: string, got: unknown) => {
    throw new DataFormatError(file, `"${field}" must be ${what}. Got ${JSON.stringify(got)}.`);
  };
  const isCount = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 1;
  if (!Array.isArray(value.datasets) || value.datasets.length === 0) {
    bad("datasets", "a non-empty list", value.datasets);
  }
  value.datasets.forEach((d, i) => {
    if (d === null || typeof d !== "object") bad(`datasets[${i}]`, "an object", d);
    if (typeof d.name !== "string" || d.name === "") bad(`datasets[${i}].name`, "a name", d.name);
    for (const key of ["n", "d", "classes"] as const) {
      if (!isCount(d[key])) bad(`datasets[${i}].${key}`, "an integer >= 1", d[key]);
    }
    if (typeof d.checksum !== "string") bad(`datasets[${i}].checksum`, "a string", d.checksum);
    if (d.splitsChecksum !== null && typeof d.splitsChecksum !== "string") {
      bad(`datasets[${i}].splitsChecksum`, "a string or null", d.splitsChecksum);
    }
  });
  if (!Array.isArray(value.methods) || value.methods.some((m) => typeof m !== "string")) {
    bad("methods", "a list of method names", value.methods);
  }
  if (!Array.isArray(value.kGrid) || value.kGrid.length === 0 || !value.kGrid.every(isCount)) {
    bad("kGrid", "a non-empty list of integers >= 1", value.kGrid);
  }
  if (!isCount(value.repeats)) bad("repeats", "an integer >= 1", value.repeats);
  if (typeof value.seed !== "number" || !Number.isInteger(value.seed) || value.seed < 0) {
    bad("seed", "an integer >= 0", value.seed);
  }
  if (typeof value.stratify !== "boolean") bad("stratify", "true or false", value.stratify);
  const f = value.fractions as unknown as Record<string, unknown> | null;
  if (
    f === null ||
    typeof f !== "object" ||
    typeof f.train !== "number" ||
    typeof f.val !== "number"
  ) {
    bad("fractions", "{train, val}", value.fractions);
  }
  if (value.methodOptions === null || typeof value.methodOptions !== "object") {
    bad("methodOptions", "an object", value.methodOptions);
  }
  if (value.grid === undefined || value.grid === null) bad("grid", "a grid", value.grid);
  if (!(PREPROCESSINGS as readonly unknown[]).includes(value.preprocess)) {
    bad("preprocess", `one of ${PREPROCESSINGS.join(", ")}`, value.preprocess);
  }
}

/** The ES-module entry of tsx's API (its package "exports" map names it). */
function tsxApiUrl(): string {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve("tsx/package.json");
  const pkg = JSON.parse(readFileSync(pkgPath, "utf8")) as {
    exports: Record<string, { import?: { default?: string } }>;
  };
  const entry = pkg.exports["./esm/api"]?.import?.default;
  if (typeof entry !== "string") {
    throw new SdspcaanError(`Cannot find the ES-module API of tsx in ${pkgPath}.`);
  }
  return pathToFileURL(join(dirname(pkgPath), entry)).href;
}

/** How to start the worker: the built .js, or the .ts source through tsx (tests, development). */
function createWorker(init: WorkerInit): Worker {
  const js = new URL("./worker.node.js", import.meta.url);
  if (existsSync(fileURLToPath(js))) return new Worker(js, { workerData: init });
  const ts = new URL("./worker.node.ts", import.meta.url);
  if (!existsSync(fileURLToPath(ts))) {
    throw new SdspcaanError(
      `The experiment worker is missing: neither ${fileURLToPath(js)} nor its .ts source exists.`,
    );
  }
  // Running from sources (tests, development): register tsx's loader in the worker
  // (worker execArgv cannot carry --import on Node 20), then load the .ts entry.
  const code = `import(${JSON.stringify(tsxApiUrl())}).then((m) => { m.register(); return import(${JSON.stringify(ts.href)}); });`;
  return new Worker(code, { eval: true, workerData: init });
}

/** Rebuilds a library error sent from a worker, keeping its class for the caller. */
function errorFromWorker(e: ErrorMessage, unit: WorkUnit | undefined, datasetName: string): Error {
  const where = unit ? ` (${datasetName}, repeat ${unit.repeat}, ${unit.method})` : "";
  switch (e.name) {
    case "ValidationError":
      return new ValidationError(e.argument ?? "options", e.message);
    case "ConvergenceError":
      return new ConvergenceError(e.message);
    case "AbortError":
      return new AbortError(e.message);
    default: {
      const err = new Error(`${e.name}: ${e.message}${where}`);
      if (e.stack) err.stack = `${err.message}\n[worker] ${e.stack}`;
      return err;
    }
  }
}

/** Runs units on a pool of worker threads; resolves when all are done. */
async function runInWorkers(
  plan: Plan,
  units: readonly WorkUnit[],
  unitSettings: UnitSettings,
  workers: number,
  onLine: (line: ResultLine) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  const init: WorkerInit = {
    kind: "sdspcaan-experiment-worker",
    datasets: plan.datasets.map((d) => shareDataset(d.data)),
    settings: unitSettings,
  };
  const queue = [...units];
  const pool: Worker[] = [];
  const busy = new Map<Worker, WorkUnit>();
  await new Promise<void>((resolve, reject) => {
    let finished = false;
    const stopAll = () => {
      for (const w of pool) void w.terminate();
    };
    const fail = (err: unknown) => {
      if (finished) return;
      finished = true;
      signal?.removeEventListener("abort", onAbort);
      stopAll();
      reject(err);
    };
    const onAbort = () => {
      try {
        throwIfAborted(signal);
      } catch (err) {
        fail(err);
      }
    };
    if (signal) {
      if (signal.aborted) return onAbort();
      signal.addEventListener("abort", onAbort, { once: true });
    }
    const next = (w: Worker) => {
      const unit = queue.shift();
      if (unit === undefined) {
        busy.delete(w);
        if (busy.size === 0 && !finished) {
          finished = true;
          signal?.removeEventListener("abort", onAbort);
          stopAll();
          resolve();
        }
        return;
      }
      busy.set(w, unit);
      const msg: ToWorker = { type: "unit", unit };
      w.postMessage(msg);
    };
    const count = Math.max(1, Math.min(workers, queue.length));
    for (let i = 0; i < count; i++) {
      const w = createWorker(init);
      pool.push(w);
      w.on("message", (msg: FromWorker) => {
        if (finished) return;
        if (msg.type === "line") {
          try {
            onLine(msg.line);
          } catch (err) {
            fail(err);
          }
        } else if (msg.type === "done") {
          next(w);
        } else {
          const unit = busy.get(w);
          fail(errorFromWorker(msg.error, unit, unit ? plan.datasets[unit.dataset].data.name : ""));
        }
      });
      w.on("error", (err) => fail(err));
      w.on("exit", (code) => {
        if (!finished && busy.has(w)) {
          fail(new SdspcaanError(`An experiment worker stopped unexpectedly (exit code ${code}).`));
        }
      });
      next(w);
    }
  });
}

/**
 * Fingerprints of lines written before fingerprints existed, from the settings.json
 * they were made under (`old`). A split is recreated from the old settings (seeded),
 * or taken from this run when it has the very splits the old run had (explicit);
 * when neither is possible the line gets no fingerprint and cannot be reused.
 */
function legacyFingerprints(old: RunSettings, plan: Plan): FitFingerprints {
  const now = new Map(
    plan.datasets.map((d, i) => [d.data.name, { loaded: d, entry: plan.settings.datasets[i] }]),
  );
  return new FitFingerprints(old, (dataset, repeat) => {
    const entry = old.datasets[dataset];
    const current = now.get(entry.name);
    if (entry.splitsChecksum !== null) {
      const splits = current?.loaded.splits ?? null;
      if (splits === null || repeat >= old.repeats || splits.length < old.repeats) return null;
      return splitsChecksum(splits.slice(0, old.repeats)) === entry.splitsChecksum
        ? splits[repeat]
        : null;
    }
    if (old.stratify) {
      // A stratified split needs the labels: only this run's data, if it is the same data.
      if (current === undefined || current.entry.checksum !== entry.checksum) return null;
      return planSplit(old, dataset, { y: current.loaded.data.y, splits: null }, repeat);
    }
    return planSplit(old, dataset, { y: null, splits: null }, repeat);
  });
}

/** What a resumed run found in its results directory, and what it does about it. */
interface ResumeState {
  /** Lines reused as results of this run. */
  readonly reused: ResultLine[];
  readonly notes: string[];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function lineList(entries: ReadonlyArray<{ readonly lineNo: number }>): string {
  const nums = entries.map((e) => e.lineNo).sort((a, b) => a - b);
  return nums.slice(0, 10).join(", ") + (nums.length > 10 ? `, ... (${nums.length} in all)` : "");
}

/**
 * Reads the results directory of a run and decides, line by line, what is reused.
 * A line is reused when its fit is planned and its fingerprint (for an old line
 * without one: the fingerprint settings.json gives it) is the planned one.
 * Refuses (unless `force`) settings that differ from settings.json and lines of
 * planned fits made with other settings; refuses (unless `repair`) bad lines.
 * With `force`/`repair`, sets the other lines aside and rewrites results.jsonl
 * atomically; before settings.json changes, old lines without a fingerprint get
 * the one settings.json gives them, so they keep their meaning.
 */
function prepareResume(
  dir: string,
  plan: Plan,
  options: Pick<ExperimentOptions, "force" | "repair">,
): ResumeState {
  const paths = resultsPaths(dir);
  const scanned = scanResultsFile(paths.results);
  const old = readRunSettings(dir);
  const notes: string[] = [];
  if (scanned.entries.length + scanned.invalid.length === 0) return { reused: [], notes };

  const legacy = old !== null ? legacyFingerprints(old, plan) : null;
  const effective = new Map<ResultEntry, string | null>();
  for (const e of scanned.entries) {
    effective.set(e, e.line.fingerprint ?? legacy?.ofLine(e.line) ?? null);
  }
  const keyOf = (e: ResultEntry) => `${fitKey(e.line)}|${effective.get(e) ?? "unknown"}`;
  const { entries, conflicts } = dedupeEntries(scanned.entries, keyOf);

  // Bad lines: an error naming them, or (repair) set aside with every line of a conflicting fit.
  const rejected: Array<{ lineNo: number; text: string; reason: string }> = [];
  let kept = entries;
  if (scanned.invalid.length > 0 || conflicts.length > 0) {
    if (!options.repair) throw badLinesError(paths.results, scanned.invalid, conflicts);
    // Every line of a fit with conflicting lines goes: which of them is right is unknown.
    const conflicting = new Map<string, ConflictingLines>();
    for (const c of conflicts)
      if (!conflicting.has(keyOf(c.first))) conflicting.set(keyOf(c.first), c);
    for (const b of scanned.invalid) rejected.push(b);
    for (const e of scanned.entries) {
      const c = conflicting.get(keyOf(e));
      if (c !== undefined)
        rejected.push({ lineNo: e.lineNo, text: e.text, reason: describeConflict(c) });
    }
    kept = entries.filter((e) => !conflicting.has(keyOf(e)));
  }

  const diffs = old !== null ? settingsDifferences(old, plan.settings) : [];
  const reused: ResultEntry[] = [];
  const stale: ResultEntry[] = [];
  const unverifiable: ResultEntry[] = [];
  for (const e of kept) {
    const planned = plan.run.fingerprints.get(fitKey(e.line));
    const fp = effective.get(e) ?? null;
    if (planned !== undefined) {
      if (fp === planned) reused.push(e);
      else stale.push(e);
    } else if (fp === null) {
      // Outside this run and without a fingerprint that settings.json could give it.
      unverifiable.push(e);
    }
  }
  // Lines outside the run without a fingerprint lose their meaning once settings.json changes.
  const settingsChange = old === null || diffs.length > 0;
  const orphans = settingsChange ? unverifiable : [];
  const toRun = plan.run.total - reused.length;

  if (!options.force && (diffs.length > 0 || stale.length > 0 || orphans.length > 0)) {
    const forced = `--force (force) reuses the ${plural(reused.length, "fit")} whose settings fingerprint matches, moves the other ${plural(stale.length + orphans.length, "line")} to ${RESULTS_FILE}.old-N, and runs the ${plural(toRun, "fit")} left`;
    if (diffs.length > 0) {
      throw new ValidationError(
        "out",
        `${dir} holds results of a run with different settings (${diffs.map((d) => d.message).join("; ")}). Use another output directory, or go on with ${forced}.`,
      );
    }
    const example = stale[0] ?? orphans[0];
    throw new ValidationError(
      "out",
      `${paths.results} holds ${plural(stale.length + orphans.length, "line")} made with other settings than this run${old === null ? ` (there is no ${SETTINGS_FILE} to say which)` : ""}: their settings fingerprint is not this run's, e.g. line ${example.lineNo} (${describeFit(example.line)}). Use another output directory, or go on with ${forced}.`,
    );
  }

  const setAside = [...stale, ...orphans];
  const legacyLines = kept.filter((e) => e.line.fingerprint === undefined);
  // Rewrite when lines leave the file, or when old lines must get their fingerprint
  // written down before settings.json, which gives it to them, changes.
  const stamp = legacyLines.length > 0 && settingsChange;
  if (setAside.length > 0 || rejected.length > 0 || stamp) {
    const leaving = new Set<number>([...setAside, ...rejected].map((e) => e.lineNo));
    const lines: string[] = [];
    let stamped = 0;
    for (const e of kept) {
      if (leaving.has(e.lineNo)) continue;
      const fp = effective.get(e) ?? null;
      if (e.line.fingerprint === undefined && fp !== null) {
        lines.push(resultLineText({ ...e.line, fingerprint: fp }).trimEnd());
        stamped++;
      } else {
        lines.push(e.text);
      }
    }
    let aside: string | null = null;
    if (setAside.length > 0) {
      aside = asideName(paths.results);
      rewriteResultsFile(
        aside,
        [...setAside].sort((a, b) => a.lineNo - b.lineNo).map((e) => e.text),
      );
    }
    appendSetAside(
      paths.rejected,
      [...rejected].sort((a, b) => a.lineNo - b.lineNo),
    );
    rewriteResultsFile(paths.results, lines);
    if (rejected.length > 0) {
      notes.push(
        `--repair: moved ${plural(rejected.length, "bad line")} of ${paths.results} (line${rejected.length === 1 ? "" : "s"} ${lineList(rejected)}) to ${paths.rejected}; their fits are redone.`,
      );
    }
    if (aside !== null) {
      notes.push(
        `--force: moved ${plural(setAside.length, "line")} made with other settings to ${aside}.`,
      );
    }
    if (stamped > 0) {
      notes.push(
        `Wrote the settings fingerprint that ${SETTINGS_FILE} gives them into ${plural(stamped, "line")} of ${paths.results} made before lines carried one.`,
      );
    }
  }
  if (reused.length > 0 || options.force) {
    notes.push(
      `${options.force ? "--force: reusing" : "Resuming: reusing"} ${plural(reused.length, "finished fit")} of ${plan.run.total} (their settings fingerprint matches this run); ${plural(toRun, "fit")} to run.`,
    );
  }
  return { reused: reused.map((e) => e.line), notes };
}

/**
 * Runs the protocol. Resolves with every record of the run (including those
 * resumed from the results file); rejects with AbortError when `signal` fires
 * (the results file then holds every fit finished so far), and with a
 * ValidationError for bad options or settings that differ from a previous run in
 * the same directory (unless `force`), and a DataFormatError for bad lines in the
 * results file (unless `repair`).
 */
export async function runExperiment(
  options: ExperimentOptions,
  callbacks: ExperimentCallbacks = {},
): Promise<ExperimentResult> {
  const t0 = performance.now();
  const { signal, onProgress, onMessage } = callbacks;
  throwIfAborted(signal);
  const paths = options.out !== undefined ? resultsPaths(options.out) : null;
  const plan = await makePlan(options);
  throwIfAborted(signal);
  const notes = [...plan.run.notes];
  const warnings = [...plan.run.warnings];
  let reusedLines: ResultLine[] = [];
  if (paths !== null && options.out !== undefined) {
    const resume = prepareResume(options.out, plan, options);
    reusedLines = resume.reused;
    notes.push(...resume.notes);
    writeJsonFile(paths.settings, plan.settings);
  }
  for (const text of warnings) onMessage?.({ level: "warning", text });
  for (const text of notes) onMessage?.({ level: "note", text });

  const records: FitRecord[] = [];
  const skipped: SkippedFit[] = [];
  const finished = new Set<string>();
  for (const line of reusedLines) {
    finished.add(fitKey(line));
    if (isSkipped(line)) skipped.push(line);
    else records.push(line);
  }
  const units: WorkUnit[] = [];
  for (const unit of plan.units) {
    const name = plan.datasets[unit.dataset].data.name;
    const fits = unit.fits.filter(
      (f) =>
        !finished.has(fitKey({ dataset: name, repeat: unit.repeat, method: unit.method, ...f })),
    );
    if (fits.length > 0) units.push({ ...unit, id: units.length, fits });
  }
  const resumed = plan.run.total - units.reduce((s, u) => s + u.fits.length, 0);

  const writer = paths !== null ? ResultsWriter.open(paths.results) : null;
  let done = resumed;
  let newDone = 0;
  const tRun = performance.now();
  const report = (line?: ResultLine) => {
    if (!onProgress) return;
    const elapsed = performance.now() - t0;
    const sessionMs = performance.now() - tRun;
    onProgress({
      done,
      total: plan.run.total,
      resumed,
      skipped: skipped.length,
      elapsedMs: elapsed,
      etaMs: newDone > 0 ? (sessionMs / newDone) * (plan.run.total - done) : null,
      ...(line ? { line } : {}),
    });
  };
  const onLine = (fitted: ResultLine) => {
    const fingerprint = plan.run.fingerprints.get(fitKey(fitted));
    if (fingerprint === undefined) {
      throw new SdspcaanError(
        `Internal error: a worker returned a fit outside the plan (${describeFit(fitted)}).`,
      );
    }
    const line = { ...fitted, fingerprint };
    writer?.append(line);
    if (isSkipped(line)) skipped.push(line);
    else records.push(line);
    done++;
    newDone++;
    report(line);
  };

  const unitSettings: UnitSettings = {
    preprocess: plan.settings.preprocess,
    methodOptions: plan.settings.methodOptions,
  };
  const workers =
    options.workers === undefined
      ? availableParallelism()
      : checkPositiveInteger("workers", options.workers, 256);
  const inProcess = options.inProcess ?? workers === 1;
  try {
    report();
    if (units.length > 0) {
      if (inProcess) {
        const runner = new UnitRunner(
          plan.datasets.map((d) => d.data),
          unitSettings,
        );
        for (const unit of units) {
          await runner.run(unit, onLine, { signal, yieldBetweenFits: true });
        }
      } else {
        await runInWorkers(plan, units, unitSettings, workers, onLine, signal);
      }
    }
  } finally {
    writer?.close();
  }
  return {
    settings: plan.settings,
    records,
    skipped,
    total: plan.run.total,
    resumed,
    notes,
    warnings,
    data: new Map(plan.datasets.map((d) => [d.data.name, d.data])),
    elapsedMs: performance.now() - t0,
  };
}
