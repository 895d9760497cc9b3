/**
 * A whole grid against the reference fitting the same configurations: the `authors`
 * grid of repeat 0 on Yale, ORL and COIL20 (whole-dataset z-scoring; Baseline, PCA,
 * SDSPCA, SPCAN, SDSPCA-LPP and SDSPCAAN, the methods the NumPy reference implements;
 * k in {10, ..., 100} with c <= k <= min(n_train, d); a = b = 1 and c over
 * {0.01, ..., 100}), each fit followed by the 1-NN evaluation. Ours is the experiment
 * runner on one core (`workers: 1`, in process) and on two (`workers: 2`); the
 * reference is its own `run_protocol` on the same splits, one BLAS thread
 * (bench/ref/grid_ref.py). Per-fit overhead matters here: most fits are small.
 * Besides each data set's total, a row per method: on one core the runner fits one
 * configuration after the other, so the time from one finished fit (with its 1-NN
 * evaluation) to the next is the method's (the first method's row also holds the run's
 * set-up: the split, the z-scoring); the reference times each method's loop.
 * --quick: Yale and ORL only.
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { makeSplit } from "../../packages/sdspcaan/src/data/splits.js";
import { loadDataset } from "../../packages/sdspcaan-cli/src/io/load.js";
import { runExperiment } from "../../packages/sdspcaan-cli/src/runner/runner.node.js";
import {
  type BenchContext,
  type BenchSuite,
  dataDir,
  median,
  record,
  runPython,
} from "../harness.js";

const DATASETS = [
  { name: "Yale", file: "Yale_32x32.mat" },
  { name: "ORL", file: "ORL_32x32.mat" },
  { name: "COIL20", file: "COIL20.mat" },
];
const METHODS = ["baseline", "pca", "sdspca", "spcan", "sdspca-lpp", "sdspcaan"];

async function oursMs(
  data: {
    name: string;
    X: import("../../packages/sdspcaan/src/core/matrix.js").Matrix;
    y: number[];
  },
  workers: number,
): Promise<{ ms: number; fits: number; perMethod: Map<string, number> }> {
  const t0 = performance.now();
  // One worker, in process: fits finish one after the other, so each gap between two
  // progress reports is the time of the fit that ended it.
  const perMethod = new Map<string, number>();
  let last = 0;
  const res = await runExperiment(
    {
      datasets: [data],
      methods: METHODS,
      grid: "authors",
      repeats: 1,
      preprocess: "dataset-zscore",
      workers,
      inProcess: workers === 1,
    },
    {
      onProgress(p) {
        if (p.line === undefined || !("method" in p.line)) return;
        const method = String(p.line.method);
        perMethod.set(method, (perMethod.get(method) ?? 0) + p.elapsedMs - last);
        last = p.elapsedMs;
      },
    },
  );
  return { ms: performance.now() - t0, fits: res.records.length, perMethod };
}

export const gridSuite: BenchSuite = {
  name: "grid",
  description: "the authors grid (repeat 0) on Yale, ORL, COIL20 vs the reference's run_protocol",
  async run(ctx: BenchContext) {
    const chosen = ctx.quick ? DATASETS.slice(0, 2) : DATASETS;
    const loaded = [];
    for (const d of chosen) {
      const ds = await loadDataset(join(dataDir(), d.file));
      const split = makeSplit(ds.X.rows, { seed: 0, dataset: d.name, repeat: 0 });
      loaded.push({ ...d, ds, split });
    }
    const spec = {
      methods: METHODS,
      datasets: loaded.map((d) => ({
        path: join(dataDir(), d.file),
        train: Array.from(d.split.train),
        val: Array.from(d.split.val),
        test: Array.from(d.split.test),
      })),
    };
    const specPath = join(tmpdir(), `sdspcaan-grid-${process.pid}.json`);
    writeFileSync(specPath, JSON.stringify(spec));
    // Runs alternate between the two sides so that a change of load hits both.
    const ref: number[][] = loaded.map(() => []);
    const refFits: number[] = loaded.map(() => 0);
    const one: number[][] = loaded.map(() => []);
    // Per data set and method: ours (one worker) and the reference's times, run by run.
    const oneByMethod = loaded.map(() => new Map<string, number[]>());
    const refByMethod = loaded.map(() => new Map<string, number[]>());
    const two: number[][] = loaded.map(() => []);
    const fits: number[] = loaded.map(() => 0);
    for (let r = 0; r < ctx.runs; r++) {
      ctx.log(`grid: reference, run ${r + 1}/${ctx.runs}`);
      const out = runPython("grid_ref.py", [specPath], ctx.log);
      if (out === null) return;
      const per = out.datasets as {
        ms: number;
        fits: number;
        methods: Record<string, { ms: number }>;
      }[];
      per.forEach((p, i) => {
        ref[i].push(p.ms);
        refFits[i] = p.fits;
        for (const [m, v] of Object.entries(p.methods)) {
          const name = m.replace("_", "-");
          refByMethod[i].set(name, [...(refByMethod[i].get(name) ?? []), v.ms]);
        }
      });
      for (const [i, d] of loaded.entries()) {
        const data = { name: d.name, X: d.ds.X, y: d.ds.y as number[] };
        ctx.log(`grid: ours on ${d.name}, run ${r + 1}/${ctx.runs}`);
        const a = await oursMs(data, 1);
        const b = await oursMs(data, 2);
        one[i].push(a.ms);
        for (const [m, ms] of a.perMethod) {
          oneByMethod[i].set(m, [...(oneByMethod[i].get(m) ?? []), ms]);
        }
        two[i].push(b.ms);
        fits[i] = a.fits;
      }
    }
    const total = (xs: number[][]) => xs.reduce((s, x) => s + median(x), 0);
    for (const [i, d] of loaded.entries()) {
      ctx.emit(
        record(`grid_${d.name}_1worker`, median(one[i]), median(ref[i]), {
          fits: fits[i],
          ref_fits: refFits[i],
          two_workers_ms: Math.round(median(two[i])),
          two_workers_ratio: Math.round((1000 * median(two[i])) / median(ref[i])) / 1000,
        }),
      );
      for (const m of METHODS) {
        const ours = oneByMethod[i].get(m);
        const theirs = refByMethod[i].get(m);
        if (ours === undefined || theirs === undefined) continue;
        ctx.emit(record(`grid_${d.name}_${m}_1worker`, median(ours), median(theirs)));
      }
    }
    ctx.emit(
      record("grid_total_1worker", total(one), total(ref), {
        fits: fits.reduce((s, f) => s + f, 0),
        ref_fits: refFits.reduce((s, f) => s + f, 0),
        two_workers_ms: Math.round(total(two)),
        two_workers_ratio: Math.round((1000 * total(two)) / total(ref)) / 1000,
      }),
    );
  },
};
