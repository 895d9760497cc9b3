/**
 * The loop shared by PCAN (Nie et al. 2014; the paper's Algorithm 2) and its
 * supervised form SPCAN: alternate the projection W, the embedding F (PCAN) and the
 * adaptive-neighbour graph S, with the rank control of lambda, until the graph has
 * exactly c connected components.
 *
 * W-step (Eq. PCAN-W): min Tr(W^T X^T L X W) s.t. W^T X^T X W = I. X^T X is singular
 * whenever d >= n (every image dataset here), so the problem is solved in the data
 * span instead of with an inverse or pseudo-inverse: with the thin SVD
 * X = U_r Sigma_r V_r^T, W = V_r Sigma_r^-1 P where P holds the k trailing
 * eigenvectors of U_r^T L U_r; the projected training rows are then X W = U_r P.
 *
 * PCAN's second term uses F, the c trailing eigenvectors of L (Eq. PCAN-F); SPCAN
 * uses the one-hot labels Y instead, as the authors' code did (SPEC section 3, item 5).
 */
import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { checkLabelType } from "../core/validate.js";
import {
  type AdaptiveNeighbourGraph,
  embeddedAdaptiveGraph,
  labelledAdaptiveGraph,
} from "../graph/adaptive.js";
import {
  classLaplacianTrace,
  gammaWeightedSquaredNorm,
  graphLaplacian,
  laplacianTrace,
  symmetrizeGraph,
} from "../graph/laplacian.js";
import {
  type LaplacianWarmStart,
  laplacianSmallestEigenpairs,
  rankControlEigenvalues,
} from "../graph/laplacianSpectrum.js";
import { provenRankDecision } from "../graph/rankBounds.js";
import { applyRankAction, type RankControlAction, rankControl } from "../graph/rankControl.js";
import { dataSpanEigen } from "../linalg/generalizedEigen.js";
import { multiply } from "../linalg/kernels/gemm.js";
import type { CsrMatrix } from "../linalg/sparse.js";
import {
  checkComponentCount,
  epsOption,
  maxIterOption,
  neighboursOption,
  resolveNeighbourCount,
  tolOption,
} from "./commonOptions.js";
import type { CoreFitResult, FitContext } from "./estimator.js";
import { type FitWarning, LoopRecord } from "./fitReport.js";
import { lambdaCapWarning, maxIterationsWarnings } from "./fitWarnings.js";
import { lambdaCapOption } from "./qLoopOptions.js";
import { initialGraph, smallClassWarnings, trainingSvd, unitScaleWarnings } from "./sharedSteps.js";
import type { TrainingData } from "./training.js";

/** The options of the PCAN loop, shared by PCAN and SPCAN (after their own). */
export const pcanLoopOptions = {
  m: neighboursOption,
  tol: tolOption,
  maxIter: maxIterOption,
  eps: epsOption,
  lambdaCap: lambdaCapOption,
} as const;

/** The values of `pcanLoopOptions`, and k. */
export interface PcanLoopOptionValues {
  k: number;
  m: number | null;
  tol: number;
  maxIter: number;
  eps: number;
  lambdaCap: number;
}

/** The loop's settings from a method's options: what PCAN and SPCAN fit with. */
export function pcanSettings(
  owner: string,
  p: PcanLoopOptionValues,
  embedding: PcanSettings["embedding"],
  clusters: number | null,
): PcanSettings {
  return {
    owner,
    k: p.k,
    embedding,
    clusters,
    m: p.m,
    tol: p.tol,
    maxIter: p.maxIter,
    eps: p.eps,
    lambdaCap: p.lambdaCap,
  };
}

export interface PcanSettings {
  owner: string;
  k: number;
  /** "unsupervised": F from L (PCAN); "labels": F = one-hot Y (SPCAN). */
  embedding: "unsupervised" | "labels";
  /** Number of clusters c (PCAN); the class count for SPCAN. */
  clusters: number | null;
  m: number | null;
  tol: number;
  maxIter: number;
  eps: number;
  lambdaCap: number;
}

