import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { writeRunReports } from "../../src/experiment/reportFiles.node.js";
import { runExperiment } from "../../src/experiment/runner.node.js";
import { makeSyntheticDataset } from "../../src/experiment/synthetic.js";
import { methodsWithNeighbours, removeDir, smallData, tempDir } from "./helpers.js";

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
    // Two data sets: the paper's average over them, and one panel per data set.
    for (const name of ["bca-vs-k", "bca-vs-k-per-dataset", "embedding"]) {
      expect(existsSync(join(out, "figures", `${name}.svg`))).toBe(true);
      expect(existsSync(join(out, "figures", `${name}.png`))).toBe(true);
    }
    const hasSensitivity = graphMethod === "sdspcaan";
    expect(existsSync(join(out, "figures", "sensitivity.svg"))).toBe(hasSensitivity);
    expect(report.warnings).toEqual([]);
    const svg = readFileSync(join(out, "figures", "embedding.svg"), "utf8");
    expect(svg).toContain("embedding of Larger");
    const panels = readFileSync(join(out, "figures", "bca-vs-k-per-dataset.svg"), "utf8");
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

  it("refuses a directory without results", async () => {
    await expect(writeRunReports(join(root, "empty"))).rejects.toThrow(ValidationError);
    await expect(writeRunReports(join(root, "empty"))).rejects.toThrow(/holds no finished fit/);
  });
});
