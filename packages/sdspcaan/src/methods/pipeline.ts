/**
 * A model that predicts: the paper's whole chain as one object, scikit-learn's
 * Pipeline in spirit. Input standardisation (z-score on the training data by
 * default), then any method's projection, then the paper's classifier (1-NN on the
 * standardised projection, classify/nearestNeighbour.ts).
 *
 * It lives in methods/ beside the Estimator it wraps because it is a model as the
 * methods are: it saves to versioned JSON and `loadModel` (registry.ts) restores it,
 * telling the two formats apart by "format". The standardisation and the feature
 * names are kept by the wrapped estimator (its "preprocessing" and
 * "featureNamesIn"), so the pipeline's `transform` is exactly the estimator's and
 * the saved pipeline's "model" is an ordinary model file.
 *
 * The classifier's reference set is the training projection (n x k numbers) and
 * the training labels: the saved file grows by about k numbers and a label per
 * training sample. `toJSON({ referenceSet: "none" })` leaves them out; that file
 * transforms but refuses `predict`.
 */

import { balancedAccuracy } from "../classify/metrics.js";
import { NearestNeighbour1, type NearestNeighbourOptions } from "../classify/nearestNeighbour.js";
import {
  ModelFormatError,
  NotFittedError,
  SdspcaanError,
  ValidationError,
} from "../core/errors.js";
import { Matrix, type MatrixLike } from "../core/matrix.js";
import { optionNames } from "../core/options.js";
import {
  asMatrix,
  checkCallOptions,
  checkLabelType,
  encodeLabels,
  type Label,
} from "../core/validate.js";
import { Standardizer } from "../linalg/standardizer.js";
import { checkFitOptions, checkTransformOptions } from "./callOptions.js";
import type { Estimator } from "./estimator.js";
import type { FitInfo, FitOptions, TransformOptions } from "./fitReport.js";
import { checkPreprocessing, type InputPreprocessing, type ModelJSON } from "./modelFormat.js";
import {
  checkPipelineHeader,
  checkPipelineJSON,
  PIPELINE_FORMAT,
  PIPELINE_VERSION,
  type PipelineJSON,
} from "./pipelineFormat.js";

/** Options of a {@link Pipeline}. */
export interface PipelineOptions {
  /**
   * The input standardisation: "train-zscore" (the default: each column's mean and
   * standard deviation over the rows given to `fit`), "none", or a fixed
   * standardisation `{ method, center, scale }` (method one of
   * PREPROCESSING_METHODS, e.g. "dataset-zscore" for statistics over the whole data
   * set as the paper's authors did).
   */
  preprocessing?: "train-zscore" | "none" | InputPreprocessing;
  /** Options of the 1-NN classifier (NearestNeighbour1). */
  classifier?: Partial<NearestNeighbourOptions>;
}

/** Options of {@link Pipeline.toJSON}. */
export interface PipelineSaveOptions {
  /**
   * "full" (the default) saves the classifier's reference set (the training
   * projection, n x k numbers, and the n labels) so the loaded pipeline predicts;
   * "none" leaves it out: a much smaller file that transforms but refuses `predict`.
   */
  referenceSet?: "full" | "none";
}

const PIPELINE_OPTION_NAMES = optionNames<PipelineOptions>({
  preprocessing: true,
  classifier: true,
});
const SAVE_OPTION_NAMES = optionNames<PipelineSaveOptions>({ referenceSet: true });

/** All three null when loaded from a file saved without the reference set. */
interface FittedPipeline {
  classifier: NearestNeighbour1 | null;
  referenceSet: Matrix | null;
  labels: Label[] | null;
}

/**
 * Standardiser, method and 1-NN classifier in one model:
 * `new Pipeline(new SDSPCAAN({ k: 20 })).fit(X, y).predict(Xnew)`.
 */
export class Pipeline<E extends Estimator = Estimator> {
  /** The method; fitting the pipeline fits it (on the standardised data). */
  readonly estimator: E;
  /** The input standardisation setting (see {@link PipelineOptions}). */
  readonly preprocessingSetting: "train-zscore" | "none" | InputPreprocessing;
  /** The validated options of the 1-NN classifier. */
  readonly classifierParams: Readonly<NearestNeighbourOptions>;
  private state: FittedPipeline | null = null;

