/**
 * What a method's `fitCore` is handed besides its data (estimator.ts): the caller's
 * progress callback and AbortSignal, and the time spent in eigen-solves and graphs for
 * the fit's report.
 */
import { now } from "../core/clock.js";
import { throwIfAborted } from "../core/errors.js";
import type { FitCallbacks } from "./fitReport.js";

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

  /**
   * Reports an outer iteration (and checks for abort): its objective, lambda where the
   * method has one, and the stop test's value with its tolerance.
   */
  progress(
    iteration: number,
    objective: number | null,
    lambda: number | null = null,
    stopTest: { readonly change: number; readonly tol: number } | null = null,
  ): void {
    this.checkAborted();
    this.callbacks.onProgress?.({
      method: this.method,
      iteration,
      maxIterations: this.maxIterations,
      objective,
      lambda,
      change: stopTest === null ? null : stopTest.change,
      tol: stopTest === null ? null : stopTest.tol,
    });
  }

  /** Runs `fn`, adding its wall time to the eigen-solve total. */
  timeEigen<T>(fn: () => T): T {
    return this.timed("eigenMs", fn);
  }

  /** Runs `fn`, adding its wall time to the graph total. */
  timeGraph<T>(fn: () => T): T {
    return this.timed("graphMs", fn);
  }

  private timed<T>(total: "eigenMs" | "graphMs", fn: () => T): T {
    const t0 = now();
    try {
      return fn();
    } finally {
      this[total] += now() - t0;
    }
  }
}
