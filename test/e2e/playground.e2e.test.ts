/**
 * The playground in a real headless Chromium: the page is built from the current
 * sources into a temporary folder, served by the `sdspcaan playground` server on
 * 127.0.0.1, and driven like a user would. The page's results must be the Node
 * library's on the same split (the fit runs the same code, in a Web Worker), a bad
 * file must get the Node reader's message, Cancel must stop a long fit (through
 * shared memory on the isolated server, by ending the worker on a plain one), a
 * saved model must load in Node, and the console must stay free of errors. The page
 * must also hold together: after a cancelled or failed fit the results panel is the
 * last finished fit's throughout, a message sits beside the field it is about, the
 * data menu names what is loaded, no menu or field cuts off its text, and at phone
 * width nothing makes the page scroll sideways. Screenshots go to test-artifacts/e2e/.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { build } from "esbuild";
import type { Page } from "playwright-core";
import { createMethod, loadModel, methodNames, Pipeline } from "sdspcaan";
import { makeSplit, methodDescriptor } from "sdspcaan/methods";
import { dataDir, dataFile, fixtureFile, repoRoot } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readModelFile } from "#cli/cli/commands/modelFiles.js";
import { type PlaygroundServer, startPlaygroundServer } from "#cli/cli/playgroundServer.js";
import { loadDataset, parseDataset } from "#cli/io/load.js";
import { evaluateModel, prepareSplit } from "#cli/runner/units.node.js";
import { buildPlayground } from "../../scripts/build-playground.js";
import { type Browser, chromiumAvailable, launchChromium } from "./chromium.js";
import type { LibWorkerPage } from "./libWorkerPage.js";

const ARTIFACTS = join(repoRoot, "test-artifacts", "e2e");
const runs = chromiumAvailable();

/** Builds libWorkerPage.ts and its worker (libWorker.ts) into `dir` with a page that loads them. */
async function buildLibWorkerPage(dir: string): Promise<void> {
  const here = join(repoRoot, "test", "e2e");
  await build({
    entryPoints: {
      "lib-worker-page": join(here, "libWorkerPage.ts"),
      "lib-worker": join(here, "libWorker.ts"),
    },
    outdir: dir,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    logLevel: "warning",
  });
  writeFileSync(
    join(dir, "index.html"),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>sdspcaan/worker</title><link rel="icon" href="data:,"><script type="module" src="lib-worker-page.js"></script></head><body></body></html>\n',
  );
}

/** Console errors and uncaught exceptions of a page, collected for the final check. */
function watchConsole(page: Page, into: string[]): void {
  page.on("console", (m) => {
    if (m.type() === "error") into.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => into.push(`page error: ${e.message}`));
}

/** The message in a step's own box (#data-error, #fit-error, #model-error) once it shows. */
async function errorText(page: Page, box: string): Promise<string> {
  await page.waitForSelector(`${box}:not([hidden])`, { timeout: 60_000 });
  return (await page.textContent(box)) ?? "";
}

/**
 * The message shown for the field `selector` (an element with role=alert that the
 * field names in aria-describedby), or null; the message must sit inside the
 * field's own row (its .option label or the labels-file row) and start within a line
 * below the field's top, so that it reads as being about that field.
 */
async function fieldMessage(page: Page, selector: string): Promise<string | null> {
  return page.locator(selector).evaluate((field) => {
    const id = field.getAttribute("aria-describedby");
    const message = id === null ? null : document.getElementById(id);
    if (message === null || message.getAttribute("role") !== "alert") return null;
    const row = field.closest(".option, .labels-file");
    if (row === null || !row.contains(message)) return "outside the field's row";
    const shown = message.getBoundingClientRect();
    const anchor = (field.closest(".labels-file") ?? field).getBoundingClientRect();
    if (shown.height === 0 || shown.top < anchor.top || shown.top > anchor.bottom + 40) {
      return `not beside the field (${shown.top} vs ${anchor.top}-${anchor.bottom})`;
    }
    return message.textContent;
  });
}

/** How far the box `box` starts below the bottom of `above` (px), once both show. */
async function gapBelow(page: Page, box: string, above: string): Promise<number> {
  const a = await page.locator(above).boundingBox();
  const b = await page.locator(box).boundingBox();
  if (a === null || b === null) throw new Error(`${above} or ${box} is not shown`);
  return b.y - (a.y + a.height);
}

/** The text of the data menu's chosen entry. */
async function dataMenuText(page: Page): Promise<string> {
  return page
    .locator("#sample")
    .evaluate((s: HTMLSelectElement) => s.options[s.selectedIndex]?.text ?? "");
}

/**
 * Menus narrower than their longest choice and fields whose text overflows, measured
 * with every fold open (and the folds left as they were): each is cut off on screen. A menu's own width is measured on a
 * copy left to size itself (a select's scrollWidth does not grow with its text).
 */
async function clippedControls(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const folds = Array.from(document.querySelectorAll("details"));
    const wasOpen = folds.map((d) => d.open);
    for (const d of folds) d.open = true;
    const out: string[] = [];
    for (const s of Array.from(document.querySelectorAll("select"))) {
      if (s.offsetParent === null) continue;
      const copy = s.cloneNode(true) as HTMLSelectElement;
      copy.removeAttribute("id");
      copy.style.cssText = "position:absolute;width:auto;min-width:0;max-width:none";
      s.parentElement?.append(copy);
      const needs = copy.offsetWidth;
      copy.remove();
      if (s.offsetWidth < needs) out.push(`menu ${s.id || s.name}: ${s.offsetWidth} < ${needs} px`);
    }
    for (const i of Array.from(document.querySelectorAll("input"))) {
      if (i.offsetParent === null || i.type === "checkbox" || i.type === "file") continue;
      if (i.scrollWidth > i.clientWidth) {
        out.push(`field ${i.id || i.name}: ${i.scrollWidth} > ${i.clientWidth} px`);
      }
    }
    folds.forEach((d, k) => {
      d.open = wasOpen[k];
    });
    return out;
  });
}

