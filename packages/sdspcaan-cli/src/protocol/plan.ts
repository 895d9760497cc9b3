/**
 * The plan of a protocol run: every (dataset, repeat, method) unit with its k and
 * grid points, and the settings fingerprint of every fit. It is a pure function of
 * the run settings (what settings.json records) and, where they decide it, the
 * labels (stratified splits, LDA's k bound) and explicit splits. The runner fits
 * the plan; the report rebuilds it from settings.json to count what was planned
 * and to check that each result line belongs to the run.
 */

import type { Label } from "sdspcaan";
import { createMethod, methodNames, ValidationError } from "sdspcaan";
import type { OptionSchema, Preprocessing } from "sdspcaan/methods";
import {
  makeSplit,
  methodDescriptor,
  missingClassesWarning,
  type Split,
  type SplitFractions,
  splitSeed,
} from "sdspcaan/methods";
import { plural } from "../plural.js";
import { canonicalJson, FINGERPRINT_VERSION, fingerprintOf } from "./fingerprint.js";
import { type GridSpec, hyperparameterGrid, type Params } from "./grids.js";
import { type KGridFilter, kGridFilter } from "./kGrid.js";
import { fitOptions, presetUnitOptions } from "./methodOptions.js";
import { canonicalParams, type FitIdentity, fitKey } from "./records.js";

/** Where a data set came from, recorded in settings.json so that reports can reload it. */
export type DatasetOrigin =
  | {
      readonly kind: "file";
      /** The file's absolute path when the run was made. */
      readonly path: string;
      /**
       * The same file relative to the results directory ("/" separators), so that
       * a results directory moved or cloned together with its data still finds it.
       * Absent in runs made before it was recorded, and when the run wrote nothing.
       */
      readonly relative?: string;
      readonly load: Readonly<Record<string, unknown>>;
    }
  | { readonly kind: string; readonly [key: string]: unknown };

/** A data set of a run as recorded in settings.json. */
export interface DatasetSettings {
  readonly name: string;
  readonly n: number;
  readonly d: number;
  readonly classes: number;
  /** Hash of X and y: a resumed run must see the same data. */
  readonly checksum: string;
  /** Hash of the explicit splits, or null for seeded splits. */
  readonly splitsChecksum: string | null;
  /** Where the data came from (null: given in memory without an origin). */
  readonly origin: DatasetOrigin | null;
  /** The split file of explicit splits (null: seeded, or splits given in memory). */
  readonly splitsFile: string | null;
}

/** A plug-in a run's methods come from, as settings.json records it. */
export interface PluginSettings {
  /** The plug-in's absolute path when the run was made (workers and tasks load it from there). */
  readonly path: string;
  /** SHA-256 (hex) of its file: a resumed run, a shard or a report refuses another content. */
  readonly sha256: string;
  /** The run's methods it registered. */
  readonly methods: readonly string[];
}

