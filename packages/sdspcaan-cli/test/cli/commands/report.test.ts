/**
 * `sdspcaan report`'s flags: a results folder that does not exist is said to be
 * missing, and --datasets takes the run's names in any case.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { argv, cli, lines } from "../../helpers/cli.js";
import { fixtureRunFolder } from "../../helpers/statisticsRecords.js";

const fixture = fixtureRunFolder("cli-report");

describe("report", () => {
  it("says a results folder that does not exist, naming --out, and makes nothing", async () => {
    const nowhere = join(fixture.root, "nowhere");
    const r = await cli(["report", "--out", nowhere]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `sdspcaan: The '--out' option names ${nowhere}, which does not exist; give the results directory of an experiment (its --out).\n`,
    );
    expect(existsSync(nowhere)).toBe(false);
  });

  it("--datasets takes the run's names in any case, separated by words or commas", async () => {
    const to = join(fixture.root, "part");
    const r = await cli(
      argv`report --out ${fixture.run} --datasets alpha, BETA gamma --methods pca lda --to ${to} --no-figures`,
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      "Report of part of the run: methods pca, lda; data sets Alpha, Beta, Gamma.",
    );
    const md = readFileSync(join(to, "table.md"), "utf8");
    expect(md).toContain("| Dataset | PCA | LDA |\n");
    expect(md).not.toContain("| Delta |");
  });

  it("names --to when it holds another run", async () => {
    const other = join(fixture.root, "other-run");
    mkdirSync(other);
    writeFileSync(join(other, "results.jsonl"), "");
    const r = await cli(argv`report --out ${fixture.run} --methods pca --to ${other} --no-figures`);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `sdspcaan: The '--to' option names ${other}, which holds another run (${join(other, "results.jsonl")}); its report would be replaced by this one. Choose a new folder.\n`,
    );
  });

  it("names a data set the run lacks with the flag", async () => {
    const to = join(fixture.root, "refused");
    const r = await cli(argv`report --out ${fixture.run} --datasets alpha,Zeta --to ${to}`);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `sdspcaan: The '--datasets' option names "Zeta", not a data set of this run; ${join(fixture.run, "results.jsonl")} has Alpha, Beta, Gamma, Delta, Epsilon.`,
    ]);
    expect(existsSync(to)).toBe(false);
  });
});
