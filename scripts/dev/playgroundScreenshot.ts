/**
 * Developer tool: the README's screenshot of the playground (docs/figures/playground.png).
 * Builds the page, serves it, and in headless Chromium fits PCA then SDSPCAAN (k = 10)
 * on MSRA25 (the paper's data set with enough training samples per class for the
 * adaptive graph), then hovers a point and takes the picture.
 * Usage: npx tsx scripts/dev/playgroundScreenshot.ts [--data dir] [--out file.png]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startPlaygroundServer } from "../../packages/sdspcaan-cli/src/cli/playgroundServer.js";
import { launchChromium } from "../../test/e2e/chromium.js";
import { buildPlayground } from "../build-playground.js";

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const dataDir = resolve(arg("--data", "data"));
const target = resolve(arg("--out", "docs/figures/playground.png"));
const out = mkdtempSync(join(tmpdir(), "sdspcaan-shot-"));
await buildPlayground(out, dataDir);
const server = await startPlaygroundServer({ root: out, dataDir });
const browser = await launchChromium();
const page = await browser.context.newPage();
try {
  await page.setViewportSize({ width: 1360, height: 1020 });
  await page.goto(server.url);
  await page.locator("#sample option").nth(1).waitFor({ state: "attached" });
  await page.selectOption("#sample", "MSRA25");
  await page.waitForSelector("#data-info:not([hidden])", { timeout: 120_000 });
  for (const [method, n] of [
    ["pca", 0],
    ["sdspcaan", 1],
  ] as const) {
    await page.selectOption("#method", method);
    await page.fill('[data-option="k"]', "10");
    await page.click("#fit");
    await page.locator("#history tbody tr").nth(n).waitFor({ timeout: 600_000 });
  }
  // Hover a point near the middle of the plot, to show the tooltip.
  await page.locator("h1").scrollIntoViewIfNeeded();
  const box = await page.locator("#scatter").boundingBox();
  if (box) await page.mouse.move(box.x + box.width * 0.45, box.y + box.height * 0.5);
  await page.screenshot({ path: target, fullPage: true });
  process.stdout.write(`wrote ${target}\n`);
} finally {
  await page.close();
  await browser.close();
  await server.close();
  rmSync(out, { recursive: true, force: true });
}
