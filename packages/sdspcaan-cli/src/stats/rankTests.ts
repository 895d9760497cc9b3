/**
 * Rank-based tests for comparing methods (Demšar, "Statistical Comparisons of
 * Classifiers over Multiple Data Sets", JMLR 7, 2006): the Wilcoxon signed-rank test
 * on paired scores, the Friedman test with the Iman-Davenport F variant, and the
 * Nemenyi critical difference with the groups it leaves undistinguished.
 *
 * Conventions follow SciPy where SciPy has the test (`scipy.stats.rankdata`,
 * `wilcoxon`, `friedmanchisquare`), so results can be checked against it; where this
 * file decides differently it says so at the function.
 */
import { ValidationError } from "sdspcaan";
import { chiSquareTails, fTails, normalTails } from "./distributions.js";

function checkNumbers(argument: string, values: ArrayLike<number>): void {
  if (values === null || typeof values !== "object" || typeof values.length !== "number") {
    throw new ValidationError(argument, `'${argument}' must be an array of numbers.`);
  }
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== "number" || !Number.isFinite(v)) {
      throw new ValidationError(
        argument,
        `'${argument}[${i}]' must be a finite number. Got ${String(v)} instead.`,
      );
    }
  }
}

function checkTolerance(tolerance: unknown): number {
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new ValidationError(
      "tolerance",
      `'tolerance' must be a non-negative finite number. Got ${String(tolerance)} instead.`,
    );
  }
  return tolerance;
}

/** Ranks and the sizes of the groups of tied values. */
export interface Ranking {
  /** Rank of each value, 1 = smallest; tied values share the average of their ranks. */
  readonly ranks: Float64Array;
  /** Size of every group of two or more tied values. */
  readonly tieSizes: readonly number[];
}

/**
 * Ranks of `values` in ascending order, ties sharing their average rank (SciPy's
 * `rankdata(method="average")`). With a `tolerance` > 0, sorted neighbours at most
 * that far apart count as tied, chained (so a group can span more than the
 * tolerance): scores computed by different routes from the same fractions differ in
 * the last bits, and a difference of 1e-15 in a balanced accuracy is round-off, not a
 * ranking.
 */
export function rankWithTies(values: ArrayLike<number>, tolerance = 0): Ranking {
  checkNumbers("values", values);
  checkTolerance(tolerance);
  const n = values.length;
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (p, q) => values[p] - values[q] || p - q,
  );
  const ranks = new Float64Array(n);
  const tieSizes: number[] = [];
  let start = 0;
  while (start < n) {
    let end = start + 1;
    while (end < n && values[order[end]] - values[order[end - 1]] <= tolerance) end++;
    // Positions start..end-1 hold ranks start+1..end; their average:
    const rank = (start + 1 + end) / 2;
    for (let i = start; i < end; i++) ranks[order[i]] = rank;
    if (end - start > 1) tieSizes.push(end - start);
    start = end;
  }
  return { ranks, tieSizes };
}

/** `rankWithTies(values, tolerance).ranks`. */
export function averageRanks(values: ArrayLike<number>, tolerance = 0): Float64Array {
  return rankWithTies(values, tolerance).ranks;
}

export type WilcoxonMethod = "auto" | "exact" | "asymptotic";

export interface WilcoxonOptions {
  /**
   * "exact": the permutation distribution of the signed-rank sum (conditional on the
   * observed ranks when they have ties); "asymptotic": the normal approximation with
   * tie and continuity corrections; "auto" (default): exact up to
   * `WILCOXON_EXACT_AUTO_LIMIT` non-zero differences, asymptotic above.
   */
  readonly method?: WilcoxonMethod;
  /**
   * Differences with |d| <= tolerance count as zero, and absolute differences at
   * most this far apart as tied (see `rankWithTies`). Default 0: exact comparisons,
   * as SciPy.
   */
  readonly tolerance?: number;
}

export interface WilcoxonResult {
  /** Number of pairs. */
  readonly n: number;
  /** Pairs with a zero difference, dropped before ranking. */
  readonly zeros: number;
  /** Pairs that enter the test (n - zeros). */
  readonly nonZero: number;
  /** Sum of the ranks of |x - y| over the pairs with x > y. */
  readonly rankSumPositive: number;
  /** Sum of the ranks of |x - y| over the pairs with x < y. */
  readonly rankSumNegative: number;
  /** min(rankSumPositive, rankSumNegative): SciPy's two-sided `statistic`. */
  readonly statistic: number;
  /** Whether some non-zero |x - y| were tied (they got average ranks). */
  readonly ties: boolean;
  readonly method: "exact" | "asymptotic";
  /**
   * The continuity-corrected normal score of rankSumPositive (positive when x tends to
   * exceed y), for the asymptotic method; null for the exact one.
   */
  readonly z: number | null;
  /** Two-sided p-value. */
  readonly pValue: number;
}

