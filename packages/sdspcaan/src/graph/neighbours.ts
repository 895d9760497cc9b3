/**
 * Candidate neighbours for the adaptive-neighbour rows: for each row i, the m + 1
 * nearest other rows by d_ij = p_ij + lambda l_ij (SPEC section 2), with p and l
 * kept apart so that the weights can be computed without cancellation.
 *
 * Ranking is by the floating-point value d = p + lambda * l itself, ties to the
 * lower index, exactly as a dense computation of d followed by a stable sort would
 * rank it. Only the search is organised differently, so that large n needs neither
 * n x n memory nor, where the labels allow it, n x n work.
 *
 * Design of the labelled search (l_ij = ||y_i - y_j||^2 for one-hot y: 0 within a
 * class, 2 across). Rounding is monotone, so every cross-class candidate has
 * d = fl(p + 2 lambda) >= 2 lambda, while a same-class candidate has d = p.
 *  1. Within each class, a symmetric block search keeps the m + 1 nearest same-class
 *     rows of each row (cost sum_c n_c^2 k / 2).
 *  2. A row is finished when it holds m + 1 same-class candidates and the worst of
 *     them has d < 2 lambda: no cross-class candidate can displace any of them. For
 *     large lambda that is every row of every class with more than m members.
 *  3. A row that is not finished needs its best cross-class candidates. If even the
 *     largest p it could have with any row (bounded by (|p_i| + max_j |p_j|)^2 with a
 *     margin far above the rounding error) rounds to fl(p + 2 lambda) = 2 lambda, all
 *     its cross-class candidates tie at exactly d = 2 lambda and rank by index: the
 *     first m + 1 cross-class rows by index are the ones to offer (cost O(m k) per
 *     row). This is the regime lambda -> 2^96 reached on Yale and ORL.
 *  4. The remaining rows R are searched against every other-class row in one block
 *     scan that visits each pair among R once (serving both rows) and each pair of
 *     R with the rest once (cost about |R| n k, at most the n^2 k / 2 of a full
 *     search plus step 1's within-class work, which the cross scan skips); or, for
 *     large n and R (clusterScan.ts), by bounds between small same-class clusters
 *     that skip the pairs no heap can take, computing the others as the block scan
 *     does (the same distances, bit for bit).
 * Every step offers candidates to the same bounded heaps keyed by (d, index) and
 * each row meets each candidate once, so the result is the full search's up to the
 * last-bit differences between GEMM code paths (none where the dot products are
 * exact); `strategy: "full"` runs the full search (for checking).
 */
