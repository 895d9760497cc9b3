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
export const preconditionerOption = {
  type: "enum",
  values: ["auto", "always", "never"] as const,
  default: "auto",
  doc: 'Preconditioner of LOBPCG on Z (lobpcg solver only): the exact (Z - sigma I)^-1 through Woodbury, with sigma in a gap of the previous outer iteration\'s spectrum below the k-th eigenvalue. "auto" uses it for k >= 20, where it saves LOBPCG sweeps; "always" and "never" force it on or off (from the second outer iteration on). The eigenpairs are the same to the tolerance either way.',
  expert: true,
  fingerprintWhenSet: true,
} as const satisfies EnumSpec;
export const krylovStartOption = {
  type: "enum",
  values: ["auto", "always", "never"] as const,
  default: "auto",
  doc: 'Start of LOBPCG on Z (lobpcg solver only): the Ritz vectors of Z on span{W, D W, ..., D^J W} (W a basis of [X, Y]; J chosen so that they are within about 5e-4 rad), where Z\'s wanted eigenvectors lie when they are far below beta D. "auto" uses it for k >= 20: J = 0 in the first outer iteration (D = I, where it is exact) while r + c <= n / 4, and later (see krylovSpace) the lifted space from 5,000 training samples on while r + c + 3 b <= n / 4, or K_J from 10,000 on while (J + 1)(r + c) <= n / 4; "always" and "never" force it on or off. LOBPCG then applies the same residual test, so the eigenpairs are the same to the tolerance either way.',
  expert: true,
  fingerprintWhenSet: true,
} as const satisfies EnumSpec;
export const krylovSpaceOption = {
  type: "enum",
  values: ["lifted", "chebyshev"] as const,
  default: "lifted",
  doc: 'The space LOBPCG\'s start on Z comes from once D varies (lobpcg solver, with krylovStart): "lifted" is span{W, T_1(D^) W Y, T_2(D^) W Y, T_3(D^) W Y} with Y the b coefficient vectors of the wanted eigenvectors, estimated from span W and refined once (one moment W^T D W and products with b columns); "chebyshev" is span{W, T_1(D^) W, ..., T_J(D^) W} for all of W\'s columns (2J + 1 moments and a dense problem of order (J + 1)(r + c)). Lifted comes closer for less (about (1 / |l|)^4 against (1 / |l|)^(J + 1)); the eigenpairs are the same to LOBPCG\'s tolerance either way.',
  expert: true,
  fingerprintWhenSet: true,
} as const satisfies EnumSpec;
export const largeScaleOption = {
  type: "enum",
  values: ["auto", "always"] as const,
  default: "auto",
  doc: 'The large-n paths of the graph steps: k-d tree neighbour search and Laplacian solves that stop once the rank control\'s decision is settled. "auto" uses them from 4000 training samples (or graph components) on; "always" at any size, for checking that they give the same fit.',
  expert: true,
  fingerprintWhenSet: true,
} as const satisfies EnumSpec;

export const lambdaCapOption = {
  type: "number",
  min: 1,
  default: DEFAULT_LAMBDA_CAP,
  doc: "Upper bound of the rank-control weight lambda (a singleton class can never be split off, so lambda would grow without bound).",
  expert: true,
} as const satisfies NumberSpec;

/** The multiplier options a (alpha) and b (beta) of the SDSPCA family. */
export const multiplierSpec = (what: string) =>
  ({
    type: "number",
    min: 0,
    default: 1,
    doc: `${what} (a multiplier of the paper's trace scale unless weighting is "absolute").`,
  }) as const;

/** alpha and beta, as every Q-loop method declares them (SDSPCA's a and b). */
export const labelAndSparsityOptions = {
  alpha: multiplierSpec("Weight of the label term alpha"),
  beta: multiplierSpec("Weight of the L2,1 sparsity term beta"),
} as const;

/**
 * How the protocol's grids tune a and b: each over {0.01, ..., 100} in the paper's
 * grid, fixed at 1 in the authors' scripts and the quick grid.
 */
export const tunedLabelAndSparsity = {
  alpha: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
  beta: { paper: MULTIPLIER_GRID, authors: [1], quick: [1] },
} as const;

/** How the grids tune the graph multiplier c: the authors' scripts tune it too. */
export const tunedGraphWeight = {
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
  preconditioner: preconditionerOption,
  krylovStart: krylovStartOption,
  krylovSpace: krylovSpaceOption,
} as const;

/**
 * Every option a Q-loop method can have, each declared once (the methods pick theirs
 * from these specs); `QLoopOptionValues` is derived from it.
 */
const Q_LOOP_SCHEMA = {
  k: kOption,
  ...labelAndSparsityOptions,
  delta: multiplierSpec("Weight of the graph term delta"),
  m: neighboursOption,
  ...qLoopOptions,
  largeScale: largeScaleOption,
  lambdaCap: lambdaCapOption,
} as const;

type QLoopSchemaValues = OptionsOf<typeof Q_LOOP_SCHEMA>;

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
    preconditioner: p.preconditioner ?? preconditionerOption.default,
    krylovStart: p.krylovStart ?? krylovStartOption.default,
    krylovSpace: p.krylovSpace ?? krylovSpaceOption.default,
    largeScale: p.largeScale ?? largeScaleOption.default,
    lambdaCap: p.lambdaCap ?? Number.POSITIVE_INFINITY,
    ...fixed,
  };
}

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
  /** LOBPCG's preconditioner on the matrix-free path (default "auto"). */
  preconditioner?: ZPreconditionerChoice;
  /** LOBPCG's start from W's Krylov spaces on the matrix-free path (default "auto"). */
  krylovStart?: ZKrylovStartChoice;
  /** Which space that start uses once D varies (default "lifted"). */
  krylovSpace?: ZKrylovSpaceChoice;
  /** The large-n graph paths: by size ("auto", default) or always (for checking). */
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
  /**
   * Keep the reconstruction term -X X^T in Z (default). The paper's literal SPCAN
   * removes it together with the label and L2,1 terms.
   */
  reconstruction?: boolean;
}