/** "auto" uses the exact distribution up to this many non-zero differences (SciPy: 50). */
export const WILCOXON_EXACT_AUTO_LIMIT = 50;
/** The exact distribution costs O(n^3); above this many differences it is refused. */
export const WILCOXON_EXACT_MAX = 400;

/**
 * The Wilcoxon signed-rank test of paired samples x and y, two-sided: are the
 * differences d = x - y symmetric about zero?
 *
 * Zero differences are dropped and the rest ranked by |d| (SciPy's default
 * `zero_method="wilcox"`); tied |d| get average ranks.
 *
 * Exact method: the null distribution of the positive rank sum is that of
 * sum_i s_i r_i over the 2^n equally likely sign vectors s, for the observed ranks
 * r_i, built by a convolution over doubled ranks (integers even with average ranks).
 * Without ties this is the classical exact distribution (SciPy `method="exact"`);
 * with ties or dropped zeros it is the exact distribution conditional on the observed
 * ranks, which SciPy's "auto" also uses for small samples with ties (as a
 * permutation test); the p-value is 2 min(P(T <= t), P(T >= t)), capped at 1. Up to
 * 53 differences every probability is a multiple of 2^-n and is computed exactly.
 *
 * Asymptotic method: z = (|T - n(n + 1)/4| - 1/2) / sigma with
 * sigma^2 = n(n + 1)(2n + 1)/24 - sum(t^3 - t)/48 over groups of t tied |d| (SciPy
 * with `correction=True`; SciPy's default is no continuity correction). Where
 * |T - n(n+1)/4| < 1/2 the correction stops at zero (p = 1) rather than pushing z
 * past zero as SciPy does.
 */
export function wilcoxonSignedRank(
  x: ArrayLike<number>,
  y: ArrayLike<number>,
  options: WilcoxonOptions = {},
): WilcoxonResult {
  checkNumbers("x", x);
  checkNumbers("y", y);
  if (x.length !== y.length) {
    throw new ValidationError(
      "y",
      `'x' and 'y' must be paired samples of the same length. Got ${x.length} and ${y.length}.`,
    );
  }
  if (x.length === 0) {
    throw new ValidationError("x", "'x' and 'y' must hold at least one pair.");
  }
  const method = options.method ?? "auto";
  if (method !== "auto" && method !== "exact" && method !== "asymptotic") {
    throw new ValidationError(
      "method",
      `'method' must be "auto", "exact" or "asymptotic". Got ${JSON.stringify(method)} instead.`,
    );
  }
  const tolerance = checkTolerance(options.tolerance ?? 0);
  const differences: number[] = [];
  for (let i = 0; i < x.length; i++) {
    const d = x[i] - y[i];
    if (Math.abs(d) > tolerance) differences.push(d);
  }
  const nonZero = differences.length;
  const { ranks, tieSizes } = rankWithTies(
    differences.map((d) => Math.abs(d)),
    tolerance,
  );
  let rankSumPositive = 0;
  let rankSumNegative = 0;
  for (let i = 0; i < nonZero; i++) {
    if (differences[i] > 0) rankSumPositive += ranks[i];
    else rankSumNegative += ranks[i];
  }
  const useExact =
    method === "exact" || (method === "auto" && nonZero <= WILCOXON_EXACT_AUTO_LIMIT);
  if (useExact && nonZero > WILCOXON_EXACT_MAX) {
    throw new ValidationError(
      "method",
      `The exact Wilcoxon distribution is computed for at most ${WILCOXON_EXACT_MAX} non-zero differences. Got ${nonZero}; use method "asymptotic".`,
    );
  }
  const common = {
    n: x.length,
    zeros: x.length - nonZero,
    nonZero,
    rankSumPositive,
    rankSumNegative,
    statistic: Math.min(rankSumPositive, rankSumNegative),
    ties: tieSizes.length > 0,
  };
  if (useExact) {
    return {
      ...common,
      method: "exact",
      z: null,
      pValue: exactSignedRankP(ranks, rankSumPositive),
    };
  }
  const mean = (nonZero * (nonZero + 1)) / 4;
  let tieTerm = 0;
  for (const t of tieSizes) tieTerm += t * t * t - t;
  const variance = (nonZero * (nonZero + 1) * (2 * nonZero + 1)) / 24 - tieTerm / 48;
  if (!(variance > 0)) return { ...common, method: "asymptotic", z: 0, pValue: 1 };
  const deviation = rankSumPositive - mean;
  const corrected = Math.max(Math.abs(deviation) - 0.5, 0);
  const z = corrected === 0 ? 0 : (Math.sign(deviation) * corrected) / Math.sqrt(variance);
  return {
    ...common,
    method: "asymptotic",
    z,
    pValue: Math.min(1, 2 * normalTails(Math.abs(z)).upper),
  };
}