import { throwIfAborted, ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { dot } from "../linalg/basic.js";
import {
  nearestNeighbours,
  scanNearestPairs,
  squaredRowNorms,
} from "../linalg/kernels/distances.js";
import {
  alongsideHelpers,
  balancedBounds,
  helperPart,
  type KernelHelper,
  kernelHelpers,
} from "../linalg/kernels/helper.js";
import {
  concatNeighbourRows,
  NeighbourHeaps,
  type TwoPartNeighbours,
} from "../linalg/kernels/neighbourHeaps.js";
import { screenedNearestNeighbours } from "../linalg/kernels/screenedSearch.js";
import { crossClassClusterScan } from "./clusterScan.js";
import { KdTree } from "./kdTree.js";
import { classOrder, queryRowsFirst } from "./rowOrder.js";

import type { WithinClassNeighbourTracker } from "./trackedNeighbours.js";

/**
 * "auto": the class-aware search described above, with k-d trees from TREE_MIN_ROWS
 * rows on (up to TREE_MAX_DIMS dimensions; above, block scans, with step 4 by cluster
 * bounds from CLUSTER_MIN_ROWS rows on); "blocks" / "tree" / "clusters": the
 * class-aware search with block scans / k-d trees / block scans and step 4 by
 * cluster bounds; "full": every pair, for checking.
 */
export type NeighbourSearchStrategy = "auto" | "blocks" | "tree" | "clusters" | "full";

/**
 * From this many rows on (and for P with at most TREE_MAX_DIMS columns), "auto"
 * searches with k-d trees (kdTree.ts): same neighbours, but the cost of a query
 * grows far slower than n. Below, the block scans are kept (the paper's data sets
 * stay on the path they have always used).
 */
export const TREE_MIN_ROWS = 4000;
/** k-d trees lose their edge in many dimensions; above this the block scans are used. */
export const TREE_MAX_DIMS = 24;

export interface NeighbourSearchOptions {
  /** Rows per distance block (default: about 8 MiB of distances per block). */
  readonly blockRows?: number;
  /** Checked between blocks of the search. */
  readonly signal?: AbortSignal;
}

export interface LabelledNeighbourSearchOptions extends NeighbourSearchOptions {
  /**
   * The other threads for the k-d tree search (default: those registered, from
   * TREE_HELPER_MIN_ROWS rows on) and for the block scans (from SCAN_HELPER_MIN_WORK on).
   */
  readonly helpers?: readonly KernelHelper[];
  readonly strategy?: NeighbourSearchStrategy;
  /**
   * Step 1 (the within-class search) by a tracker that rescans only the rows whose
   * answer may have changed since its last search (trackedNeighbours.ts; the same
   * candidates). Used on the block-scan path only; its codes must be `codes`.
   */
  readonly tracker?: WithinClassNeighbourTracker;
}

/**
 * The `count` nearest other rows of X by d_ij = ||x_i - x_j||^2 (the initial graph:
 * no second term).
 */
export function initialNeighbours(
  X: Matrix,
  count: number,
  options: NeighbourSearchOptions = {},
): TwoPartNeighbours {
  if (X.rows >= SCREEN_MIN_ROWS && X.cols >= SCREEN_MIN_DIMS) {
    checkCount("initialNeighbours", count, X.rows);
    const screened = screenedNearestNeighbours(X, count, options);
    if (screened !== null) return screened;
  }
  return nearestNeighbours(X, count, options);
}

/**
 * From this many rows and columns on, the initial search screens pairs in single
 * precision (linalg/kernels/screenedSearch.ts: the same neighbours and distances at
 * about half the cost of the n^2 d scan). Below, the scan is cheap and stays as it was.
 */
export const SCREEN_MIN_ROWS = 2000;
export const SCREEN_MIN_DIMS = 16;

function checkCount(owner: string, count: number, n: number): void {
  if (!Number.isInteger(count) || count < 1 || count > n - 1) {
    throw new ValidationError(
      "count",
      `The 'count' parameter of ${owner} must be an integer in [1, ${n - 1}] (the other rows). Got ${count} instead.`,
    );
  }
}

/** Validates class codes: an Int32Array of n non-negative integers. Returns the class count. */
export function checkClassCodes(owner: string, codes: Int32Array, n: number): number {
  if (!(codes instanceof Int32Array)) {
    throw new ValidationError(
      "codes",
      `The 'codes' parameter of ${owner} must be an Int32Array of class indices. Got ${typeof codes} instead.`,
    );
  }
  if (codes.length !== n) {
    throw new ValidationError(
      "codes",
      `The 'codes' parameter of ${owner} must have one class index per row (${n}). Got ${codes.length} instead.`,
    );
  }
  let classes = 0;
  for (let i = 0; i < n; i++) {
    const c = codes[i];
    if (c < 0) {
      throw new ValidationError(
        "codes",
        `The 'codes' parameter of ${owner} must hold class indices in [0, inf). Got ${c} at row ${i} instead.`,
      );
    }
    if (c + 1 > classes) classes = c + 1;
  }
  return classes;
}

/**
 * The `count` nearest other rows of P by d_ij = ||p_i - p_j||^2 + lambda ||y_i - y_j||^2
 * with y the one-hot rows of `codes` (Eq. SDSPCAAN-si's distance). P (finite) and
 * lambda (finite, >= 0) are the caller's to check, as labelledAdaptiveGraph does.
 */
export function labelledNeighbours(
  P: Matrix,
  codes: Int32Array,
  lambda: number,
  count: number,
  options: LabelledNeighbourSearchOptions = {},
): TwoPartNeighbours {
  const n = P.rows;
  const classes = checkClassCodes("labelledNeighbours", codes, n);
  checkCount("labelledNeighbours", count, n);
  const norms = squaredRowNorms(P);
  const heaps = new NeighbourHeaps(n, count);
  const { blockRows } = options;
  const strategy = options.strategy ?? "auto";
  if (strategy === "full") {
    scanNearestPairs(P, norms, heaps, {
      term: { kind: "classes", codes, lambda },
      blockRows,
    });
    return heaps.sorted(lambda);
  }

  const useTrees =
    strategy === "tree" || (strategy === "auto" && n >= TREE_MIN_ROWS && P.cols <= TREE_MAX_DIMS);
  if (useTrees) {
    const helpers = options.helpers ?? (n >= TREE_HELPER_MIN_ROWS ? kernelHelpers() : []);
    if (helpers.length > 0) return treeSearchOnThreads(P, codes, lambda, count, helpers, options);
    const signal = options.signal;
    return treeSearchRows(P, codes, classes, norms, lambda, count, 0, n, () => {
      throwIfAborted(signal);
      return false;
    }).sortedRows(lambda, 0, n);
  }

  // The block scans split their query row blocks over the helpers (distances.ts).
  const helpers = options.helpers ?? scanHelpers(n, P.cols);

  // Step 1: within-class search (rows of each class in ascending order).
  const { start, byClass } = classOrder(codes, classes);
  const signal = options.signal ? { signal: options.signal } : {};
  if (options.tracker !== undefined) {
    options.tracker.fill(P, norms, heaps, { blockRows, helpers, ...signal });
  } else {
    for (let c = 0; c < classes; c++) {
      const members = byClass.subarray(start[c], start[c + 1]);
      if (members.length >= 2) {
        scanNearestPairs(P, norms, heaps, { order: members, blockRows, helpers, ...signal });
      }
    }
  }

  // Steps 2 and 3.
  const remaining = unfinishedRows(P, codes, norms, heaps, lambda, count, 0, n);

  // Step 4: the remaining rows against every other-class row, all pairs or by clusters.
  const useClusters =
    strategy === "clusters" ||
    (strategy === "auto" && n >= CLUSTER_MIN_ROWS && remaining.length * CLUSTER_MIN_SHARE >= n);
  if (useClusters) {
    crossClassClusterScan(P, norms, byClass, start, lambda, heaps, remaining, {
      helpers,
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } else if (remaining.length > 0) {
    scanNearestPairs(P, norms, heaps, {
      order: queryRowsFirst(remaining, null, n),
      active: remaining.length,
      ...(options.signal ? { signal: options.signal } : {}),
      term: { kind: "classes", codes, lambda, crossClassOnly: true },
      blockRows,
      helpers,
    });
  }
  return heaps.sorted(lambda);
}

/**
 * From this many rows on, "auto" runs step 4 by cluster bounds (clusterScan.ts: the
 * same candidates, most cross-class pairs skipped) when at least 1 / CLUSTER_MIN_SHARE
 * of the rows remain; with fewer, the block scan's |R| n k work is below the cluster
 * scan's fixed cost (the clusters and their centre-to-centre bounds). Measured on
 * Fashion-MNIST's first 10,000 images projected to k = 50 by a fit, the whole search on
 * one thread of a machine shared with other work: blocks / clusters 4.0 / 1.3 s with all rows remaining, 1.1 / 0.53 s with 24 %,
 * 0.76 / 0.47 s with 13 %, 0.55 / 0.50 s with 7.6 %.
 */
export const CLUSTER_MIN_ROWS = 4000;
const CLUSTER_MIN_SHARE = 12;

/**
 * From this many rows on, the k-d tree search uses the kernel helpers (helper.ts):
 * each thread builds the trees (cheap: n log n) and answers the queries of its
 * rows. Below, a search takes a fraction of a second.
 */
export const TREE_HELPER_MIN_ROWS = 8000;

/**
 * From this much work (n^2 times the embedding's dimensions) on, the labelled block
 * scans split their row blocks over the kernel helpers: 8,000 rows in 24 dimensions.
 * Below, a search takes a fraction of a second.
 */
export const SCAN_HELPER_MIN_WORK = 8000 * 8000 * 24;

/** The helpers a block scan of n rows in `dims` dimensions uses by default. */
function scanHelpers(n: number, dims: number): readonly KernelHelper[] {
  return n * n * dims >= SCAN_HELPER_MIN_WORK ? kernelHelpers() : [];
}

/**
 * Steps 2 and 3 of the header for rows from..to-1 after step 1: offers the tied
 * cross-class candidates of the rows that need them only for ties, and returns the
 * rows that still need a cross-class search.
 */
function unfinishedRows(
  P: Matrix,
  codes: Int32Array,
  norms: Float64Array,
  heaps: NeighbourHeaps,
  lambda: number,
  count: number,
  from: number,
  to: number,
): number[] {
  const n = P.rows;
  const twoLambda = 2 * lambda;
  let maxNorm = 0;
  for (let i = 0; i < n; i++) if (norms[i] > maxNorm) maxNorm = norms[i];
  const rootMax = Math.sqrt(maxNorm);
  const remaining: number[] = [];
  for (let i = from; i < to; i++) {
    if (heaps.size[i] === count && heaps.worstDistance[i] < twoLambda) continue;
    const r = Math.sqrt(norms[i]) + rootMax;
    const bound = r * r * (1 + 2 ** -20);
    if (bound + twoLambda === twoLambda) {
      const ci = codes[i];
      let offered = 0;
      for (let j = 0; j < n && offered < count; j++) {
        if (codes[j] === ci) continue;
        let p = norms[i] + norms[j] - 2 * dot(P.data, P.data, P.cols, i * P.cols, j * P.cols);
        if (!(p > 0)) p = 0;
        heaps.offer(i, p + lambda * 2, j, p, 2);
        offered++;
      }
    } else {
      remaining.push(i);
    }
  }
  return remaining;
}

/**
 * The labelled search with one k-d tree per class, for the query rows from..to-1 (the
 * heaps of other rows stay empty): each query offers only to its own row's heap, so
 * rows can be answered by different threads with the same result. `stop` is polled
 * between queries (true: return at once).
 */
function treeSearchRows(
  P: Matrix,
  codes: Int32Array,
  classes: number,
  norms: Float64Array,
  lambda: number,
  count: number,
  from: number,
  to: number,
  stop: () => boolean,
): NeighbourHeaps {
  const n = P.rows;
  const heaps = new NeighbourHeaps(n, count);
  const { start, byClass } = classOrder(codes, classes);
  const trees: KdTree[] = [];
  // Step 1: within each class, queries in the leaf order of its tree.
  for (let c = 0; c < classes; c++) {
    const tree = new KdTree(P, norms, byClass.subarray(start[c], start[c + 1]));
    trees.push(tree);
    const order = tree.leafOrder;
    for (let a = 0; a < order.length; a++) {
      if ((a & 1023) === 0 && stop()) return heaps;
      const i = order[a];
      if (i >= from && i < to) tree.search(i, heaps, lambda, 0);
    }
  }
  // Steps 2 and 3.
  const remaining = unfinishedRows(P, codes, norms, heaps, lambda, count, from, to);
  // Step 4: the remaining rows against the other classes' trees, queries in leaf order
  // of their own class's tree, so that consecutive queries walk the same nodes.
  if (remaining.length > 0) {
    const isRemaining = new Uint8Array(n);
    for (const i of remaining) isRemaining[i] = 1;
    for (const own of trees) {
      if (stop()) return heaps;
      for (const i of own.leafOrder) {
        if (isRemaining[i] === 0) continue;
        for (let c = 0; c < classes; c++) if (c !== codes[i]) trees[c].search(i, heaps, lambda, 2);
      }
    }
  }
  return heaps;
}

/** What a helper gets for its rows of the tree search (treeSearchTask). */
export interface TreeSearchTaskInput {
  readonly p: Float64Array;
  readonly rows: number;
  readonly cols: number;
  readonly codes: Int32Array;
  readonly lambda: number;
  readonly count: number;
  readonly from: number;
  readonly to: number;
  readonly cancel: Int32Array;
}

/** The helper side of the tree search: its rows, sorted. */
export function treeSearchTask(input: TreeSearchTaskInput): TwoPartNeighbours {
  const { rows, cols, codes, lambda, count, from, to, cancel } = input;
  const P = new Matrix(rows, cols, input.p);
  const classes = checkClassCodes("treeSearchTask", codes, rows);
  const heaps = treeSearchRows(
    P,
    codes,
    classes,
    squaredRowNorms(P),
    lambda,
    count,
    from,
    to,
    () => Atomics.load(cancel, 0) !== 0,
  );
  if (Atomics.load(cancel, 0) !== 0) return emptyRows(count, lambda);
  return heaps.sortedRows(lambda, from, to);
}

function emptyRows(count: number, lambda: number): TwoPartNeighbours {
  const none = new Float64Array(0);
  return {
    rows: 0,
    count,
    indices: new Int32Array(0),
    distances: none,
    primary: none,
    secondary: none,
    lambda,
  };
}

/** The tree search with rows split evenly over this thread and the helpers. */
function treeSearchOnThreads(
  P: Matrix,
  codes: Int32Array,
  lambda: number,
  count: number,
  helpers: readonly KernelHelper[],
  options: LabelledNeighbourSearchOptions,
): TwoPartNeighbours {
  const n = P.rows;
  const parts = 1 + helpers.length;
  const bounds = balancedBounds(n, parts, () => 1);
  const cancel = new Int32Array(new SharedArrayBuffer(4));
  const signal = options.signal;
  const classes = checkClassCodes("labelledNeighbours", codes, n);
  const { own, theirs } = alongsideHelpers(
    helpers,
    "treeSearch",
    (h): TreeSearchTaskInput => ({
      p: P.data,
      rows: n,
      cols: P.cols,
      codes,
      lambda,
      count,
      ...helperPart(bounds, h),
      cancel,
    }),
    cancel,
    () =>
      treeSearchRows(
        P,
        codes,
        classes,
        squaredRowNorms(P),
        lambda,
        count,
        0,
        bounds[1],
        () => signal?.aborted === true,
      ),
  );
  throwIfAborted(signal);
  return concatNeighbourRows(
    [own.sortedRows(lambda, 0, bounds[1]), ...(theirs as TwoPartNeighbours[])],
    count,
    lambda,
  );
}

/**
 * The `count` nearest other rows of P by d_ij = ||p_i - p_j||^2 + lambda ||f_i - f_j||^2
 * for a general second embedding F (n x c; PCAN's F, Algorithm 2). F has no class
 * structure to exploit, so this is the full symmetric block search. P, F (finite,
 * n rows each) and lambda are the caller's to check, as embeddedAdaptiveGraph does.
 */
export function embeddedNeighbours(
  P: Matrix,
  F: Matrix,
  lambda: number,
  count: number,
  options: NeighbourSearchOptions & {
    /** Threads for the block scan (default: those registered, from SCAN_HELPER_MIN_WORK on). */
    readonly helpers?: readonly KernelHelper[];
  } = {},
): TwoPartNeighbours {
  const n = P.rows;
  checkCount("embeddedNeighbours", count, n);
  const heaps = new NeighbourHeaps(n, count);
  const helpers = options.helpers ?? scanHelpers(n, P.cols);
  scanNearestPairs(P, squaredRowNorms(P), heaps, {
    term: { kind: "embedding", F, lambda },
    blockRows: options.blockRows,
    helpers,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return heaps.sorted(lambda);
}
