/**
 * Cutting a run into pieces that run apart: tasks (slices of the plan's
 * (dataset, repeat, method) units small enough that the longest is about one fit
 * of the costliest kind), shards (a deterministic, cost-balanced share of the
 * tasks for one process of a cluster job array), and the queue a pool of workers
 * takes tasks from (tasks of one split go to the worker that already prepared it).
 *
 * None of this changes a result: every fit of a unit is built from the unit's
 * split, options and grid point alone (units.node.ts), whichever task, shard or
 * worker it falls in.
 */
import { ValidationError } from "sdspcaan";
import { fitCostMs } from "./cost.js";
import type { RunSettings } from "./plan.js";

/** A slice of one planned unit: some of its fits, with their estimated cost. */
export interface PlanTask {
  /** Index into the plan's units. */
  readonly unit: number;
  /** Indices into the unit's fits, ascending. */
  readonly fits: readonly number[];
  /** Estimated milliseconds (cost.ts). */
  readonly cost: number;
  /** A stable name: data set, repeat, method, k and first grid point. */
  readonly id: string;
  /** The split the task fits on ("dataset:repeat"): tasks of one split share its preparation. */
  readonly split: string;
}

/** What the cutting needs of a unit (a planned unit, or a work unit with the fits left). */
export interface UnitShape {
  readonly dataset: number;
  readonly repeat: number;
  readonly method: string;
  readonly split: { readonly train: { readonly length: number } };
  readonly fits: readonly { readonly k: number }[];
}

/** Estimated milliseconds of every fit of the plan, per unit. */
export function fitCosts(
  plan: { readonly units: readonly UnitShape[] },
  settings: Pick<RunSettings, "datasets">,
): number[][] {
  return plan.units.map((u) => {
    const { d } = settings.datasets[u.dataset];
    return u.fits.map((f) => fitCostMs(u.method, { nTrain: u.split.train.length, d, k: f.k }));
  });
}

/**
 * Cuts the plan's units into tasks: one per (unit, k), and a (unit, k) whose cost
 * exceeds the total over 4 x `parts` is cut further into runs of consecutive grid
 * points, so that `parts` processes can share the work evenly while a task still
 * fits several grid points of one split where that costs little.
 */
export function planTasks(
  plan: { readonly units: readonly UnitShape[] },
  settings: Pick<RunSettings, "datasets">,
  parts: number,
): PlanTask[] {
  const costs = fitCosts(plan, settings);
  const total = costs.flat().reduce((a, b) => a + b, 0);
  const limit = total / (4 * Math.max(1, parts));
  const tasks: PlanTask[] = [];
  plan.units.forEach((u, ui) => {
    const name = settings.datasets[u.dataset].name;
    const split = `${u.dataset}:${u.repeat}`;
    // Fits of one k are consecutive in a unit (k varies slowest).
    let start = 0;
    while (start < u.fits.length) {
      let end = start + 1;
      while (end < u.fits.length && u.fits[end].k === u.fits[start].k) end++;
      const cellCost = costs[ui].slice(start, end).reduce((a, b) => a + b, 0);
      const pieces = Math.min(end - start, Math.max(1, Math.ceil(cellCost / limit)));
      const size = Math.ceil((end - start) / pieces);
      for (let a = start; a < end; a += size) {
        const b = Math.min(end, a + size);
        const fits = Array.from({ length: b - a }, (_, i) => a + i);
        tasks.push({
          unit: ui,
          fits,
          cost: fits.reduce((s, i) => s + costs[ui][i], 0),
          id: `${name}|${u.repeat}|${u.method}|k=${u.fits[a].k}|${a - start}`,
          split,
        });
      }
      start = end;
    }
  });
  return tasks;
}

/**
 * Assigns tasks to `count` shards by longest-processing-time first: tasks by
 * decreasing cost (ties by id), each to the shard with the least cost so far (ties:
 * the lowest index). Deterministic and independent of the order of `tasks`, so
 * every process of an array computes the same assignment. Each shard's cost is at
 * most the mean (total / count) plus the costliest task.
 */
export function assignShards(
  tasks: readonly Pick<PlanTask, "id" | "cost">[],
  count: number,
): number[] {
  if (!Number.isInteger(count) || count < 1) {
    throw new ValidationError("shard", `The shard count must be an integer >= 1. Got ${count}.`);
  }
  const order = tasks
    .map((_, i) => i)
    .sort(
      (a, b) =>
        tasks[b].cost - tasks[a].cost ||
        (tasks[a].id < tasks[b].id ? -1 : tasks[a].id > tasks[b].id ? 1 : 0),
    );
  const load = new Float64Array(count);
  const out = new Array<number>(tasks.length).fill(0);
  for (const i of order) {
    let best = 0;
    for (let s = 1; s < count; s++) if (load[s] < load[best]) best = s;
    out[i] = best;
    load[best] += tasks[i].cost;
  }
  return out;
}

/** One shard of a run: index in [0, count). */
export interface ShardSpec {
  readonly index: number;
  readonly count: number;
}

/** The results file of a shard, beside the others in the run's directory. */
export function shardFileName(shard: ShardSpec): string {
  return `results.shard-${shard.index}-of-${shard.count}.jsonl`;
}

