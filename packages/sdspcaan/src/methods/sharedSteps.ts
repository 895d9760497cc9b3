/**
 * Quantities computed once per training set and shared by every fit on it (a grid
 * search fits hundreds of models on the same prepared data), and small pieces of
 * state several methods use.
 */

import { ValidationError } from "../core/errors.js";
import type { Matrix } from "../core/matrix.js";
import { plural } from "../core/plural.js";
import { type AdaptiveNeighbourGraph, initialAdaptiveGraph } from "../graph/adaptive.js";
import { type ThinSvd, thinSvd } from "../linalg/svd.js";
import type { CoreFitResult, FitContext } from "./estimator.js";
import type { FitWarning } from "./fitReport.js";
import { fitWarning } from "./fitWarnings.js";
import type { TrainingData } from "./training.js";

/** Y^T V for the one-hot Y of `codes` (c classes): the class sums of the rows of V, c x b row-major. */
export function classSums(V: Matrix, codes: Int32Array, c: number): Float64Array {
  const b = V.cols;
  const sums = new Float64Array(c * b);
  for (let i = 0; i < V.rows; i++) {
    const off = codes[i] * b;
    for (let j = 0; j < b; j++) sums[off + j] += V.data[i * b + j];
  }
  return sums;
}

/** The thin SVD of the centred training data, cached on the TrainingData. */
export function trainingSvd(data: TrainingData): ThinSvd {
  return data.cached("thinSvd", () => thinSvd(data.X));
}

/**
 * The initial adaptive-neighbour graph (Algorithms 2 and 3, first line: d_ij =
 * ||x_i - x_j||^2 on the centred data), cached per (m, eps).
 */
export function initialGraph(
  data: TrainingData,
  m: number,
  eps: number,
  signal?: AbortSignal,
): AdaptiveNeighbourGraph {
  return data.cached(`initialGraph:${m}:${eps}`, () =>
    initialAdaptiveGraph(data.X, { m, eps, ...(signal ? { signal } : {}) }),
  );
}

/**
 * The warning a graph method gives when some training classes have fewer than m + 1
 * samples: their rows need cross-class neighbours. On the adaptive graph (SPCAN,
 * SDSPCAAN) lambda grows. A cross-class neighbour's weight d_(m+1) - d_ij does not
 * grow with lambda (the (m+1)-th candidate is in another class too) while a same-class
 * one's does, so the cross-class weights shrink about as 1/lambda, and the rank
 * control, which counts components by the c smallest Laplacian eigenvalues against
 * tol, may count c of them long before the cap: COIL20's 20 % split with m = 15
 * converges at lambda 2^28. A class of a single sample has only cross-class
 * neighbours, whose weights stay: lambda goes to its cap (Yale, ORL). The fixed graph
 * (SDSPCA-LPP) has no lambda, and its locality term draws those rows toward other
 * classes.
 */
export function smallClassWarnings(
  data: TrainingData,
  m: number,
  graph: "fixed" | "adaptive",
): FitWarning[] {
  const labels = data.labels;
  if (!labels) return [];
  const small: string[] = [];
  const single: string[] = [];
  labels.counts.forEach((count, c) => {
    const name = JSON.stringify(labels.classes[c]);
    if (count < m + 1) small.push(`${name} (${count})`);
    if (count === 1) single.push(name);
  });
  if (small.length === 0) return [];
  const listed = (names: string[]) =>
    `${names.slice(0, 10).join(", ")}${names.length > 10 ? ", ..." : ""}`;
  let effect: string;
  if (graph === "fixed") {
    effect =
      "which the fixed graph gives them, so its locality term draws them toward other classes";
  } else if (single.length > 0) {
    effect = `and a class of a single sample (${listed(single)}) has only those, at weights lambda does not shrink: the graph cannot reach c components, and lambda grows toward its cap`;
  } else {
    effect =
      "so the graph keeps edges between classes and lambda grows, shrinking their weights, until the rank control counts c components (the c smallest Laplacian eigenvalues summing to at most tol) or lambda reaches its cap";
  }
  return [
    fitWarning(
      "small-classes",
      `${plural(small.length, "class", "classes")} ${small.length === 1 ? "has" : "have"} fewer than m + 1 = ${m + 1} training samples: ${listed(small)}. Their rows need cross-class neighbours, ${effect}. A number of neighbours m below the smallest class's size avoids it (unless a class has a single sample).`,
      { classes: small.length, m },
    ),
  ];
}

/** Centred RMS values within this factor of 1 count as "standardised" for unitScaleWarnings. */
const UNIT_SCALE_FACTOR = 4;

/**
 * The warning of a method whose result depends on the units of X: the rank
 * control's lambda starts at 1 (as in the paper) against squared distances in the
 * data's units, so rescaling X changes the fit (measured on COIL20: x10 moves the
 * subspace by 2e-4 rad, x1e6 ends at the lambda cap 0.9 rad away). Standardised data
 * (centred RMS near 1) is the scale the paper's protocol uses.
 */
export function unitScaleWarnings(owner: string, data: TrainingData): FitWarning[] {
  const rms = Math.sqrt(data.gramTrace() / (data.n * data.d));
  if (!(rms > 0) || (rms >= 1 / UNIT_SCALE_FACTOR && rms <= UNIT_SCALE_FACTOR)) return [];
  return [
    fitWarning(
      "unit-scale",
      `${owner}'s result depends on the units of X (lambda starts at 1 against squared distances, as in the paper), and X is far from standardised: the RMS of its centred values is ${rms.toPrecision(3)}. Standardise the features (preprocessing "train-zscore", the default of the CLI) for a unit-free result.`,
      { rms },
    ),
  ];
}

/**
 * The thin SVD of the centred training data (shared by every fit on it), refusing
 * data with no non-constant feature: the methods that work in the data span
 * (JPCDA, LDA, LPP, SLNP) have nothing to project onto then.
 */
export function nonDegenerateSvd(owner: string, data: TrainingData, ctx: FitContext): ThinSvd {
  const svd = ctx.timeEigen(() => trainingSvd(data));
  if (svd.rank === 0) {
    throw new ValidationError(
      "X",
      `${owner} needs training data with at least one non-constant feature: the centred X has numerical rank 0.`,
    );
  }
  return svd;
}

/** The fit report of a closed-form method (no iterations). */
export function closedForm<D extends object>(
  components: Matrix,
  extra: { warnings?: FitWarning[]; details?: D } = {},
): CoreFitResult<D> {
  return {
    components,
    iterations: 0,
    converged: true,
    stopReason: "closed-form",
    solver: "closed-form",
    ...extra,
  };
}

/**
 * The fit report of an iterative method solved with dense eigen-solves, which stops on
 * its own test (converged) or at maxIter.
 */
export function iterated<D extends object>(
  components: Matrix,
  run: { iterations: number; converged: boolean; objective: number[]; warnings: FitWarning[] },
  details: D,
): CoreFitResult<D> {
  return {
    components,
    iterations: run.iterations,
    converged: run.converged,
    stopReason: run.converged ? "converged" : "max-iterations",
    objective: run.objective,
    warnings: run.warnings,
    solver: "dense",
    details,
  };
}
