/**
 * Developer tool: one fit on a YaleB training split (seed 0, repeat 0, no
 * preprocessing: the `methods` bench's setting), for `node --cpu-prof`.
 * Usage: node --import tsx --cpu-prof scripts/dev/profileFit.ts [method] [k] [runs] [file in data/]
 */
import { join } from "node:path";
// The library's Node entry: the native GEMM where installed, as the benches run.
import "../../packages/sdspcaan/src/index.node.js";
import { makeSplit } from "../../packages/sdspcaan/src/data/splits.js";
import { createMethod } from "../../packages/sdspcaan/src/methods/registry.js";
import { TrainingData } from "../../packages/sdspcaan/src/methods/training.js";
import { loadDataset } from "../../packages/sdspcaan-cli/src/io/load.js";

const method = process.argv[2] ?? "sdspcaan";
const k = Number(process.argv[3] ?? "100");
const runs = Number(process.argv[4] ?? "1");
const file = process.argv[5] ?? "YaleB_32x32.mat";
const ds = await loadDataset(join("data", file));
const name = file.replace(/(_32x32|_uni)?\.mat$/, "");
const split = makeSplit(ds.X.rows, { seed: 0, dataset: name, repeat: 0 });
const X = ds.X.selectRows(split.train);
const y = Array.from(split.train, (i) => ds.y[i]);
for (let r = 0; r < runs; r++) {
  const t0 = performance.now();
  const data = TrainingData.prepare(X, y);
  const opts = method === "sdspca" ? { k, alpha: 1, beta: 1 } : { k, alpha: 1, beta: 1, delta: 1 };
  const model = createMethod(method, opts).fitPrepared(data);
  const t = model.fitInfo.timings;
  const details = model.fitInfo.details as {
    laplacianEigenvalues?: number[] | null;
    rankControlsByBounds?: number;
  };
  const W = model.components.data;
  let sum = 0;
  for (let i = 0; i < W.length; i++) sum += Math.abs(W[i]);
  console.log(
    `  sum |W| = ${sum.toPrecision(15)}; by bounds ${details.rankControlsByBounds}; L eigenvalues (last 3) ${details.laplacianEigenvalues?.slice(-3).map((v) => v.toPrecision(12))}`,
  );
  console.log(
    `${method} n=${X.rows} k=${k}: ${(performance.now() - t0).toFixed(0)} ms, ${model.fitInfo.iterations} iterations, eigen ${t.eigenMs.toFixed(0)} graph ${t.graphMs.toFixed(0)} other ${t.otherMs.toFixed(0)}`,
  );
}
