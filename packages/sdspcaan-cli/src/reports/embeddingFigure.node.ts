/**
 * The report's embedding figure: the selected fit of one method on one data set made
 * again (the data reloaded, its split recreated) and its first two components drawn,
 * train and test.
 */
import type { Label } from "sdspcaan";
import { createMethod, ValidationError } from "sdspcaan";
import { embeddingScatter, type SplitName } from "../plot/embedding.js";
import { type Params, tunableParams } from "../protocol/grids.js";
import { fitOptions } from "../protocol/methodOptions.js";
import { gridPoints, type RunSettings } from "../protocol/plan.js";
import type { FitRecord } from "../protocol/records.js";
import { selectModel } from "../protocol/selection.js";
import { prepareSplit, type UnitDataset } from "../runner/units.node.js";
import { recreateSplit, reloadDataset } from "./reloadData.node.js";
import { methodTitle } from "./report.js";

function describeParams(params: Params): string {
  const symbol: Record<string, string> = { alpha: "α", beta: "β", delta: "δ", eta: "η" };
  return tunableParams()
    .filter((p) => params[p] !== undefined)
    .map((p) => `${symbol[p]} = ${params[p]}`)
    .join(", ");
}

/** What the embedding figure shows (each left out: chosen as `pickEmbeddingMethod` and the table do). */
export interface EmbeddingChoice {
  /** Data already in memory, by data set name (else reloaded from settings.json). */
  readonly data?: ReadonlyMap<string, UnitDataset>;
  readonly embeddingMethod?: string;
  readonly embeddingDataset?: string;
}

/**
 * The embedding figure's specification, or null (with a warning pushed) when the data
 * or split of the run cannot be made again.
 */
export async function embeddingSpec(
  records: readonly FitRecord[],
  settings: RunSettings | null,
  options: EmbeddingChoice,
  warnings: string[],
  dir: string,
): Promise<ReturnType<typeof embeddingScatter> | null> {
  if (settings === null) {
    warnings.push("embedding: no settings.json, so the data and split cannot be recreated.");
    return null;
  }
  const datasetName =
    options.embeddingDataset ??
    settings.datasets.find((d) => records.some((r) => r.dataset === d.name))?.name;
  const entry = settings.datasets.find((d) => d.name === datasetName);
  if (entry === undefined) {
    throw new ValidationError("embeddingDataset", `The run has no data set '${datasetName}'.`);
  }
  const onData = records.filter((r) => r.dataset === entry.name);
  const method = options.embeddingMethod ?? pickEmbeddingMethod(onData, settings);
  const repeat = Math.min(...onData.filter((r) => r.method === method).map((r) => r.repeat));
  const group = onData.filter((r) => r.method === method && r.repeat === repeat);
  if (group.length === 0) {
    throw new ValidationError("embeddingMethod", `No ${method} results on ${entry.name}.`);
  }
  const chosen = selectModel(group, { grid: (m) => gridPoints(m, settings.grid) });
  const data = options.data?.get(entry.name) ?? (await reloadDataset(entry, dir));
  if (data === null) {
    warnings.push(`embedding: ${entry.name} was given in memory and cannot be reloaded.`);
    return null;
  }
  const split = recreateSplit(settings, entry, data, repeat);
  if (split === null) {
    warnings.push(`embedding: the explicit splits of ${entry.name} were not recorded as a file.`);
    return null;
  }
  const prepared = prepareSplit(data, split, settings.preprocess);
  const model = createMethod(
    method,
    fitOptions({
      fixed: settings.methodOptions[method],
      unit: chosen.record.unitOptions,
      k: chosen.k,
      params: chosen.params,
    }),
  );
  model.fitPrepared(prepared.data);
  if (model.nComponents < 2) {
    warnings.push(`embedding: ${method} at k = ${chosen.k} has fewer than 2 components.`);
    return null;
  }
  const Ptr = model.transform(prepared.parts.train);
  const Pte = model.transform(prepared.parts.test);
  const x: number[] = [];
  const y: number[] = [];
  const label: Array<string | number> = [];
  const part: SplitName[] = [];
  const add = (P: typeof Ptr, labels: Label[], name: SplitName) => {
    for (let i = 0; i < P.rows; i++) {
      x.push(P.data[i * P.cols]);
      y.push(P.data[i * P.cols + 1]);
      label.push(labels[i]);
      part.push(name);
    }
  };
  add(Ptr, prepared.yTrain, "train");
  add(Pte, prepared.yTest, "test");
  const params = describeParams(chosen.params);
  return embeddingScatter(
    { x, y, label },
    {
      title: `${methodTitle(method)} embedding of ${entry.name}`,
      subtitle: `repeat ${repeat}, k = ${chosen.k}${params ? `, ${params}` : ""}; first two components (test BCA ${(100 * chosen.testBCA).toFixed(1)} %)`,
      split: part,
    },
  );
}

/** SDSPCAAN when it ran on the data set, else the method with the best mean test BCA there. */
function pickEmbeddingMethod(records: readonly FitRecord[], settings: RunSettings): string {
  const methods = settings.methods.filter((m) => records.some((r) => r.method === m));
  if (methods.includes("sdspcaan")) return "sdspcaan";
  let best = methods[0];
  let bestScore = Number.NEGATIVE_INFINITY;
  for (const m of methods) {
    const own = records.filter((r) => r.method === m);
    const repeats = [...new Set(own.map((r) => r.repeat))];
    const scores = repeats.map(
      (rep) =>
        selectModel(
          own.filter((r) => r.repeat === rep),
          { grid: (name) => gridPoints(name, settings.grid) },
        ).testBCA,
    );
    const score = scores.reduce((a, b) => a + b, 0) / scores.length;
    if (score > bestScore) {
      bestScore = score;
      best = m;
    }
  }
  return best;
}
