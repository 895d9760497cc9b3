/**
 * The numbers a cluster job needs before it is submitted: how the run divides
 * into shards, what each shard costs by the cost model, the longest task, and the
 * memory one task holds. Nothing is fitted; the data sets are loaded only to know
 * their sizes (and labels, where the plan depends on them).
 */
import { ValidationError } from "sdspcaan";
import { effectiveCores, workerBytes } from "../protocol/cost.js";
import { assignShards, fitCosts, planTasks } from "../protocol/shards.js";
import { checkPositiveInteger, type ExperimentOptions, makePlan } from "../runner/runPlan.node.js";

/** How a run divides into shards, by the cost model. */
export interface RunEstimate {
  /** Fits of the whole run. */
  readonly fits: number;
  readonly shards: number;
  /** Estimated milliseconds of each shard on one core. */
  readonly shardCostMs: number[];
  /** Fits of each shard. */
  readonly shardFits: number[];
  /** The costliest single task (what one worker cannot split further). */
  readonly longestTaskMs: number;
  /** Estimated peak bytes of one process with `workers` workers. */
  readonly memoryBytes: number;
  /** Estimated milliseconds of every fit, summed. */
  readonly totalMs: number;
}

/**
 * Estimated wall hours of one task when neither the count nor a target is given: an
 * hour fits the usual short partitions and backfill windows, and a task stopped at
 * its limit (and requeued) loses little.
 */
export const DEFAULT_TASK_HOURS = 1;
const MAX_SHARDS = 1000;
/** What Node and the runner hold besides the data (bytes). */
const PROCESS_BYTES = 300 * 2 ** 20;

/**
 * Estimates a run cut into `count` shards (default: as many as make each task's
 * estimated wall time with `workers` workers about `taskHours`, DEFAULT_TASK_HOURS
 * when not given; at most 1,000 and at most one per task of the plan).
 */
export async function estimateRun(
  options: ExperimentOptions,
  how: { readonly count?: number; readonly workers: number; readonly taskHours?: number },
): Promise<RunEstimate> {
  const workers = checkPositiveInteger("workers", how.workers, 256);
  const taskHours = how.taskHours ?? DEFAULT_TASK_HOURS;
  if (!(Number.isFinite(taskHours) && taskHours > 0)) {
    throw new ValidationError(
      "task-hours",
      `The target task length must be a positive number of hours. Got ${taskHours}.`,
    );
  }
  const plan = await makePlan(options);
  const costs = fitCosts(plan.run, plan.settings);
  const totalMs = costs.flat().reduce((a, b) => a + b, 0);
  let count = how.count;
  if (count === undefined) {
    const tasks = planTasks(plan.run, plan.settings, MAX_SHARDS).length;
    const wanted = Math.ceil(totalMs / (effectiveCores(workers) * taskHours * 3_600_000));
    count = Math.max(1, Math.min(wanted, tasks, MAX_SHARDS));
  }
  if (!Number.isInteger(count) || count < 1 || count > 100_000) {
    throw new ValidationError(
      "shard-count",
      `The shard count must be an integer in [1, 100000]. Got ${count}.`,
    );
  }
  const tasks = planTasks(plan.run, plan.settings, count);
  const owner = assignShards(tasks, count);
  const shardCostMs = new Array<number>(count).fill(0);
  const shardFits = new Array<number>(count).fill(0);
  tasks.forEach((t, i) => {
    shardCostMs[owner[i]] += t.cost;
    shardFits[owner[i]] += t.fits.length;
  });
  let perWorker = 0;
  for (const u of plan.run.units) {
    const entry = plan.settings.datasets[u.dataset];
    perWorker = Math.max(
      perWorker,
      workerBytes({ n: entry.n, nTrain: u.split.train.length, d: entry.d }),
    );
  }
  return {
    fits: plan.run.total,
    shards: count,
    shardCostMs,
    shardFits,
    longestTaskMs: Math.max(0, ...tasks.map((t) => t.cost)),
    memoryBytes: PROCESS_BYTES + workers * perWorker,
    totalMs,
  };
}
