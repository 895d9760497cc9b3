/**
 * `sdspcaan plot`'s flags: a results folder that does not exist is said to be missing,
 * --methods refuses a name the run lacks, --embedding refuses the flags of --data, and
 * plot embedding takes --plugin and --labels-file as transform does.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { unregisterMethod } from "sdspcaan/methods";
import { repoRoot, smallData } from "sdspcaan-test-support";
import { afterEach, describe, expect, it } from "vitest";
import { argv, cli, lines, writeCsv } from "../../helpers/cli.js";
import { fixtureRunFolder } from "../../helpers/statisticsRecords.js";

const fixture = fixtureRunFolder("cli-plot");

/** The one line a refused plot prints; no figure is written. */
async function refusal(args: string[], fig: string): Promise<string> {
  const r = await cli(args);
  expect(r.code).toBe(1);
  expect(lines(r.stderr)).toHaveLength(1);
  expect(existsSync(`${fig}.svg`) || existsSync(`${fig}.png`)).toBe(false);
  return r.stderr;
}

describe("plot bca-vs-k and sensitivity", () => {
  it("say a results folder that does not exist, or is a file, naming --results", async () => {
    const fig = join(fixture.root, "missing");
    const nowhere = join(fixture.root, "nowhere");
    for (const kind of ["bca-vs-k", "sensitivity"]) {
      expect(await refusal(argv`plot ${kind} --results ${nowhere} --out ${fig}`, fig)).toBe(
        `sdspcaan: The '--results' option names ${nowhere}, which does not exist; give the results directory of an experiment (its --out).\n`,
      );
    }
    const file = join(fixture.run, "results.jsonl");
    expect(await refusal(argv`plot bca-vs-k --results ${file} --out ${fig}`, fig)).toBe(
      `sdspcaan: The '--results' option names ${file}, which is a file, not a folder; give the results directory of an experiment (its --out).\n`,
    );
  });

  it("--methods refuses a method the run lacks rather than leaving it out", async () => {
    const fig = join(fixture.root, "foo");
    expect(
      await refusal(
        argv`plot bca-vs-k --results ${fixture.run} --methods pca,foo,bar --out ${fig}`,
        fig,
      ),
    ).toBe(
      `sdspcaan: The '--methods' option names "foo", "bar", not methods of this run; ${fixture.run} has baseline, pca, sdspcaan, lda.\n`,
    );
  });

  it("--methods takes words and commas, in any case", async () => {
    const fig = join(fixture.root, "two");
    const r = await cli(
      argv`plot bca-vs-k --results ${fixture.run} --methods PCA, sdspcaan --out ${fig}`,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Wrote ${fig}.svg and ${fig}.png.\n`);
  });
});

describe("plot embedding --embedding", () => {
  it("refuses the flags that say how to read --data", async () => {
    const csv = join(fixture.root, "embedding.csv");
    writeFileSync(csv, "c1,c2,label\n0,1,a\n1,0,b\n");
    const fig = join(fixture.root, "embedding");
    expect(
      await refusal(argv`plot embedding --embedding ${csv} --label-col 0 --out ${fig}`, fig),
    ).toBe(
      "sdspcaan: --label-col says how to read --data, and --embedding is read as transform wrote it: drop --label-col.\n",
    );
    expect(
      await refusal(argv`plot embedding --embedding ${csv} --labels-file ${csv} --out ${fig}`, fig),
    ).toBe(
      "sdspcaan: --labels-file says how to read --data, and --embedding is read as transform wrote it: drop --labels-file.\n",
    );
  });
});

describe("plot embedding --model", () => {
  const plugin = join(repoRoot, "examples", "plugins", "fisherfaces.mjs");
  // The registry is the process's: later test files must not see the plug-in's method.
  afterEach(() => {
    unregisterMethod("fisherfaces");
  });

  /** smallData as a CSV with its labels last, and as features and a labels file apart. */
  function dataFiles() {
    const data = smallData();
    const csv = join(fixture.root, "labelled.csv");
    writeCsv(csv, data.X, data.y);
    const features = join(fixture.root, "features.csv");
    const rows = readFileSync(csv, "utf8").trimEnd().split("\n");
    writeFileSync(features, `${rows.map((r) => r.slice(0, r.lastIndexOf(","))).join("\n")}\n`);
    const labels = join(fixture.root, "labels.txt");
    writeFileSync(labels, `${data.y.join("\n")}\n`);
    return { csv, features, labels };
  }

  it("plots a plug-in's model with --plugin, as its refusal without it says", async () => {
    const { csv } = dataFiles();
    const model = join(fixture.root, "fisherfaces.json");
    const fit = await cli(
      argv`fit --plugin ${plugin} --data ${csv} --method fisherfaces --k 2 --out ${model} --no-progress`,
    );
    expect(fit.code).toBe(0);
    unregisterMethod("fisherfaces");
    const fig = join(fixture.root, "plug-in");
    expect(
      await refusal(argv`plot embedding --model ${model} --data ${csv} --out ${fig}`, fig),
    ).toBe(
      `sdspcaan: ${model}: The model's method "fisherfaces" comes from the plug-in fisherfaces.mjs, which is not loaded: load that plug-in first (the CLI's --plugin fisherfaces.mjs; in a program, import it before loadModel).\n`,
    );
    const r = await cli(
      argv`plot embedding --plugin ${plugin} --model ${model} --data ${csv} --out ${fig}`,
    );
    expect(r).toEqual({ code: 0, stdout: `Wrote ${fig}.svg and ${fig}.png.\n`, stderr: "" });
    expect(readFileSync(`${fig}.svg`, "utf8")).toContain("Fisherfaces embedding of labelled");
  });

  it("takes the labels from --labels-file, as the refusal of --label-col none says", async () => {
    const { csv, features, labels } = dataFiles();
    const model = join(fixture.root, "pca.json");
    expect((await cli(argv`fit --data ${csv} --method pca --k 2 --out ${model}`)).code).toBe(0);
    const fig = join(fixture.root, "labels-file");
    expect(
      await refusal(
        argv`plot embedding --model ${model} --data ${features} --label-col none --out ${fig}`,
        fig,
      ),
    ).toBe(
      "sdspcaan: This command needs the class labels; '--label-col none' (data without labels) is for transform, and for fit with a method that needs no labels; give the labels with --labels-file FILE.\n",
    );
    const apart = await cli(
      argv`plot embedding --model ${model} --data ${features} --labels-file ${labels} --title T --out ${fig}`,
    );
    expect(apart).toEqual({ code: 0, stdout: `Wrote ${fig}.svg and ${fig}.png.\n`, stderr: "" });
    // The same points and classes as from the file with its labels last.
    const together = join(fixture.root, "label-column");
    const r = await cli(
      argv`plot embedding --model ${model} --data ${csv} --title T --out ${together}`,
    );
    expect(r.code).toBe(0);
    expect(readFileSync(`${fig}.svg`, "utf8")).toBe(readFileSync(`${together}.svg`, "utf8"));
  });
});
