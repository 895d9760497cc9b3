/**
 * The playground page: wires the DOM to the worker (worker.ts). The page keeps the
 * bytes of the current data file and model, so that when Cancel has to end the
 * worker (where the page is not cross-origin isolated and shared memory is not
 * available), a new worker gets them back without the user noticing.
 */

import type { FitProgress } from "sdspcaan";
import { findByName } from "sdspcaan/formats";
import { methodDescriptor, methodDescriptors } from "sdspcaan/methods";
import { plural } from "../plural.js";
import { $ } from "./dom.js";
import { clearErrors, controlOf, FieldError, showError } from "./fieldErrors.js";
import { buildMethodForm, type MethodForm } from "./form.js";
import { ScatterPlot, TracePlot } from "./plot.js";
import type {
  DatasetSummary,
  EmbedResult,
  FitResult,
  ManifestEntry,
  ModelSummary,
  PredictResult,
  ReadOptions,
  Request,
} from "./protocol.js";
import { WorkerClient } from "./workerClient.js";

const client = new WorkerClient();

const scatter = new ScatterPlot($("scatter"), $("tooltip"), $("legend"));

const embedScatter = new ScatterPlot($("embed-scatter"), $("embed-tooltip"), $("embed-legend"));

const objectivePlot = new TracePlot($("objective"), "objective per iteration", "#2f6fb0");

const lambdaPlot = new TracePlot($("lambda"), "lambda per iteration", "#e15759");

let manifest: ManifestEntry[] = [];

/** A labels file chosen under "Reading options", applied to the data file loaded with it. */
type LabelsFile = { file: string; bytes: ArrayBuffer };

let labelsFile: LabelsFile | null = null;

/**
 * The data file chosen last, loaded or not: a new labels file read again with it,
 * so that one that did not fit can be replaced without choosing the data again.
 */
let chosen: { file: string; bytes: ArrayBuffer; source: string | null } | null = null;

/** The current data file, kept to reload it into a new worker after a cancel. */
let current: {
  file: string;
  name: string;
  /** The data set of the paper it was chosen as in the menu, or null for a file of the user's. */
  source: string | null;
  bytes: ArrayBuffer;
  options: ReadOptions;
  labels: LabelsFile | null;
} | null = null;

let summary: DatasetSummary | null = null;

let currentModelText: { file: string; text: string } | null = null;

let form: MethodForm | null = null;

let fitting = false;

let lastModelJson: { name: string; text: string } | null = null;

let lastEmbeddingCsv: { name: string; text: string } | null = null;

const history: FitResult[] = [];

/**
 * The fit the results panel shows. A fit that is cancelled or fails leaves the whole
 * panel on this one (its BCA, details, scatter, traces and rows), so that everything
 * there is one fit's; only the progress line and the message beside Cancel speak of
 * the fit that did not finish.
 */
let shownFit: FitResult | null = null;

