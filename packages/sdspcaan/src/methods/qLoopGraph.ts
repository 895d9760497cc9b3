/**
 * The graph steps of the Q-loop (sdspcaFamily.ts) for SDSPCA-LPP and SDSPCAAN: the
 * graph S with what Z needs of it (`QLoopGraph`), and SDSPCAAN's rank control of lambda
 * (`LambdaControl`, Algorithm 3: double lambda, halve it, or run the stop test).
 */
import type { Matrix } from "../core/matrix.js";
import { type AdaptiveNeighbourGraph, labelledAdaptiveGraph } from "../graph/adaptive.js";
import {
  classLaplacianTrace,
  gammaWeightedSquaredNorm,
  graphLaplacian,
  symmetricLaplacianTrace,
  symmetrizeGraph,
} from "../graph/laplacian.js";
import { provenRankDecision } from "../graph/rankBounds.js";
import { applyRankAction, type RankControlAction, rankControl } from "../graph/rankControl.js";
import type { RankControlRunner } from "../graph/rankControlBeside.js";
import type { WithinClassNeighbourTracker } from "../graph/trackedNeighbours.js";
import type { CsrMatrix } from "../linalg/sparse.js";
import type { FitContext } from "./estimator.js";
import type { FitWarning, StopReason } from "./fitReport.js";
import { lambdaCapWarning } from "./fitWarnings.js";
import { initialGraph } from "./sharedSteps.js";
import type { TrainingData } from "./training.js";
import type { ZGraph, ZSolver } from "./zstep/zSolvers.js";

/** The graph as one iteration sees it: symmetrised S, gamma, and what Z needs of L. */
interface GraphState {
  readonly Ssym: CsrMatrix;
  readonly gamma: Float64Array;
  readonly z: ZGraph;
}

/** How the S update searches: its neighbour count, epsilon and search paths. */
export interface GraphUpdateSettings {
  readonly m: number;
  readonly eps: number;
  /** The k-d tree search whatever the size (largeScale "always"). */
  readonly forceTree: boolean;
  /** The within-class searches tracked across iterations (null: each one afresh). */
  readonly tracker: WithinClassNeighbourTracker | null;
}

/**
 * The graph S of a fit: the initial adaptive-neighbour graph, SDSPCAAN's S update
 * (Eq. SDSPCAAN-si), and for the current S its symmetrised form, L and Z's graph term
 * (Algorithm 3, loop lines 1-2), which every S gets once, when it is made.
 */
export class QLoopGraph {
  /** The last adaptive-neighbour rows (before symmetrising): the fit's artifact. */
  rows: AdaptiveNeighbourGraph;
  private state: GraphState;
  private readonly solver: ZSolver;

  private constructor(rows: AdaptiveNeighbourGraph, state: GraphState, solver: ZSolver) {
    this.rows = rows;
    this.state = state;
    this.solver = solver;
  }

  /** The initial graph, its state shared by every fit on this training set with this solver. */
  static initial(
    data: TrainingData,
    ctx: FitContext,
    solver: ZSolver,
    m: number,
    eps: number,
  ): QLoopGraph {
    const rows = ctx.timeGraph(() => initialGraph(data, m, eps, ctx.signal));
    const state = ctx.timeGraph(() =>
      data.cached(`initialGraphState:${solver.kind}:${m}:${eps}`, () => graphState(rows, solver)),
    );
    return new QLoopGraph(rows, state, solver);
  }

  /** What Z needs of the current graph: L, Tr(G L G), and G L G on the dense path. */
  get z(): ZGraph {
    return this.state.z;
  }

  /** The current Laplacian L. */
  get L(): CsrMatrix {
    return this.state.z.L;
  }

  /**
   * S update (Eq. SDSPCAAN-si) on the projected rows P = X X^T Q, with
   * d_ij = ||p_i - p_j||^2 + lambda ||y_i - y_j||^2.
   */
  update(
    ctx: FitContext,
    P: Matrix,
    codes: Int32Array,
    lambda: number,
    how: GraphUpdateSettings,
  ): void {
    ctx.timeGraph(() => {
      this.rows = labelledAdaptiveGraph(P, codes, lambda, {
        m: how.m,
        eps: how.eps,
        strategy: how.forceTree ? "tree" : "auto",
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(how.tracker !== null ? { tracker: how.tracker } : {}),
      });
      this.state = graphState(this.rows, this.solver);
    });
  }

  /**
   * The graph's terms of the objective (Eq. SDSPCAAN) for the projected rows P, at
   * graph weight delta: delta Tr(P^T L P), and for the adaptive graph
   * delta (gamma ||S||^2 / 2 + lambda Tr(Y^T L Y)) as well.
   */
  objectiveTerms(
    P: Matrix,
    delta: number,
    adaptive: { readonly lambda: number; readonly codes: Int32Array } | null,
  ): number {
    if (delta === 0) return 0;
    const { Ssym, gamma } = this.state;
    // Ssym is symmetric: each edge once, in the module (at 60,000 rows the general
    // loop over both triangles took 0.3 s per outer iteration).
    let terms = delta * symmetricLaplacianTrace(Ssym, P);
    if (adaptive !== null) {
      terms +=
        0.5 * delta * gammaWeightedSquaredNorm(Ssym, gamma) +
        delta * adaptive.lambda * classLaplacianTrace(Ssym, adaptive.codes);
    }
    return terms;
  }
}

