/**
 * The contract every method follows (scikit-learn style): the constructor only
 * validates and stores options; `fit` learns a d x k projection W and the training
 * mean; `transform(X) = (X - mean) W`; fitted state is separate from the options;
 * models serialise to versioned JSON and load back to bit-identical transforms.
 *
 * A method is one file: a descriptor (descriptor.ts: name, options, grids) and a
 * subclass that implements `fitCore` on prepared training data.
 */
import { now } from "../core/clock.js";
import {
  ContractError,
  ModelFormatError,
  NotFittedError,
  RowValueError,
  SdspcaanError,
  ValidationError,
} from "../core/errors.js";
import { Matrix, type MatrixLike } from "../core/matrix.js";
import { type OptionSchema, resolveOptions } from "../core/options.js";
import { asMatrix, checkWidth, type Label } from "../core/validate.js";
import { clearNegativeZeros } from "../linalg/basic.js";
import { multiplyABt } from "../linalg/kernels/gemm.js";
import { Standardizer } from "../linalg/standardizer.js";
import { checkCallbacks, checkFitOptions, checkTransformOptions } from "./callOptions.js";
import { checkFeatureNames, columnOrder, unnamedColumnsWarning } from "./featureNames.js";
import { FitContext } from "./fitContext.js";
import type {
  FitCallbacks,
  FitInfo,
  FitOptions,
  FitTimings,
  FitWarning,
  StopReason,
  TransformOptions,
} from "./fitReport.js";
import { inverseBasis } from "./inverseBasis.js";
import { methodPlugin } from "./methodPlugins.js";
import {
  checkModelJSON,
  checkParams,
  checkPreprocessing,
  type InputPreprocessing,
  MODEL_FORMAT,
  MODEL_VERSION,
  type ModelJSON,
} from "./modelFormat.js";
import { labelsNeeded, TrainingData } from "./training.js";

export { FitContext } from "./fitContext.js";
export {
  checkModelJSON,
  type InputPreprocessing,
  MODEL_FORMAT,
  MODEL_VERSION,
  MODEL_VERSIONS_READ,
  type ModelJSON,
  PREPROCESSING_METHODS,
} from "./modelFormat.js";

/** A method without diagnostics of its own. */
export type NoDetails = Record<string, never>;

/**
 * What `fitCore` returns: W (d x k) and the fit report without timings. `D` is the
 * method's diagnostics (saved in the model's fitInfo), `A` its in-memory extras.
 */
export interface CoreFitResult<
  D extends object = Record<string, unknown>,
  A extends object = Record<string, unknown>,
> {
  components: Matrix;
  iterations: number;
  converged: boolean;
  stopReason: StopReason;
  objective?: number[];
  lambdaTrace?: number[];
  warnings?: FitWarning[];
  solver: string;
  details?: D;
  /** In-memory extras of the fit that toJSON does not save (e.g. Q, the learned graph). */
  artifacts?: A;
}

/** Deep copy of a JSON-safe value (structuredClone is a Web API not every host has). */
function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

interface FittedState<D extends object, A extends object> {
  artifacts: Readonly<Partial<A>>;
  /** The model is a small pipeline: this standardisation, then the projection. */
  preprocessing: Standardizer | null;
  /** W^T, made once for transform's A B^T product. */
  componentsT?: Matrix;
  /** The d x k matrix B with inverseTransform(Z) = Z B^T + mean: W, or W (W^T W)^-1. */
  inverseBasis?: Matrix;
  components: Matrix;
  mean: Float64Array;
  classes: Label[] | null;
  /** The training columns' names, when the fit was given them. */
  featureNamesIn: string[] | null;
  fitInfo: FitInfo<D>;
}

/**
 * What an estimator knows of its method's declaration: the part of the descriptor
 * (descriptor.ts's `MethodDescriptor`, which extends this) that fitting and saving use.
 */
