/**
 * A Pipeline's settings survive a save and reload exactly (the classifier's options,
 * each kind of preprocessing, the reference set or its absence), every accessor says
 * the same before and after, and every refusal of a pipeline, its options and its
 * saved file is checked word for word, on small generated data.
 */
import fc from "fast-check";
import { errorOf, once } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import {
  ModelFormatError,
  NotFittedError,
  SdspcaanError,
  ValidationError,
} from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { PCA } from "#internal/methods/pca.js";
import { Pipeline, type PipelineOptions } from "#internal/methods/pipeline.js";
import type { PipelineJSON } from "#internal/methods/pipelineFormat.js";
import { loadModel } from "#internal/methods/registry.js";
import { SDSPCA } from "#internal/methods/sdspca.js";

/** Three classes in 6 features, with a near-constant feature; the queries beside them. */
function data(seed = 3) {
  const rng = new Random(seed);
  const row = (c: number) => [
    c + rng.normal() * 0.8,
    -c + rng.normal(),
    rng.normal() * 3,
    1e-9 * rng.normal(),
    c * c + rng.normal(),
    rng.normal(),
  ];
  const y = Array.from({ length: 30 }, (_, i) => (i % 3) + 1);
  const X = y.map(row);
  const Q = Array.from({ length: 40 }, (_, i) => row((i % 3) + 1));
  return { X, y, Q };
}

const { X, y, Q } = data();

function reload(p: Pipeline, options?: Parameters<Pipeline["toJSON"]>[0]): Pipeline {
  const loaded = loadModel(JSON.stringify(p.toJSON(options)));
  expect(loaded).toBeInstanceOf(Pipeline);
  return loaded as Pipeline;
}

