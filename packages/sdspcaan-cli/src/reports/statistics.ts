/**
 * Which differences in a run's Table IV are significant: the statistics `report`
 * adds to the table (statistics.md, the `statistics` section of summary.json, the
 * critical-difference figure). The paper reports means and standard deviations only.
 *
 * - Per data set, the selected test BCA of each repeat of every method is compared
 *   with that of a reference method (SDSPCAAN by default) by the two-sided Wilcoxon
 *   signed-rank test, paired by repeat (src/stats/rankTests.ts).
 * - Across data sets, the methods are ranked by their mean test BCA on each data set
 *   (1 = best, ties averaged); the average ranks enter the Friedman test, its
 *   Iman-Davenport F variant, and the Nemenyi critical difference (Demšar 2006).
 *   Only data sets where every method of the table has results are used. Those
 *   tests are asymptotic; where the permutation distribution can be enumerated (few
 *   data sets or methods, exactly where the approximations fail) the decision and the
 *   critical difference come from it instead (`friedmanExact`).
 *
 * Balanced accuracies that differ by at most 1e-12 count as equal: they are the same
 * fraction reached by different floating-point routes.
 */
import { ValidationError } from "sdspcaan";
import { displayNameOf } from "../protocol/grids.js";
import { logGamma } from "../stats/distributions.js";
import {
  criticalDifferenceGroups,
  friedmanExact,
  friedmanTest,
  NEMENYI_MAX_TREATMENTS,
  nemenyiCriticalDifference,
  rankWithTies,
  type WilcoxonResult,
  wilcoxonMinimumP,
  wilcoxonSignedRank,
} from "../stats/rankTests.js";
import type { CellSummary, ResultsSummary } from "./summary.js";

/** Significance level of every test here. */
export const SIGNIFICANCE_LEVEL = 0.05;

/** BCA values this close are the same fraction up to round-off. */
export const BCA_TOLERANCE = 1e-12;

/** The exact Wilcoxon test cannot reach p < 0.05 with fewer non-zero differences than this. */
const WILCOXON_MIN_USEFUL_REPEATS = 6;

export interface StatisticsOptions {
  /**
   * The method every other one is compared with per data set. Default: SDSPCAAN when
   * it is in the table, else the method with the best Average row (see `chooseBaseline`).
   */
  readonly baselineMethod?: string;
}

/** One method against the reference on one data set. */
export interface PairedComparison {
  /** Repeats where both methods have a selected fit. */
  readonly pairedRepeats: number;
  /**
   * The Wilcoxon test of (method - reference) over the paired repeats, or null when it
   * cannot be run (fewer than 2 paired repeats; `reason` says so).
   */
  readonly test: WilcoxonResult | null;
  /**
   * The method against the reference, from the signed-rank sums: "better" when its
   * positive differences outweigh the negative ones, "same" when they balance.
   */
  readonly direction: "better" | "worse" | "same";
  /** p < 0.05. */
  readonly significant: boolean;
  /** Same test BCA as the reference on every paired repeat. */
  readonly identical: boolean;
  readonly reason?: string;
}

