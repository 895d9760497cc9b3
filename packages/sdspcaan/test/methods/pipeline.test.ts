/**
 * Pipeline: standardiser, method and the paper's 1-NN as one model that predicts,
 * saves and reloads bit for bit, on the paper's Yale data set (small k, so each
 * fit takes a fraction of a second).
 */

import { errorOf, once, readDataFile } from "sdspcaan-test-support";
import { beforeEach, describe, expect, it } from "vitest";
import { balancedAccuracy } from "#internal/classify/metrics.js";
import { nearestNeighbourPredict } from "#internal/classify/nearestNeighbour.js";
import {
  AbortError,
  ModelFormatError,
  NotFittedError,
  SdspcaanError,
  ValidationError,
} from "#internal/core/errors.js";
import type { Matrix } from "#internal/core/matrix.js";
import { Standardizer } from "#internal/linalg/standardizer.js";
import type { FitProgress } from "#internal/methods/fitReport.js";
import { LDA } from "#internal/methods/lda.js";
import { PCA } from "#internal/methods/pca.js";
import { Pipeline } from "#internal/methods/pipeline.js";
import { loadModel } from "#internal/methods/registry.js";
import { SDSPCA } from "#internal/methods/sdspca.js";
import { TrainingData } from "#internal/methods/training.js";

let Xtrain: Matrix;
let Xtest: Matrix;
let ytrain: number[];
let ytest: number[];

// Read in the first test that runs, not in beforeAll: Stryker (`npm run test:mutation`)
// counts code run outside a test as covered by every test, and runs them all per mutant.
let yale: Promise<void> | undefined;
beforeEach(() => (yale ??= readYale()));
async function readYale(): Promise<void> {
  const ds = await readDataFile("Yale_32x32.mat");
  const train: number[] = [];
  const test: number[] = [];
  // Every third image is a test image: each of the 15 subjects has 11, so every
  // class is on both sides.
  for (let i = 0; i < ds.X.rows; i++) (i % 3 === 0 ? test : train).push(i);
  Xtrain = ds.X.selectRows(Int32Array.from(train));
  Xtest = ds.X.selectRows(Int32Array.from(test));
  ytrain = train.map((i) => ds.y[i] as number);
  ytest = test.map((i) => ds.y[i] as number);
}

// biome-ignore lint/suspicious/noExplicitAny: the tests damage a saved copy field by field
type Doc = Record<string, any>;

