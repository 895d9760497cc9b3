/**
 * Quantities computed once per training set and shared by every fit on it (a grid
 * search fits hundreds of models on the same prepared data), and small pieces of
 * state several methods use.
 */
import { type AdaptiveNeighbourGraph, initialAdaptiveGraph } from "../graph/adaptive.js";
import { type ThinSvd, thinSvd } from "../linalg/svd.js";
import type { TrainingData } from "./training.js";

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
