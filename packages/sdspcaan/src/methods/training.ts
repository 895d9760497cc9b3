/**
 * Everything about a training set that does not depend on a method's
 * hyperparameters: the centred X, its mean, the encoded labels, and lazily
 * computed shared quantities (Gram matrix, thin SVD, initial graph, ...).
 * A grid search prepares the data once and fits many models on it.
 */

import { ValidationError } from "../core/errors.js";
import { Matrix, type MatrixLike } from "../core/matrix.js";
import {
  asMatrix,
  checkLabelType,
  type EncodedLabels,
  encodeLabels,
  type Label,
} from "../core/validate.js";
import { columnMeans, subtractRowVector } from "../linalg/basic.js";
import { gramColumns, gramColumnsCentred, gramRows } from "../linalg/kernels/symmetricProducts.js";

/**
 * The range of centred data values every method can handle: Gram matrices and the
 * graph term X X^T L X X^T multiply up to four data values, so beyond about 1e50
 * they overflow double precision and below about 1e-50 they lose all precision to
 * underflow. Data outside is refused with a message that names X, instead of an
 * error from deep inside a solver or a false "constant data" diagnosis.
 */
export const DATA_MAGNITUDE_RANGE = { min: 1e-50, max: 1e50 } as const;

/**
 * Throws a ValidationError naming `name` when the centred data leaves
 * DATA_MAGNITUDE_RANGE: `raw` centred by the column means `mean` on the fly (x - mean,
 * the centred values, without storing them).
 */
export function checkDataMagnitude(raw: Matrix, mean: Float64Array, name: string): void {
  let maxAbs = 0;
  const { rows, cols, data } = raw;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const v = Math.abs(data[i * cols + j] - mean[j]);
      if (!(v <= maxAbs)) maxAbs = v; // also catches NaN / Infinity from an overflowing mean
    }
  }
  if (maxAbs === 0) return; // constant data: the methods say so themselves
  const { min, max } = DATA_MAGNITUDE_RANGE;
  if (Number.isFinite(maxAbs) && maxAbs >= min && maxAbs <= max) return;
  let rawMax = 0;
  for (let i = 0; i < raw.data.length; i++) rawMax = Math.max(rawMax, Math.abs(raw.data[i]));
  const size = Number.isFinite(maxAbs)
    ? `its largest centred |value| is ${maxAbs.toExponential(2)}`
    : `its largest |value| is ${rawMax.toExponential(2)}, too large even to centre`;
  throw new ValidationError(
    name,
    `${name} is out of the range this library can compute with: ${size}, outside [${min}, ${max}] (products of up to four data values must stay within double precision). Rescale ${name}, for example standardise its columns (preprocessing "train-zscore").`,
  );
}

/** The error of a supervised method (`owner`) fitted without labels. */
export function labelsNeeded(owner: string): ValidationError {
  return new ValidationError(
    "y",
    `${owner} is supervised: fit(X, y) needs the class labels y (one per row of X).`,
  );
}

/**
 * Training data prepared once (centred X, encoded labels) with a cache of what fits
 * share (Gram matrix, thin SVD, initial graph), so that a grid search pays for them
 * once: `const data = TrainingData.prepare(X, y); model.fitPrepared(data)`.
 */
export class TrainingData {
  /** Training column means (removed from X, and from new data by `transform`). */
  readonly mean: Float64Array;
  /** Encoded labels, or null when fitted without labels. */
  readonly labels: EncodedLabels | null;
  private readonly cache = new Map<string, unknown>();
  /** The centred X once made; until then `raw` and `mean` stand for it. */
  private centered: Matrix | null;
  private readonly raw: Matrix;

  private constructor(
    raw: Matrix,
    centered: Matrix | null,
    mean: Float64Array,
    labels: EncodedLabels | null,
  ) {
    this.raw = raw;
    this.centered = centered;
    this.mean = mean;
    this.labels = labels;
  }

  /**
   * Validates and prepares training data. `X` is copied (centred), never mutated.
   * Labels are optional here; supervised methods ask for them with `requireLabels`.
   */
  static prepare(X: MatrixLike, y?: ArrayLike<Label> | null): TrainingData {
    const data = TrainingData.prepareForOneFit(X, y);
    data.centered = subtractRowVector(data.raw, data.mean);
    return data;
  }

  /**
   * prepare's checks and means, with the centred copy of X made only when a method
   * asks for `X`: for one fit inside `Estimator.fit`, which holds the caller's X for
   * the duration of the (synchronous) call only, so that a method that needs X only
   * through `columnGram` or `centredClassSums` never pays for an n x d copy (at 10,000
   * x 784 a fresh 63 MB array costs more in page faults than PCA's eigen-solve).
   */
  static prepareForOneFit(X: MatrixLike, y?: ArrayLike<Label> | null): TrainingData {
    const Xm = asMatrix(X, "X", { minRows: 2 });
    const labels = y === undefined || y === null ? null : encodeLabels(y, Xm.rows, "y");
    const mean = columnMeans(Xm);
    checkDataMagnitude(Xm, mean, "X");
    return new TrainingData(Xm, null, mean, labels);
  }

  /** Column-centred training data, n x d. Never modified. */
  get X(): Matrix {
    if (this.centered === null) this.centered = subtractRowVector(this.raw, this.mean);
    return this.centered;
  }

  /** Number of training samples. */
  get n(): number {
    return this.raw.rows;
  }

  /** Number of features. */
  get d(): number {
    return this.raw.cols;
  }

  /**
   * X^T X (d x d) of the centred data, bit for bit gramColumns(X), centring on the way
   * into the kernels' memory when the centred X has not been made.
   */
  columnGram(): Matrix {
    if (this.centered !== null) return gramColumns(this.centered);
    return gramColumnsCentred(this.raw, this.mean) ?? gramColumns(this.X);
  }

  /**
   * H^T X (c x d) for the class indicators H[:, j] = e_j / sqrt(n_j): the sums of the
   * centred rows of each class over sqrt(n_j), rows added in order.
   */
  centredClassSums(codes: ArrayLike<number>, counts: ArrayLike<number>): Matrix {
    const { rows: n, cols: d } = this.raw;
    const c = counts.length;
    const S = new Matrix(c, d);
    const s = S.data;
    const x = this.centered?.data ?? this.raw.data;
    const mean = this.centered === null ? this.mean : new Float64Array(d);
    for (let i = 0; i < n; i++) {
      const row = codes[i] * d;
      const from = i * d;
      for (let a = 0; a < d; a++) s[row + a] += x[from + a] - mean[a];
    }
    for (let j = 0; j < c; j++) {
      const f = 1 / Math.sqrt(counts[j]);
      for (let a = 0; a < d; a++) s[j * d + a] *= f;
    }
    return S;
  }

  /** Labels for a supervised method; throws naming the method when absent or single-class. */
  requireLabels(owner: string): EncodedLabels {
    if (this.labels === null) throw labelsNeeded(owner);
    if (this.labels.classes.length < 2) {
      throw new ValidationError(
        "y",
        `${owner} needs at least 2 classes in y. Got 1 class (${JSON.stringify(this.labels.classes[0])}).`,
      );
    }
    checkLabelType(this.labels, "y", owner);
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
