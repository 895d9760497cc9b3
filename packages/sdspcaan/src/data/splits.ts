/**
 * Train / validation / test splits of the protocol (SPEC 5, paper Section III-C):
 * random 20 % / 40 % / 40 % partitions, not stratified unless asked, 10 seeded
 * repeats. The split of repeat r of a dataset depends only on (seed, dataset, r),
 * so any repeat can be regenerated alone, and splits can also come from a file.
 */
import { ValidationError } from "../core/errors.js";
import { checkOptionNames, optionNames } from "../core/options.js";
import { plural } from "../core/plural.js";
import { deriveSeed, Random } from "../core/rng.js";
import { checkCallOptions, encodeLabels, type Label } from "../core/validate.js";

/** One partition of the sample indices 0..N-1; each part sorted ascending. */
export interface Split {
  readonly train: Int32Array;
  readonly val: Int32Array;
  readonly test: Int32Array;
}

/** Fractions of the samples that go to training and validation; test gets the rest. */
export interface SplitFractions {
  readonly train: number;
  readonly val: number;
}

/** The paper's 20 % training, 40 % validation (and so 40 % test). */
export const PAPER_FRACTIONS: SplitFractions = Object.freeze({ train: 0.2, val: 0.4 });

/**
 * round(fraction * n) with halves rounded up (MATLAB's `round`, which the authors
 * used; Python's `round` would go to the even neighbour). With the paper's
 * fractions a half never occurs: 0.2 N and 0.4 N have fractional parts in
 * {0, .2, .4, .6, .8}. The product is first snapped to 9 decimals so that, for a
 * custom fraction, 0.3 x 5 counts as the exact half 1.5 it stands for.
 */
export function roundedCount(fraction: number, n: number): number {
  const v = Math.round(fraction * n * 1e9) / 1e9;
  return Math.floor(v + 0.5);
}

function checkFractions(fractions: SplitFractions): void {
  if (fractions === null || typeof fractions !== "object") {
    throw new ValidationError(
      "fractions",
      `fractions must be an object {train, val}. Got ${String(fractions)}.`,
    );
  }
  const { train, val } = fractions;
  for (const [name, v] of [
    ["train", train],
    ["val", val],
  ] as const) {
    if (typeof v !== "number" || !(v > 0 && v < 1)) {
      throw new ValidationError(
        "fractions",
        `fractions.${name} must be a number in (0, 1). Got ${String(v)} instead.`,
      );
    }
  }
  if (!(train + val < 1)) {
    throw new ValidationError(
      "fractions",
      `fractions.train + fractions.val must be < 1 so that the test part is not empty. Got ${train} + ${val} = ${train + val}.`,
    );
  }
}

function checkN(n: unknown): number {
  if (typeof n !== "number" || !Number.isInteger(n) || n < 3) {
    throw new ValidationError(
      "n",
      `The number of samples 'n' must be an integer in [3, inf) so that training, validation and test each get a sample. Got ${String(n)} instead.`,
    );
  }
  return n;
}

/**
 * Part sizes for N samples: train = round(0.2 N), validation = round(0.4 N), test =
 * the rest (e.g. N = 5 -> 1/2/2, N = 7 -> 1/3/3, N = 8 -> 2/3/3, N = 165 -> 33/66/66).
 * Throws when a part would be empty.
 */
export function splitSizes(
  n: number,
  fractions: SplitFractions = PAPER_FRACTIONS,
): { train: number; val: number; test: number } {
  checkN(n);
  checkFractions(fractions);
  const train = roundedCount(fractions.train, n);
  const val = roundedCount(fractions.val, n);
  const test = n - train - val;
  if (train < 1 || val < 1 || test < 1) {
    throw new ValidationError(
      "n",
      `With n = ${n} and fractions ${fractions.train}/${fractions.val} the split would be ${train}/${val}/${test} (train/val/test); every part needs at least 1 sample.`,
    );
  }
  return { train, val, test };
}