  constructor(estimator: E, options: PipelineOptions = {}) {
    checkCallOptions(options, "Pipeline", PIPELINE_OPTION_NAMES);
    if (
      estimator === null ||
      typeof estimator !== "object" ||
      typeof (estimator as { fit?: unknown }).fit !== "function" ||
      typeof (estimator as { descriptor?: unknown }).descriptor !== "object"
    ) {
      throw new ValidationError(
        "estimator",
        "Pipeline needs a method instance, e.g. new Pipeline(new SDSPCAAN({ k: 20 })).",
      );
    }
    this.estimator = estimator;
    // (null and undefined are the default.)
    const p = options.preprocessing ?? "train-zscore";
    if (p !== "train-zscore" && p !== "none" && (typeof p !== "object" || Array.isArray(p))) {
      throw new ValidationError(
        "preprocessing",
        `The 'preprocessing' option of Pipeline must be "train-zscore", "none" or {method, center, scale}. Got ${JSON.stringify(p)} instead.`,
      );
    }
    this.preprocessingSetting = p;
    this.classifierParams = new NearestNeighbour1(options.classifier).params;
  }

  /**
   * Standardises X, fits the method on it with the labels y, and keeps the
   * standardised training projection with y as the classifier's reference set.
   * `options` carries onProgress and signal (handed to the method's fit) and
   * featureNames (one per column of X).
   */
  fit(X: MatrixLike, y: ArrayLike<Label>, options: FitOptions = {}): this {
    checkFitOptions(options, "Pipeline.fit");
    if (y === undefined || y === null) {
      throw new ValidationError(
        "y",
        "Pipeline.fit(X, y) needs the class labels y (one per row of X): its classifier predicts them.",
      );
    }
    const Xm = asMatrix(X, "X", { minRows: 2 });
    checkLabelType(encodeLabels(y, Xm.rows, "y"), "y", "Pipeline.fit");
    const labels = Array.from(y);
    const standardizer = this.standardizerFor(Xm);
    this.state = null;
    this.estimator.fit(standardizer === null ? Xm : standardizer.transform(Xm), labels, options);
    this.estimator.setPreprocessing(standardizer === null ? null : standardizer.toJSON());
    const P = this.estimator.transform(Xm);
    this.state = {
      classifier: new NearestNeighbour1(this.classifierParams).fit(P, labels),
      referenceSet: P,
      labels,
    };
    return this;
  }

  private standardizerFor(X: Matrix): Standardizer | null {
    const p = this.preprocessingSetting;
    if (p === "none") return null;
    if (p === "train-zscore") return Standardizer.fit(X, { method: "train-zscore" });
    checkPreprocessing(p, X.cols, "preprocessing", (field, problem) => {
      throw new ValidationError("preprocessing", `'${field}' ${problem}.`);
    });
    return Standardizer.fromJSON(p, X.cols);
  }

  private fitted(): FittedPipeline {
    if (this.state === null) throw new NotFittedError("Pipeline");
    return this.state;
  }

  /** The estimator, once the pipeline is fitted (its state is the pipeline's). */
  private fittedEstimator(): E {
    this.fitted();
    return this.estimator;
  }

  /** Standardises and projects X (m x d) to m x k, as the method's transform does. */
  transform(X: MatrixLike, options: TransformOptions = {}): Matrix {
    checkTransformOptions(options, "Pipeline.transform");
    this.fitted();
    return this.estimator.transform(X, options);
  }

  /**
   * Maps projected rows Z (m x k) back to the input space, undoing the standardisation:
   * the method's `inverseTransform` (exact for orthonormal components, least squares
   * otherwise).
   */
  inverseTransform(Z: MatrixLike): Matrix {
    this.fitted();
    return this.estimator.inverseTransform(Z);
  }

  /** The label of the nearest training sample of each row of X, in y's own values. */
  predict(X: MatrixLike, options: TransformOptions = {}): Label[] {
    checkTransformOptions(options, "Pipeline.predict");
    const s = this.fitted();
    if (s.classifier === null) {
      throw new SdspcaanError(
        'This Pipeline was saved without its classifier\'s reference set (toJSON({ referenceSet: "none" })): it can transform but not predict. Save it with the reference set (the default) to predict.',
      );
    }
    return s.classifier.predict(this.estimator.transform(X, options));
  }

  /** Balanced classification accuracy of `predict(X)` against the true labels y. */
  score(X: MatrixLike, y: ArrayLike<Label>, options: TransformOptions = {}): number {
    checkTransformOptions(options, "Pipeline.score");
    const classes = this.classes;
    // Checked here, not by the metric, so that the messages name score's own arguments.
    const Xm = asMatrix(X, "X", { minRows: 1 });
    encodeLabels(y, Xm.rows, "y");
    if (typeof y[0] !== typeof classes[0]) {
      throw new ValidationError(
        "y",
        `y holds ${typeof y[0]} labels, but the pipeline was fitted on ${typeof classes[0]} labels; give the labels as in fit.`,
      );
    }
    return balancedAccuracy(y, this.predict(Xm, options));
  }

