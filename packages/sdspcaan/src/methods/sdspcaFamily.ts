/**
 * The Q-iteration shared by SDSPCA (Algorithm 1), SDSPCA-LPP and SDSPCAAN
 * (Algorithm 3): Q = the k trailing eigenvectors of
 *
 *   Z = -X X^T - alpha Y Y^T + beta D + delta X X^T L X X^T        (Eq. SDSPCAAN-Q)
 *
 * with D the L2,1 reweighting (Eq. SDSPCA-V) and L the Laplacian of the graph S:
 * none (SDSPCA), fixed at the initial graph (SDSPCA-LPP), or adaptive with the rank
 * control of lambda (SDSPCAAN, Eq. SDSPCAAN-si). W = X^T Q.
 *
 * The three methods are one loop with two switches, so that the paper's identities
 * hold by construction and can be tested: SDSPCAAN with delta = 0 is SDSPCA (the
 * graph has no weight, so neither S nor lambda is computed and the stop test is
 * SDSPCA's), and SDSPCAAN with S frozen is SDSPCA-LPP.
 *
 * Order of the steps inside an iteration follows Algorithm 3 (and the authors'
 * code): symmetrise S and form L; form Z with the trace-scaled weights of the
 * current D and L; eigen-solve; rank control (adaptive graph only: double lambda,
 * halve it, or run the stop test); update D; update S with the new lambda and Q.
 */
