/**
 * The options of the SDSPCA family's Q-loop (SDSPCA, SDSPCA-LPP, SDSPCAAN, and SPCAN's
 * literal formulation), each declared once: the specs the methods compose their
 * option schemas from, how the protocol's grids tune them, and the loop's settings
 * derived from a method's values (`qLoopSettings`).
 */
import type { EnumSpec, IntegerSpec, NumberSpec, OptionsOf } from "../core/options.js";
import { DEFAULT_LAMBDA_CAP } from "../graph/rankControl.js";
import { epsOption, kOption, maxIterOption, neighboursOption, tolOption } from "./commonOptions.js";
import { MULTIPLIER_GRID } from "./descriptor.js";
import { STOP_RULES, type StopRule } from "./stopRules.js";
import type {
  ZKrylovSpaceChoice,
  ZKrylovStartChoice,
  ZPreconditionerChoice,
  ZSolverChoice,
} from "./zstep/zSolvers.js";

/** How the user's alpha, beta, delta are read. */
export type Weighting = "scaled" | "absolute";

/** Which graph term Z carries. */
export type GraphMode = "none" | "fixed" | "adaptive";

export const weightingOption = {
  type: "enum",
  values: ["scaled", "absolute"] as const,
  default: "scaled",
  doc: 'How alpha, beta, delta are read: "scaled" (the paper) multiplies them by Tr(XX^T)/Tr(YY^T), Tr(XX^T)/Tr(D) and Tr(XX^T)/Tr(XX^T L XX^T) with the current D and L; "absolute" uses them as the weights.',
  expert: true,
} as const satisfies EnumSpec;
export const stopRuleOption = {
  type: "enum",
  values: STOP_RULES,
  default: "aligned",
  doc: 'Stop test: "aligned" (sign-aligned ||Q - Q0||_1,1 < tol), "paper" (raw, as written), "subspace" (chordal distance).',
  expert: true,
} as const satisfies EnumSpec;
export const solverOption = {
  type: "enum",
  values: ["auto", "dense", "lobpcg"] as const,
  default: "auto",
  doc: 'Eigen-solver for Z: "dense" forms the n x n matrix; "lobpcg" applies Z matrix-free with warm-started block LOBPCG (no n x n matrix); "auto" is dense up to 2000 training samples (3000 when k > 20).',
  expert: true,
} as const satisfies EnumSpec;
export const seedOption = {
  type: "integer",
  min: 0,
  default: 0,
  doc: "Seed of the random start vectors of LOBPCG (used only by the lobpcg solver).",
  expert: true,
} as const satisfies IntegerSpec;

export const lambdaCapOption = {
  type: "number",
  min: 1,
  default: DEFAULT_LAMBDA_CAP,
  doc: "Upper bound of the rank-control weight lambda (a singleton class can never be split off, so lambda would grow without bound).",
  expert: true,
} as const satisfies NumberSpec;

/** A multiplier option of the SDSPCA family: a (alpha), b (beta) or c (delta). */
const multiplierSpec = (what: string) =>
  ({
    type: "number",
    min: 0,
    default: 1,
    doc: `${what} (a multiplier of the paper's trace scale unless weighting is "absolute").`,
  }) as const;

/** alpha and beta, as every Q-loop method declares them (SDSPCA's a and b). */
const labelAndSparsityOptions = {
  alpha: multiplierSpec("Weight of the label term alpha"),
  beta: multiplierSpec("Weight of the L2,1 sparsity term beta"),
} as const;

/** delta, as SDSPCA-LPP, SDSPCAAN and the Q-loop's schema declare it. */
export const graphWeightOption = multiplierSpec("Weight of the graph term delta");

/**
 * How the protocol's grids tune a and b: each over {0.01, ..., 100} in the paper's
 * grid, fixed at 1 in the authors' scripts and the quick grid.
 */
export const tunedLabelAndSparsity = {
  alpha: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
  beta: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
} as const;

/** How the grids tune the graph multiplier c: the authors' scripts tune it too. */
const tunedGraphWeight = {
  delta: { paper: MULTIPLIER_GRID, authors: MULTIPLIER_GRID, quick: [0.1, 1, 10] },
} as const;

/** The stop test and solver options every Q-loop method shares, in documented order. */
export const qLoopOptions = {
  tol: tolOption,
  maxIter: maxIterOption,
  eps: epsOption,
  stopRule: stopRuleOption,
  weighting: weightingOption,
  solver: solverOption,
  seed: seedOption,
} as const;

/** SDSPCA's options: k, the label and sparsity weights, and the loop's own. */
export const sdspcaOptions = {
  k: kOption,
  ...labelAndSparsityOptions,
  ...qLoopOptions,
} as const;

/**
 * The options of the Q-loop with a graph term: SDSPCA's, with the graph's weight delta
 * and neighbours m after the other weights. SDSPCA-LPP has these; SDSPCAAN adds lambdaCap.
 */
export const graphQLoopOptions = {
  k: kOption,
  ...labelAndSparsityOptions,
  delta: graphWeightOption,
  m: neighboursOption,
  ...qLoopOptions,
} as const;