/** The seed of the split of repeat `repeat` of `dataset` under the base seed `seed`. */
export function splitSeed(seed: number, dataset: string, repeat: number): number {
  return deriveSeed(seed, dataset, repeat);
}

/** How to draw one split. */
export interface SplitOptions {
  /** Base seed of the experiment. */
  readonly seed: number;
  /** Dataset name: part of the derived seed, so datasets get unrelated splits. */
  readonly dataset: string;
  /** 0-based repeat number. */
  readonly repeat: number;
  /** Split each class separately with the same fractions (needs `y`). Default false. */
  readonly stratify?: boolean;
  /** Labels, one per sample; required when `stratify` is true. */
  readonly y?: ArrayLike<Label>;
  /** Default: the paper's 0.2 / 0.4. */
  readonly fractions?: SplitFractions;
}

function sortedPart(values: ArrayLike<number>): Int32Array {
  return Int32Array.from(values).sort();
}

function checkSeedParts(options: SplitOptions): void {
  if (options === null || typeof options !== "object") {
    throw new ValidationError(
      "options",
      `The split options must be an object {seed, dataset, repeat}. Got ${String(options)}.`,
    );
  }
  if (typeof options.seed !== "number" || !Number.isFinite(options.seed)) {
    throw new ValidationError(
      "seed",
      `The 'seed' of a split must be a finite number. Got ${String(options.seed)} instead.`,
    );
  }
  if (typeof options.dataset !== "string" || options.dataset.length === 0) {
    throw new ValidationError(
      "dataset",
      `The 'dataset' of a split must be a non-empty string (its name). Got ${JSON.stringify(options.dataset)} instead.`,
    );
  }
  const r = options.repeat;
  if (typeof r !== "number" || !Number.isInteger(r) || r < 0) {
    throw new ValidationError(
      "repeat",
      `The 'repeat' of a split must be an integer in [0, inf). Got ${String(r)} instead.`,
    );
  }
}

/**
 * The split of one (dataset, repeat): a uniformly random permutation from the seed
 * deriveSeed(seed, dataset, repeat); its first round(0.2 N) entries train, the next
 * round(0.4 N) validate, the rest test. Stratified: each class (in sorted label
 * order) is permuted and cut the same way with its own count, as the NumPy
 * reference's make_splits does; a class with 1 or 2 samples then has none in
 * training. Each part is returned sorted ascending, so a split is a set and the
 * training rows keep the dataset's order.
 */
export function makeSplit(n: number, options: SplitOptions): Split {
  checkN(n);
  checkSeedParts(options);
  checkOptionNames("makeSplit", options, SPLIT_OPTION_NAMES);
  const fractions = options.fractions ?? PAPER_FRACTIONS;
  const rng = new Random(splitSeed(options.seed, options.dataset, options.repeat));
  if (!options.stratify) {
    const { train, val } = splitSizes(n, fractions);
    const perm = rng.permutation(n);
    return {
      train: sortedPart(perm.subarray(0, train)),
      val: sortedPart(perm.subarray(train, train + val)),
      test: sortedPart(perm.subarray(train + val)),
    };
  }
  checkFractions(fractions);
  if (options.y === undefined) {
    throw new ValidationError("y", "A stratified split needs the labels 'y' (one per sample).");
  }
  const { train, val, test, classes } = stratifiedParts(options.y, n, fractions, rng);
  for (const [name, part] of [
    ["training", train],
    ["validation", val],
    ["test", test],
  ] as const) {
    if (part.length === 0) {
      throw new ValidationError(
        "y",
        `The stratified split of ${n} samples in ${classes} classes leaves the ${name} part empty (every class is too small for fractions ${fractions.train}/${fractions.val}).`,
      );
    }
  }
  return { train: sortedPart(train), val: sortedPart(val), test: sortedPart(test) };
}