  /** Whether `fit` has run (or the pipeline was loaded). */
  get isFitted(): boolean {
    return this.state !== null;
  }

  /** Whether `predict` works: false for a pipeline saved without its reference set. */
  get canPredict(): boolean {
    return this.fitted().classifier !== null;
  }

  /** The method's lower-case name, e.g. "sdspcaan". */
  get method(): string {
    return this.estimator.method;
  }

  /** The method's display name, e.g. "SDSPCAAN". */
  get displayName(): string {
    return this.estimator.displayName;
  }

  /** Training class labels in sorted order. */
  get classes(): readonly Label[] {
    return this.fittedEstimator().classes ?? [];
  }

  /** The names of the training columns, when `fit` was given them (else null). */
  get featureNamesIn(): readonly string[] | null {
    return this.fittedEstimator().featureNamesIn;
  }

  /** Number of features seen in fit. */
  get nFeaturesIn(): number {
    return this.fittedEstimator().nFeaturesIn;
  }

  /** Output dimension k of the projection. */
  get nComponents(): number {
    return this.fittedEstimator().nComponents;
  }

  /** The input standardisation (null for "none"). */
  get preprocessing(): InputPreprocessing | null {
    return this.fittedEstimator().preprocessing;
  }

  /** The method's fit report. */
  get fitInfo(): FitInfo {
    return this.fittedEstimator().fitInfo as FitInfo;
  }

  /** The standardised training projection (n x k) the classifier compares with, or null. */
  get referenceSet(): Matrix | null {
    return this.fitted().referenceSet;
  }

  /** The versioned JSON form; `loadModel` restores it. */
  toJSON(options: PipelineSaveOptions = {}): PipelineJSON {
    checkCallOptions(options, "Pipeline.toJSON", SAVE_OPTION_NAMES);
    const s = this.fitted();
    const mode = options.referenceSet ?? "full";
    if (mode !== "full" && mode !== "none") {
      throw new ValidationError(
        "referenceSet",
        `The 'referenceSet' option of Pipeline.toJSON must be "full" or "none". Got ${JSON.stringify(mode)} instead.`,
      );
    }
    // The reference set and its labels are both kept or both null (see FittedPipeline).
    const P = mode === "full" ? s.referenceSet : null;
    const labels = mode === "full" ? s.labels : null;
    return {
      format: PIPELINE_FORMAT,
      version: PIPELINE_VERSION,
      model: this.estimator.toJSON(),
      classifier: {
        method: "1-nn",
        params: { ...this.classifierParams },
        referenceSet: P === null ? null : { rows: P.rows, cols: P.cols, data: Array.from(P.data) },
        labels: labels === null ? null : [...labels],
      },
    };
  }

  /**
   * Rebuilds a pipeline from its JSON (already parsed); `loadEstimator` loads the
   * saved method's model (registry.ts's loader). Use `loadModel`, which calls this.
   */
  static restore(
    json: Record<string, unknown>,
    loadEstimator: (model: unknown) => Estimator,
  ): Pipeline {
    checkPipelineHeader(json);
    let estimator: Estimator;
    try {
      estimator = loadEstimator(json.model);
    } catch (err) {
      if (!(err instanceof ModelFormatError)) throw err;
      throw new ModelFormatError(err.field === "" ? "model" : `model.${err.field}`, err.problem);
    }
    const model = json.model as ModelJSON;
    const checked = checkPipelineJSON(json, model.components.cols, model.classes);
    const c = checked.classifier;
    const preprocessing: Pipeline["preprocessingSetting"] =
      model.preprocessing === null
        ? "none"
        : model.preprocessing.method === "train-zscore"
          ? "train-zscore"
          : model.preprocessing;
    const pipeline = new Pipeline(estimator, { preprocessing, classifier: c.params });
    if (c.referenceSet === null) {
      pipeline.state = { classifier: null, referenceSet: null, labels: null };
    } else {
      const P = new Matrix(
        c.referenceSet.rows,
        c.referenceSet.cols,
        Float64Array.from(c.referenceSet.data),
      );
      // checkPipelineJSON: labels are null exactly when the reference set is.
      const labels = [...(c.labels as Label[])];
      pipeline.state = {
        classifier: new NearestNeighbour1(pipeline.classifierParams).fit(P, labels),
        referenceSet: P,
        labels,
      };
    }
    return pipeline;
  }
}
