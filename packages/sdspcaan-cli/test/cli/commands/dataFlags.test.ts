/**
 * --labels-file for fit, evaluate, transform and predict: the features in --data, the
 * labels in a file of their own (X.npy + y.npy, features.csv + labels.txt), read as
 * the same data set as one file with a label column.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { npyBytes } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argv, cli, lines, writeCsv } from "../../helpers/cli.js";
import { removeDir, smallData, tempDir } from "../../helpers/runs.js";

let dir: string;
let combined: string;
let features: string;
let labels: string;

beforeAll(() => {
  dir = tempDir("cli-labels-file");
  const data = smallData();
  // One name for both, as evaluate's seeded split depends on the data set's name.
  mkdirSync(join(dir, "one"));
  mkdirSync(join(dir, "two"));
  combined = join(dir, "one", "small.csv");
  writeCsv(combined, data.X, data.y);
  features = join(dir, "two", "small.csv");
  const rows = Array.from({ length: data.X.rows }, (_, i) => [...data.X.row(i)].join(","));
  // The header combined.csv has, less its label: the pipeline matches columns by name.
  const names = Array.from({ length: data.X.cols }, (_, j) => `c${j + 1}`).join(",");
  writeFileSync(features, `${[names, ...rows].join("\n")}\n`);
  labels = join(dir, "labels.npy");
  const y = Float64Array.from(data.y as number[]);
  const header = `{'descr': '<f8', 'fortran_order': False, 'shape': (${y.length},), }`;
  writeFileSync(labels, npyBytes(header, new Uint8Array(y.buffer)));
});
afterAll(() => removeDir(dir));

const model = (p: string) => {
  const { components, fitInfo } = JSON.parse(readFileSync(p, "utf8"));
  return { components, iterations: fitInfo.iterations };
};

describe("--labels-file", () => {
  it("fit reads the same data set as one file with a label column", async () => {
    const split = join(dir, "split.json");
    const one = join(dir, "one.json");
    expect((await cli(argv`fit --data ${combined} --method sdspca --k 3 --out ${one}`)).code).toBe(
      0,
    );
    const r = await cli(
      argv`fit --data ${features} --labels-file ${labels} --method sdspca --k 3 --out ${split}`,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Fitted SDSPCA \(k = 3\) on 60 samples x 24 features of small /);
    expect(model(split)).toEqual(model(one));
  });

  it("evaluate, transform and predict read the labels from it", async () => {
    const ev = (args: string[]) =>
      cli(argv`evaluate --method pca --k 3 --json --no-progress ${args}`);
    const a = JSON.parse((await ev(["--data", combined])).stdout);
    const b = JSON.parse((await ev(["--data", features, "--labels-file", labels])).stdout);
    expect([b.valBCA, b.testBCA]).toEqual([a.valBCA, a.testBCA]);

    const pipeline = join(dir, "pipeline.json");
    await cli(argv`fit --data ${combined} --method pca --k 3 --pipeline --out ${pipeline}`);
    const t = await cli(
      argv`transform --model ${pipeline} --data ${features} --labels-file ${labels}`,
    );
    const header = t.stdout.split("\n")[0];
    expect(header).toBe("c1,c2,c3,label");
    const p = await cli(
      argv`predict --model ${pipeline} --data ${features} --labels-file ${labels}`,
    );
    expect(p.code).toBe(0);
    expect(p.stderr).toMatch(/^Balanced accuracy on the 60 labelled samples of small: /);
  });

  it("is refused beside --label-col or --y-var, and as --out", async () => {
    const out = join(dir, "refused.json");
    const fit = (extra: string[]) =>
      cli(
        argv`fit --data ${features} --labels-file ${labels} ${extra} --method lda --k 2 --out ${out}`,
      );
    const col = await fit(["--label-col", "0"]);
    expect(col.code).toBe(1);
    expect(col.stderr).toBe(
      "sdspcaan: --labels-file gives the labels, so --label-col cannot: give one of them.\n",
    );
    expect((await fit(["--y-var", "gnd"])).stderr).toBe(
      "sdspcaan: --labels-file gives the labels, so --y-var cannot: give one of them.\n",
    );
    // --label-col none says the data file has no label column, which --labels-file means.
    expect((await fit(["--label-col", "none"])).code).toBe(0);
    const before = readFileSync(labels);
    const over = await cli(
      argv`fit --data ${features} --labels-file ${labels} --method lda --k 2 --out ${labels}`,
    );
    expect(over.code).toBe(1);
    expect(lines(over.stderr)).toHaveLength(1);
    expect(readFileSync(labels)).toEqual(before);
  });
});
