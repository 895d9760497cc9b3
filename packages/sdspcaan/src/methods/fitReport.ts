/** Types shared by every method: the fit callbacks and the fit report. */

/** What a fit reports after each outer iteration. */
export interface FitProgress {
  /** Lower-case method name, e.g. "sdspcaan". */
  readonly method: string;
  /** 1-based outer iteration just finished. */
  readonly iteration: number;
  /** The iteration cap T. */
  readonly maxIterations: number;
  /** Objective value after this iteration, where the method has one. */
  readonly objective: number | null;
  /** Current rank-control weight lambda, for the adaptive-neighbour methods. */
  readonly lambda: number | null;
  /**
   * The stop test's value after this iteration, where the method stops on one (the
   * fit stops once it falls below `tol`): the change of the iterate under `stopRule`
   * (SDSPCA family, SLNP), the relative change of the objective (JPCDA). How fast it
   * falls tells how far a long fit is from its end. Null for methods that stop
   * otherwise (PCAN, SPCAN: the rank control).
   */
  readonly change: number | null;
  /** The tolerance `change` is compared with, or null with it. */
  readonly tol: number | null;
}

/** Per-call hooks of `fit`: progress reports and cancellation. */
export interface FitCallbacks {
  /** Called after every outer iteration. */
  onProgress?: (progress: FitProgress) => void;
  /** Aborting it makes `fit` throw an AbortError at the next iteration boundary. */
  signal?: AbortSignal;
}

/** What `fit` takes besides the data: the callbacks, and the names of X's columns. */
export interface FitOptions extends FitCallbacks {
  /** One name per column of X (e.g. a CSV header); the model keeps them as `featureNamesIn`. */
  featureNames?: readonly string[] | null;
}

/**
 * What `transform` (and a pipeline's `predict` and `score`) warns about, through
 * `TransformOptions.onWarning`: "unnamed-columns" when the model was fitted with
 * feature names and X comes without them, so its columns are taken in the fitted
 * order unchecked (scikit-learn warns the same). `values.features` is the count.
 */
export interface TransformWarning {
  code: "unnamed-columns";
  message: string;
  values: Record<string, number>;
}

/** What `transform` takes besides the data. */
export interface TransformOptions {
  /**
   * The names of X's columns. When the model was fitted with names, the columns are
   * matched by name (reordered when in another order, refused naming the missing and
   * unexpected ones when they differ); without names they are taken in the fitted
   * order, and `onWarning` hears it.
   */
  featureNames?: readonly string[] | null;
  /** Called with each warning of the call (see {@link TransformWarning}); the library never prints. */
  onWarning?: (warning: TransformWarning) => void;
}

/**
 * Why the fit stopped: closed-form methods stop at once; iterative ones converge,
 * reach T, or (adaptive-neighbour methods) hit the lambda cap.
 */
export type StopReason = "closed-form" | "converged" | "max-iterations" | "lambda-cap";

/**
 * What a fit warns about (`FitWarning.code`), one code per kind of problem:
 *
 * - "max-iterations": an iterative fit stopped at `maxIter` without meeting its stop test;
 * - "lambda-cycle": the rank control's lambda went round a cycle (doubling and halving)
 *   until `maxIter`, so more iterations would not have helped;
 * - "lambda-cap": lambda reached `lambdaCap` with the graph still short of c components;
 * - "eigensolver-tolerance": an inner LOBPCG solve of Z stopped short of its tolerance;
 * - "small-classes", "unit-scale", "k-above-rank", "k-below-classes",
 *   "between-class-rank", "pca-dimensions-above-rank", "tied-neighbours",
 *   "isolated-samples": properties of the data or the options that the result reflects;
 * - "other": a warning read from a model file written before warnings had codes
 *   (model format versions 1 and 2) whose text is not one of the known ones.
 */
export type FitWarningCode =
  | "max-iterations"
  | "lambda-cycle"
  | "lambda-cap"
  | "eigensolver-tolerance"
  | "small-classes"
  | "unit-scale"
  | "k-above-rank"
  | "k-below-classes"
  | "between-class-rank"
  | "pca-dimensions-above-rank"
  | "tied-neighbours"
  | "isolated-samples"
  | "other";

/**
 * A warning of a fit: what happened and what the user can do (`message`, one line),
 * its kind for programs (`code`) and the numbers the message quotes (`values`, by
 * name, e.g. `{ maxIter: 500, change: 9.92, tol: 0.001 }`; null where a number was
 * not finite). JSON-safe; saved in model files.
 */
export interface FitWarning {
  code: FitWarningCode;
  message: string;
  values: Record<string, number | null>;
}

/** Wall-clock time of a fit in milliseconds, split by where it went. */
export interface FitTimings {
  totalMs: number;
  /** Eigen-solves (Z, L, generalised W-steps). */
  eigenMs: number;
  /** Graph work: distances, adaptive-neighbour rows, Laplacian. */
  graphMs: number;
  /** Everything else (forming Z, D updates, stop tests, bookkeeping). */
  otherMs: number;
}

/** What a fitted model reports about its fit. JSON-safe. `D`: the method's own diagnostics. */
export interface FitInfo<D extends object = Record<string, unknown>> {
  /** Outer iterations run (0 for closed-form methods). */
  iterations: number;
  /** True when `stopReason` is "converged" or "closed-form". */
  converged: boolean;
  /** Why the fit stopped. */
  stopReason: StopReason;
  /** Objective after each iteration (empty for closed-form methods). */
  objective: number[];
  /** lambda after each iteration's rank control (empty where there is none). */
  lambdaTrace: number[];
  /**
   * Things the user should know: a fit that stopped at maxIter or at the lambda cap,
   * a lambda that cycled, a class smaller than m + 1, ... (see FitWarningCode).
   */
  warnings: FitWarning[];
  /** Where the fit's time went. */
  timings: FitTimings;
  /** Which eigen-solver path ran: "closed-form", "dense" or "lobpcg". */
  solver: string;
  /** Method-specific diagnostics (effective weights, final eigenvalues, m, ...), typed per method. */
  details: D;
}

/**
 * The part of the fit report an outer loop keeps as it runs (FitInfo's iterations, how
 * it stopped, the traces and the warnings): the iterative methods' loops
 * (sdspcaFamily.ts, pcanFamily.ts) report through it.
 */
export class LoopRecord {
  /** The last iteration run. */
  iterations = 0;
  converged = false;
  stopReason: StopReason = "max-iterations";
  readonly objective: number[] = [];
  readonly lambdaTrace: number[] = [];
  readonly warnings: FitWarning[];

  constructor(warnings: FitWarning[]) {
    this.warnings = warnings;
  }

  /** Records why the loop stops; "converged" also marks the fit converged. */
  stop(reason: StopReason): void {
    this.stopReason = reason;
    if (reason === "converged") this.converged = true;
  }

  /** The record as the fields of a fit's report (CoreFitResult's). */
  fields(): Pick<
    FitInfo,
    "iterations" | "converged" | "stopReason" | "objective" | "lambdaTrace" | "warnings"
  > {
    const { iterations, converged, stopReason, objective, lambdaTrace, warnings } = this;
    return { iterations, converged, stopReason, objective, lambdaTrace, warnings };
  }
}
