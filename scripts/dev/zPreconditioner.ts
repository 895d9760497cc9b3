/**
 * Developer tool: what LOBPCG's preconditioner (Z - sigma I)^-1 does to SDSPCAAN's outer
 * iterations on Fashion-MNIST. Trains on the first n training images (train-zscore with
 * their own statistics), runs a few outer iterations on the matrix-free path with the
 * preconditioner forced on or off, and prints per outer iteration the CPU seconds
 * (user + system of this process, so that a loaded machine does not distort them), the
 * LOBPCG iterations, and the CPU seconds spent building the preconditioner; at the end
 * beta D's range at the last setup and the k-th eigenvalue, which decide how fast a
 * polynomial in D reaches the wanted eigenvectors (the ratio omega of the two, measured at
 * commit 285e458).
 *
 * Usage: npx tsx scripts/dev/zPreconditioner.ts --data-dir /work/shared/data
 *          [--n 10000] [--k 50] [--max-iter 5] [--preconditioner auto|always|never]
 */
import { parseArgs } from "node:util";
import { preprocessSplit } from "../../packages/sdspcaan/src/data/preprocess.js";
import { predefinedTestSplit } from "../../packages/sdspcaan/src/data/splits.js";
import { SDSPCAAN } from "../../packages/sdspcaan/src/methods/sdspcaan.js";
import { withQLoopPaths } from "../../packages/sdspcaan/src/methods/sdspcaFamily.js";
import { ZWoodbury } from "../../packages/sdspcaan/src/methods/zstep/zPreconditioner.js";
import { openDataset } from "../../packages/sdspcaan-cli/src/io/load.js";

const { values: args } = parseArgs({
  options: {
    "data-dir": { type: "string" },
    n: { type: "string", default: "10000" },
    k: { type: "string", default: "50" },
    "max-iter": { type: "string", default: "5" },
    preconditioner: { type: "string", default: "always" },
  },
});
const preconditioner = args.preconditioner as "auto" | "always" | "never";
if (!["auto", "always", "never"].includes(preconditioner)) {
  throw new Error(`--preconditioner must be "auto", "always" or "never", got ${preconditioner}`);
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1e6;
}

// CPU time spent in the preconditioner's setup (U^T L U, W^T E^-1 W, the small dense
// work), per outer iteration: the builder is wrapped, its applications are not.
let setupCpu = 0;
let betaDRange: [number, number] | null = null;
const build = ZWoodbury.prototype.build;
ZWoodbury.prototype.build = function (this: ZWoodbury, ...a: Parameters<typeof build>) {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const v of a[0]) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  betaDRange = [lo, hi];
  const t = process.cpuUsage();
  const out = build.apply(this, a);
  setupCpu += cpuSeconds(t);
  return out;
};

const opened = await openDataset("FashionMNIST", {
  ...(args["data-dir"] ? { dataDir: args["data-dir"] } : {}),
});
const { X, y, predefinedTest } = opened.dataset;
const whole = predefinedTestSplit(X.rows, predefinedTest as Int32Array, { validation: false });
const n = Math.min(Number(args.n), whole.train.length);
const split = { ...whole, train: whole.train.subarray(0, n) };
const { train } = preprocessSplit(X, split, "train-zscore");
const labels = Array.from(split.train, (i) => y[i]);
const k = Number(args.k);
// The preconditioner is not an option of the method: a path of the Q-loop, forced here.
const model = new (withQLoopPaths(SDSPCAAN, { preconditioner }))({
  k,
  maxIter: Number(args["max-iter"]),
  solver: "lobpcg",
});
const rows: {
  iteration: number;
  cpu_s: number;
  setup_cpu_s: number;
  beta_d_range: [number, number] | null;
}[] = [];
const cpu0 = process.cpuUsage();
let last = 0;
let lastSetup = 0;
model.fit(train, labels, {
  onProgress: (p) => {
    const now = cpuSeconds(cpu0);
    const row = {
      iteration: p.iteration,
      cpu_s: Math.round((now - last) * 100) / 100,
      setup_cpu_s: Math.round((setupCpu - lastSetup) * 100) / 100,
      // beta D at this iteration's preconditioner setup (null before the first).
      beta_d_range: betaDRange,
    };
    rows.push(row);
    // Each outer iteration as it ends (stderr), for following a long fit.
    process.stderr.write(`${JSON.stringify(row)}\n`);
    last = now;
    lastSetup = setupCpu;
  },
});
const details = model.fitInfo.details;
const perSolve = details.lobpcgIterationsPerSolve ?? [];
for (const [t, row] of rows.entries()) {
  console.log(JSON.stringify({ n, k, preconditioner, ...row, lobpcg: perSolve[t] ?? null }));
}
console.log(
  JSON.stringify({
    n,
    k,
    preconditioner,
    total_cpu_s: Math.round(cpuSeconds(cpu0) * 10) / 10,
    outer_iterations: model.fitInfo.iterations,
    lobpcg_iterations: details.lobpcgIterations,
    preconditioned_solves: details.preconditionedSolves,
    // Wall-clock split of the fit (the eigen-solves include the preconditioner's setup).
    eigen_wall_s: Math.round(model.fitInfo.timings.eigenMs / 100) / 10,
    graph_wall_s: Math.round(model.fitInfo.timings.graphMs / 100) / 10,
    eigenvalues_head: details.eigenvalues.slice(0, 3),
    lambda_k: details.eigenvalues[k - 1],
    beta_d_range: betaDRange,
    omega: omega(betaDRange, details.eigenvalues[k - 1]),
  }),
);

/** |l| - sqrt(l^2 - 1) for lambda mapped to l on [lo, hi] scaled to [-1, 1] (null if inside). */
function omega(range: [number, number] | null, lambda: number): number | null {
  if (range === null) return null;
  const l = (lambda - (range[0] + range[1]) / 2) / ((range[1] - range[0]) / 2);
  return Math.abs(l) > 1 ? Math.abs(l) - Math.sqrt(l * l - 1) : null;
}
