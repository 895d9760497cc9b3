/**
 * `fit --pipeline` and `predict` end to end, and CSV headers matched by name by
 * `transform` and `predict`, on small generated data.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import fc from "fast-check";
import { loadModel, Matrix, type Pipeline } from "sdspcaan";
import { makeSyntheticDataset } from "sdspcaan/methods";
import { numeric, writeMatV5 } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { labelsCsv } from "#internal/cli/commands/predict.js";
import { embeddingCsv } from "#internal/cli/commands/transform.js";
import { argv, cli, lines } from "../../helpers/cli.js";
import { removeDir, tempDir } from "../../helpers/runs.js";

const data = makeSyntheticDataset({
  samples: 60,
  features: 8,
  classes: 3,
  signalDim: 3,
  nuisanceDim: 2,
  seed: 5,
});
const NAMES = Array.from({ length: 8 }, (_, j) => `f${j + 1}`);
const ORDER = [5, 2, 7, 0, 3, 1, 6, 4];

let dir: string;
let train: string;
let pipelineFile: string;

/** A CSV of the columns `order` of X (header `names[order]` unless `header` is false), then the label. */
function writeData(
  name: string,
  { order = NAMES.map((_, j) => j), names = NAMES, header = true, labels = true } = {},
): string {
  const path = join(dir, name);
  const rows: string[] = [];
  if (header) rows.push([...order.map((j) => names[j]), ...(labels ? ["label"] : [])].join(","));
  for (let i = 0; i < data.X.rows; i++) {
    const row = order.map((j) => String(data.X.get(i, j)));
    if (labels) row.push(String(data.y[i]));
    rows.push(row.join(","));
  }
  writeFileSync(path, `${rows.join("\n")}\n`);
  return path;
}

function expectOneLineError(r: { code: number; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(1);
  expect(lines(r.stderr)).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
}

beforeAll(async () => {
  dir = tempDir("cli-predict");
  train = writeData("train.csv");
  pipelineFile = join(dir, "pipeline.json");
  const r = await cli(argv`fit --data ${train} --method sdspca --k 3 --pipeline --no-progress
    --out ${pipelineFile}`);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain("Wrote the pipeline (model and 1-NN classifier) to");
});
afterAll(() => removeDir(dir));

describe("fit --pipeline and predict", () => {
  it("fit saves a pipeline with the CSV header's names", () => {
    const json = JSON.parse(readFileSync(pipelineFile, "utf8"));
    expect(json.format).toBe("sdspcaan-pipeline");
    expect(json.model.featureNamesIn).toEqual(NAMES);
    expect(json.model.preprocessing.method).toBe("train-zscore");
    expect(json.classifier.referenceSet.rows).toBe(60);
    expect(json.classifier.labels).toEqual(data.y);
  });

  it("predict prints the labels the library's pipeline predicts, and the BCA on stderr", async () => {
    const features = writeData("features.csv", { labels: false });
    const r = await cli(["predict", "--model", pipelineFile, "--data", features]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    const out = lines(r.stdout);
    expect(out[0]).toBe("predicted");
    const loaded = loadModel(readFileSync(pipelineFile, "utf8")) as Pipeline;
    expect(out.slice(1).map(Number)).toEqual(loaded.predict(data.X));

    const labelled = await cli(argv`predict --model ${pipelineFile} --data ${train}
      --label-col last`);
    expect(labelled.code).toBe(0);
    expect(labelled.stdout).toBe(r.stdout);
    const bca = loaded.score(data.X, data.y);
    expect(labelled.stderr).toBe(
      `Balanced accuracy on the 60 labelled samples of train: ${(100 * bca).toFixed(2)} %\n`,
    );
  });

  it("predict --out writes the same CSV and reports the BCA", async () => {
    const stdout = await cli(argv`predict --model ${pipelineFile} --data ${train}
      --label-col last`);
    const outFile = join(dir, "labels.csv");
    const r = await cli(argv`predict --model ${pipelineFile} --data ${train} --label-col last
      --out ${outFile}`);
    expect(r.code).toBe(0);
    expect(readFileSync(outFile, "utf8")).toBe(stdout.stdout);
    expect(lines(r.stdout)[0]).toBe(`Wrote 60 predicted labels of train to ${outFile}.`);
    expect(lines(r.stdout)[1]).toMatch(/^Balanced accuracy on the 60 labelled samples of train: /);
  });

  it("writes numeric labels as the model holds them: 1.0 and 001 as 1", async () => {
    const text = readFileSync(train, "utf8").replace(/,(\d+)$/gm, (_, c) => `,00${c}.0`);
    const padded = join(dir, "padded.csv");
    writeFileSync(padded, text);
    const model = join(dir, "padded.json");
    const fit = await cli(argv`fit --data ${padded} --method sdspca --k 3 --pipeline
      --no-progress --out ${model}`);
    expect(fit.code).toBe(0);
    expect(readFileSync(padded, "utf8")).toContain(",001.0\n");
    const r = await cli(["predict", "--model", model, "--data", padded, "--label-col", "last"]);
    expect(r.code).toBe(0);
    const out = lines(r.stdout);
    expect(new Set(out.slice(1))).toEqual(new Set(["1", "2", "3"]));
    expect(r.stderr).toMatch(
      /^Balanced accuracy on the 60 labelled samples of padded: \d+\.\d\d %\n$/,
    );
  });

  it("counts one predicted label as one", async () => {
    const one = join(dir, "one.csv");
    writeFileSync(one, `${readFileSync(train, "utf8").split("\n").slice(0, 2).join("\n")}\n`);
    const outFile = join(dir, "one-label.csv");
    const r = await cli(argv`predict --model ${pipelineFile} --data ${one} --label-col last
      --out ${outFile}`);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)[0]).toBe(`Wrote 1 predicted label of one to ${outFile}.`);
    expect(lines(r.stdout)[1]).toMatch(/^Balanced accuracy on the 1 labelled sample of one: /);
    expect(lines(readFileSync(outFile, "utf8"))).toHaveLength(2);
  });

  it("refuses a plain model, and an --out that is one of its inputs", async () => {
    const plain = join(dir, "plain.json");
    const fit = await cli(["fit", "--data", train, "--method", "pca", "--k", "2", "--out", plain]);
    expect(fit.code).toBe(0);
    expectOneLineError(
      await cli(["predict", "--model", plain, "--data", train, "--label-col", "last"]),
      /plain\.json: holds a plain PCA model, without a classifier: .*fit --pipeline/,
    );
    expectOneLineError(
      await cli(argv`predict --model ${pipelineFile} --data ${train} --label-col last
        --out ${train}`),
      /'--out' option names .*train\.csv, which is the --data input/,
    );
    expect(readFileSync(train, "utf8").startsWith("f1,f2")).toBe(true);
  });

  it("transform reads a pipeline file as it reads a model", async () => {
    const loaded = loadModel(readFileSync(pipelineFile, "utf8")) as Pipeline;
    const r = await cli(argv`transform --model ${pipelineFile} --data ${train} --label-col last
      --out - --no-labels`);
    expect(r.code).toBe(0);
    const P = loaded.transform(data.X);
    expect(lines(r.stdout).slice(1)).toEqual(
      Array.from({ length: P.rows }, (_, i) => Array.from(P.row(i), String).join(",")),
    );
  });
});

