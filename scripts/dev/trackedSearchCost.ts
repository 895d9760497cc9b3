/**
 * Developer tool: what the within-class neighbour search of SDSPCAAN's S update costs
 * at large n, in full and tracked (src/graph/trackedNeighbours.ts), on Fashion-MNIST's
 * training images projected to k dimensions by PCA (a stand-in for a fit's P = X X^T Q,
 * which a late outer iteration only reaches after 15-20 minutes of fitting). Prints the
 * median wall time over --repeats of the labelled search (lambda large, so that it stays
 * within the classes) done in full, and done by a tracker after P moved by a relative
 * amount --move (Gaussian noise of that size times P's root mean square entry, and one
 * column's sign flipped), with the share of rows certified.
 *
 * Usage: SDSPCAAN_DATA=../shared/data npx tsx scripts/dev/trackedSearchCost.ts
 *          [--n 60000] [--k 50] [--threads 2] [--repeats 3] [--move 1e-6,1e-4,1e-3,1e-2]
 */
import { parseArgs } from "node:util";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { Random } from "../../packages/sdspcaan/src/core/rng.js";
import { preprocessSplit } from "../../packages/sdspcaan/src/data/preprocess.js";
import { predefinedTestSplit } from "../../packages/sdspcaan/src/data/splits.js";
import { labelledNeighbours } from "../../packages/sdspcaan/src/graph/neighbours.js";
import { WithinClassNeighbourTracker } from "../../packages/sdspcaan/src/graph/trackedNeighbours.js";
import { createMethod } from "../../packages/sdspcaan/src/methods/registry.js";
import { setKernelThreads } from "../../packages/sdspcaan/src/threads/helperThread.node.js";
import { openDataset } from "../../packages/sdspcaan-cli/src/io/load.js";

const { values: args } = parseArgs({
  options: {
    n: { type: "string", default: "60000" },
    k: { type: "string", default: "50" },
    threads: { type: "string", default: "2" },
    repeats: { type: "string", default: "3" },
    move: { type: "string", default: "1e-6,1e-4,1e-3,1e-2" },
  },
});
setKernelThreads(Number(args.threads));
const opened = await openDataset("FashionMNIST", {
  ...(process.env.SDSPCAAN_DATA ? { dataDir: process.env.SDSPCAAN_DATA } : {}),
});
const { X, y, predefinedTest } = opened.dataset;
const whole = predefinedTestSplit(X.rows, predefinedTest as Int32Array, { validation: false });
const n = Math.min(Number(args.n), whole.train.length);
const split = { ...whole, train: whole.train.subarray(0, n) };
const { train } = preprocessSplit(X, split, "train-zscore");
const labels = Array.from(split.train, (i) => Number(y[i]));
const codes = Int32Array.from(labels);
const classes = Math.max(...labels) + 1;
const P = createMethod("pca", { k: Number(args.k) })
  .fit(train, labels)
  .transform(train);
const count = 16; // m + 1 with the paper's m = 15
const lambda = 2 ** 28; // where the 60,000-image fit's lambda settles: no cross-class candidates
const repeats = Number(args.repeats);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
function time(f: () => void): number {
  const t0 = performance.now();
  f();
  return (performance.now() - t0) / 1000;
}

const full = median(
  Array.from({ length: repeats }, () =>
    time(() => labelledNeighbours(P, codes, lambda, count, { strategy: "blocks" })),
  ),
);
console.log(`n ${n}, k ${P.cols}: full within-class search ${full.toFixed(2)} s`);

let rms = 0;
for (const v of P.data) rms += v * v;
rms = Math.sqrt(rms / P.data.length);
for (const move of args.move.split(",").map(Number)) {
  const rng = new Random(7);
  const moved = new Matrix(P.rows, P.cols, Float64Array.from(P.data));
  for (let t = 0; t < moved.data.length; t++) moved.data[t] += move * rms * rng.normal();
  for (let i = 0; i < moved.rows; i++) moved.data[i * moved.cols] *= -1;
  const times: number[] = [];
  const lists: number[] = [];
  let share = 0;
  let relative = 0;
  for (let r = 0; r < repeats; r++) {
    // The first search keeps no lists; the second (P unmoved) renews them; the third is
    // the one measured, after P moved.
    const tracker = new WithinClassNeighbourTracker(codes, classes, count);
    labelledNeighbours(P, codes, lambda, count, { strategy: "blocks", tracker });
    lists.push(
      time(() => labelledNeighbours(P, codes, lambda, count, { strategy: "blocks", tracker })),
    );
    const before = tracker.stats.rowsCertified;
    times.push(
      time(() => labelledNeighbours(moved, codes, lambda, count, { strategy: "blocks", tracker })),
    );
    share = (tracker.stats.rowsCertified - before) / n;
    relative = tracker.stats.relativeMove;
  }
  console.log(
    `move ${move}: median relative move ${relative.toPrecision(2)}, tracked search ${median(times).toFixed(2)} s (${(100 * share).toFixed(1)} % of rows certified); the search that made the lists ${median(lists).toFixed(2)} s`,
  );
}
