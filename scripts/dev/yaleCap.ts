/**
 * How much SDSPCAAN's protocol result on Yale and ORL moves with the lambda cap and
 * the stop rule. Every seeded 20 % training split of these sets has classes with one
 * training sample (or none), so the graph can never reach c components and lambda
 * runs to its cap; the question is whether the number depends on where it stops.
 *
 *     npx tsx scripts/dev/yaleCap.ts [--datasets Yale,ORL] [--repeats 10]
 *
 * Authors grid (a = b = 1, c over {0.01, ..., 100}), dataset-zscore, seed 0: the
 * settings of docs/reproduction.md. Prints mean ± std of the test BCA per variant.
 */

import { loadDataset } from "../../packages/sdspcaan-cli/src/io/load.js";
import { locateDataFile } from "../../packages/sdspcaan-cli/src/io/locate.js";
import { findDataset } from "../../packages/sdspcaan-cli/src/io/registry.js";
import { selectModel } from "../../packages/sdspcaan-cli/src/protocol/selection.js";
import { runExperiment } from "../../packages/sdspcaan-cli/src/runner/runner.node.js";

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const datasets = arg("--datasets", "Yale,ORL").split(",");
const repeats = Number(arg("--repeats", "10"));
const variants: Array<[string, Record<string, unknown>]> = [
  ["cap 2^50", { lambdaCap: 2 ** 50 }],
  ["cap 2^100 (default)", {}],
  ["cap 2^200", { lambdaCap: 2 ** 200 }],
  ["stopRule paper", { stopRule: "paper" }],
  ["stopRule subspace", { stopRule: "subspace" }],
];
for (const name of datasets) {
  const entry = findDataset(name);
  const path = entry ? locateDataFile(entry.file)?.path : undefined;
  if (!entry || !path) throw new Error(`dataset ${name} not found`);
  const ds = await loadDataset(path);
  for (const [label, opts] of variants) {
    const res = await runExperiment({
      datasets: [{ name: entry.name, X: ds.X, y: [...ds.y] }],
      methods: ["sdspcaan"],
      grid: "authors",
      repeats,
      seed: 0,
      preprocess: "dataset-zscore",
      methodOptions: { sdspcaan: opts },
      workers: 1,
    });
    // The protocol's own selection (per k, then over k; ties to the first grid point).
    const tests = Array.from(
      { length: repeats },
      (_, rep) =>
        100 *
        selectModel(
          res.records.filter((r) => r.repeat === rep),
          { grid: "authors" },
        ).record.testBCA,
    );
    const mean = tests.reduce((a, b) => a + b, 0) / tests.length;
    const sd = Math.sqrt(
      tests.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(1, tests.length - 1),
    );
    const capped = res.records.filter((r) => r.stopReason === "lambda-cap").length;
    console.log(
      `${entry.name}\t${label}\t${mean.toFixed(2)} ± ${sd.toFixed(2)}\t(${res.records.length} fits, ${capped} ended at the cap)`,
    );
  }
}