function percent(v: number): string {
  return `${(100 * v).toFixed(2)} %`;
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** The registry entry of a file name (its file, name or an alias), as `openDataset` finds it. */
function entryOf(file: string): ManifestEntry | null {
  return findByName(manifest, file);
}

function readOptions(entry: ManifestEntry | null): ReadOptions {
  const xVar = $<HTMLInputElement>("x-var").value.trim();
  const yVar = $<HTMLInputElement>("y-var").value.trim();
  const labelColumn = $<HTMLInputElement>("label-col").value.trim();
  if (xVar || yVar || labelColumn) {
    return {
      ...(xVar ? { xVar } : {}),
      ...(yVar ? { yVar } : {}),
      ...(labelColumn ? { labelColumn } : {}),
    };
  }
  // A registry file gets the variables the registry declares, as in the CLI.
  if (entry === null) return {};
  return {
    ...(entry.xVar !== null ? { xVar: entry.xVar } : {}),
    ...(entry.yVar !== null ? { yVar: entry.yVar } : {}),
    ...(entry.yVar === null && entry.labelColumn !== null
      ? { labelColumn: String(entry.labelColumn) }
      : {}),
  };
}

function renderSummary(s: DatasetSummary): void {
  const box = $("data-info");
  const vars = s.xVar !== null ? ` · X = ${s.xVar}${s.yVar !== null ? `, y = ${s.yVar}` : ""}` : "";
  const head = document.createElement("div");
  const shape = document.createElement("span");
  shape.className = "shape";
  shape.id = "data-shape";
  shape.textContent = `${s.rows} samples × ${s.cols} features`;
  head.append(
    shape,
    document.createTextNode(
      ` · ${s.classes.length} classes — ${s.file} (${s.format}${s.transposed ? ", transposed" : ""})${vars}; split seeded as “${s.name}”`,
    ),
  );
  const counts = document.createElement("div");
  counts.className = "counts";
  counts.id = "class-counts";
  for (const c of s.classes) {
    const chip = document.createElement("span");
    chip.textContent = `${c.label}: ${c.count}`;
    counts.append(chip);
  }
  box.replaceChildren(head, counts);
  box.hidden = false;
}

/**
 * The data menu names what is loaded: the data set of the paper chosen in it, the
 * user's own file (an option of its own), or nothing.
 */
function syncDataMenu(): void {
  const sample = $<HTMLSelectElement>("sample");
  const own = $<HTMLOptionElement>("sample-file");
  const ownFile = current !== null && current.source === null;
  own.hidden = !ownFile;
  own.disabled = !ownFile;
  own.textContent = ownFile ? `${current?.file} (your file)` : "";
  sample.value = current === null ? "" : (current.source ?? own.value);
}

async function loadData(file: string, bytes: ArrayBuffer, source: string | null): Promise<void> {
  clearErrors("data");
  chosen = { file, bytes, source };
  const entry = entryOf(file);
  const name = entry?.name ?? file.replace(/\.[^.]+$/, "");
  const options = readOptions(entry);
  $("data-info").hidden = true;
  $<HTMLButtonElement>("fit").disabled = true;
  summary = null;
  clearPrediction();
  try {
    // The worker gets copies: the page keeps the originals for a restart.
    const copy = bytes.slice(0);
    const labels = labelsFile ? { file: labelsFile.file, bytes: labelsFile.bytes.slice(0) } : null;
    const loaded = await client.request(
      { type: "load", file, name, bytes: copy, options, labels },
      { transfer: labels ? [copy, labels.bytes] : [copy] },
    );
    current = { file, name, source, bytes, options, labels: labelsFile };
    summary = loaded;
    renderSummary(loaded);
    $<HTMLButtonElement>("fit").disabled = fitting;
  } catch (err) {
    current = null;
    showError("data", err, controlOf("data", err, labelsFile?.file ?? null));
  }
  syncDataMenu();
}

async function loadFile(f: File): Promise<void> {
  await loadData(f.name, await f.arrayBuffer(), null);
}

function setupData(): void {
  const drop = $("drop");
  const input = $<HTMLInputElement>("file");
  input.addEventListener("change", () => {
    const f = input.files?.[0];
    if (f) void loadFile(f);
    input.value = "";
  });
  drop.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = e.dataTransfer?.files?.[0];
    if (f) void loadFile(f);
  });
  const labelsInput = $<HTMLInputElement>("labels-file");
  labelsInput.addEventListener("change", async () => {
    const f = labelsInput.files?.[0];
    labelsInput.value = "";
    if (!f) return;
    labelsFile = { file: f.name, bytes: await f.arrayBuffer() };
    $("labels-name").textContent = f.name;
    $("labels-clear").hidden = false;
    if (chosen) await loadData(chosen.file, chosen.bytes, chosen.source);
  });
  $("labels-clear").addEventListener("click", async () => {
    labelsFile = null;
    $("labels-name").textContent = "none (the labels are in the data file)";
    $("labels-clear").hidden = true;
    if (chosen) await loadData(chosen.file, chosen.bytes, chosen.source);
  });
  const sample = $<HTMLSelectElement>("sample");
  sample.addEventListener("change", async () => {
    const entry = manifest.find((d) => d.name === sample.value);
    if (!entry?.url) {
      syncDataMenu();
      return;
    }
    clearErrors("data");
    try {
      const res = await fetch(entry.url);
      if (!res.ok) throw new Error(`Could not fetch ${entry.file}: HTTP ${res.status}.`);
      await loadData(entry.file, await res.arrayBuffer(), entry.name);
    } catch (err) {
      showError("data", err);
      syncDataMenu();
    }
  });
}

async function loadManifest(): Promise<void> {
  try {
    const res = await fetch("datasets.json");
    if (!res.ok) return;
    manifest = (await res.json()) as ManifestEntry[];
  } catch {
    // A page served without the manifest simply offers no data sets of the paper.
    manifest = [];
  }
  const sample = $<HTMLSelectElement>("sample");
  const paper = $("sample-paper");
  for (const d of manifest.filter((m) => m.url !== null)) {
    const o = document.createElement("option");
    o.value = d.name;
    o.textContent = `${d.name} (${d.file}${d.bytes ? `, ${(d.bytes / 1024).toFixed(0)} KiB` : ""})`;
    paper.append(o);
  }
  paper.hidden = paper.childElementCount === 0;
  sample.disabled = paper.childElementCount === 0;
  syncDataMenu();
}