/**
 * Each class (in sorted label order) permuted with `rng` and cut as `roundedCount` cuts
 * N, as the NumPy reference's make_splits does: the parts, in class order (unsorted),
 * and the number of classes.
 */
export function stratifiedParts(
  y: ArrayLike<Label>,
  n: number,
  fractions: SplitFractions,
  rng: Random,
): { train: number[]; val: number[]; test: number[]; classes: number } {
  const { codes, classes, counts } = encodeLabels(y, n, "y");
  const members: number[][] = classes.map(() => []);
  for (let i = 0; i < n; i++) members[codes[i]].push(i);
  const train: number[] = [];
  const val: number[] = [];
  const test: number[] = [];
  for (let c = 0; c < classes.length; c++) {
    const idx = members[c];
    const perm = rng.permutation(counts[c]);
    const a = roundedCount(fractions.train, counts[c]);
    const b = a + roundedCount(fractions.val, counts[c]);
    for (let t = 0; t < perm.length; t++) {
      const i = idx[perm[t]];
      if (t < a) train.push(i);
      else if (t < b) val.push(i);
      else test.push(i);
    }
  }
  return { train, val, test, classes: classes.length };
}

const SPLIT_OPTION_NAMES = optionNames<SplitOptions>({
  seed: true,
  dataset: true,
  repeat: true,
  stratify: true,
  y: true,
  fractions: true,
});
const SPLITS_OPTION_NAMES = [...SPLIT_OPTION_NAMES.filter((o) => o !== "repeat"), "repeats"];

/** The splits of repeats 0..repeats-1 (each one exactly `makeSplit` of that repeat). */
export function makeSplits(
  n: number,
  options: Omit<SplitOptions, "repeat"> & { readonly repeats: number },
): Split[] {
  checkCallOptions(options, "makeSplits", SPLITS_OPTION_NAMES);
  const { repeats, ...each } = options;
  if (typeof repeats !== "number" || !Number.isInteger(repeats) || repeats < 1) {
    throw new ValidationError(
      "repeats",
      `The number of 'repeats' must be an integer in [1, inf). Got ${String(repeats)} instead.`,
    );
  }
  const out: Split[] = [];
  for (let r = 0; r < repeats; r++) out.push(makeSplit(n, { ...each, repeat: r }));
  return out;
}

/** The JSON form of splits (the format `parseSplitFile` reads), with any extra fields. */
export function splitsToJSON(
  splits: readonly Split[],
  extra: Record<string, unknown> = {},
): { index_base: 0; splits: Array<{ train: number[]; val: number[]; test: number[] }> } {
  return {
    ...extra,
    index_base: 0,
    splits: splits.map((s) => ({
      train: Array.from(s.train),
      val: Array.from(s.val),
      test: Array.from(s.test),
    })),
  };
}

/** Options of {@link parseSplitFile}. */
export interface SplitFileOptions {
  /**
   * Accept splits that leave some samples out of all three parts (they must still
   * be disjoint and in range). Default false: each split must be a partition of
   * 0..N-1, which also catches a file written with the other index base.
   */
  readonly allowSubset?: boolean;
}

const PARTS = ["train", "val", "test"] as const;

/**
 * Reads an explicit split file:
 * `{"index_base": 0, "splits": [{"train": [...], "val": [...], "test": [...]}]}`.
 * `index_base` is 0 or 1 and required: the NumPy reference and this tool write 0,
 * MATLAB users 1, and guessing would silently shift every index by one (a 1-based
 * file whose indices all fit 0..N-1 reads without an error). Other top-level fields
 * are ignored. Each split must have
 * non-empty, integer, in-range, pairwise disjoint parts that together cover every
 * sample (unless `allowSubset`). Errors name the split, the part, the position and
 * the offending index. Returns 0-based splits with each part sorted.
 */
