/**
 * Developer tool: how much slower a fit is in the browser playground (headless
 * Chromium, Web Worker) than in Node, on the same training split. Fits SDSPCAAN on
 * a YaleB training split (n = 483, d = 1024) in both, alternating, and prints each
 * fit's time (the fit's own fitInfo.timings.totalMs, so loading and evaluation are
 * left out on both sides) and the medians and their ratio. The machine is shared and
 * noisy: both sides are measured in the same session, interleaved.
 * Usage: npx tsx scripts/dev/browserVsNode.ts [--k 100] [--runs 5] [--data dir]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { makeSplit } from "../../packages/sdspcaan/src/data/splits.js";
import { createMethod } from "../../packages/sdspcaan/src/methods/registry.js";
import { startPlaygroundServer } from "../../packages/sdspcaan-cli/src/cli/playgroundServer.js";
import { loadDataset } from "../../packages/sdspcaan-cli/src/io/load.js";
import { prepareSplit } from "../../packages/sdspcaan-cli/src/runner/units.node.js";
import { launchChromium } from "../../test/e2e/chromium.js";
import { buildPlayground } from "../build-playground.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const k = Number(arg("--k", "100"));
const runs = Number(arg("--runs", "5"));
const dataDir = resolve(arg("--data", "data"));
const file = join(dataDir, "YaleB_32x32.mat");

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

const ds = await loadDataset(file);
const split = makeSplit(ds.X.rows, { seed: 0, dataset: "YaleB", repeat: 0 });
const prepared = prepareSplit({ name: "YaleB", X: ds.X, y: ds.y }, split, "train-zscore");
console.log(
  `YaleB training split: n = ${prepared.data.n}, d = ${prepared.data.d}; SDSPCAAN k = ${k}`,
);

const out = mkdtempSync(join(tmpdir(), "sdspcaan-bench-"));
await buildPlayground(out, dataDir);
const server = await startPlaygroundServer({ root: out, serveData: false });
const browser = await launchChromium();
const page = await browser.context.newPage();
try {
  await page.goto(server.url);
  await page.setInputFiles("#file", file);
  await page.waitForSelector("#data-info:not([hidden])", { timeout: 120_000 });
  await page.selectOption("#method", "sdspcaan");
  await page.fill('[data-option="k"]', String(k));
  const nodeMs: number[] = [];
  const browserMs: number[] = [];
  const iterations: number[] = [];
  for (let r = 0; r < runs; r++) {
    const model = createMethod("sdspcaan", { k }).fitPrepared(prepared.data);
    nodeMs.push(model.fitInfo.timings.totalMs);
    iterations.push(model.fitInfo.iterations);
    await page.click("#fit");
    await page.locator("#history tbody tr").nth(r).waitFor({ timeout: 600_000 });
    // "done: 121 iteration(s), stopped: lambda-cap, 14.37 s"
    const text = (await page.textContent("#progress-text")) ?? "";
    const m = /^done: (\d+) iteration.*, ([\d.]+) (ms|s)$/.exec(text);
    if (m === null) throw new Error(`unexpected progress text ${text}`);
    browserMs.push(Number(m[2]) * (m[3] === "s" ? 1000 : 1));
    console.log(
      `run ${r + 1}: Node ${nodeMs[r].toFixed(0)} ms (${iterations[r]} iterations), browser ${browserMs[r].toFixed(0)} ms (${m[1]} iterations)`,
    );
  }
  const a = median(nodeMs);
  const b = median(browserMs);
  console.log(
    `median: Node ${a.toFixed(0)} ms, browser ${b.toFixed(0)} ms; browser / Node = ${(b / a).toFixed(2)}`,
  );
} finally {
  await page.close();
  await browser.close();
  await server.close();
  rmSync(out, { recursive: true, force: true });
}
