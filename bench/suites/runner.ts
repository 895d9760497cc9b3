/**
 * The experiment runner's throughput: fits per second of one small protocol run
 * (synthetic data, 2 data sets x 2 repeats x SDSPCA, SDSPCAAN and JPCDA, the quick
 * grid, 3 k values) with 1, 2, ... worker threads up to the machine's cores (or
 * --quick: 1 and 2). Work is cut into tasks of about one fit when there are
 * workers to share it, tasks of one split go to the worker that prepared it, so
 * throughput should grow with workers up to the core count; on a shared machine
 * it shows what the machine gave (cores_used: the process's CPU time over wall
 * time). No reference: this measures scheduling.
 */
import { availableParallelism } from "node:os";
import { makeSyntheticDataset } from "../../packages/sdspcaan/src/data/synthetic.js";
import { planRun, type RunSettings } from "../../packages/sdspcaan-cli/src/protocol/plan.js";
import { fitCosts, planTasks, TaskQueue } from "../../packages/sdspcaan-cli/src/protocol/shards.js";
import { runExperiment } from "../../packages/sdspcaan-cli/src/runner/runner.node.js";
import { type BenchContext, type BenchSuite, median, record } from "../harness.js";

const datasets = [
  { name: "A", ...makeSyntheticDataset({ samples: 400, features: 200, classes: 8, seed: 11 }) },
  { name: "B", ...makeSyntheticDataset({ samples: 300, features: 300, classes: 6, seed: 12 }) },
];

/** One run: fits, wall milliseconds, and CPU milliseconds of the process (all its threads). */
async function fitsPerSecond(
  workers: number,
): Promise<{ fits: number; ms: number; cpuMs: number }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const res = await runExperiment({
    datasets: datasets.map((d) => ({ name: d.name, X: d.X, y: d.y })),
    methods: ["sdspca", "sdspcaan", "jpcda"],
    grid: "quick",
    kGrid: [10, 20, 30],
    repeats: 2,
    commonMethodOptions: { maxIter: 50 },
    workers,
    inProcess: false,
  });
  const cpu = process.cpuUsage(cpu0);
  return {
    fits: res.records.length + res.skipped.length,
    ms: performance.now() - t0,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

/**
 * The issue's 16-core measurement, replayed on the cost model: the authors' grid for
 * SDSPCA, SDSPCA-LPP, SDSPCAAN and JPCDA on ORL and COIL20, one repeat. Makespan of
 * W workers taking work from the queue, with the old units (one per data set,
 * repeat and method, in plan order) and with the runner's tasks. A model, not a
 * measurement: it shows how much of the work the cutting lets W workers share.
 */
function scheduleModel(ctx: BenchContext): void {
  const entry = (name: string, n: number, classes: number) => ({
    name,
    n,
    d: 1024,
    classes,
    checksum: "0000000000000000",
    splitsChecksum: null,
    origin: null,
    splitsFile: null,
  });
  const settings: RunSettings = {
    format: "sdspcaan-experiment",
    version: 1,
    datasets: [entry("ORL", 400, 40), entry("COIL20", 1440, 20)],
    methods: ["jpcda", "sdspca", "sdspca-lpp", "sdspcaan"],
    grid: "authors",
    kGrid: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
    repeats: 1,
    seed: 0,
    preprocess: "train-zscore",
    stratify: false,
    fractions: { train: 0.2, val: 0.4 },
    methodOptions: { jpcda: {}, sdspca: {}, "sdspca-lpp": {}, sdspcaan: {} },
  };
  const plan = planRun(
    settings,
    settings.datasets.map(() => ({ y: null, splits: null })),
  );
  const unitCosts = fitCosts(plan, settings).map((c) => c.reduce((a, b) => a + b, 0));
  const total = unitCosts.reduce((a, b) => a + b, 0);
  const makespan = (tasks: Array<{ cost: number; split: string }>, workers: number) => {
    const queue = new TaskQueue(tasks);
    const free = new Array<number>(workers).fill(0);
    const last = new Array<string | null>(workers).fill(null);
    for (;;) {
      const w = free.indexOf(Math.min(...free));
      const active = new Set(last.filter((s, i): s is string => s !== null && i !== w));
      const task = queue.take(last[w], active);
      if (task === undefined) break;
      free[w] += task.cost;
      last[w] = task.split;
    }
    return Math.max(...free);
  };
  for (const workers of [1, 2, 4, 8, 16]) {
    const oldUnits = plan.units.map((_, i) => ({ cost: unitCosts[i], split: `u${i}` }));
    const tasks = planTasks(plan, settings, workers);
    const oldSpan = makespan(oldUnits, workers);
    const newSpan = makespan(tasks, workers);
    ctx.emit(
      record("runner_schedule_model", newSpan, null, {
        workers,
        fits: plan.total,
        old_speedup: Number((total / oldSpan).toFixed(2)),
        new_speedup: Number((total / newSpan).toFixed(2)),
        tasks: tasks.length,
      }),
    );
  }
}

export const runnerSuite: BenchSuite = {
  name: "runner",
  description: "experiment runner throughput (fits per second) with 1, 2, ... worker threads",
  async run(ctx: BenchContext) {
    scheduleModel(ctx);
    const cores = availableParallelism();
    const counts = ctx.quick
      ? [1, 2]
      : [...new Set([1, 2, 4, 8, 16, cores])].filter((w) => w <= Math.max(2, cores));
    let base: number | null = null;
    for (const workers of counts) {
      const times: number[] = [];
      const busy: number[] = [];
      let fits = 0;
      for (let r = 0; r < ctx.runs; r++) {
        ctx.log(`runner: ${workers} worker(s), run ${r + 1}/${ctx.runs}`);
        const got = await fitsPerSecond(workers);
        times.push(got.ms);
        busy.push(got.cpuMs / got.ms);
        fits = got.fits;
      }
      const ms = median(times);
      const rate = (1000 * fits) / ms;
      base ??= rate;
      ctx.emit(
        record("runner_throughput", ms, null, {
          workers,
          cores,
          fits,
          fits_per_s: Number(rate.toFixed(2)),
          speedup: Number((rate / base).toFixed(2)),
          // Cores the run actually got (CPU time over wall time): on a shared machine
          // this, not the worker count, bounds the speedup.
          cores_used: Number(median(busy).toFixed(2)),
        }),
      );
    }
  },
};
