/**
 * `npm run bench [-- --json] [--only a,b] [--runs N] [--quick]`: runs the benchmark
 * suites (the opt-in ones only when --only names them); each suite measures our code and
 * the NumPy/SciPy reference, or the target, side by side.
 */
// What a library user gets in Node by default: the "node" entry, which switches the
// native GEMM on where sdspcaan-native is installed.
import "../packages/sdspcaan/src/index.node.js";
import type { BenchContext, BenchRecord, BenchSuite } from "./harness.js";
import { suites } from "./suites/index.js";

function parseArgs(argv: string[]) {
  const opts = { json: false, only: null as string[] | null, runs: 3, quick: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") opts.json = true;
    else if (a === "--quick") opts.quick = true;
    else if (a === "--only") opts.only = (argv[++i] ?? "").split(",").filter(Boolean);
    else if (a === "--runs") opts.runs = Math.max(3, Number.parseInt(argv[++i] ?? "3", 10));
    else if (a === "--help" || a === "-h") {
      console.log(
        "usage: npm run bench -- [--json] [--only SUITE,...] [--runs N (>=3)] [--quick]\n\nsuites:\n" +
          suites.map((s: BenchSuite) => `  ${s.name.padEnd(12)} ${s.description}`).join("\n"),
      );
      process.exit(0);
    } else {
      console.error(`unknown argument ${a}`);
      process.exit(2);
    }
  }
  return opts;
}

function formatTable(rows: BenchRecord[]): string {
  const keys = ["bench", "n", "d", "k", "ts_ms", "ref_ms", "ratio"];
  const extraKeys = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter(
    (k) => !keys.includes(k),
  );
  const cols = [...keys, ...extraKeys];
  const cell = (v: unknown) =>
    v === undefined ? "" : v === null ? "-" : typeof v === "object" ? JSON.stringify(v) : String(v);
  const widths = cols.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (vals: string[]) => vals.map((v, i) => v.padEnd(widths[i])).join("  ");
  return [
    line(cols),
    line(widths.map((w) => "-".repeat(w))),
    ...rows.map((r) => line(cols.map((c) => cell(r[c])))),
  ].join("\n");
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const chosen = opts.only
    ? suites.filter((s) => opts.only?.includes(s.name))
    : suites.filter((s) => s.optIn !== true);
  if (opts.only && chosen.length !== opts.only.length) {
    console.error(`unknown suite in --only; known: ${suites.map((s) => s.name).join(", ")}`);
    process.exit(2);
  }
  const all: BenchRecord[] = [];
  const ctx: BenchContext = {
    runs: opts.runs,
    quick: opts.quick,
    emit(r) {
      all.push(r);
      if (opts.json) process.stdout.write(`${JSON.stringify(r)}\n`);
      else process.stderr.write(`  ${JSON.stringify(r)}\n`);
    },
    log(m) {
      process.stderr.write(`${m}\n`);
    },
  };
  for (const suite of chosen) {
    ctx.log(`# ${suite.name}: ${suite.description}`);
    await suite.run(ctx);
  }
  if (!opts.json) console.log(formatTable(all));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
