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
import { runExperiment } from "../../src/experiment/runner.node.js";
import { makeSyntheticDataset } from "../../src/experiment/synthetic.js";
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

export const runnerSuite: BenchSuite = {
  name: "runner",
  description: "experiment runner throughput (fits per second) with 1, 2, ... worker threads",
  async run(ctx: BenchContext) {
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