describe("--k as a variance fraction", () => {
  it("PCA keeps the fewest components that reach it; other methods refuse it", async () => {
    const out = join(dir, "pca.json");
    const r = await cli(argv`fit --data ${train} --method pca --k 0.9 --no-progress --out ${out}`);
    expect(r.code).toBe(0);
    const json = JSON.parse(readFileSync(out, "utf8"));
    expect(json.params.k).toBe(0.9);
    const ratios = json.fitInfo.details.explainedVarianceRatio as number[];
    expect(json.components.cols).toBe(ratios.length);
    const sum = (n: number) => ratios.slice(0, n).reduce((a, b) => a + b, 0);
    expect(sum(ratios.length)).toBeGreaterThanOrEqual(0.9);
    expect(sum(ratios.length - 1)).toBeLessThan(0.9);
    expectOneLineError(
      await cli(["fit", "--data", train, "--method", "pca", "--k", "1.5", "--out", out]),
      /^sdspcaan: The '--k' option must be an integer in \[1, inf\) or a fraction in \(0, 1\)\. Got "1\.5" instead\.$/m,
    );
    expectOneLineError(
      await cli(["fit", "--data", train, "--method", "sdspca", "--k", "0.9", "--out", out]),
      /The '--k' option must be an integer in \[1, inf\)\. Got "0\.9" instead\./,
    );
  });
});