/** settings.json of a results directory. */
export interface RunSettings {
  readonly format: "sdspcaan-experiment";
  readonly version: 1;
  readonly datasets: readonly DatasetSettings[];
  readonly methods: readonly string[];
  /** The plug-ins the run's methods come from (absent when they are all built in). */
  readonly plugins?: readonly PluginSettings[];
  readonly grid: GridSpec;
  readonly kGrid: readonly number[];
  readonly repeats: number;
  readonly seed: number;
  readonly preprocess: Preprocessing;
  readonly stratify: boolean;
  readonly fractions: SplitFractions;
  /** The fixed options each method was constructed with (besides k and the grid point). */
  readonly methodOptions: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** What the plan needs of a data set beyond settings.json. */
export interface PlanDataset {
  /**
   * Labels, one per sample: needed for stratified splits and for LDA's k bound;
   * null when not at hand (the plan then throws if it needs them).
   */
  readonly y: readonly Label[] | null;
  /** The explicit splits of the run (null: seeded splits). */
  readonly splits: readonly Split[] | null;
}

/** One (k, hyperparameters) point to fit. */
export interface FitRequest {
  readonly k: number;
  readonly params: Params;
}

/** One planned fit. */
export interface PlannedFit extends FitRequest {
  /** The settings fingerprint its result line must carry. */
  readonly fingerprint: string;
}

/**
 * One planned (dataset, repeat, method) unit, its fits in run order (the runner hands
 * workers the same unit with plain `FitRequest`s, see units.node.ts).
 */
export interface PlannedUnit<F extends FitRequest = PlannedFit> {
  /** Index into settings.datasets. */
  readonly dataset: number;
  readonly repeat: number;
  readonly method: string;
  /** The split's derived seed (recorded; null for explicit splits read from a file). */
  readonly seed: number | null;
  readonly split: Split;
  readonly fits: readonly F[];
  /**
   * Options fixed for this unit only, decided by the planner from the unit's k list
   * (the "authors" preset's SLNP on PCA scores: pcaDimensions = the largest k; see
   * `presetUnitOptions`). Recorded in each result line as `unitOptions`.
   */
  readonly unitOptions?: Readonly<Record<string, unknown>>;
}

/** The plan of a run. */
export interface RunPlan {
  readonly units: PlannedUnit[];
  /** Number of planned fits. */
  readonly total: number;
  /** fitKey -> fingerprint of every planned fit. */
  readonly fingerprints: ReadonlyMap<string, string>;
  /** Things the user may want to know (a method with no valid k, a substituted k). */
  readonly notes: string[];
  /** Things the user asked for that the run does not do (k values dropped from an explicit grid). */
  readonly warnings: string[];
}

export interface PlanOptions {
  /**
   * The k grid was given by the user (not the default): a grid that leaves no
   * valid k for a data set is then an error, and dropped values are warned about.
   */
  readonly explicitKGrid?: boolean;
}

export { presetUnitOptions };

/** Grid points of a method; a method the presets do not know is tuned over k only. */
export function gridPoints(method: string, grid: GridSpec): Params[] {
  if (!methodNames().includes(method)) return [{}];
  return hyperparameterGrid(method, grid);
}

/** Number of distinct classes among the training samples of a split. */
export function trainingClassCount(y: readonly Label[], split: Split): number {
  const seen = new Set<Label>();
  for (const i of split.train) seen.add(y[i]);
  return seen.size;
}

/** The fingerprint of a split: the exact train/validation/test indices. */
export function splitFingerprint(split: Split): string {
  return fingerprintOf([split.train, split.val, split.test]);
}

/**
 * The options without those a later version added (their spec's `since`) while they
 * hold their default: every fit before the option existed ran as its default says, so
 * adding an option keeps the fingerprints (and the committed runs) of the fits that do
 * not use it.
 */
function withoutNewDefaults(
  method: string,
  options: Record<string, unknown>,
): Record<string, unknown> {
  const schema = methodDescriptor(method).options as OptionSchema;
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    const spec = schema[name];
    if (spec?.since !== undefined && Object.is(value, spec.default)) continue;
    kept[name] = value;
  }
  return kept;
}

/**
 * Fingerprints of fits under one set of run settings. A fit's fingerprint hashes
 * the data set (name, shape, checksum of X and y), the split (its indices), the
 * preprocessing, the method with its full option set (defaults filled in, the
 * run's fixed options and the unit's preset options), k and the grid point.
 * Computed parts are cached, so fingerprinting every line of a long run is cheap.
 */
export class FitFingerprints {
  private readonly settings: RunSettings;
  private readonly splitOf: (dataset: number, repeat: number) => Split | null;
  private readonly datasetIndex: Map<string, number>;
  private readonly splitCache = new Map<string, string | null>();
  private readonly optionsCache = new Map<string, Record<string, unknown> | null>();
  private readonly unitCache = new Map<string, string | null>();

  /**
   * @param splitOf the split of (dataset index, repeat) under these settings, or
   *   null when it cannot be known (a fit on it then has no fingerprint).
   */
  constructor(settings: RunSettings, splitOf: (dataset: number, repeat: number) => Split | null) {
    this.settings = settings;
    this.splitOf = splitOf;
    this.datasetIndex = new Map(settings.datasets.map((d, i) => [d.name, i]));
  }

  private splitPart(dataset: number, repeat: number): string | null {
    const key = `${dataset}:${repeat}`;
    if (!this.splitCache.has(key)) {
      const split = this.splitOf(dataset, repeat);
      this.splitCache.set(key, split === null ? null : splitFingerprint(split));
    }
    return this.splitCache.get(key) ?? null;
  }