/** The Friedman test and what follows from it. */
export interface FriedmanSection {
  /** The data sets used: those where every method has results. */
  readonly datasets: readonly string[];
  /** Rank of each method's mean test BCA per data set (1 = best). */
  readonly ranks: Readonly<Record<string, Readonly<Record<string, number>>>>;
  /** Mean rank of each method over `datasets`. */
  readonly averageRanks: Readonly<Record<string, number>>;
  /**
   * The Friedman test over `datasets` (chi-square with its tie correction), with the
   * Iman-Davenport F; null when fewer than 2 data sets are usable.
   */
  readonly test: {
    readonly chiSquare: number;
    readonly df: number;
    readonly tieCorrection: number;
    readonly pValue: number;
    /**
     * statistic null: infinite, every data set ranks the methods identically; the F
     * approximation has no p-value there (pValue null).
     */
    readonly imanDavenport: {
      readonly statistic: number | null;
      readonly df1: number;
      readonly df2: number;
      readonly pValue: number | null;
    };
    /**
     * The exact p-value of chi^2_F (and so of F_F) under random orders of the ranks
     * within each data set: by enumeration, or (k!)^(1 - N) when every data set ranks
     * the methods the same strict way; null when too large to enumerate.
     */
    readonly exact: {
      readonly pValue: number;
      readonly by: "enumeration" | "perfect-agreement";
    } | null;
    /** The p-value the decision rests on: the exact one when there is one. */
    readonly decision: {
      readonly by: "exact" | "iman-davenport" | "friedman";
      readonly pValue: number;
      readonly rejected: boolean;
    };
  } | null;
  /**
   * The Nemenyi critical difference at alpha = 0.05 and the maximal groups of methods
   * whose average ranks differ by less than it (best first); null without a Friedman
   * test or with more methods than the table of q values covers (and too many to
   * enumerate).
   */
  readonly nemenyi: {
    /**
     * "exact": from the enumerated distribution of the range of average ranks;
     * "asymptotic": q sqrt(k (k + 1) / (6 N)).
     */
    readonly method: "exact" | "asymptotic";
    /** The q_0.05 of the asymptotic formula; null above the table's k. */
    readonly q: number | null;
    /** The asymptotic q sqrt(k (k + 1) / (6 N)), shown beside the exact one; null with q. */
    readonly asymptoticCriticalDifference: number | null;
    /**
     * The critical difference the groups use; null when no difference in average rank
     * can be significant with these N and k (exact), so all methods form one group.
     */
    readonly criticalDifference: number | null;
    /** exact: P(range of average ranks >= criticalDifference); else null. */
    readonly level: number | null;
    readonly groups: ReadonlyArray<readonly string[]>;
  } | null;
}

/** Everything statistics.md and the `statistics` section of summary.json show. */
export interface MethodStatistics {
  readonly alpha: number;
  /** The data sets of the table, in its row order. */
  readonly datasets: readonly string[];
  /** The methods of the table, in its column order. */
  readonly methods: readonly string[];
  /** The reference of the per-data-set comparisons; null with fewer than 2 methods. */
  readonly baseline: string | null;
  /** Why that reference: given as an option, SDSPCAAN by default, or the best Average. */
  readonly baselineChosenBy: "option" | "default" | "best-average" | null;
  /**
   * wilcoxon[dataset][method] for every method but the reference; null where either
   * has no results on the data set.
   */
  readonly wilcoxon: Readonly<Record<string, Readonly<Record<string, PairedComparison | null>>>>;
  /** Ranks and the Friedman test; null with fewer than 2 methods or no complete data set. */
  readonly friedman: FriedmanSection | null;
  /** Data sets left out of the ranking, with the methods missing there. */
  readonly leftOut: ReadonlyArray<{
    readonly dataset: string;
    readonly missing: readonly string[];
  }>;
  /** Why a test could not be run or is limited, in plain words. */
  readonly notes: readonly string[];
}

const title = (method: string): string => displayNameOf(method);

function normalised(name: string): string {
  return name.trim().toLowerCase().replace(/_/g, "-");
}

/**
 * The reference method: `requested` when given (a method name or its display title,
 * case-insensitive), else SDSPCAAN when present, else the method with the highest
 * Average-row mean; when no method has an Average (each lacks some data set), the
 * highest mean of its per-data-set means. Ties go to the earlier column.
 */
