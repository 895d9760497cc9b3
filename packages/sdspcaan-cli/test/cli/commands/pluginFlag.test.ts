/**
 * `--plugin FILE` end to end with the example plug-in (examples/plugins/fisherfaces.mjs):
 * an experiment in worker threads and one cut into shards merged by `report` give
 * the in-process run's table, with the plug-in's column in the table and the CD
 * diagram; its model file reloads with the plug-in and is refused without it; a
 * plug-in that changed is refused on resume, in a shard and in a report.
 */
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { unregisterMethod } from "sdspcaan/methods";
import { repoRoot, smallData } from "sdspcaan-test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { shellQuote } from "#internal/cluster/quoting.js";
import { pluginHash } from "#internal/runner/plugins.node.js";
import { cli, writeCsv } from "../../helpers/cli.js";
import { removeDir, runResultsOf, tempDir } from "../../helpers/runs.js";

const PLUGIN = join(repoRoot, "examples", "plugins", "fisherfaces.mjs");

let dir: string;
let small: string;
let other: string;

/** Two data sets of 4 classes: Fisherfaces takes k = 2 of the grid, PCA k = 4. */
const runFlags = () => [
  ...["--plugin", PLUGIN, "--data", small, other, "--methods", "pca,fisherfaces"],
  ...["--grid", "quick", "--k-grid", "2,4", "--repeats", "2", "--seed", "3"],
  ...["--no-figures", "--no-progress"],
];

beforeAll(() => {
  dir = tempDir("plugin-flag");
  small = join(dir, "small.csv");
  other = join(dir, "other.csv");
  const a = smallData(3);
  const b = smallData(11);
  writeCsv(small, a.X, a.y);
  writeCsv(other, b.X, b.y);
});
afterAll(() => removeDir(dir));
// The registry is the process's: later test files must not see the plug-in's method.
afterEach(() => {
  unregisterMethod("fisherfaces");
});