  /** The method's full option set without k (null: the method or its options are unknown). */
  private options(
    method: string,
    unitOptions: Readonly<Record<string, unknown>> | undefined,
  ): Record<string, unknown> | null {
    const fixed = this.settings.methodOptions?.[method];
    if (fixed === undefined) return null;
    const key = canonicalJson([method, fixed, unitOptions ?? {}]);
    if (!this.optionsCache.has(key)) {
      let resolved: Record<string, unknown> | null;
      try {
        const { k: _k, ...rest } = createMethod(method, fitOptions({ fixed, unit: unitOptions }))
          .params as Record<string, unknown>;
        resolved = withoutNewDefaults(method, rest);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        resolved = null;
      }
      this.optionsCache.set(key, resolved);
    }
    return this.optionsCache.get(key) ?? null;
  }

  /** The shared part of the fingerprints of one unit (null when it cannot be computed). */
  unitPart(
    dataset: number,
    repeat: number,
    method: string,
    unitOptions: Readonly<Record<string, unknown>> | undefined,
  ): string | null {
    const key = canonicalJson([dataset, repeat, method, unitOptions ?? {}]);
    if (!this.unitCache.has(key)) {
      const entry = this.settings.datasets[dataset];
      const split = this.splitPart(dataset, repeat);
      const options = this.options(method, unitOptions);
      // A plug-in method's fits are those of one content of its file; the built-ins' keep
      // the fingerprints they always had.
      const plugin = this.settings.plugins?.find((p) => p.methods.includes(method))?.sha256;
      this.unitCache.set(
        key,
        split === null || options === null
          ? null
          : fingerprintOf({
              fingerprint: FINGERPRINT_VERSION,
              dataset: { name: entry.name, n: entry.n, d: entry.d, checksum: entry.checksum },
              split,
              preprocess: this.settings.preprocess,
              method,
              ...(plugin !== undefined ? { plugin } : {}),
              options,
            }),
      );
    }
    return this.unitCache.get(key) ?? null;
  }

  /** The fingerprint of one fit of a unit. */
  static fit(unitPart: string, k: number, params: Params): string {
    return fingerprintOf({ unit: unitPart, k, params: canonicalParams(params) });
  }

  /**
   * The fingerprint a result line would carry had it been made under these
   * settings (its own `unitOptions` included), or null when the settings cannot
   * say (an unknown data set or method, a split that cannot be recreated).
   */
  ofLine(
    line: FitIdentity & { readonly unitOptions?: Readonly<Record<string, unknown>> },
  ): string | null {
    const dataset = this.datasetIndex.get(line.dataset);
    if (dataset === undefined || line.repeat >= this.settings.repeats) return null;
    const unit = this.unitPart(dataset, line.repeat, line.method, line.unitOptions);
    return unit === null ? null : FitFingerprints.fit(unit, line.k, line.params);
  }
}

/** The split of one repeat under the settings (explicit or seeded). */
export function planSplit(
  settings: RunSettings,
  dataset: number,
  input: PlanDataset,
  repeat: number,
): Split {
  const entry = settings.datasets[dataset];
  if (input.splits !== null) {
    const split = input.splits[repeat];
    if (split === undefined) {
      throw new ValidationError(
        "repeats",
        `${entry.name} has ${plural(input.splits.length, "explicit split")}, fewer than the ${settings.repeats} repeats asked for.`,
      );
    }
    return split;
  }
  if (settings.stratify && input.y === null) {
    throw new ValidationError(
      "data",
      `The stratified splits of ${entry.name} need its labels, which are not at hand.`,
    );
  }
  return makeSplit(entry.n, {
    seed: settings.seed,
    dataset: entry.name,
    repeat,
    stratify: settings.stratify,
    fractions: settings.fractions,
    ...(settings.stratify && input.y !== null ? { y: input.y } : {}),
  });
}

function listValues(values: Iterable<number>): string {
  return [...values].sort((a, b) => a - b).join(", ");
}

function repeatsText(repeats: readonly number[], of: number): string {
  return repeats.length === of
    ? ""
    : ` (in repeat${repeats.length === 1 ? "" : "s"} ${repeats.join(", ")})`;
}

