import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ValidationError } from "sdspcaan";
import { makeSyntheticDataset } from "sdspcaan/methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { shardFileName } from "#internal/protocol/shards.js";
import { writeRunReports } from "#internal/reports/reportFiles.node.js";
import { runExperiment } from "#internal/runner/runner.node.js";
import { methodsWithNeighbours, removeDir, smallData, tempDir } from "../helpers/runs.js";

let root: string;
let out: string;
let graphMethod: string;

beforeAll(async () => {
  root = tempDir("report");
  out = join(root, "run");
  graphMethod = methodsWithNeighbours()[0];
  const small = smallData(); // 12 training samples per split
  const larger = makeSyntheticDataset({
    samples: 100,
    features: 24,
    classes: 4,
    signalDim: 4,
    nuisanceDim: 4,
    seed: 9,
  }); // 20 training samples per split
  const options = { kind: "synthetic", options: { ...larger.options } };
  await runExperiment({
    datasets: [
      { name: "Small", X: small.X, y: small.y },
      { name: "Larger", X: larger.X, y: larger.y, origin: options },
    ],
    methods: ["pca", graphMethod],
    grid: { alpha: [1], beta: [1], delta: [0.1, 10] },
    kGrid: [4, 8],
    repeats: 2,
    // m = 12 needs at least 14 training samples: refused on Small, fine on Larger.
    commonMethodOptions: { maxIter: 20, m: 12 },
    workers: 1,
    out,
  });
});
afterAll(() => removeDir(root));

describe("writeRunReports", () => {
  it("writes the tables, with -- where a method has no valid configuration", async () => {
    const report = await writeRunReports(out, { figures: false });
    const md = readFileSync(join(out, "table.md"), "utf8");
    expect(md).toBe(report.tableMd);
    const small = md.split("\n").find((l) => l.startsWith("| Small |")) as string;
    expect(small.split("|").map((c) => c.trim())[3]).toBe("--");
    const larger = md.split("\n").find((l) => l.startsWith("| Larger |")) as string;
    expect(larger).toMatch(/\d+\.\d\d ± \d+\.\d\d \| .*\d+\.\d\d ± /);
    expect(readFileSync(join(out, "table.csv"), "utf8").split("\n")[0]).toBe(
      "dataset,method,mean_pct,std_pct,n_repeats,paper_mean_pct,paper_std_pct",
    );
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.results.Small[graphMethod]).toBeNull();
    expect(summary.settings.skipped[0]).toMatchObject({ dataset: "Small", method: graphMethod });
    expect(summary.results.Larger.pca.n).toBe(2);
    expect(report.skipped.length).toBeGreaterThan(0);
  });

  it("draws BCA versus k, the sensitivity heatmaps and an embedding reloaded from its origin", async () => {
    const report = await writeRunReports(out, { embeddingDataset: "Larger" });
    // Two data sets with no common average (the graph method has nothing on Small): Fig. 1
    // is a panel per data set, and no second figure repeats it.
    expect(existsSync(join(out, "figures", "bca-vs-k-per-dataset.svg"))).toBe(false);
    for (const name of ["bca-vs-k", "embedding"]) {
      expect(existsSync(join(out, "figures", `${name}.svg`))).toBe(true);
      expect(existsSync(join(out, "figures", `${name}.png`))).toBe(true);
    }
    const hasSensitivity = graphMethod === "sdspcaan";
    expect(existsSync(join(out, "figures", "sensitivity.svg"))).toBe(hasSensitivity);
    expect(report.warnings).toEqual([]);
    const svg = readFileSync(join(out, "figures", "embedding.svg"), "utf8");
    expect(svg).toContain("embedding of Larger");
    const panels = readFileSync(join(out, "figures", "bca-vs-k.svg"), "utf8");
    expect(panels).toContain(">Small<");
    expect(panels).toContain(">Larger<");
    // The authors'-style grid varies delta only: a profile over it, not heatmaps.
    if (hasSensitivity) {
      const sensitivity = readFileSync(join(out, "figures", "sensitivity.svg"), "utf8");
      expect(sensitivity).toContain("δ multiplier");
      expect(sensitivity).not.toContain("β and δ");
    }
  });

  it("says why when the data of the embedding cannot be reloaded", async () => {
    const report = await writeRunReports(out, {
      embeddingDataset: "Small",
      embeddingMethod: "pca",
    });
    expect(report.warnings.join(" ")).toMatch(/Small was given in memory/);
  });

  it("refuses a directory without results, naming the files a run writes", async () => {
    const empty = join(root, "empty");
    await expect(writeRunReports(empty)).rejects.toThrow(ValidationError);
    await expect(writeRunReports(empty)).rejects.toThrow(
      `${empty} holds no results file (results.jsonl, or a shard's results.shard-I-of-N.jsonl), so there is nothing to report. Run 'sdspcaan experiment --out ${empty}' first.`,
    );
  });

  it("refuses shards' files without a finished fit, naming them", async () => {
    const dir = join(root, "empty-shards");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, shardFileName({ index: 0, count: 2 })), "");
    await expect(writeRunReports(dir)).rejects.toThrow(
      `The results files of ${dir} (1 shard file) hold no finished fit, so there is nothing to report.`,
    );
  });
});