/** Algorithm 3, loop lines 1-2 (symmetrise S, form L), plus what Z needs of L. */
function graphState(g: AdaptiveNeighbourGraph, solver: ZSolver): GraphState {
  const Ssym = symmetrizeGraph(g.S);
  const L = graphLaplacian(Ssym);
  return { Ssym, gamma: g.gamma, z: solver.graphTerm(Ssym, L) };
}

/** What the rank control reads of the fit: the labels, c, tol and lambda's cap. */
export interface LambdaControlSettings {
  readonly codes: Int32Array;
  readonly c: number;
  readonly tol: number;
  readonly lambdaCap: number;
}

/**
 * SDSPCAAN's rank control of lambda over a fit. Before each Z solve (`begin`) it reads
 * only L and the last action: a decision like the previous one is usually provable from
 * bounds alone (graph/rankBounds.ts), which skips the solve of L (its values are then
 * solved once, for the record, at the end: `finish`); otherwise the solve starts, beside
 * the Z solve where it can (the runner). After the Z solve (`decide`) lambda is
 * doubled, halved, or the stop test runs.
 */
export class LambdaControl {
  lambda = 1;
  /** Whether lambda reached its cap with the graph still short of c components. */
  capped = false;
  /** Rank controls settled by bounds without solving L. */
  byBounds = 0;
  /** Time of the bounds' checks and the Laplacian solves, in ms. */
  laplacianMs = 0;
  /** The c + 1 smallest eigenvalues of the last L solved. */
  laplacianValues: Float64Array | null = null;
  private readonly runner: RankControlRunner;
  private readonly s: LambdaControlSettings;
  private lastAction: RankControlAction | null = null;
  private proven: RankControlAction | null = null;
  /** The Laplacian of the last rank control settled by bounds, its values still unsolved. */
  private unsolvedL: CsrMatrix | null = null;

  constructor(runner: RankControlRunner, s: LambdaControlSettings) {
    this.runner = runner;
    this.s = s;
  }

  /** Before the Z solve on the graph with Laplacian L. */
  begin(ctx: FitContext, L: CsrMatrix): void {
    const { codes, c, tol } = this.s;
    const before = ctx.eigenMs;
    this.proven = ctx.timeEigen(() => provenRankDecision(L, codes, c, tol, this.lastAction));
    this.laplacianMs += ctx.eigenMs - before;
    if (this.proven === null) this.runner.start(L);
  }

  /**
   * After the Z solve of iteration t: the rank control's action on lambda. Returns the
   * reason the fit stops with if the iterate's own stop test passes this iteration
   * ("converged" on the action "test", "lambda-cap" when lambda cannot double any
   * further), or null when the stop test does not run.
   */
  decide(ctx: FitContext, t: number, L: CsrMatrix, warnings: FitWarning[]): StopReason | null {
    const { c, tol, lambdaCap } = this.s;
    let control: { readonly action: RankControlAction; readonly lambda: number };
    if (this.proven !== null) {
      control = applyRankAction(this.proven, this.lambda, lambdaCap);
      this.unsolvedL = L;
      this.byBounds++;
    } else {
      const solved = ctx.timeEigen(() => this.runner.finish());
      this.laplacianMs += solved.ms;
      const values = solved.values;
      this.laplacianValues = values;
      this.unsolvedL = null;
      control = rankControl({
        eigenvalues: values.length >= c + 1 ? values : padded(values, c + 1),
        clusters: c,
        tol,
        lambda: this.lambda,
        maxLambda: lambdaCap,
      });
    }
    this.lastAction = control.action;
    let testAs: StopReason | null = null;
    if (control.action === "double" && this.lambda >= lambdaCap) {
      // lambda cannot grow further: the graph cannot be forced into c components,
      // so the iterate's own stop test decides.
      if (!this.capped) {
        warnings.push(lambdaCapWarning(lambdaCap, t, c, "the fit stops when Q settles", true));
      }
      this.capped = true;
      testAs = "lambda-cap";
    } else if (control.action === "test") {
      testAs = "converged";
    }
    this.lambda = control.lambda;
    return testAs;
  }

  /** After the loop: the values of the last L, if bounds settled its rank control. */
  finish(ctx: FitContext): void {
    if (this.unsolvedL === null) return;
    this.runner.start(this.unsolvedL);
    const solved = ctx.timeEigen(() => this.runner.finish());
    this.laplacianValues = solved.values;
    this.laplacianMs += solved.ms;
  }
}

function padded(values: Float64Array, length: number): Float64Array {
  const out = new Float64Array(length).fill(values.length ? values[values.length - 1] : 0);
  out.set(values);
  return out;
}