describe("Pipeline on Yale", () => {
  it("predicts what standardiser, method and 1-NN give step by step, and scores by BCA", () => {
    const pipeline = new Pipeline(new SDSPCA({ k: 8 })).fit(Xtrain, ytrain);
    const predicted = pipeline.predict(Xtest);

    const z = Standardizer.fit(Xtrain, { method: "train-zscore" });
    const method = new SDSPCA({ k: 8 }).fit(z.transform(Xtrain), ytrain);
    const expected = nearestNeighbourPredict(
      method.transform(z.transform(Xtrain)),
      ytrain,
      method.transform(z.transform(Xtest)),
    );
    expect(predicted).toEqual(expected);
    expect(pipeline.preprocessing?.method).toBe("train-zscore");
    const score = pipeline.score(Xtest, ytest);
    expect(score).toBe(balancedAccuracy(ytest, predicted));
    // 15 classes: chance is 1/15; the paper's SDSPCA is far above it.
    expect(score).toBeGreaterThan(0.4);
  });

  it("saves, reloads with loadModel and predicts the same labels bit for bit", () => {
    const pipeline = new Pipeline(new SDSPCA({ k: 8 })).fit(Xtrain, ytrain);
    const text = JSON.stringify(pipeline.toJSON());
    const loaded = loadModel(text);
    expect(loaded).toBeInstanceOf(Pipeline);
    const again = loaded as Pipeline;
    expect(again.predict(Xtest)).toEqual(pipeline.predict(Xtest));
    expect(Array.from(again.transform(Xtest).data)).toEqual(
      Array.from(pipeline.transform(Xtest).data),
    );
    expect(again.score(Xtest, ytest)).toBe(pipeline.score(Xtest, ytest));
    expect(JSON.stringify(again.toJSON())).toBe(text);
    expect(again.method).toBe("sdspca");
    expect(again.classes).toEqual([...new Set(ytrain)].sort((a, b) => a - b));
  });

  it("keeps the user's label values: numbers stay numbers, strings stay strings", () => {
    const names = ytrain.map((c) => `subject ${c}`);
    const pipeline = new Pipeline(new PCA({ k: 5 })).fit(Xtrain, names);
    const predicted = pipeline.predict(Xtest);
    for (const label of predicted) expect(typeof label).toBe("string");
    const again = loadModel(JSON.stringify(pipeline.toJSON())) as Pipeline;
    expect(again.predict(Xtest)).toEqual(predicted);
    expect(
      again.score(
        Xtest,
        ytest.map((c) => `subject ${c}`),
      ),
    ).toBe(
      pipeline.score(
        Xtest,
        ytest.map((c) => `subject ${c}`),
      ),
    );
    // The same fit with the numeric labels predicts the matching numbers.
    const numeric = new Pipeline(new PCA({ k: 5 })).fit(Xtrain, ytrain).predict(Xtest);
    for (const label of numeric) expect(typeof label).toBe("number");
    expect(numeric.map((c) => `subject ${c}`)).toEqual(predicted);
    expect(() => pipeline.score(Xtest, ytest)).toThrow(
      /number labels, but the pipeline was fitted on string/,
    );
  });

  it("a file saved without the reference set transforms the same and refuses predict", () => {
    const pipeline = new Pipeline(new PCA({ k: 5 })).fit(Xtrain, ytrain);
    const full = JSON.stringify(pipeline.toJSON());
    const small = JSON.stringify(pipeline.toJSON({ referenceSet: "none" }));
    const loaded = loadModel(small) as Pipeline;
    expect(loaded.canPredict).toBe(false);
    expect(pipeline.canPredict).toBe(true);
    expect(Array.from(loaded.transform(Xtest).data)).toEqual(
      Array.from(pipeline.transform(Xtest).data),
    );
    const err = errorOf(() => loaded.predict(Xtest));
    expect(err).toBeInstanceOf(SdspcaanError);
    expect((err as Error).message).toContain("saved without its classifier's reference set");
    // What the reference set costs: k numbers and a label per training sample, each
    // number written in its shortest round-trip form (at most 24 characters and a comma).
    const perSample = (full.length - small.length) / Xtrain.rows;
    expect(perSample).toBeGreaterThan(5 * 10);
    expect(perSample).toBeLessThan(5 * 25 + 4);
    expect(() => pipeline.toJSON({ referenceSet: "float16" as "none" })).toThrow(
      /must be "full" or "none"/,
    );
  });

  it("passes progress and the abort signal to the method's fit", () => {
    const seen: FitProgress[] = [];
    new Pipeline(new SDSPCA({ k: 4, maxIter: 3 })).fit(Xtrain, ytrain, {
      onProgress: (p) => seen.push(p),
    });
    expect(seen.length).toBeGreaterThan(0);
    expect(seen[0].method).toBe("sdspca");
    const controller = new AbortController();
    controller.abort();
    expect(() =>
      new Pipeline(new SDSPCA({ k: 4 })).fit(Xtrain, ytrain, { signal: controller.signal }),
    ).toThrow(AbortError);
  });

  it("standardises as asked: none, or a given standardisation", () => {
    const plain = new Pipeline(new PCA({ k: 5 }), { preprocessing: "none" }).fit(Xtrain, ytrain);
    expect(plain.preprocessing).toBeNull();
    const direct = new PCA({ k: 5 }).fit(Xtrain, ytrain);
    expect(Array.from(plain.transform(Xtest).data)).toEqual(
      Array.from(direct.transform(Xtest).data),
    );
    const everyRow = Standardizer.fit(Xtrain.selectRows(Int32Array.from([0, 1, 2, 3, 4, 5])), {
      method: "dataset-zscore",
    }).toJSON();
    const fixed = new Pipeline(new PCA({ k: 5 }), { preprocessing: everyRow }).fit(Xtrain, ytrain);
    expect(fixed.preprocessing).toEqual(everyRow);
    const again = loadModel(JSON.stringify(fixed.toJSON())) as Pipeline;
    expect(again.predict(Xtest)).toEqual(fixed.predict(Xtest));
    expect(() =>
      new Pipeline(new PCA({ k: 5 }), { preprocessing: { ...everyRow, method: "minmax" } }).fit(
        Xtrain,
        ytrain,
      ),
    ).toThrow(/'preprocessing.method' must be one of "train-zscore", "dataset-zscore", "custom"/);
  });
});

