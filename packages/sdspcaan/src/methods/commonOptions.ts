/**
 * Option specs and checks shared by several methods, so that the same option has
 * the same name, default, range and documentation everywhere.
 */
import { ValidationError } from "../core/errors.js";
import type { IntegerSpec, NumberSpec } from "../core/options.js";

/** The paper's constants (Section III-C; SPEC section 1). */
export const PAPER_EPS = 2 ** -52;
export const PAPER_TOL = 1e-3;
export const PAPER_MAX_ITER = 500;
export const PAPER_NEIGHBOURS = 15;

export const kOption = {
  type: "integer",
  min: 1,
  default: 10,
  doc: "Subspace dimensionality k (columns of W).",
} as const satisfies IntegerSpec;
export const tolOption = {
  type: "number",
  min: 0,
  exclusiveMin: true,
  default: PAPER_TOL,
  doc: "Absolute tolerance of the stop test (the paper's tol).",
} as const satisfies NumberSpec;
export const maxIterOption = {
  type: "integer",
  min: 1,
  default: PAPER_MAX_ITER,
  doc: "Maximum number of outer iterations (the paper's T).",
} as const satisfies IntegerSpec;
export const epsOption = {
  type: "number",
  min: 0,
  exclusiveMin: true,
  default: PAPER_EPS,
  doc: "Small positive constant against division by zero (the paper's epsilon).",
  expert: true,
} as const satisfies NumberSpec;
export const neighboursOption = {
  type: "integer",
  min: 1,
  default: null,
  doc: "Number of adaptive neighbours m; null means min(15, n - 2).",
} as const satisfies IntegerSpec;

/** Resolves m = min(15, n - 2) or checks a user-given m against 1 <= m <= n - 2. */
export function resolveNeighbourCount(owner: string, m: number | null, n: number): number {
  if (n < 3) {
    throw new ValidationError(
      "X",
      `${owner} builds an adaptive-neighbour graph and needs at least 3 training samples. Got ${n}.`,
    );
  }
  if (m === null) return Math.min(PAPER_NEIGHBOURS, n - 2);
  if (m > n - 2) {
    throw new ValidationError(
      "m",
      `The 'm' parameter of ${owner} must be an integer in [1, ${n - 2}] for ${n} training samples (n - 2). Got ${m} instead.`,
    );
  }
  return m;
}

/** Checks k against a data-dependent upper bound, naming why the bound exists. */
export function checkComponentCount(owner: string, k: number, max: number, why: string): void {
  if (k > max) {
    throw new ValidationError(
      "k",
      `The 'k' parameter of ${owner} must be an integer in [1, ${max}] (${why}). Got ${k} instead.`,
    );
  }
}
