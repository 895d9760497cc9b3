/**
 * The example plug-in as a user runs it, with Node's own loader rather than the test
 * runner's: its node:test file (docs/plugins.md) passes the contract checks against
 * the built library, and the built CLI runs a copy of it kept outside the repository
 * (no node_modules beside it: `sdspcaan` resolves to the CLI's copy) in 2 worker
 * threads and in 2 shards merged by `report`, with the in-process run's table.
 * Needs the build (`npm ci` makes it).
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot, smallData } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import { writeCsv } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";

const BIN = join(repoRoot, "packages", "sdspcaan-cli", "dist", "cli", "bin.js");
const EXAMPLE = join(repoRoot, "examples", "plugins");
const root = tempDir("example-plugin");
afterAll(() => removeDir(root));

function sdspcaan(args: string[]): string {
  return execFileSync(process.execPath, [BIN, ...args], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe("the example plug-in under Node and the built CLI", () => {
  it("passes the contract checks in its own node:test file", () => {
    const out = execFileSync(process.execPath, ["--test", "fisherfaces.test.mjs"], {
      cwd: EXAMPLE,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    expect(out).toMatch(/^# pass 13$/m);
    expect(out).toMatch(/^# fail 0$/m);
  });

  it("runs from outside the repository in worker threads and shards, as in-process", () => {
    copyFileSync(join(EXAMPLE, "fisherfaces.mjs"), join(root, "mine.mjs"));
    const data = smallData(3);
    writeCsv(join(root, "small.csv"), data.X, data.y);
    const run = [
      ...["experiment", "--plugin", "mine.mjs", "--data", "small.csv", "--methods"],
      ...["pca,fisherfaces", "--grid", "quick", "--k-grid", "2,4", "--repeats", "2"],
      ...["--no-figures", "--no-progress"],
    ];
    sdspcaan([...run, "--workers", "1", "--out", "single"]);
    sdspcaan([...run, "--workers", "2", "--out", "workers"]);
    for (const shard of ["0/2", "1/2"]) {
      sdspcaan([...run, "--workers", "1", "--out", "shards", "--shard", shard]);
    }
    sdspcaan(["report", "--plugin", "mine.mjs", "--out", "shards", "--no-figures"]);
    const table = readFileSync(join(root, "single", "table.md"), "utf8");
    expect(table).toContain("| Dataset | PCA | Fisherfaces |");
    expect(readFileSync(join(root, "workers", "table.md"), "utf8")).toBe(table);
    expect(readFileSync(join(root, "shards", "table.md"), "utf8")).toBe(table);
  });
});