function setupMethods(): void {
  const select = $<HTMLSelectElement>("method");
  for (const d of methodDescriptors()) {
    const o = document.createElement("option");
    o.value = d.name;
    o.textContent = d.displayName;
    select.append(o);
  }
  select.value = "sdspcaan";
  const render = () => {
    form = buildMethodForm($("method-form"), methodDescriptor(select.value));
  };
  select.addEventListener("change", render);
  render();
}

function integerField(id: string, name: string): number {
  const input = $<HTMLInputElement>(id);
  const t = input.value.trim();
  const v = Number(t);
  if (t === "" || !Number.isInteger(v) || v < 0) {
    throw new FieldError(
      input,
      `The ${name} must be an integer in [0, inf). Got ${JSON.stringify(t)}.`,
    );
  }
  return v;
}

function showProgress(p: FitProgress, t0: number): void {
  const bar = $("progress-bar");
  bar.style.width = `${Math.min(100, (100 * p.iteration) / Math.max(1, p.maxIterations))}%`;
  const parts = [`iteration ${p.iteration} / ${p.maxIterations}`];
  if (p.objective !== null) parts.push(`objective ${p.objective.toPrecision(6)}`);
  if (p.lambda !== null) parts.push(`lambda ${p.lambda.toPrecision(4)}`);
  if (p.change !== null && p.tol !== null) {
    parts.push(`change ${p.change.toPrecision(3)} (stops below ${p.tol})`);
  }
  parts.push(formatMs(performance.now() - t0));
  $("progress-text").textContent = parts.join(" · ");
}

function setFitting(on: boolean): void {
  fitting = on;
  $<HTMLButtonElement>("fit").disabled = on || summary === null;
  $<HTMLButtonElement>("cancel").disabled = !on;
}

/** Aborting it cancels the fit under way. */
let fitController: AbortController | null = null;

async function runFit(): Promise<void> {
  if (current === null || form === null) return;
  clearErrors("fit");
  const method = $<HTMLSelectElement>("method").value;
  let request: Extract<Request, { type: "fit" }>;
  try {
    request = {
      type: "fit",
      method,
      options: form.values(),
      split: {
        seed: integerField("seed", "seed"),
        repeat: integerField("repeat", "repeat"),
        stratify: $<HTMLInputElement>("stratify").checked,
        preprocess: $<HTMLSelectElement>("preprocess").value as
          | "train-zscore"
          | "dataset-zscore"
          | "none",
      },
    };
  } catch (err) {
    showError("fit", err, err instanceof FieldError ? err.control : null);
    return;
  }
  const controller = new AbortController();
  fitController = controller;
  setFitting(true);
  $("progress").hidden = false;
  $("progress-bar").style.width = "0";
  $("progress-text").textContent = "starting…";
  const objective: number[] = [];
  const lambda: number[] = [];
  const running = "fit running";
  objectivePlot.show(objective, "no values yet", running);
  lambdaPlot.show(lambda, "no values yet", running);
  const t0 = performance.now();
  let lastDraw = 0;
  try {
    const result = await client.request(request, {
      signal: controller.signal,
      onProgress: (value) => {
        const p = value as FitProgress;
        if (p.objective !== null) objective.push(p.objective);
        if (p.lambda !== null) lambda.push(p.lambda);
        showProgress(p, t0);
        // Redrawing the traces at every iteration of a fast fit would cost more than the fit.
        const now = performance.now();
        if (now - lastDraw > 100) {
          lastDraw = now;
          objectivePlot.show(objective, "no values yet", running);
          lambdaPlot.show(lambda, "no values yet", running);
        }
      },
    });
    showResult(result);
    $("progress-bar").style.width = "100%";
    $("progress-text").textContent =
      `done: ${iterationsText(result)}, ${formatMs(result.fitInfo.timings.totalMs)}`;
  } catch (err) {
    // Back to the fit the panel shows (see shownFit): the traces drawn live were the cancelled one's.
    showTraces(shownFit);
    const e = err as Error;
    if (e.name === "AbortError") {
      $("progress-text").textContent = "cancelled";
      showError("fit", new Error("The fit was cancelled."));
    } else {
      $("progress").hidden = true;
      showError("fit", err, controlOf("fit", err, labelsFile?.file ?? null));
    }
  } finally {
    fitController = null;
    setFitting(false);
  }
}

