/**
 * The warnings of a fit (fitReport.ts's FitWarning): the codes, the builders of the
 * convergence warnings (so that each says what happened, with its numbers, and what
 * the user can do), the check for a lambda cycle, and the codes of the texts that
 * model files and results written before codes existed carry.
 *
 * The checks read only what a fit keeps anyway (lambda's trace, the last change of
 * the iterate) once the loop has ended: a fit gives the same bits with or without them.
 */
import type { FitWarning, FitWarningCode } from "./fitReport.js";

/** Every FitWarningCode, in the order docs/library.md lists them. */
export const FIT_WARNING_CODES: readonly FitWarningCode[] = [
  "max-iterations",
  "lambda-cycle",
  "lambda-cap",
  "eigensolver-tolerance",
  "small-classes",
  "unit-scale",
  "k-above-rank",
  "k-below-classes",
  "between-class-rank",
  "pca-dimensions-above-rank",
  "tied-neighbours",
  "isolated-samples",
  "other",
];

/** A warning with its numbers; a number that is not finite is kept as null (as JSON writes it). */
export function fitWarning(
  code: FitWarningCode,
  message: string,
  values: Record<string, number | null> = {},
): FitWarning {
  const kept: Record<string, number | null> = {};
  for (const [name, v] of Object.entries(values)) {
    kept[name] = v !== null && Number.isFinite(v) ? v : null;
  }
  return { code, message, values: kept };
}

/**
 * A number as the messages show it: lambda's large powers of two as 2^e, other
 * integers whole, the rest to 3 significant digits.
 */
export function shownNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const e = Math.log2(x);
  if (x >= 2 ** 20 && Number.isInteger(e)) return `2^${e}`;
  if (Number.isInteger(x) && Math.abs(x) < 1e15) return String(x);
  return String(Number(x.toPrecision(3)));
}

/** The longest period of lambda's trace looked for. */
const MAX_CYCLE_PERIOD = 8;
/** Full periods the tail must show before it counts as a cycle. */
const CYCLE_REPEATS = 3;

/** A cycle at the end of lambda's trace (see `lambdaCycle`). */
export interface LambdaCycle {
  /** 1-based iteration from which the trace repeats. */
  readonly since: number;
  /** Iterations per round. */
  readonly period: number;
  readonly low: number;
  readonly high: number;
}

/**
 * The cycle lambda's trace ends in, or null: the shortest period p (2 to 8) with which
 * the last values repeat exactly for at least three full rounds, lambda taking more than
 * one value in them. The rank control only doubles and halves lambda, so a fit whose
 * graph flips between fewer and more than c components repeats lambda's values exactly.
 */
export function lambdaCycle(trace: readonly number[]): LambdaCycle | null {
  const n = trace.length;
  for (let p = 2; p <= MAX_CYCLE_PERIOD && CYCLE_REPEATS * p <= n; p++) {
    let j = n - 1;
    while (j - p >= 0 && trace[j] === trace[j - p]) j--;
    // trace[j + 1 - p ..] repeats with period p.
    const start = j + 1 - p;
    if (n - start < CYCLE_REPEATS * p) continue;
    let low = trace[start];
    let high = trace[start];
    for (let i = start; i < n; i++) {
      low = Math.min(low, trace[i]);
      high = Math.max(high, trace[i]);
    }
    if (low === high) return null;
    return { since: start + 1, period: p, low, high };
  }
  return null;
}

/** How an iterative loop ended at maxIter, for `maxIterationsWarnings`. */
export interface MaxIterationsEnd {
  /** The method's display name. */
  readonly owner: string;
  readonly maxIter: number;
  /**
   * The stop test's quantity in words (e.g. 'the change of Q (stopRule "aligned")') and
   * its value at the last iteration; null for the methods that stop on the graph alone
   * (PCAN, SPCAN: once it has exactly c components).
   */
  readonly stopTest: { readonly measure: string; readonly change: number } | null;
  readonly tol: number;
  /** The adaptive graph's methods' rank control; absent where the test runs every iteration. */
  readonly graph?: {
    /** The iteration at which the stop test last ran (0: never). */
    readonly lastTested: number;
    readonly c: number;
    /** lambda after each iteration: its end tells a cycle. */
    readonly lambdaTrace: readonly number[];
    /** The options that change the graph, for the advice (e.g. "the number of neighbours m"). */
    readonly knobs: string;
  };
}

/**
 * The warnings of a loop that ran all maxIter iterations: "max-iterations" (where the
 * stop test stood, and what to change) and, when lambda's trace ends in a cycle,
 * "lambda-cycle".
 */
