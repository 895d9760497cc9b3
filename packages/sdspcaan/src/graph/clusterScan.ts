/**
 * Step 4 of the labelled neighbour search (neighbours.ts) without visiting every
 * cross-class pair: the rows that still need cross-class candidates ("remaining")
 * get them from a scan that skips, whole cluster against whole cluster, the pairs
 * that provably cannot enter a heap. The same candidates are offered as by the block
 * scan, with the same distances bit for bit, so the result is the same.
 *
 * Why it pays. While lambda is small next to the embedding's neighbour distances
 * (the first 20-odd outer iterations of SDSPCAAN at k = 50 on Fashion-MNIST), every
 * row is remaining, and the block scan visits all n^2 / 2 pairs in k dimensions; yet a
 * row's heap is already full of same-class candidates, and a cross-class row enters it
 * only if p_ij + 2 lambda beats the worst of them, w_i: on 10,000 images 0.3-0.4 % of
 * the cross-class pairs do. k-d trees cannot find them in 50 dimensions; bounds
 * between small clusters can.
 *
 * 1. Clusters. The rows of each class are split into clusters of about CLUSTER_SIZE
 *    rows (evenly spaced rows as seeds, LLOYD_STEPS steps of Lloyd's algorithm), each
 *    with its centre c and a radius r bounding ||p_i - c|| over its rows; one that drew
 *    many rows (duplicates) is cut into pieces of at most MAX_CLUSTER_ROWS. Their
 *    quality only decides how much is skipped, never what is found.
 * 2. Bounds. For clusters A and B of different classes, g = ||c_A - c_B|| - r_A - r_B
 *    bounds the distance of every pair between them from below, so p_ij >= g^2 up to
 *    the rounding of p (at most SLACK (k + 4) u max_i ||p_i||^2 in the Gram form). Row
 *    i of A needs B only if g^2 - slack <= tau_i = w_i - 2 lambda (plus a few ulps): a
 *    pair with p above that has d = fl(p + 2 lambda) > w_i and is rejected by the
 *    heap, which only tightens. Rows whose heap is not yet full have tau = +inf.
 * 3. Scan. Every pair of clusters (A, B), A before B, where a row of A needs B or a
 *    row of B needs A is computed, all of it, with the GEMM kernel a large block scan
 *    uses (gemmABtFixedKernel: each entry's bits do not depend on the product's
 *    shape), and every pair is offered to the heaps of its remaining rows, exactly as
 *    the block scan's scanRow does (p = ||p_i||^2 + ||p_j||^2 - 2 p_i.p_j clipped at
 *    0, d = p + lambda * 2). Each unordered pair is offered once; the heaps keep the
 *    smallest (d, index) pairs whatever the order of the offers.
 *
 * Measured on Fashion-MNIST's first 10,000 training images (k = 50, the embeddings of
 * outer iterations 1 to 10, clusters of 8 rows): the computed pairs are 10-15 % of the
 * cross-class pairs; docs/performance.md has the timings.
 */
import { throwIfAborted } from "../core/errors.js";
import type { Matrix } from "../core/matrix.js";
import { gemmABtExact, gemmABtFixedKernel } from "../linalg/kernels/gemm.js";
import {
  alongsideHelpers,
  balancedBounds,
  helperPart,
  type KernelHelper,
} from "../linalg/kernels/helper.js";
import { type HeapStorage, NeighbourHeaps } from "../linalg/kernels/neighbourHeaps.js";
import { type WasmArena, wasmArena } from "../linalg/kernels/wasm/backend.js";

/** Target number of rows per cluster. */
export const CLUSTER_SIZE = 8;
/** Largest cluster (rows of one product's first operand; see classClusters). */
const MAX_CLUSTER_ROWS = 4 * CLUSTER_SIZE;
/** Steps of Lloyd's algorithm from the evenly spaced seeds. */
const LLOYD_STEPS = 2;
/** Unit roundoff of double precision. */
const U = 2 ** -53;
/** Multiple of (k + 4) u max ||p_i||^2 allowed for the rounding of one computed p_ij. */
const SLACK = 16;
/** Clusters per block of centre-to-centre products. */
const CENTRE_BLOCK = 64;

