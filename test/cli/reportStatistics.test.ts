import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fitRecordToLine } from "../../src/experiment/records.js";
import { fixtureRecords } from "../experiment/statisticsRecords.js";
import { removeDir, tempDir } from "../runner/helpers.js";
import { cli, lines } from "./helpers.js";

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
});