describe("CSV headers are matched by name", () => {
  it("a permuted header gives the same embedding and the same labels", async () => {
    const permuted = writeData("permuted.csv", { order: ORDER });
    const args = (file: string, command: string) => [
      command,
      "--model",
      pipelineFile,
      "--data",
      file,
      "--label-col",
      "last",
      ...(command === "transform" ? ["--out", "-"] : []),
    ];
    // One at a time: the helper captures this process's standard output.
    const a = await cli(args(train, "transform"));
    const b = await cli(args(permuted, "transform"));
    expect(b.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const p = await cli(args(train, "predict"));
    const q = await cli(args(permuted, "predict"));
    expect(q.code).toBe(0);
    expect(q.stdout).toBe(p.stdout);
  });

  it("a renamed column is refused, naming it", async () => {
    const renamed = writeData("renamed.csv", {
      names: NAMES.map((n) => (n === "f3" ? "g3" : n)),
    });
    for (const command of ["transform", "predict"]) {
      expectOneLineError(
        await cli(argv`${command} --model ${pipelineFile} --data ${renamed} --label-col last
          --out -`),
        /missing "f3"; unexpected "g3"/,
      );
    }
  });

  it("a column beside the fitted ones is named; headerless data is taken by position", async () => {
    const wide = writeData("wide.csv", { labels: true });
    expectOneLineError(
      await cli(["predict", "--model", pipelineFile, "--data", wide]),
      /^sdspcaan: .*wide\.csv: its columns do not match the features SDSPCA was fitted on: unexpected "label" \(it has the 8 fitted columns and this one\)\. If it holds the labels, name it as the label column \(labelColumn, --label-col "label"\); otherwise leave it out \(dropColumns, --drop-columns "label"\)\.$/m,
    );
    const bare = writeData("bare.csv", { header: false });
    const r = await cli(argv`predict --model ${pipelineFile} --data ${bare} --label-col last`);
    const named = await cli(argv`predict --model ${pipelineFile} --data ${train}
      --label-col last`);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(named.stdout);
    // Said on standard error, naming the file; standard output stays the labels.
    expect(lines(r.stderr).filter((l) => l.startsWith("warning:"))).toEqual([
      `warning: ${bare}: X has no feature names, but SDSPCA was fitted with feature names ("f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8"); its 8 columns are taken in the fitted order, unchecked.`,
    ]);
    expect(named.stderr).not.toContain("warning");
  });

  it("a column left out of the header is refused, naming it", async () => {
    const fewer = writeData("fewer.csv", { order: [0, 1, 3, 4, 5, 6, 7] });
    expectOneLineError(
      await cli(argv`transform --model ${pipelineFile} --data ${fewer} --label-col last --out -`),
      /^sdspcaan: .*fewer\.csv: its columns do not match the features SDSPCA was fitted on: missing "f3"\./m,
    );
  });

  it("sdspcaan predict --help documents --model", async () => {
    const r = await cli(["predict", "--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--model");
    expect(r.stdout).toContain("fit --pipeline");
  });

  it("reports the balanced accuracy whenever the data's labels are read, as --help says", async () => {
    const help = (await cli(["predict", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain(
      "with the balanced accuracy when the data's labels are read: a registry data set, a MAT-file's label variable (found by name or given with --y-var), --label-col naming a column, or --labels-file.",
    );
    const bcaLine = (name: string, n: number) =>
      new RegExp(`\\nBalanced accuracy on the ${n} labelled samples of ${name}: [\\d.]+ %\\n$`);
    const predicted = async (args: string[]) => {
      const r = await cli(args);
      expect(r.code).toBe(0);
      return `\n${r.stderr}`;
    };
    const rows = Array.from({ length: data.X.rows }, (_, i) => [...data.X.row(i)]);
    const labels = data.y.map((c) => [c]);
    const byName = join(dir, "byname.mat");
    writeFileSync(byName, writeMatV5([numeric("fea", rows), numeric("gnd", labels)]));
    expect(await predicted(argv`predict --model ${pipelineFile} --data ${byName}`)).toMatch(
      bcaLine("byname", 60),
    );
    const named = join(dir, "named.mat");
    writeFileSync(named, writeMatV5([numeric("X", rows), numeric("cls", labels)]));
    expect(
      await predicted(argv`predict --model ${pipelineFile} --data ${named} --y-var cls`),
    ).toMatch(bcaLine("named", 60));
    expect(
      await predicted(argv`predict --model ${pipelineFile} --data ${train} --label-col last`),
    ).toMatch(bcaLine("train", 60));
    const features = writeData("apart.csv", { labels: false });
    const labelsFile = join(dir, "apart-labels.txt");
    writeFileSync(labelsFile, `${data.y.join("\n")}\n`);
    expect(
      await predicted(
        argv`predict --model ${pipelineFile} --data ${features} --labels-file ${labelsFile}`,
      ),
    ).toMatch(bcaLine("apart", 60));
    const yale = join(dir, "yale.json");
    const fit = await cli(argv`fit --data Yale --method pca --k 5 --pipeline --out ${yale}`);
    expect(fit.code).toBe(0);
    expect(await predicted(argv`predict --model ${yale} --data Yale`)).toMatch(
      bcaLine("Yale", 165),
    );
  });
});

describe("labels in the CSV that predict and transform write", () => {
  it("read back exactly, commas, quotes, line breaks and a leading = + - @ included", () => {
    const label = fc.string({
      unit: fc.oneof(
        fc.constantFrom(",", '"', "\n", "\r", "=", "+", "-", "@", " ", "'", ";", "a"),
        fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
      ),
      minLength: 1,
      maxLength: 6,
    });
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 4 }), (labels) => {
        fc.pre(!labels.some((l) => /[\ud800-\udfff]/u.test(l)));
        const predicted = parse(labelsCsv(labels), { relax_column_count: false }) as string[][];
        expect(predicted).toEqual([["predicted"], ...labels.map((l) => [l])]);
        const P = new Matrix(
          labels.length,
          1,
          Float64Array.from(labels, (_, i) => i / 3),
        );
        const embedded = parse(embeddingCsv(P, labels)) as string[][];
        expect(embedded).toEqual([["c1", "label"], ...labels.map((l, i) => [String(i / 3), l])]);
      }),
      { numRuns: 40 },
    );
    // Not altered for spreadsheets: "-1" is a label, and programs read the same value back.
    expect(labelsCsv(["-1", "=1+1", "a,b"])).toBe('predicted\n-1\n=1+1\n"a,b"\n');
  });
});