/** How the grids tune the Q-loop with a graph term: a, b and c. */
export const tunedGraphQLoop = { ...tunedLabelAndSparsity, ...tunedGraphWeight } as const;

/**
 * The specs of every option a Q-loop method can have (SDSPCAAN has them all, the others
 * a part), from which `QLoopOptionValues` is derived.
 */
type QLoopSchema = typeof graphQLoopOptions & { lambdaCap: typeof lambdaCapOption };

type QLoopSchemaValues = OptionsOf<QLoopSchema>;

/**
 * The Q-loop options a method has: k and the shared stop and solver options always,
 * the others where the method declares them (`qLoopSettings` fills in the rest).
 */
export type QLoopOptionValues = Pick<
  QLoopSchemaValues,
  "k" | "tol" | "maxIter" | "eps" | "stopRule" | "solver" | "seed"
> &
  Partial<QLoopSchemaValues>;

/**
 * The loop's settings from a method's options: SDSPCA (graph "none"), SDSPCA-LPP
 * ("fixed"), SDSPCAAN ("adaptive") and SPCAN's literal formulation differ only in
 * the graph mode and a few fixed weights, given in `fixed`.
 */
export function qLoopSettings(
  owner: string,
  p: QLoopOptionValues,
  fixed: Partial<QLoopSettings> & { graph: GraphMode },
): QLoopSettings {
  // A multiplier or cap the method does not have is absent from its objective (0, no
  // cap); a solver choice it does not offer takes its spec's default.
  return {
    owner,
    k: p.k,
    alpha: p.alpha ?? 0,
    beta: p.beta ?? 0,
    delta: p.delta ?? 0,
    m: p.m ?? null,
    tol: p.tol,
    maxIter: p.maxIter,
    eps: p.eps,
    stopRule: p.stopRule,
    weighting: p.weighting ?? weightingOption.default,
    solver: p.solver,
    seed: p.seed,
    lambdaCap: p.lambdaCap ?? Number.POSITIVE_INFINITY,
    paths: {},
    ...fixed,
  };
}

/**
 * A fit's settings: the method's options and fixed weights, and the internal path
 * choices (`paths`), which no option reaches.
 */
export interface QLoopSettings {
  owner: string;
  k: number;
  alpha: number;
  beta: number;
  delta: number;
  graph: GraphMode;
  m: number | null;
  tol: number;
  maxIter: number;
  eps: number;
  stopRule: StopRule;
  weighting: Weighting;
  lambdaCap: number;
  solver: ZSolverChoice;
  seed: number;
  /**
   * Keep the reconstruction term -X X^T in Z (default). The paper's literal SPCAN
   * removes it together with the label and L2,1 terms.
   */
  reconstruction?: boolean;
  /** The internal path choices; empty (every one "auto") in a method's own fits. */
  paths: QLoopPaths;
}

/**
 * The Q-loop's internal path choices. Not options: a user gets what "auto" measures
 * best by size. The tests force them, to compare a path with the one it replaces at a
 * size the suite can afford (explicitly, per fit: the `paths` of `fitQLoop`'s settings,
 * or a method class from `withQLoopPaths` in sdspcaFamily.ts), and so can measurements.
 */
export interface QLoopPaths {
  /**
   * LOBPCG's preconditioner on the matrix-free path: the exact (Z - sigma I)^-1 through
   * Woodbury, sigma in a gap of the previous outer iteration's spectrum below the k-th
   * eigenvalue. "auto" (default) uses it for k >= 20 (autoPreconditioner); "always" and
   * "never" force it, for checking. The eigenpairs are the same to LOBPCG's tolerance.
   */
  preconditioner?: ZPreconditionerChoice;
  /**
   * LOBPCG's start from the Ritz vectors of Z on a space built from W (zKrylovStart.ts,
   * zLiftedStart.ts): "auto" (default) by k and n (autoKrylovStart); "always" and
   * "never" force it, for checking.
   */
  krylovStart?: ZKrylovStartChoice;
  /**
   * Which space that start uses once D varies: "lifted" (default, zLiftedStart.ts) or
   * "chebyshev" (span{W, T_1(D^) W, ..., T_J(D^) W}, the one it is compared with).
   */
  krylovSpace?: ZKrylovSpaceChoice;
  /**
   * The large-n graph paths (k-d tree neighbour search, Laplacian solves that stop once
   * the rank control's decision is settled): by size ("auto", default, from 4000
   * training samples or graph components on) or "always", for checking they give the
   * same fit.
   */
  largeScale?: "auto" | "always";
  /**
   * Track each row's same-class neighbours across iterations (graph/trackedNeighbours.ts,
   * the same neighbours): by default from TRACKED_SEARCH_MIN_ROWS training samples on;
   * true at any size and false never, for checking.
   */
  trackNeighbours?: boolean;
  /**
   * Run the rank control's Laplacian solves on the side thread, beside the Z solve
   * (graph/rankControlBeside.ts, the same values): by default from
   * RANK_CONTROL_BESIDE_MIN_ROWS training samples on; true at any size and false never,
   * for checking. Without a side thread (one thread, browsers) they run here.
   */
  rankControlBeside?: boolean;
}