/** What the k filter did on one data set, gathered over repeats for one message each. */
class KGridReport {
  readonly dropped = new Set<number>();
  readonly droppedRepeats: number[] = [];
  range = "";
  readonly substituted = new Map<number, number[]>();
  substitutedRange = "";

  add(repeat: number, filter: KGridFilter): void {
    const dropped = [...filter.below, ...filter.above];
    if (filter.substituted) {
      const list = this.substituted.get(filter.ks[0]) ?? [];
      list.push(repeat);
      this.substituted.set(filter.ks[0], list);
      this.substitutedRange ||= filter.range;
    } else if (dropped.length > 0) {
      for (const k of dropped) this.dropped.add(k);
      this.droppedRepeats.push(repeat);
      this.range ||= filter.range;
    }
  }
}

/**
 * The plan of a run: units in the order the runner fits them (data sets, then
 * repeats, then methods), each with its k list (the k grid filtered per split,
 * paper Section III-C) and grid points.
 *
 * k bounds: c <= k <= min(n_train, d) with c the class count of the whole data set
 * (as the paper and the NumPy reference); LDA instead 1 <= k <= c_train - 1, c_train
 * the classes present in the training split, as LDA has at most c_train - 1
 * discriminant directions on that split. When no grid value is in range the
 * nearest valid k runs (a note says so); with an explicit k grid
 * (`explicitKGrid`), a data set where no grid value is in range is an error, and
 * dropped values are warned about.
 */