/** Two-sided p of the positive rank sum under random signs, for the given ranks. */
function exactSignedRankP(ranks: Float64Array, rankSumPositive: number): number {
  // Doubled ranks are integers: an average rank is a multiple of 1/2.
  const weights = Array.from(ranks, (r) => Math.round(2 * r));
  const total = weights.reduce((a, w) => a + w, 0);
  const dist = new Float64Array(total + 1);
  dist[0] = 1;
  let reach = 0;
  for (const w of weights) {
    // Each sign is + or - with probability 1/2; descending s reads dist[s] before
    // it is overwritten and adds into dist[s + w], already halved this round.
    for (let s = reach; s >= 0; s--) {
      const half = 0.5 * dist[s];
      dist[s] = half;
      dist[s + w] += half;
    }
    reach += w;
  }
  const observed = Math.round(2 * rankSumPositive);
  let atMost = 0;
  let atLeast = 0;
  for (let s = 0; s <= total; s++) {
    if (s <= observed) atMost += dist[s];
    if (s >= observed) atLeast += dist[s];
  }
  return Math.min(1, 2 * Math.min(atMost, atLeast));
}

/**
 * The smallest two-sided p-value the exact signed-rank test can give with n non-zero
 * differences: 2 / 2^n (all differences of one sign). Below 6 it exceeds 0.05.
 */
export function wilcoxonMinimumP(n: number): number {
  return Math.min(1, 2 ** (1 - n));
}

export interface FriedmanOptions {
  /** Rank 1 goes to the highest score (default true: scores are accuracies). */
  readonly higherIsBetter?: boolean;
  /** Scores of one block at most this far apart tie (see `rankWithTies`); default 0. */
  readonly tolerance?: number;
}

export interface FriedmanResult {
  /** Number of blocks (data sets), N. */
  readonly blocks: number;
  /** Number of treatments (methods), k. */
  readonly treatments: number;
  /** ranks[i][j]: rank of treatment j in block i, 1 = best, ties averaged. */
  readonly ranks: readonly Float64Array[];
  /** Mean rank of each treatment over the blocks. */
  readonly averageRanks: Float64Array;
  /** Friedman's statistic, divided by the tie correction (as SciPy). */
  readonly chiSquare: number;
  /** k - 1. */
  readonly df: number;
  /** 1 - sum(t^3 - t) / (N k (k^2 - 1)) over all groups of t tied scores in a block. */
  readonly tieCorrection: number;
  /** P(chi-square with k - 1 df > chiSquare). */
  readonly pValue: number;
  /** The Iman-Davenport statistic, F-distributed with (k - 1, (k - 1)(N - 1)) df. */
  readonly imanDavenport: {
    readonly statistic: number;
    readonly df1: number;
    readonly df2: number;
    readonly pValue: number;
  };
}