/** The rows of each class in clusters: rows[start[a] .. start[a + 1]) is cluster a. */
export interface Clusters {
  readonly count: number;
  readonly start: Int32Array;
  readonly rows: Int32Array;
  /** count x k centres. */
  readonly centres: Float64Array;
  /** Upper bounds on max ||p_i - c|| over each cluster's rows. */
  readonly radius: Float64Array;
  readonly cls: Int32Array;
}

/**
 * Offers every cross-class candidate that can enter the heap of a row of `remaining`
 * (the rows whose heaps hold their same-class candidates and still need cross-class
 * ones), as step 4 of labelledNeighbours does. `byClass` / `classStart` list the rows
 * of each class in ascending order. With `helpers` the clusters are split over this
 * thread and the helpers (each offers to heaps of its own, filtered by the heaps'
 * state at the start, and the parts are merged: the same candidates). Returns the
 * number of pairs computed.
 */
export function crossClassClusterScan(
  P: Matrix,
  norms: Float64Array,
  byClass: Int32Array,
  classStart: Int32Array,
  lambda: number,
  heaps: NeighbourHeaps,
  remaining: readonly number[],
  options: {
    readonly signal?: AbortSignal;
    readonly helpers?: readonly KernelHelper[];
    /** false: the pair loop in TypeScript (the path the module's filter is tested against). */
    readonly filter?: boolean;
  } = {},
): number {
  const { signal } = options;
  const helpers = options.helpers ?? [];
  if (remaining.length === 0) return 0;
  const scan: ClusterScanContext = {
    ...prepareScan({ P, norms, byClass, classStart, lambda, heaps, remaining }, signal),
    filter: options.filter !== false,
  };
  if (helpers.length === 0 || scan.clusters < 2) {
    return scanClusterRange(
      scan,
      0,
      scan.clusters,
      heaps,
      heaps.worstDistance,
      heaps.worstIndex,
      () => {
        throwIfAborted(signal);
        return false;
      },
    );
  }
  // Clusters split by the rows after them (the pairs each may compute), in runs.
  const { start } = scan;
  const n = P.rows;
  const bounds = balancedBounds(
    scan.clusters,
    1 + helpers.length,
    (a) => (start[a + 1] - start[a]) * (n - start[a + 1]),
  );
  const cancel = new Int32Array(new SharedArrayBuffer(4));
  const w0 = heaps.worstDistance.slice();
  const j0 = heaps.worstIndex.slice();
  const { own, theirs } = alongsideHelpers(
    helpers,
    "clusterScan",
    (h): ClusterScanTaskInput => ({
      scan,
      heapCount: heaps.count,
      ...helperPart(bounds, h),
      w0,
      j0,
      cancel,
    }),
    cancel,
    () =>
      scanClusterRange(scan, 0, bounds[1], heaps, w0, j0, () => {
        throwIfAborted(signal);
        return Atomics.load(cancel, 0) !== 0;
      }),
  );
  throwIfAborted(signal);
  let computed = own;
  for (const part of theirs as ClusterScanTaskOutput[]) {
    heaps.offerAll(part.heaps);
    computed += part.computed;
  }
  return computed;
}

/** What a scan of cluster pairs needs (shared with the helpers; G in shared memory). */
interface ClusterScanContext {
  readonly rows: number;
  readonly k: number;
  readonly lambda: number;
  readonly clusters: number;
  /** Cluster a is positions start[a] .. start[a + 1] - 1 of G (rows order[...]). */
  readonly start: Int32Array;
  readonly order: Int32Array;
  readonly G: Float64Array;
  readonly gn: Float64Array;
  readonly centres: Float64Array;
  readonly centreNorms: Float64Array;
  readonly radius: Float64Array;
  readonly cls: Int32Array;
  /** Per cluster: the largest p a pair may have and still enter a remaining row's heap. */
  readonly tau: Float64Array;
  readonly inRemaining: Uint8Array;
  readonly slack: number;
  /** Each cluster's pairs filtered in the module where it runs (filteredPairs). */
  readonly filter: boolean;
}

