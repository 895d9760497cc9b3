/**
 * A data set that comes with its own test set (the registry's FashionMNIST, here as
 * tiny generated IDX files): `evaluate` trains on every training image and tests on
 * the test images; `experiment` refuses it without explicit splits.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { balancedAccuracy, Matrix, NearestNeighbour1, PCA } from "sdspcaan";
import { zscoreStatistics } from "sdspcaan/methods";
import { removeDir, tempDir } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reloadDataset } from "#internal/reports/reloadData.node.js";
import { argv, cli } from "../helpers/cli.js";

/** uint8 IDX bytes (big-endian sizes). */
function idx(shape: number[], values: number[]): Buffer {
  const head = 4 + 4 * shape.length;
  const out = new Uint8Array(head + values.length);
  const dv = new DataView(out.buffer);
  out[2] = 0x08;
  out[3] = shape.length;
  shape.forEach((s, i) => {
    dv.setUint32(4 + 4 * i, s, false);
  });
  out.set(values, head);
  return gzipSync(out);
}

/** n images of 2 x 3 pixels: class c has bright pixel c, plus a deterministic wobble. */
function images(n: number, offset: number): { pixels: number[]; labels: number[] } {
  const pixels: number[] = [];
  const labels: number[] = [];
  for (let i = 0; i < n; i++) {
    const c = i % 3;
    labels.push(c);
    for (let p = 0; p < 6; p++)
      pixels.push((((i + offset) * 37 + p * 11) % 50) + (p === c ? 200 : 0));
  }
  return { pixels, labels };
}

let root: string;
const train = images(30, 0);
const test = images(9, 5);

beforeAll(() => {
  root = tempDir("fmnist");
  const dir = join(root, "fashion-mnist");
  mkdirSync(dir);
  writeFileSync(join(dir, "train-images-idx3-ubyte.gz"), idx([30, 2, 3], train.pixels));
  writeFileSync(join(dir, "train-labels-idx1-ubyte.gz"), idx([30], train.labels));
  writeFileSync(join(dir, "t10k-images-idx3-ubyte.gz"), idx([9, 2, 3], test.pixels));
  writeFileSync(join(dir, "t10k-labels-idx1-ubyte.gz"), idx([9], test.labels));
});
afterAll(() => removeDir(root));

describe("a data set with its own test set", () => {
  it("fit trains on the training images only and says so", async () => {
    const out = join(root, "pca.json");
    const r = await cli(argv`fit --data FashionMNIST --data-dir ${root} --method pca --k 2
      --no-progress --out ${out}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /on 30 samples x 6 features of FashionMNIST \(its 30 training samples; its own test set left out/,
    );
    // The model is PCA of the 30 training images alone (train-zscore statistics of them).
    const model = JSON.parse(readFileSync(out, "utf8"));
    const X = Matrix.fromRows(
      Array.from({ length: 30 }, (_, i) => train.pixels.slice(6 * i, 6 * i + 6)),
    );
    const stats = zscoreStatistics(X);
    expect(model.preprocessing.center).toEqual(Array.from(stats.center));
  });

  it("evaluate trains on all training images and tests on the test images", async () => {
    const evaluate = [
      "evaluate",
      "--data",
      "FashionMNIST",
      "--data-dir",
      root,
      "--method",
      "pca",
      "--k",
      "2",
      "--no-progress",
    ];
    const r = await cli([...evaluate, "--json"]);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result.sizes).toEqual({ train: 30, val: 0, test: 9 });
    expect(result.split).toBe("predefined");
    expect(result.valBCA).toBeNull();
    // The same fit by hand: train-zscore with the training statistics, PCA, 1-NN.
    const X = new Matrix(30, 6, Float64Array.from(train.pixels));
    const T = new Matrix(9, 6, Float64Array.from(test.pixels));
    const { center, scale } = zscoreStatistics(X);
    const z = (A: Matrix) =>
      new Matrix(
        A.rows,
        6,
        A.data.map((v, t) => (v - center[t % 6]) / scale[t % 6]),
      );
    const pca = new PCA({ k: 2 }).fit(z(X));
    const nn = new NearestNeighbour1().fit(pca.transform(z(X)), train.labels);
    expect(result.testBCA).toBe(balancedAccuracy(test.labels, nn.predict(pca.transform(z(T)))));
    const text = await cli(evaluate);
    expect(text.stdout).toMatch(
      /on FashionMNIST, its own test set \(train 30 \/ validation 0 \/ test 9/,
    );
    expect(text.stdout).not.toMatch(/validation BCA/);
  });

  it("evaluate refuses --repeat and --stratify, experiment refuses seeded splits", async () => {
    const base = ["evaluate", "--data", "FashionMNIST", "--data-dir", root, "--method", "pca"];
    const repeat = await cli([...base, "--k", "2", "--repeat", "1"]);
    expect(repeat.code).toBe(1);
    expect(repeat.stderr).toMatch(/comes with its own test set, so there is one split/);
    const exp = await cli(argv`experiment --data FashionMNIST --data-dir ${root} --methods pca
      --k-grid 2 --out ${join(root, "exp")}`);
    expect(exp.code).toBe(1);
    expect(exp.stderr).toMatch(/comes with its own test set \(9 samples, rows 30 on\)/);
    expect(exp.stderr).toMatch(/sdspcaan datasets splits FashionMNIST/);
  });

  it("datasets splits writes the split file that experiment --splits takes", async () => {
    const file = join(root, "splits.json");
    const w = await cli(argv`datasets splits FashionMNIST --data-dir ${root} --repeats 2
      --seed 3 --out ${file}`);
    expect(w.code).toBe(0);
    expect(w.stdout).toMatch(/2 splits written .*train 25 \/ validation 5 .* \/ test 9/);
    const json = JSON.parse(readFileSync(file, "utf8"));
    expect(json.splits).toHaveLength(2);
    for (const split of json.splits) {
      expect(split.test).toEqual([30, 31, 32, 33, 34, 35, 36, 37, 38]);
      expect(split.val).toHaveLength(5);
      expect(new Set([...split.train, ...split.val]).size).toBe(30);
    }
    expect(json.splits[0].val).not.toEqual(json.splits[1].val);
    const r = await cli(argv`experiment --data FashionMNIST --data-dir ${root} --splits ${file}
      --methods pca --k-grid 3 --repeats 2 --workers 1 --out ${join(root, "exp-splits")}
      --no-progress`);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Complete run: all 2 planned fits are done/);
    expect(r.stdout).toMatch(/\| FashionMNIST \| /);
    // The report reloads the data set from the path the run recorded: the same rows,
    // test images included (the checksum is compared).
    const settings = JSON.parse(readFileSync(join(root, "exp-splits", "settings.json"), "utf8"));
    expect(settings.datasets[0].origin.path).toMatch(/fashion-mnist[\\/]train-images-idx3/);
    const reloaded = await reloadDataset(settings.datasets[0]);
    expect(reloaded?.X.rows).toBe(39);
    const refused = await cli(["datasets", "splits", "Yale", "--out", join(root, "y.json")]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/has no test set of its own/);
  });
});