describe("writeRunReports of part of a run (methods, datasets, to)", () => {
  let run: string;
  /** Test BCA of every fit of (dataset, method); SDSPCAAN has no lines on Three (not done). */
  const BCA: Record<string, Record<string, number>> = {
    One: { baseline: 0.7, pca: 0.8, sdspcaan: 0.9 },
    Two: { baseline: 0.75, pca: 0.7, sdspcaan: 0.85 },
    Three: { baseline: 0.6, pca: 0.65 },
  };

  /** Every file under `dir` with its bytes, by path relative to it. */
  function snapshot(dir: string): Map<string, Buffer> {
    const files = new Map<string, Buffer>();
    for (const name of readdirSync(dir, { recursive: true }) as string[]) {
      const p = join(dir, name);
      if (statSync(p).isFile()) files.set(name, readFileSync(p));
    }
    return files;
  }

  async function rejection(promise: Promise<unknown>): Promise<ValidationError> {
    const err = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }

  const row = (md: string, name: string) =>
    (md.split("\n").find((l) => l.startsWith(`| ${name} |`)) as string)
      .split("|")
      .map((c) => c.trim())
      .slice(1, -1);

  beforeAll(async () => {
    run = join(root, "part");
    await runExperiment({
      datasets: ["One", "Two", "Three"].map((name, i) => ({ name, ...smallData(3 + i) })),
      methods: ["baseline", "pca", "sdspcaan"],
      grid: { alpha: [1], beta: [1], delta: [0.1, 10] },
      kGrid: [4, 8],
      repeats: 2,
      commonMethodOptions: { maxIter: 20 },
      workers: 1,
      out: run,
    });
    // 16 fits per data set (2 repeats x 2 k, x 2 delta for SDSPCAAN): 48 planned.
    // Every fit of a cell gets the cell's test BCA, so its mean is that value
    // whichever fit the selection takes, and the ranks follow from BCA by hand.
    const file = join(run, "results.jsonl");
    const kept = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l))
      .filter((r) => BCA[r.dataset][r.method] !== undefined)
      .map((r) => `${JSON.stringify({ ...r, testBCA: BCA[r.dataset][r.method] })}\n`);
    expect(kept).toHaveLength(40);
    writeFileSync(file, kept.join(""));
  });

  it("of the whole run: 40 of 48 fits, ranks over One and Two (Three lacks SDSPCAAN)", async () => {
    const to = join(root, "part-whole");
    const report = await writeRunReports(run, { figures: false, to });
    expect(report.completeness).toMatchObject({ planned: 48, done: 40 });
    const summary = JSON.parse(readFileSync(join(to, "summary.json"), "utf8"));
    expect(summary.statistics.friedman.datasets).toEqual(["One", "Two"]);
    // One: SDSPCAAN 1, PCA 2, Baseline 3; Two: SDSPCAAN 1, Baseline 2, PCA 3.
    expect(summary.statistics.friedman.averageRanks).toEqual({
      baseline: 2.5,
      pca: 2.5,
      sdspcaan: 1,
    });
  });

  it("of two methods: only their columns, ranks over all three data sets, complete, the run's files untouched", async () => {
    const before = snapshot(run);
    const to = join(root, "part-two", "report"); // created, with its parent
    const report = await writeRunReports(run, { methods: ["Baseline", "PCA"], to });
    expect(snapshot(run)).toEqual(before);

    const md = readFileSync(join(to, "table.md"), "utf8");
    expect(md).toBe(report.tableMd);
    expect(row(md, "Dataset")).toEqual(["Dataset", "Baseline", "PCA"]);
    expect(row(md, "One")).toEqual(["One", "70.00 ± 0.00", "**80.00 ± 0.00**"]);
    expect(row(md, "Three")).toEqual(["Three", "60.00 ± 0.00", "**65.00 ± 0.00**"]);
    expect(md).not.toMatch(/Incomplete|†/);
    expect(report.completeness).toMatchObject({ planned: 24, done: 24, subset: true });
    expect(report.notes).toContain(
      "Complete for these methods and data sets: all 24 planned fits are done.",
    );
    expect(report.notes).toContain(
      "Report of part of the run: methods baseline, pca; data sets One, Two, Three.",
    );

    // Ranks by hand: One PCA 1, Baseline 2; Two Baseline 1, PCA 2; Three PCA 1, Baseline 2.
    const summary = JSON.parse(readFileSync(join(to, "summary.json"), "utf8"));
    expect(summary.methods).toEqual(["baseline", "pca"]);
    expect(summary.completeness).toMatchObject({
      status: "complete",
      fitsPlanned: 24,
      subset: true,
    });
    expect(summary.statistics.friedman.datasets).toEqual(["One", "Two", "Three"]);
    expect(summary.statistics.friedman.averageRanks).toEqual({ baseline: 5 / 3, pca: 4 / 3 });
    const stats = readFileSync(join(to, "statistics.md"), "utf8");
    expect(stats).toContain(
      "| Data set | PCA | Baseline |\n|---|---|---|\n| One | 1 | 2 |\n| Two | 2 | 1 |\n| Three | 1 | 2 |\n| Average rank | **1.33** | **1.67** |\n",
    );
    // SDSPCAAN, the default reference, is not in the report: the best Average (PCA) is.
    expect(stats).toContain("## Per data set: Wilcoxon signed-rank test against PCA");
    expect(stats).toContain("| Data set | Repeats | Baseline | PCA (reference) |");
    for (const name of ["bca-vs-k.svg", "critical-difference.svg"]) {
      expect(existsSync(join(to, "figures", name))).toBe(true);
    }
    expect(readFileSync(join(to, "figures", "bca-vs-k.svg"), "utf8")).not.toContain("SDSPCAAN");
  });

  it("removes the figures an earlier report left in its folder that it does not make, and only those", async () => {
    const to = join(root, "part-stale");
    const figs = join(to, "figures");
    await writeRunReports(run, { to });
    for (const name of ["bca-vs-k-per-dataset", "sensitivity", "critical-difference"]) {
      expect(existsSync(join(figs, `${name}.svg`))).toBe(true);
    }
    writeFileSync(join(figs, "mine.svg"), "<svg/>");
    // One data set and no SDSPCAAN: no per-data-set panels, no sensitivity, no Nemenyi test.
    const report = await writeRunReports(run, {
      datasets: ["One"],
      methods: ["baseline", "pca"],
      to,
    });
    const gone = ["bca-vs-k-per-dataset", "sensitivity", "critical-difference"].flatMap((name) =>
      ["svg", "png"].map((ext) => `figures/${name}.${ext}`),
    );
    for (const name of gone) expect(existsSync(join(to, name))).toBe(false);
    expect(report.notes.find((n) => n.startsWith("Removed figures"))).toBe(
      `Removed figures an earlier report left here that this one does not make: ${gone.join(", ")}.`,
    );
    expect(existsSync(join(figs, "bca-vs-k.svg"))).toBe(true);
    expect(readFileSync(join(figs, "mine.svg"), "utf8")).toBe("<svg/>");
    // Written again as it is: nothing more to remove.
    const again = await writeRunReports(run, {
      datasets: ["One"],
      methods: ["baseline", "pca"],
      to,
    });
    expect(again.notes.some((n) => n.startsWith("Removed figures"))).toBe(false);
  });

  it("of an unfinished part: the completeness and † of its own fits", async () => {
    const to = join(root, "part-unfinished");
    const report = await writeRunReports(run, {
      methods: ["pca", "sdspcaan"],
      datasets: ["Two", "Three"],
      figures: false,
      to,
    });
    // PCA 4 + 4 and SDSPCAAN 8 + 8 planned; SDSPCAAN's 8 on Three not done.
    expect(report.completeness).toMatchObject({ planned: 24, done: 16 });
    const md = report.tableMd;
    expect(md).toMatch(
      /^\*\*Incomplete run: 16 of 24 planned fits of these methods and data sets done \(66\.7 %\)\.\*\*/,
    );
    expect(row(md, "Dataset")).toEqual(["Dataset", "PCA", "SDSPCAAN"]);
    expect(row(md, "Two")).toEqual(["Two", "70.00 ± 0.00", "**85.00 ± 0.00**"]);
    expect(row(md, "Three")).toEqual(["Three", "**65.00 ± 0.00**", "-- †"]);
    expect(md).not.toContain("| One |");
    expect(md).toContain("- Three: SDSPCAAN 0 / 8 (0 of 2 repeats complete)");
    const summary = JSON.parse(readFileSync(join(to, "summary.json"), "utf8"));
    expect(summary.completeness).toMatchObject({ fitsDone: 16, fitsPlanned: 24 });
    expect(summary.statistics.leftOut).toEqual([{ dataset: "Three", missing: ["sdspcaan"] }]);
  });

  it("into the run's own folder only when `to` names it, and then says so", async () => {
    const copy = join(root, "part-copy");
    cpSync(run, copy, { recursive: true });
    const report = await writeRunReports(copy, { datasets: ["One"], figures: false, to: copy });
    expect(row(readFileSync(join(copy, "table.md"), "utf8"), "Dataset")).toEqual([
      "Dataset",
      "Baseline",
      "PCA",
      "SDSPCAAN",
    ]);
    expect(readFileSync(join(copy, "table.md"), "utf8")).not.toContain("| Two |");
    expect(report.notes.join("\n")).toContain(
      `The report files in ${copy} now cover only part of the run`,
    );
  });

  it("refuses unknown or no names, naming the option and listing the run's names, writing nothing", async () => {
    const to = join(root, "part-refused");
    const methods = await rejection(writeRunReports(run, { methods: ["pca", "lda"], to }));
    expect(methods.argument).toBe("methods");
    expect(methods.message).toBe(
      `The 'methods' option names "lda", not a method of this run; its settings.json has baseline, pca, sdspcaan.`,
    );
    const datasets = await rejection(
      writeRunReports(run, { datasets: ["one", "Four", "Five"], to }),
    );
    expect(datasets.argument).toBe("datasets");
    expect(datasets.message).toMatch(
      /names "Four", "Five", not data sets of this run; .* One, Two, Three\.$/,
    );
    const empty = await rejection(writeRunReports(run, { methods: [], to }));
    expect(empty.argument).toBe("methods");
    expect(empty.message).toMatch(/must be a non-empty list of method names/);
    expect(existsSync(to)).toBe(false);

    // Without settings.json the run's names are those of its results.
    const bare = join(root, "part-bare");
    cpSync(run, bare, { recursive: true });
    unlinkSync(join(bare, "settings.json"));
    const noSettings = await rejection(writeRunReports(bare, { methods: ["slnp"], to }));
    expect(noSettings.argument).toBe("methods");
    expect(noSettings.message).toContain(
      `${join(bare, "results.jsonl")} has baseline, pca, sdspcaan.`,
    );
  });

  it("refuses a part without `to`, a file as `to`, and another run's folder as `to`", async () => {
    const before = snapshot(run);
    const noTo = await rejection(writeRunReports(run, { methods: ["pca"] }));
    expect(noTo.argument).toBe("to");
    expect(noTo.message).toMatch(/needs 'to'.*give .* itself as 'to' to replace that report/);
    const file = join(root, "part-file");
    writeFileSync(file, "");
    expect((await rejection(writeRunReports(run, { methods: ["pca"], to: file }))).argument).toBe(
      "to",
    );
    const other = await rejection(writeRunReports(run, { methods: ["pca"], to: out }));
    expect(other.argument).toBe("to");
    expect(other.message).toMatch(/holds another run/);
    // A folder holding only the shard files of a job array is a run too.
    const shardsOnly = join(root, "shards-only");
    mkdirSync(shardsOnly);
    writeFileSync(join(shardsOnly, shardFileName({ index: 1, count: 3 })), "");
    const sharded = await rejection(writeRunReports(run, { methods: ["pca"], to: shardsOnly }));
    expect(sharded.argument).toBe("to");
    expect(sharded.message).toMatch(/holds another run \(.*results\.shard-1-of-3\.jsonl\)/);
    expect(snapshot(run)).toEqual(before);
  });
});
