/**
 * A stratified train / validation / test split for users of the library: the paper's
 * protocol (20 % / 40 % / 40 %) cut within each class, seeded, as indices into the
 * caller's rows (scikit-learn's `train_test_split(..., stratify=y)`, with a validation
 * part). The cut is the protocol's own (`stratifiedParts`, splits.ts).
 */
import { ValidationError } from "../core/errors.js";
import { checkOptionNames } from "../core/options.js";
import { Random } from "../core/rng.js";
import { encodeLabels, type Label } from "../core/validate.js";
import { roundedCount, stratifiedParts } from "./splits.js";

/** The fractions and seed of {@link stratifiedSplit}. */
export interface StratifiedSplitOptions {
  /** Fraction of each class for training, in (0, 1). Default 0.2 (the paper's). */
  readonly train?: number;
  /** Fraction of each class for validation, in (0, 1). Default 0.4 (the paper's). */
  readonly validation?: number;
  /**
   * Fraction of each class for testing: what training and validation leave (default),
   * and when given, the three must add up to 1.
   */
  readonly test?: number;
  /** Seed of the permutations: the same seed and labels give the same split. Default 0. */
  readonly seed?: number;
}

/** Row indices of the three parts, each sorted ascending; together they are 0..n-1 once each. */
export interface StratifiedSplit {
  readonly train: Int32Array;
  readonly validation: Int32Array;
  readonly test: Int32Array;
}

function fraction(options: StratifiedSplitOptions, name: "train" | "validation" | "test"): number {
  const v = options[name];
  if (typeof v !== "number" || !(v > 0 && v < 1)) {
    throw new ValidationError(
      name,
      `The '${name}' fraction of stratifiedSplit must be a number in (0, 1). Got ${String(v)} instead.`,
    );
  }
  return v;
}

/**
 * Splits the samples labelled `y` into training, validation and test parts within each
 * class, so that every part has each class in about the same proportion as `y`: per
 * class of size N_c, round(train N_c) samples train, round(validation N_c) validate and
 * the rest test (halves rounded up, as MATLAB's `round`), the class's samples chosen by
 * a permutation seeded with `seed`. A class too small to give each part a sample (with
 * the paper's fractions, fewer than 3 samples) is refused, naming it; the protocol's
 * `makeSplit` (sdspcaan/methods) leaves such a class out of training instead, as the
 * paper's code does.
 *
 * ```ts
 * const { train, validation, test } = stratifiedSplit(y, { seed: 1 });
 * const labels = (part: Int32Array) => Array.from(part, (i) => y[i]);
 * const model = new SDSPCAAN({ k: 20 }).fit(X.selectRows(train), labels(train));
 * ```
 */
export function stratifiedSplit(
  y: ArrayLike<Label>,
  options: StratifiedSplitOptions = {},
): StratifiedSplit {
  if (options === null || typeof options !== "object") {
    throw new ValidationError(
      "options",
      `The options of stratifiedSplit must be an object {train, validation, test, seed}. Got ${String(options)} instead.`,
    );
  }
  checkOptionNames("stratifiedSplit", options, ["train", "validation", "test", "seed"]);
  const n = typeof y?.length === "number" ? y.length : 0;
  const { classes, counts } = encodeLabels(y, n, "y");
  if (n === 0) throw new ValidationError("y", "stratifiedSplit needs labels: y is empty.");
  const train = fraction({ train: 0.2, ...options }, "train");
  const validation = fraction({ validation: 0.4, ...options }, "validation");
  if (options.test !== undefined) {
    const test = fraction(options, "test");
    if (Math.abs(train + validation + test - 1) > 1e-9) {
      throw new ValidationError(
        "test",
        `The fractions of stratifiedSplit must add up to 1. Got train ${train} + validation ${validation} + test ${test} = ${train + validation + test}.`,
      );
    }
  } else if (!(train + validation < 1)) {
    throw new ValidationError(
      "validation",
      `train + validation must be < 1 so that the test part is not empty. Got ${train} + ${validation} = ${train + validation}.`,
    );
  }
  const seed = options.seed ?? 0;
  if (typeof seed !== "number" || !Number.isFinite(seed)) {
    throw new ValidationError(
      "seed",
      `The 'seed' of stratifiedSplit must be a finite number. Got ${String(seed)} instead.`,
    );
  }
  const small: string[] = [];
  for (let c = 0; c < classes.length; c++) {
    const a = roundedCount(train, counts[c]);
    const b = roundedCount(validation, counts[c]);
    if (a < 1 || b < 1 || counts[c] - a - b < 1) {
      small.push(`${JSON.stringify(classes[c])} (${counts[c]}: ${a}/${b}/${counts[c] - a - b})`);
    }
  }
  if (small.length > 0) {
    throw new ValidationError(
      "y",
      `stratifiedSplit needs every class to give each part a sample; with fractions ${train}/${validation} these classes do not (samples: train/validation/test): ${small.join(", ")}. Remove or merge them, or change the fractions.`,
    );
  }
  const parts = stratifiedParts(y, n, { train, val: validation }, new Random(seed));
  const sorted = (part: number[]) => Int32Array.from(part).sort();
  return { train: sorted(parts.train), validation: sorted(parts.val), test: sorted(parts.test) };
}