/** The within-block ranks of `scores` (1 = best), checked; shared by the Friedman tests. */
function rankBlocks(
  scores: ReadonlyArray<ArrayLike<number>>,
  options: FriedmanOptions,
): { N: number; k: number; ranks: Float64Array[]; rankSums: Float64Array; tieTerm: number } {
  const blocks: ReadonlyArray<ArrayLike<number>> = scores;
  if (!Array.isArray(blocks) || blocks.length < 2) {
    throw new ValidationError(
      "scores",
      `'scores' must hold at least 2 blocks (rows). Got ${Array.isArray(blocks) ? blocks.length : String(blocks)}.`,
    );
  }
  const N = scores.length;
  const k = scores[0]?.length ?? 0;
  if (k < 2) {
    throw new ValidationError(
      "scores",
      `'scores' must have at least 2 treatments (columns). Got ${k}.`,
    );
  }
  const tolerance = checkTolerance(options.tolerance ?? 0);
  const higher = options.higherIsBetter ?? true;
  const ranks: Float64Array[] = [];
  const rankSums = new Float64Array(k);
  let tieTerm = 0;
  scores.forEach((row, i) => {
    checkNumbers(`scores[${i}]`, row);
    if (row.length !== k) {
      throw new ValidationError(
        `scores[${i}]`,
        `'scores[${i}]' has ${row.length} scores; every block must have ${k}.`,
      );
    }
    const keyed = Array.from(row, (v) => (higher ? -v : v));
    const r = rankWithTies(keyed, tolerance);
    ranks.push(r.ranks);
    for (let j = 0; j < k; j++) rankSums[j] += r.ranks[j];
    for (const t of r.tieSizes) tieTerm += t * t * t - t;
  });
  return { N, k, ranks, rankSums, tieTerm };
}

/**
 * The Friedman test of k treatments over N blocks, `scores[i][j]` = score of
 * treatment j in block i, with ranks 1 = best within each block:
 * chi^2_F = 12 N / (k (k + 1)) sum_j (R_j - (k + 1)/2)^2 / C, R_j the average ranks, C
 * the tie correction (SciPy's `friedmanchisquare`; Demšar's eq. without ties). The
 * Iman-Davenport variant F_F = (N - 1) chi^2_F / (N (k - 1) - chi^2_F) is less
 * conservative (Demšar 2006, section 3.2.2). Both p-values are asymptotic, fair from
 * about N > 10 and k > 5; for fewer blocks or treatments use `friedmanExact`. When every
 * block ranks the treatments identically, chi^2_F = N (k - 1) and F_F is infinite: its
 * F approximation breaks down there (the p-value it gives, 0, is no probability of
 * anything), so `imanDavenport.pValue` is NaN; the exact p is (k!)^(1 - N) without
 * ties. When every block ties all treatments, there is nothing to rank: chi^2_F = 0,
 * p = 1 and F_F = 0.
 */
export function friedmanTest(
  scores: ReadonlyArray<ArrayLike<number>>,
  options: FriedmanOptions = {},
): FriedmanResult {
  const { N, k, ranks, rankSums, tieTerm } = rankBlocks(scores, options);
  // Sums of half-integers are exact; one division keeps 2.25 from becoming 2.2500000000000004.
  const averageRanks = rankSums.map((sum) => sum / N);
  const df = k - 1;
  const tieCorrection = 1 - tieTerm / (N * k * (k * k - 1));
  let spread = 0;
  for (let j = 0; j < k; j++) spread += (averageRanks[j] - (k + 1) / 2) ** 2;
  const allTied = tieCorrection <= 0;
  const chiSquare = allTied ? 0 : (12 * N * spread) / (k * (k + 1)) / tieCorrection;
  const pValue = allTied ? 1 : chiSquareTails(chiSquare, df).upper;
  const df2 = (k - 1) * (N - 1);
  const room = N * (k - 1) - chiSquare;
  // chi^2_F reaches N (k - 1) only up to round-off; treat the last bits as that bound.
  const perfect = room <= 1e-12 * N * (k - 1);
  const fStatistic = perfect ? Number.POSITIVE_INFINITY : ((N - 1) * chiSquare) / room;
  const fP = perfect ? Number.NaN : fTails(fStatistic, df, df2).upper;
  return {
    blocks: N,
    treatments: k,
    ranks,
    averageRanks,
    chiSquare,
    df,
    tieCorrection,
    pValue,
    imanDavenport: { statistic: fStatistic, df1: df, df2, pValue: fP },
  };
}

/** Default budget of `friedmanExact`: states times permutations summed over blocks. */
export const FRIEDMAN_EXACT_MAX_WORK = 4_000_000;

export interface FriedmanExactOptions extends FriedmanOptions {
  /** Level of the exact critical difference (default 0.05). */
  readonly alpha?: number;
  /** Give up (return null) above this much work; default `FRIEDMAN_EXACT_MAX_WORK`. */
  readonly maxWork?: number;
}