export interface MethodIdentity<S extends OptionSchema = OptionSchema> {
  /** Lower-case name used in JSON, results files and the CLI, e.g. "sdspca-lpp". */
  readonly name: string;
  /** Name in messages and tables, e.g. "SDSPCA-LPP". */
  readonly displayName: string;
  /** Whether `fit` needs labels. */
  readonly supervised: boolean;
  /** The options, in the order they are documented (and tuned). */
  readonly options: S;
}

/** Set by Estimator's static block: restoredModel's way to its private restoreChecked. */
let restoreChecked: <T extends Estimator>(instance: T, model: ModelJSON) => T;

/**
 * `P`: the options; `D`: the method's diagnostics in `fitInfo.details`; `A`: the
 * in-memory extras of a fit (`artifacts`).
 */
export abstract class Estimator<
  P extends object = Record<string, unknown>,
  D extends object = Record<string, unknown>,
  A extends object = Record<string, unknown>,
> {
  /** The method's declaration: name, options (its whole descriptor: descriptor.ts). */
  readonly descriptor: MethodIdentity;
  /** The validated options (defaults filled in). */
  readonly params: Readonly<P>;
  private state: FittedState<D, A> | null = null;

  /** The options the caller gave (the others took their defaults). */
  private readonly givenOptions: ReadonlySet<string>;

  protected constructor(descriptor: MethodIdentity, options: unknown) {
    this.descriptor = descriptor;
    this.givenOptions = new Set(
      options !== null && typeof options === "object" ? Object.keys(options) : [],
    );
    this.params = Object.freeze(
      resolveOptions<P>(descriptor.displayName, descriptor.options, options),
    );
  }

  /** Lower-case method name used in JSON and the CLI, e.g. "sdspcaan". */
  get method(): string {
    return this.descriptor.name;
  }

  /** Display name used in messages and tables, e.g. "SDSPCAAN". */
  get displayName(): string {
    return this.descriptor.displayName;
  }

  /** Whether `fit` needs labels. */
  get supervised(): boolean {
    return this.descriptor.supervised;
  }

  /** Upper bound of the iteration count reported to onProgress (1 for closed-form methods). */
  protected maxIterations(): number {
    const T = (this.params as { maxIter?: number }).maxIter;
    return typeof T === "number" ? T : 1;
  }

  /**
   * Learns the projection from training data X (n x d) and, for supervised methods,
   * labels y. `options.featureNames` (one per column of X) are kept, so that
   * `transform` can match named columns by name.
   */
  fit(X: MatrixLike, y?: ArrayLike<Label> | null, options: FitOptions = {}): this {
    checkFitOptions(options, `${this.displayName}.fit`);
    if (this.supervised && (y === undefined || y === null)) throw labelsNeeded(this.displayName);
    const data = TrainingData.prepareForOneFit(X, y);
    const names =
      options.featureNames === undefined || options.featureNames === null
        ? null
        : checkFeatureNames(options.featureNames, data.d, "featureNames");
    this.fitPrepared(data, { onProgress: options.onProgress, signal: options.signal });
    this.fitted().featureNamesIn = names;
    return this;
  }

  /** Fits on prepared training data (shared across a hyperparameter grid). */
  fitPrepared(data: TrainingData, callbacks: FitCallbacks = {}): this {
    checkCallbacks(callbacks, `${this.displayName}.fitPrepared`);
    if (this.supervised) data.requireLabels(this.displayName);
    const ctx = new FitContext(this.method, this.maxIterations(), callbacks);
    ctx.checkAborted();
    const t0 = now();
    let core: CoreFitResult<D, A>;
    try {
      core = this.fitCore(data, ctx);
    } catch (err) {
      throw this.namingDefault(err);
    }
    const totalMs = now() - t0;
    const W = core?.components;
    this.checkComponents(W, data);
    clearNegativeZeros(W.data);
    const timings: FitTimings = {
      totalMs,
      eigenMs: ctx.eigenMs,
      graphMs: ctx.graphMs,
      otherMs: Math.max(0, totalMs - ctx.eigenMs - ctx.graphMs),
    };
    this.state = {
      artifacts: Object.freeze({ ...(core.artifacts ?? {}) }),
      preprocessing: null,
      components: W,
      mean: data.mean.slice(),
      classes: data.labels ? [...data.labels.classes] : null,
      featureNamesIn: null,
      fitInfo: {
        iterations: core.iterations,
        converged: core.converged,
        stopReason: core.stopReason,
        objective: core.objective ?? [],
        lambdaTrace: core.lambdaTrace ?? [],
        warnings: core.warnings ?? [],
        timings,
        solver: core.solver,
        details: core.details ?? ({} as D),
      },
    };
    return this;
  }

  /**
   * Refuses components that break the contract (a plug-in's bug; the built-ins keep
   * it): W must be a Matrix of d rows and of the columns the options say, all finite.
   */
  private checkComponents(W: unknown, data: TrainingData): asserts W is Matrix {
    const says = `${this.displayName}'s fitCore returned components`;
    if (!(W instanceof Matrix)) {
      const got = W === null || typeof W !== "object" ? String(W) : "an object that is not one";
      throw new ContractError(
        `${says} that are not a Matrix (got ${got}); a method's components are a d x k Matrix of the sdspcaan package its estimator comes from.`,
      );
    }
    const expected = this.outputDimension(data.labels ? data.labels.classes : null);
    if (W.rows !== data.d || W.cols < 1 || (expected !== null && W.cols !== expected.count)) {
      const k = expected === null ? "k" : String(expected.count);
      throw new ContractError(
        `${says} of ${W.rows} x ${W.cols} for ${data.d} features; they must be ${data.d} x ${k} (one row per feature, one column per component).`,
      );
    }
    // A NaN would be saved as null, in a model file no load accepts, and blamed on X later.
    const t = W.data.findIndex((v) => v - v !== 0);
    if (t >= 0) {
      throw new ContractError(
        `${says} holding ${W.data[t]} at row ${Math.floor(t / W.cols)}, column ${t % W.cols}; a method's components must be finite numbers (the method's fault, not the data's).`,
      );
    }
  }

  /**
   * A refused k that the caller never gave says it was the default: "Got 10 (the
   * default; give k) instead." rather than a number the user cannot find in the call.
   */
  private namingDefault(err: unknown): unknown {
    if (
      !(err instanceof ValidationError) ||
      err.constructor !== ValidationError ||
      err.argument !== "k" ||
      this.givenOptions.has("k")
    ) {
      return err;
    }
    const message = err.message.replace(
      / Got (\S+) instead\.$/,
      " Got $1 (the default; give k) instead.",
    );
    return message === err.message ? err : new ValidationError("k", message);
  }

  /** The method's numerical work on prepared data. */
  protected abstract fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<D, A>;

  /**
   * Projects new data: (X - mean) W, an m x k matrix (after the preprocessing, if one
   * is set; a whitened PCA then divides each column by its standard deviation). When
   * the model has `featureNamesIn` and `options.featureNames` names the columns of X,
   * they are matched by name (reordered, or refused naming the missing and unexpected
   * columns); without names they are taken in the fitted order, and `options.onWarning`
   * hears that the names could not be checked.
   */
  transform(X: MatrixLike, options: TransformOptions = {}): Matrix {
    checkTransformOptions(options, `${this.displayName}.transform`);
    const s = this.fitted();
    const Xm = this.matchColumns(asMatrix(X, "X", { minRows: 0 }), options);
    const p = s.preprocessing ?? Standardizer.identity(Xm.cols);
    // Row-stable product: every row goes through the same GEMM micro-kernel whatever
    // the batch (rows padded with zeros to a multiple of 4, at least 8), so projecting
    // a row alone, in any batch or in any order gives bit-identical values.
    const centred = p.transform(Xm, { shift: s.mean, outRows: paddedRows(Xm.rows) });
    s.componentsT ??= s.components.transpose();
    const out = leadingRows(multiplyABt(centred, s.componentsT), Xm.rows);
    const scale = this.outputScale();
    if (scale !== null) divideColumns(out, scale);
    // Finite input can still overflow in the product (values near 1e308): say so
    // rather than hand back Infinity or NaN.
    const t = firstNonFinite(out.data);
    if (t >= 0) {
      throw new RowValueError(
        "X",
        Math.floor(t / out.cols),
        `projecting it with ${this.displayName} overflows double precision (its values are too large for this model's scale); rescale X as the training data was scaled`,
      );
    }
    return out;
  }

  /**
   * X's columns in the fitted order: matched by name when both the model and
   * `options` have names, else checked by count (and, when only the model has names,
   * taken by position with a warning).
   */
  private matchColumns(Xm: Matrix, options: TransformOptions): Matrix {
    const s = this.fitted();
    const d = s.mean.length;
    const given = options.featureNames;
    const named = given !== undefined && given !== null;
    if (s.featureNamesIn !== null && named) {
      // By name first: a column left out is then named, not only counted.
      const order = columnOrder(
        s.featureNamesIn,
        checkFeatureNames(given, Xm.cols, "featureNames"),
        this.displayName,
      );
      return order === null ? Xm : Xm.selectColumns(order);
    }
    checkWidth(Xm, "X", d, "features", `${this.displayName} is expecting ${d} features as input`);
    if (s.featureNamesIn !== null) {
      options.onWarning?.(unnamedColumnsWarning(this.displayName, s.featureNamesIn));
    }
    return Xm;
  }

  /**
   * Maps projected data back to the input space: Z (m x k) to m x d rows whose
   * projection is Z. With orthonormal components (PCA, the baseline) it is
   * exact, Z W^T + mean (the best reconstruction of X from its projection); otherwise
   * it is the least-squares solution, Z W^+ + mean with W^+ the pseudo-inverse of W
   * (whose rows are the least-norm ones projecting to Z; for a W of lower rank than
   * its width, such as JPCDA's with k < c, those projecting closest to Z). The model's
   * preprocessing is undone after (x * scale + center), and a whitened PCA's scaling
   * before.
   */
  inverseTransform(Z: MatrixLike): Matrix {
    const s = this.fitted();
    const Zm = asMatrix(Z, "Z", { minRows: 0 });
    const k = s.components.cols;
    checkWidth(
      Zm,
      "Z",
      k,
      "columns",
      `${this.displayName} projects to ${k} components (nComponents); give projected data, e.g. the output of transform`,
    );
    const d = s.mean.length;
    const scores = new Matrix(paddedRows(Zm.rows), k);
    scores.data.set(Zm.data);
    const scale = this.outputScale();
    if (scale !== null) multiplyColumns(scores, scale, Zm.rows);
    s.inverseBasis ??= inverseBasis(s.components);
    const out = leadingRows(multiplyABt(scores, s.inverseBasis), Zm.rows);
    const p = s.preprocessing;
    for (let i = 0; i < Zm.rows; i++) {
      const off = i * d;
      for (let j = 0; j < d; j++) {
        const x = out.data[off + j] + s.mean[j];
        out.data[off + j] = p === null ? x : x * p.scale[j] + p.center[j];
      }
    }
    const t = firstNonFinite(out.data);
    if (t >= 0) {
      throw new RowValueError(
        "Z",
        Math.floor(t / d),
        `mapping it back with ${this.displayName} overflows double precision (its values are too large for this model's scale)`,
      );
    }
    return out;
  }

  /**
   * Per-column divisors of the projection (null when none): a whitened PCA's standard
   * deviations. `inverseTransform` multiplies by them first.
   */
  protected outputScale(): Float64Array | null {
    return null;
  }

  /**
   * Records the standardisation x -> (x - center) / scale that was applied to the
   * training data before `fit`, so that `transform` and the saved model apply it to
   * new data first. Pass null to remove it.
   */
  setPreprocessing(preprocessing: InputPreprocessing | null): this {
    const s = this.fitted();
    if (preprocessing !== null) {
      checkPreprocessing(preprocessing, s.mean.length, "preprocessing", (field, problem) => {
        throw new ValidationError("preprocessing", `'${field}' ${problem}.`);
      });
    }
    s.preprocessing =
      preprocessing === null ? null : Standardizer.fromJSON(preprocessing, s.mean.length);
    return this;
  }

  /** The standardisation transform applies before projecting (null when none). */
  get preprocessing(): InputPreprocessing | null {
    return this.fitted().preprocessing?.toJSON() ?? null;
  }

  /** The standardisation transform applies before projecting, as a Standardizer (null when none). */
  get standardizer(): Standardizer | null {
    return this.fitted().preprocessing;
  }

  /** `fit(X, y)` then `transform(X)`. */
  fitTransform(X: MatrixLike, y?: ArrayLike<Label> | null, options: FitOptions = {}): Matrix {
    checkFitOptions(options, `${this.displayName}.fitTransform`);
    return this.fit(X, y, options).transform(X);
  }

  /** Whether `fit` has run. */
  get isFitted(): boolean {
    return this.state !== null;
  }

  /** The projection W (d x k). */
  get components(): Matrix {
    return this.fitted().components;
  }

  /** The training column means. */
  get mean(): Float64Array {
    return this.fitted().mean;
  }

  /** Number of features seen in fit. */
  get nFeaturesIn(): number {
    return this.fitted().mean.length;
  }

  /** Output dimension (columns of W). */
  get nComponents(): number {
    return this.fitted().components.cols;
  }

  /** Training class labels in sorted order (null for an unsupervised fit). */
  get classes(): readonly Label[] | null {
    return this.fitted().classes;
  }

  /** The names of the training columns, when `fit` was given them (else null). */
  get featureNamesIn(): readonly string[] | null {
    return this.fitted().featureNamesIn;
  }

  /**
   * Extras of the last fit kept in memory but not saved by toJSON: for the SDSPCA
   * family `Q` (n x k, Q^T Q = I) and, with a graph, `S` (the last adaptive-neighbour
   * rows, CsrMatrix, before symmetrising) and `gamma`; for PCAN/SPCAN `S`, `gamma` and
   * `P` (the data-span eigenvectors). Empty for a model loaded with fromJSON.
   */
  get artifacts(): Readonly<Partial<A>> {
    return this.fitted().artifacts;
  }

  /** Iterations, convergence, stop reason, traces, warnings and timings of the fit. */
  get fitInfo(): FitInfo<D> {
    return this.fitted().fitInfo;
  }

  private fitted(): FittedState<D, A> {
    if (this.state === null) throw new NotFittedError(this.displayName);
    return this.state;
  }

  /** The versioned JSON form of the fitted model. */
  toJSON(): ModelJSON {
    const s = this.fitted();
    const plugin = methodPlugin(this.method);
    const json: ModelJSON = {
      format: MODEL_FORMAT,
      version: MODEL_VERSION,
      method: this.method,
      ...(plugin !== null ? { plugin } : {}),
      params: { ...(this.params as Record<string, unknown>) },
      nFeaturesIn: s.mean.length,
      mean: Array.from(s.mean),
      components: {
        rows: s.components.rows,
        cols: s.components.cols,
        data: Array.from(s.components.data),
      },
      preprocessing: s.preprocessing ? s.preprocessing.toJSON() : null,
      fitInfo: cloneJson(s.fitInfo) as FitInfo,
    };
    if (s.classes) json.classes = [...s.classes];
    if (s.featureNamesIn) json.featureNamesIn = [...s.featureNamesIn];
    return json;
  }

  /**
   * The number of columns of W a fit with these options gives, checked when a model
   * is loaded, with the rule in words for the message: k, or null when it depends on
   * the data in a way the JSON does not record (LDA's default k). Methods whose
   * output dimension is not k override it (JPCDA: one column per class).
   */
  protected outputDimension(_classes: readonly Label[] | null): {
    /** The number of columns of W. */
    count: number;
    /** Why, in words, for the message when a loaded model disagrees. */
    rule: string;
  } | null {
    const k = (this.params as { k?: unknown }).k;
    if (typeof k !== "number") return null;
    return {
      count: k,
      rule: `params.k is ${k}: a ${this.displayName} model has k components, so one of the two was changed`,
    };
  }

  /** Restores fitted state from JSON already checked by `loadModelState`. */
  protected restore(json: ModelJSON): this {
    this.state = {
      artifacts: Object.freeze({}),
      preprocessing: json.preprocessing
        ? Standardizer.fromJSON(json.preprocessing, json.mean.length)
        : null,
      components: new Matrix(
        json.components.rows,
        json.components.cols,
        Float64Array.from(json.components.data),
      ),
      mean: Float64Array.from(json.mean),
      classes: json.classes ? [...json.classes] : null,
      featureNamesIn: json.featureNamesIn ? [...json.featureNamesIn] : null,
      fitInfo: cloneJson(json.fitInfo) as FitInfo<D>,
    };
    return this;
  }

  /**
   * Loads a model of this class from its JSON (object or string); the method
   * recorded in the JSON must match the class, and its params must be exactly this
   * method's options, valid, and agree with the saved W.
   */
  static fromJSON<T extends Estimator>(this: new (options?: never) => T, json: unknown): T {
    return restoredModel(checkModelJSON(json), (options) => new this(options));
  }

  static {
    // restoredModel's way to the checks and the restore, which stay the class's own.
    restoreChecked = (instance, model) => instance.restoreChecked(model);
  }

  /** This new instance as the fit `model` saved, after checking it fits the method. */
  private restoreChecked(model: ModelJSON): this {
    const supervised = this.supervised;
    if (supervised && model.classes === undefined) {
      throw new ModelFormatError(
        "classes",
        `is missing; a ${this.displayName} model is fitted with labels and saves its classes`,
      );
    }
    const expected = this.outputDimension(model.classes ?? null);
    if (expected !== null && model.components.cols !== expected.count) {
      throw new ModelFormatError(
        "components.cols",
        `is ${model.components.cols}, but ${expected.rule}`,
      );
    }
    return this.restore(model);
  }
}