/** crossClassClusterScan's arguments before its options. */
interface ScanInput {
  readonly P: Matrix;
  readonly norms: Float64Array;
  readonly byClass: Int32Array;
  readonly classStart: Int32Array;
  readonly lambda: number;
  readonly heaps: NeighbourHeaps;
  readonly remaining: readonly number[];
}

/** Steps 1 and 2 of the header: clusters, thresholds, the rows in cluster order. */
function prepareScan(
  input: ScanInput,
  signal: AbortSignal | undefined,
): Omit<ClusterScanContext, "filter"> {
  const { P, norms, byClass, classStart, lambda, heaps, remaining } = input;
  const n = P.rows;
  const k = P.cols;
  const { count, start, rows, centres, radius, cls } = classClusters(
    P,
    byClass,
    classStart,
    signal,
  );
  // tau per cluster (-inf: no remaining row); a row whose heap is not full takes +inf.
  const inRemaining = new Uint8Array(n);
  for (const i of remaining) inRemaining[i] = 1;
  const twoLambda = lambda * 2;
  const tau = new Float64Array(count).fill(Number.NEGATIVE_INFINITY);
  for (let a = 0; a < count; a++) {
    for (let t = start[a]; t < start[a + 1]; t++) {
      const i = rows[t];
      if (inRemaining[i] === 0) continue;
      const w = heaps.size[i] === heaps.count ? heaps.worstDistance[i] : Number.POSITIVE_INFINITY;
      const ti = w - twoLambda + 8 * U * (w + twoLambda);
      if (ti > tau[a]) tau[a] = ti;
    }
  }
  let maxNorm = 0;
  for (let i = 0; i < n; i++) if (norms[i] > maxNorm) maxNorm = norms[i];
  // The rows in cluster order, with their norms (G shared with the helpers).
  const G = new Float64Array(new SharedArrayBuffer(n * k * 8));
  const gn = new Float64Array(n);
  for (let t = 0; t < n; t++) {
    const i = rows[t];
    G.set(P.data.subarray(i * k, (i + 1) * k), t * k);
    gn[t] = norms[i];
  }
  const centreNorms = new Float64Array(count);
  for (let a = 0; a < count; a++) {
    let s = 0;
    for (let l = 0; l < k; l++) s += centres[a * k + l] * centres[a * k + l];
    centreNorms[a] = s;
  }
  return {
    rows: n,
    k,
    lambda,
    clusters: count,
    start,
    order: rows,
    G,
    gn,
    centres,
    centreNorms,
    radius,
    cls,
    tau,
    inRemaining,
    slack: SLACK * (k + 4) * U * maxNorm,
  };
}

/**
 * Step 3 of the header for clusters from..to-1 (each against the clusters after it):
 * offers each computed pair to `heaps` for the remaining rows whose threshold (w0, j0:
 * the heaps' worst candidates when the scan began, or the live ones) it beats. `stop`
 * is polled between blocks of clusters (true: return at once). Returns the number of
 * pairs computed.
 */
function scanClusterRange(...range: ClusterRange): number {
  const [scan, , , heaps, w0, j0] = range;
  const arena = scan.filter ? wasmArena() : null;
  const filtered = arena === null ? null : filteredPairs(arena, scan, heaps, w0, j0);
  try {
    return scanClusterPairs(filtered, ...range);
  } finally {
    filtered?.release();
  }
}

/** scanClusterRange's arguments. */
type ClusterRange = [
  scan: ClusterScanContext,
  from: number,
  to: number,
  heaps: NeighbourHeaps,
  w0: Float64Array,
  j0: Int32Array,
  stop: () => boolean,
];