describe("Pipeline refuses misuse", () => {
  it("says it is not fitted", () => {
    const pipeline = new Pipeline(new PCA({ k: 2 }));
    expect(pipeline.isFitted).toBe(false);
    for (const use of [
      () => pipeline.predict([[1, 2]]),
      () => pipeline.transform([[1, 2]]),
      () => pipeline.score([[1, 2]], [1]),
      () => pipeline.toJSON(),
      () => pipeline.canPredict,
    ]) {
      const err = errorOf(use);
      expect(err).toBeInstanceOf(NotFittedError);
      expect((err as Error).message).toContain("This Pipeline instance is not fitted yet");
    }
  });

  it("needs labels and a method", () => {
    const X = [
      [0, 1],
      [1, 0],
      [2, 2],
    ];
    expect(() => new Pipeline(new PCA({ k: 1 })).fit(X, undefined as never)).toThrow(
      /needs the class labels y/,
    );
    expect(() => new Pipeline(new PCA({ k: 1 })).fit(X, [1, 2])).toThrow(ValidationError);
    expect(() => new Pipeline({} as never)).toThrow(/needs a method instance/);
    expect(() => new Pipeline(new PCA({ k: 1 }), { preprocessing: "minmax" as "none" })).toThrow(
      /'preprocessing' option of Pipeline/,
    );
  });
});

describe("an argument error names the argument as the caller wrote it", () => {
  const X = [
    [0, 1],
    [1, 0],
    [2, 2],
    [3, 1],
  ];
  const y = [1, 1, 2, 2];
  const fittedPipeline = () => new Pipeline(new PCA({ k: 1 })).fit(X, y);
  const fittedLda = () => new LDA({ k: 1 }).fit(X, y);

  it.each<[string, () => unknown, string, string]>([
    [
      "Pipeline.score(X, null)",
      () => fittedPipeline().score(X, null as never),
      "y",
      "y must be an array of class labels (numbers or strings). Got null.",
    ],
    [
      "Pipeline.score(X, [])",
      () => fittedPipeline().score(X, []),
      "y",
      "y has 0 labels, but X has 4 rows; give one label per sample.",
    ],
    [
      "Pipeline.score(X, y too short)",
      () => fittedPipeline().score(X, [1, 2]),
      "y",
      "y has 2 labels, but X has 4 rows; give one label per sample.",
    ],
    [
      "Pipeline.score(X, y with NaN)",
      () => fittedPipeline().score(X, [1, 1, Number.NaN, 2]),
      "y",
      "y[2] is NaN; numeric labels must be finite.",
    ],
    [
      "Pipeline.score(no rows, [])",
      () => fittedPipeline().score({ rows: 0, cols: 2, data: [] }, []),
      "X",
      "X must have at least 1 row (samples). Got 0.",
    ],
    [
      "Pipeline.score(X, y, null)",
      () => fittedPipeline().score(X, y, null as never),
      "options",
      "The options of Pipeline.score must be an object. Got null instead.",
    ],
    [
      "Pipeline.fit(X, y, null)",
      () => new Pipeline(new PCA({ k: 1 })).fit(X, y, null as never),
      "options",
      "The options of Pipeline.fit must be an object. Got null instead.",
    ],
    [
      "Pipeline.fit(X, y, { onProgress: 1 })",
      () => new Pipeline(new PCA({ k: 1 })).fit(X, y, { onProgress: 1 as never }),
      "onProgress",
      "The 'onProgress' option of Pipeline.fit must be a function (progress) => void. Got 1 instead.",
    ],
    [
      "Pipeline.predict(X, null)",
      () => fittedPipeline().predict(X, null as never),
      "options",
      "The options of Pipeline.predict must be an object. Got null instead.",
    ],
    [
      "Pipeline.predict(X, { onWarning: true })",
      () => fittedPipeline().predict(X, { onWarning: true as never }),
      "onWarning",
      "The 'onWarning' option of Pipeline.predict must be a function (warning) => void. Got true instead.",
    ],
    [
      "Pipeline.transform(X, null)",
      () => fittedPipeline().transform(X, null as never),
      "options",
      "The options of Pipeline.transform must be an object. Got null instead.",
    ],
    [
      "Pipeline.toJSON(null)",
      () => fittedPipeline().toJSON(null as never),
      "options",
      "The options of Pipeline.toJSON must be an object. Got null instead.",
    ],
    [
      "new Pipeline(estimator, null)",
      () => new Pipeline(new PCA({ k: 1 }), null as never),
      "options",
      "The options of Pipeline must be an object. Got null instead.",
    ],
    [
      "Estimator.fit(X, y, null)",
      () => new LDA({ k: 1 }).fit(X, y, null as never),
      "options",
      "The options of LDA.fit must be an object. Got null instead.",
    ],
    [
      "Estimator.fit(X, y, { signal: 1 })",
      () => new LDA({ k: 1 }).fit(X, y, { signal: 1 as never }),
      "signal",
      "The 'signal' option of LDA.fit must be an AbortSignal. Got 1 instead.",
    ],
    [
      "Estimator.fitTransform(X, y, null)",
      () => new LDA({ k: 1 }).fitTransform(X, y, null as never),
      "options",
      "The options of LDA.fitTransform must be an object. Got null instead.",
    ],
    [
      "Estimator.transform(X, null)",
      () => fittedLda().transform(X, null as never),
      "options",
      "The options of LDA.transform must be an object. Got null instead.",
    ],
    [
      "Estimator.fitPrepared(data, null)",
      () => new LDA({ k: 1 }).fitPrepared(TrainingData.prepare(X, y), null as never),
      "callbacks",
      "The callbacks of LDA.fitPrepared must be an object. Got null instead.",
    ],
  ])("%s", (_call, use, argument, message) => {
    const err = errorOf(use);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).argument).toBe(argument);
    expect((err as Error).message).toBe(message);
  });
});

