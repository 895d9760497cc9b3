/**
 * The experiment runner (Node): the paper's protocol over data sets x repeats x
 * methods x k x hyperparameters, in worker threads, with a results file that a
 * re-run resumes.
 *
 * The plan's units of (dataset, repeat, method) are cut into tasks of one (unit,
 * k) cell, or of a few grid points where a cell is costly (shards.ts), so that many
 * workers can share a unit's grid; a worker keeps the splits it prepared (the
 * preprocessing and the prepared training data) and is handed more work on them
 * (workerPool.node.ts). Every fit is made from its split, options and grid point
 * alone (units.node.ts), so results do not depend on the number of workers, on
 * how the work was cut, nor on where an interrupted run stopped.
 *
 * With `shard`, the process runs one cost-balanced share of the run and writes
 * its own results file (results.shard-I-of-N.jsonl), for the tasks of a cluster
 * job array; `report` merges the shards (runResults.node.ts, docs/cluster.md).
 *
 * Every finished fit is appended to `<out>/results.jsonl` at once, with the
 * settings fingerprint of the fit (plan.ts); a re-run skips every fit whose line
 * is there (or in results.jsonl.gz, a run's compressed results: resume.node.ts)
 * with the fingerprint the run now asks for, so an interrupted run loses
 * at most the fits in flight, and a line made under other settings is never
 * taken for a result of this run. `settings.json` records what the run was asked
 * to do; a resumed run with different settings, or with lines of other settings,
 * is refused unless `force` is set, which reuses every fit whose fingerprint
 * matches and sets the other lines aside. Bad lines (not JSON, not a results
 * line, two lines of one fit with different results) are an error unless
 * `repair` is set, which moves them to results.rejected.jsonl and redoes them.
 */
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { SdspcaanError, ValidationError } from "sdspcaan";
import { throwIfAborted } from "sdspcaan/methods";
import type { RunSettings } from "../protocol/plan.js";
import { type FitRecord, fitKey } from "../protocol/records.js";
import {
  assignShards,
  parseShard,
  planTasks,
  type ShardSpec,
  shardFileName,
} from "../protocol/shards.js";
import { checkMethodsLoadable } from "./plugins.node.js";
import {
  describeFit,
  isSkipped,
  type ResultLine,
  ResultsWriter,
  resultsPaths,
  type SkippedFit,
  writeJsonFile,
} from "./resultsFile.node.js";
import { prepareResume, reuseShardResults } from "./resume.node.js";
import { RunLock } from "./runLock.node.js";
import {
  checkPositiveInteger,
  type ExperimentOptions,
  makePlan,
  type Plan,
} from "./runPlan.node.js";
import { type UnitDataset, UnitRunner, type UnitSettings, type WorkUnit } from "./units.node.js";
import { type PoolTask, runInWorkers } from "./workerPool.node.js";

export { datasetChecksum, splitsChecksum } from "../protocol/fingerprint.js";
export { presetUnitOptions } from "../protocol/methodOptions.js";
export type { DatasetOrigin, DatasetSettings, RunSettings } from "../protocol/plan.js";
export { gridPoints } from "../protocol/plan.js";
export {
  datasetNameFromPath,
  type ExperimentDataset,
  type ExperimentOptions,
  resolveMethods,
} from "./runPlan.node.js";
export {
  readReportSettings,
  readRunSettings,
  type SettingsDifference,
  settingsDifferences,
} from "./settingsFile.node.js";