export function parseSplitFile(
  json: string | unknown,
  n: number,
  options: SplitFileOptions = {},
): Split[] {
  checkN(n);
  checkCallOptions(options, "parseSplitFile", ["allowSubset"]);
  let obj: unknown = json;
  if (typeof json === "string") {
    try {
      obj = JSON.parse(json);
    } catch (err) {
      throw new ValidationError(
        "splits",
        `The split file is not valid JSON: ${(err as Error).message}`,
      );
    }
  }
  const fail = (msg: string): never => {
    throw new ValidationError("splits", msg);
  };
  if (obj === null || typeof obj !== "object" || Array.isArray(obj)) {
    return fail(
      'The split file must hold an object {"index_base": 0, "splits": [{"train": [...], "val": [...], "test": [...]}, ...]}.',
    );
  }
  const file = obj as Record<string, unknown>;
  if (file.index_base === undefined) {
    fail(
      'The split file has no "index_base": add "index_base": 0 if its indices start at 0 (NumPy, and the files this tool writes) or "index_base": 1 if they start at 1 (MATLAB).',
    );
  }
  const base = file.index_base;
  if (base !== 0 && base !== 1) {
    fail(`"index_base" must be 0 or 1. Got ${JSON.stringify(file.index_base)} instead.`);
  }
  const b = base as number;
  const list = file.splits;
  if (!Array.isArray(list) || list.length === 0) {
    return fail(`"splits" must be a non-empty array of {train, val, test} objects.`);
  }
  const owner = new Int8Array(n);
  return list.map((entry, s): Split => {
    const where = `splits[${s}]`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      fail(`${where} must be an object {"train": [...], "val": [...], "test": [...]}.`);
    }
    owner.fill(-1);
    const parts: Int32Array[] = [];
    PARTS.forEach((part, p) => {
      const raw = (entry as Record<string, unknown>)[part];
      if (!Array.isArray(raw) || raw.length === 0) {
        fail(`${where}.${part} must be a non-empty array of sample indices.`);
      }
      const arr = raw as unknown[];
      const out = new Int32Array(arr.length);
      for (let i = 0; i < arr.length; i++) {
        const v = arr[i];
        if (typeof v !== "number" || !Number.isInteger(v)) {
          fail(`${where}.${part}[${i}] is ${JSON.stringify(v)}; sample indices must be integers.`);
        }
        const idx = (v as number) - b;
        if (idx < 0 || idx >= n) {
          fail(
            `${where}.${part}[${i}] is ${v}, outside [${b}, ${n - 1 + b}] (index_base ${b}, N = ${n}).`,
          );
        }
        if (owner[idx] >= 0) {
          const first = PARTS[owner[idx]];
          fail(
            first === part
              ? `${where}.${part} lists index ${v} twice; the parts of a split must not repeat a sample.`
              : `${where}: index ${v} is in both ${first} and ${part}; the parts of a split must be disjoint.`,
          );
        }
        owner[idx] = p;
        out[i] = idx;
      }
      parts.push(out.sort());
    });
    if (!options.allowSubset) {
      const missing: number[] = [];
      for (let i = 0; i < n; i++) if (owner[i] < 0) missing.push(i + b);
      if (missing.length > 0) {
        fail(
          `${where} does not use sample index ${missing[0]}${missing.length > 1 ? ` (nor ${plural(missing.length - 1, "other")})` : ""}; each split must be a partition of the ${n} samples: every index from ${b} to ${n - 1 + b} in exactly one of train, val and test.`,
        );
      }
    }
    return { train: parts[0], val: parts[1], test: parts[2] };
  });
}

/**
 * Fraction of a predefined training set that `predefinedTestSplit` sets aside for
 * validation when asked to: one sixth, so Fashion-MNIST's 60,000 training images give
 * 50,000 for training and 10,000 for validation, as many as its test set.
 */
export const PREDEFINED_VAL_FRACTION = 1 / 6;

