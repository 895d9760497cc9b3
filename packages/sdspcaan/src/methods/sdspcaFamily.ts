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
 * An outer iteration (`QLoopRun.iterate`) follows Algorithm 3 (and the authors'
 * code), as named steps: Z's weights for the current D and graph (zstep/zWeights.ts,
 * which owns their trace scaling and overflow check); the rank control's start
 * (qLoopGraph.ts, adaptive graph only); the eigen-solve (zstep/zSolvers.ts); the
 * objective; the rank control's decision (double lambda, halve it, or run the stop
 * test); the D update and the S update with the new lambda and Q, which forms the next
 * iteration's L and graph term.
 */
import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { RankControlRunner } from "../graph/rankControlBeside.js";
import { WithinClassNeighbourTracker } from "../graph/trackedNeighbours.js";
import { multiply } from "../linalg/kernels/gemm.js";
import type { CsrMatrix } from "../linalg/sparse.js";
import { checkComponentCount, resolveNeighbourCount } from "./commonOptions.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { type FitWarning, LoopRecord } from "./fitReport.js";
import { maxIterationsWarnings } from "./fitWarnings.js";
import { type GraphUpdateSettings, LambdaControl, QLoopGraph } from "./qLoopGraph.js";
import {
  type GraphMode,
  type QLoopOptionValues,
  type QLoopPaths,
  type QLoopSettings,
  qLoopSettings,
} from "./qLoopOptions.js";
import { classSums, smallClassWarnings, unitScaleWarnings } from "./sharedSteps.js";
import { iterateChange } from "./stopRules.js";
import type { TrainingData } from "./training.js";
import { chooseZSolver, type ZSolver, type ZSolverStats } from "./zstep/zSolvers.js";
import { type IterationWeights, ZWeights } from "./zstep/zWeights.js";

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
    return fitQLoop(data, ctx, this.loopSettings());
  }

  /** The loop's settings from this method's options (`withQLoopPaths` adds paths). */
  protected loopSettings(): QLoopSettings {
    return qLoopSettings(this.displayName, this.params, { graph: this.graph });
  }
}

/** A Q-loop method's class (SDSPCA, SDSPCALPP, SDSPCAAN), as `withQLoopPaths` takes it. */
// biome-ignore lint/suspicious/noExplicitAny: a class extended by a mixin takes any[] (TS2545)
export type QLoopMethodClass = new (...args: any[]) => QLoopEstimator<QLoopOptionValues>;

/**
 * `Method` with the internal path choices `paths` forced in every fit of its
 * instances, e.g. `new (withQLoopPaths(SDSPCAAN, { largeScale: "always" }))(options)`:
 * how the tests and measurements compare a path "auto" picks by size with the one it
 * replaces. Fits of `Method` itself are unaffected.
 */
export function withQLoopPaths<C extends QLoopMethodClass>(Method: C, paths: QLoopPaths): C {
  return class extends Method {
    // Method's own value (a declaration only: no field of this class replaces it).
    declare protected readonly graph: GraphMode;

    protected override loopSettings(): QLoopSettings {
      const own = super.loopSettings();
      return { ...own, paths: { ...own.paths, ...paths } };
    }
  };
}

/** What every step of a fit reads: the settings, the data's sizes, and what follows. */
interface QLoopProblem {
  readonly s: QLoopSettings;
  readonly n: number;
  readonly k: number;
  /** The class codes 0..c-1 of the training rows and c. */
  readonly codes: Int32Array;
  readonly c: number;
  /** The graph Z carries: none when delta = 0, whatever the method. */
  readonly graphMode: GraphMode;
  /** Neighbours per row (null without a graph). */
  readonly m: number | null;
  /** Tr(X X^T) of the centred training data. */
  readonly trG: number;
  /** The weight of -X X^T in Z: 1, or 0 for the paper's literal SPCAN. */
  readonly recon: number;
  /** largeScale "always": the large-n graph paths at any size. */
  readonly forceLarge: boolean;
}

