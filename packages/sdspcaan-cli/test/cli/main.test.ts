/**
 * The CLI end to end on small generated data: outputs, files, exit codes and
 * one-line errors.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { kernelThreads, setKernelThreads } from "sdspcaan/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResultsFile } from "#internal/runner/resultsFile.node.js";
import { argv, cli, lines, writeCsv, writeNpy } from "../helpers/cli.js";
import { removeDir, smallData, tempDir } from "../helpers/runs.js";

let dir: string;
let csv: string;
let npy: string;
const data = smallData(11);

beforeAll(() => {
  dir = tempDir("cli");
  csv = join(dir, "small.csv");
  npy = join(dir, "small.npy");
  writeCsv(csv, data.X, data.y);
  writeNpy(npy, data.X, data.y);
});
afterAll(() => removeDir(dir));

/** Every failing command prints exactly one line on standard error and exits with 1. */
function expectOneLineError(r: { code: number; stdout: string; stderr: string }, pattern: RegExp) {
  expect(r.code).toBe(1);
  expect(lines(r.stderr)).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
}

describe("sdspcaan --help", () => {
  it.each([
    ["fit", "--train-all"],
    ["transform", "--model"],
    ["evaluate", "--json"],
    ["experiment", "--workers"],
    ["report", "--compare-paper"],
    ["plot", "embedding"],
    ["demo", "--seed"],
  ])("documents %s", async (command, option) => {
    const r = await cli([command, "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(option);
  });
});

describe("fit and transform", () => {
  it("fit saves the model with its preprocessing; transform writes the embedding", async () => {
    const model = join(dir, "pca.json");
    const fit = await cli(["fit", "--data", csv, "--method", "PCA", "--k", "3", "--out", model]);
    expect(fit.code).toBe(0);
    expect(fit.stdout).toMatch(/Fitted PCA \(k = 3\) on 60 samples x 24 features/);
    const json = JSON.parse(readFileSync(model, "utf8"));
    expect(json.format).toBe("sdspcaan-model");
    expect(json.method).toBe("pca");
    expect(json.preprocessing.method).toBe("train-zscore");
    expect(json.preprocessing.center).toHaveLength(24);

    const emb = join(dir, "pca.csv");
    // New data is read as features only: the labelled file names its label column.
    const tr = await cli(argv`transform --model ${model} --data ${npy} --label-col last
      --out ${emb}`);
    expect(tr.code).toBe(0);
    const rows = lines(readFileSync(emb, "utf8"));
    expect(rows[0]).toBe("c1,c2,c3,label");
    expect(rows).toHaveLength(61);
    // Trained on every row: each component has zero mean over them, and PCA orders
    // the components by decreasing variance.
    const P = rows.slice(1).map((r) => r.split(",").slice(0, 3).map(Number));
    const colMean = (j: number) => P.reduce((s, p) => s + p[j], 0) / P.length;
    const colVar = (j: number) => P.reduce((s, p) => s + (p[j] - colMean(j)) ** 2, 0);
    for (let j = 0; j < 3; j++) expect(Math.abs(colMean(j))).toBeLessThan(1e-9);
    expect(colVar(0)).toBeGreaterThan(colVar(1));
    expect(colVar(1)).toBeGreaterThan(colVar(2));
    expect(rows.slice(1).map((r) => Number(r.split(",")[3]))).toEqual(data.y);

    const bare = await cli(argv`transform --model ${model} --data ${csv} --label-col last
      --out - --no-labels`);
    expect(bare.code).toBe(0);
    expect(lines(bare.stdout)[0]).toBe("c1,c2,c3");
    expect(lines(bare.stdout).slice(1)).toEqual(
      rows.slice(1).map((r) => r.split(",").slice(0, 3).join(",")),
    );
  });

  it("fit on one split of a split file uses its training rows only", async () => {
    const splits = join(dir, "splits.json");
    const train = Array.from({ length: 20 }, (_, i) => i);
    const val = Array.from({ length: 20 }, (_, i) => 20 + i);
    const test = Array.from({ length: 20 }, (_, i) => 40 + i);
    const { writeFileSync } = await import("node:fs");
    writeFileSync(splits, JSON.stringify({ index_base: 0, splits: [{ train, val, test }] }));
    const model = join(dir, "split.json");
    const r = await cli(argv`fit --data ${csv} --splits ${splits} --repeat 0 --method baseline
      --k 2 --out ${model}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/on 20 samples x 24 features .*training part of split 0/);
    const bad = await cli(argv`fit --data ${csv} --splits ${splits} --repeat 1
      --method baseline --k 2 --out ${model}`);
    expectOneLineError(bad, /'--repeat' option must be an integer in \[0, 0\]/);
  });
});

describe("evaluate and experiment", () => {
  let out: string;
  beforeAll(() => {
    out = join(dir, "exp");
  });

  it("experiment runs the protocol in worker threads, prints the table and writes the reports", async () => {
    const r = await cli(argv`experiment --data ${csv} --methods baseline,PCA --k-grid 4,8
      --repeats 2 --seed 5 --workers 2 --out ${out}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\| Dataset \| Baseline \| PCA \|/);
    expect(r.stdout).toMatch(/\| small \| /);
    expect(r.stderr).toMatch(/experiment: 8\/8 fits \(100 %\)/);
    for (const f of ["results.jsonl", "settings.json", "table.md", "table.csv", "summary.json"]) {
      expect(existsSync(join(out, f))).toBe(true);
    }
    expect(existsSync(join(out, "figures", "bca-vs-k.png"))).toBe(true);
    expect(existsSync(join(out, "figures", "embedding.svg"))).toBe(true);
    expect(readResultsFile(join(out, "results.jsonl")).records).toHaveLength(8);
  });

  it("evaluate reproduces one fit of the experiment", async () => {
    const r = await cli(argv`evaluate --data ${csv} --method pca --k 8 --seed 5 --repeat 1
      --json`);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    for (const key of ["valBCA", "testBCA", "iterations", "fitMs"])
      expect(result).toHaveProperty(key);
    const record = readResultsFile(join(out, "results.jsonl")).records.find(
      (x) => x.method === "pca" && x.k === 8 && x.repeat === 1,
    );
    expect(record).toBeDefined();
    expect(result.valBCA).toBe(record?.valBCA);
    expect(result.testBCA).toBe(record?.testBCA);
    const text = await cli(["evaluate", "--data", csv, "--method", "pca", "--k", "8"]);
    expect(text.stdout).toMatch(/validation BCA +\d+\.\d\d %/);
    expect(text.stdout).toMatch(/test BCA +\d+\.\d\d %/);
  });

  it("resumes a finished run without refitting, and refuses other settings", async () => {
    const again = await cli(argv`experiment --data ${csv} --methods baseline,pca --k-grid 4,8
      --repeats 2 --seed 5 --workers 1 --out ${out} --no-figures --no-progress`);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/8 fits \(8 resumed, 0 run\)/);
    const other = await cli(argv`experiment --data ${csv} --methods baseline,pca --k-grid 4,8
      --repeats 2 --seed 6 --out ${out} --no-progress`);
    expectOneLineError(
      other,
      /different settings \(seed: 5 before, 6 now\)\. Use another output directory, or go on with --force, which reuses the 0 fits whose settings fingerprint matches, moves the other 8 lines to results\.jsonl\.old-N, and runs the 8 fits left\.$/m,
    );
  });

  it("report rebuilds the tables, and compares with the paper on request", async () => {
    const r = await cli(["report", "--out", out, "--compare-paper"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/In parentheses: the paper's Table IV value/);
    expect(readFileSync(join(out, "table.md"), "utf8")).toBe(`${r.stdout.trimEnd()}\n`);
    // The embedding figure refits on the data reloaded from the path in settings.json.
    expect(r.stderr).not.toMatch(/warning/);
    expect(readFileSync(join(out, "figures", "embedding.svg"), "utf8")).toContain(
      "embedding of small",
    );
  });

  it("plot draws figures from a results directory and from an embedding CSV", async () => {
    const fig = join(dir, "figs", "k");
    const k = await cli(["plot", "bca-vs-k", "--results", out, "--out", fig]);
    expect(k.code).toBe(0);
    expect(existsSync(`${fig}.svg`) && existsSync(`${fig}.png`)).toBe(true);
    const panels = await cli(argv`plot bca-vs-k --results ${out} --out ${fig}-panels
      --per-dataset`);
    expect(panels.code).toBe(0);
    expect(readFileSync(`${fig}-panels.svg`, "utf8")).toContain("per data set");
    const sens = await cli(["plot", "sensitivity", "--results", out, "--out", fig]);
    expectOneLineError(sens, /no sdspcaan results over at least two/);
    const model = join(dir, "pca.json");
    const emb = join(dir, "emb.csv");
    await cli(["fit", "--data", csv, "--method", "pca", "--k", "2", "--out", model]);
    await cli(["transform", "--model", model, "--data", csv, "--label-col", "last", "--out", emb]);
    const e = await cli(argv`plot embedding --embedding ${emb}
      --out ${join(dir, "figs", "emb")}`);
    expect(e.code).toBe(0);
    expect(readFileSync(join(dir, "figs", "emb.svg"), "utf8")).toContain("<svg");
    const m = await cli(argv`plot embedding --model ${model} --data ${csv}
      --out ${join(dir, "figs", "emb2")}`);
    expect(m.code).toBe(0);
    expect(readFileSync(join(dir, "figs", "emb2.svg"), "utf8")).toContain("PCA embedding of small");
  });
});

describe("errors", () => {
  it("an unknown method names the known ones", async () => {
    const r = await cli(argv`fit --data ${csv} --method nope --k 2 --out ${join(dir, "m.json")}`);
    expectOneLineError(r, /^sdspcaan: Unknown method "nope"\. Known methods: baseline, pca/);
  });

  it.each([
    ["--alpha -1", "alpha", "--alpha"],
    ["--max-iter 0", "maxIter", "--max-iter"],
    ["--set tol=0", "tol", "--set"],
  ])(
    "a method option out of its range (%s) names the flag that gave it",
    async (given, name, flag) => {
      const r = await cli([
        ...argv`fit --data ${csv} --method sdspcaan --k 2 --out ${join(dir, "range.json")}`,
        ...given.split(" "),
      ]);
      expectOneLineError(
        r,
        new RegExp(
          `^sdspcaan: The '${name}' parameter of SDSPCAAN must be .* instead \\(${flag}\\)\\.\n$`,
        ),
      );
      expect(existsSync(join(dir, "range.json"))).toBe(false);
    },
  );

  it("a missing data file is named", async () => {
    const r = await cli(argv`evaluate --data ${join(dir, "missing.csv")} --method pca --k 2`);
    expectOneLineError(r, /missing\.csv/);
  });

  it("k must be a positive integer that the data allows", async () => {
    const args = ["fit", "--data", csv, "--method", "pca", "--out", join(dir, "m.json")];
    expectOneLineError(
      await cli([...args, "--k", "abc"]),
      /The '--k' option must be an integer in \[1, inf\) or a fraction in \(0, 1\)\. Got "abc"/,
    );
    expectOneLineError(
      await cli([...args, "--k", "0"]),
      /The '--k' option must be an integer in \[1, inf\) or a fraction in \(0, 1\)\. Got "0"/,
    );
    expectOneLineError(
      await cli([...args, "--k", "500"]),
      /'k' parameter of PCA must be an integer in \[1, 24\]/,
    );
  });

  it("--threads takes 1 to 64 or auto, and the model is the same for any count", async () => {
    const args = ["fit", "--data", csv, "--method", "sdspcaan", "--k", "3", "--no-progress"];
    const one = join(dir, "t1.json");
    const two = join(dir, "t2.json");
    expect((await cli([...args, "--threads", "1", "--out", one])).code).toBe(0);
    expect(kernelThreads()).toBe(1);
    expect((await cli([...args, "--threads", "2", "--out", two])).code).toBe(0);
    expect(kernelThreads()).toBe(2);
    const components = (file: string) => JSON.parse(readFileSync(file, "utf8")).components;
    expect(components(one).data.length).toBe(24 * 3);
    expect(components(two)).toEqual(components(one));
    for (const bad of ["0", "65", "two"]) {
      expectOneLineError(
        await cli([...args, "--threads", bad, "--out", join(dir, "t3.json")]),
        new RegExp(
          `The '--threads' option must be an integer in \\[1, 64\\] or auto\\. Got "${bad}"`,
        ),
      );
    }
    expect(existsSync(join(dir, "t3.json"))).toBe(false);
    setKernelThreads(1);
  });

  it("an option the method does not have is refused", async () => {
    const r = await cli(argv`fit --data ${csv} --method pca --k 2 --alpha 1
      --out ${join(dir, "m.json")}`);
    expectOneLineError(r, /PCA has no option 'alpha'/);
  });

  it("an unknown option or a missing required one is one line with a pointer to --help", async () => {
    const r = await cli(argv`fit --data ${csv} --bogus --method pca --k 2 --out x.json`);
    expectOneLineError(
      r,
      /^sdspcaan fit: unknown option '--bogus' \(see 'sdspcaan fit --help'\)$/m,
    );
    const m = await cli(["transform", "--data", csv, "--out", "x.csv"]);
    expectOneLineError(
      m,
      /^sdspcaan transform: required option '--model <model.json>' not specified/,
    );
  });

  it("report on a directory without results says so", async () => {
    const empty = join(dir, "empty-run");
    mkdirSync(empty);
    const r = await cli(["report", "--out", empty]);
    expectOneLineError(r, /holds no results file \(results\.jsonl, or a shard's /);
  });

  it("experiment needs a data set", async () => {
    const r = await cli(["experiment", "--out", join(dir, "none")]);
    expectOneLineError(r, /Name at least one data set/);
  });
});