/** Whether a file name is a shard's results file; its index and count when it is. */
export function parseShardFileName(name: string): ShardSpec | null {
  const m = /^results\.shard-(\d+)-of-(\d+)\.jsonl$/.exec(name);
  if (m === null) return null;
  const index = Number(m[1]);
  const count = Number(m[2]);
  return index < count ? { index, count } : null;
}

function checkShard(index: number, count: number, argument: string, given: string): ShardSpec {
  if (!Number.isInteger(count) || count < 1 || count > 100_000) {
    throw new ValidationError(
      argument,
      `The shard count in ${given} must be an integer in [1, 100000].`,
    );
  }
  if (!Number.isInteger(index) || index < 0 || index >= count) {
    throw new ValidationError(
      argument,
      `The shard index in ${given} must be an integer in [0, ${count - 1}] (shards are numbered from 0).`,
    );
  }
  return { index, count };
}

/** Parses "i/N" (0 <= i < N) as given to --shard. */
export function parseShard(text: string, argument = "shard"): ShardSpec {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  if (m === null) {
    throw new ValidationError(
      argument,
      `--${argument} must be INDEX/COUNT with 0 <= INDEX < COUNT, e.g. 3/8. Got ${JSON.stringify(text)}.`,
    );
  }
  return checkShard(Number(m[1]), Number(m[2]), argument, `--${argument} ${text}`);
}

/**
 * The job arrays that tell a task its index: the variable holding it, the one holding
 * the number of tasks (if the scheduler sets one), and what to say when neither that
 * nor `--shard-count` gives the number.
 */
const JOB_ARRAYS: ReadonlyArray<{ index: string; count: string | null; missing: string }> = [
  {
    index: "SLURM_ARRAY_TASK_ID",
    count: "SLURM_ARRAY_TASK_COUNT",
    missing: "SLURM_ARRAY_TASK_ID is set but the number of shards is not: give --shard-count N.",
  },
  {
    index: "JOB_COMPLETION_INDEX",
    count: null,
    missing:
      "JOB_COMPLETION_INDEX is set (a Kubernetes Indexed Job): give the number of completions as --shard-count N.",
  },
];

/**
 * The shard of this process from a job array's environment: Slurm's
 * SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT (or `count`, which wins, so that
 * a resubmitted single task keeps the run's count), or a Kubernetes Indexed Job's
 * JOB_COMPLETION_INDEX with `count`. Null when neither is set.
 */
export function shardFromEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  count?: number,
): ShardSpec | null {
  const integer = (name: string, value: string): number => {
    if (!/^\d+$/.test(value.trim())) {
      throw new ValidationError("shard", `${name}=${JSON.stringify(value)} is not a task index.`);
    }
    return Number(value.trim());
  };
  for (const job of JOB_ARRAYS) {
    const text = env[job.index];
    if (text === undefined || text === "") continue;
    const index = integer(job.index, text);
    const countText = job.count === null ? undefined : env[job.count];
    const total =
      count ?? (job.count !== null && countText ? integer(job.count, countText) : undefined);
    if (total === undefined) throw new ValidationError("shard-count", job.missing);
    return checkShard(index, total, "shard-count", `${job.index}=${index} of ${total} shards`);
  }
  return null;
}

/**
 * Tasks waiting for workers, by split. A free worker takes the costliest task of
 * the split it worked on last (its prepared split is still cached); when that split
 * has none left, the costliest task of the split with the most work left that no
 * other worker is on, else of the split with the most work left. So each worker
 * prepares few splits, and the costliest work starts first.
 */
export class TaskQueue<T extends { readonly cost: number; readonly split: string }> {
  private readonly bySplit = new Map<string, T[]>();
  private readonly left = new Map<string, number>();
  private count = 0;

  constructor(tasks: readonly T[]) {
    for (const t of tasks) {
      const list = this.bySplit.get(t.split) ?? [];
      list.push(t);
      this.bySplit.set(t.split, list);
      this.left.set(t.split, (this.left.get(t.split) ?? 0) + t.cost);
    }
    // Stable sort: equal costs keep the plan's order.
    for (const list of this.bySplit.values()) list.sort((a, b) => b.cost - a.cost);
    this.count = tasks.length;
  }

  get size(): number {
    return this.count;
  }

  /**
   * The next task for a worker whose last split was `last`, with `active` the
   * splits other workers are on; undefined when none is left.
   */
  take(last: string | null, active: ReadonlySet<string>): T | undefined {
    let split: string | null = last !== null && this.bySplit.has(last) ? last : null;
    if (split === null) {
      let best: string | null = null;
      let bestFree: string | null = null;
      for (const [s] of this.bySplit) {
        const w = this.left.get(s) ?? 0;
        if (best === null || w > (this.left.get(best) ?? 0)) best = s;
        if (!active.has(s) && (bestFree === null || w > (this.left.get(bestFree) ?? 0)))
          bestFree = s;
      }
      split = bestFree ?? best;
    }
    if (split === null) return undefined;
    const list = this.bySplit.get(split) as T[];
    const task = list.shift() as T;
    this.left.set(split, (this.left.get(split) ?? 0) - task.cost);
    if (list.length === 0) {
      this.bySplit.delete(split);
      this.left.delete(split);
    }
    this.count--;
    return task;
  }
}
