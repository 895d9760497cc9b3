/**
 * Developer tool: the tables of docs/reproduction.md from a results directory's
 * summary.json (written by `sdspcaan report --compare-paper`): the compact table
 * "mean ± std (Δ)", the "How close" table, and every cell more than 2 of the paper's
 * standard deviations from the paper's value.
 *
 *   npx tsx scripts/dev/reproductionTable.ts runs/table4
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PAPER_TABLE_IV_AVERAGE } from "../../packages/sdspcaan-cli/src/protocol/paperTable.js";

interface Cell {
  mean: number;
  std: number;
  n: number;
}
interface Summary {
  datasets: string[];
  methods: string[];
  results: Record<string, Record<string, Cell | null>>;
  average: Record<string, Cell | null>;
  paper: Record<string, Record<string, { mean: number; std: number } | null>>;
}

const NAMES: Record<string, string> = {
  baseline: "Baseline",
  pca: "PCA",
  jpcda: "JPCDA",
  sdspca: "SDSPCA",
  slnp: "SLNP (PCA scores)",
  spcan: "SPCAN",
  "sdspca-lpp": "SDSPCA-LPP",
  sdspcaan: "SDSPCAAN",
};

const dir = process.argv[2];
if (dir === undefined) {
  process.stderr.write("usage: tsx scripts/dev/reproductionTable.ts <results directory>\n");
  process.exit(2);
}
const s = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8")) as Summary;
const paperAverage = PAPER_TABLE_IV_AVERAGE as Record<string, { mean: number } | null | undefined>;
const pct = (x: number) => (100 * x).toFixed(2);
const signed = (x: number) => (x >= 0 ? `+${x.toFixed(2)}` : `−${(-x).toFixed(2)}`);

const header = `| Dataset | ${s.methods.map((m) => NAMES[m] ?? m).join(" | ")} |`;
const rule = `| --- | ${s.methods.map(() => "---").join(" | ")} |`;
const rows: string[] = [header, rule];
const far: string[] = [];
const close = new Map<
  string,
  { sets: number; absSum: number; within1: number; within2: number; worst: [string, number] }
>();
for (const ds of s.datasets) {
  const cells = s.methods.map((m) => {
    const r = s.results[ds]?.[m];
    const p = s.paper[ds]?.[m];
    if (!r) return "--";
    const mean = 100 * r.mean;
    if (!p) return `${pct(r.mean)} ± ${pct(r.std)}`;
    const delta = mean - p.mean;
    const c = close.get(m) ?? { sets: 0, absSum: 0, within1: 0, within2: 0, worst: ["", 0] };
    c.sets++;
    c.absSum += Math.abs(delta);
    if (Math.abs(delta) <= p.std) c.within1++;
    if (Math.abs(delta) <= 2 * p.std) c.within2++;
    else
      far.push(
        `${ds} ${NAMES[m] ?? m}: ${signed(delta)} (${(Math.abs(delta) / p.std).toFixed(1)} std)`,
      );
    if (Math.abs(delta) > Math.abs(c.worst[1])) c.worst = [ds, delta];
    close.set(m, c);
    return `${pct(r.mean)} ± ${pct(r.std)} (${signed(delta)})`;
  });
  rows.push(`| ${ds} | ${cells.join(" | ")} |`);
}
const avg = s.methods.map((m) => {
  const a = s.average[m];
  if (!a) return "--";
  const p = paperAverage?.[m];
  return p
    ? `${pct(a.mean)} ± ${pct(a.std)} (${signed(100 * a.mean - p.mean)})`
    : `${pct(a.mean)} ± ${pct(a.std)}`;
});
rows.push(`| Average | ${avg.join(" | ")} |`);
process.stdout.write(`${rows.join("\n")}\n\n`);

process.stdout.write(
  "| method | datasets | mean abs(Δ) | within the paper's std | within 2 std | largest Δ |\n| --- | --- | --- | --- | --- | --- |\n",
);
for (const m of s.methods) {
  const c = close.get(m);
  if (!c) continue;
  process.stdout.write(
    `| ${NAMES[m] ?? m} | ${c.sets} | ${(c.absSum / c.sets).toFixed(2)} | ${c.within1} | ${c.within2} | ${c.worst[0]} ${signed(c.worst[1])} |\n`,
  );
}
process.stdout.write(
  `\nCells beyond 2 of the paper's standard deviations:\n${far.map((f) => `- ${f}`).join("\n")}\n`,
);