/** scanClusterRange's loop; each cluster's pairs by `filtered` where it is given. */
function scanClusterPairs(
  filtered: FilteredPairs | null,
  ...[scan, from, to, heaps, w0, j0, stop]: ClusterRange
): number {
  const { rows: n, k, lambda, clusters: count, start, order, G, gn, centres } = scan;
  const { centreNorms, radius, cls, tau, inRemaining, slack } = scan;
  // Relative error bound of the Gram-form centre distances.
  const gramError = 4 * (k + 4) * U;
  const cg = new Float64Array(CENTRE_BLOCK * count);
  const partners: number[] = [];
  const panelIndex = new Int32Array(n);
  let panel = new Float64Array(0);
  let dots = new Float64Array(0);
  let computed = 0;
  for (let a0 = from; a0 < to; a0 += CENTRE_BLOCK) {
    if (stop()) return computed;
    const a1 = Math.min(a0 + CENTRE_BLOCK, to);
    // Centre products of this block with the clusters from a0 on (only b > a is used).
    const width = count - a0;
    const tail = centres.subarray(a0 * k);
    gemmABtExact(a1 - a0, width, k, tail, k, tail, k, cg, width, false);
    for (let a = a0; a < a1; a++) {
      // The clusters after A that a pair with A must be computed for.
      partners.length = 0;
      let panelRows = 0;
      const row = (a - a0) * width - a0;
      for (let b = a + 1; b < count; b++) {
        if (cls[b] === cls[a]) continue;
        const t = Math.max(tau[a], tau[b]);
        if (t === Number.NEGATIVE_INFINITY) continue;
        const sum = centreNorms[a] + centreNorms[b];
        const d2 = sum - 2 * cg[row + b] - gramError * sum;
        const centreGap = Math.sqrt(Math.max(d2, 0)) * (1 - 4 * U);
        const gap = centreGap - radius[a] - radius[b] - 4 * U * (centreGap + radius[a] + radius[b]);
        if (gap > 0 && gap * gap * (1 - 8 * U) - slack > t) continue;
        partners.push(b);
        panelRows += start[b + 1] - start[b];
      }
      if (panelRows === 0) continue;
      const ma = start[a + 1] - start[a];
      computed += ma * panelRows;
      if (filtered !== null) {
        filtered.pairs(a, partners, panelRows);
        continue;
      }
      // A against all its partners' rows in one product. This pair loop and the one of
      // filteredPairs (the module's filter) decode a pair the same way, written out in
      // each on purpose: they are the scan's innermost loops.
      if (panel.length < panelRows * k) panel = new Float64Array(Math.max(panelRows, n >> 3) * k);
      let at = 0;
      for (const b of partners) {
        panel.set(G.subarray(start[b] * k, start[b + 1] * k), at * k);
        for (let t = start[b]; t < start[b + 1]; t++) panelIndex[at++] = t;
      }
      if (dots.length < ma * panelRows) dots = new Float64Array(ma * panelRows);
      gemmABtFixedKernel(ma, panelRows, k, G.subarray(start[a] * k), k, panel, k, dots, panelRows);
      for (let r = 0; r < ma; r++) {
        const ta = start[a] + r;
        const gi = order[ta];
        const ni = gn[ta];
        const iNeeds = inRemaining[gi] === 1;
        const off = r * panelRows;
        for (let c = 0; c < panelRows; c++) {
          const tb = panelIndex[c];
          const gj = order[tb];
          let p = ni + gn[tb] - 2 * dots[off + c];
          if (!(p > 0)) p = 0;
          const d = p + lambda * 2;
          offerCrossPair(heaps, w0, j0, gi, gj, d, p, iNeeds, inRemaining[gj] === 1);
        }
      }
    }
  }
  return computed;
}

/**
 * Offers the cross-class pair (gi, gj) to the heap of each row that needs candidates
 * and whose worst at the scan's start it beats ((d, index), ties to the lower index):
 * the tests of both of scanClusterPairs' loops.
 */
