/**
 * Feature preprocessing before a split is fitted (SPEC 5). The methods then centre
 * with the training mean themselves.
 *
 * - "train-zscore" (default): z-score every feature with the training rows'
 *   mean and standard deviation, so nothing leaks from validation or test.
 * - "dataset-zscore": z-score with the whole dataset before splitting, as the
 *   authors' scripts do (`X = zscore(X)`).
 * - "none": the features as they are.
 *
 * The standard deviation uses the divisor n - 1 (MATLAB's `zscore`); a feature with
 * zero standard deviation is divided by 1 instead (it is constant, so only centred).
 */

import { ValidationError } from "../core/errors.js";
import type { Matrix, MatrixLike } from "../core/matrix.js";
import { asMatrix } from "../core/validate.js";
import { Standardizer } from "../linalg/standardizer.js";
import type { Split } from "./splits.js";

export const PREPROCESSINGS = ["train-zscore", "dataset-zscore", "none"] as const;
export type Preprocessing = (typeof PREPROCESSINGS)[number];

/** The matrices of one split after preprocessing, and the affine map that was applied. */
export interface PreprocessedSplit {
  readonly train: Matrix;
  readonly val: Matrix;
  readonly test: Matrix;
  /** Subtracted from every feature (zeros for "none"). */
  readonly center: Float64Array;
  /** Every feature was divided by this (ones for "none"; zero stds replaced by 1). */
  readonly scale: Float64Array;
}

/** Checks a preprocessing name; throws naming the allowed values. */
export function checkPreprocessing(value: unknown, name = "preprocess"): Preprocessing {
  if (typeof value !== "string" || !(PREPROCESSINGS as readonly string[]).includes(value)) {
    throw new ValidationError(
      name,
      `The '${name}' option must be one of ${PREPROCESSINGS.map((p) => JSON.stringify(p)).join(", ")}. Got ${JSON.stringify(value)} instead.`,
    );
  }
  return value as Preprocessing;
}

/** Mean and standard deviation (n - 1; zeros replaced by 1) of the columns of X. */
export function zscoreStatistics(X: Matrix): { center: Float64Array; scale: Float64Array } {
  const { center, scale } = Standardizer.fit(X);
  return { center, scale };
}

function checkRows(rows: Int32Array, n: number, part: string, allowEmpty = false): void {
  if (!(rows instanceof Int32Array) || (rows.length === 0 && !allowEmpty)) {
    throw new ValidationError(
      "split",
      `split.${part} must be a non-empty Int32Array of row indices.`,
    );
  }
  for (let i = 0; i < rows.length; i++) {
    if (rows[i] < 0 || rows[i] >= n) {
      throw new ValidationError(
        "split",
        `split.${part}[${i}] is ${rows[i]}, outside [0, ${n - 1}] (X has ${n} rows).`,
      );
    }
  }
}

/**
 * The train/validation/test matrices of `split` after `how`. X is not modified;
 * the returned matrices are new.
 */
export function preprocessSplit(
  X: MatrixLike,
  split: Split,
  how: Preprocessing = "train-zscore",
): PreprocessedSplit {
  const Xm = asMatrix(X, "X", { minRows: 1 });
  checkPreprocessing(how);
  if (split === null || typeof split !== "object") {
    throw new ValidationError("split", "split must be an object {train, val, test}.");
  }
  checkRows(split.train, Xm.rows, "train");
  // An empty validation part: a data set's predefined test split used whole for training.
  checkRows(split.val, Xm.rows, "val", true);
  checkRows(split.test, Xm.rows, "test");
  const standardizer =
    how === "none"
      ? Standardizer.identity(Xm.cols)
      : Standardizer.fit(how === "dataset-zscore" ? Xm : Xm.selectRows(split.train), {
          method: how,
        });
  const { center, scale } = standardizer;
  return {
    train: standardizer.transform(Xm, { rows: split.train }),
    val: standardizer.transform(Xm, { rows: split.val }),
    test: standardizer.transform(Xm, { rows: split.test }),
    center,
    scale,
  };
}