/** PCAN's and supervised PCAN's diagnostics (`fitInfo.details`). */
export type PcanDetails = {
  /** Number of clusters c the graph was driven to. */
  clusters: number;
  m: number;
  /** Numerical rank of the centred training data (the W-step's span). */
  rank: number;
  lambdaFinal: number;
  lambdaCapped: boolean;
  /** The k generalised eigenvalues of the last W-step. */
  eigenvalues: number[];
  /** The c + 1 smallest Laplacian eigenvalues of the last rank control. */
  laplacianEigenvalues: number[];
  /** Rank controls settled by bounds without solving L (SPCAN only; graph/rankBounds.ts). */
  rankControlsByBounds: number;
};

/** What a PCAN fit keeps in memory: the last adaptive-neighbour rows S and gamma. */
export type PcanArtifacts = {
  S: CsrMatrix;
  gamma: Float64Array;
};

/** Runs PCAN's loop (Algorithm 2) or supervised PCAN's on prepared data. */
export function fitPcanLoop(
  data: TrainingData,
  ctx: FitContext,
  s: PcanSettings,
): CoreFitResult<PcanDetails, PcanArtifacts> {
  const n = data.n;
  const labels = s.embedding === "labels" ? data.requireLabels(s.owner) : data.labels;
  const c = clusterCount(s, n, labels);
  const m = resolveNeighbourCount(s.owner, s.m, n);
  const svd = ctx.timeEigen(() => trainingSvd(data));
  const r = svd.rank;
  checkComponentCount(
    s.owner,
    s.k,
    r,
    `at most the numerical rank r = ${r} of the centred training data: the W-step is solved in the data span`,
  );
  const k = s.k;
  const codes = labels === null ? null : labels.codes;

  const warnings = s.embedding === "labels" ? smallClassWarnings(data, m, "adaptive") : [];
  warnings.push(...unitScaleWarnings(s.owner, data));

  let graph: AdaptiveNeighbourGraph = ctx.timeGraph(() => initialGraph(data, m, s.eps, ctx.signal));
  let lambda = 1;
  let capped = false;
  const record = new LoopRecord(warnings);
  let W = new Matrix(data.d, k);
  let mu: Float64Array = new Float64Array(0);
  let eL: Float64Array = new Float64Array(0);
  const laplacianWarm: LaplacianWarmStart = { block: null };
  let lastAction: RankControlAction | null = null;
  let byBounds = 0;

  for (let t = 1; t <= s.maxIter; t++) {
    record.iterations = t;
    ctx.checkAborted();
    const { Ssym, L } = ctx.timeGraph(() => {
      const Ssym = symmetrizeGraph(graph.S);
      return { Ssym, L: graphLaplacian(Ssym) };
    });
    // W-step in the data span (Eq. PCAN-W): W = V_r S_r^-1 P, P the k trailing
    // eigenvectors of U_r^T L U_r.
    const step = ctx.timeEigen(() =>
      dataSpanEigen(data.X, (U) => L.multiplyMatrix(U), { smallest: k }, { svd }),
    );
    W = step.W;
    mu = step.values;
    const projected = multiply(data.X, W);
    const { F, proven, values } = embeddingStep(ctx, s, L, c, codes, lastAction, laplacianWarm);
    if (values !== null) eL = values;
    if (proven !== null) byBounds++;

    const value =
      2 * laplacianTrace(Ssym, projected) +
      gammaWeightedSquaredNorm(Ssym, graph.gamma) +
      2 * lambda * (F ? laplacianTrace(Ssym, F) : classLaplacianTrace(Ssym, codes as Int32Array));
    record.objective.push(value);

    const control =
      proven !== null
        ? applyRankAction(proven, lambda, s.lambdaCap)
        : rankControl({
            eigenvalues: eL,
            clusters: c,
            tol: s.tol,
            lambda,
            maxLambda: s.lambdaCap,
          });
    lastAction = control.action;
    let stop = false;
    if (control.action === "test") {
      stop = true;
      record.stop("converged");
    } else if (control.action === "double" && lambda >= s.lambdaCap) {
      stop = true;
      capped = true;
      record.stop("lambda-cap");
      warnings.push(
        lambdaCapWarning(s.lambdaCap, t, c, "the fit stopped there", s.embedding === "labels"),
      );
    }
    lambda = control.lambda;
    record.lambdaTrace.push(lambda);
    ctx.progress(t, value, lambda);
    if (proven !== null && (stop || t === s.maxIter)) {
      // The last graph's values, for the record.
      eL = ctx.timeEigen(() => rankControlEigenvalues(L, c, s.tol, laplacianWarm));
    }
    if (stop) break;
    graph = ctx.timeGraph(() => updatedGraph(ctx, s, projected, F, codes, lambda, m));
  }

  if (record.stopReason === "max-iterations") {
    warnings.push(...outOfIterations(s, c, record.lambdaTrace));
  }
  return {
    components: W,
    ...record.fields(),
    solver: "dense",
    artifacts: { S: graph.S, gamma: graph.gamma },
    details: {
      clusters: c,
      m,
      rank: r,
      lambdaFinal: lambda,
      lambdaCapped: capped,
      eigenvalues: Array.from(mu),
      laplacianEigenvalues: Array.from(eL),
      rankControlsByBounds: byBounds,
    },
  };
}

