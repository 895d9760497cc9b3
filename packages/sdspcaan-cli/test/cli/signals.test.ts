/**
 * Signals on a real `sdspcaan` process. An experiment stopped by SIGTERM (what a
 * batch scheduler sends) exits 143, as shells report 128 + 15, and stays resumable;
 * a single long `fit` stopped by Ctrl-C leaves no model file and no temporary file.
 * Progress of a single fit is tested on the display itself (no timing involved).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeSyntheticDataset } from "sdspcaan/methods";
import { afterAll, describe, expect, it } from "vitest";
import { FitProgressDisplay } from "#internal/cli/commands/progress.js";
import { readResultsFile } from "#internal/runner/resultsFile.node.js";
import { startCli } from "../helpers/childCli.js";
import { writeCsv } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";

const dir = tempDir("signals");
afterAll(() => removeDir(dir));

const data = makeSyntheticDataset({ samples: 240, features: 64, classes: 4, seed: 11 });
const csv = join(dir, "data.csv");
writeCsv(csv, data.X, data.y);

function exited(child: ChildProcess): Promise<{ code: number | null; signal: string | null }> {
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
}

async function waitFor(cond: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  expect(cond()).toBe(true);
}

function lineCount(path: string): number {
  return existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean).length : 0;
}

describe("signals", () => {
  it("SIGTERM stops an experiment with exit code 143, resumable", async () => {
    const out = join(dir, "run");
    const results = join(out, "results.jsonl");
    const { child, stderr } = startCli([
      "experiment",
      ...["--data", csv, "--methods", "sdspcaan", "--grid", "quick", "--repeats", "6"],
      ...["--workers", "1", "--no-figures", "--out", out],
    ]);
    const done = exited(child);
    await waitFor(() => lineCount(results) >= 2);
    child.kill("SIGTERM");
    const { code } = await done;
    expect(code).toBe(143);
    expect(stderr()).toMatch(/run the same command again to resume/);
    expect(readFileSync(results, "utf8").endsWith("\n")).toBe(true);
    expect(readResultsFile(results).ignoredTail).toBe("");
  });

  it("Ctrl-C during a long fit ends it with nothing written", async () => {
    const model = join(dir, "model.json");
    // tol = 1e-300 never stops early: 2000 outer iterations take far longer than the test waits.
    const { child } = startCli([
      "fit",
      ...["--data", csv, "--method", "sdspcaan", "--k", "8"],
      ...["--tol", "1e-300", "--max-iter", "2000", "--out", model],
    ]);
    const done = exited(child);
    await new Promise((r) => setTimeout(r, 3000));
    expect(child.exitCode).toBeNull(); // still fitting when the signal arrives
    child.kill("SIGINT");
    const { code, signal } = await done;
    // Killed by the signal itself (the shell reports 130), not a normal exit.
    expect(code === 130 || signal === "SIGINT").toBe(true);
    expect(existsSync(model)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes(".tmp-"))).toEqual([]);
  });
});

describe("progress of a single fit", () => {
  /** A fake stream that records what is written to it. */
  function sink(isTTY: boolean) {
    const chunks: string[] = [];
    const stream = {
      isTTY,
      write: (s: string) => {
        chunks.push(s);
        return true;
      },
    } as unknown as NodeJS.WriteStream;
    return { stream, chunks };
  }
  const event = (iteration: number) => ({
    method: "sdspcaan",
    iteration,
    maxIterations: 500,
    objective: 1234.5678,
    lambda: 2 ** 14,
    change: 0.0123456,
    tol: 1e-3,
  });

  it("off a terminal prints plain lines with iteration, lambda, objective and elapsed time", () => {
    const { stream, chunks } = sink(false);
    const d = new FitProgressDisplay({ stream, intervalMs: 0 });
    d.update(event(1));
    d.update(event(2));
    d.stop();
    expect(chunks).toHaveLength(2);
    expect(chunks[1]).toMatch(
      /^sdspcaan: iteration 2\/500, lambda 2\^14, change 0\.0123 \(stops below 0\.001\), objective 1234\.57, \d+ ms elapsed\n$/,
    );
  });

  it("off a terminal stays quiet for fits shorter than the interval", () => {
    const { stream, chunks } = sink(false);
    const d = new FitProgressDisplay({ stream, intervalMs: 60_000 });
    for (let t = 1; t <= 50; t++) d.update(event(t));
    d.stop();
    expect(chunks).toEqual([]);
  });

  it("on a terminal redraws one line in place and clears it at the end", () => {
    const { stream, chunks } = sink(true);
    const d = new FitProgressDisplay({ stream, redrawMs: 0 });
    d.update(event(3));
    d.stop();
    const clear = "\r\u001b[2K";
    expect(chunks[0].startsWith(`${clear}sdspcaan: iteration 3/500`)).toBe(true);
    expect(chunks[0].endsWith("(Ctrl-C stops)")).toBe(true);
    expect(chunks.at(-1)).toBe(clear);
  });
});
