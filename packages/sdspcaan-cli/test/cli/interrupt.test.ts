/**
 * Ctrl-C on a real `sdspcaan` process: it stops with exit code 130, says how to
 * resume, and leaves a results file whose every line is a finished fit.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { methodNames } from "sdspcaan";
import { repoRoot } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import { readResultsFile } from "#internal/runner/resultsFile.node.js";
import { cli } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";

const dir = tempDir("interrupt");
afterAll(() => removeDir(dir));

function lineCount(path: string): number {
  if (!existsSync(path)) return 0;
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((l) => l !== "").length;
}

describe("Ctrl-C during an experiment", () => {
  it("stops cleanly with exit code 130 and a consistent, resumable results file", async () => {
    const out = join(dir, "run");
    const results = join(out, "results.jsonl");
    // Slow enough fits (an iterative method on a few hundred samples) that the run is
    // still going when the signal arrives.
    const method = methodNames().includes("sdspcaan") ? "sdspcaan" : "pca";
    const args = [
      "--import",
      "tsx",
      join(repoRoot, "packages", "sdspcaan-cli", "src", "cli", "bin.ts"),
      "demo",
      "--synthetic",
      "--samples",
      "200",
      "--features",
      "64",
      "--repeats",
      "5",
      "--methods",
      method,
      "--workers",
      "1",
      "--no-figures",
      "--out",
      out,
    ];
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString("utf8");
    });
    const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    const deadline = Date.now() + 60_000;
    while (lineCount(results) < 2 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGINT");
    const code = await exit;
    expect(code).toBe(130);
    expect(stderr).toMatch(/Interrupted: stopping/);
    expect(stderr).toMatch(/run the same command again to resume/);
    const text = readFileSync(results, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const partial = readResultsFile(results);
    expect(partial.records.length).toBeGreaterThanOrEqual(2);
    expect(partial.ignoredTail).toBe("");
    // What was saved is already a report.
    const report = await cli(["report", "--out", out, "--no-figures"]);
    expect(report.code).toBe(0);
    expect(report.stdout).toMatch(/\| Synthetic \|/);
  });
});
