/**
 * The subspace dimensions k tried for one (dataset, split, method), paper Section
 * III-C: k from {10, 20, ..., 100} with c <= k <= min(n, d).
 */
import { ValidationError } from "sdspcaan";

/** The paper's grid {10, 20, ..., 100}. */
export const PAPER_K_GRID: readonly number[] = Object.freeze([
  10, 20, 30, 40, 50, 60, 70, 80, 90, 100,
]);

/** What decides the valid range of k. */
export interface KGridInput {
  /** Training samples of the split (the paper's n). */
  readonly nTrain: number;
  /** Features (the paper's d). */
  readonly d: number;
  /**
   * Number of classes c. The protocol passes the class count of the whole dataset
   * (as the NumPy reference does): a non-stratified split may miss a class in
   * training, but the grid should not change from repeat to repeat for it.
   */
  readonly nClasses: number;
  /** Candidate values; default {10, 20, ..., 100}. */
  readonly grid?: readonly number[];
  /**
   * A method's own lower bound, replacing c (e.g. LDA, whose k <= c - 1 would
   * otherwise clash with k >= c, passes 1).
   */
  readonly minK?: number;
  /**
   * A method's own upper bound, applied besides min(n, d) (e.g. LDA c - 1, a
   * data-span method the rank of the training data).
   */
  readonly maxK?: number;
}

function checkPositiveInteger(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) {
    throw new ValidationError(
      name,
      `The '${name}' parameter of kGrid must be an integer in [1, inf). Got ${String(value)} instead.`,
    );
  }
  return value;
}

/** What `kGridFilter` found: the valid k, and which grid values fell outside the range. */
export interface KGridFilter {
  /** The k to run, ascending (what `kGrid` returns). */
  readonly ks: number[];
  /** The valid range [lo, hi]. */
  readonly lo: number;
  readonly hi: number;
  /** Distinct grid values below lo and above hi, ascending: dropped by the filter. */
  readonly below: number[];
  readonly above: number[];
  /** True when no grid value is in range and `ks` is the nearest valid k instead. */
  readonly substituted: boolean;
  /** The range in words, e.g. "[15, 33] (k >= the number of classes c = 15, k <= min(n_train = 33, d = 1024))". */
  readonly range: string;
}

/**
 * The valid k: the grid values in [lo, hi] with lo = minK ?? c and
 * hi = min(nTrain, d, maxK), ascending and without repeats. When no grid value is
 * in range, the single valid integer nearest to the grid: the k in [lo, hi]
 * minimising the distance to the closest grid value, the smaller k on a tie (so
 * hi when the whole grid lies above the range, lo when it lies below). When
 * lo > hi no k is valid and this throws, saying which bound is to blame.
 *
 * Example: Yale (n_train = 33, c = 15, d = 1024) -> [20, 30].
 */
export function kGrid(input: KGridInput): number[] {
  return kGridFilter(input).ks;
}

/** `kGrid` with what it dropped, so that callers can tell the user. */
export function kGridFilter(input: KGridInput): KGridFilter {
  const nTrain = checkPositiveInteger("nTrain", input.nTrain);
  const d = checkPositiveInteger("d", input.d);
  const c = checkPositiveInteger("nClasses", input.nClasses);
  const grid = input.grid ?? PAPER_K_GRID;
  if (!Array.isArray(grid) || grid.length === 0) {
    throw new ValidationError("grid", "The k 'grid' must be a non-empty array of integers.");
  }
  for (const k of grid) checkPositiveInteger("grid", k);
  const lo = input.minK === undefined ? c : checkPositiveInteger("minK", input.minK);
  let hi = Math.min(nTrain, d);
  if (input.maxK !== undefined) hi = Math.min(hi, checkPositiveInteger("maxK", input.maxK));
  const lowName = input.minK === undefined ? `the number of classes c = ${c}` : `minK = ${lo}`;
  const bounds = [`n_train = ${nTrain}`, `d = ${d}`];
  if (input.maxK !== undefined) bounds.push(`the method's maxK = ${input.maxK}`);
  if (lo > hi) {
    throw new ValidationError(
      "k",
      `No subspace dimension k is valid: k must be at least ${lowName} and at most min(${bounds.join(", ")}) = ${hi}. Use more training samples (a larger training fraction) or a method with a smaller lower bound.`,
    );
  }
  const distinct = [...new Set(grid)].sort((a, b) => a - b);
  const range = `[${lo}, ${hi}] (k >= ${lowName}, k <= min(${bounds.join(", ")}))`;
  const below = distinct.filter((k) => k < lo);
  const above = distinct.filter((k) => k > hi);
  const valid = distinct.filter((k) => k >= lo && k <= hi);
  if (valid.length > 0) return { ks: valid, lo, hi, below, above, substituted: false, range };
  let best = lo;
  let bestDist = Number.POSITIVE_INFINITY;
  // The optimum is an end of [lo, hi] or a grid value clipped into it; the grid has
  // no value inside, so the two ends are the only candidates.
  for (const k of [lo, hi]) {
    let dist = Number.POSITIVE_INFINITY;
    for (const g of grid) dist = Math.min(dist, Math.abs(g - k));
    if (dist < bestDist || (dist === bestDist && k < best)) {
      best = k;
      bestDist = dist;
    }
  }
  return { ks: [best], lo, hi, below, above, substituted: true, range };
}