import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import type { EnumSpec, IntegerSpec, NumberSpec, OptionsOf } from "../core/options.js";
import { type AdaptiveNeighbourGraph, labelledAdaptiveGraph } from "../graph/adaptive.js";
import {
  classLaplacianTrace,
  gammaWeightedSquaredNorm,
  graphLaplacian,
  symmetricLaplacianTrace,
  symmetrizeGraph,
} from "../graph/laplacian.js";
import { provenRankDecision } from "../graph/rankBounds.js";
import {
  applyRankAction,
  DEFAULT_LAMBDA_CAP,
  type RankControlAction,
  rankControl,
} from "../graph/rankControl.js";
import { RankControlRunner } from "../graph/rankControlBeside.js";
import { WithinClassNeighbourTracker } from "../graph/trackedNeighbours.js";
import { multiply } from "../linalg/kernels/gemm.js";
import type { CsrMatrix } from "../linalg/sparse.js";
import {
  checkComponentCount,
  epsOption,
  kOption,
  maxIterOption,
  neighboursOption,
  resolveNeighbourCount,
  tolOption,
} from "./commonOptions.js";
import { MULTIPLIER_GRID } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { StopReason } from "./fitReport.js";
import { classSums, initialGraph, smallClassWarnings, unitScaleWarnings } from "./sharedSteps.js";
import { iterateChange, STOP_RULES, type StopRule } from "./stopRules.js";
import type { TrainingData } from "./training.js";
import {
  chooseZSolver,
  type ZGraph,
  type ZKrylovSpaceChoice,
  type ZKrylovStartChoice,
  type ZPreconditionerChoice,
  type ZSolverChoice,
  type ZSolverStats,
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

/**
 * Under largeScale "always": components above this many nodes are solved iteratively
 * (with the decision-driven stop), so that small problems exercise the large-n path.
 */
const FORCED_DENSE_COMPONENT_LIMIT = 40;

/**
 * From this many training samples on, SDSPCAAN's within-class neighbour searches are
 * tracked across outer iterations (graph/trackedNeighbours.ts): late in a fit most rows
 * keep their neighbours and are certified without a scan. Below, a search takes a
 * fraction of a second, and the paper's data sets keep the path they always used.
 */
export const TRACKED_SEARCH_MIN_ROWS = 4000;

/**
 * From this many training samples on, the rank control's Laplacian solves run on the
 * side thread beside the Z solve where one is registered (graph/rankControlBeside.ts;
 * the same values). Below, a solve takes a small fraction of an outer iteration.
 */
export const RANK_CONTROL_BESIDE_MIN_ROWS = 10_000;

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

/** The Q-loop's diagnostics (`fitInfo.details` of SDSPCA, SDSPCA-LPP, SDSPCAAN). */
export type QLoopDetails = ZSolverStats & {
  /** The effective weights of the last iteration (after trace scaling). */
  alphaWeight: number;
  betaWeight: number;
  deltaWeight: number;
  graph: GraphMode;
  /** Neighbours per row (null without a graph). */
  m: number | null;
  /** lambda at the end (adaptive graph only). */
  lambdaFinal: number | null;
  lambdaCapped: boolean;
  /** The stop rule's change measure per iteration. */
  iterateChange: number[];
  /** The k eigenvalues of Z at the last iteration, ascending. */
  eigenvalues: number[];
  /** The c + 1 smallest Laplacian eigenvalues of the last rank control (adaptive only). */
  laplacianEigenvalues: number[] | null;
  /**
   * Time of the rank control's work (the bounds' checks and the Laplacian solves), in
   * ms; the solves' time is measured where they ran, on the side thread when beside
   * the Z solve (`rankControlBeside`), where it mostly overlaps the eigen-solves.
   */
  laplacianEigenMs: number;
  /**
   * Rank controls settled by bounds without solving L ("test" by class bounds,
   * "double" by path bounds; adaptive only, see graph/rankBounds.ts).
   */
  rankControlsByBounds: number;
  /**
   * Rows whose same-class neighbours were certified from the previous search, and rows
   * scanned in full, summed over the tracked searches (graph/trackedNeighbours.ts;
   * both 0 when the searches were not tracked).
   */
  neighbourRowsCertified: number;
  neighbourRowsScanned: number;
};

/** What a Q-loop fit keeps in memory: Q (n x k) and, with a graph, the last S and gamma. */
export type QLoopArtifacts = {
  Q: Matrix;
  /** The last adaptive-neighbour rows (before symmetrising). */
  S?: CsrMatrix;
  gamma?: Float64Array;
};

/**
 * The base of SDSPCA, SDSPCA-LPP and SDSPCAAN: the one Q-loop with the graph mode
 * each declares (`graph`), so the three differ only in their options and that mode.
 */
export abstract class QLoopEstimator<O extends QLoopOptionValues> extends Estimator<
  O,
  QLoopDetails,
  QLoopArtifacts
> {
  /** none (SDSPCA), fixed at the initial graph (SDSPCA-LPP) or adaptive (SDSPCAAN). */
  protected abstract readonly graph: GraphMode;

  protected fitCore(
    data: TrainingData,
    ctx: FitContext,
  ): CoreFitResult<QLoopDetails, QLoopArtifacts> {
    return fitQLoop(data, ctx, qLoopSettings(this.displayName, this.params, { graph: this.graph }));
  }
}

/** ||Y^T Q||_F^2 = sum over classes of the squared norm of the class sum of rows of Q. */
function labelEnergy(Q: Matrix, codes: Int32Array, c: number): number {
  const sums = classSums(Q, codes, c);
  let s = 0;
  for (let t = 0; t < sums.length; t++) s += sums[t] * sums[t];
  return s;
}

function rowNormsSquared(Q: Matrix): Float64Array {
  const k = Q.cols;
  const out = new Float64Array(Q.rows);
  for (let i = 0; i < Q.rows; i++) {
    let s = 0;
    for (let j = 0; j < k; j++) s += Q.data[i * k + j] * Q.data[i * k + j];
    out[i] = s;
  }
  return out;
}

function dotAll(A: Matrix, B: Matrix): number {
  let s = 0;
  for (let t = 0; t < A.data.length; t++) s += A.data[t] * B.data[t];
  return s;
}

/** The graph as one iteration sees it: symmetrised S, gamma, and what Z needs of L. */
interface GraphState {
  readonly Ssym: CsrMatrix;
  readonly gamma: Float64Array;
  readonly z: ZGraph;
}

/** Runs Algorithm 1 / 3 on prepared data; the three method classes call this. */
export function fitQLoop(
  data: TrainingData,
  ctx: FitContext,
  s: QLoopSettings,
): CoreFitResult<QLoopDetails, QLoopArtifacts> {
  const labels = data.requireLabels(s.owner);
  const n = data.n;
  const k = s.k;
  // Q is n x k with orthonormal columns, and W = X^T Q has rank at most d: a k above
  // min(n, d) would return columns that are not independent.
  const limit = Math.min(n, data.d);
  checkComponentCount(
    s.owner,
    k,
    limit,
    `at most min(n, d) = ${limit}: Q is n x k with orthonormal columns and W = X^T Q has rank at most d`,
  );
  // delta = 0 removes the graph from the objective: SDSPCA exactly.
  const graphMode: GraphMode = s.delta === 0 ? "none" : s.graph;
  const m = graphMode === "none" ? null : resolveNeighbourCount(s.owner, s.m, n);
  const c = labels.classes.length;
  const trG = data.gramTrace();
  if (!(trG > 0)) {
    throw new ValidationError(
      "X",
      `${s.owner} needs training data that is not constant: every centred row is 0.`,
    );
  }
  const scaled = s.weighting === "scaled";
  const forceLarge = s.largeScale === "always";
  // alpha = a Tr(XX^T)/Tr(YY^T) with Tr(YY^T) = n for one-hot Y (SPEC section 1).
  const alpha = scaled ? (s.alpha * trG) / n : s.alpha;
  const recon = s.reconstruction === false ? 0 : 1;
  const solver = chooseZSolver({
    choice: s.solver,
    data,
    alpha,
    codes: labels.codes,
    classes: c,
    k,
    seed: s.seed,
    signal: ctx.signal,
    reconstruction: recon,
    preconditioner: s.preconditioner ?? "auto",
    krylovStart: s.krylovStart ?? "auto",
    krylovSpace: s.krylovSpace ?? "lifted",
  });
  // The rank control's Laplacian solves (Algorithm 3's F and lambda updates): beside the
  // Z solve on the side thread at large n, else here.
  const laplacianOptions = {
    ...(ctx.signal ? { signal: ctx.signal } : {}),
    ...(forceLarge ? { denseLimit: FORCED_DENSE_COMPONENT_LIMIT, decisionMinSize: 1 } : {}),
  };
  const rank = new RankControlRunner(
    c,
    s.tol,
    laplacianOptions,
    graphMode === "adaptive" && (s.rankControlBeside ?? n >= RANK_CONTROL_BESIDE_MIN_ROWS),
  );
  // The solver may hold memory outside the JS heap (WebAssembly, helper threads) for
  // the fit, and the rank control a side thread: freed however the fit ends.
  try {
    const warnings: string[] = m === null ? [] : smallClassWarnings(data, m);
    if (graphMode === "adaptive") warnings.push(...unitScaleWarnings(s.owner, data));

    /** Algorithm 3, loop lines 1-2 (symmetrise S, form L), plus what Z needs of L. */
    const graphOf = (g: AdaptiveNeighbourGraph): GraphState => {
      const Ssym = symmetrizeGraph(g.S);
      const L = graphLaplacian(Ssym);
      return { Ssym, gamma: g.gamma, z: solver.graphTerm(Ssym, L, s.delta !== 0) };
    };
    let graph: GraphState | null = null;
    let adaptiveGraph: AdaptiveNeighbourGraph | null = null;
    if (graphMode !== "none") {
      const g0 = ctx.timeGraph(() => initialGraph(data, m as number, s.eps, ctx.signal));
      adaptiveGraph = g0;
      // The initial graph's state is shared by every fit on this training set.
      graph = ctx.timeGraph(() =>
        data.cached(`initialGraphState:${solver.kind}:${m}:${s.eps}`, () => graphOf(g0)),
      );
    }

    const Dd = new Float64Array(n).fill(1);
    let Q0 = new Matrix(n, k);
    let Q = Q0;
    let lambda = 1;
    let capped = false;
    const objective: number[] = [];
    const lambdaTrace: number[] = [];
    const changes: number[] = [];
    let stopReason: StopReason = "max-iterations";
    let converged = false;
    let iterations = 0;
    let evals: Float64Array = new Float64Array(0);
    let eL: Float64Array | null = null as Float64Array | null;
    let betaWeight = 0;
    let deltaWeight = 0;
    let laplacianMs = 0;
    let lastAction: RankControlAction | null = null;
    let byBounds = 0;
    // The Laplacian of the last rank control settled by bounds, whose values are still unsolved.
    let unsolvedL: CsrMatrix | null = null;
    // The within-class searches of the S updates, tracked across iterations on the
    // block-scan path (k-d trees, used for few columns, answer each query afresh).
    const tracker =
      graphMode === "adaptive" && !forceLarge && (s.trackNeighbours ?? n >= TRACKED_SEARCH_MIN_ROWS)
        ? new WithinClassNeighbourTracker(labels.codes, c, (m as number) + 1)
        : null;

    for (let t = 1; t <= s.maxIter; t++) {
      iterations = t;
      ctx.checkAborted();
      // beta = b Tr(XX^T)/Tr(D) and delta = c Tr(XX^T)/Tr(XX^T L XX^T), current D and L.
      let sumD = 0;
      for (let i = 0; i < n; i++) sumD += Dd[i];
      betaWeight = scaled ? (s.beta * trG) / sumD : s.beta;
      const zGraph = graph === null ? null : (graph as GraphState).z;
      deltaWeight =
        zGraph === null
          ? 0
          : scaled
            ? zGraph.trM > 0
              ? (s.delta * trG) / zGraph.trM
              : 0
            : s.delta;
      checkZScale(
        s,
        trG,
        alpha,
        n,
        betaWeight,
        sumD,
        deltaWeight,
        zGraph === null ? 0 : zGraph.trM,
      );
      // The rank control reads only L, as the Z solve does, and the last action: a
      // decision like the previous one is usually provable from bounds alone
      // (rankBounds.ts), which skips the solve of L (its values are then solved once,
      // for the record, after the loop); otherwise the solve starts now, beside the
      // Z solve where it can, and its values are taken after it.
      let proven: ReturnType<typeof provenRankDecision> = null;
      if (graphMode === "adaptive" && graph !== null) {
        const L = (graph as GraphState).z.L;
        const before = ctx.eigenMs;
        proven = ctx.timeEigen(() => provenRankDecision(L, labels.codes, c, s.tol, lastAction));
        laplacianMs += ctx.eigenMs - before;
        if (proven === null) rank.start(L);
      }
      const eig = ctx.timeEigen(() => solver.solve(betaWeight, Dd, deltaWeight, zGraph));
      Q = eig.vectors;
      evals = eig.values;
      const change = iterateChange(Q, Q0, s.stopRule);
      changes.push(change);

      // Objective (Eq. SDSPCAAN) at this iteration's weights, graph and lambda.
      const qn2 = rowNormsSquared(Q);
      let l21 = 0;
      let weighted = 0;
      for (let i = 0; i < n; i++) {
        l21 += Math.sqrt(qn2[i]);
        weighted += Dd[i] * qn2[i];
      }
      const yq = labelEnergy(Q, labels.codes, c);
      let P: Matrix | null = null;
      let trQGQ: number;
      let graphTerms = 0;
      if (graph !== null) {
        P = solver.project(Q);
        trQGQ = dotAll(Q, P);
        if (deltaWeight !== 0) {
          // Ssym is symmetric: each edge once, in the module (at 60,000 rows the
          // general loop over both triangles took 0.3 s per outer iteration).
          graphTerms = deltaWeight * symmetricLaplacianTrace(graph.Ssym, P);
          if (graphMode === "adaptive") {
            graphTerms +=
              0.5 * deltaWeight * gammaWeightedSquaredNorm(graph.Ssym, graph.gamma) +
              deltaWeight * lambda * classLaplacianTrace(graph.Ssym, labels.codes);
          }
        }
      } else {
        // Tr(Q^T Z Q) = sum of the k eigenvalues gives Tr(Q^T G Q) without another product.
        let sumEvals = 0;
        for (let j = 0; j < k; j++) sumEvals += evals[j];
        trQGQ = -sumEvals - alpha * yq + betaWeight * weighted;
      }
      const value = recon * (trG - trQGQ) + alpha * (n - yq) + betaWeight * l21 + graphTerms;
      objective.push(value);

      let stop = false;
      if (graphMode === "adaptive" && graph !== null) {
        const L = graph.z.L;
        let control: { readonly action: RankControlAction; readonly lambda: number };
        if (proven !== null) {
          control = applyRankAction(proven, lambda, s.lambdaCap);
          unsolvedL = L;
          byBounds++;
        } else {
          const solved = ctx.timeEigen(() => rank.finish());
          laplacianMs += solved.ms;
          const values = solved.values;
          eL = values;
          unsolvedL = null;
          control = rankControl({
            eigenvalues: values.length >= c + 1 ? values : padded(values, c + 1),
            clusters: c,
            tol: s.tol,
            lambda,
            maxLambda: s.lambdaCap,
          });
        }
        lastAction = control.action;
        if (control.action === "double" && lambda >= s.lambdaCap) {
          // lambda cannot grow further: the graph cannot be forced into c components,
          // so the iterate's own stop test decides.
          if (!capped) {
            warnings.push(
              `lambda reached its cap ${s.lambdaCap} at iteration ${t} while the graph still had fewer than c = ${c} components; the fit stops when Q settles.`,
            );
          }
          capped = true;
          if (change < s.tol) {
            stop = true;
            stopReason = "lambda-cap";
          }
        } else if (control.action === "test") {
          if (change < s.tol) {
            stop = true;
            stopReason = "converged";
            converged = true;
          }
        }
        lambda = control.lambda;
        lambdaTrace.push(lambda);
      } else if (change < s.tol) {
        stop = true;
        stopReason = "converged";
        converged = true;
      }
      ctx.progress(t, value, graphMode === "adaptive" ? lambda : null, { change, tol: s.tol });
      if (stop) break;

      // D update (Eq. SDSPCA-V).
      for (let i = 0; i < n; i++) Dd[i] = 1 / (2 * Math.sqrt(qn2[i] + s.eps));
      // S update (Eq. SDSPCAAN-si) with d_ij = ||p_i - p_j||^2 + lambda ||y_i - y_j||^2.
      if (graphMode === "adaptive") {
        const Pn = P as Matrix;
        ctx.timeGraph(() => {
          adaptiveGraph = labelledAdaptiveGraph(Pn, labels.codes, lambda, {
            m: m as number,
            eps: s.eps,
            strategy: forceLarge ? "tree" : "auto",
            ...(ctx.signal ? { signal: ctx.signal } : {}),
            ...(tracker !== null ? { tracker } : {}),
          });
          graph = graphOf(adaptiveGraph as AdaptiveNeighbourGraph);
        });
      }
      Q0 = Q;
    }

    if (unsolvedL !== null) {
      rank.start(unsolvedL);
      const solved = ctx.timeEigen(() => rank.finish());
      eL = solved.values;
      laplacianMs += solved.ms;
    }
    const W = multiply(data.X.transpose(), Q);
    return {
      components: W,
      iterations,
      converged,
      stopReason,
      objective,
      lambdaTrace,
      warnings,
      solver: solver.kind,
      artifacts: adaptiveGraph
        ? {
            Q,
            S: (adaptiveGraph as AdaptiveNeighbourGraph).S,
            gamma: (adaptiveGraph as AdaptiveNeighbourGraph).gamma,
          }
        : { Q },
      details: {
        alphaWeight: alpha,
        betaWeight,
        deltaWeight,
        graph: graphMode,
        m,
        lambdaFinal: graphMode === "adaptive" ? lambda : null,
        lambdaCapped: capped,
        iterateChange: changes,
        eigenvalues: Array.from(evals),
        laplacianEigenvalues: eL ? Array.from(eL) : null,
        laplacianEigenMs: laplacianMs,
        rankControlsByBounds: byBounds,
        neighbourRowsCertified: tracker?.stats.rowsCertified ?? 0,
        neighbourRowsScanned: tracker?.stats.rowsScanned ?? 0,
        ...solver.stats,
      },
    };
  } finally {
    rank.release();
    solver.release();
  }
}

/**
 * Largest trace a term of Z may have. Every term of Z is positive semidefinite, so
 * its entries are bounded by its trace; keeping the traces below 1e150 keeps Z and
 * the squares the eigen-solver forms of it finite.
 */
const Z_TERM_LIMIT = 1e150;

/**
 * Refuses weights that would make Z overflow, naming the user's option (or X when
 * the data's own terms are too large) instead of letting the eigen-solver report a
 * non-finite matrix.
 */
function checkZScale(
  s: QLoopSettings,
  trG: number,
  alpha: number,
  n: number,
  beta: number,
  sumD: number,
  delta: number,
  trM: number,
): void {
  const ok = (v: number) => Number.isFinite(v) && Math.abs(v) <= Z_TERM_LIMIT;
  if (!ok(trG) || !ok(trM)) {
    throw new ValidationError(
      "X",
      `${s.owner} cannot form Z for this X: Tr(XX^T) = ${trG.toExponential(2)}${trM > 0 ? ` and Tr(XX^T L XX^T) = ${trM.toExponential(2)}` : ""} exceed ${Z_TERM_LIMIT} in double precision. Rescale X, for example standardise its columns (preprocessing "train-zscore").`,
    );
  }
  const how = s.weighting === "scaled";
  const terms: Array<[string, number, number, string]> = [
    ["alpha", s.alpha, alpha * n, how ? "alpha = a Tr(XX^T)/Tr(YY^T)" : "alpha"],
    ["beta", s.beta, beta * sumD, how ? "beta = b Tr(XX^T)/Tr(D)" : "beta"],
    ["delta", s.delta, delta * trM, how ? "delta = c Tr(XX^T)/Tr(XX^T L XX^T)" : "delta"],
  ];
  for (const [name, given, term, what] of terms) {
    if (!ok(term)) {
      throw new ValidationError(
        name,
        `The '${name}' parameter of ${s.owner} is too large for this data: with ${name} = ${given} the weighted term of Z (${what}) reaches ${term.toExponential(2)}, beyond ${Z_TERM_LIMIT}, and the eigen-problem overflows double precision. Use a smaller '${name}' (the paper's grid is 0.01 to 100).`,
      );
    }
  }
}

function padded(values: Float64Array, length: number): Float64Array {
  const out = new Float64Array(length).fill(values.length ? values[values.length - 1] : 0);
  out.set(values);
  return out;
}
