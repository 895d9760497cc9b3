/**
 * Rank control of lambda (Algorithms 2 and 3; SPEC section 2). With e_1 <= ... <=
 * e_(c+1) the smallest eigenvalues of L: if sum_{i<=c} e_i > tol the graph has fewer
 * than c components, so the label (or F) term must weigh more and lambda doubles;
 * if sum_{i<=c+1} e_i < tol it has more than c, and lambda halves; otherwise it has
 * exactly c components and the caller may run its convergence test. lambda is capped
 * (default 2^100) because a singleton class can never be split off and lambda would
 * otherwise grow without bound.
 */
import { ValidationError } from "../core/errors.js";
import { checkInteger } from "../core/validate.js";

export const DEFAULT_LAMBDA_CAP = 2 ** 100;

export type RankControlAction = "double" | "halve" | "test";

export interface RankControlInput {
  /** The smallest eigenvalues of L, ascending; at least c + 1 of them (extra ones are ignored). */
  readonly eigenvalues: ArrayLike<number>;
  /** c: the number of classes (SDSPCAAN, SPCAN) or clusters (PCAN). */
  readonly clusters: number;
  /** The absolute tolerance tol (> 0). */
  readonly tol: number;
  /** The current lambda (> 0, finite). */
  readonly lambda: number;
  /** The cap on lambda (>= lambda); default 2^100. */
  readonly maxLambda?: number;
}

export interface RankControlResult {
  readonly action: RankControlAction;
  /** lambda for the next graph update. */
  readonly lambda: number;
  /** True when the action was "double" and the cap kept lambda below 2 x its old value. */
  readonly capped: boolean;
  /** sum_{i<=c} e_i. */
  readonly sumFirst: number;
  /** sum_{i<=c+1} e_i. */
  readonly sumFirstPlusOne: number;
}

export function rankControl(input: RankControlInput): RankControlResult {
  const owner = "rankControl";
  const { eigenvalues, clusters, tol, lambda } = input;
  const cap = input.maxLambda ?? DEFAULT_LAMBDA_CAP;
  checkInteger(owner, "clusters", clusters, 1);
  if (typeof tol !== "number" || !Number.isFinite(tol) || tol <= 0) {
    throw new ValidationError(
      "tol",
      `The 'tol' parameter of ${owner} must be a finite number in (0, inf). Got ${tol} instead.`,
    );
  }
  if (typeof cap !== "number" || !Number.isFinite(cap) || cap <= 0) {
    throw new ValidationError(
      "maxLambda",
      `The 'maxLambda' parameter of ${owner} must be a finite number in (0, inf). Got ${cap} instead.`,
    );
  }
  if (typeof lambda !== "number" || !Number.isFinite(lambda) || lambda <= 0 || lambda > cap) {
    throw new ValidationError(
      "lambda",
      `The 'lambda' parameter of ${owner} must be a number in (0, ${cap}] (maxLambda). Got ${lambda} instead.`,
    );
  }
  if (eigenvalues.length < clusters + 1) {
    throw new ValidationError(
      "eigenvalues",
      `The 'eigenvalues' parameter of ${owner} must hold at least clusters + 1 = ${clusters + 1} values. Got ${eigenvalues.length} instead.`,
    );
  }
  let sumFirst = 0;
  for (let i = 0; i <= clusters; i++) {
    const e = eigenvalues[i];
    if (typeof e !== "number" || !Number.isFinite(e)) {
      throw new ValidationError(
        "eigenvalues",
        `The 'eigenvalues' parameter of ${owner} must hold finite numbers. Got ${e} at position ${i} instead.`,
      );
    }
    if (i > 0 && e < eigenvalues[i - 1]) {
      throw new ValidationError(
        "eigenvalues",
        `The 'eigenvalues' parameter of ${owner} must be ascending. Got ${e} after ${eigenvalues[i - 1]} at position ${i} instead.`,
      );
    }
    if (i < clusters) sumFirst += e;
  }
  const sumFirstPlusOne = sumFirst + eigenvalues[clusters];
  const action = sumFirst > tol ? "double" : sumFirstPlusOne < tol ? "halve" : "test";
  return { ...applyRankAction(action, lambda, cap), sumFirst, sumFirstPlusOne };
}

/**
 * lambda after a decision: doubled up to the cap ("double"), halved ("halve") or kept
 * ("test"). For callers that reach the decision without the eigenvalues (rankBounds.ts).
 */
export function applyRankAction(
  action: RankControlAction,
  lambda: number,
  cap: number,
): { readonly action: RankControlAction; readonly lambda: number; readonly capped: boolean } {
  if (action === "double") {
    const doubled = 2 * lambda;
    const capped = doubled > cap;
    return { action, lambda: capped ? cap : doubled, capped };
  }
  return { action, lambda: action === "halve" ? lambda / 2 : lambda, capped: false };
}
