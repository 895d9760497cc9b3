/**
 * One work unit of the protocol = one (dataset, repeat, method), or a slice of its
 * (k, hyperparameters) fits (a task, see shards.ts): the split, its preprocessing
 * and one `TrainingData` are shared by every fit on that split that the same
 * worker runs, and the fits of a task run in order. Each finished fit is
 * evaluated (1-NN on the projected training/validation/test parts, BCA) and
 * handed to `emit` at once. The same code runs in a worker thread and in-process,
 * so results never depend on the number of workers.
 */

import type { Estimator, Label } from "sdspcaan";
import {
  AbortError,
  balancedAccuracy,
  ContractError,
  ConvergenceError,
  createMethod,
  Matrix,
  NearestNeighbour1,
  type SdspcaanError,
  TrainingData,
  ValidationError,
} from "sdspcaan";
import type { Split } from "sdspcaan/methods";
import {
  methodPlugin,
  type PreprocessedSplit,
  type Preprocessing,
  preprocessSplit,
  throwIfAborted,
} from "sdspcaan/methods";
import { fitOptions } from "../protocol/methodOptions.js";
import type { FitRequest, PlannedUnit } from "../protocol/plan.js";
import { canonicalParams, type FitRecord } from "../protocol/records.js";
import type { ResultLine, SkippedFit } from "./resultsFile.node.js";

/** A data set as the units see it: X may live in a SharedArrayBuffer. */
export interface UnitDataset {
  readonly name: string;
  readonly X: Matrix;
  readonly y: readonly Label[];
}

/** The transferable form of a UnitDataset (X's buffer is shared, not copied). */
export interface SharedDatasetMessage {
  readonly name: string;
  readonly rows: number;
  readonly cols: number;
  readonly buffer: SharedArrayBuffer;
  readonly y: readonly Label[];
}

/** Settings every unit of a run shares. */
export interface UnitSettings {
  readonly preprocess: Preprocessing;
  /** Fixed options per method (e.g. maxIter), merged under k and the grid point. */
  readonly methodOptions: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export type { FitRequest };

/**
 * A planned (dataset, repeat, method) unit as a worker runs it: numbered, with the
 * fits still to do, in order.
 */
export interface WorkUnit extends PlannedUnit<FitRequest> {
  readonly id: number;
}

/** Copies a data set into shared memory so that worker threads read it without a copy. */
export function shareDataset(ds: UnitDataset): SharedDatasetMessage {
  const buffer = new SharedArrayBuffer(ds.X.data.length * Float64Array.BYTES_PER_ELEMENT);
  new Float64Array(buffer).set(ds.X.data);
  return { name: ds.name, rows: ds.X.rows, cols: ds.X.cols, buffer, y: ds.y };
}

/** The UnitDataset view of a shared data set. */
export function datasetFromShared(msg: SharedDatasetMessage): UnitDataset {
  return {
    name: msg.name,
    X: new Matrix(msg.rows, msg.cols, new Float64Array(msg.buffer)),
    y: msg.y,
  };
}

/** A split after preprocessing, with the training data prepared for fitting. */
export interface PreparedSplit {
  readonly parts: PreprocessedSplit;
  readonly data: TrainingData;
  readonly yTrain: Label[];
  readonly yVal: Label[];
  readonly yTest: Label[];
}

/** Preprocesses one split and prepares its training part. */
export function prepareSplit(
  ds: UnitDataset,
  split: Split,
  preprocess: Preprocessing,
): PreparedSplit {
  const parts = preprocessSplit(ds.X, split, preprocess);
  const pick = (idx: Int32Array) => Array.from(idx, (i) => ds.y[i]);
  const yTrain = pick(split.train);
  return {
    parts,
    data: TrainingData.prepare(parts.train, yTrain),
    yTrain,
    yVal: pick(split.val),
    yTest: pick(split.test),
  };
}

/** The protocol's 1-NN classifier on a fitted model's training embedding, as BCA on a part. */
function bcaOf(model: Estimator, prepared: PreparedSplit): (X: Matrix, y: Label[]) => number {
  const nn = new NearestNeighbour1().fit(model.transform(prepared.parts.train), prepared.yTrain);
  return (X, y) => balancedAccuracy(y, nn.predict(model.transform(X)));
}

/** Validation and test BCA of a fitted model with the protocol's 1-NN classifier. */
export function evaluateModel(
  model: Estimator,
  prepared: PreparedSplit,
): { valBCA: number; testBCA: number } {
  const bca = bcaOf(model, prepared);
  return {
    valBCA: bca(prepared.parts.val, prepared.yVal),
    testBCA: bca(prepared.parts.test, prepared.yTest),
  };
}

/** Test BCA alone, for a split without a validation part (a data set's own test set). */
export function evaluateOnTest(model: Estimator, prepared: PreparedSplit): number {
  return bcaOf(model, prepared)(prepared.parts.test, prepared.yTest);
}

/**
 * Whether a method's error means "this configuration is not possible here", or a fit
 * that broke the estimator contract (a plug-in's W of the wrong shape): recorded, not
 * fatal.
 */
export function isRefusal(err: unknown): err is SdspcaanError {
  return (
    err instanceof ValidationError ||
    err instanceof ConvergenceError ||
    err instanceof ContractError
  );
}

/**
 * Whether a failed fit is recorded and the run goes on: a refusal, or any error of a
 * plug-in's method (its code is not ours to stop a long run for; the report counts
 * the failures and quotes one).
 */
function isRecordedFailure(err: unknown, method: string): boolean {
  if (err instanceof AbortError) return false;
  return isRefusal(err) || methodPlugin(method) !== null;
}

/**
 * Runs the fits of work units. Keeps the last few prepared splits, so the
 * methods of one (dataset, repeat) share the preprocessing and whatever their
 * `TrainingData` caches (Gram matrix, thin SVD, initial graph): those depend on
 * the training data only, so sharing them cannot change a result.
 */
export class UnitRunner {
  private readonly datasets: readonly UnitDataset[];
  private readonly settings: UnitSettings;
  private readonly cache: Array<{ key: string; prepared: PreparedSplit }> = [];
  private static readonly CACHE_SIZE = 2;

