/**
 * Classification metrics: balanced classification accuracy (BCA, the paper's
 * performance measure), plain accuracy, per-class recall and the confusion matrix.
 * Labels are numbers or strings (compared with ===), as everywhere in sdspcaan.
 */
import { ValidationError } from "../core/errors.js";
import { compareLabels, type EncodedLabels, encodeLabels, type Label } from "../core/validate.js";

/** Checks a (yTrue, yPred) pair: same non-zero length, labels of one kind. */
function checkPair(yTrue: ArrayLike<Label>, yPred: ArrayLike<Label>): EncodedLabels {
  if (yTrue === null || typeof yTrue !== "object" || typeof yTrue.length !== "number") {
    throw new ValidationError(
      "yTrue",
      `yTrue must be an array of class labels (numbers or strings). Got ${String(yTrue)}.`,
    );
  }
  if (yTrue.length === 0) {
    throw new ValidationError(
      "yTrue",
      "yTrue must hold at least 1 label: a metric of an empty set is undefined. Got 0 labels.",
    );
  }
  if (yPred === null || typeof yPred !== "object" || typeof yPred.length !== "number") {
    throw new ValidationError(
      "yPred",
      `yPred must be an array of class labels (numbers or strings). Got ${String(yPred)}.`,
    );
  }
  if (yPred.length !== yTrue.length) {
    throw new ValidationError(
      "yPred",
      `yPred has ${yPred.length} labels, but yTrue has ${yTrue.length}; give one prediction per true label.`,
    );
  }
  const encoded = encodeLabels(yTrue, yTrue.length, "yTrue");
  encodeLabels(yPred, yPred.length, "yPred");
  // A string "1" never equals the number 1: mixing kinds would silently score 0.
  if (typeof yTrue[0] !== typeof yPred[0]) {
    throw new ValidationError(
      "yPred",
      `yPred holds ${typeof yPred[0]} labels but yTrue holds ${typeof yTrue[0]} labels; use the same kind for both.`,
    );
  }
  return encoded;
}

/** Per-class recall over the classes present in yTrue (sorted label order). */
export interface ClassRecall {
  /** The classes present in yTrue, sorted (numbers ascending, strings by code unit). */
  readonly classes: readonly Label[];
  /** Fraction of each class's samples predicted as that class. */
  readonly recall: Float64Array;
  /** Number of samples of each class in yTrue. */
  readonly support: Int32Array;
}

/**
 * Recall of each class present in yTrue. A prediction of a class that does not
 * occur in yTrue simply counts as a miss for the true class of that sample.
 */
export function perClassRecall(yTrue: ArrayLike<Label>, yPred: ArrayLike<Label>): ClassRecall {
  const { codes, classes, counts } = checkPair(yTrue, yPred);
  const hits = new Int32Array(classes.length);
  for (let i = 0; i < codes.length; i++) if (yPred[i] === yTrue[i]) hits[codes[i]]++;
  const recall = new Float64Array(classes.length);
  for (let c = 0; c < classes.length; c++) recall[c] = hits[c] / counts[c];
  return { classes, recall, support: counts };
}

/**
 * Balanced classification accuracy: the mean over the classes present in yTrue of
 * the per-class recall (the paper's measure, after Wu et al. 2016). It lies in
 * [0, 1], is 1 exactly for perfect predictions, and equals accuracy when every
 * class of yTrue has the same number of samples.
 */
export function balancedAccuracy(yTrue: ArrayLike<Label>, yPred: ArrayLike<Label>): number {
  const { recall } = perClassRecall(yTrue, yPred);
  let s = 0;
  for (let c = 0; c < recall.length; c++) s += recall[c];
  return s / recall.length;
}

/** Short name for {@link balancedAccuracy}. */
export const bca = balancedAccuracy;

/** Fraction of samples whose prediction equals the true label. */
export function accuracy(yTrue: ArrayLike<Label>, yPred: ArrayLike<Label>): number {
  checkPair(yTrue, yPred);
  let hits = 0;
  for (let i = 0; i < yTrue.length; i++) if (yPred[i] === yTrue[i]) hits++;
  return hits / yTrue.length;
}

/** A confusion matrix and the class order of its rows and columns. */
export interface ConfusionMatrix {
  /** Row i and column i both stand for classes[i]. */
  readonly classes: readonly Label[];
  /** counts[i][j] = number of samples of true class i predicted as class j. */
  readonly counts: number[][];
}

/**
 * Confusion matrix with rows = true class and columns = predicted class. The class
 * order is `labels` when given (every label of yTrue and yPred must be in it), else
 * the sorted union of the labels in yTrue and yPred.
 */
export function confusionMatrix(
  yTrue: ArrayLike<Label>,
  yPred: ArrayLike<Label>,
  labels?: readonly Label[],
): ConfusionMatrix {
  checkPair(yTrue, yPred);
  let classes: Label[];
  if (labels === undefined) {
    const seen = new Set<Label>();
    for (let i = 0; i < yTrue.length; i++) {
      seen.add(yTrue[i]);
      seen.add(yPred[i]);
    }
    classes = [...seen].sort(compareLabels);
  } else {
    if (!Array.isArray(labels) || labels.length === 0) {
      throw new ValidationError(
        "labels",
        `labels must be a non-empty array of class labels. Got ${String(labels)}.`,
      );
    }
    encodeLabels(labels, labels.length, "labels");
    if (new Set(labels).size !== labels.length) {
      throw new ValidationError("labels", "labels must not repeat a class.");
    }
    classes = [...labels];
  }
  const index = new Map<Label, number>();
  classes.forEach((c, i) => {
    index.set(c, i);
  });
  const counts = classes.map(() => new Array<number>(classes.length).fill(0));
  for (let i = 0; i < yTrue.length; i++) {
    const a = index.get(yTrue[i]);
    const b = index.get(yPred[i]);
    if (a === undefined || b === undefined) {
      const [name, value] = a === undefined ? ["yTrue", yTrue[i]] : ["yPred", yPred[i]];
      throw new ValidationError(
        "labels",
        `${name}[${i}] is ${JSON.stringify(value)}, which is not in labels (${classes.map((c) => JSON.stringify(c)).join(", ")}).`,
      );
    }
    counts[a][b]++;
  }
  return { classes, counts };
}
