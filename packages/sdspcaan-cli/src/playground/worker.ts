/**
 * The playground's worker: reads data files, fits, evaluates and embeds, so that the
 * page stays responsive while a fit runs. It holds the data set and the models; the
 * page sees summaries, progress and the points it draws.
 *
 * The evaluation is the CLI's `sdspcaan evaluate`: a seeded split (makeSplit), the
 * protocol's preprocessing of it, a fit on the training part, and 1-NN on the
 * standardised projections for the validation and test BCA. Requests come through
 * the library's worker channel (sdspcaan/worker), which runs them in order, relays
 * progress and turns the page's cancel into this fit's AbortSignal.
 */

import {
  balancedAccuracy,
  createMethod,
  DataFormatError,
  type Estimator,
  type FitProgress,
  type Label,
  type Matrix,
  NearestNeighbour1,
  Pipeline,
  TrainingData,
  ValidationError,
} from "sdspcaan";
import {
  attachLabels,
  decompressionStreamInflate,
  featureNamesOf,
  type LoadedDataset,
  labelSource,
  labelsFromBytesAsync,
  type ParseOptions,
  parseBytes,
} from "sdspcaan/formats";
import "sdspcaan-hdf5";
import type { InputPreprocessing } from "sdspcaan/methods";
import { loadModelFile, makeSplit, preprocessSplit } from "sdspcaan/methods";
import { type RequestContext, serveRequests } from "sdspcaan/worker";
import type {
  Answers,
  DatasetSummary,
  Embedding2D,
  EmbedResult,
  FitResult,
  ModelSummary,
  PredictResult,
  ReadOptions,
  Request,
} from "./protocol.js";

let dataset: { data: LoadedDataset; name: string } | null = null;
let loadedModel: { model: Estimator | Pipeline; file: string } | null = null;

/** How many test rows the page reports in full (the e2e test compares them with Node). */
const FIRST_ROWS = 5;

/** The reading options as the CLI's flags give them (`--label-col 3` is the number 3). */
function parseOptions(read: ReadOptions, labels: "required" | "optional"): ParseOptions {
  const o: { -readonly [K in keyof ParseOptions]: ParseOptions[K] } = { labels };
  if (read.xVar) o.xVar = read.xVar;
  if (read.yVar) o.yVar = read.yVar;
  if (read.labelColumn) {
    const t = read.labelColumn.trim();
    if (t === "none" && labels === "required") {
      throw new ValidationError(
        "labelColumn",
        "A fit needs the class labels in the data file; label column 'none' (no labels) is for embedding a file with a loaded model.",
      );
    }
    o.labelColumn = /^-?\d+$/.test(t) ? Number(t) : t;
  }
  return o;
}

/**
 * A model file's text as a model, refused as `sdspcaan transform --model` refuses it
 * (loadModelFile): naming the file, then the field. A saved pipeline stays one: it
 * embeds as its method's model does (same preprocessing), and it predicts.
 */
function modelFromText(text: string, file: string): Estimator | Pipeline {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new DataFormatError(file, `not valid JSON (${(err as Error).message})`);
  }
  return loadModelFile(json, file);
}

function labelText(label: Label): string {
  return typeof label === "number" ? String(label) : label;
}

function summarise(data: LoadedDataset, name: string): DatasetSummary {
  const counts = new Map<Label, number>();
  for (const label of data.y) counts.set(label, (counts.get(label) ?? 0) + 1);
  const labels = [...counts.keys()].sort((a, b) =>
    typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b)),
  );
  return {
    file: data.info.file,
    name,
    format: data.info.format,
    rows: data.X.rows,
    cols: data.X.cols,
    xVar: data.info.xVar,
    yVar: data.info.yVar,
    transposed: data.info.transposed,
    classes: labels.map((l) => ({ label: labelText(l), count: counts.get(l) as number })),
  };
}

function embedding2D(Z: Matrix, rows: ArrayLike<number>, labels: Label[] | null): Embedding2D {
  const dims = Math.min(2, Z.cols);
  const points = new Float64Array(Z.rows * dims);
  for (let i = 0; i < Z.rows; i++) {
    for (let j = 0; j < dims; j++) points[i * dims + j] = Z.data[i * Z.cols + j];
  }
  return {
    points,
    dims,
    sampleIndex: Int32Array.from(rows),
    labels: labels === null ? null : labels.map(labelText),
  };
}

function fitAndEvaluate(
  request: Extract<Request, { type: "fit" }>,
  context: RequestContext,
): FitResult {
  if (dataset === null) throw new Error("Load a data set first.");
  const { data, name } = dataset;
  const { split: settings } = request;
  const split = makeSplit(data.X.rows, {
    seed: settings.seed,
    dataset: name,
    repeat: settings.repeat,
    stratify: settings.stratify,
    ...(settings.stratify ? { y: data.y } : {}),
  });
  const parts = preprocessSplit(data.X, split, settings.preprocess);
  const pick = (rows: Int32Array): Label[] => Array.from(rows, (i) => data.y[i]);
  const yTrain = pick(split.train);
  const model = createMethod(request.method, request.options);
  model.fitPrepared(TrainingData.prepare(parts.train, yTrain), {
    onProgress: (progress: FitProgress) => context.progress(progress),
    signal: context.signal,
  });
  const nn = new NearestNeighbour1().fit(model.transform(parts.train), yTrain);
  const yTest = pick(split.test);
  const Ztest = model.transform(parts.test);
  const valBCA = balancedAccuracy(pick(split.val), nn.predict(model.transform(parts.val)));
  const testBCA = balancedAccuracy(yTest, nn.predict(Ztest));
  // The saved model takes raw data, as `sdspcaan fit` writes it.
  if (settings.preprocess !== "none") {
    const preprocessing: InputPreprocessing = {
      method: settings.preprocess,
      center: Array.from(parts.center),
      scale: Array.from(parts.scale),
    };
    model.setPreprocessing(preprocessing);
  }
  const firstTestRows: number[][] = [];
  for (let i = 0; i < Math.min(FIRST_ROWS, Ztest.rows); i++) {
    firstTestRows.push(Array.from(Ztest.data.subarray(i * Ztest.cols, (i + 1) * Ztest.cols)));
  }
  return {
    method: model.method,
    displayName: model.displayName,
    params: { ...(model.params as Record<string, unknown>) },
    dataset: name,
    sizes: { train: split.train.length, val: split.val.length, test: split.test.length },
    split: settings,
    valBCA,
    testBCA,
    outputDim: model.nComponents,
    fitInfo: model.fitInfo,
    embedding: embedding2D(Ztest, split.test, yTest),
    firstTestRows,
    model: model.toJSON(),
  };
}