describe("a reloaded pipeline is the saved one", () => {
  it("keeps the classifier's options, which change its predictions", () => {
    const options = { classifier: { stdFloor: 0.9, blockSize: 3 } };
    const custom = new Pipeline(new PCA({ k: 4 }), options).fit(X, y);
    const plain = new Pipeline(new PCA({ k: 4 })).fit(X, y);
    // The floor leaves features out of the distance: the predictions differ.
    expect(custom.predict(Q)).not.toEqual(plain.predict(Q));
    const again = reload(custom);
    expect(again.classifierParams).toEqual({ stdFloor: 0.9, blockSize: 3 });
    expect(again.predict(Q)).toEqual(custom.predict(Q));
    expect(again.toJSON()).toEqual(custom.toJSON());
    expect(reload(plain).classifierParams).toEqual({ stdFloor: 1e-10, blockSize: 64 });
  });

  it("keeps any classifier options, preprocessing and reference-set mode", () => {
    const fixed = { method: "custom", center: [0, 1, 0, 0, 2, 0], scale: [1, 2, 3, 1, 1, 0.5] };
    fc.assert(
      fc.property(
        fc.record({
          // (+ 0: a floor of -0 is saved as 0.)
          stdFloor: fc.double({ min: 0, max: 1, noNaN: true }).map((v) => v + 0),
          blockSize: fc.integer({ min: 1, max: 100 }),
        }),
        fc.constantFrom("train-zscore", "none", fixed),
        fc.constantFrom("full", "none"),
        fc.integer({ min: 1, max: 5 }),
        (classifier, preprocessing, referenceSet, k) => {
          const p = new Pipeline(new PCA({ k }), {
            preprocessing: preprocessing as PipelineOptions["preprocessing"],
            classifier,
          }).fit(X, y);
          const text = JSON.stringify(p.toJSON({ referenceSet }));
          const again = loadModel(text) as Pipeline;
          expect(again.classifierParams).toEqual(classifier);
          expect(again.preprocessingSetting).toEqual(preprocessing);
          expect(JSON.stringify(again.toJSON())).toBe(text);
          expect(Array.from(again.transform(Q).data)).toEqual(Array.from(p.transform(Q).data));
          expect(again.canPredict).toBe(referenceSet === "full");
          if (referenceSet === "full") expect(again.predict(Q)).toEqual(p.predict(Q));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("maps projections back as its method does, before and after a reload", () => {
    const p = new Pipeline(new PCA({ k: 3 })).fit(X, y);
    const Z = p.transform(Q);
    const back = Array.from(p.inverseTransform(Z).data);
    expect(back).toEqual(Array.from(p.estimator.inverseTransform(Z).data));
    expect(Array.from(reload(p).inverseTransform(Z).data)).toEqual(back);
  });

  it("keeps each kind of preprocessing, and refits with it", () => {
    const fixed = {
      method: "dataset-zscore",
      center: [1, 2, 3, 4, 5, 6],
      scale: [2, 2, 2, 2, 2, 2],
    };
    const settings = ["train-zscore", "none", fixed] as const;
    for (const preprocessing of settings) {
      const p = new Pipeline(new PCA({ k: 3 }), { preprocessing }).fit(X, y);
      const again = reload(p);
      expect(again.preprocessingSetting).toEqual(preprocessing);
      expect(again.preprocessing).toEqual(p.preprocessing);
      expect(Array.from(again.transform(Q).data)).toEqual(Array.from(p.transform(Q).data));
      // Fitted again on other rows, it standardises as a new pipeline with the setting would.
      const rows = X.slice(0, 20);
      const refit = again.fit(rows, y.slice(0, 20));
      const fresh = new Pipeline(new PCA({ k: 3 }), { preprocessing }).fit(rows, y.slice(0, 20));
      expect(refit.toJSON()).toEqual({
        ...fresh.toJSON(),
        model: { ...fresh.toJSON().model, fitInfo: refit.toJSON().model.fitInfo },
      });
    }
    const none = new Pipeline(new PCA({ k: 3 }), { preprocessing: "none" }).fit(X, y);
    expect(none.preprocessing).toBeNull();
    expect(none.toJSON().model.preprocessing).toBeNull();
    const z = new Pipeline(new PCA({ k: 3 })).fit(X, y);
    expect(z.preprocessing?.method).toBe("train-zscore");
  });

  it("answers every accessor as before", () => {
    const p = new Pipeline(new SDSPCA({ k: 2, maxIter: 5 })).fit(X, y, {
      featureNames: ["a", "b", "c", "d", "e", "f"],
    });
    for (const q of [p, reload(p)]) {
      expect(q.isFitted).toBe(true);
      expect(q.canPredict).toBe(true);
      expect(q.method).toBe("sdspca");
      expect(q.displayName).toBe("SDSPCA");
      expect(q.classes).toEqual([1, 2, 3]);
      expect(q.featureNamesIn).toEqual(["a", "b", "c", "d", "e", "f"]);
      expect(q.nFeaturesIn).toBe(6);
      expect(q.nComponents).toBe(2);
      expect(q.fitInfo.iterations).toBe(p.fitInfo.iterations);
      expect(q.referenceSet?.rows).toBe(30);
      expect(Array.from(q.referenceSet?.data ?? [])).toEqual(Array.from(p.transform(X).data));
      expect(
        q.score(
          Q,
          Q.map((_, i) => (i % 3) + 1),
        ),
      ).toBe(
        p.score(
          Q,
          Q.map((_, i) => (i % 3) + 1),
        ),
      );
    }
  });

  it("saved without its reference set, transforms and refuses predict", () => {
    const p = new Pipeline(new PCA({ k: 3 })).fit(X, y);
    const json = p.toJSON({ referenceSet: "none" });
    expect(json.classifier).toEqual({
      method: "1-nn",
      params: { blockSize: 64, stdFloor: 1e-10 },
      referenceSet: null,
      labels: null,
    });
    const again = reload(p, { referenceSet: "none" });
    expect(again.canPredict).toBe(false);
    expect(again.referenceSet).toBeNull();
    expect(again.toJSON().classifier.referenceSet).toBeNull();
    expect(again.toJSON({ referenceSet: "full" }).classifier.labels).toBeNull();
    expect(errorOf(() => again.predict(Q)).message).toBe(
      'This Pipeline was saved without its classifier\'s reference set (toJSON({ referenceSet: "none" })): it can transform but not predict. Save it with the reference set (the default) to predict.',
    );
    expect(errorOf(() => again.predict(Q))).toBeInstanceOf(SdspcaanError);
    expect(p.toJSON().classifier.referenceSet).toEqual({
      rows: 30,
      cols: 3,
      data: Array.from(p.transform(X).data),
    });
    expect(p.toJSON().classifier.labels).toEqual(y);
  });
});

describe("Pipeline refuses misuse, word for word", () => {
  it("a missing or wrong method", () => {
    const message = "Pipeline needs a method instance, e.g. new Pipeline(new SDSPCAAN({ k: 20 })).";
    const callable = Object.assign(() => 1, { fit() {}, descriptor: {} });
    for (const bad of [
      null,
      undefined,
      3,
      {},
      { fit() {} },
      { descriptor: {} },
      { fit: 1, descriptor: {} },
      callable,
    ]) {
      const err = errorOf(() => new Pipeline(bad as never));
      expect(err).toBeInstanceOf(ValidationError);
      expect([(err as ValidationError).argument, err.message]).toEqual(["estimator", message]);
    }
  });

  it("a preprocessing setting that is not one", () => {
    for (const [bad, shown] of [
      [[], "[]"],
      ["zscore", '"zscore"'],
      [5, "5"],
    ] as const) {
      const err = errorOf(() => new Pipeline(new PCA({ k: 1 }), { preprocessing: bad as never }));
      expect([(err as ValidationError).argument, err.message]).toEqual([
        "preprocessing",
        `The 'preprocessing' option of Pipeline must be "train-zscore", "none" or {method, center, scale}. Got ${shown} instead.`,
      ]);
    }
    const fixed = (p: object) =>
      errorOf(() => new Pipeline(new PCA({ k: 1 }), { preprocessing: p as never }).fit(X, y));
    expect(
      fixed({ method: "minmax", center: [0, 0, 0, 0, 0, 0], scale: [1, 1, 1, 1, 1, 1] }).message,
    ).toBe(
      `'preprocessing.method' must be one of "train-zscore", "dataset-zscore", "custom"; got "minmax".`,
    );
    const short = fixed({ method: "custom", center: [0], scale: [1, 1, 1, 1, 1, 1] });
    expect([(short as ValidationError).argument, short.message]).toEqual([
      "preprocessing",
      "'preprocessing.center' must hold 6 finite numbers (one per feature); got 1.",
    ]);
    // One row is refused before the preprocessing is looked at.
    const oneRow = errorOf(() =>
      new Pipeline(new PCA({ k: 1 }), {
        preprocessing: { method: "custom", center: [0], scale: [1] },
      }).fit([X[0]], [1]),
    );
    expect([(oneRow as ValidationError).argument, oneRow.message]).toEqual([
      "X",
      "X must have at least 2 rows (samples). Got 1.",
    ]);
  });

  it("fitting without labels, with too few rows, or with the wrong count", () => {
    const p = new Pipeline(new PCA({ k: 1 }));
    for (const missing of [undefined, null]) {
      const err = errorOf(() => p.fit(X, missing as never));
      expect([(err as ValidationError).argument, err.message]).toEqual([
        "y",
        "Pipeline.fit(X, y) needs the class labels y (one per row of X): its classifier predicts them.",
      ]);
    }
    expect(errorOf(() => p.fit([X[0]], [1])).message).toBe(
      "X must have at least 2 rows (samples). Got 1.",
    );
    expect(errorOf(() => p.fit(X, y.slice(1))).message).toBe(
      "y has 29 labels, but X has 30 rows; give one label per sample.",
    );
    expect(p.isFitted).toBe(false);
  });

  it("a fit that fails leaves the pipeline unfitted, not fitted with the old state", () => {
    const p = new Pipeline(new PCA({ k: 3 })).fit(X, y);
    expect(p.isFitted).toBe(true);
    const controller = new AbortController();
    controller.abort();
    expect(() => p.fit(X, y, { signal: controller.signal })).toThrow();
    expect(p.isFitted).toBe(false);
  });

  it("using a pipeline before it is fitted", () => {
    const p = new Pipeline(new PCA({ k: 1 }));
    const uses: (() => unknown)[] = [
      () => p.transform(X),
      () => p.inverseTransform([[1]]),
      () => p.predict(X),
      () => p.score(X, y),
      () => p.canPredict,
      () => p.classes,
      () => p.featureNamesIn,
      () => p.nFeaturesIn,
      () => p.nComponents,
      () => p.preprocessing,
      () => p.fitInfo,
      () => p.referenceSet,
      () => p.toJSON(),
    ];
    for (const use of uses) {
      const err = errorOf(use);
      expect(err).toBeInstanceOf(NotFittedError);
      expect(err.message).toBe(new NotFittedError("Pipeline").message);
    }
    expect(p.isFitted).toBe(false);
    expect(p.method).toBe("pca");
    expect(p.displayName).toBe("PCA");
  });

  it("scoring with labels of the other kind, and saving with an unknown mode", () => {
    const p = new Pipeline(new PCA({ k: 2 })).fit(X, y);
    const mode = errorOf(() => p.toJSON({ referenceSet: "float16" as never }));
    expect([(mode as ValidationError).argument, mode.message]).toEqual([
      "referenceSet",
      'The \'referenceSet\' option of Pipeline.toJSON must be "full" or "none". Got "float16" instead.',
    ]);
    expect(p.toJSON({}).classifier.labels).toEqual(y);
    const kind = errorOf(() =>
      p.score(
        Q,
        Q.map(() => "1"),
      ),
    );
    expect([(kind as ValidationError).argument, kind.message]).toEqual([
      "y",
      "y holds string labels, but the pipeline was fitted on number labels; give the labels as in fit.",
    ]);
    // Labels that are not an array are refused under score's own name for them, y.
    for (const [bad, got] of [
      [null, "null"],
      [undefined, "undefined"],
      ["123", '"123"'],
    ]) {
      const err = errorOf(() => p.score(Q, bad as never));
      expect([(err as ValidationError).argument, err.message]).toEqual([
        "y",
        `y must be an array of class labels (numbers or strings). Got ${got}.`,
      ]);
    }
    expect(errorOf(() => p.score(Q, [])).message).toBe(
      "y has 0 labels, but X has 40 rows; give one label per sample.",
    );
  });
});

describe("a saved pipeline's fields, refused word for word", () => {
  // Fitted in the first test that needs it, not while the tests are collected: Stryker
  // (`npm run test:mutation`) counts code run outside a test as covered by every test.
  const savedPipeline = once(() =>
    JSON.stringify(
      new Pipeline(new PCA({ k: 2 })).fit(X.slice(0, 6), ["a", "b", "a", "b", "a", "b"]).toJSON(),
    ),
  );
  // biome-ignore lint/suspicious/noExplicitAny: fields are damaged one at a time
  const refused = (change: (d: Record<string, any>) => void) => {
    const json = JSON.parse(savedPipeline()) as PipelineJSON;
    change(json as never);
    const err = errorOf(() => loadModel(json));
    expect(err).toBeInstanceOf(ModelFormatError);
    return [(err as ModelFormatError).field, (err as ModelFormatError).problem];
  };

  // biome-ignore lint/suspicious/noExplicitAny: each case reaches into a different field of the parsed file
  it.each<[string, (d: Record<string, any>) => void, string, string]>([
    [
      "version",
      (d) => (d.version = "1"),
      "version",
      'must be one of 1 (the pipeline versions this library reads); got "1"',
    ],
    [
      "an extra field",
      (d) => (d.extra = 1),
      "extra",
      "is not part of the pipeline format (known fields: format, version, model, classifier)",
    ],
    ["no classifier", (d) => delete d.classifier, "classifier", "is missing"],
    [
      "a classifier that is not an object",
      (d) => (d.classifier = [1]),
      "classifier",
      "must be an object; got [1]",
    ],
    [
      "a classifier field missing",
      (d) => delete d.classifier.labels,
      "classifier.labels",
      "is missing",
    ],
    [
      "a classifier field extra",
      (d) => (d.classifier.k = 1),
      "classifier.k",
      "is not part of the pipeline format (known fields: method, params, referenceSet, labels)",
    ],
    [
      "another classifier",
      (d) => (d.classifier.method = "3-nn"),
      "classifier.method",
      'must be "1-nn"; got "3-nn"',
    ],
    [
      "params not an object",
      (d) => (d.classifier.params = null),
      "classifier.params",
      "must be an object; got null",
    ],
    [
      "a param missing",
      (d) => delete d.classifier.params.stdFloor,
      "classifier.params.stdFloor",
      "is missing",
    ],
    [
      "a param out of range",
      (d) => (d.classifier.params.stdFloor = 2),
      "classifier.params.stdFloor",
      "is not valid: The 'stdFloor' parameter of NearestNeighbour1 must be a number in [0, 1]. Got 2 instead",
    ],
    [
      "a reference set that is not an object",
      (d) => (d.classifier.referenceSet = 3),
      "classifier.referenceSet",
      "must be null or an object {rows, cols, data}; got 3",
    ],
    [
      "a reference set field extra",
      (d) => (d.classifier.referenceSet.scale = [1, 1]),
      "classifier.referenceSet.scale",
      "is not part of the pipeline format (known fields: rows, cols, data)",
    ],
    [
      "a reference set field missing",
      (d) => delete d.classifier.referenceSet.data,
      "classifier.referenceSet.data",
      "is missing",
    ],
    [
      "reference rows",
      (d) => (d.classifier.referenceSet.rows = 0),
      "classifier.referenceSet.rows",
      "must be an integer >= 1; got 0",
    ],
    [
      "reference rows not integer",
      (d) => (d.classifier.referenceSet.rows = 1.5),
      "classifier.referenceSet.rows",
      "must be an integer >= 1; got 1.5",
    ],
    [
      "reference cols",
      (d) => (d.classifier.referenceSet.cols = 3),
      "classifier.referenceSet.cols",
      "must equal the model's components.cols = 2; got 3",
    ],
    [
      "reference data short",
      (d) => d.classifier.referenceSet.data.pop(),
      "classifier.referenceSet.data",
      "must be an array of 12 finite numbers (6 x 2, row-major); got 11 entries",
    ],
    [
      "reference data not an array",
      (d) => (d.classifier.referenceSet.data = {}),
      "classifier.referenceSet.data",
      "must be an array of 12 finite numbers (6 x 2, row-major); got {}",
    ],
    [
      "a reference value",
      (d) => (d.classifier.referenceSet.data[11] = "1"),
      "classifier.referenceSet.data[11]",
      'must be a finite number; got "1"',
    ],
    [
      "labels short",
      (d) => d.classifier.labels.pop(),
      "classifier.labels",
      "must be an array of 6 class labels (one per row of referenceSet); got 5 labels",
    ],
    [
      "labels not an array",
      (d) => (d.classifier.labels = "ab"),
      "classifier.labels",
      'must be an array of 6 class labels (one per row of referenceSet); got "ab"',
    ],
    [
      "an unknown label",
      (d) => (d.classifier.labels[5] = "c"),
      "classifier.labels[5]",
      'must be one of the model\'s classes (["a","b"]); got "c"',
    ],
    [
      "labels without a reference set",
      (d) => (d.classifier.referenceSet = null),
      "classifier.labels",
      'must be null when referenceSet is null; got ["a","b","a","b","a","b"]',
    ],
    [
      "a model without classes",
      (d) => delete d.model.classes,
      "model.classes",
      "is missing; a pipeline's model is fitted with the class labels",
    ],
    [
      "a model field",
      (d) => (d.model.nFeaturesIn = 0),
      "model.nFeaturesIn",
      "must be an integer >= 1; got 0",
    ],
    [
      "a plug-in's name on a built-in model",
      (d) => (d.model.plugin = "rp.mjs"),
      "model.plugin",
      'must be left out: "pca" is a built-in method, whose model names no plug-in; got "rp.mjs"',
    ],
    [
      "a negative train-zscore scale",
      (d) => (d.model.preprocessing.scale[3] = -1),
      "model.preprocessing.scale[3]",
      'must be a positive number under "train-zscore" (a standard deviation, 1 for a constant column); got -1',
    ],
    ["a model that is not one", (d) => (d.model = []), "model", "expected a JSON object; got []"],
  ])("%s", (_what, change, field, problem) => {
    expect(refused(change)).toEqual([field, problem]);
  });

  it("loads a reference set of one row, the nearest to every query", () => {
    const json = JSON.parse(savedPipeline());
    json.classifier.referenceSet = { rows: 1, cols: 2, data: [0.5, -1] };
    json.classifier.labels = ["b"];
    const p = loadModel(json) as Pipeline;
    expect(p.referenceSet?.rows).toBe(1);
    expect(p.predict(Q.slice(0, 3))).toEqual(["b", "b", "b"]);
    expect(p.toJSON().classifier).toEqual(json.classifier);
  });

  it("restores only a pipeline document, before loading its model", () => {
    const json = { ...JSON.parse(savedPipeline()), format: "sdspcaan-model" };
    const unused = () => {
      throw new Error("the model is not loaded");
    };
    expect(() => Pipeline.restore(json, unused)).toThrow(
      new ModelFormatError("format", 'must be "sdspcaan-pipeline"; got "sdspcaan-model"'),
    );
  });

  it("lets through an error of the estimator's loader that is not about the file", () => {
    const json = JSON.parse(savedPipeline()) as Record<string, unknown>;
    const broken = () => {
      throw new TypeError("the loader broke");
    };
    expect(() => Pipeline.restore(json, broken)).toThrow(new TypeError("the loader broke"));
  });

  it("loads the file as it was saved", () => {
    const saved = savedPipeline();
    expect(JSON.stringify(loadModel(saved).toJSON())).toBe(saved);
    const matrix = loadModel(saved) as Pipeline;
    expect(matrix.referenceSet).toBeInstanceOf(Matrix);
  });
});
