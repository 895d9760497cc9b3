/**
 * Developer tool: the labelled neighbour search (graph/neighbours.ts) alone, on the
 * embedding SDSPCAAN's graph step sees: Fashion-MNIST's first n training images
 * (train-zscore) projected by an SDSPCAAN fit stopped after `iters` outer iterations,
 * at that fit's lambda and at 2^10 and 2^20 times it (fewer rows searching across
 * classes). Runs the block scans and the cluster bounds of clusterScan.ts on `threads`
 * threads, checks that both give the same neighbours and distances (bit for bit) and
 * prints the median times and how many rows still search across classes.
 * Usage: npx tsx scripts/dev/labelledSearch.ts [n] [k] [threads] [runs] [iters] [--data-dir D]
 */

import { preprocessSplit } from "../../packages/sdspcaan/src/data/preprocess.js";
import { predefinedTestSplit } from "../../packages/sdspcaan/src/data/splits.js";
import { labelledNeighbours } from "../../packages/sdspcaan/src/graph/neighbours.js";
import { kernelHelpers } from "../../packages/sdspcaan/src/linalg/kernels/helper.js";
import { SDSPCAAN } from "../../packages/sdspcaan/src/methods/sdspcaan.js";
import { setKernelThreads } from "../../packages/sdspcaan/src/threads/helperThread.node.js";
import { openDataset } from "../../packages/sdspcaan-cli/src/io/load.js";

const args = process.argv.slice(2);
const dirAt = args.indexOf("--data-dir");
const dataDir = dirAt >= 0 ? args.splice(dirAt, 2)[1] : undefined;
const [n = 60000, k = 50, threads = 2, runs = 3, iters = 3] = args.map(Number);
setKernelThreads(threads);
const opened = await openDataset("FashionMNIST", dataDir ? { dataDir } : {});
const { X, y, predefinedTest } = opened.dataset;
const whole = predefinedTestSplit(X.rows, predefinedTest as Int32Array, { validation: false });
const split = { ...whole, train: whole.train.subarray(0, n) };
const { train } = preprocessSplit(X, split, "train-zscore");
const labels = Array.from(split.train, (i) => y[i]);
const codes = Int32Array.from(split.train, (i) => y[i] as number);
const model = new SDSPCAAN({ k, maxIter: iters }).fit(train, labels);
const P = model.transform(train);
const lambdaFit = (model.fitInfo.details as { lambdaFinal: number }).lambdaFinal;
const median = (v: number[]) => v.slice().sort((a, b) => a - b)[Math.floor(v.length / 2)];
const count = 16;
for (const lambda of [lambdaFit, lambdaFit * 2 ** 10, lambdaFit * 2 ** 20]) {
  const times: Record<string, number[]> = { blocks: [], clusters: [] };
  const results: Record<string, ReturnType<typeof labelledNeighbours>> = {};
  for (let r = 0; r < runs; r++) {
    for (const strategy of ["blocks", "clusters"] as const) {
      const t0 = performance.now();
      results[strategy] = labelledNeighbours(P, codes, lambda, count, {
        strategy,
        helpers: kernelHelpers(),
      });
      times[strategy].push(performance.now() - t0);
    }
  }
  const a = results.blocks;
  const b = results.clusters;
  let crossRows = 0;
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < count; t++) {
      if (a.secondary[i * count + t] !== 0) {
        crossRows++;
        break;
      }
    }
  }
  let differ = 0;
  for (let t = 0; t < a.indices.length; t++) {
    if (a.indices[t] !== b.indices[t] || !Object.is(a.distances[t], b.distances[t])) differ++;
  }
  console.log(
    JSON.stringify({
      n,
      k,
      threads,
      lambda,
      blocks_ms: Math.round(median(times.blocks)),
      clusters_ms: Math.round(median(times.clusters)),
      rows_with_cross_class_neighbours: crossRows,
      differing_entries: differ,
    }),
  );
}
setKernelThreads(1);
