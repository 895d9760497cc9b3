/**
 * Developer tool: the available parallelism of a run (its total fit time over its
 * longest indivisible piece of work), from the fit times measured in a results
 * directory. The run is the one that directory's settings.json describes, with the
 * grid replaced by --grid (default "paper": the paper's full protocol).
 *
 * A fit's time is the mean measured fitMs of its (data set, method) in the results
 * file; where that pair has no measurement yet, the cost model (packages/sdspcaan-cli/src/protocol/
 * cost.ts) scaled by the median measured/model ratio of its cost family. The
 * longest piece is one fit (the runner's finest task): the largest measured fitMs
 * of its pair, or the model's estimate times that pair family's max/mean ratio.
 *
 * Usage: npx tsx scripts/dev/parallelism.ts RESULTS_DIR [--grid paper|authors|quick]
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { costFamily, fitCostMs } from "../../packages/sdspcaan-cli/src/protocol/cost.js";
import type { GridSpec } from "../../packages/sdspcaan-cli/src/protocol/grids.js";
import { planRun, type RunSettings } from "../../packages/sdspcaan-cli/src/protocol/plan.js";
import { readRunResults } from "../../packages/sdspcaan-cli/src/runner/runResults.node.js";

const args = process.argv.slice(2);
const dir = args[0];
if (dir === undefined) {
  console.error(
    "usage: npx tsx scripts/dev/parallelism.ts RESULTS_DIR [--grid paper|authors|quick]",
  );
  process.exit(2);
}
const gridAt = args.indexOf("--grid");
const grid = (gridAt >= 0 ? args[gridAt + 1] : "paper") as GridSpec;

const recorded = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8")) as RunSettings;
const settings: RunSettings = { ...recorded, grid };
const plan = planRun(
  settings,
  settings.datasets.map(() => ({ y: null, splits: null })),
);

// Measured fit times per (data set, method), from every results file of the
// directory (results.jsonl, its .gz, the shards'; a line being written is ignored),
// one line per fit (refused configurations have no time).
const measured = new Map<string, { sum: number; count: number; max: number }>();
for (const line of readRunResults(dir).records) {
  const key = `${line.dataset}|${line.method}`;
  const m = measured.get(key) ?? { sum: 0, count: 0, max: 0 };
  m.sum += line.fitMs;
  m.count++;
  m.max = Math.max(m.max, line.fitMs);
  measured.set(key, m);
}

// Calibration per cost family: measured mean over model, and max over mean.
const nTrainOf = new Map<string, number>();
for (const u of plan.units) nTrainOf.set(settings.datasets[u.dataset].name, u.split.train.length);
const ratios = new Map<string, { scale: number[]; spread: number[] }>();
for (const [key, m] of measured) {
  const [dataset, method] = key.split("|");
  const entry = settings.datasets.find((d) => d.name === dataset);
  const nTrain = nTrainOf.get(dataset);
  if (entry === undefined || nTrain === undefined || m.sum === 0) continue;
  const model = fitCostMs(method, { nTrain, d: entry.d, k: 50 });
  const family = costFamily(method);
  const r = ratios.get(family) ?? { scale: [], spread: [] };
  r.scale.push(m.sum / m.count / model);
  r.spread.push(m.max / (m.sum / m.count));
  ratios.set(family, r);
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? 1
    : s.length % 2
      ? s[s.length >> 1]
      : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

let total = 0;
let fromMeasured = 0;
let longest = 0;
let longestWhat = "";
let longestUnit = 0;
let longestUnitWhat = "";
for (const u of plan.units) {
  const entry = settings.datasets[u.dataset];
  const m = measured.get(`${entry.name}|${u.method}`);
  const family = ratios.get(costFamily(u.method));
  let unitMs = 0;
  for (const f of u.fits) {
    const model = fitCostMs(u.method, { nTrain: u.split.train.length, d: entry.d, k: f.k });
    const mean = m ? m.sum / m.count : model * median(family?.scale ?? [1]);
    const max = m ? m.max : mean * median(family?.spread ?? [1]);
    total += mean;
    unitMs += mean;
    if (m) fromMeasured += mean;
    if (max > longest) {
      longest = max;
      longestWhat = `${entry.name} ${u.method} k=${f.k}${m ? " (measured)" : " (modelled)"}`;
    }
  }
  if (unitMs > longestUnit) {
    longestUnit = unitMs;
    longestUnitWhat = `${entry.name} repeat ${u.repeat} ${u.method}, ${u.fits.length} fits`;
  }
}
const h = (ms: number) => `${(ms / 3_600_000).toFixed(1)} h`;
console.log(
  `run: ${settings.datasets.length} data sets x ${settings.repeats} repeats, methods ${settings.methods.join(", ")}, grid ${JSON.stringify(grid)}`,
);
console.log(
  `fits planned: ${plan.total}; measured pairs: ${measured.size}; measured lines used for ${((100 * fromMeasured) / total).toFixed(1)} % of the estimated time`,
);
console.log(`total fit time: ${h(total)} of CPU`);
console.log(
  `longest fit (the runner's finest task): ${(longest / 1000).toFixed(0)} s, ${longestWhat}`,
);
console.log(`available parallelism per fit: ${(total / longest).toFixed(0)}`);
console.log(`longest (dataset, repeat, method) unit: ${h(longestUnit)}, ${longestUnitWhat}`);
console.log(
  `available parallelism per (dataset, repeat, method) unit: ${(total / longestUnit).toFixed(0)}`,
);