function modelSummary(model: Estimator | Pipeline, file: string): ModelSummary {
  const pipeline = model instanceof Pipeline;
  return {
    file,
    kind: pipeline ? "pipeline" : "model",
    canPredict: pipeline && model.canPredict,
    method: model.method,
    displayName: model.displayName,
    nFeaturesIn: model.nFeaturesIn,
    outputDim: model.nComponents,
    preprocessing: model.preprocessing?.method ?? null,
    classes: model.classes === null ? null : model.classes.map(labelText),
  };
}

async function embed(request: Extract<Request, { type: "embed" }>): Promise<EmbedResult> {
  if (loadedModel === null) throw new Error("Load a model first.");
  const data = await parseBytes(
    new Uint8Array(request.bytes),
    request.file,
    parseOptions(request.options, "optional"),
    decompressionStreamInflate,
  );
  const Z = loadedModel.model.transform(data.X, {
    featureNames: featureNamesOf(data.info, data.X.cols),
  });
  const labels = data.info.yVar === null ? null : (data.y as Label[]);
  const rows = Array.from({ length: Z.rows }, (_, i) => i);
  const lines: string[] = [];
  for (let i = 0; i < Z.rows; i++) {
    lines.push(Array.from(Z.data.subarray(i * Z.cols, (i + 1) * Z.cols)).join(","));
  }
  return {
    file: request.file,
    rows: Z.rows,
    cols: Z.cols,
    embedding: embedding2D(Z, rows, labels),
    csv: `${lines.join("\n")}\n`,
  };
}

/**
 * The loaded pipeline's labels for the loaded data set, scored against its labels,
 * refused as `sdspcaan predict` refuses a model that cannot predict.
 */
function predict(): PredictResult {
  if (loadedModel === null) throw new Error("Load a pipeline first.");
  if (dataset === null)
    throw new Error("Load a data set first (step 1): its labels are predicted.");
  const { model, file } = loadedModel;
  if (!(model instanceof Pipeline)) {
    throw new DataFormatError(
      file,
      `holds a plain ${model.displayName} model, without a classifier: it can embed but not predict; save a pipeline with 'sdspcaan fit --pipeline' or Pipeline.toJSON()`,
    );
  }
  if (!model.canPredict) {
    throw new DataFormatError(
      file,
      "is a pipeline saved without its classifier's reference set, which can embed but not predict; save it with the reference set (the default of 'sdspcaan fit --pipeline' and Pipeline.toJSON())",
    );
  }
  const { data } = dataset;
  const y = data.y as Label[];
  if (y.length > 0 && typeof y[0] !== typeof model.classes[0]) {
    throw new DataFormatError(
      data.info.file,
      `holds ${typeof y[0]} labels, but the pipeline ${file} was fitted on ${typeof model.classes[0]} labels`,
    );
  }
  const predicted = model.predict(data.X, {
    featureNames: featureNamesOf(data.info, data.X.cols),
  });
  return { file: data.info.file, rows: data.X.rows, bca: balancedAccuracy(y, predicted) };
}

/** The data set of a load request, with its labels file when there is one (as loadDataset does). */
async function readDataset(request: Extract<Request, { type: "load" }>): Promise<LoadedDataset> {
  const options = parseOptions(request.options, "required");
  if (request.labels === null) {
    return parseBytes(
      new Uint8Array(request.bytes),
      request.file,
      options,
      decompressionStreamInflate,
    );
  }
  if (labelSource(options).where !== "unnamed") {
    throw new ValidationError(
      "labelsFile",
      "A labels file cannot be combined with a y variable or a label column: the labels come from one place.",
    );
  }
  const withoutLabels: ParseOptions = { ...options, labelColumn: "none" };
  const data = await parseBytes(
    new Uint8Array(request.bytes),
    request.file,
    withoutLabels,
    decompressionStreamInflate,
  );
  const labels = new Uint8Array(request.labels.bytes);
  return attachLabels(
    data,
    await labelsFromBytesAsync(
      labels,
      request.labels.file,
      withoutLabels,
      decompressionStreamInflate,
    ),
    request.labels.file,
    withoutLabels,
  );
}

async function handle(
  request: Request,
  context: RequestContext,
): Promise<Answers[Request["type"]]> {
  switch (request.type) {
    case "load": {
      const data = await readDataset(request);
      dataset = { data, name: request.name };
      return summarise(data, request.name);
    }
    case "fit":
      return fitAndEvaluate(request, context);
    case "loadModel": {
      const model = modelFromText(request.text, request.file);
      loadedModel = { model, file: request.file };
      return modelSummary(model, request.file);
    }
    case "embed":
      return embed(request);
    case "predict":
      return predict();
  }
}

serveRequests((body, context) => handle(body as Request, context));