function offerCrossPair(
  heaps: NeighbourHeaps,
  w0: Float64Array,
  j0: Int32Array,
  gi: number,
  gj: number,
  d: number,
  p: number,
  iNeeds: boolean,
  jNeeds: boolean,
): void {
  if (iNeeds && (d < w0[gi] || (d === w0[gi] && gj < j0[gi]))) heaps.offer(gi, d, gj, p, 2);
  if (jNeeds && (d < w0[gj] || (d === w0[gj] && gi < j0[gj]))) heaps.offer(gj, d, gi, p, 2);
}

/** The pairs of one cluster with its partners, computed and filtered in the module. */
interface FilteredPairs {
  pairs(a: number, partners: readonly number[], panelRows: number): void;
  release(): void;
}

/**
 * scanClusterRange's product and pair loop with the rows in the module's memory and
 * each row's pairs filtered there (pairs.wat, `pairFilter`, with the fixed thresholds
 * w0 of the rows that need candidates and -inf for the others): the positions it
 * writes then take the loop's own tests and offers in the loop's order, with the same
 * values (the same fixed-kernel products, the same arithmetic), so the same offers
 * are made. Null when the module's memory cannot hold the scan (the loop in
 * TypeScript runs instead).
 */
function filteredPairs(
  arena: WasmArena,
  scan: ClusterScanContext,
  heaps: NeighbourHeaps,
  w0: Float64Array,
  j0: Int32Array,
): FilteredPairs | null {
  const { rows: n, k, lambda, start, order, G, gn, inRemaining } = scan;
  const mark = arena.mark();
  let ptrs: number[] | null;
  try {
    ptrs = arena.allocAll([n * k, n * k, MAX_CLUSTER_ROWS * n, n, n, Math.ceil(n / 2)]);
  } catch {
    // Pinned by a caller with views in use: the memory may not grow now.
    ptrs = null;
  }
  if (ptrs === null) {
    arena.release(mark);
    return null;
  }
  const [pG, pPanel, pDots, pGn, pThr, pOut] = ptrs;
  // Not pinned: the centre products between calls allocate above these blocks and may
  // grow the memory, which keeps every pointer but detaches views, so each call makes
  // its views afresh.
  arena.view(pG, n * k).set(G.subarray(0, n * k));
  const panelIndex = new Int32Array(n);
  const pairFilter = arena.kernels.pairFilter;
  return {
    pairs(a, partners, panelRows) {
      const f = arena.f64;
      const Gv = arena.view(pG, n * k);
      const dots = arena.view(pDots, MAX_CLUSTER_ROWS * n);
      const gnPanel = arena.view(pGn, n);
      const thrPanel = arena.view(pThr, n);
      const out = new Int32Array(arena.buffer, pOut, n);
      let at = 0;
      for (const b of partners) {
        f.copyWithin(
          (pPanel >> 3) + at * k,
          (pG >> 3) + start[b] * k,
          (pG >> 3) + start[b + 1] * k,
        );
        for (let t = start[b]; t < start[b + 1]; t++) {
          panelIndex[at] = t;
          gnPanel[at] = gn[t];
          const gj = order[t];
          thrPanel[at] = inRemaining[gj] === 1 ? w0[gj] : Number.NEGATIVE_INFINITY;
          at++;
        }
      }
      const ma = start[a + 1] - start[a];
      const panel = arena.view(pPanel, panelRows * k);
      gemmABtFixedKernel(ma, panelRows, k, Gv.subarray(start[a] * k), k, panel, k, dots, panelRows);
      for (let r = 0; r < ma; r++) {
        const ta = start[a] + r;
        const gi = order[ta];
        const ni = gn[ta];
        const iNeeds = inRemaining[gi] === 1;
        const off = r * panelRows;
        const written = pairFilter(
          pDots + off * 8,
          pGn,
          pThr,
          0,
          panelRows,
          ni,
          iNeeds ? w0[gi] : Number.NEGATIVE_INFINITY,
          0,
          lambda,
          // Kind 3: every partner is of another class (l = 2).
          3,
          1,
          0,
          0,
          pOut,
        );
        for (let t = 0; t < written; t++) {
          const c = out[t];
          const tb = panelIndex[c];
          const gj = order[tb];
          let p = ni + gn[tb] - 2 * dots[off + c];
          if (!(p > 0)) p = 0;
          const d = p + lambda * 2;
          offerCrossPair(heaps, w0, j0, gi, gj, d, p, iNeeds, inRemaining[gj] === 1);
        }
      }
    },
    release() {
      arena.release(mark);
    },
  };
}