export function chooseBaseline(
  summary: ResultsSummary,
  requested?: string,
): { method: string; chosenBy: "option" | "default" | "best-average" } {
  const { methods } = summary;
  if (requested !== undefined) {
    if (typeof requested !== "string" || requested.trim() === "") {
      throw new ValidationError(
        "baselineMethod",
        `The baseline method must be a method name. Got ${JSON.stringify(requested)} instead.`,
      );
    }
    const want = normalised(requested);
    const found = methods.find((m) => normalised(m) === want || normalised(title(m)) === want);
    if (found === undefined) {
      throw new ValidationError(
        "baselineMethod",
        `The baseline method ${JSON.stringify(requested)} is not among the methods of this report (${methods.join(", ")}).`,
      );
    }
    return { method: found, chosenBy: "option" };
  }
  if (methods.includes("sdspcaan")) return { method: "sdspcaan", chosenBy: "default" };
  const score = (m: string): number => {
    const average = summary.average[m];
    if (average) return average.mean;
    return Number.NEGATIVE_INFINITY;
  };
  let best = methods[0];
  for (const m of methods) if (score(m) > score(best)) best = m;
  if (score(best) === Number.NEGATIVE_INFINITY) {
    const meanOfMeans = (m: string): number => {
      const cells = summary.datasets
        .map((d) => summary.cells[d][m])
        .filter((c): c is CellSummary => c !== undefined);
      return cells.length === 0
        ? Number.NEGATIVE_INFINITY
        : cells.reduce((a, c) => a + c.mean, 0) / cells.length;
    };
    for (const m of methods) if (meanOfMeans(m) > meanOfMeans(best)) best = m;
  }
  return { method: best, chosenBy: "best-average" };
}

/**
 * The Wilcoxon test of `other` against `reference` over the repeats both have, paired
 * by repeat (the per-data-set comparison; also two selections of one method).
 */
export function compareOnDataset(reference: CellSummary, other: CellSummary): PairedComparison {
  const refByRepeat = new Map(reference.chosen.map((f) => [f.repeat, f.testBCA]));
  const x: number[] = [];
  const y: number[] = [];
  for (const f of other.chosen) {
    const r = refByRepeat.get(f.repeat);
    if (r === undefined) continue;
    x.push(f.testBCA);
    y.push(r);
  }
  const pairedRepeats = x.length;
  if (pairedRepeats < 2) {
    return {
      pairedRepeats,
      test: null,
      direction: "same",
      significant: false,
      identical: false,
      reason: `${pairedRepeats} paired repeat${pairedRepeats === 1 ? "" : "s"}: a test over repeats needs at least 2`,
    };
  }
  const test = wilcoxonSignedRank(x, y, { tolerance: BCA_TOLERANCE });
  const direction =
    test.rankSumPositive > test.rankSumNegative
      ? "better"
      : test.rankSumPositive < test.rankSumNegative
        ? "worse"
        : "same";
  return {
    pairedRepeats,
    test,
    direction,
    significant: test.pValue < SIGNIFICANCE_LEVEL,
    identical: test.nonZero === 0,
  };
}