/** Everything the results panel shows of a fit, the charts as their pixels. */
async function resultsView(page: Page): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const text = (id: string) => document.getElementById(id)?.textContent ?? "";
    const pixels = (id: string) => (document.getElementById(id) as HTMLCanvasElement).toDataURL();
    return {
      testBCA: text("test-bca"),
      details: text("fit-details"),
      legend: text("legend"),
      firstRows: text("first-rows"),
      scatter: pixels("scatter"),
      objective: pixels("objective"),
      lambda: pixels("lambda"),
    };
  });
}

/** Chooses a data file and waits until the page describes that file. */
async function loadFile(page: Page, path: string): Promise<void> {
  await page.setInputFiles("#file", path);
  await page.waitForFunction(
    (name) => {
      const info = document.querySelector("#data-info") as HTMLElement;
      return !info.hidden && (info.textContent ?? "").includes(`— ${name} (`);
    },
    basename(path),
    { timeout: 120_000 },
  );
}

async function setOption(page: Page, name: string, value: string): Promise<void> {
  const field = page.locator(`[data-option="${name}"]`);
  // Expert options sit in a folded <details>: open it first.
  if (!(await field.isVisible())) await page.click("#method-form details.expert summary");
  await field.fill(value);
}

/** Waits for a fit to end; returns the test BCA the page shows (exact, from data-value). */
async function fitAndWait(page: Page, previousFits: number): Promise<number> {
  await page.click("#fit");
  await page.waitForFunction(
    (n) => document.querySelectorAll("#history tbody tr").length > n,
    previousFits,
    { timeout: 240_000 },
  );
  return Number(await page.getAttribute("#test-bca", "data-value"));
}

/** The rows the page lists under "First rows of the test embedding": sample index and values. */
async function firstRows(page: Page): Promise<{ index: number; values: number[] }[]> {
  const text = (await page.textContent("#first-rows")) ?? "";
  return text
    .trim()
    .split("\n")
    .map((line) => {
      const [index, rest] = line.split(":");
      return { index: Number(index), values: rest.trim().split(/\s+/).map(Number) };
    });
}

