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
 * The table of docs/reproduction.md is made from the same comparison
 * (scripts/reproduction/tables.ts, `npx tsx scripts/reproduction.ts --print paper-grid`).
 */

import { mean } from "../../packages/sdspcaan-cli/src/protocol/stats.js";
import { readRunReport } from "../../packages/sdspcaan-cli/src/reports/reportFiles.node.js";
import type { CellSummary } from "../../packages/sdspcaan-cli/src/reports/summary.js";
import { fitTime, gridComparisons } from "../reproduction/tables.js";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: npx tsx scripts/dev/gridSubset.ts RESULTS_DIR");
  process.exit(2);
}
// What `report` reads: the planned fits of the run, shard files merged, refused fits set aside.
const run = await readRunReport(dir);

const cell = (c: CellSummary) => `${(100 * c.mean).toFixed(2)} ± ${(100 * c.std).toFixed(2)}`;
const picks = (c: CellSummary) =>
  c.chosen.map((p) => `k=${p.k} ${Object.values(p.params).join("/")}`).join(", ");

for (const c of gridComparisons(run)) {
  const { paper, authors, differences: d } = c;
  const test = c.test.test === null || c.test.identical ? "--" : c.test.test.pValue.toFixed(4);
  console.log(`${c.dataset} ${c.method}`);
  console.log(`  paper grid   ${cell(paper)}`);
  console.log(`  authors grid ${cell(authors)}`);
  console.log(
    `  paired difference ${mean(d).toFixed(2)}: better on ${c.better}, worse on ${c.worse}, tied on ${c.tied}; Wilcoxon p = ${test}`,
  );
  console.log(`  per repeat ${d.map((x) => x.toFixed(2)).join(" ")}`);
  const val = (s: CellSummary) => 100 * s.valMean;
  console.log(
    `  validation mean (gap to test): paper grid ${val(paper).toFixed(2)} (${(val(paper) - 100 * paper.mean).toFixed(2)}), authors grid ${val(authors).toFixed(2)} (${(val(authors) - 100 * authors.mean).toFixed(2)})`,
  );
  console.log(`  paper grid selects (a/b/c)   ${picks(paper)}`);
  console.log(`  authors grid selects (a/b/c) ${picks(authors)}`);
}

for (const method of new Set(run.records.map((r) => r.method))) {
  const t = fitTime(run.records.filter((r) => r.method === method));
  console.log(
    `${method}: ${t.fits} fits, ${(t.recordedMs / 3.6e6).toFixed(2)} h as recorded, ${(t.medianMs / 3.6e6).toFixed(2)} h as medians per grid point`,
  );
}
