/**
 * The contract every method follows (scikit-learn style): the constructor only
 * validates and stores options; `fit` learns a d x k projection W and the training
 * mean; `transform(X) = (X - mean) W`; fitted state is separate from the options;
 * models serialise to versioned JSON and load back to bit-identical transforms.
 *
 * A method is one file: a descriptor (descriptor.ts: name, options, grids) and a
 * subclass that implements `fitCore` on prepared training data.
 */
import { NotFittedError, throwIfAborted, ValidationError } from "../core/errors.js";
import { resolveOptions } from "../core/options.js";
import { asMatrix, type Label } from "../core/validate.js";
import { clearNegativeZeros } from "../linalg/basic.js";
import { multiply } from "../linalg/kernels/gemm.js";
import { Matrix, type MatrixLike } from "../linalg/matrix.js";
import type { MethodDescriptor } from "./descriptor.js";
import type { FitCallbacks, FitInfo, FitTimings, StopReason } from "./fitReport.js";
import { TrainingData } from "./training.js";

export const MODEL_FORMAT = "sdspcaan-model";
export const MODEL_VERSION = 1;

/**
 * A feature standardisation applied to the data before the method saw it (e.g. the
 * protocol's train-zscore): transform applies x -> (x - center) / scale first.
 */
export interface InputPreprocessing {
  /** Name of the preprocessing, e.g. "train-zscore" (informative). */
  method: string;
  center: number[];
  /** Non-zero divisors (a constant feature counts as 1). */
  scale: number[];
}

/** The JSON form of a fitted model. */
export interface ModelJSON {
  format: typeof MODEL_FORMAT;
  version: number;
  method: string;
  params: Record<string, unknown>;
  nFeaturesIn: number;
  mean: number[];
  components: { rows: number; cols: number; data: number[] };
  /** Training class labels in sorted order, when the fit had labels. */
  classes?: Label[];
  /** Standardisation applied before the projection (see setPreprocessing). */
  preprocessing?: InputPreprocessing;
  fitInfo: FitInfo;
}

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
  warnings?: string[];
  solver: string;
  details?: D;
  /** In-memory extras of the fit that toJSON does not save (e.g. Q, the learned graph). */
  artifacts?: A;
}

/** Handed to `fitCore`: progress, cancellation and time accounting. */
export class FitContext {
  readonly method: string;
  readonly maxIterations: number;
  private readonly callbacks: FitCallbacks;
  eigenMs = 0;
  graphMs = 0;

  constructor(method: string, maxIterations: number, callbacks: FitCallbacks) {
    this.method = method;
    this.maxIterations = maxIterations;
    this.callbacks = callbacks;
  }

  /** The caller's AbortSignal, for inner solvers that check it themselves. */
  get signal(): AbortSignal | undefined {
    return this.callbacks.signal;
  }

  /** Throws AbortError if the caller's signal fired. */
  checkAborted(): void {
    throwIfAborted(this.callbacks.signal);
  }

  /** Reports an outer iteration (and checks for abort). */
  progress(iteration: number, objective: number | null, lambda: number | null = null): void {
    this.checkAborted();
    this.callbacks.onProgress?.({
      method: this.method,
      iteration,
      maxIterations: this.maxIterations,
      objective,
      lambda,
    });
  }

  /** Runs `fn`, adding its wall time to the eigen-solve total. */
  timeEigen<T>(fn: () => T): T {
    const t0 = now();
    try {
      return fn();
    } finally {
      this.eigenMs += now() - t0;
    }
  }

  /** Runs `fn`, adding its wall time to the graph total. */
  timeGraph<T>(fn: () => T): T {
    const t0 = now();
    try {
      return fn();
    } finally {
      this.graphMs += now() - t0;
    }
  }
}

/** Deep copy of a JSON-safe value (structuredClone is a Web API not every host has). */
function cloneJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function now(): number {
  // performance is a Web API, present in browsers, workers and Node, but not in every
  // JavaScript host (bare embedded engines): fall back to the millisecond clock there.
  return globalThis.performance?.now() ?? Date.now();
}

interface FittedState<D extends object, A extends object> {
  artifacts: Readonly<Partial<A>>;
  preprocessing: InputPreprocessing | null;
  components: Matrix;
  mean: Float64Array;
  classes: Label[] | null;
  fitInfo: FitInfo<D>;
}

/**
 * `P`: the options; `D`: the method's diagnostics in `fitInfo.details`; `A`: the
 * in-memory extras of a fit (`artifacts`).
 */
