import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fitRecordToLine } from "#internal/protocol/records.js";
import { argv, cli, lines } from "../../helpers/cli.js";
import { removeDir, tempDir } from "../../helpers/runs.js";
import { fixtureRecords } from "../../helpers/statisticsRecords.js";

let dir: string;

beforeAll(() => {
  dir = join(tempDir("cli-statistics"), "run");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "results.jsonl"), fixtureRecords().map(fitRecordToLine).join(""));
});
afterAll(() => removeDir(join(dir, "..")));

describe("sdspcaan report: statistics", () => {
  it("prints the table on stdout and the statistics summary on stderr", async () => {
    const r = await cli(["report", "--out", dir, "--no-figures", "--baseline-method", "LDA"]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, "table.md"), "utf8")).toBe(`${r.stdout.trimEnd()}\n`);
    expect(r.stderr).toContain("Statistics (statistics.md), per data set against LDA:");
    expect(r.stderr).toMatch(/Friedman χ² = 8\.76, p = 0\.033/);
    expect(readFileSync(join(dir, "statistics.md"), "utf8")).toContain(
      "against LDA (chosen with --baseline-method)",
    );
  });

  it("refuses a baseline method the run does not have, in one line, writing nothing", async () => {
    const file = join(dir, "statistics.md");
    const read = () => (existsSync(file) ? readFileSync(file, "utf8") : null);
    const before = read();
    const r = await cli(["report", "--out", dir, "--no-figures", "--baseline-method", "slnp"]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /"slnp" is not among the methods of this report \(baseline, pca, sdspcaan, lda\)/,
    );
    expect(read()).toBe(before);
  });

  it("reports part of the run into --to, leaving the run's report alone", async () => {
    const own = join(dir, "table.md");
    const read = () => (existsSync(own) ? readFileSync(own, "utf8") : null);
    const before = read();
    const to = join(dir, "..", "baseline-pca");
    const r = await cli(argv`report --out ${dir} --methods baseline,PCA --to ${to} --no-figures`);
    expect(r.code).toBe(0);
    const md = readFileSync(join(to, "table.md"), "utf8");
    expect(md).toBe(`${r.stdout.trimEnd()}\n`);
    expect(md).toContain("| Dataset | Baseline | PCA |\n");
    // Without LDA, Epsilon (where LDA has no results) enters the ranks: PCA is first on
    // Alpha, Beta, Delta and Epsilon and ties with Baseline on Gamma, so 5.5 / 5 and 9.5 / 5.
    expect(r.stderr).toContain("Average ranks over 5 data sets: PCA 1.10, Baseline 1.90.");
    expect(r.stderr).toContain(
      "Report of part of the run: methods baseline, pca; data sets Alpha, Beta, Gamma, Delta, Epsilon.",
    );
    expect(read()).toBe(before);
  });

  it("refuses a part without --to and names the run lacks, in one line", async () => {
    const to = join(dir, "..", "refused");
    const cases: Array<[string[], RegExp | string]> = [
      [
        ["--methods", "pca"],
        `sdspcaan: A report of some methods or data sets (--methods / --datasets) needs --to, the folder it goes to, so that it does not replace the report of the whole run in ${dir}; give --to ${dir} to replace that report on purpose.\n`,
      ],
      [
        ["--methods", "pca,slnp", "--to", to],
        /^sdspcaan: The '--methods' option names "slnp", not a method of this run; .*results\.jsonl has baseline, pca, sdspcaan, lda\.$/m,
      ],
      [
        ["--datasets", ",", "--to", to],
        /^sdspcaan: The '--datasets' option must be a non-empty list of data set names/,
      ],
    ];
    for (const [args, pattern] of cases) {
      const r = await cli(["report", "--out", dir, "--no-figures", ...args]);
      expect(r.code).toBe(1);
      expect(lines(r.stderr)).toHaveLength(1);
      if (typeof pattern === "string") expect(r.stderr).toBe(pattern);
      else expect(r.stderr).toMatch(pattern);
    }
    expect(existsSync(to)).toBe(false);
  });
});
