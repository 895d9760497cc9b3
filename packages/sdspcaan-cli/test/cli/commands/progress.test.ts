import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { formatDuration } from "#internal/cli/commands/output.js";
import { ProgressDisplay } from "#internal/cli/commands/progress.js";
import type { ExperimentProgress } from "#internal/runner/runner.node.js";

function stream(tty: boolean): { s: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const s = new PassThrough() as unknown as NodeJS.WriteStream;
  Object.assign(s, { isTTY: tty, columns: 160 });
  (s as unknown as PassThrough).on("data", (b: Buffer) => chunks.push(b.toString("utf8")));
  return { s, text: () => chunks.join("") };
}

const line = {
  dataset: "Yale",
  repeat: 0,
  method: "sdspcaan",
  k: 20,
  params: { alpha: 1, beta: 1, delta: 10 },
  valBCA: 0.5,
  testBCA: 0.4,
  iterations: 5,
  converged: true,
  fitMs: 12,
};

function progress(done: number, elapsedMs: number): ExperimentProgress {
  return { done, total: 100, resumed: 10, skipped: 1, elapsedMs, etaMs: 9000, line };
}

describe("ProgressDisplay", () => {
  it("prints a plain line at each tenth of the work and every interval, not for every fit", async () => {
    const { s, text } = stream(false);
    const display = new ProgressDisplay({ stream: s, intervalMs: 10_000 });
    for (let done = 10; done <= 100; done++) display.update(progress(done, done * 10));
    display.update(progress(100, 30_000));
    display.stop();
    await new Promise((r) => setImmediate(r));
    const lines = text()
      .split("\n")
      .filter((l) => l !== "");
    expect(lines.length).toBeGreaterThanOrEqual(10);
    expect(lines.length).toBeLessThanOrEqual(12);
    expect(lines[0]).toBe(
      "experiment: 10/100 fits (10 %), 10 resumed, 1 refused, 100 ms elapsed, ETA 9.0 s; last: Yale, repeat 0, sdspcaan, k = 20, alpha = 1, beta = 1, delta = 10",
    );
    expect(lines.at(-1)).toMatch(/^experiment: 100\/100 fits \(100 %\)/);
  });

  it("draws a bar with the ETA on a terminal", async () => {
    const { s, text } = stream(true);
    const display = new ProgressDisplay({ stream: s });
    display.update(progress(10, 100));
    display.update(progress(50, 1000));
    display.stop();
    await new Promise((r) => setImmediate(r));
    expect(text()).toMatch(
      /50\/100 fits \| 1\.0 s elapsed \| ETA 9\.0 s \| Yale, repeat 0, sdspcaan,/,
    );
  });
});

describe("formatDuration", () => {
  it("reads well at every scale", () => {
    expect(formatDuration(850)).toBe("850 ms");
    expect(formatDuration(12_300)).toBe("12.3 s");
    expect(formatDuration(245_000)).toBe("4m 05s");
    expect(formatDuration(3_720_000)).toBe("1h 02m");
  });
});
