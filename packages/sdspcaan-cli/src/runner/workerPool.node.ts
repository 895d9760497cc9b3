/**
 * The pool of worker threads that fits work units. The data sets go to every
 * worker once, in shared memory; units are handed out one at a time as workers
 * become free, and every result line is passed on as soon as its fit finishes.
 * Every worker loads the run's plug-ins (by path, checking their hash) first.
 */
import type { Worker } from "node:worker_threads";
import { AbortError, ConvergenceError, SdspcaanError, ValidationError } from "sdspcaan";
import { throwIfAborted } from "sdspcaan/methods";
import { nativeKernelsActive, startWorker } from "sdspcaan/node";
import type { PluginSettings } from "../protocol/plan.js";
import { TaskQueue } from "../protocol/shards.js";
import type { ResultLine } from "./resultsFile.node.js";
import { shareDataset, type UnitDataset, type UnitSettings, type WorkUnit } from "./units.node.js";
import type { ErrorMessage, FromWorker, ToWorker, WorkerInit } from "./worker.node.js";

/** Starts a worker (the built worker.node.js, or the .ts entry through tsx from sources). */
function createWorker(init: WorkerInit): Worker {
  return startWorker(import.meta.url, "./worker.node", "The experiment runner", {
    workerData: init,
  });
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

/** A work unit (or a slice of one) with what the queue needs to hand it out. */
export interface PoolTask {
  readonly unit: WorkUnit;
  /** Estimated milliseconds (cost.ts). */
  readonly cost: number;
  /** "dataset:repeat": tasks of one split go to the worker that prepared it, when possible. */
  readonly split: string;
}

/**
 * Runs tasks on a pool of worker threads; resolves when all are done. Each
 * worker keeps its last prepared splits (units.node.ts), and the queue hands a
 * free worker more work on the split it last worked on (shards.ts, TaskQueue).
 */
export async function runInWorkers(
  datasets: readonly UnitDataset[],
  tasks: readonly PoolTask[],
  unitSettings: UnitSettings,
  workers: number,
  onLine: (line: ResultLine) => void,
  signal: AbortSignal | undefined,
  plugins: readonly PluginSettings[] = [],
): Promise<void> {
  const init: WorkerInit = {
    kind: "sdspcaan-experiment-worker",
    datasets: datasets.map(shareDataset),
    settings: unitSettings,
    native: nativeKernelsActive(),
    plugins: plugins.map(({ path, sha256 }) => ({ path, sha256 })),
  };
  const queue = new TaskQueue(tasks);
  const pool: Worker[] = [];
  const busy = new Map<Worker, PoolTask>();
  const lastSplit = new Map<Worker, string>();
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
      const active = new Set<string>();
      for (const [other, t] of busy) if (other !== w) active.add(t.split);
      const task = queue.take(lastSplit.get(w) ?? null, active);
      if (task === undefined) {
        busy.delete(w);
        if (busy.size === 0 && !finished) {
          finished = true;
          signal?.removeEventListener("abort", onAbort);
          stopAll();
          resolve();
        }
        return;
      }
      busy.set(w, task);
      lastSplit.set(w, task.split);
      const msg: ToWorker = { type: "unit", unit: task.unit };
      w.postMessage(msg);
    };
    const count = Math.max(1, Math.min(workers, queue.size));
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
          const unit = busy.get(w)?.unit;
          fail(errorFromWorker(msg.error, unit, unit ? datasets[unit.dataset].name : ""));
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
