/**
 * `sdspcaan report`'s flags: a results folder that does not exist is said to be
 * missing, and --datasets takes the run's names in any case. Its figures write nothing
 * to standard error but the report's own lines.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fitRecordToLine } from "#internal/protocol/records.js";
import { argv, cli, lines } from "../../helpers/cli.js";
import { rec } from "../../helpers/makeRecord.js";
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

describe("report's figures", () => {
  it("warn of nothing when a panel of BCA versus k has no method at a single k", async () => {
    // Alpha and Beta share no k, so Fig. 1 has a panel each; LDA's only k on Alpha is
    // drawn as a bar, and Beta has no such bar.
    const ks: Record<string, Record<string, number[]>> = {
      Alpha: { pca: [20, 30], lda: [10] },
      Beta: { pca: [40, 50], lda: [30, 40] },
    };
    const records = Object.entries(ks).flatMap(([dataset, methods]) =>
      Object.entries(methods).flatMap(([method, list]) =>
        [0, 1].flatMap((repeat) =>
          list.map((k) =>
            rec({ dataset, method, repeat, k, valBCA: 0.5, testBCA: 0.5 + k / 200 + repeat / 20 }),
          ),
        ),
      ),
    );
    const run = join(fixture.root, "panels");
    mkdirSync(run);
    writeFileSync(join(run, "results.jsonl"), records.map(fitRecordToLine).join(""));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
    process.on("warning", onWarning);
    try {
      const r = await cli(["report", "--out", run]);
      // Process warnings are emitted on a later tick.
      await new Promise((done) => setImmediate(done));
      expect(r.code).toBe(0);
      expect(r.stderr).toContain(`Wrote ${join(run, "table.md")}`);
      expect(r.stderr).not.toMatch(/VegaWarning|trace-warnings/);
    } finally {
      process.off("warning", onWarning);
    }
    expect(warnings).toEqual([]);
    const svg = readFileSync(join(run, "figures", "bca-vs-k.svg"), "utf8");
    expect(svg).toContain("per data set");
  });
});