/** The fit's problem from the data and settings, refusing what it cannot fit. */
function qLoopProblem(data: TrainingData, s: QLoopSettings): QLoopProblem {
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
  return {
    s,
    n,
    k,
    codes: labels.codes,
    c,
    graphMode,
    m,
    trG,
    recon: s.reconstruction === false ? 0 : 1,
    forceLarge: s.paths.largeScale === "always",
  };
}

/** Runs Algorithm 1 / 3 on prepared data; the method classes call this. */
export function fitQLoop(
  data: TrainingData,
  ctx: FitContext,
  s: QLoopSettings,
): CoreFitResult<QLoopDetails, QLoopArtifacts> {
  const p = qLoopProblem(data, s);
  const weights = new ZWeights(s, p.trG, p.n);
  const solver = chooseZSolver({
    choice: s.solver,
    data,
    alpha: weights.alpha,
    codes: p.codes,
    classes: p.c,
    k: p.k,
    seed: s.seed,
    signal: ctx.signal,
    reconstruction: p.recon,
    preconditioner: s.paths.preconditioner ?? "auto",
    krylovStart: s.paths.krylovStart ?? "auto",
    krylovSpace: s.paths.krylovSpace ?? "lifted",
  });
  // The rank control's Laplacian solves (Algorithm 3's F and lambda updates): beside the
  // Z solve on the side thread at large n, else here.
  const rank = new RankControlRunner(
    p.c,
    s.tol,
    {
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(p.forceLarge ? { denseLimit: FORCED_DENSE_COMPONENT_LIMIT, decisionMinSize: 1 } : {}),
    },
    p.graphMode === "adaptive" &&
      (s.paths.rankControlBeside ?? p.n >= RANK_CONTROL_BESIDE_MIN_ROWS),
  );
  // The solver may hold memory outside the JS heap (WebAssembly, helper threads) for
  // the fit, and the rank control a side thread: freed however the fit ends.
  try {
    return new QLoopRun(data, ctx, p, weights, solver, rank).run();
  } finally {
    rank.release();
    solver.release();
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

/** One iteration's objective, and what the D and S updates reuse of its work. */
interface IterationObjective {
  readonly value: number;
  /** The squared row norms of Q. */
  readonly qn2: Float64Array;
  /** The projected rows P = X X^T Q (null without a graph). */
  readonly P: Matrix | null;
}

/** One fit's loop: its state across the outer iterations, and each step of one. */
class QLoopRun {
  private readonly data: TrainingData;
  private readonly ctx: FitContext;
  private readonly p: QLoopProblem;
  private readonly s: QLoopSettings;
  private readonly weights: ZWeights;
  private readonly solver: ZSolver;
  /** The diagonal of D (Eq. SDSPCA-V), I at the start. */
  private readonly Dd: Float64Array;
  private Q0: Matrix;
  private Q: Matrix;
  private readonly warnings: FitWarning[];
  private readonly record: LoopRecord;
  /** The stop rule's change measure per iteration. */
  private readonly changes: number[] = [];
  /** The eigenvalues of the last solve. */
  private evals: Float64Array = new Float64Array(0);
  /** The weights of the last iteration. */
  private w: IterationWeights = { beta: 0, delta: 0 };
  /** The last iteration whose stop test ran (without the adaptive graph, every one). */
  private lastTested = 0;
  /** The graph S (SDSPCA-LPP, SDSPCAAN; null for SDSPCA). */
  private readonly graph: QLoopGraph | null;
  /** The rank control of lambda (adaptive graph only). */
  private readonly lambda: LambdaControl | null;
  /** How S is updated (adaptive graph only). */
  private readonly how: GraphUpdateSettings | null;

  constructor(
    data: TrainingData,
    ctx: FitContext,
    p: QLoopProblem,
    weights: ZWeights,
    solver: ZSolver,
    rank: RankControlRunner,
  ) {
    const { s, n, k, m, graphMode } = p;
    this.data = data;
    this.ctx = ctx;
    this.p = p;
    this.s = s;
    this.weights = weights;
    this.solver = solver;
    this.warnings =
      m === null
        ? []
        : smallClassWarnings(data, m, graphMode === "adaptive" ? "adaptive" : "fixed");
    if (graphMode === "adaptive") this.warnings.push(...unitScaleWarnings(s.owner, data));
    this.graph =
      graphMode === "none" ? null : QLoopGraph.initial(data, ctx, solver, m as number, s.eps);
    this.Dd = new Float64Array(n).fill(1);
    this.Q0 = new Matrix(n, k);
    this.Q = this.Q0;
    this.record = new LoopRecord(this.warnings);
    const adaptive = graphMode === "adaptive";
    this.lambda = adaptive
      ? new LambdaControl(rank, { codes: p.codes, c: p.c, tol: s.tol, lambdaCap: s.lambdaCap })
      : null;
    // The within-class searches of the S updates, tracked across iterations on the
    // block-scan path (k-d trees, used for few columns, answer each query afresh).
    const track =
      adaptive && !p.forceLarge && (s.paths.trackNeighbours ?? n >= TRACKED_SEARCH_MIN_ROWS);
    this.how = adaptive
      ? {
          m: m as number,
          eps: s.eps,
          forceTree: p.forceLarge,
          tracker: track ? new WithinClassNeighbourTracker(p.codes, p.c, (m as number) + 1) : null,
        }
      : null;
  }

  run(): CoreFitResult<QLoopDetails, QLoopArtifacts> {
    for (let t = 1; t <= this.s.maxIter; t++) {
      if (this.iterate(t)) break;
    }
    return this.result();
  }

  /** Outer iteration t; true when the fit stops there. */
  private iterate(t: number): boolean {
    const { ctx, record, s, graph, lambda } = this;
    record.iterations = t;
    ctx.checkAborted();
    const z = graph === null ? null : graph.z;
    this.w = this.weights.at(this.Dd, z);
    if (lambda !== null) lambda.begin(ctx, (graph as QLoopGraph).L);
    const eig = ctx.timeEigen(() => this.solver.solve(this.w.beta, this.Dd, this.w.delta, z));
    this.Q = eig.vectors;
    this.evals = eig.values;
    const change = iterateChange(this.Q, this.Q0, s.stopRule);
    this.changes.push(change);
    const objective = this.objective();
    record.objective.push(objective.value);
    const stop = this.stopTest(t, change);
    ctx.progress(t, objective.value, lambda === null ? null : lambda.lambda, {
      change,
      tol: s.tol,
    });
    if (stop) return true;
    this.update(objective);
    this.Q0 = this.Q;
    return false;
  }

  /** The objective (Eq. SDSPCAAN) at this iteration's weights, graph and lambda. */
  private objective(): IterationObjective {
    const { Q, Dd, p, graph, lambda } = this;
    const { n, k, codes, c } = p;
    const { alpha } = this.weights;
    const { beta, delta } = this.w;
    const qn2 = rowNormsSquared(Q);
    let l21 = 0;
    let weighted = 0;
    for (let i = 0; i < n; i++) {
      l21 += Math.sqrt(qn2[i]);
      weighted += Dd[i] * qn2[i];
    }
    const yq = labelEnergy(Q, codes, c);
    let P: Matrix | null = null;
    let trQGQ: number;
    let graphTerms = 0;
    if (graph !== null) {
      P = this.solver.project(Q);
      trQGQ = dotAll(Q, P);
      graphTerms = graph.objectiveTerms(
        P,
        delta,
        lambda === null ? null : { lambda: lambda.lambda, codes },
      );
    } else {
      // Tr(Q^T Z Q) = sum of the k eigenvalues gives Tr(Q^T G Q) without another product.
      let sumEvals = 0;
      for (let j = 0; j < k; j++) sumEvals += this.evals[j];
      trQGQ = -sumEvals - alpha * yq + beta * weighted;
    }
    const value = p.recon * (p.trG - trQGQ) + alpha * (n - yq) + beta * l21 + graphTerms;
    return { value, qn2, P };
  }

  /**
   * The rank control's decision (adaptive graph), then the stop test where it runs:
   * true when the fit stops at iteration t.
   */
  private stopTest(t: number, change: number): boolean {
    const { lambda, record } = this;
    const testAs =
      lambda === null
        ? "converged"
        : lambda.decide(this.ctx, t, (this.graph as QLoopGraph).L, this.warnings);
    let stop = false;
    if (testAs !== null) {
      this.lastTested = t;
      if (change < this.s.tol) {
        stop = true;
        record.stop(testAs);
      }
    }
    if (lambda !== null) record.lambdaTrace.push(lambda.lambda);
    return stop;
  }

  /** The D update (Eq. SDSPCA-V) and, with the adaptive graph, the S update. */
  private update({ qn2, P }: IterationObjective): void {
    const { Dd, s } = this;
    for (let i = 0; i < Dd.length; i++) Dd[i] = 1 / (2 * Math.sqrt(qn2[i] + s.eps));
    if (this.lambda !== null) {
      const graph = this.graph as QLoopGraph;
      graph.update(
        this.ctx,
        P as Matrix,
        this.p.codes,
        this.lambda.lambda,
        this.how as GraphUpdateSettings,
      );
    }
  }

  /** The fit's result after its last iteration. */
  private result(): CoreFitResult<QLoopDetails, QLoopArtifacts> {
    const { p, record, graph, lambda, solver } = this;
    this.warnings.push(...solver.warnings);
    if (record.stopReason === "max-iterations") this.warnings.push(...this.maxIterationsWarnings());
    lambda?.finish(this.ctx);
    const W = multiply(this.data.X.transpose(), this.Q);
    const tracker = this.how?.tracker ?? null;
    return {
      components: W,
      ...record.fields(),
      solver: solver.kind,
      artifacts: graph ? { Q: this.Q, S: graph.rows.S, gamma: graph.rows.gamma } : { Q: this.Q },
      details: {
        alphaWeight: this.weights.alpha,
        betaWeight: this.w.beta,
        deltaWeight: this.w.delta,
        graph: p.graphMode,
        m: p.m,
        lambdaFinal: lambda === null ? null : lambda.lambda,
        lambdaCapped: lambda === null ? false : lambda.capped,
        iterateChange: this.changes,
        eigenvalues: Array.from(this.evals),
        laplacianEigenvalues: lambda?.laplacianValues ? Array.from(lambda.laplacianValues) : null,
        laplacianEigenMs: lambda === null ? 0 : lambda.laplacianMs,
        rankControlsByBounds: lambda === null ? 0 : lambda.byBounds,
        neighbourRowsCertified: tracker?.stats.rowsCertified ?? 0,
        neighbourRowsScanned: tracker?.stats.rowsScanned ?? 0,
        ...solver.stats,
      },
    };
  }

  /** Why the fit ran out of iterations, in words (fitWarnings.ts). */
  private maxIterationsWarnings(): FitWarning[] {
    const { s, p, record } = this;
    return maxIterationsWarnings({
      owner: s.owner,
      maxIter: s.maxIter,
      stopTest: {
        measure: `the change of Q (stopRule "${s.stopRule}")`,
        change: this.changes[this.changes.length - 1],
      },
      tol: s.tol,
      ...(p.graphMode === "adaptive"
        ? {
            graph: {
              lastTested: this.lastTested,
              c: p.c,
              lambdaTrace: record.lambdaTrace,
              knobs:
                s.reconstruction === false
                  ? "the number of neighbours m"
                  : "the number of neighbours m or the graph weight delta",
            },
          }
        : {}),
    });
  }
}
