/**
 * Adaptive-neighbour rows S (SPEC section 2; Eq. (PCAN-si-opt) = Eq. (SDSPCAAN-si)):
 * for row i with its candidates sorted by d, the m nearest d_(1..m) and the next
 * d_(m+1),
 *
 *   s_ij = (d_(m+1) - d_ij) / (m d_(m+1) - sum_{l<=m} d_(l) + eps)   for the m nearest,
 *   gamma_i = (m d_(m+1) - sum_{l<=m} d_(l)) / 2                       (Eq. PCAN-gamma-opt),
 *
 * and 0 elsewhere. Precision: lambda reaches 2^96, where d = p + lambda l is
 * dominated by lambda l and m d_(m+1) - sum d cancels to 0 (rows of size 1/eps). So
 * each difference is formed from the parts, (p_(m+1) - p_ij) + lambda (l_(m+1) - l_ij),
 * which is exact when the l's agree, and the denominator is the sum of those
 * differences (no cancellation: every term is >= 0).
 *
 * A difference can come out negative only when two candidates tie in the rounded d
 * (the ranking uses d) while their exact d differ by less than its last bit; the
 * weight formula's (.)_+ (Eq. PCAN-si-opt-gamma) sets it to 0, as a dense
 * computation of d would.
 */
import { ValidationError } from "../core/errors.js";
import type { Matrix } from "../core/matrix.js";
import { checkFiniteEntries, checkInteger } from "../core/validate.js";
import type { TwoPartNeighbours } from "../linalg/kernels/neighbourHeaps.js";
import { CsrMatrix, insertSorted } from "../linalg/sparse.js";
import {
  checkClassCodes,
  embeddedNeighbours,
  initialNeighbours,
  type LabelledNeighbourSearchOptions,
  labelledNeighbours,
  type NeighbourSearchOptions,
} from "./neighbours.js";

/** The paper's epsilon (MATLAB eps). */
export const GRAPH_EPS = 2 ** -52;

/** m = min(15, n - 2): the authors' (and PCAN's) neighbour count. */
export function defaultNeighbourCount(n: number): number {
  return Math.min(15, n - 2);
}

/** S before symmetrising, and the optimal gamma of each row. */
export interface AdaptiveNeighbourGraph {
  /** n x n, at most m non-zeros per row, rows non-negative and summing to 1 up to eps. */
  readonly S: CsrMatrix;
  /** gamma_i = half the row's denominator (without eps), as the objective's Tr(S^T Gamma S) uses. */
  readonly gamma: Float64Array;
  /** The neighbour count used. */
  readonly m: number;
  /** The m + 1 nearest candidates of each row that the weights came from. */
  readonly neighbours: TwoPartNeighbours;
}

export interface AdaptiveGraphOptions extends NeighbourSearchOptions {
  /** Neighbours per row, an integer in [1, n - 2]; default min(15, n - 2). */
  readonly m?: number;
  /** The small constant of the denominator; default 2^-52. */
  readonly eps?: number;
}

export interface LabelledAdaptiveGraphOptions
  extends AdaptiveGraphOptions,
    LabelledNeighbourSearchOptions {}

function resolveM(owner: string, m: number | undefined, n: number): number {
  if (n < 3) {
    throw new ValidationError(
      "X",
      `${owner} needs at least 3 rows (m + 1 >= 2 neighbours besides the row itself). Got ${n} instead.`,
    );
  }
  if (m === undefined) return defaultNeighbourCount(n);
  return checkInteger(owner, "m", m, 1, n - 2, "(m <= n - 2)");
}

function resolveEps(owner: string, eps: number | undefined): number {
  if (eps === undefined) return GRAPH_EPS;
  if (typeof eps !== "number" || !Number.isFinite(eps) || eps < 0) {
    throw new ValidationError(
      "eps",
      `The 'eps' parameter of ${owner} must be a finite number in [0, inf). Got ${eps} instead.`,
    );
  }
  return eps;
}

function checkLambda(owner: string, lambda: number, factor: number): void {
  if (
    typeof lambda !== "number" ||
    !Number.isFinite(lambda) ||
    lambda < 0 ||
    !Number.isFinite(lambda * factor)
  ) {
    throw new ValidationError(
      "lambda",
      `The 'lambda' parameter of ${owner} must be a finite number in [0, ${Number.MAX_VALUE / factor}]. Got ${lambda} instead.`,
    );
  }
}

/**
 * What every graph entry opens with: m and eps from the options (checked against the
 * n rows of P, the points named `name`), P finite, and the neighbour search's options
 * (block rows, abort signal).
 */
function graphSettings(owner: string, name: string, P: Matrix, options: AdaptiveGraphOptions) {
  const m = resolveM(owner, options.m, P.rows);
  const eps = resolveEps(owner, options.eps);
  checkFiniteEntries(owner, name, P);
  const search = {
    blockRows: options.blockRows,
    ...(options.signal ? { signal: options.signal } : {}),
  };
  return { m, eps, search };
}