export function maxIterationsWarnings(end: MaxIterationsEnd): FitWarning[] {
  const { owner, maxIter, stopTest, tol, graph } = end;
  const cycle = graph === undefined ? null : lambdaCycle(graph.lambdaTrace);
  const values: Record<string, number> = { maxIter, tol };
  const test =
    stopTest === null
      ? ""
      : `${stopTest.measure} was ${shownNumber(stopTest.change)} at the last iteration, against tol = ${shownNumber(tol)}`;
  if (stopTest !== null) values.change = stopTest.change;
  let state: string;
  let advice: string;
  if (graph === undefined || graph.lastTested === maxIter) {
    state = test;
    advice = "Raise maxIter, or loosen tol if a change of that size is small enough for your use.";
  } else {
    const lambda = graph.lambdaTrace[graph.lambdaTrace.length - 1];
    values.lambda = lambda;
    const components = `the graph did not have exactly c = ${graph.c} components at the end (lambda ${shownNumber(lambda)})`;
    if (stopTest === null) {
      state = `${components}, and the fit stops only once it has`;
    } else {
      values.lastTested = graph.lastTested;
      const ran =
        graph.lastTested === 0 ? "never ran" : `last ran at iteration ${graph.lastTested}`;
      state = `${components}, so the stop test ${ran}; ${test}`;
    }
    advice = "Raise maxIter, or change the number of neighbours m.";
  }
  if (cycle !== null) {
    advice = 'As lambda cycled (the "lambda-cycle" warning), more iterations would not help.';
  }
  const stopped = fitWarning(
    "max-iterations",
    `${owner} stopped at maxIter = ${maxIter} without converging: ${state}. ${advice}`,
    values,
  );
  if (graph === undefined || cycle === null) return [stopped];
  return [stopped, lambdaCycleWarning(owner, cycle, graph.c, graph.knobs)];
}

/** The "lambda-cycle" warning. */
function lambdaCycleWarning(
  owner: string,
  cycle: LambdaCycle,
  c: number,
  knobs: string,
): FitWarning {
  const { since, period, low, high } = cycle;
  return fitWarning(
    "lambda-cycle",
    `${owner}'s lambda cycled between ${shownNumber(low)} and ${shownNumber(high)} (every ${period} iterations from iteration ${since} on): the rank control doubled it while the graph had fewer than c = ${c} components and halved it while it had more, never finding exactly c, which the fit needs to stop. Change ${knobs}, or set lambdaCap = ${shownNumber(low)} so that lambda stays there and the fit can stop.`,
    { since, period, lambdaLow: low, lambdaHigh: high, clusters: c },
  );
}

/**
 * The "lambda-cap" warning. `then` says how the fit goes on (the Q-loop waits for Q
 * to settle; PCAN stops). `labelled`: lambda weighs the label term (SPCAN, SDSPCAAN),
 * which cannot split off a class too small for its own m neighbours; PCAN's lambda
 * weighs the graph's own c-cluster embedding, which has no classes.
 */
export function lambdaCapWarning(
  cap: number,
  iteration: number,
  c: number,
  then: string,
  labelled: boolean,
): FitWarning {
  const why = labelled
    ? "The label term cannot split some class off the others (a class of a single training sample never can be; one of fewer than m + 1 may need lambda above the cap)"
    : "The graph's rank term cannot cut it into c clusters (groups of samples joined by their neighbours across them do this)";
  return fitWarning(
    "lambda-cap",
    `lambda reached its cap ${shownNumber(cap)} at iteration ${iteration} while the graph still had fewer than c = ${c} components; ${then}. ${why}; a smaller number of neighbours m may let the graph reach c components.`,
    { lambdaCap: cap, iteration, clusters: c },
  );
}

/**
 * Codes of the texts that earlier versions wrote without one (model files of format
 * versions 1 and 2, results lines): each recognised by words the text always had.
 */
const LEGACY_PATTERNS: ReadonlyArray<readonly [RegExp, FitWarningCode]> = [
  [/^lambda reached its cap/, "lambda-cap"],
  [/^LOBPCG did not reach its tolerance/, "eigensolver-tolerance"],
  [/have fewer than m \+ 1 = \d+ training samples/, "small-classes"],
  [/depends on the units of X/, "unit-scale"],
  [/^k = \d+ exceeds the numerical rank/, "k-above-rank"],
  [/^k = \d+ is below c - 1/, "k-below-classes"],
  [/^The between-class scatter has numerical rank/, "between-class-rank"],
  [/^pcaDimensions = \d+ exceeds the numerical rank/, "pca-dimensions-above-rank"],
  [/nearest same-class neighbours at distance 0/, "tied-neighbours"],
  [/training sample\(s\) have zero degree/, "isolated-samples"],
];

/** A warning saved as text alone, with the code its words show ("other" when none). */
export function warningFromText(text: string): FitWarning {
  for (const [pattern, code] of LEGACY_PATTERNS) {
    if (pattern.test(text)) return { code, message: text, values: {} };
  }
  return { code: "other", message: text, values: {} };
}