export interface FriedmanExactResult {
  /**
   * P(chi^2_F >= observed) under the null hypothesis that within each block every
   * order of the observed ranks is equally likely. chi^2_F and Iman-Davenport's F_F
   * are increasing functions of each other for fixed N and k, so this is the exact
   * p-value of both.
   */
  readonly pValue: number;
  /**
   * The exact Nemenyi-type critical difference: the smallest attainable range
   * max_j Rbar_j - min_j Rbar_j of the average ranks with P(range >= it) <= alpha, so
   * that declaring every pair at least this far apart different keeps the chance of
   * any false declaration at most alpha. null when no attainable range is that rare:
   * with these N and k no difference in average rank can be significant.
   */
  readonly criticalDifference: number | null;
  /** P(range >= criticalDifference), the level actually reached; null with it. */
  readonly criticalDifferenceLevel: number | null;
}

/**
 * The exact permutation distribution of the Friedman test, for few blocks or
 * treatments where the chi-square and F approximations of `friedmanTest` and the
 * normal one of `nemenyiCriticalDifference` do not hold (Demšar 2006: N > 10, k > 5).
 *
 * Under the null hypothesis each block's ranks (ties averaged, as observed) are in a
 * uniformly random order, independently across blocks; the rank sums' joint
 * distribution is built block by block by convolution over the k! orders, with
 * doubled ranks so that every sum is an integer. This is what
 * `scipy.stats.permutation_test(..., permutation_type="samples", n_resamples=inf)`
 * computes by enumerating all (k!)^N arrangements. Returns null when the work
 * (states times orders, summed over the blocks) would exceed `maxWork`.
 */
export function friedmanExact(
  scores: ReadonlyArray<ArrayLike<number>>,
  options: FriedmanExactOptions = {},
): FriedmanExactResult | null {
  const alpha = options.alpha ?? 0.05;
  if (typeof alpha !== "number" || !(alpha > 0 && alpha < 1)) {
    throw new ValidationError(
      "alpha",
      `'alpha' must be a number in (0, 1). Got ${String(alpha)} instead.`,
    );
  }
  const maxWork = options.maxWork ?? FRIEDMAN_EXACT_MAX_WORK;
  const { N, k, ranks, rankSums } = rankBlocks(scores, options);
  if (k > 8) return null;
  // Rank sums are packed into one integer, base `radix`; it must stay exact.
  const radix = 2 * k * N + 1;
  if (k * Math.log2(radix) > 52) return null;
  const orders = permutations(k);
  let work = 0;
  let states = new Map<number, number>([[0, 1]]);
  for (const blockRanks of ranks) {
    const doubled = Array.from(blockRanks, (r) => Math.round(2 * r));
    // Distinct orders of this block's ranks, each with its probability.
    const shifts = new Map<number, number>();
    for (const order of orders) {
      let key = 0;
      for (let j = k - 1; j >= 0; j--) key = key * radix + doubled[order[j]];
      shifts.set(key, (shifts.get(key) ?? 0) + 1 / orders.length);
    }
    work += states.size * shifts.size;
    if (work > maxWork) return null;
    const next = new Map<number, number>();
    for (const [state, p] of states) {
      for (const [shift, q] of shifts) {
        const key = state + shift;
        next.set(key, (next.get(key) ?? 0) + p * q);
      }
    }
    states = next;
  }
  let observedSpread = 0;
  for (let j = 0; j < k; j++) observedSpread += Math.round(2 * rankSums[j]) ** 2;
  let pValue = 0;
  const byRange = new Map<number, number>();
  for (const [state, p] of states) {
    let rest = state;
    let spread = 0;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let j = 0; j < k; j++) {
      const sum = rest % radix;
      rest = (rest - sum) / radix;
      spread += sum * sum;
      lo = Math.min(lo, sum);
      hi = Math.max(hi, sum);
    }
    // The rank sums add up to k(k+1)N/2 in every state, so the sum of their squares
    // orders the states as chi^2_F does; integers compare exactly.
    if (spread >= observedSpread) pValue += p;
    byRange.set(hi - lo, (byRange.get(hi - lo) ?? 0) + p);
  }
  let criticalDifference: number | null = null;
  let criticalDifferenceLevel: number | null = null;
  let tail = 0;
  for (const range of [...byRange.keys()].sort((a, b) => b - a)) {
    tail += byRange.get(range) as number;
    // Probabilities are sums of multiples of 1/(k!)^N; allow for their round-off.
    if (tail > alpha + 1e-12) break;
    criticalDifference = range / (2 * N);
    criticalDifferenceLevel = tail;
  }
  return { pValue: Math.min(1, pValue), criticalDifference, criticalDifferenceLevel };
}

