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
import { RankControlRunner } from "../graph/rankControlBeside.js";
import { WithinClassNeighbourTracker } from "../graph/trackedNeighbours.js";
import { multiply } from "../linalg/kernels/gemm.js";
import type { CsrMatrix } from "../linalg/sparse.js";
import { checkComponentCount, resolveNeighbourCount } from "./commonOptions.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import { type FitWarning, LoopRecord } from "./fitReport.js";
import { lambdaCapWarning, maxIterationsWarnings } from "./fitWarnings.js";
import {
  type GraphMode,
  type QLoopOptionValues,
  type QLoopSettings,
  qLoopSettings,
} from "./qLoopOptions.js";
import { classSums, initialGraph, smallClassWarnings, unitScaleWarnings } from "./sharedSteps.js";
import { iterateChange } from "./stopRules.js";
import type { TrainingData } from "./training.js";
import { chooseZSolver, type ZGraph, type ZSolverStats } from "./zstep/zSolvers.js";

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

export * from "./qLoopOptions.js";

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
    const warnings: FitWarning[] = m === null ? [] : smallClassWarnings(data, m);
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
    const record = new LoopRecord(warnings);
    const changes: number[] = [];
    let evals: Float64Array = new Float64Array(0);
    let eL: Float64Array | null = null as Float64Array | null;
    let betaWeight = 0;
    let deltaWeight = 0;
    let laplacianMs = 0;
    let lastAction: RankControlAction | null = null;
    // The last iteration whose stop test ran (without the adaptive graph, every one).
    let lastTested = 0;
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
      record.iterations = t;
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
      record.objective.push(value);

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
            warnings.push(lambdaCapWarning(s.lambdaCap, t, c, "the fit stops when Q settles"));
          }
          capped = true;
          lastTested = t;
          if (change < s.tol) {
            stop = true;
            record.stop("lambda-cap");
          }
        } else if (control.action === "test") {
          lastTested = t;
          if (change < s.tol) {
            stop = true;
            record.stop("converged");
          }
        }
        lambda = control.lambda;
        record.lambdaTrace.push(lambda);
      } else {
        lastTested = t;
        if (change < s.tol) {
          stop = true;
          record.stop("converged");
        }
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

    warnings.push(...solver.warnings);
    if (record.stopReason === "max-iterations") {
      warnings.push(
        ...maxIterationsWarnings({
          owner: s.owner,
          maxIter: s.maxIter,
          stopTest: {
            measure: `the change of Q (stopRule "${s.stopRule}")`,
            change: changes[changes.length - 1],
          },
          tol: s.tol,
          ...(graphMode === "adaptive"
            ? {
                graph: {
                  lastTested,
                  c,
                  lambdaTrace: record.lambdaTrace,
                  knobs:
                    s.reconstruction === false
                      ? "the number of neighbours m"
                      : "the number of neighbours m or the graph weight delta",
                },
              }
            : {}),
        }),
      );
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
      ...record.fields(),
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