async function cancelFit(): Promise<void> {
  if (!fitting || fitController === null) return;
  $("progress-text").textContent = "cancelling…";
  // Where the page shares memory the worker reads the cancel at its next check (every
  // iteration, and inside the iterative eigen-solvers) and stays; elsewhere the
  // channel ends the busy worker, and a new one gets the data and model back.
  fitController.abort();
  if (!client.ended) return;
  client.restart();
  const data = current;
  const model = currentModelText;
  if (data !== null) {
    const copy = data.bytes.slice(0);
    const labels = data.labels
      ? { file: data.labels.file, bytes: data.labels.bytes.slice(0) }
      : null;
    try {
      await client.request(
        {
          type: "load",
          file: data.file,
          name: data.name,
          bytes: copy,
          options: data.options,
          labels,
        },
        { transfer: labels ? [copy, labels.bytes] : [copy] },
      );
    } catch (err) {
      showError("data", err);
    }
  }
  if (model !== null) {
    try {
      await client.request({ type: "loadModel", ...model });
    } catch (err) {
      showError("model", err);
    }
  }
}

function paramsText(r: FitResult): string {
  const d = methodDescriptor(r.method);
  return Object.entries(r.params)
    .filter(([name]) => name !== "k" && !d.options[name]?.expert)
    .map(([name, v]) => `${name}=${v === null ? "auto" : String(v)}`)
    .join(" ");
}

function iterationsText(r: FitResult): string {
  const info = r.fitInfo;
  if (info.stopReason === "closed-form") return "closed form";
  return `${plural(info.iterations, "iteration")}, ${info.converged ? "converged" : `stopped: ${info.stopReason}`}`;
}

function showResult(r: FitResult): void {
  const bca = $("test-bca");
  bca.textContent = percent(r.testBCA);
  bca.dataset.value = String(r.testBCA);
  const info = r.fitInfo;
  const details = $("fit-details");
  const line = document.createElement("div");
  line.textContent = `${r.displayName} on ${r.dataset} · k = ${r.outputDim} · train ${r.sizes.train} / val ${r.sizes.val} / test ${r.sizes.test} · validation BCA ${percent(r.valBCA)} · ${iterationsText(r)} · ${formatMs(info.timings.totalMs)}`;
  const warnings = info.warnings.map((w) => {
    const div = document.createElement("div");
    div.className = "warning";
    div.dataset.code = w.code;
    div.textContent = `warning: ${w.message}`;
    return div;
  });
  details.replaceChildren(line, ...warnings);
  scatter.show(r.embedding, summary?.classes.map((c) => c.label) ?? null);
  shownFit = r;
  showTraces(r);
  $("first-rows").textContent = r.firstTestRows
    .map((row, i) => `${r.embedding.sampleIndex[i]}: ${row.map((v) => String(v)).join(" ")}`)
    .join("\n");
  history.push(r);
  renderHistory();
  lastModelJson = {
    name: `${r.dataset}-${r.method}-k${r.outputDim}.json`,
    text: `${JSON.stringify(r.model, null, 2)}\n`,
  };
  $<HTMLButtonElement>("download").disabled = false;
}

/** The traces of fit `r`, or empty charts before the first fit. */
function showTraces(r: FitResult | null): void {
  if (r === null) {
    objectivePlot.show([]);
    lambdaPlot.show([]);
    return;
  }
  const info = r.fitInfo;
  const none = info.stopReason === "closed-form" ? "closed form: no iterations" : "not tracked";
  objectivePlot.show(info.objective, none);
  lambdaPlot.show(
    info.lambdaTrace,
    info.stopReason === "closed-form" ? none : "no lambda in this method",
  );
}

/** Iterations as the table shows them; a warning sign when the fit did not converge or warned. */
function iterationsCell(h: FitResult): string {
  const info = h.fitInfo;
  const text = info.stopReason === "closed-form" ? "closed form" : String(info.iterations);
  return info.warnings.length > 0 ? `${text} ⚠` : text;
}

function renderHistory(): void {
  const best = Math.max(...history.map((h) => h.testBCA));
  const rows = history.map((h, i) => {
    const tr = document.createElement("tr");
    if (h.testBCA === best && history.length > 1) tr.className = "best";
    const cells: [string, boolean][] = [
      [String(i + 1), true],
      [h.dataset, false],
      [h.displayName, false],
      [paramsText(h), false],
      [String(h.outputDim), true],
      [percent(h.valBCA), true],
      [percent(h.testBCA), true],
      [iterationsCell(h), true],
      [formatMs(h.fitInfo.timings.totalMs), true],
    ];
    for (const [text, num] of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      if (num) td.className = "num";
      tr.append(td);
    }
    if (h.fitInfo.warnings.length > 0) {
      tr.title = h.fitInfo.warnings.map((w) => `warning: ${w.message}`).join("\n");
    }
    return tr;
  });
  ($("history").querySelector("tbody") as HTMLElement).replaceChildren(...rows);
}

