/**
 * Quantities computed once per training set and shared by every fit on it (a grid
 * search fits hundreds of models on the same prepared data), and small pieces of
 * state several methods use.
 */
import { type AdaptiveNeighbourGraph, initialAdaptiveGraph } from "../graph/adaptive.js";
import { graphLaplacian, symmetrizeGraph } from "../graph/laplacian.js";
import type { Matrix } from "../linalg/matrix.js";
import { sandwichProduct } from "../linalg/sandwich.js";
import type { CsrMatrix } from "../linalg/sparse.js";
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

/** The graph as one iteration sees it: symmetrised S, its Laplacian, gamma, and G L G. */
export interface GraphState {
  readonly Ssym: CsrMatrix;
  readonly L: CsrMatrix;
  readonly gamma: Float64Array;
  /** X X^T L X X^T (dense, n x n). */
  readonly M: Matrix;
  readonly trM: number;
}

/** Symmetrise S, form L = diag(S 1) - S and M = G L G (Algorithm 3, loop lines 1-3). */
export function graphState(graph: AdaptiveNeighbourGraph, G: Matrix): GraphState {
  const Ssym = symmetrizeGraph(graph.S);
  const L = graphLaplacian(Ssym);
  const M = sandwichProduct(G, L);
  let trM = 0;
  for (let i = 0; i < M.rows; i++) trM += M.data[i * M.cols + i];
  return { Ssym, L, gamma: graph.gamma, M, trM };
}

/** The initial graph's state (including the n^3 product G L0 G), cached per (m, eps). */
export function initialGraphState(data: TrainingData, m: number, eps: number): GraphState {
  return data.cached(`initialGraphState:${m}:${eps}`, () =>
    graphState(initialGraph(data, m, eps), data.gram()),
  );
}