  constructor(datasets: readonly UnitDataset[], settings: UnitSettings) {
    this.datasets = datasets;
    this.settings = settings;
  }

  private prepared(unit: WorkUnit): PreparedSplit {
    const key = `${unit.dataset}:${unit.repeat}`;
    const hit = this.cache.findIndex((c) => c.key === key);
    if (hit >= 0) {
      const [entry] = this.cache.splice(hit, 1);
      this.cache.unshift(entry);
      return entry.prepared;
    }
    const prepared = prepareSplit(
      this.datasets[unit.dataset],
      unit.split,
      this.settings.preprocess,
    );
    this.cache.unshift({ key, prepared });
    this.cache.length = Math.min(this.cache.length, UnitRunner.CACHE_SIZE);
    return prepared;
  }

  /**
   * Fits the unit's configurations in order and emits one line per fit. With
   * `yieldBetweenFits`, awaits a macrotask between fits so that an in-process
   * caller's timers and signal handlers can run.
   */
  async run(
    unit: WorkUnit,
    emit: (line: ResultLine) => void,
    options: { signal?: AbortSignal; yieldBetweenFits?: boolean } = {},
  ): Promise<void> {
    const { signal } = options;
    throwIfAborted(signal);
    const ds = this.datasets[unit.dataset];
    const prepared = this.prepared(unit);
    for (const fit of unit.fits) {
      if (options.yieldBetweenFits) await new Promise((r) => setImmediate(r));
      throwIfAborted(signal);
      emit(this.fitOne(ds.name, unit, fit, prepared, signal));
    }
  }

  private fitOne(
    dataset: string,
    unit: WorkUnit,
    fit: FitRequest,
    prepared: PreparedSplit,
    signal: AbortSignal | undefined,
  ): ResultLine {
    const identity = {
      dataset,
      repeat: unit.repeat,
      method: unit.method,
      k: fit.k,
      params: canonicalParams(fit.params),
    };
    let model: Estimator;
    let scores: { valBCA: number; testBCA: number };
    try {
      model = createMethod(
        unit.method,
        fitOptions({
          fixed: this.settings.methodOptions[unit.method],
          unit: unit.unitOptions,
          k: fit.k,
          params: fit.params,
        }),
      );
      model.fitPrepared(prepared.data, signal ? { signal } : {});
      scores = evaluateModel(model, prepared);
    } catch (err) {
      if (!isRecordedFailure(err, unit.method)) throw err;
      const skipped: SkippedFit = {
        status: "skipped",
        ...identity,
        reason: err instanceof Error ? err.message : String(err),
        error: err instanceof Error ? err.name : "Error",
      };
      return skipped;
    }
    const info = model.fitInfo;
    const record: FitRecord = {
      ...identity,
      valBCA: scores.valBCA,
      testBCA: scores.testBCA,
      iterations: info.iterations,
      converged: info.converged,
      fitMs: info.timings.totalMs,
      stopReason: info.stopReason,
      ...(unit.seed !== null ? { seed: unit.seed } : {}),
      preprocess: this.settings.preprocess,
      ...(unit.unitOptions ? { unitOptions: { ...unit.unitOptions } } : {}),
      outputDim: model.nComponents,
      // Always written, [] too: a report tells such a line from one written before warnings had codes.
      warnings: info.warnings.map((w) => ({ ...w, values: { ...w.values } })),
    };
    return record;
  }
}
