/**
 * `transform` on new data, which usually has no labels: it used to take the last
 * feature for the label. Now every column is a feature unless the labels are named,
 * and a feature count that is not the model's is refused with both numbers.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { numeric, writeMatV5 } from "sdspcaan-test-support";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { loadFeatures } from "#internal/io/load.js";
import { cli, lines } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";
import { csvText, expectRefused, float64Bytes, npyBytes, smallRows, writeText } from "./helpers.js";

let dir: string;
let model: string;
let labelled: string;
let expected: string[];
const { X, y } = smallRows();

beforeAll(() => {
  dir = tempDir("bad-transform");
  labelled = writeText(dir, "train.csv", csvText(X, y));
  model = join(dir, "pca.json");
});
// Fitted in the first test that runs, not in beforeAll: Stryker (`npm run test:mutation`)
// counts code run outside a test as covered by every test, and runs them all per mutant.
let fitted: Promise<void> | undefined;
beforeEach(() => (fitted ??= fitAndEmbed()));
async function fitAndEmbed(): Promise<void> {
  const fit = await cli(["fit", "--data", labelled, "--method", "pca", "--k", "2", "--out", model]);
  expect(fit.code).toBe(0);
  const emb = await cli([
    "transform",
    "--model",
    model,
    "--data",
    labelled,
    "--label-col",
    "last",
    "--out",
    "-",
  ]);
  expect(emb.code).toBe(0);
  // The embedding of the labelled file without its label column: what unlabelled data gives.
  expected = lines(emb.stdout).map((l) => l.split(",").slice(0, 2).join(","));
}
afterAll(() => removeDir(dir));

async function embed(data: string, extra: string[] = []): Promise<string[]> {
  const r = await cli(["transform", "--model", model, "--data", data, ...extra, "--out", "-"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return lines(r.stdout);
}

describe("transform reads unlabelled data", () => {
  it("embeds a CSV without labels, every column a feature", async () => {
    const file = writeText(dir, "new.csv", csvText(X));
    expect(await embed(file)).toEqual(expected);
  });

  it("embeds an NPY without labels", async () => {
    const file = join(dir, "new.npy");
    writeFileSync(
      file,
      npyBytes(
        `{'descr': '<f8', 'fortran_order': False, 'shape': (${X.length}, 4), }`,
        float64Bytes(X),
      ),
    );
    expect(await embed(file)).toEqual(expected);
  });

  it("embeds a MAT-file holding only X", async () => {
    const file = join(dir, "new.mat");
    writeFileSync(file, writeMatV5([numeric("X", X)]));
    expect(await embed(file)).toEqual(expected);
  });

  it("writes the labels of a MAT label variable found by name (fea/gnd)", async () => {
    const file = join(dir, "fea-gnd.mat");
    writeFileSync(
      file,
      writeMatV5([
        numeric("fea", X),
        numeric(
          "gnd",
          y.map((v) => [v]),
        ),
      ]),
    );
    const out = await embed(file);
    expect(out[0]).toBe("c1,c2,label");
    expect(out.slice(1).map((l) => Number(l.split(",")[2]))).toEqual(y);
  });

  it("drops a named label column from the features and writes it", async () => {
    const out = await embed(labelled, ["--label-column", "last"]);
    expect(out.map((l) => l.split(",").slice(0, 2).join(","))).toEqual(expected);
    expect(out[0]).toBe("c1,c2,label");
  });

  it("refuses a feature count that is not the model's, naming both and the fix", async () => {
    const out = join(dir, "emb.csv");
    await expectRefused(
      ["transform", "--model", model, "--data", labelled, "--out", out],
      [labelled, "has 5 features per sample", `${model} was fitted on 4`, "--label-col"],
      out,
    );
  });

  it("refuses data with fewer features without suggesting a label column", async () => {
    const file = writeText(dir, "narrow.csv", csvText(X.map((r) => r.slice(0, 3))));
    const out = join(dir, "narrow-emb.csv");
    const line = await expectRefused(
      ["transform", "--model", model, "--data", file, "--out", out],
      [file, "has 3 features per sample", "fitted on 4"],
      out,
    );
    expect(line).not.toContain("--label-col");
  });

  it("plots an embedding written without labels", async () => {
    const emb = join(dir, "unlabelled-emb.csv");
    const file = writeText(dir, "new2.csv", csvText(X));
    expect((await cli(["transform", "--model", model, "--data", file, "--out", emb])).code).toBe(0);
    expect(readFileSync(emb, "utf8").split("\n")[0]).toBe("c1,c2");
    const fig = join(dir, "fig");
    const r = await cli(["plot", "embedding", "--embedding", emb, "--out", fig]);
    expect(r.code).toBe(0);
    expect(existsSync(`${fig}.svg`)).toBe(true);
  });
});

describe("loadFeatures (the library's way to read unlabelled data)", () => {
  it("reads every CSV column as a feature and gives y null", async () => {
    const file = writeText(dir, "lib.csv", csvText(X, y));
    const all = await loadFeatures(file);
    expect(all.y).toBeNull();
    expect(all.X.cols).toBe(5);
    const named = await loadFeatures(file, { labelColumn: "last" });
    expect(named.X.toRows()).toEqual(X);
    expect(named.y).toEqual(y);
  });

  it("reads the whole of a `data` variable unless a label column is named", async () => {
    const file = join(dir, "data.mat");
    writeFileSync(
      file,
      writeMatV5([
        numeric(
          "data",
          X.map((r, i) => [...r, y[i]]),
        ),
      ]),
    );
    const all = await loadFeatures(file);
    expect([all.X.cols, all.y]).toEqual([5, null]);
    const named = await loadFeatures(file, { labelColumn: "last" });
    expect(named.y).toEqual(y);
  });
});