/** The statistics of a summarised run (see the file comment). */
export function methodStatistics(
  summary: ResultsSummary,
  options: StatisticsOptions = {},
): MethodStatistics {
  const { datasets, methods, cells } = summary;
  const notes: string[] = [];
  const leftOut = datasets
    .map((dataset) => ({ dataset, missing: methods.filter((m) => !cells[dataset][m]) }))
    .filter((d) => d.missing.length > 0);
  if (methods.length < 2) {
    if (options.baselineMethod !== undefined) chooseBaseline(summary, options.baselineMethod);
    notes.push(
      `The table has a single method (${title(methods[0])}), so there is nothing to compare: no test was run.`,
    );
    return {
      alpha: SIGNIFICANCE_LEVEL,
      datasets: [...datasets],
      methods: [...methods],
      baseline: null,
      baselineChosenBy: null,
      wilcoxon: {},
      friedman: null,
      leftOut,
      notes,
    };
  }
  const { method: baseline, chosenBy } = chooseBaseline(summary, options.baselineMethod);
  const wilcoxon: Record<string, Record<string, PairedComparison | null>> = {};
  let mostRepeats = 0;
  const fewRepeats = new Set<string>();
  let fewestDiffering = Number.POSITIVE_INFINITY;
  for (const d of datasets) {
    wilcoxon[d] = {};
    for (const m of methods) {
      if (m === baseline) continue;
      const ref = cells[d][baseline];
      const other = cells[d][m];
      const comparison = ref && other ? compareOnDataset(ref, other) : null;
      wilcoxon[d][m] = comparison;
      if (comparison === null) continue;
      mostRepeats = Math.max(mostRepeats, comparison.pairedRepeats);
      const n = comparison.test?.nonZero ?? comparison.pairedRepeats;
      if (comparison.test && !comparison.identical && n < WILCOXON_MIN_USEFUL_REPEATS) {
        fewRepeats.add(d);
        fewestDiffering = Math.min(fewestDiffering, n);
      }
    }
  }
  if (mostRepeats === 0) {
    notes.push(
      `${title(baseline)} shares no data set with another method, so no per-data-set test was run.`,
    );
  } else if (mostRepeats < 2) {
    notes.push(
      "Every data set has a single repeat per method: the Wilcoxon test over repeats cannot be run.",
    );
  }
  if (fewRepeats.size > 0) {
    notes.push(
      `With fewer than ${WILCOXON_MIN_USEFUL_REPEATS} repeats that differ, the exact Wilcoxon test cannot reach p < ${SIGNIFICANCE_LEVEL}: its smallest two-sided p-value with n differing repeats is 2/2^n (${formatPValue(wilcoxonMinimumP(fewestDiffering))} for n = ${fewestDiffering}, the fewest here). Affected: ${[...fewRepeats].join(", ")}.`,
    );
  }
  return {
    alpha: SIGNIFICANCE_LEVEL,
    datasets: [...datasets],
    methods: [...methods],
    baseline,
    baselineChosenBy: chosenBy,
    wilcoxon,
    friedman: friedmanSection(summary, leftOut, notes),
    leftOut,
    notes,
  };
}

