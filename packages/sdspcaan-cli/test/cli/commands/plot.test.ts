/**
 * `sdspcaan plot`'s flags: a results folder that does not exist is said to be missing,
 * --methods refuses a name the run lacks, and --embedding refuses the flags of --data.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { argv, cli, lines } from "../../helpers/cli.js";
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
  });
});