function download(name: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function renderModel(m: ModelSummary): void {
  const box = $("model-info");
  const kind =
    m.kind === "model"
      ? ""
      : m.canPredict
        ? "pipeline (predicts): "
        : "pipeline saved without its classifier's reference set (embeds, cannot predict): ";
  box.textContent = `${m.file}: ${kind}${m.displayName}, ${m.nFeaturesIn} features → ${m.outputDim} components${m.preprocessing ? `, applies ${m.preprocessing}` : ", no preprocessing"}${m.classes ? `, ${m.classes.length} classes` : ""}.`;
  box.hidden = false;
  $<HTMLButtonElement>("predict").disabled = m.kind !== "pipeline";
}

/** Takes away a prediction shown, when the data set or the model it was made with changes. */
function clearPrediction(): void {
  const box = $("predict-result");
  box.hidden = true;
  box.replaceChildren();
}

function renderPrediction(r: PredictResult, model: string): void {
  const bca = document.createElement("span");
  bca.id = "predict-bca";
  bca.className = "shape";
  bca.dataset.value = String(r.bca);
  bca.textContent = percent(r.bca);
  $("predict-result").replaceChildren(
    document.createTextNode(
      `${model} predicted the labels of ${r.file} (${r.rows} samples): balanced accuracy `,
    ),
    bca,
    document.createTextNode("."),
  );
  $("predict-result").hidden = false;
}

function renderEmbedding(r: EmbedResult): void {
  $("embed-wrap").hidden = false;
  embedScatter.show(r.embedding, null);
  const box = $("model-info");
  box.textContent += ` Embedded ${r.file}: ${r.rows} samples → ${r.cols} components.`;
  lastEmbeddingCsv = { name: `${r.file.replace(/\.[^.]+$/, "")}-embedding.csv`, text: r.csv };
  $("download-embedding").hidden = false;
}

function setupModel(): void {
  $("download").addEventListener("click", () => {
    if (lastModelJson) download(lastModelJson.name, lastModelJson.text, "application/json");
  });
  $("download-embedding").addEventListener("click", () => {
    if (lastEmbeddingCsv) download(lastEmbeddingCsv.name, lastEmbeddingCsv.text, "text/csv");
  });
  const modelInput = $<HTMLInputElement>("model-file");
  const embedInput = $<HTMLInputElement>("embed-file");
  onFileChosen(modelInput, async (f) => {
    const text = await f.text();
    const loaded = await client.request({ type: "loadModel", file: f.name, text });
    currentModelText = { file: f.name, text };
    clearPrediction();
    // The embedding shown was the previous model's: it goes with it.
    $("embed-wrap").hidden = true;
    embedScatter.clear();
    lastEmbeddingCsv = null;
    $("download-embedding").hidden = true;
    renderModel(loaded);
    embedInput.disabled = false;
    $("embed-label").classList.remove("disabled");
  });
  onFileChosen(embedInput, async (f) => {
    const bytes = await f.arrayBuffer();
    const options = readOptions(entryOf(f.name));
    const embedded = await client.request(
      { type: "embed", file: f.name, bytes, options },
      { transfer: [bytes] },
    );
    renderEmbedding(embedded);
  });
  $("predict").addEventListener("click", async () => {
    clearErrors("model");
    clearPrediction();
    const model = currentModelText?.file ?? "The pipeline";
    try {
      renderPrediction(await client.request({ type: "predict" }), model);
    } catch (err) {
      showError("model", err);
    }
  });
}

/**
 * Runs `use` on the file chosen in `input`, with the model step's messages cleared
 * first and showing what goes wrong. The input is emptied so that choosing the same file again
 * fires again.
 */
function onFileChosen(input: HTMLInputElement, use: (file: File) => Promise<void>): void {
  input.addEventListener("change", async () => {
    const f = input.files?.[0];
    input.value = "";
    if (!f) return;
    clearErrors("model");
    try {
      await use(f);
    } catch (err) {
      showError("model", err);
    }
  });
}

setupData();
setupMethods();
setupModel();
$("fit").addEventListener("click", () => void runFit());
$("cancel").addEventListener("click", () => void cancelFit());
scatter.clear();
showTraces(null);
void loadManifest();