function friedmanSection(
  summary: ResultsSummary,
  leftOut: MethodStatistics["leftOut"],
  notes: string[],
): FriedmanSection | null {
  const { methods, cells } = summary;
  const skip = new Set(leftOut.map((l) => l.dataset));
  const complete = summary.datasets.filter((d) => !skip.has(d));
  if (complete.length === 0) {
    notes.push(
      "No data set has results for every method, so the methods cannot be ranked across data sets (no Friedman test).",
    );
    return null;
  }
  const scores = complete.map((d) => methods.map((m) => (cells[d][m] as CellSummary).mean));
  const ranks: Record<string, Record<string, number>> = {};
  const rankSums = methods.map(() => 0);
  complete.forEach((d, i) => {
    const r = rankWithTies(
      scores[i].map((s) => -s),
      BCA_TOLERANCE,
    ).ranks;
    ranks[d] = Object.fromEntries(methods.map((m, j) => [m, r[j]]));
    methods.forEach((_, j) => {
      rankSums[j] += r[j];
    });
  });
  const averageRanks: Record<string, number> = Object.fromEntries(
    methods.map((m, j) => [m, rankSums[j] / complete.length]),
  );
  if (complete.length < 2) {
    notes.push(
      `The Friedman test needs at least 2 data sets where every method has results; this report has ${complete.length} (${complete[0]}).`,
    );
    return { datasets: complete, ranks, averageRanks, test: null, nemenyi: null };
  }
  const f = friedmanTest(scores, { tolerance: BCA_TOLERANCE });
  const enumerated = friedmanExact(scores, {
    tolerance: BCA_TOLERANCE,
    alpha: SIGNIFICANCE_LEVEL,
  });
  const k = methods.length;
  const N = complete.length;
  const perfect = !Number.isFinite(f.imanDavenport.statistic);
  const exact: NonNullable<FriedmanSection["test"]>["exact"] =
    enumerated !== null
      ? { pValue: enumerated.pValue, by: "enumeration" }
      : perfect && f.tieCorrection === 1
        ? // Only the N identical strict rankings reach the maximum: k! of (k!)^N.
          { pValue: Math.exp((1 - N) * logGamma(k + 1)), by: "perfect-agreement" }
        : null;
  const idP = perfect ? null : f.imanDavenport.pValue;
  const decision: NonNullable<FriedmanSection["test"]>["decision"] =
    exact !== null
      ? { by: "exact", pValue: exact.pValue, rejected: exact.pValue < SIGNIFICANCE_LEVEL }
      : idP !== null
        ? { by: "iman-davenport", pValue: idP, rejected: idP < SIGNIFICANCE_LEVEL }
        : { by: "friedman", pValue: f.pValue, rejected: f.pValue < SIGNIFICANCE_LEVEL };
  const tabulated = k <= NEMENYI_MAX_TREATMENTS ? nemenyiCriticalDifference(k, N) : null;
  const groupsFor = (cd: number | null): string[][] =>
    cd === null
      ? [
          [...methods].sort(
            (a, b) => averageRanks[a] - averageRanks[b] || methods.indexOf(a) - methods.indexOf(b),
          ),
        ]
      : criticalDifferenceGroups(
          methods.map((m) => averageRanks[m]),
          cd,
        ).map((g) => g.map((j) => methods[j]));
  let nemenyi: FriedmanSection["nemenyi"] = null;
  if (enumerated !== null) {
    nemenyi = {
      method: "exact",
      q: tabulated?.q ?? null,
      asymptoticCriticalDifference: tabulated?.cd ?? null,
      criticalDifference: enumerated.criticalDifference,
      level: enumerated.criticalDifferenceLevel,
      groups: groupsFor(enumerated.criticalDifference),
    };
  } else if (tabulated === null) {
    notes.push(
      `The Nemenyi critical difference is tabulated for at most ${NEMENYI_MAX_TREATMENTS} methods; this report has ${k}.`,
    );
  } else {
    nemenyi = {
      method: "asymptotic",
      q: tabulated.q,
      asymptoticCriticalDifference: tabulated.cd,
      criticalDifference: tabulated.cd,
      level: null,
      groups: groupsFor(tabulated.cd),
    };
  }
  if (N < 10 || k < 5) {
    // Demšar 2006, section 3.2.2: the chi-square approximation wants N > 10 and k > 5.
    notes.push(
      enumerated !== null
        ? `With ${N} data sets and ${k} methods the chi-square and F approximations of the Friedman and Iman-Davenport tests, and the normal one behind the Nemenyi formula, do not hold (they want about N > 10 and k > 5): the decision and the critical difference come from the exact permutation distribution, enumerated over all ${k}!^${N} orders of the ranks within the data sets.`
        : `With ${N} data sets and ${k} methods the Friedman p-value is a rough approximation (it is reliable from about N > 10 and k > 5), and the exact distribution is too large to enumerate; the Iman-Davenport variant is the better guide.`,
    );
  }
  return {
    datasets: complete,
    ranks,
    averageRanks,
    test: {
      chiSquare: f.chiSquare,
      df: f.df,
      tieCorrection: f.tieCorrection,
      pValue: f.pValue,
      imanDavenport: {
        statistic: perfect ? null : f.imanDavenport.statistic,
        df1: f.imanDavenport.df1,
        df2: f.imanDavenport.df2,
        pValue: idP,
      },
      exact,
      decision,
    },
    nemenyi,
  };
}

/** A p-value as shown: two significant digits, scientific below 0.001. */
export function formatPValue(p: number): string {
  if (p === 0) return "0";
  if (p >= 1) return "1";
  if (p < 0.001) return p.toExponential(1);
  return p.toPrecision(2);
}