/**
 * The rows of S and gamma from each row's sorted candidates (at least m + 1 per row).
 * Zero weights (candidates tied with the (m+1)-th) are not stored.
 */
export function adaptiveNeighbourRows(
  neighbours: TwoPartNeighbours,
  m: number,
  { eps = GRAPH_EPS }: { eps?: number } = {},
): AdaptiveNeighbourGraph {
  const owner = "adaptiveNeighbourRows";
  const n = neighbours.rows;
  const count = neighbours.count;
  checkInteger(owner, "m", m, 1, count - 1, "(m + 1 candidates per row are needed)");
  resolveEps(owner, eps);
  const { indices, primary, secondary, lambda } = neighbours;
  const rowPtr = new Int32Array(n + 1);
  const colIdx = new Int32Array(n * m);
  const values = new Float64Array(n * m);
  const gamma = new Float64Array(n);
  const diff = new Float64Array(m);
  const col = new Int32Array(m);
  const weight = new Float64Array(m);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const base = i * count;
    const pStar = primary[base + m];
    const lStar = secondary[base + m];
    // Eq. (SDSPCAAN-si) numerators d_(m+1) - d_ij, from the parts (SPEC section 2).
    let denom = 0;
    for (let t = 0; t < m; t++) {
      let v = pStar - primary[base + t] + lambda * (lStar - secondary[base + t]);
      if (!(v > 0)) v = 0;
      diff[t] = v;
      denom += v;
    }
    gamma[i] = 0.5 * denom;
    const scale = denom + eps;
    // Store the positive weights in column order (insertion sort of at most m entries).
    let len = 0;
    for (let t = 0; t < m; t++) {
      if (diff[t] === 0) continue;
      insertSorted(col, weight, len, indices[base + t], diff[t] / scale);
      len++;
    }
    colIdx.set(col.subarray(0, len), at);
    values.set(weight.subarray(0, len), at);
    at += len;
    rowPtr[i + 1] = at;
  }
  const S = new CsrMatrix(n, n, rowPtr, colIdx.slice(0, at), values.slice(0, at));
  return { S, gamma, m, neighbours };
}

/**
 * The initial graph (Algorithms 2 and 3, first line): d_ij = ||x_i - x_j||^2 on the
 * centred training data X, no label term.
 */
export function initialAdaptiveGraph(
  X: Matrix,
  options: AdaptiveGraphOptions = {},
): AdaptiveNeighbourGraph {
  const { m, eps, search } = graphSettings("initialAdaptiveGraph", "X", X, options);
  return adaptiveNeighbourRows(initialNeighbours(X, m + 1, search), m, { eps });
}

/**
 * The per-iteration graph of SDSPCAAN and supervised PCAN (Algorithm 3, S update):
 * d_ij = ||p_i - p_j||^2 + lambda ||y_i - y_j||^2 with p_i the rows of the projected
 * training data P (n x k) and y_i the one-hot label of class `codes[i]`.
 */
export function labelledAdaptiveGraph(
  P: Matrix,
  codes: Int32Array,
  lambda: number,
  options: LabelledAdaptiveGraphOptions = {},
): AdaptiveNeighbourGraph {
  const owner = "labelledAdaptiveGraph";
  const { m, eps, search } = graphSettings(owner, "P", P, options);
  checkClassCodes(owner, codes, P.rows);
  checkLambda(owner, lambda, 2);
  const strategy = options.strategy ?? "auto";
  if (!["auto", "blocks", "tree", "clusters", "full"].includes(strategy)) {
    throw new ValidationError(
      "strategy",
      `The 'strategy' parameter of ${owner} must be one of "auto", "blocks", "tree", "clusters", "full". Got ${JSON.stringify(strategy)} instead.`,
    );
  }
  const neighbours = labelledNeighbours(P, codes, lambda, m + 1, {
    ...search,
    strategy,
    ...(options.tracker ? { tracker: options.tracker } : {}),
  });
  return adaptiveNeighbourRows(neighbours, m, { eps });
}

/**
 * The per-iteration graph of PCAN (Algorithm 2, S update): d_ij = ||p_i - p_j||^2 +
 * lambda ||f_i - f_j||^2 with F (n x c) the c trailing eigenvectors of L.
 */
export function embeddedAdaptiveGraph(
  P: Matrix,
  F: Matrix,
  lambda: number,
  options: AdaptiveGraphOptions = {},
): AdaptiveNeighbourGraph {
  const owner = "embeddedAdaptiveGraph";
  const { m, eps, search } = graphSettings(owner, "P", P, options);
  checkFiniteEntries(owner, "F", F);
  if (F.rows !== P.rows) {
    throw new ValidationError(
      "F",
      `The 'F' parameter of ${owner} must have one row per row of P (${P.rows}). Got ${F.rows} instead.`,
    );
  }
  checkLambda(owner, lambda, 1);
  return adaptiveNeighbourRows(embeddedNeighbours(P, F, lambda, m + 1, search), m, { eps });
}
