/**
 * Scaling beyond the paper's sizes, in two parts.
 *
 * Fashion-MNIST (when the registry finds it: --data-dir, $SDSPCAAN_DATA, ../shared/data,
 * the cache, /usr/share/datasets): SDSPCAAN, SDSPCA, SDSPCA-LPP, PCA, LDA and LPP on the
 * first 10,000, 20,000 and all 60,000 training images (d = 784, k = 10; LDA 9 = c - 1;
 * SDSPCAAN also k = 50 on all of them), defaults otherwise, each fit in its own child
 * process (bench/fashionFit.ts) under `/usr/bin/time -v` for the peak resident memory;
 * the record holds wall and CPU time, the fit's time split, iterations and the test BCA
 * of 1-NN on the 10,000 test images. One run per size (a 60,000-image fit takes
 * minutes). The fitted exponent of time in n (least squares on log time vs log n) is
 * reported per method. --quick runs 10,000 only.
 *
 * Synthetic: SDSPCAAN and SDSPCA on synthetic labelled data with
 * n = 2,000 .. 20,000 samples (d = 256, 10 classes, k = 10), a fixed number of outer
 * iterations (3), the default solver choice (the matrix-free LOBPCG path above 2,000
 * samples, Chebyshev-filtered Laplacian spectra for large graph components).
 *
 * There is no reference time: the NumPy reference forms Z (n x n) and calls a dense
 * eigen-solver every iteration, O(n^3) time and 8 n^2 bytes (3.2 GB at n = 20,000), so
 * the record reports our time per fit and per iteration, where it went, and the resident
 * memory afterwards. --quick stops at n = 5,000.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeSyntheticDataset } from "../../packages/sdspcaan/src/data/synthetic.js";
import { createMethod } from "../../packages/sdspcaan/src/methods/registry.js";
import { TrainingData } from "../../packages/sdspcaan/src/methods/training.js";
import { locateDataFile } from "../../packages/sdspcaan-cli/src/io/locate.js";
import { findDataset } from "../../packages/sdspcaan-cli/src/io/registry.js";
import {
  type BenchContext,
  type BenchSuite,
  benchDir,
  dataDir,
  median,
  record,
  repoRoot,
} from "../harness.js";

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

/** The Fashion-MNIST fits: method, k, and the sizes (all three unless listed). */
const FASHION_FITS: ReadonlyArray<readonly [string, number, readonly number[] | null]> = [
  ["pca", 10, null],
  ["lda", 9, null],
  ["lpp", 10, null],
  ["sdspca", 10, null],
  ["sdspca-lpp", 10, null],
  ["sdspcaan", 10, null],
  ["sdspcaan", 50, [60000]],
];

/** Peak RSS (kB), wall (s) and CPU (s) from the report of `/usr/bin/time -v`. */
export function parseTimeReport(
  text: string,
): { rssKb: number; wallS: number; cpuS: number } | null {
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(text);
  const wall = /Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)/.exec(text);
  const user = /User time \(seconds\): ([\d.]+)/.exec(text);
  const sys = /System time \(seconds\): ([\d.]+)/.exec(text);
  if (!rss || !wall || !user || !sys) return null;
  const wallS = wall[1].split(":").reduce((acc, part) => acc * 60 + Number(part), 0);
  return { rssKb: Number(rss[1]), wallS, cpuS: Number(user[1]) + Number(sys[1]) };
}

/** Least-squares slope of log(time) against log(n). */
function fittedExponent(points: Array<[number, number]>): number | null {
  if (points.length < 2) return null;
  const xs = points.map(([n]) => Math.log(n));
  const ys = points.map(([, t]) => Math.log(t));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den > 0 ? Math.round((100 * num) / den) / 100 : null;
}

function runFashion(ctx: BenchContext): void {
  const entry = findDataset("FashionMNIST");
  const found = entry
    ? locateDataFile(entry.file, { dataDir: dataDir(), systemDirs: entry.systemDirs })
    : null;
  if (!entry || !found) {
    ctx.log("scaling: Fashion-MNIST not found (see `sdspcaan datasets list`); skipped");
    return;
  }
  const timeTool = existsSync("/usr/bin/time") ? "/usr/bin/time" : null;
  const sizes = ctx.quick ? [10000] : [10000, 20000, 60000];
  for (const [method, k, only] of FASHION_FITS) {
    const points: Array<[number, number]> = [];
    for (const n of sizes.filter((s) => only === null || only.includes(s))) {
      ctx.log(`scaling fashion ${method} k=${k} n=${n}`);
      const args = [
        "--import",
        "tsx",
        join(benchDir, "fashionFit.ts"),
        method,
        String(n),
        String(k),
      ];
      const t0 = performance.now();
      const res = spawnSync(
        timeTool ?? process.execPath,
        timeTool ? ["-v", process.execPath, ...args] : args,
        {
          cwd: repoRoot,
          encoding: "utf8",
          env: { ...process.env, SDSPCAAN_DATA: dataDir() },
          maxBuffer: 1 << 24,
        },
      );
      const wallMs = performance.now() - t0;
      const line = res.stdout.trim().split("\n").pop() ?? "";
      if (res.status !== 0 || !line.startsWith("{")) {
        ctx.log(`  failed: ${res.stderr.trim().split("\n").slice(-3).join(" | ")}`);
        continue;
      }
      const fit = JSON.parse(line) as Record<string, unknown>;
      const usage = timeTool ? parseTimeReport(res.stderr) : null;
      points.push([n, fit.fit_ms as number]);
      ctx.emit(
        record(`fashion_${method}`, wallMs, null, {
          n,
          d: 784,
          k,
          fit_ms: fit.fit_ms,
          cpu_s: usage?.cpuS ?? null,
          rss_mb: usage ? Math.round(usage.rssKb / 1024) : null,
          iterations: fit.iterations,
          eigen_ms: fit.eigen_ms,
          graph_ms: fit.graph_ms,
          laplacian_ms: fit.laplacian_ms,
          nn_ms: fit.nn_ms,
          threads: fit.threads,
          test_bca: fit.test_bca,
        }),
      );
    }
    const exponent = fittedExponent(points);
    if (exponent !== null) ctx.log(`scaling fashion ${method} k=${k}: fit time ~ n^${exponent}`);
  }
}

export const scalingSuite: BenchSuite = {
  name: "scaling",
  description: `Fashion-MNIST (10k, 20k, 60k training images; time, peak RSS, test BCA) and SDSPCAAN / SDSPCA, ${ITERATIONS} iterations on synthetic data, n = 2,000 to 20,000 (no reference: it is dense O(n^3))`,
  run(ctx: BenchContext) {
    runFashion(ctx);
    const sizes = ctx.quick ? [2000, 5000] : [2000, 5000, 10000, 20000];
    for (const method of ["sdspcaan", "sdspca"]) {
      for (const n of sizes) runSize(ctx, method, n);
    }
  },
};