/**
 * The split of a data set that comes with its own test set (rows `testRows` of its N
 * samples): test = those rows; the other rows are the training set, all of it (`val`
 * empty: `evaluate`) or, with `validation`, a seeded random sixth of it held out for
 * validation (`experiment`'s model selection). The validation draw depends only on
 * (seed, dataset, repeat), like `makeSplit`'s.
 */
export function predefinedTestSplit(
  n: number,
  testRows: Int32Array,
  options: { validation: boolean; seed?: number; dataset?: string; repeat?: number },
): Split {
  checkN(n);
  const isTest = new Uint8Array(n);
  for (let i = 0; i < testRows.length; i++) {
    const r = testRows[i];
    if (!Number.isInteger(r) || r < 0 || r >= n || isTest[r] === 1) {
      throw new ValidationError(
        "testRows",
        `testRows[${i}] is ${r}: the predefined test rows must be distinct indices in [0, ${n - 1}].`,
      );
    }
    isTest[r] = 1;
  }
  const trainRows: number[] = [];
  for (let i = 0; i < n; i++) if (isTest[i] === 0) trainRows.push(i);
  if (trainRows.length < 2 || testRows.length === 0) {
    throw new ValidationError(
      "testRows",
      `A predefined test set of ${testRows.length} of ${n} samples leaves ${trainRows.length} for training; both parts need samples.`,
    );
  }
  const test = Int32Array.from(testRows).sort();
  if (!options.validation) {
    return { train: Int32Array.from(trainRows), val: new Int32Array(0), test };
  }
  const rng = new Random(splitSeed(options.seed ?? 0, options.dataset ?? "", options.repeat ?? 0));
  const order = rng.permutation(trainRows.length);
  const nVal = Math.max(1, roundedCount(PREDEFINED_VAL_FRACTION, trainRows.length));
  const val = Int32Array.from(order.subarray(0, nVal), (t) => trainRows[t]).sort();
  const train = Int32Array.from(order.subarray(nVal), (t) => trainRows[t]).sort();
  return { train, val, test };
}

/**
 * The classes with samples in the validation or test part of `split` but none in
 * its training part: 1-NN can never predict them, so each scores a recall of 0 and
 * the BCA is capped at (c - m) / c. Empty when every class trains.
 */
export function classesMissingFromTraining(y: ArrayLike<Label>, split: Split): Label[] {
  const trained = new Set<Label>();
  for (const i of split.train) trained.add(y[i]);
  const missing = new Set<Label>();
  for (const part of [split.val, split.test]) {
    for (const i of part) if (!trained.has(y[i])) missing.add(y[i]);
  }
  return [...missing];
}

/**
 * The warning for {@link classesMissingFromTraining} with the numbers it quotes: how
 * many classes have no training sample (`classes`), how many the data has
 * (`totalClasses`), and the bound on the BCA (`bcaBound`, (c - missing) / c). Null
 * when none is missing.
 */
export function missingClassesReport(
  y: ArrayLike<Label>,
  split: Split,
  where: string,
): {
  readonly message: string;
  readonly values: { classes: number; totalClasses: number; bcaBound: number };
} | null {
  const missing = classesMissingFromTraining(y, split);
  if (missing.length === 0) return null;
  const c = new Set(Array.from(y)).size;
  const one = missing.length === 1;
  const names = missing.map((l) => JSON.stringify(l)).join(", ");
  return {
    message: `${where}: class${one ? "" : "es"} ${names} ha${one ? "s" : "ve"} no training sample, so 1-NN never predicts ${one ? "it" : "them"}: ${one ? "its" : "their"} recall is 0 and the BCA is at most ${c - missing.length}/${c}.`,
    values: { classes: missing.length, totalClasses: c, bcaBound: (c - missing.length) / c },
  };
}

/** The message of {@link missingClassesReport}, or null when no class is missing. */
export function missingClassesWarning(
  y: ArrayLike<Label>,
  split: Split,
  where: string,
): string | null {
  return missingClassesReport(y, split, where)?.message ?? null;
}
