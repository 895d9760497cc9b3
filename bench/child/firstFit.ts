/**
 * Child process of the `startup` bench suite: in a fresh process, fits METHOD with
 * k = K on the training split of repeat 0 of FILE (data/ or SDSPCAAN_DATA) once and
 * then WARM more times, and prints JSON with the first fit's and the warm fits'
 * milliseconds, wall and CPU time. Loading the data is not timed.
 * Usage: node --import tsx bench/child/firstFit.ts FILE NAME METHOD K WARM
 */
// What a library user gets in Node by default: the "node" entry, which switches the
// native GEMM on where sdspcaan-native is installed.
import "../../packages/sdspcaan/src/index.node.js";
import { join } from "node:path";
import { makeSplit } from "../../packages/sdspcaan/src/data/splits.js";
import { createMethod } from "../../packages/sdspcaan/src/methods/registry.js";
import { loadDataset } from "../../packages/sdspcaan-cli/src/io/load.js";
import { dataDir } from "../harness.js";

const [file, name, method, kText, warmText] = process.argv.slice(2);
const ds = await loadDataset(join(dataDir(), file));
const split = makeSplit(ds.X.rows, { seed: 0, dataset: name, repeat: 0 });
const X = ds.X.selectRows(split.train);
const y = Array.from(split.train, (i) => ds.y[i]);
const times: number[] = [];
// CPU time of the whole process (V8's compiler threads included), beside the wall time:
// on a loaded machine the wall time says more about the machine than about the fit.
const cpus: number[] = [];
for (let r = 0; r <= Number(warmText); r++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  createMethod(method, { k: Number(kText) }).fit(X, y);
  const c = process.cpuUsage(c0);
  times.push(performance.now() - t0);
  cpus.push((c.user + c.system) / 1000);
}
console.log(
  JSON.stringify({
    first: times[0],
    warm: times.slice(1),
    firstCpu: cpus[0],
    warmCpu: cpus.slice(1),
  }),
);
