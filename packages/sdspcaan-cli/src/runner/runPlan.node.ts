/**
 * What a run is asked to do, turned into what it will do: the options checked,
 * the data sets loaded and checksummed, the settings that settings.json records,
 * and the pure plan of the run (plan.ts) with its work units. Nothing here fits a
 * method or writes a file.
 */
import { relative as relativePath, resolve as resolvePath, sep } from "node:path";
import type { MatrixLike } from "sdspcaan";
import { type Label, methodNames, ValidationError } from "sdspcaan";
import {
  asMatrix,
  checkPreprocessing,
  encodeLabels,
  methodDescriptor,
  normalizeMethodName,
  PAPER_FRACTIONS,
  type Preprocessing,
  parseSplitFile,
  protocolOrder,
  type Split,
  type SplitFractions,
} from "sdspcaan/methods";
import type { LoadOptions } from "../io/load.js";
import { openDataset } from "../io/load.js";
import type { LocateOptions } from "../io/locate.js";
import { plural } from "../plural.js";
import { datasetChecksum, splitsChecksum } from "../protocol/fingerprint.js";
import { GRID_PRESETS, type GridSpec, parseGridSpec } from "../protocol/grids.js";
import { PAPER_K_GRID } from "../protocol/kGrid.js";
import { resolveMethodOptions } from "../protocol/methodOptions.js";
import {
  type DatasetOrigin,
  gridPoints,
  planRun,
  type RunPlan,
  type RunSettings,
} from "../protocol/plan.js";
import { loadPlugins, pluginSettings } from "./plugins.node.js";
import { readJsonFile } from "./resultsFile.node.js";
import type { UnitDataset, WorkUnit } from "./units.node.js";

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
  /**
   * Plug-ins to load first (paths of ES modules that register methods; plugins.node.ts):
   * their methods join `methods`, and the run's workers load them too.
   */
  readonly plugins?: readonly string[];
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
  /**
   * Run one shard of the run (index in [0, count)): a deterministic, cost-balanced
   * share of its fits (shards.ts), written to results.shard-INDEX-of-COUNT.jsonl in
   * `out` and resumed from there. `report` merges the shards' files.
   */
  readonly shard?: { readonly index: number; readonly count: number };
}

export function checkPositiveInteger(
  name: string,
  value: unknown,
  max = Number.MAX_SAFE_INTEGER,
): number {
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
  const order = protocolOrder();
  const rank = (m: string) => {
    const i = order.indexOf(m);
    return i < 0 ? order.length : i;
  };
  return names
    .map((m, i) => ({ m, i }))
    .sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i)
    .map((x) => x.m);
}

function resolveGrid(grid: GridSpec | string | undefined): GridSpec {
  if (grid === undefined) return "paper";
  if (typeof grid === "string" && !(GRID_PRESETS as readonly string[]).includes(grid)) {
    return parseGridSpec(grid);
  }
  return grid as GridSpec;
}

export interface LoadedRunDataset {
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

/** A file origin with its path relative to the results directory added (when there is one). */
function withRelativePath(
  origin: DatasetOrigin | null,
  out: string | undefined,
): DatasetOrigin | null {
  if (origin === null || origin.kind !== "file" || out === undefined) return origin;
  const { path, load } = origin as Extract<DatasetOrigin, { kind: "file" }>;
  const relative = relativePath(resolvePath(out), path).split(sep).join("/");
  return { kind: "file", path, relative, load };
}

/** "Yale_32x32" from "/data/Yale_32x32.mat". */
export function datasetNameFromPath(path: string): string {
  const base = path.split(/[\\/]/).pop() ?? path;
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(0, dot) : base;
}

/** Everything a run needs before fitting: data, settings, and the plan with its work units. */
export interface Plan {
  readonly settings: RunSettings;
  readonly datasets: readonly LoadedRunDataset[];
  /** The pure plan (units, fingerprints, notes, warnings). */
  readonly run: RunPlan;
  /** The plan's units as the workers take them. */
  readonly units: WorkUnit[];
}

export async function makePlan(options: ExperimentOptions): Promise<Plan> {
  if (options === null || typeof options !== "object") {
    throw new ValidationError("options", "runExperiment needs an options object {datasets, ...}.");
  }
  if (!Array.isArray(options.datasets) || options.datasets.length === 0) {
    throw new ValidationError(
      "datasets",
      "The 'datasets' option must be a non-empty list of data sets ({source} or {name, X, y}).",
    );
  }
  await loadPlugins(options.plugins ?? []);
  const methods = resolveMethods(options.methods);
  const plugins = pluginSettings(methods);
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
        `${d.data.name} has ${plural(count, "explicit split")}, fewer than the ${repeats} repeats asked for.`,
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
      origin: withRelativePath(d.origin, options.out),
      splitsFile: d.splitsFile,
    })),
    methods,
    ...(plugins.length > 0 ? { plugins } : {}),
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
