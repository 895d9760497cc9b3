/**
 * The one feature standardiser: x -> (x - center) / scale per column. The protocol's
 * preprocessing (train-zscore, dataset-zscore), a saved model's input
 * standardisation and the 1-NN classifier's distance all use it, with one policy:
 *
 * - center = the column mean, scale = the column standard deviation with divisor
 *   n - 1 (MATLAB's `zscore`, and the NumPy reference's ddof = 1); 0 for one row.
 * - A column whose standard deviation is <= floor * (the largest one) is constant:
 *   its scale is 1 (so it is only centred), and it is not in `kept`. The floor is 0
 *   for preprocessing (only exactly constant columns, as `zscore`) and 1e-10 for the
 *   1-NN classifier, whose projected features can carry pure round-off (see
 *   classify/nearestNeighbour.ts).
 * - Division, not multiplication by 1 / scale, so that values round as the NumPy
 *   reference's do.
 *
 * Means and standard deviations are computed without overflow or underflow for data
 * near the ends of double precision (see columnMeans / columnStd).
 */

import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { checkCallOptions, checkWidth } from "../core/validate.js";
import { columnMeans, columnStd } from "./basic.js";

/** The JSON form (a saved model's "preprocessing"). */
export interface StandardizerJSON {
  /** How the statistics were obtained, e.g. "train-zscore" (informative). */
  method: string;
  /** Per-column centres (the training means). */
  center: number[];
  /** Non-zero divisors (a constant column counts as 1). */
  scale: number[];
}

/**
 * Per-column standardisation x -> (x - center) / scale with the policy above: the
 * input preprocessing of models and pipelines, and the 1-NN classifier's scaling.
 */
export class Standardizer {
  /** How the statistics were obtained, e.g. "train-zscore". */
  readonly method: string;
  /** Per-column centres (the column means). */
  readonly center: Float64Array;
  /** Non-zero divisors; 1 for a constant column. */
  readonly scale: Float64Array;
  /** The non-constant columns, ascending (every column when built from JSON). */
  readonly kept: Int32Array;

  private constructor(method: string, center: Float64Array, scale: Float64Array, kept: Int32Array) {
    this.method = method;
    this.center = center;
    this.scale = scale;
    this.kept = kept;
  }

  /** Statistics of the columns of X (see the file comment for the policy). */
  static fit(X: Matrix, options: { method?: string; floor?: number } = {}) {
    checkCallOptions(options, "Standardizer.fit", ["method", "floor"]);
    const { method = "zscore", floor = 0 } = options;
    const center = columnMeans(X);
    const std = columnStd(X, center);
    let largest = 0;
    for (let j = 0; j < std.length; j++) if (std[j] > largest) largest = std[j];
    const kept: number[] = [];
    const scale = new Float64Array(std.length);
    for (let j = 0; j < std.length; j++) {
      const constant = !(std[j] > 0 && std[j] > floor * largest);
      scale[j] = constant ? 1 : std[j];
      if (!constant) kept.push(j);
    }
    return new Standardizer(method, center, scale, Int32Array.from(kept));
  }

  /** The identity on d columns (centre 0, scale 1): preprocessing "none". */
  static identity(d: number): Standardizer {
    const all = Int32Array.from({ length: d }, (_, j) => j);
    return new Standardizer("none", new Float64Array(d), new Float64Array(d).fill(1), all);
  }

  /** From its JSON; `d` is the expected number of columns. Throws naming `argument`. */
  static fromJSON(json: StandardizerJSON, d: number, argument = "preprocessing"): Standardizer {
    const ok =
      json !== null &&
      typeof json === "object" &&
      typeof json.method === "string" &&
      Array.isArray(json.center) &&
      Array.isArray(json.scale) &&
      json.center.length === d &&
      json.scale.length === d &&
      json.center.every(Number.isFinite) &&
      json.scale.every((v) => Number.isFinite(v) && v !== 0);
    if (!ok) {
      throw new ValidationError(
        argument,
        `"${argument}" must be {method, center, scale} with ${d} finite numbers in center and ${d} finite non-zero numbers in scale.`,
      );
    }
    const all = Int32Array.from({ length: d }, (_, j) => j);
    return new Standardizer(
      json.method,
      Float64Array.from(json.center),
      Float64Array.from(json.scale),
      all,
    );
  }

  /** Number of columns. */
  get dimension(): number {
    return this.center.length;
  }

  /** The JSON form, as a saved model's "preprocessing" holds it. */
  toJSON(): StandardizerJSON {
    return { method: this.method, center: Array.from(this.center), scale: Array.from(this.scale) };
  }

  /**
   * (X[rows] - center) / scale as a new matrix: every row of X, or the listed ones
   * in their order; every column, or with `keptOnly` the non-constant ones. `shift`
   * (one value per output column) is subtracted after the division (an estimator's
   * training mean), and `outRows` rows are allocated, those past the data left zero
   * (the padding of a row-stable product).
   */
  transform(
    X: Matrix,
    {
      rows,
      keptOnly = false,
      shift,
      outRows,
    }: { rows?: Int32Array; keptOnly?: boolean; shift?: Float64Array; outRows?: number } = {},
  ) {
    const d = this.dimension;
    checkWidth(X, "X", d, "features", `the standardisation was fitted on ${d} features`);
    const n = rows === undefined ? X.rows : rows.length;
    const cols = keptOnly ? this.kept : null;
    const p = cols === null ? d : cols.length;
    const out = new Matrix(Math.max(n, outRows ?? 0), p);
    const { center, scale } = this;
    for (let r = 0; r < n; r++) {
      const src = (rows === undefined ? r : rows[r]) * d;
      const dst = r * p;
      if (shift !== undefined) {
        for (let c = 0; c < p; c++) {
          const j = cols === null ? c : cols[c];
          out.data[dst + c] = (X.data[src + j] - center[j]) / scale[j] - shift[c];
        }
      } else if (cols === null) {
        for (let j = 0; j < d; j++) out.data[dst + j] = (X.data[src + j] - center[j]) / scale[j];
      } else {
        for (let c = 0; c < p; c++) {
          const j = cols[c];
          out.data[dst + c] = (X.data[src + j] - center[j]) / scale[j];
        }
      }
    }
    return out;
  }
}