/**
 * The model a checked model file describes, made by `create` (a class's constructor in
 * `fromJSON`; the method descriptor's `create` in `loadModel`, so that a plug-in class
 * whose constructor takes more than the options, one class for several methods, loads
 * as it fits): the method recorded must be `create`'s, and its params exactly the
 * method's options, valid, and agreeing with the saved W.
 */
export function restoredModel<T extends Estimator>(
  model: ModelJSON,
  create: (options?: never) => T,
): T {
  const probe = create();
  if (probe.method !== model.method) {
    throw new ModelFormatError(
      "method",
      `is "${model.method}", but this is the ${probe.displayName} class ("${probe.method}"); load it with loadModel() or the matching class`,
    );
  }
  checkParams(model.params, probe.descriptor.options, probe.displayName, model.version);
  let instance: T;
  try {
    instance = create(model.params as never);
  } catch (err) {
    if (err instanceof ModelFormatError || !(err instanceof SdspcaanError)) throw err;
    throw new ModelFormatError("params", `are not valid together: ${err.message}`);
  }
  return restoreChecked(instance, model);
}

/** Rows of a row-stable product's operand: m padded to a multiple of 4, at least 8. */
function paddedRows(m: number): number {
  return Math.max(8, Math.ceil(m / 4) * 4);
}

/** The first `m` rows of a padded product. */
function leadingRows(full: Matrix, m: number): Matrix {
  return new Matrix(m, full.cols, full.data.slice(0, m * full.cols));
}

function divideColumns(A: Matrix, by: Float64Array): void {
  const k = A.cols;
  for (let t = 0; t < A.data.length; t++) A.data[t] /= by[t % k];
}

function multiplyColumns(A: Matrix, by: Float64Array, rows: number): void {
  const k = A.cols;
  for (let t = 0; t < rows * k; t++) A.data[t] *= by[t % k];
}

/** The index of the first entry that is not finite, or -1. */
function firstNonFinite(a: Float64Array): number {
  for (let t = 0; t < a.length; t++) if (!Number.isFinite(a[t])) return t;
  return -1;
}