/**
 * Why the fit ran out of iterations: PCAN stops only once the graph has exactly c
 * components (the rank control's "test").
 */
function outOfIterations(s: PcanSettings, c: number, lambdaTrace: number[]): FitWarning[] {
  return maxIterationsWarnings({
    owner: s.owner,
    maxIter: s.maxIter,
    stopTest: null,
    tol: s.tol,
    graph: { lastTested: 0, c, lambdaTrace, knobs: "the number of neighbours m" },
  });
}

/** The number of clusters c the graph is driven to: the classes, or PCAN's `clusters`. */
function clusterCount(s: PcanSettings, n: number, labels: TrainingData["labels"]): number {
  let c: number;
  if (s.embedding === "labels") c = (labels as NonNullable<typeof labels>).classes.length;
  else if (s.clusters !== null) c = s.clusters;
  else if (labels) {
    // The classes count as clusters only if they are classes.
    checkLabelType(labels, "y", s.owner);
    c = labels.classes.length;
  } else {
    throw new ValidationError(
      "clusters",
      `${s.owner} needs the number of clusters c: pass the 'clusters' option, or labels y to use their class count.`,
    );
  }
  if (c + 1 > n) {
    throw new ValidationError(
      "clusters",
      `The number of clusters c of ${s.owner} must be an integer in [1, ${n - 1}] (c + 1 eigenvalues of the n x n Laplacian are needed). Got ${c} instead.`,
    );
  }
  return c;
}

/**
 * After the W-step: PCAN's F, the c trailing eigenvectors of L (exact solve, with the
 * c + 1 smallest eigenvalues), or SPCAN's rank decision. A decision like the previous
 * one is usually provable from bounds (graph/rankBounds.ts), which skips the solve of
 * L; the values are then solved for the record only when the fit stops. `values` is
 * null when L was not solved.
 */
function embeddingStep(
  ctx: FitContext,
  s: PcanSettings,
  L: CsrMatrix,
  c: number,
  codes: Int32Array | null,
  lastAction: RankControlAction | null,
  warm: LaplacianWarmStart,
): { F: Matrix | null; proven: RankControlAction | null; values: Float64Array | null } {
  if (s.embedding === "unsupervised") {
    const spectrum = ctx.timeEigen(() =>
      laplacianSmallestEigenpairs(L, c + 1, {
        vectors: true,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
      }),
    );
    return {
      F: (spectrum.vectors as Matrix).leadingColumns(c),
      proven: null,
      values: spectrum.values,
    };
  }
  const proven = ctx.timeEigen(() =>
    provenRankDecision(L, codes as Int32Array, c, s.tol, lastAction),
  );
  if (proven !== null) return { F: null, proven, values: null };
  const values = ctx.timeEigen(() =>
    rankControlEigenvalues(L, c, s.tol, warm, ctx.signal ? { signal: ctx.signal } : {}),
  );
  return { F: null, proven: null, values };
}

/**
 * S update (Eq. PCAN-si-opt) with d_ij = ||W^T x_i - W^T x_j||^2 + lambda ||f_i - f_j||^2,
 * F PCAN's embedding or (F null) the one-hot labels.
 */
function updatedGraph(
  ctx: FitContext,
  s: PcanSettings,
  projected: Matrix,
  F: Matrix | null,
  codes: Int32Array | null,
  lambda: number,
  m: number,
): AdaptiveNeighbourGraph {
  const options = { m, eps: s.eps, ...(ctx.signal ? { signal: ctx.signal } : {}) };
  return F
    ? embeddedAdaptiveGraph(projected, F, lambda, options)
    : labelledAdaptiveGraph(projected, codes as Int32Array, lambda, options);
}