/** What a helper gets for its clusters of a cluster scan (clusterScanTask). */
export interface ClusterScanTaskInput {
  readonly scan: ClusterScanContext;
  /** Candidates kept per row. */
  readonly heapCount: number;
  readonly from: number;
  readonly to: number;
  /** The heaps' worst candidates when the scan began. */
  readonly w0: Float64Array;
  readonly j0: Int32Array;
  readonly cancel: Int32Array;
}

export interface ClusterScanTaskOutput {
  readonly heaps: HeapStorage;
  readonly computed: number;
}

/** The helper side of a cluster scan: its clusters, into heaps of its own. */
export function clusterScanTask(input: ClusterScanTaskInput): ClusterScanTaskOutput {
  const { scan, from, to, w0, j0, cancel } = input;
  const heaps = new NeighbourHeaps(scan.rows, input.heapCount);
  const cancelled = () => Atomics.load(cancel, 0) !== 0;
  const computed = scanClusterRange(scan, from, to, heaps, w0, j0, cancelled);
  if (cancelled()) {
    const none = { size: new Int32Array(0), dist: new Float64Array(0), index: new Int32Array(0) };
    return { heaps: none, computed };
  }
  const { size, dist, index, first, second } = heaps;
  return { heaps: { size, dist, index, first, second }, computed };
}

/**
 * Step 1 of the header: the clusters of every class, in class order. Each cluster's
 * rows are ascending; empty clusters are dropped, and a cluster of more than
 * MAX_CLUSTER_ROWS rows is cut into pieces of at most that many (each with the whole
 * cluster's centre and radius), which bounds the memory of the scan's products.
 */
