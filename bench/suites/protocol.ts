/**
 * What the whole `authors` protocol would take: all nine data sets, 10 repeats, the
 * eight methods of Table IV (12,000 fits), estimated from a timed slice. The plan is
 * the runner's own (`makePlan`); from every (data set, method) group of repeat 0 the
 * slice times SAMPLE fits spread evenly over the group's configurations (k and grid
 * point, in plan order), each fit and its 1-NN evaluation as the runner does them, one
 * core, in this process. The estimate is, per group, the mean sampled time times the
 * group's planned fits over all repeats; repeats differ only in the split, which moves
 * iteration counts but not the sizes. Reported per data set and in total, as hours on
 * one core and divided by two for the two workers of this machine. No reference: the
 * target is the total (issue #11: <= 3 hours on two cores).
 */
import { makePlan } from "../../packages/sdspcaan-cli/src/runner/runPlan.node.js";
import {
  type FitRequest,
  UnitRunner,
  type WorkUnit,
} from "../../packages/sdspcaan-cli/src/runner/units.node.js";
import { type BenchContext, type BenchSuite, dataDir, record } from "../harness.js";

const DATASETS = ["Musk1", "MSRA25", "Palm", "USPST", "Isolet", "Yale", "ORL", "COIL20", "YaleB"];
const METHODS = ["baseline", "pca", "jpcda", "sdspca", "slnp", "spcan", "sdspca-lpp", "sdspcaan"];
/** Fits timed per (data set, method) group; --quick: 1. */
const SAMPLE = 3;

/** `count` items spread evenly over `items` (first and last included). */
function spread<T>(items: readonly T[], count: number): T[] {
  if (items.length <= count) return [...items];
  if (count === 1) return [items[items.length >> 1]];
  return Array.from(
    { length: count },
    (_, i) => items[Math.round((i * (items.length - 1)) / (count - 1))],
  );
}

export const protocolSuite: BenchSuite = {
  name: "protocol",
  description: "the authors grid on 9 data sets x 10 repeats, estimated from a timed slice",
  async run(ctx: BenchContext) {
    const plan = await makePlan({
      datasets: DATASETS.map((name) => ({ source: name, load: { dataDir: dataDir() } })),
      methods: METHODS,
      grid: "authors",
      repeats: 10,
      preprocess: "dataset-zscore",
      inProcess: true,
    });
    const runner = new UnitRunner(
      plan.datasets.map((d) => d.data),
      { preprocess: plan.settings.preprocess, methodOptions: plan.settings.methodOptions },
    );
    const sample = ctx.quick ? 1 : SAMPLE;
    let totalMs = 0;
    let totalFits = 0;
    let timedFits = 0;
    for (const [index, name] of DATASETS.entries()) {
      let datasetMs = 0;
      let datasetFits = 0;
      for (const method of METHODS) {
        const units = plan.units.filter((u) => u.dataset === index && u.method === method);
        const planned = units.reduce((s, u) => s + u.fits.length, 0);
        const first = units.find((u) => u.repeat === 0);
        if (planned === 0 || first === undefined) continue;
        const chosen: FitRequest[] = spread(first.fits, sample);
        const unit: WorkUnit = { ...first, fits: chosen };
        // The split is prepared (z-scored) once per data set and repeat: not timed.
        await runner.run({ ...first, fits: [] }, () => {});
        const times: number[] = [];
        let t0 = performance.now();
        await runner.run(unit, () => {
          const t = performance.now();
          times.push(t - t0);
          t0 = t;
        });
        const mean = times.reduce((s, t) => s + t, 0) / times.length;
        ctx.log(
          `protocol: ${name} ${method}: ${chosen.length} of ${planned} fits timed, mean ${mean.toFixed(0)} ms`,
        );
        datasetMs += mean * planned;
        datasetFits += planned;
        timedFits += chosen.length;
      }
      ctx.emit({
        ...record(`protocol_${name}`, datasetMs, null),
        fits: datasetFits,
        hours_one_core: Math.round((datasetMs / 3.6e6) * 100) / 100,
      });
      totalMs += datasetMs;
      totalFits += datasetFits;
    }
    ctx.emit({
      ...record("protocol_total", totalMs, null),
      fits: totalFits,
      timed_fits: timedFits,
      hours_one_core: Math.round((totalMs / 3.6e6) * 100) / 100,
      hours_two_workers: Math.round((totalMs / 2 / 3.6e6) * 100) / 100,
    });
  },
};
