/**
 * Everything about a training set that does not depend on a method's
 * hyperparameters: the centred X, its mean, the encoded labels, and lazily
 * computed shared quantities (Gram matrix, thin SVD, initial graph, ...).
 * A grid search prepares the data once and fits many models on it.
 */

import { ValidationError } from "../core/errors.js";
import { asMatrix, type EncodedLabels, encodeLabels, type Label } from "../core/validate.js";
import { centerColumns } from "../linalg/basic.js";
import { gramRows } from "../linalg/gemm.js";
import type { Matrix, MatrixLike } from "../linalg/matrix.js";

export class TrainingData {
  /** Column-centred training data, n x d. Never modified. */
  readonly X: Matrix;
  /** Training column means (removed from X, and from new data by `transform`). */
  readonly mean: Float64Array;
  /** Encoded labels, or null when fitted without labels. */
  readonly labels: EncodedLabels | null;
  private readonly cache = new Map<string, unknown>();

  private constructor(X: Matrix, mean: Float64Array, labels: EncodedLabels | null) {
    this.X = X;
    this.mean = mean;
    this.labels = labels;
  }

  /**
   * Validates and prepares training data. `X` is copied (centred), never mutated.
   * Labels are optional here; supervised methods ask for them with `requireLabels`.
   */
  static prepare(X: MatrixLike, y?: ArrayLike<Label> | null): TrainingData {
    const Xm = asMatrix(X, "X", { minRows: 2 });
    const labels = y === undefined || y === null ? null : encodeLabels(y, Xm.rows, "y");
    const { centered, mean } = centerColumns(Xm);
    return new TrainingData(centered, mean, labels);
  }

  /** Number of training samples. */
  get n(): number {
    return this.X.rows;
  }

  /** Number of features. */
  get d(): number {
    return this.X.cols;
  }

  /** Labels for a supervised method; throws naming the method when absent or single-class. */
  requireLabels(owner: string): EncodedLabels {
    if (this.labels === null) {
      throw new ValidationError(
        "y",
        `${owner} is supervised: fit(X, y) needs the class labels y (one per row of X).`,
      );
    }
    if (this.labels.classes.length < 2) {
      throw new ValidationError(
        "y",
        `${owner} needs at least 2 classes in y. Got 1 class (${JSON.stringify(this.labels.classes[0])}).`,
      );
    }
    return this.labels;
  }

  /** Computes a shared quantity once per training set (keys are namespaced by the caller). */
  cached<T>(key: string, make: () => T): T {
    if (this.cache.has(key)) return this.cache.get(key) as T;
    const value = make();
    this.cache.set(key, value);
    return value;
  }

  /** Whether a shared quantity has been computed (for tests and diagnostics). */
  hasCached(key: string): boolean {
    return this.cache.has(key);
  }

  /** X X^T (n x n) of the centred data. Only for the dense path: it is n^2 memory. */
  gram(): Matrix {
    return this.cached("gram", () => gramRows(this.X));
  }

  /** Tr(X X^T) = squared Frobenius norm of the centred X (no Gram matrix needed). */
  gramTrace(): number {
    return this.cached("gramTrace", () => {
      const a = this.X.data;
      let s = 0;
      for (let i = 0; i < a.length; i++) s += a[i] * a[i];
      return s;
    });
  }
}