async function ok(args: string[]) {
  const r = await cli(args);
  if (r.code !== 0) throw new Error(`sdspcaan ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
  return r;
}

describe("experiment --plugin", () => {
  let single: string;
  let singleTable: string;

  beforeAll(async () => {
    single = join(dir, "single");
    await ok(["experiment", ...runFlags(), "--workers", "1", "--out", single]);
    singleTable = readFileSync(join(single, "table.md"), "utf8");
    unregisterMethod("fisherfaces");
  });

  it("puts the plug-in's column beside the built-ins' and records the plug-in", () => {
    expect(singleTable).toContain("| Dataset | PCA | Fisherfaces |");
    expect(singleTable).toMatch(/\| small \| [\d.]+ ± [\d.]+ \| \**[\d.]+ ± [\d.]+\** \|/);
    const settings = JSON.parse(readFileSync(join(single, "settings.json"), "utf8"));
    expect(settings.methods).toEqual(["pca", "fisherfaces"]);
    expect(settings.plugins).toEqual([
      { path: PLUGIN, sha256: pluginHash(PLUGIN), methods: ["fisherfaces"] },
    ]);
  });

  it("in 2 worker threads, gives the in-process run's records and table", async () => {
    const out = join(dir, "workers");
    await ok(["experiment", ...runFlags(), "--workers", "2", "--out", out]);
    expect(readFileSync(join(out, "table.md"), "utf8")).toBe(singleTable);
    expect(runResultsOf(out)).toEqual(runResultsOf(single));
  });

  it("in 2 shards merged by report, gives the in-process run's table", async () => {
    const out = join(dir, "shards");
    for (const shard of ["0/2", "1/2"]) {
      await ok(["experiment", ...runFlags(), "--workers", "1", "--out", out, "--shard", shard]);
    }
    unregisterMethod("fisherfaces");
    const without = await cli(["report", "--out", out, "--no-figures"]);
    expect(without.code).toBe(1);
    expect(without.stderr).toBe(
      `sdspcaan: The run in ${join(out, "settings.json")} has the method "fisherfaces" of the plug-in ${PLUGIN}, which is not loaded: pass --plugin ${PLUGIN} (the 'plugins' option).\n`,
    );
    const r = await ok(["report", "--out", out, "--no-figures", "--plugin", PLUGIN]);
    expect(r.stderr).toContain("note: Merged 2 shard files.\n");
    expect(readFileSync(join(out, "table.md"), "utf8")).toBe(singleTable);
    expect(runResultsOf(out)).toEqual(runResultsOf(single));
  });

  it("draws the plug-in's method in the critical-difference diagram", async () => {
    await ok(["report", "--out", single, "--plugin", PLUGIN]);
    const svg = readFileSync(join(single, "figures", "critical-difference.svg"), "utf8");
    expect(svg).toContain("Fisherfaces");
    expect(svg).toContain("PCA");
  });

  it("plots the run's figures with --plugin, and names the plug-in without it", async () => {
    const fig = join(dir, "bca");
    for (const figure of [["bca-vs-k"], ["sensitivity", "--method", "fisherfaces"]]) {
      const without = await cli(["plot", ...figure, "--results", single, "--out", fig]);
      expect(without.code).toBe(1);
      expect(without.stderr).toBe(
        `sdspcaan: The run in ${join(single, "settings.json")} has the method "fisherfaces" of the plug-in ${PLUGIN}, which is not loaded: pass --plugin ${PLUGIN} (the 'plugins' option).\n`,
      );
      expect(existsSync(`${fig}.svg`)).toBe(false);
    }
    await ok(["plot", "bca-vs-k", "--results", single, "--out", fig, "--plugin", PLUGIN]);
    expect(readFileSync(`${fig}.svg`, "utf8")).toContain("Fisherfaces");
  });
});

describe("a model file of a plug-in method", () => {
  it("names the plug-in, reloads with it, and is refused clearly without it", async () => {
    const model = join(dir, "model.json");
    await ok(
      ["fit", "--plugin", PLUGIN, "--data", small, "--method", "fisherfaces"].concat([
        ...["--k", "2", "--out", model, "--no-progress"],
      ]),
    );
    expect(JSON.parse(readFileSync(model, "utf8")).plugin).toBe("fisherfaces.mjs");
    const embedded = join(dir, "embedded.csv");
    const transform = ["transform", "--model", model, "--data", small, "--label-col", "last"];
    await ok([...transform, "--plugin", PLUGIN, "--out", embedded]);
    expect(readFileSync(embedded, "utf8").split("\n")[0]).toBe("c1,c2,label");
    unregisterMethod("fisherfaces");
    const refused = await cli([...transform, "--out", embedded]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `sdspcaan: ${model}: The model's method "fisherfaces" comes from the plug-in fisherfaces.mjs, which is not loaded: load that plug-in first (the CLI's --plugin fisherfaces.mjs; in a program, import it before loadModel).\n`,
    );
  });
});

describe("a plug-in that changed", () => {
  /** A copy of the example plug-in in the test's folder, which the test then edits. */
  function copyPlugin(name: string): string {
    const path = join(dir, name);
    copyFileSync(PLUGIN, path);
    return path;
  }
  const short = (path: string) => `${pluginHash(path).slice(0, 12)}...`;
  /** One data set, one repeat, in-process: what a resume needs to hold. */
  const smallRun = (plugin: string) => [
    ...["--plugin", plugin, "--data", small, "--methods", "pca,fisherfaces", "--grid", "quick"],
    ...["--k-grid", "2,4", "--repeats", "1", "--workers", "1", "--no-figures", "--no-progress"],
  ];

  it("is refused on resume, naming the plug-in and the method", async () => {
    const plugin = copyPlugin("resumed.mjs");
    const out = join(dir, "resumed");
    await ok(["experiment", ...smallRun(plugin), "--out", out]);
    const before = short(plugin);
    appendFileSync(plugin, "// edited\n");
    unregisterMethod("fisherfaces");
    const r = await cli(["experiment", ...smallRun(plugin), "--out", out]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^sdspcaan: ${out} holds results of a run with different settings \\(the plug-in ${plugin} of method fisherfaces changed: SHA-256 ${before} before, SHA-256 ${short(plugin)} now\\)\\. Use another output directory, or go on with --force`,
      ),
    );
    // Its fits stay the old plug-in's: a report with the new one is refused too.
    unregisterMethod("fisherfaces");
    const report = await cli(["report", "--out", out, "--no-figures", "--plugin", plugin]);
    expect(report.code).toBe(1);
    expect(report.stderr).toBe(
      `sdspcaan: The plug-in ${plugin} (method fisherfaces) is not the one the run in ${join(out, "settings.json")} was made with: its SHA-256 is ${short(plugin)}, the run's ${before} (${plugin}). Report it with the plug-in the run used, or run the experiment again (--force redoes that method's fits).\n`,
    );
  });

  it("is refused in a shard of a run whose other shards used the old one", async () => {
    const plugin = copyPlugin("sharded.mjs");
    const out = join(dir, "sharded");
    await ok(["experiment", ...smallRun(plugin), "--out", out, "--shard", "0/2"]);
    const before = short(plugin);
    writeFileSync(plugin, `${readFileSync(plugin, "utf8")}// edited\n`);
    unregisterMethod("fisherfaces");
    const r = await cli(["experiment", ...smallRun(plugin), "--out", out, "--shard", "1/2"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `sdspcaan: ${out} holds results (results.shard-0-of-2.jsonl) of a run with another plug-in (the plug-in ${plugin} of method fisherfaces changed: SHA-256 ${before} before, SHA-256 ${short(plugin)} now). Run every shard with the same plug-in file, use another output directory, or go on with --force (the report then leaves out the other files' fits of that method).\n`,
    );
  });
});

