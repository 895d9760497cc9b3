/**
 * Quantities computed once per training set and shared by every fit on it (a grid
 * search fits hundreds of models on the same prepared data), and small pieces of
 * state several methods use.
 */
import { type AdaptiveNeighbourGraph, initialAdaptiveGraph } from "../graph/adaptive.js";
import type { Matrix } from "../linalg/matrix.js";
import { type ThinSvd, thinSvd } from "../linalg/svd.js";
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
export function initialGraph(data: TrainingData, m: number, eps: number): AdaptiveNeighbourGraph {
  return data.cached(`initialGraph:${m}:${eps}`, () => initialAdaptiveGraph(data.X, { m, eps }));
}

/**
 * The warning a graph method gives when some training classes have fewer than m + 1
 * samples: their rows need cross-class neighbours, so the graph cannot have exactly c
 * components (SPEC section 2), and a singleton class can never be split off.
 */
export function smallClassWarnings(data: TrainingData, m: number): string[] {
  const labels = data.labels;
  if (!labels) return [];
  const small: string[] = [];
  labels.counts.forEach((count, c) => {
    if (count < m + 1) small.push(`${JSON.stringify(labels.classes[c])} (${count})`);
  });
  if (small.length === 0) return [];
  return [
    `${small.length} class(es) have fewer than m + 1 = ${m + 1} training samples: ${small.slice(0, 10).join(", ")}${small.length > 10 ? ", ..." : ""}. Their rows need cross-class neighbours, so the graph cannot have exactly c components and lambda grows until round-off or the cap stops it.`,
  ];
}