async function progressIteration(page: Page): Promise<number> {
  const text = (await page.textContent("#progress-text")) ?? "";
  const m = /iteration (\d+)/.exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * Fits briefly (three iterations), then starts a long fit (SDSPCAAN on YaleB's
 * training split, tol tiny) and cancels it: the results panel must still be the
 * brief fit's, traces included.
 */
async function cancelLongFit(page: Page, shot: string): Promise<void> {
  await loadFile(page, dataFile("YaleB_32x32.mat"));
  await page.selectOption("#method", "sdspcaan");
  await setOption(page, "k", "38");
  await setOption(page, "maxIter", "3");
  expect(await fitAndWait(page, 0)).toBeGreaterThan(0);
  const fitsBefore = 1;
  const before = await resultsView(page);
  await setOption(page, "k", "60");
  await setOption(page, "tol", "1e-300");
  await setOption(page, "maxIter", "500");
  await page.click("#fit");
  await page.waitForFunction(
    () =>
      /iteration ([2-9]|\d\d)/.test(document.querySelector("#progress-text")?.textContent ?? ""),
    null,
    { timeout: 240_000 },
  );
  // The page answers while the worker fits: the progress keeps moving under our eyes.
  const a = await progressIteration(page);
  await page.waitForFunction(
    (seen) => {
      const m = /iteration (\d+)/.exec(document.querySelector("#progress-text")?.textContent ?? "");
      return m !== null && Number(m[1]) > seen;
    },
    a,
    { timeout: 120_000 },
  );
  expect(await page.isEnabled("#cancel")).toBe(true);
  await page.click("#cancel");
  await page.waitForFunction(
    () => document.querySelector("#progress-text")?.textContent === "cancelled",
    null,
    { timeout: 60_000 },
  );
  await page.waitForSelector("#fit:enabled");
  expect(await page.locator("#history tbody tr").count()).toBe(fitsBefore);
  // One fit's view throughout: the traces drawn live during the cancelled fit are gone.
  expect(await resultsView(page)).toEqual(before);
  // The message sits beside the Cancel button, not at the foot of the panel.
  expect(await errorText(page, "#fit-error")).toBe("The fit was cancelled.");
  expect(await gapBelow(page, "#fit-error", "#cancel")).toBeLessThan(30);
  expect(await page.isEnabled("#fit")).toBe(true);
  expect(await page.isDisabled("#cancel")).toBe(true);
  await page.screenshot({ path: join(ARTIFACTS, shot), fullPage: true });
  // The page still works after the cancel: a closed-form fit on the same data set.
  await page.selectOption("#method", "pca");
  await setOption(page, "k", "5");
  const bca = await fitAndWait(page, fitsBefore);
  expect(bca).toBeGreaterThan(0);
  expect(await page.isHidden("#fit-error")).toBe(true);
}

describe.runIf(runs)("the playground in Chromium", () => {
  let out: string;
  let server: PlaygroundServer;
  let plain: PlaygroundServer;
  let browser: Browser;
  const problems: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    out = mkdtempSync(join(tmpdir(), "sdspcaan-playground-"));
    await buildPlayground(out, dataDir());
    await buildLibWorkerPage(join(out, "lib-worker"));
    server = await startPlaygroundServer({ root: out, dataDir: dataDir() });
    plain = await startPlaygroundServer({ root: out, dataDir: dataDir(), isolated: false });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await plain?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it("fits SDSPCAAN on an uploaded file and shows Node's test BCA and embedding", async () => {
    const page = await browser.context.newPage();
    watchConsole(page, problems);
    await page.goto(server.url);
    expect(
      await page.evaluate(
        () => (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated,
      ),
    ).toBe(true);
    await loadFile(page, dataFile("Yale_32x32.mat"));
    expect(await page.textContent("#data-shape")).toBe("165 samples × 1024 features");
    expect(await page.locator("#class-counts span").count()).toBe(15);
    expect(await page.textContent("#class-counts span >> nth=0")).toBe("1: 11");

    await page.fill("#seed", "3");
    await page.fill("#repeat", "1");
    // PCA first, so that the comparison table has two rows.
    await page.selectOption("#method", "pca");
    await setOption(page, "k", "20");
    await fitAndWait(page, 0);
    await page.selectOption("#method", "sdspcaan");
    await setOption(page, "k", "20");
    const testBCA = await fitAndWait(page, 1);

    // The same evaluation in Node: what `sdspcaan evaluate --data Yale --seed 3 --repeat 1` does.
    const ds = await loadDataset(dataFile("Yale_32x32.mat"));
    const split = makeSplit(ds.X.rows, { seed: 3, dataset: "Yale", repeat: 1 });
    const prepared = prepareSplit({ name: "Yale", X: ds.X, y: ds.y }, split, "train-zscore");
    const model = createMethod("sdspcaan", { k: 20 }).fitPrepared(prepared.data);
    expect(testBCA).toBe(evaluateModel(model, prepared).testBCA);
    const Z = model.transform(prepared.parts.test);
    const rows = await firstRows(page);
    expect(rows.length).toBe(5);
    rows.forEach((row, i) => {
      expect(row.index).toBe(split.test[i]);
      const node = Array.from(Z.data.subarray(i * Z.cols, (i + 1) * Z.cols));
      expect(row.values.length).toBe(node.length);
      // Same code and kernels on both sides; allow rounding-level differences only.
      row.values.forEach((v, j) => {
        expect(Math.abs(v - node[j])).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(node[j])));
      });
    });

    // The fit's warnings (Yale's classes are smaller than m + 1, and lambda ends at its
    // cap) show under the result as Node's, and its row in the table is marked.
    const warnings = page.locator("#fit-details .warning");
    expect(model.fitInfo.warnings.length).toBeGreaterThan(0);
    expect(
      await warnings.evaluateAll((els) =>
        els.map((e) => [(e as HTMLElement).dataset.code, e.textContent]),
      ),
    ).toEqual(model.fitInfo.warnings.map((w) => [w.code, `warning: ${w.message}`]));
    expect(await warnings.first().isVisible()).toBe(true);
    expect(await page.textContent("#history tbody tr >> nth=1 >> td >> nth=7")).toMatch(/ ⚠$/);
    expect(await page.textContent("#history tbody tr >> nth=0 >> td >> nth=7")).not.toMatch(/⚠/);

    // The traces were drawn, and the table compares the two fits.
    expect(await page.textContent("#history tbody tr >> nth=0 >> td >> nth=2")).toBe("PCA");
    expect(await page.textContent("#history tbody tr >> nth=1 >> td >> nth=2")).toBe("SDSPCAAN");
    await page.screenshot({ path: join(ARTIFACTS, "fit.png"), fullPage: true });

    // A k the training part cannot give: the library's message beside the k field, and
    // the panel stays the last fit's (traces too) rather than half emptied.
    const view = await resultsView(page);
    const tooLarge = (() => {
      try {
        createMethod("sdspcaan", { k: 5000 }).fitPrepared(prepared.data);
        return "no error";
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(tooLarge).toMatch(/^The 'k' parameter of SDSPCAAN must be an integer in \[1, 33\]/);
    await setOption(page, "k", "5000");
    await page.click("#fit");
    await page.waitForSelector("#fit:enabled");
    expect(await resultsView(page)).toEqual(view);
    expect(await fieldMessage(page, '[data-option="k"]')).toBe(tooLarge);
    expect(await page.isHidden("#fit-error")).toBe(true);
    expect(await page.locator("#history tbody tr").count()).toBe(2);
    // The page's own check of the split fields, beside the field too.
    await page.fill("#seed", "-1");
    await page.click("#fit");
    expect(await fieldMessage(page, "#seed")).toBe(
      'The seed must be an integer in [0, inf). Got "-1".',
    );
    await page.screenshot({ path: join(ARTIFACTS, "field-errors.png"), fullPage: true });
    // Editing a field takes its message away.
    await page.fill("#seed", "3");
    expect(await fieldMessage(page, "#seed")).toBeNull();
    await setOption(page, "k", "20");
    expect(await fieldMessage(page, '[data-option="k"]')).toBeNull();

    // Hovering a point names its sample (an index of the test part) and its class.
    const box = await page.locator("#scatter").boundingBox();
    if (box === null) throw new Error("no scatter plot");
    let tip = "";
    for (let gy = 0.1; gy < 0.95 && tip === ""; gy += 0.02) {
      for (let gx = 0.1; gx < 0.95 && tip === ""; gx += 0.02) {
        await page.mouse.move(box.x + gx * box.width, box.y + gy * box.height);
        if (await page.isVisible("#tooltip")) tip = (await page.textContent("#tooltip")) ?? "";
      }
    }
    const hovered = /^sample (\d+) · class (\d+)$/.exec(tip);
    expect(hovered, tip).not.toBeNull();
    const sample = Number(hovered?.[1]);
    expect(Array.from(split.test)).toContain(sample);
    expect(String(ds.y[sample])).toBe(hovered?.[2]);
    // Zooming with the wheel and a double-click back keep the page error-free.
    await page.mouse.wheel(0, -400);
    await page.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);

    // Download the model and load it in Node: it embeds raw data as the Node fit does.
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
    expect(download.suggestedFilename()).toBe("Yale-sdspcaan-k20.json");
    const saved = join(out, download.suggestedFilename());
    await download.saveAs(saved);
    const loaded = loadModel(readFileSync(saved, "utf8"));
    expect(loaded.method).toBe("sdspcaan");
    expect(loaded.preprocessing?.method).toBe("train-zscore");
    const fromSaved = loaded.transform(ds.X.selectRows(split.test.subarray(0, 3)));
    for (let t = 0; t < fromSaved.data.length; t++) {
      expect(Math.abs(fromSaved.data[t] - Z.data[t])).toBeLessThanOrEqual(
        1e-8 * (1 + Math.abs(Z.data[t])),
      );
    }

    // Load that model JSON on the page and embed a new file with it.
    await page.setInputFiles("#model-file", saved);
    await page.waitForSelector("#model-info:not([hidden])");
    expect(await page.textContent("#model-info")).toContain(
      "SDSPCAAN, 1024 features → 20 components, applies train-zscore",
    );
    await page.setInputFiles("#embed-file", dataFile("Yale_32x32.mat"));
    await page.waitForSelector("#embed-wrap:not([hidden])");
    expect(await page.textContent("#model-info")).toContain(
      "Embedded Yale_32x32.mat: 165 samples → 20 components",
    );
    await page.screenshot({ path: join(ARTIFACTS, "model.png"), fullPage: true });

    // At phone width the page does not scroll sideways: the fits table scrolls in its box.
    await page.setViewportSize({ width: 375, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      375,
    );
    expect(await clippedControls(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, "phone.png"), fullPage: true });
    await page.close();
  });

  it("reads MAT v7.3 (h5wasm), CSV and a separate labels file in the browser as Node does", async () => {
    const page = await browser.context.newPage();
    watchConsole(page, problems);
    await page.goto(server.url);
    // Every registered method, each with the options its descriptor declares.
    const methods = await page
      .locator("#method option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(methods).toEqual(methodNames());
    for (const name of ["sdspcaan", "pca", "jpcda"]) {
      await page.selectOption("#method", name);
      const fields = await page
        .locator("#method-form [data-option]")
        .evaluateAll((es) => es.map((e) => (e as HTMLElement).dataset.option));
      const options = methodDescriptor(name).options;
      // The usual options first, then the expert ones in their fold, each in declaration order.
      const names = Object.keys(options);
      expect(fields).toEqual([
        ...names.filter((o) => options[o].expert !== true),
        ...names.filter((o) => options[o].expert === true),
      ]);
      const expert = await page
        .locator("#method-form details.expert [data-option]")
        .evaluateAll((es) => es.map((e) => (e as HTMLElement).dataset.option));
      expect(expert).toEqual(Object.keys(options).filter((o) => options[o].expert === true));
    }
    // No menu or field of any method's form cuts off its text (data menu and preprocess too).
    await page.waitForSelector('#sample option[value="ORL"]', { state: "attached" });
    for (const name of methodNames()) {
      await page.selectOption("#method", name);
      expect(await clippedControls(page), name).toEqual([]);
    }

    // A data set of the paper from the list (Yale and ORL ship with the page).
    await page.selectOption("#sample", "ORL");
    await expect.poll(() => page.textContent("#data-shape")).toBe("400 samples × 1024 features");
    expect(await dataMenuText(page)).toMatch(/^ORL \(ORL_32x32\.mat/);

    // A file dropped on the page.
    const bytes = Array.from(readFileSync(dataFile("Yale_32x32.mat")));
    const transfer = await page.evaluateHandle((data) => {
      const dt = new DataTransfer();
      dt.items.add(new File([new Uint8Array(data)], "Yale_32x32.mat"));
      return dt;
    }, bytes);
    await page.dispatchEvent("#drop", "drop", { dataTransfer: transfer });
    await expect.poll(() => page.textContent("#data-shape")).toBe("165 samples × 1024 features");
    // The data menu names the file now loaded, not the data set chosen in it before.
    expect(await dataMenuText(page)).toBe("Yale_32x32.mat (your file)");

    await loadFile(page, dataFile("Musk1.mat"));
    expect(await page.textContent("#data-shape")).toBe("476 samples × 166 features");
    expect(await dataMenuText(page)).toBe("Musk1.mat (your file)");
    expect(await page.textContent("#class-counts")).toBe("0: 2691: 207");
    const csv = fixtureFile("io/rt_header.csv");
    const node = await loadDataset(csv, { labelColumn: "label" });
    await page.click(".reading summary");
    await page.fill("#label-col", "label");
    await loadFile(page, csv);
    expect(await page.textContent("#data-shape")).toBe(
      `${node.X.rows} samples × ${node.X.cols} features`,
    );
    expect(await dataMenuText(page)).toBe("rt_header.csv (your file)");
    const counts = new Map<string, number>();
    for (const l of node.y) counts.set(String(l), (counts.get(String(l)) ?? 0) + 1);
    expect(counts.size).toBeGreaterThan(1);
    expect(await page.textContent("#class-counts")).toBe(
      [...counts.keys()]
        .sort()
        .map((c) => `${c}: ${counts.get(c)}`)
        .join(""),
    );

    // Features and labels in two files (the library's labelsFile), as IDX data comes.
    const dir = mkdtempSync(join(tmpdir(), "sdspcaan-labels-"));
    try {
      const features = join(dir, "features.csv");
      const labels = join(dir, "labels.txt");
      writeFileSync(features, "1,2,3\n4,5,6\n7,8,9\n1,1,1\n2,2,2\n3,3,4\n");
      writeFileSync(labels, "cat\ncat\ndog\ndog\nemu\nemu\n");
      const both = await loadDataset(features, { labelsFile: labels });
      await page.fill("#label-col", "");
      await page.setInputFiles("#labels-file", labels);
      await expect.poll(() => page.textContent("#labels-name")).toBe("labels.txt");
      await page.setInputFiles("#file", features);
      await expect
        .poll(() => page.textContent("#data-shape"))
        .toBe(`${both.X.rows} samples × ${both.X.cols} features`);
      expect(await page.textContent("#class-counts")).toBe("cat: 2dog: 2emu: 2");
      // Fewer labels than samples: the library's message, naming the labels file.
      const short = join(dir, "short.txt");
      writeFileSync(short, "cat\ndog\n");
      const expected = await loadDataset(features, { labelsFile: short }).then(
        () => "no error",
        (err: Error) => err.message.replace(short, "short.txt").replace(features, "features.csv"),
      );
      expect(expected).toMatch(/^short\.txt: holds 2 labels but features\.csv has 6 samples/);
      await page.setInputFiles("#labels-file", short);
      // Beside the labels file's row, which the message is about.
      await expect.poll(() => fieldMessage(page, "#labels-file")).toBe(expected);
      expect(await page.isHidden("#data-error")).toBe(true);
      await page.click("#labels-clear");
      expect(await fieldMessage(page, "#labels-file")).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await page.close();
  });

  it("shows the Node reader's message for bad files", async () => {
    const page = await browser.context.newPage();
    watchConsole(page, problems);
    await page.goto(server.url);
    const dir = mkdtempSync(join(tmpdir(), "sdspcaan-bad-"));
    try {
      const yale = readFileSync(dataFile("Yale_32x32.mat"));
      // The compressed variables of Yale, one with its zlib stream cut short (the element
      // says so too, so the reader gets as far as inflating it), one with garbage inside.
      const dv = new DataView(yale.buffer, yale.byteOffset, yale.byteLength);
      const first = dv.getUint32(132, true);
      const cut = new Uint8Array(yale.subarray(0, 136 + Math.floor(first / 2)));
      new DataView(cut.buffer).setUint32(132, Math.floor(first / 2), true);
      const garbled = new Uint8Array(yale);
      for (let i = 136 + 200; i < 136 + 400; i++) garbled[i] = (i * 37) & 0xff;
      const cases: [string, Uint8Array][] = [
        ["Yale_truncated.mat", yale.subarray(0, 3000)],
        ["Yale_cut_stream.mat", cut],
        ["Yale_garbled.mat", garbled],
        ["continuous.csv", new TextEncoder().encode("a,b,label\n1,2,0.5\n3,4,1.25\n5,6,2.75\n")],
        ["notes.mat", new TextEncoder().encode("these are my notes, not a MAT-file\n")],
      ];
      for (const [name, bytes] of cases) {
        const path = join(dir, name);
        writeFileSync(path, bytes);
        const expected = await parseDataset(bytes, name).then(
          () => "no error",
          (err: Error) => err.message,
        );
        expect(expected).not.toBe("no error");
        await page.setInputFiles("#file", path);
        await expect
          .poll(() => page.textContent("#data-error"), { timeout: 60_000 })
          .toBe(expected);
        expect(await page.isVisible("#data-error")).toBe(true);
        // In the data step, right under the data menu, not at the foot of the panel.
        expect(await gapBelow(page, "#data-error", "#sample")).toBeLessThan(30);
        expect(await page.isHidden("#data-info")).toBe(true);
        expect(await page.isDisabled("#fit")).toBe(true);
        // Nothing is loaded, and the data menu says so rather than naming an earlier file.
        expect(await dataMenuText(page)).toBe("— none loaded —");
        if (name === "Yale_truncated.mat") {
          await page.screenshot({ path: join(ARTIFACTS, "bad-file.png"), fullPage: true });
        }
      }
      // A model file with a field out of range: the message of `sdspcaan transform --model`.
      const good = createMethod("pca", { k: 2 })
        .fit(
          [
            [0, 1, 2],
            [1, 0, 3],
            [4, 1, 0],
            [2, 2, 2],
          ],
          [0, 0, 1, 1],
        )
        .toJSON();
      const broken = join(dir, "broken-model.json");
      writeFileSync(broken, JSON.stringify({ ...good, params: { ...good.params, k: 0 } }));
      const cli = (() => {
        try {
          readModelFile(broken);
          return "no error";
        } catch (err) {
          return (err as Error).message.replace(broken, "broken-model.json");
        }
      })();
      expect(cli).toMatch(/^broken-model\.json: not a valid sdspcaan model: field 'params\.k'/);
      await page.setInputFiles("#model-file", broken);
      await expect.poll(() => page.textContent("#model-error"), { timeout: 60_000 }).toBe(cli);
      // In the model step, under its buttons.
      expect(await gapBelow(page, "#model-error", "#model-file >> xpath=..")).toBeLessThan(30);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await page.close();
  });

  it("Cancel stops a long fit through shared memory (isolated page)", async () => {
    const page = await browser.context.newPage();
    watchConsole(page, problems);
    await page.goto(server.url);
    expect(
      await page.evaluate(
        () => (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated,
      ),
    ).toBe(true);
    await cancelLongFit(page, "cancel.png");
    await page.close();
  });

  it("Cancel stops a long fit by ending the worker (page on a plain static host)", async () => {
    const page = await browser.context.newPage();
    watchConsole(page, problems);
    await page.goto(plain.url);
    expect(
      await page.evaluate(
        () => (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated,
      ),
    ).toBe(false);
    await cancelLongFit(page, "cancel-plain.png");
    await page.close();
  });

  it("predicts the loaded data set with a pipeline saved in Node, with Node's balanced accuracy", async () => {
    const ds = await loadDataset(dataFile("Yale_32x32.mat"));
    const split = makeSplit(ds.X.rows, { seed: 0, dataset: "Yale", repeat: 0 });
    const yTrain = Array.from(split.train, (i) => ds.y[i]);
    const pipeline = new Pipeline(createMethod("sdspcaan", { k: 14 })).fit(
      ds.X.selectRows(split.train),
      yTrain,
    );
    const bca = pipeline.score(ds.X, ds.y);
    expect(bca).toBeGreaterThan(0.3);
    const full = join(out, "yale-pipeline.json");
    const small = join(out, "yale-pipeline-small.json");
    writeFileSync(full, JSON.stringify(pipeline.toJSON()));
    writeFileSync(small, JSON.stringify(pipeline.toJSON({ referenceSet: "none" })));

    const page = await browser.context.newPage();
    watchConsole(page, problems);
    await page.goto(server.url);
    await loadFile(page, dataFile("Yale_32x32.mat"));
    expect(await page.isDisabled("#predict")).toBe(true);
    await page.setInputFiles("#model-file", full);
    await page.waitForSelector("#model-info:not([hidden])");
    expect(await page.textContent("#model-info")).toContain(
      "yale-pipeline.json: pipeline (predicts): SDSPCAAN, 1024 features → 14 components",
    );
    await page.click("#predict");
    await page.waitForSelector("#predict-bca", { timeout: 60_000 });
    expect(Number(await page.getAttribute("#predict-bca", "data-value"))).toBe(bca);
    expect(await page.textContent("#predict-result")).toContain(
      "yale-pipeline.json predicted the labels of Yale_32x32.mat (165 samples)",
    );
    await page.screenshot({ path: join(ARTIFACTS, "predict.png"), fullPage: true });

    // Saved without the reference set: it loads and embeds, and predicting says why it cannot.
    await page.setInputFiles("#model-file", small);
    await expect
      .poll(() => page.textContent("#model-info"))
      .toContain("yale-pipeline-small.json: pipeline saved without its classifier's reference set");
    expect(await page.isHidden("#predict-result")).toBe(true);
    await page.click("#predict");
    expect(await errorText(page, "#model-error")).toBe(
      "yale-pipeline-small.json: is a pipeline saved without its classifier's reference set, which can embed but not predict; save it with the reference set (the default of 'sdspcaan fit --pipeline' and Pipeline.toJSON())",
    );
    await page.close();
  });

  it("fits through sdspcaan/worker on a page as Node does, and cancels a fit", async () => {
    const ds = await loadDataset(dataFile("Yale_32x32.mat"));
    const data = {
      X: Array.from({ length: ds.X.rows }, (_, i) =>
        Array.from(ds.X.data.subarray(i * ds.X.cols, (i + 1) * ds.X.cols)),
      ),
      y: Array.from(ds.y, Number),
    };
    const options = { k: 10, maxIter: 6 };
    let reportsHere = 0;
    const local = createMethod("sdspcaan", options).fit(ds.X, ds.y, {
      onProgress: () => reportsHere++,
    });
    const Zlocal = local.transform(ds.X);
    const zero = (() => {
      try {
        createMethod("sdspcaan", { k: 0 }).fit(ds.X, ds.y);
        return "no error";
      } catch (err) {
        return (err as Error).message;
      }
    })();
    for (const [url, isolated] of [
      [server.url, true],
      [plain.url, false],
    ] as const) {
      const page = await browser.context.newPage();
      watchConsole(page, problems);
      await page.goto(`${url}lib-worker/`);
      expect(
        await page.evaluate(
          () => (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated,
        ),
      ).toBe(isolated);
      await page.waitForFunction(() => "libWorkerPage" in globalThis);
      const api = "libWorkerPage";
      const fitted = await page.evaluate(
        ([name, d, o]) => (globalThis as unknown as Record<string, LibWorkerPage>)[name].fit(d, o),
        [api, data, options] as const,
      );
      expect(fitted.reports).toBe(reportsHere);
      // The page's timers kept running while the worker fitted.
      expect(fitted.ticks).toBeGreaterThan(0);
      const Z = loadModel(fitted.model).transform(ds.X);
      expect(Z.cols).toBe(10);
      Z.data.forEach((v, t) => {
        expect(Math.abs(v - Zlocal.data[t])).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(v)));
      });
      const bad = await page.evaluate(
        ([name, d]) =>
          (globalThis as unknown as Record<string, LibWorkerPage>)[name].badOption(d, { k: 0 }),
        [api, data] as const,
      );
      expect(bad).toEqual({ isValidationError: true, argument: "k", message: zero });
      const cancelled = await page.evaluate(
        ([name, d]) =>
          (globalThis as unknown as Record<string, LibWorkerPage>)[name].cancel(d, {
            k: 10,
            tol: 1e-300,
            maxIter: 500,
          }),
        [api, data] as const,
      );
      expect(cancelled.name).toBe("AbortError");
      expect(cancelled.isAbortError).toBe(true);
      expect(cancelled.reports).toBeLessThan(50);
      if (isolated) {
        // Cancelled through shared memory: the same worker fits again.
        const again = await page.evaluate(
          ([name, d, o]) =>
            (globalThis as unknown as Record<string, LibWorkerPage>)[name].fit(d, o),
          [api, data, options] as const,
        );
        expect(again.reports).toBe(reportsHere);
      } else {
        // Cancelled by ending the worker: a later fit on it is refused at once, not left waiting.
        const refused = await page.evaluate(
          ([name, d, o]) =>
            (globalThis as unknown as Record<string, LibWorkerPage>)[name].tryFit(d, o),
          [api, data, options] as const,
        );
        expect(refused).toEqual({
          outcome: "refused",
          name: "SdspcaanError",
          message:
            "The worker was terminated to cancel a fit (without shared memory a busy worker cannot be told to stop), so it runs no more requests: start a new Worker, or cancel through shared memory (a cross-origin isolated page, or Node) to keep it.",
        });
      }
      await page.close();
    }
  });

  it("left no error in the console", () => {
    expect(problems).toEqual([]);
  });
});