export function planRun(
  settings: RunSettings,
  data: readonly PlanDataset[],
  options: PlanOptions = {},
): RunPlan {
  if (data.length !== settings.datasets.length) {
    throw new ValidationError(
      "data",
      `planRun needs one PlanDataset per data set of the settings (${settings.datasets.length}); got ${data.length}.`,
    );
  }
  const explicit = options.explicitKGrid === true;
  const notes: string[] = [];
  const warnings: string[] = [];
  const units: PlannedUnit[] = [];
  const fingerprints = new Map<string, string>();
  let total = 0;
  const splits = new Map<string, Split>();
  const splitOf = (dataset: number, repeat: number): Split => {
    const key = `${dataset}:${repeat}`;
    let split = splits.get(key);
    if (split === undefined) {
      split = planSplit(settings, dataset, data[dataset], repeat);
      splits.set(key, split);
    }
    return split;
  };
  const fp = new FitFingerprints(settings, splitOf);
  const gridText = settings.kGrid.join(", ");

  settings.datasets.forEach((entry, di) => {
    const { name } = entry;
    const input = data[di];
    const general = new KGridReport();
    // Methods with k bounds of their own (LDA: k <= c_train - 1), by method.
    const own = new Map<string, KGridReport>();
    const noValidK = new Map<string, { repeats: number[]; methods: Set<string> }>();
    for (let repeat = 0; repeat < settings.repeats; repeat++) {
      const split = splitOf(di, repeat);
      if (input.y !== null) {
        const missing = missingClassesWarning(input.y, split, `${name}, repeat ${repeat}`);
        if (missing !== null) warnings.push(missing);
      }
      // The paper's range, shared by every method without bounds of its own.
      let shared: KGridFilter | null = null;
      let sharedError: string | null = null;
      try {
        shared = kGridFilter({
          nTrain: split.train.length,
          d: entry.d,
          nClasses: entry.classes,
          grid: settings.kGrid,
        });
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        sharedError = err.message;
      }
      const anyShared = settings.methods.some((m) => methodDescriptor(m).kBounds === undefined);
      if (shared?.substituted && explicit && anyShared) {
        throw new ValidationError(
          "kGrid",
          `The k grid (${gridText}) leaves no valid k for ${name}${settings.repeats > 1 ? ` (repeat ${repeat})` : ""}: k must be in ${shared.range}. Give k values in that range.`,
        );
      }
      let sharedUsed = false;
      for (const method of settings.methods) {
        let filter: KGridFilter;
        const { kBounds, displayName } = methodDescriptor(method);
        if (kBounds !== undefined) {
          if (input.y === null) {
            throw new ValidationError(
              "data",
              `${displayName}'s k bound on ${name} needs the labels of its training split, which are not at hand.`,
            );
          }
          const cTrain = trainingClassCount(input.y, split);
          if (cTrain < 2) {
            const why = `${displayName} needs at least 2 classes in the training split; it has ${cTrain}`;
            const cur = noValidK.get(why) ?? { repeats: [], methods: new Set<string>() };
            if (!cur.repeats.includes(repeat)) cur.repeats.push(repeat);
            cur.methods.add(method);
            noValidK.set(why, cur);
            continue;
          }
          // The bounds come from the classes present in the training split.
          const bounds = kBounds({ classes: cTrain });
          filter = kGridFilter({
            nTrain: split.train.length,
            d: entry.d,
            nClasses: entry.classes,
            grid: settings.kGrid,
            ...(bounds.minK !== undefined ? { minK: bounds.minK } : {}),
            ...(bounds.maxK !== undefined ? { maxK: bounds.maxK } : {}),
          });
          const report = own.get(method) ?? new KGridReport();
          report.add(repeat, filter);
          own.set(method, report);
        } else if (shared === null) {
          const why = sharedError as string;
          const cur = noValidK.get(why) ?? { repeats: [], methods: new Set<string>() };
          if (!cur.repeats.includes(repeat)) cur.repeats.push(repeat);
          cur.methods.add(method);
          noValidK.set(why, cur);
          continue;
        } else {
          filter = shared;
          sharedUsed = true;
        }
        const unitOptions = presetUnitOptions(
          settings.grid,
          method,
          filter.ks,
          settings.methodOptions[method] ?? {},
        );
        const unitPart = fp.unitPart(di, repeat, method, unitOptions ?? undefined);
        if (unitPart === null) {
          throw new ValidationError(
            "methodOptions",
            `The options of ${method} cannot be resolved (${JSON.stringify(settings.methodOptions[method] ?? null)}).`,
          );
        }
        const fits: PlannedFit[] = [];
        for (const k of filter.ks) {
          for (const point of gridPoints(method, settings.grid)) {
            const params = canonicalParams(point);
            const fingerprint = FitFingerprints.fit(unitPart, k, params);
            fingerprints.set(fitKey({ dataset: name, repeat, method, k, params }), fingerprint);
            fits.push({ k, params, fingerprint });
          }
        }
        total += fits.length;
        if (fits.length > 0) {
          units.push({
            dataset: di,
            repeat,
            method,
            seed: input.splits !== null ? null : splitSeed(settings.seed, name, repeat),
            split,
            fits,
            ...(unitOptions ? { unitOptions } : {}),
          });
        }
      }
      if (sharedUsed && shared !== null) general.add(repeat, shared);
    }
    for (const [why, { repeats, methods }] of noValidK) {
      notes.push(
        `${name}: no valid k for ${[...methods].join(", ")}${repeatsText(repeats, settings.repeats)}: ${why}`,
      );
    }
    const reported = (kind: "warning" | "note", text: string) =>
      (kind === "warning" ? warnings : notes).push(text);
    if (explicit && general.dropped.size > 0) {
      reported(
        "warning",
        `${name}: k = ${listValues(general.dropped)} dropped from the k grid${repeatsText(general.droppedRepeats, settings.repeats)}; valid k are in ${general.range}.`,
      );
    }
    for (const [k, repeats] of general.substituted) {
      // Only the default grid gets here (an explicit one throws above).
      reported(
        "note",
        `${name}: no k of the grid (${gridText}) is in ${general.substitutedRange}, so the nearest valid k = ${k} runs${repeatsText(repeats, settings.repeats)}.`,
      );
    }
    for (const [method, report] of own) {
      const display = methodDescriptor(method).displayName;
      if (explicit && report.dropped.size > 0) {
        reported(
          "warning",
          `${name}, ${method}: k = ${listValues(report.dropped)} dropped from the k grid${repeatsText(report.droppedRepeats, settings.repeats)}; ${display}'s k is in ${report.range}, its bounds following the c_train classes of the training split.`,
        );
      }
      for (const [k, repeats] of report.substituted) {
        reported(
          explicit ? "warning" : "note",
          `${name}, ${method}: no k of the grid (${gridText}) is in ${report.substitutedRange}, its bounds following the c_train classes of the training split; ${display} runs at k = ${k}${repeatsText(repeats, settings.repeats)}.`,
        );
      }
    }
  });
  return { units, total, fingerprints, notes, warnings };
}