export function classClusters(
  P: Matrix,
  byClass: Int32Array,
  classStart: Int32Array,
  signal: AbortSignal | undefined,
): Clusters {
  const n = P.rows;
  const k = P.cols;
  const classes = classStart.length - 1;
  const rows = new Int32Array(n);
  const starts: number[] = [0];
  const centreList: Float64Array[] = [];
  const radiusList: number[] = [];
  const clsList: number[] = [];
  let at = 0;
  for (let c = 0; c < classes; c++) {
    throwIfAborted(signal);
    const members = byClass.subarray(classStart[c], classStart[c + 1]);
    const m = members.length;
    if (m === 0) continue;
    const nc = Math.ceil(m / CLUSTER_SIZE);
    const X = new Float64Array(m * k);
    for (let t = 0; t < m; t++) X.set(P.data.subarray(members[t] * k, (members[t] + 1) * k), t * k);
    // Seeds: evenly spaced members.
    let centres: Float64Array = new Float64Array(nc * k);
    for (let s = 0; s < nc; s++) {
      const t = Math.floor(((s + 0.5) * m) / nc);
      centres.set(X.subarray(t * k, (t + 1) * k), s * k);
    }
    const assign = new Int32Array(m);
    for (let step = 0; step < LLOYD_STEPS; step++) {
      nearestCentres(X, m, centres, nc, k, assign);
      centres = clusterMeans(X, m, assign, nc, k, centres);
    }
    // Rows by cluster (ascending within each: members are ascending), then radii.
    const sizes = new Int32Array(nc);
    for (let t = 0; t < m; t++) sizes[assign[t]]++;
    const offset = new Int32Array(nc);
    for (let s = 0, o = 0; s < nc; s++) {
      offset[s] = o;
      o += sizes[s];
    }
    const local = new Int32Array(m);
    const fill = offset.slice();
    for (let t = 0; t < m; t++) local[fill[assign[t]]++] = t;
    for (let s = 0; s < nc; s++) {
      if (sizes[s] === 0) continue;
      let worst = 0;
      for (let q = offset[s]; q < offset[s] + sizes[s]; q++) {
        const t = local[q];
        let d = 0;
        for (let l = 0; l < k; l++) {
          const diff = X[t * k + l] - centres[s * k + l];
          d += diff * diff;
        }
        if (d > worst) worst = d;
        rows[at++] = members[t];
      }
      // The computed sum of squares is within (k + 2) u of the exact one; sqrt adds one ulp.
      const radius = Math.sqrt(worst * (1 + 4 * (k + 4) * U)) * (1 + 4 * U);
      // A cluster that drew many rows (duplicates, a dense core) is cut into pieces of
      // at most MAX_CLUSTER_ROWS, each with the whole cluster's centre and radius (still
      // bounds for its rows), so that a product never has more than that many rows.
      for (let from = at - sizes[s]; from < at; from += MAX_CLUSTER_ROWS) {
        starts.push(Math.min(from + MAX_CLUSTER_ROWS, at));
        centreList.push(centres.subarray(s * k, (s + 1) * k));
        radiusList.push(radius);
        clsList.push(c);
      }
    }
  }
  const count = centreList.length;
  const centres = new Float64Array(count * k);
  for (let a = 0; a < count; a++) centres.set(centreList[a], a * k);
  return {
    count,
    start: Int32Array.from(starts),
    rows,
    centres,
    radius: Float64Array.from(radiusList),
    cls: Int32Array.from(clsList),
  };
}

/** assign[t] = the nearest of the nc centres to row t of X (ties to the lower centre). */
function nearestCentres(
  X: Float64Array,
  m: number,
  centres: Float64Array,
  nc: number,
  k: number,
  assign: Int32Array,
): void {
  const cn = new Float64Array(nc);
  for (let s = 0; s < nc; s++) {
    let v = 0;
    for (let l = 0; l < k; l++) v += centres[s * k + l] * centres[s * k + l];
    cn[s] = v;
  }
  const chunk = Math.max(1, Math.min(m, Math.floor((1 << 20) / nc)));
  const buf = new Float64Array(chunk * nc);
  for (let t0 = 0; t0 < m; t0 += chunk) {
    const t1 = Math.min(t0 + chunk, m);
    gemmABtExact(t1 - t0, nc, k, X.subarray(t0 * k), k, centres, k, buf, nc, false);
    for (let t = t0; t < t1; t++) {
      const o = (t - t0) * nc;
      let best = 0;
      let bestValue = Number.POSITIVE_INFINITY;
      for (let s = 0; s < nc; s++) {
        const v = cn[s] - 2 * buf[o + s];
        if (v < bestValue) {
          bestValue = v;
          best = s;
        }
      }
      assign[t] = best;
    }
  }
}

/** The mean of each cluster's rows (an empty cluster keeps its previous centre). */
function clusterMeans(
  X: Float64Array,
  m: number,
  assign: Int32Array,
  nc: number,
  k: number,
  previous: Float64Array,
): Float64Array {
  const sums = new Float64Array(nc * k);
  const sizes = new Int32Array(nc);
  for (let t = 0; t < m; t++) {
    const s = assign[t];
    sizes[s]++;
    for (let l = 0; l < k; l++) sums[s * k + l] += X[t * k + l];
  }
  for (let s = 0; s < nc; s++) {
    if (sizes[s] === 0) {
      sums.set(previous.subarray(s * k, (s + 1) * k), s * k);
      continue;
    }
    for (let l = 0; l < k; l++) sums[s * k + l] /= sizes[s];
  }
  return sums;
}