/** All orders of 0..k-1. */
function permutations(k: number): number[][] {
  if (k === 1) return [[0]];
  const out: number[][] = [];
  for (const rest of permutations(k - 1)) {
    for (let at = 0; at <= rest.length; at++) {
      out.push([...rest.slice(0, at), k - 1, ...rest.slice(at)]);
    }
  }
  return out;
}

/**
 * q_0.05 of the Nemenyi test for k = 2..20 treatments: the studentized range
 * statistic's 95 % point with infinite degrees of freedom divided by sqrt(2). Demšar
 * (2006), Table 5(a), gives k = 2..10 to three decimals (1.960, 2.343, 2.569, 2.728,
 * 2.850, 2.949, 3.031, 3.102, 3.164); the values here, for all k, are
 * `scipy.stats.studentized_range.ppf(0.95, k, inf) / sqrt(2)` rounded to six
 * decimals (k = 2 is z_0.975 = 1.959964). Index = k.
 */
export const NEMENYI_Q_05: readonly number[] = [
  Number.NaN,
  Number.NaN,
  1.959964,
  2.343701,
  2.569032,
  2.727774,
  2.849705,
  2.94832,
  3.030878,
  3.10173,
  3.163684,
  3.218654,
  3.268004,
  3.312739,
  3.353618,
  3.39123,
  3.426041,
  3.458425,
  3.488685,
  3.517073,
  3.543799,
];

/** The largest number of treatments the Nemenyi table covers. */
export const NEMENYI_MAX_TREATMENTS = NEMENYI_Q_05.length - 1;

/**
 * The Nemenyi critical difference at alpha = 0.05 for k treatments over N blocks:
 * CD = q_0.05 sqrt(k (k + 1) / (6 N)) (Demšar 2006, section 3.2.2). Two treatments
 * whose average ranks differ by at least CD differ significantly. The formula is
 * asymptotic in N: with few blocks it can declare differences no exact test
 * supports (k = 2, N = 4: CD = 0.98, so 4 wins out of 4 are "significant", while the
 * exact sign test gives p = 0.125); `friedmanExact` gives the exact critical
 * difference for such cases.
 */
export function nemenyiCriticalDifference(k: number, N: number): { q: number; cd: number } {
  if (!Number.isInteger(k) || k < 2 || k > NEMENYI_MAX_TREATMENTS) {
    throw new ValidationError(
      "k",
      `'k' must be an integer number of treatments in [2, ${NEMENYI_MAX_TREATMENTS}] (the range of the Nemenyi table). Got ${k} instead.`,
    );
  }
  if (!Number.isInteger(N) || N < 1) {
    throw new ValidationError(
      "N",
      `'N' must be a positive integer number of blocks. Got ${N} instead.`,
    );
  }
  const q = NEMENYI_Q_05[k];
  return { q, cd: q * Math.sqrt((k * (k + 1)) / (6 * N)) };
}

/**
 * The maximal groups of treatments whose average ranks all lie within less than `cd`
 * of each other, as index lists sorted by average rank (best first), in order of
 * their best member. These are the bars of Demšar's critical-difference diagram; a
 * treatment in no group of two or more differs significantly from every other.
 */
export function criticalDifferenceGroups(averageRanks: ArrayLike<number>, cd: number): number[][] {
  checkNumbers("averageRanks", averageRanks);
  if (typeof cd !== "number" || !Number.isFinite(cd) || cd <= 0) {
    throw new ValidationError(
      "cd",
      `'cd' must be a positive finite number. Got ${String(cd)} instead.`,
    );
  }
  const order = Array.from({ length: averageRanks.length }, (_, i) => i).sort(
    (p, q) => averageRanks[p] - averageRanks[q] || p - q,
  );
  const groups: number[][] = [];
  let reached = 0;
  for (let i = 0; i < order.length; i++) {
    let j = i;
    while (j + 1 < order.length && averageRanks[order[j + 1]] - averageRanks[order[i]] < cd) j++;
    // A run ending where an earlier one ended lies inside it.
    if (j > i && j > reached) {
      groups.push(order.slice(i, j + 1));
      reached = j;
    }
  }
  return groups;
}
