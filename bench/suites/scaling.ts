/**
 * Scaling beyond the paper's sizes: SDSPCAAN and SDSPCA on synthetic labelled data with
 * n = 2,000 .. 20,000 samples (d = 256, 10 classes, k = 10), a fixed number of outer
 * iterations (3), the default solver choice (the matrix-free LOBPCG path above 2,000
 * samples, Chebyshev-filtered Laplacian spectra for large graph components).
 *
 * There is no reference time: the NumPy reference forms Z (n x n) and calls a dense
 * eigen-solver every iteration, O(n^3) time and 8 n^2 bytes (3.2 GB at n = 20,000), so
 * the record reports our time per fit and per iteration, where it went, and the resident
 * memory afterwards. --quick stops at n = 5,000.
 */
import { makeSyntheticDataset } from "../../src/experiment/synthetic.js";
import { createMethod } from "../../src/methods/registry.js";
import { TrainingData } from "../../src/methods/training.js";
import { type BenchContext, type BenchSuite, median, record } from "../harness.js";

const ITERATIONS = 3;

function runSize(ctx: BenchContext, method: string, n: number): void {
  const ds = makeSyntheticDataset({ samples: n, features: 256, classes: 10, seed: 7 });
  const walls: number[] = [];
  const prepare: number[] = [];
  let info: ReturnType<typeof createMethod>["fitInfo"] | null = null;
  for (let r = 0; r < ctx.runs; r++) {
    ctx.log(`scaling ${method} n=${n}: run ${r + 1}/${ctx.runs}`);
    const t0 = performance.now();
    const data = TrainingData.prepare(ds.X, ds.y);
    const t1 = performance.now();
    const model = createMethod(method, { k: 10, maxIter: ITERATIONS });
    model.fitPrepared(data);
    const t2 = performance.now();
    walls.push(t2 - t0);
    prepare.push(t1 - t0);
    info = model.fitInfo;
  }
  const fit = info as NonNullable<typeof info>;
  ctx.emit(
    record(`scaling_${method}`, median(walls), null, {
      n,
      d: 256,
      k: 10,
      solver: fit.solver,
      iterations: fit.iterations,
      ms_per_iteration: Math.round((median(walls) - median(prepare)) / fit.iterations),
      eigen_ms: Math.round(fit.timings.eigenMs),
      graph_ms: Math.round(fit.timings.graphMs),
      other_ms: Math.round(fit.timings.otherMs),
      rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
    }),
  );
}

export const scalingSuite: BenchSuite = {
  name: "scaling",
  description: `SDSPCAAN / SDSPCA, ${ITERATIONS} iterations on synthetic data, n = 2,000 to 20,000 (no reference: it is dense O(n^3))`,
  run(ctx: BenchContext) {
    const sizes = ctx.quick ? [2000, 5000] : [2000, 5000, 10000, 20000];
    for (const method of ["sdspcaan", "sdspca"]) {
      for (const n of sizes) runSize(ctx, method, n);
    }
  },
};
