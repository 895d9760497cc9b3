/**
 * A `paper`-grid run against its own `authors`-grid subset. The `authors` grid
 * (a = b = 1, c over {0.01, ..., 100}) is a subset of the `paper` grid (a, b and c
 * each over {0.01, ..., 100}), so one `paper`-grid results file holds both: selecting
 * among its a = b = 1 fits gives the `authors` grid's cell on the same splits, and the
 * two selections are paired by repeat.
 *
 *     npx tsx scripts/dev/gridSubset.ts runs/paper-coil20
 *
 * Prints per (data set, method): mean ± std of the selected fits' test BCA under each
 * grid, the paired difference with the Wilcoxon signed-rank test (two-sided, ties
 * dropped, as statistics.md), the selected fits' mean validation BCA and its gap to
 * their test BCA (the more candidates, the more a validation lead is luck), what each
 * grid selected, and the fitting time of the run
 * (summed as recorded, and as each grid point's median fit time times its fits: a fit
 * that was running while the run was paused (SIGSTOP) inflates the first, not the second).
 */

import { type Selection, selectAll } from "../../packages/sdspcaan-cli/src/protocol/selection.js";
import { mean, sampleStd } from "../../packages/sdspcaan-cli/src/protocol/stats.js";
import { readRunResults } from "../../packages/sdspcaan-cli/src/runner/runResults.node.js";
import { wilcoxonSignedRank } from "../../packages/sdspcaan-cli/src/stats/rankTests.js";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: npx tsx scripts/dev/gridSubset.ts RESULTS_DIR");
  process.exit(2);
}
// The runner's reader: shard files of a cluster run merged, refused fits set aside.
const { records } = readRunResults(dir);
const authors = records.filter((r) => (r.params.alpha ?? 1) === 1 && (r.params.beta ?? 1) === 1);
const paperPicks = selectAll(records, { grid: "paper" });
const authorsPicks = selectAll(authors, { grid: "authors" });

const pct = (s: Selection) => 100 * s.testBCA;
const cell = (v: number[]) => `${mean(v).toFixed(2)} ± ${sampleStd(v).toFixed(2)}`;
const picks = (s: Selection[]) =>
  s.map((p) => `k=${p.k} ${Object.values(p.params).join("/")}`).join(", ");

for (const dataset of new Set(records.map((r) => r.dataset))) {
  for (const method of new Set(records.map((r) => r.method))) {
    const of = (s: Selection[]) =>
      s
        .filter((p) => p.dataset === dataset && p.method === method)
        .sort((a, b) => a.repeat - b.repeat);
    const p = of(paperPicks);
    const a = of(authorsPicks);
    if (p.length === 0) continue;
    if (p.length !== a.length || p.some((x, i) => x.repeat !== a[i].repeat)) {
      console.log(`${dataset} ${method}: the two grids have different repeats; run unfinished?`);
      continue;
    }
    const pv = p.map(pct);
    const av = a.map(pct);
    const d = pv.map((v, i) => v - av[i]);
    const count = (f: (x: number) => boolean) => d.filter(f).length;
    const test = d.some((x) => x !== 0) ? wilcoxonSignedRank(pv, av).pValue.toFixed(4) : "--";
    console.log(`${dataset} ${method}`);
    console.log(`  paper grid   ${cell(pv)}`);
    console.log(`  authors grid ${cell(av)}`);
    console.log(
      `  paired difference ${mean(d).toFixed(2)}: better on ${count((x) => x > 0)}, worse on ${count((x) => x < 0)}, tied on ${count((x) => x === 0)}; Wilcoxon p = ${test}`,
    );
    console.log(`  per repeat ${d.map((x) => x.toFixed(2)).join(" ")}`);
    const val = (s: Selection[]) => mean(s.map((x) => 100 * x.valBCA));
    console.log(
      `  validation mean (gap to test): paper grid ${val(p).toFixed(2)} (${(val(p) - mean(pv)).toFixed(2)}), authors grid ${val(a).toFixed(2)} (${(val(a) - mean(av)).toFixed(2)})`,
    );
    console.log(`  paper grid selects (a/b/c)   ${picks(p)}`);
    console.log(`  authors grid selects (a/b/c) ${picks(a)}`);
  }
}

const points = new Map<string, number[]>();
for (const r of records) {
  const key = JSON.stringify([r.dataset, r.method, r.k, r.params]);
  points.set(key, [...(points.get(key) ?? []), r.fitMs]);
}
const recorded = new Map<string, number>();
const robust = new Map<string, number>();
for (const [key, times] of points) {
  const method = JSON.parse(key)[1] as string;
  const sorted = [...times].sort((x, y) => x - y);
  const h = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[h] : (sorted[h - 1] + sorted[h]) / 2;
  recorded.set(method, (recorded.get(method) ?? 0) + times.reduce((x, y) => x + y, 0));
  robust.set(method, (robust.get(method) ?? 0) + median * times.length);
}
for (const [method, ms] of recorded) {
  const fits = records.filter((r) => r.method === method).length;
  console.log(
    `${method}: ${fits} fits, ${(ms / 3.6e6).toFixed(2)} h as recorded, ${((robust.get(method) as number) / 3.6e6).toFixed(2)} h as medians per grid point`,
  );
}