describe("experiment --emit with --plugin", () => {
  it("loads the plug-in by its absolute path, quoted, in every task and in the report", async () => {
    const folder = join(dir, "my plug-ins 'quoted' $x");
    mkdirSync(folder, { recursive: true });
    const plugin = join(folder, "fisher faces.mjs");
    copyFileSync(PLUGIN, plugin);
    const given = relative(process.cwd(), plugin);
    const flags = ["--data", small, "--methods", "pca,fisherfaces", "--grid", "quick"];
    const quoted = shellQuote(plugin);
    const slurm = await ok(
      ["experiment", "--plugin", given, ...flags].concat([
        "--k-grid",
        "2,4",
        "--out",
        join(dir, "emitted"),
        "--emit",
        "slurm",
        "--shard-count",
        "2",
      ]),
    );
    const lines = slurm.stdout.split("\n");
    const task = lines.filter((l) => / experiment /.test(l) && !l.startsWith("#"));
    expect(task).toHaveLength(1);
    expect(task[0]).toContain(` experiment --plugin ${quoted} --data `);
    const report = lines.filter((l) => / report --out /.test(l) && !l.startsWith("#"));
    expect(report).toHaveLength(1);
    expect(report[0]).toMatch(new RegExp(` report --out \\S+ --plugin ${regexpText(quoted)}$`));
    expect(slurm.stdout).toContain(` --plugin ${quoted}\` when it is done.`);
    const k8s = await ok(
      ["experiment", `--plugin=${given}`, ...flags].concat([
        "--k-grid",
        "2,4",
        "--out",
        join(dir, "emitted"),
        "--emit",
        "k8s",
        "--shard-count",
        "2",
      ]),
    );
    expect(k8s.stdout).toContain(`\n#   ${plugin}\n`);
    expect(k8s.stdout).toMatch(new RegExp(`--plugin ${regexpText(quoted)} merges the shards\\.`));
  });
});

function regexpText(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