export abstract class Estimator<
  P extends object = Record<string, unknown>,
  D extends object = Record<string, unknown>,
  A extends object = Record<string, unknown>,
> {
  /** The method's declaration: name, options, grids (see descriptor.ts). */
  readonly descriptor: MethodDescriptor;
  /** The validated options (defaults filled in). */
  readonly params: Readonly<P>;
  private state: FittedState<D, A> | null = null;

  protected constructor(descriptor: MethodDescriptor, options: unknown) {
    this.descriptor = descriptor;
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

  /** Learns the projection from training data X (n x d) and, for supervised methods, labels y. */
  fit(X: MatrixLike, y?: ArrayLike<Label> | null, callbacks: FitCallbacks = {}): this {
    if (this.supervised && (y === undefined || y === null)) {
      throw new ValidationError(
        "y",
        `${this.displayName} is supervised: fit(X, y) needs the class labels y (one per row of X).`,
      );
    }
    return this.fitPrepared(TrainingData.prepare(X, y), callbacks);
  }

  /** Fits on prepared training data (shared across a hyperparameter grid). */
  fitPrepared(data: TrainingData, callbacks: FitCallbacks = {}): this {
    if (this.supervised) data.requireLabels(this.displayName);
    const ctx = new FitContext(this.method, this.maxIterations(), callbacks);
    ctx.checkAborted();
    const t0 = now();
    const core = this.fitCore(data, ctx);
    const totalMs = now() - t0;
    const W = core.components;
    if (W.rows !== data.d) {
      throw new Error(
        `${this.displayName}: internal error, W has ${W.rows} rows for d = ${data.d}`,
      );
    }
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

  /** The method's numerical work on prepared data. */
  protected abstract fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<D, A>;

  /** Projects new data: (X - mean) W, an m x k matrix (after the preprocessing, if one is set). */
  transform(X: MatrixLike): Matrix {
    const s = this.fitted();
    const Xm = asMatrix(X, "X", { minRows: 0 });
    if (Xm.cols !== s.mean.length) {
      throw new ValidationError(
        "X",
        `X has ${Xm.cols} features, but ${this.displayName} is expecting ${s.mean.length} features as input.`,
      );
    }
    const centred = new Matrix(Xm.rows, Xm.cols);
    const d = Xm.cols;
    const p = s.preprocessing;
    for (let i = 0; i < Xm.rows; i++) {
      const off = i * d;
      if (p === null) {
        for (let j = 0; j < d; j++) centred.data[off + j] = Xm.data[off + j] - s.mean[j];
      } else {
        for (let j = 0; j < d; j++) {
          centred.data[off + j] = (Xm.data[off + j] - p.center[j]) / p.scale[j] - s.mean[j];
        }
      }
    }
    const out = multiply(centred, s.components);
    // Finite input can still overflow in the product (values near 1e308): say so
    // rather than hand back Infinity or NaN.
    for (let t = 0; t < out.data.length; t++) {
      if (!Number.isFinite(out.data[t])) {
        const i = Math.floor(t / out.cols);
        throw new ValidationError(
          "X",
          `Projecting row ${i} of X with ${this.displayName} overflows double precision (its values are too large for this model's scale). Rescale X as the training data was scaled.`,
        );
      }
    }
    return out;
  }

  /**
   * Records the standardisation x -> (x - center) / scale that was applied to the
   * training data before `fit`, so that `transform` and the saved model apply it to
   * new data first. Pass null to remove it.
   */
  setPreprocessing(preprocessing: InputPreprocessing | null): this {
    const s = this.fitted();
    if (preprocessing !== null) checkPreprocessing(preprocessing, s.mean.length, "preprocessing");
    s.preprocessing = preprocessing === null ? null : cloneJson(preprocessing);
    return this;
  }

  /** The standardisation transform applies before projecting (null when none). */
  get preprocessing(): InputPreprocessing | null {
    return this.fitted().preprocessing;
  }

  /** `fit(X, y)` then `transform(X)`. */
  fitTransform(X: MatrixLike, y?: ArrayLike<Label> | null, callbacks: FitCallbacks = {}): Matrix {
    return this.fit(X, y, callbacks).transform(X);
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
    const json: ModelJSON = {
      format: MODEL_FORMAT,
      version: MODEL_VERSION,
      method: this.method,
      params: { ...(this.params as Record<string, unknown>) },
      nFeaturesIn: s.mean.length,
      mean: Array.from(s.mean),
      components: {
        rows: s.components.rows,
        cols: s.components.cols,
        data: Array.from(s.components.data),
      },
      fitInfo: cloneJson(s.fitInfo) as FitInfo,
    };
    if (s.classes) json.classes = [...s.classes];
    if (s.preprocessing) json.preprocessing = cloneJson(s.preprocessing);
    return json;
  }

  /** Restores fitted state from JSON already checked by `loadModelState`. */
  protected restore(json: ModelJSON): this {
    this.state = {
      artifacts: Object.freeze({}),
      preprocessing: json.preprocessing ? cloneJson(json.preprocessing) : null,
      components: new Matrix(
        json.components.rows,
        json.components.cols,
        Float64Array.from(json.components.data),
      ),
      mean: Float64Array.from(json.mean),
      classes: json.classes ? [...json.classes] : null,
      fitInfo: cloneJson(json.fitInfo) as FitInfo<D>,
    };
    return this;
  }

  /**
   * Loads a model of this class from its JSON (object or string); the method
   * recorded in the JSON must match the class.
   */
  static fromJSON<T extends Estimator>(this: new (options?: never) => T, json: unknown): T {
    const model = checkModelJSON(json);
    const instance = new this(model.params as never);
    if (instance.method !== model.method) {
      throw new ValidationError(
        "json",
        `This JSON holds a '${model.method}' model, not '${instance.method}'; load it with loadModel() or the matching class.`,
      );
    }
    return instance.restore(model);
  }
}

/** Validates the shape of a model JSON (object or string) and returns it typed. */
export function checkModelJSON(json: unknown): ModelJSON {
  let obj: unknown = json;
  if (typeof json === "string") {
    try {
      obj = JSON.parse(json);
    } catch (err) {
      throw new ValidationError("json", `Model JSON does not parse: ${(err as Error).message}`);
    }
  }
  const bad = (what: string): never => {
    throw new ValidationError("json", `Not a valid sdspcaan model: ${what}.`);
  };
  if (obj === null || typeof obj !== "object") return bad("expected an object");
  const m = obj as Record<string, unknown>;
  if (m.format !== MODEL_FORMAT)
    bad(`"format" must be "${MODEL_FORMAT}", got ${JSON.stringify(m.format)}`);
  if (m.version !== MODEL_VERSION) {
    bad(
      `unsupported "version" ${JSON.stringify(m.version)} (this library reads version ${MODEL_VERSION})`,
    );
  }
  if (typeof m.method !== "string") bad(`"method" must be a string`);
  if (m.params === null || typeof m.params !== "object") bad(`"params" must be an object`);
  const d = m.nFeaturesIn;
  if (typeof d !== "number" || !Number.isInteger(d) || d < 1)
    bad(`"nFeaturesIn" must be a positive integer`);
  const mean = m.mean;
  if (!Array.isArray(mean) || mean.length !== d || !mean.every(Number.isFinite)) {
    bad(`"mean" must be ${d} finite numbers`);
  }
  const c = m.components as Record<string, unknown> | null;
  if (c === null || typeof c !== "object") return bad(`"components" must be an object`);
  const { rows, cols, data } = c;
  if (rows !== d || typeof cols !== "number" || !Number.isInteger(cols) || cols < 1) {
    bad(`"components" must be ${d} x k with k >= 1 (got ${String(rows)} x ${String(cols)})`);
  }
  if (
    !Array.isArray(data) ||
    data.length !== (d as number) * (cols as number) ||
    !data.every(Number.isFinite)
  ) {
    bad(
      `"components.data" must hold ${String(rows)} x ${String(cols)} finite numbers in row-major order`,
    );
  }
  if (m.fitInfo === null || typeof m.fitInfo !== "object") bad(`"fitInfo" must be an object`);
  if (m.classes !== undefined && !Array.isArray(m.classes)) bad(`"classes" must be an array`);
  if (m.preprocessing !== undefined) checkPreprocessing(m.preprocessing, d as number, "json");
  return m as unknown as ModelJSON;
}

function checkPreprocessing(p: unknown, d: number, argument: string): void {
  const q = p as Partial<InputPreprocessing> | null;
  const ok =
    q !== null &&
    typeof q === "object" &&
    typeof q.method === "string" &&
    Array.isArray(q.center) &&
    Array.isArray(q.scale) &&
    q.center.length === d &&
    q.scale.length === d &&
    q.center.every(Number.isFinite) &&
    q.scale.every((v) => Number.isFinite(v) && v !== 0);
  if (!ok) {
    throw new ValidationError(
      argument,
      `"preprocessing" must be {method, center, scale} with ${d} finite numbers in center and ${d} finite non-zero numbers in scale.`,
    );
  }
}