import { plural } from "../plural.js";

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
  /** The shard this process ran (absent: the whole run). */
  readonly shard?: ShardSpec;
  /**
   * The results file this run appended its fits to (results.jsonl, or the shard's
   * results.shard-I-of-N.jsonl); null when it ran no fit (every fit resumed), and
   * without an output directory.
   */
  readonly resultsFile: string | null;
  /** Notes for the user, e.g. a method with no valid k on a data set, or what a resume reused. */
  readonly notes: string[];
  /** Warnings: what the run does not do although asked (e.g. k values dropped from the k grid). */
  readonly warnings: string[];
  /** The loaded data sets, by name (for reports that refit, e.g. the embedding figure). */
  readonly data: ReadonlyMap<string, UnitDataset>;
  readonly elapsedMs: number;
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
  const shard = options.shard !== undefined ? checkShardOption(options.shard) : null;
  const workers =
    options.workers === undefined
      ? availableParallelism()
      : checkPositiveInteger("workers", options.workers, 256);
  const plan = await makePlan(options);
  throwIfAborted(signal);
  const scope = runScope(plan, shard, options.out);
  // One process per results file: a second run on the same --out (and shard) refuses.
  const lock =
    options.out !== undefined && scope.files !== null ? RunLock.acquire(scope.files.results) : null;
  try {
    const notes = [...plan.run.notes];
    const warnings = [...plan.run.warnings];
    if (lock?.tookOver) {
      notes.push(`Took over the lock of an earlier run of ${options.out} (${lock.tookOver}).`);
    }
    if (shard !== null) {
      notes.push(
        `Shard ${shard.index}/${shard.count}: ${plural(scope.total, "fit")} of the run's ${plan.run.total}, written to ${scope.files?.results ?? "memory"}.`,
      );
    }
    let reusedLines: ResultLine[] = [];
    if (options.out !== undefined && scope.files !== null) {
      const resume = prepareResume(options.out, plan, options, {
        files: scope.files,
        fingerprints: scope.fingerprints,
        total: scope.total,
      });
      reusedLines = resume.reused;
      notes.push(...resume.notes);
      if (shard === null) {
        // Fits the run's shards made count as done: a whole run resumes them too.
        const fromShards = reuseShardResults(options.out, scope, reusedLines);
        reusedLines = [...reusedLines, ...fromShards.reused];
        notes.push(...fromShards.notes);
      }
      writeJsonFile(resultsPaths(options.out).settings, plan.settings);
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
    // The fits left to run: in this process's scope and not found in its results file.
    const units: WorkUnit[] = [];
    for (const unit of plan.units) {
      const name = plan.datasets[unit.dataset].data.name;
      const fits = unit.fits.filter((f) => {
        const key = fitKey({ dataset: name, repeat: unit.repeat, method: unit.method, ...f });
        return scope.fingerprints.has(key) && !finished.has(key);
      });
      if (fits.length > 0) units.push({ ...unit, id: units.length, fits });
    }
    const total = scope.total;
    const resumed = total - units.reduce((s, u) => s + u.fits.length, 0);

    // Opened only when there is a fit to run, so that resuming a finished run whose
    // results are all in results.jsonl.gz leaves no empty results.jsonl beside it.
    const writer =
      scope.files !== null && units.length > 0 ? ResultsWriter.open(scope.files.results) : null;
    let done = resumed;
    let newDone = 0;
    const tRun = performance.now();
    const report = (line?: ResultLine) => {
      if (!onProgress) return;
      const elapsed = performance.now() - t0;
      const sessionMs = performance.now() - tRun;
      onProgress({
        done,
        total,
        resumed,
        skipped: skipped.length,
        elapsedMs: elapsed,
        etaMs: newDone > 0 ? (sessionMs / newDone) * (total - done) : null,
        ...(line ? { line } : {}),
      });
    };
    const onLine = (fitted: ResultLine) => {
      const fingerprint = scope.fingerprints.get(fitKey(fitted));
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
    const inProcess = options.inProcess ?? workers === 1;
    if (!inProcess) checkMethodsLoadable(plan.settings.methods);
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
          await runInWorkers(
            plan.datasets.map((d) => d.data),
            poolTasks(units, plan.settings, workers),
            unitSettings,
            workers,
            onLine,
            signal,
            plan.settings.plugins ?? [],
          );
        }
      }
    } finally {
      writer?.close();
    }
    return {
      settings: plan.settings,
      records,
      skipped,
      total,
      resumed,
      ...(shard !== null ? { shard } : {}),
      resultsFile: writer?.path ?? null,
      notes,
      warnings,
      data: new Map(plan.datasets.map((d) => [d.data.name, d.data])),
      elapsedMs: performance.now() - t0,
    };
  } finally {
    lock?.release();
  }
}

function checkShardOption(shard: ShardSpec): ShardSpec {
  if (shard === null || typeof shard !== "object") {
    throw new ValidationError(
      "shard",
      `The 'shard' option must be {index, count}. Got ${JSON.stringify(shard)}.`,
    );
  }
  return parseShard(`${shard.index}/${shard.count}`);
}

/** What this process runs and where it writes: the whole run, or one shard of it. */
interface RunScope {
  /** The results file (and its rejected-lines file); null without an output directory. */
  readonly files: { readonly results: string; readonly rejected: string } | null;
  /** fitKey -> planned fingerprint of every fit in the scope. */
  readonly fingerprints: ReadonlyMap<string, string>;
  readonly total: number;
}

function runScope(plan: Plan, shard: ShardSpec | null, out: string | undefined): RunScope {
  const paths = out !== undefined ? resultsPaths(out) : null;
  if (shard === null) {
    return { files: paths, fingerprints: plan.run.fingerprints, total: plan.run.total };
  }
  // The share is decided on the whole plan, so it is the same in every process of
  // the array and in every resumed run, whatever is already done.
  const tasks = planTasks(plan.run, plan.settings, shard.count);
  const owner = assignShards(tasks, shard.count);
  const fingerprints = new Map<string, string>();
  tasks.forEach((task, i) => {
    if (owner[i] !== shard.index) return;
    const u = plan.run.units[task.unit];
    const name = plan.settings.datasets[u.dataset].name;
    for (const fi of task.fits) {
      const f = u.fits[fi];
      fingerprints.set(
        fitKey({ dataset: name, repeat: u.repeat, method: u.method, k: f.k, params: f.params }),
        f.fingerprint,
      );
    }
  });
  const file = out !== undefined ? join(out, shardFileName(shard)) : null;
  return {
    files:
      file === null
        ? null
        : { results: file, rejected: file.replace(/\.jsonl$/, ".rejected.jsonl") },
    fingerprints,
    total: fingerprints.size,
  };
}

/** The units left to run, cut into tasks for `workers` worker threads. */
function poolTasks(units: readonly WorkUnit[], settings: RunSettings, workers: number): PoolTask[] {
  return planTasks({ units }, settings, workers).map((t) => {
    const unit = units[t.unit];
    return {
      unit: { ...unit, fits: t.fits.map((i) => unit.fits[i]) },
      cost: t.cost,
      split: t.split,
    };
  });
}