describe("loadModel checks a saved pipeline field by field", () => {
  const savedPipeline = once(() => {
    const X = Array.from({ length: 12 }, (_, i) => [i % 3, (i * 7) % 5, (i * i) % 11, i]);
    const y = X.map((_, i) => (i % 2 === 0 ? "even" : "odd"));
    return JSON.stringify(new Pipeline(new PCA({ k: 2 })).fit(X, y).toJSON());
  });

  function refused(change: (p: Doc) => void): ModelFormatError {
    const json = JSON.parse(savedPipeline());
    change(json);
    const err = errorOf(() => loadModel(json));
    expect(err).toBeInstanceOf(ModelFormatError);
    return err as ModelFormatError;
  }

  it.each<[string, (p: Doc) => void, string]>([
    ["version", (p) => (p.version = 2), "must be one of 1"],
    ["classifer", (p) => (p.classifer = {}), "is not part of the pipeline format"],
    ["classifier", (p) => delete p.classifier, "is missing"],
    ["model.components.data[0]", (p) => (p.model.components.data[0] = "x"), "finite number"],
    ["model", (p) => (p.model = 3), "expected a JSON object"],
    ["classifier.method", (p) => (p.classifier.method = "3-nn"), 'must be "1-nn"'],
    ["classifier.params.blockSize", (p) => (p.classifier.params.blockSize = 0), "is not valid"],
    ["classifier.params.k", (p) => (p.classifier.params.k = 3), "not part of the pipeline format"],
    ["classifier.referenceSet.cols", (p) => (p.classifier.referenceSet.cols = 3), "must equal"],
    ["classifier.referenceSet.data", (p) => p.classifier.referenceSet.data.pop(), "24 finite"],
    [
      "classifier.referenceSet.data[5]",
      (p) => (p.classifier.referenceSet.data[5] = null),
      "finite",
    ],
    ["classifier.labels", (p) => p.classifier.labels.pop(), "12 class labels"],
    ["classifier.labels[3]", (p) => (p.classifier.labels[3] = 1), "one of the model's classes"],
    ["classifier.labels", (p) => (p.classifier.referenceSet = null), "must be null when"],
    ["model.classes", (p) => delete p.model.classes, "is missing"],
  ])("names %s", (field, change, says) => {
    const err = refused(change);
    expect(err.field).toBe(field);
    expect(err.message).toContain(says);
  });

  it("loads the untouched file", () => {
    const saved = savedPipeline();
    expect(JSON.stringify(loadModel(saved).toJSON())).toBe(saved);
  });
});
