/**
 * Squared Euclidean distances between rows, computed block by block with the GEMM
 * kernel in the form ||a||^2 + ||b||^2 - 2 a.b (clipped at 0), and nearest-neighbour
 * searches that keep only the `count` nearest per row, so that memory stays
 * O(blockRows x n) and no n x n matrix exists for large n.
 *
 * Round-off. Distances take the Gram form's rounding (as NumPy's or MATLAB's
 * would): a few ulps of ||a||^2 + ||b||^2, so duplicate rows come out 0 only up to
 * that. The products are gemmABtExact's on every backend (the "wasm" backend's bits
 * on "fast" too), so that the screened and pruned searches, which reproduce these
 * sums, give the full scan's neighbours and distances whichever backend runs. Every search computes each pair once and uses the value for both rows, so
 * d_ij = d_ji within a search; the block size only changes which GEMM code path
 * (and so which summation order) forms an entry, i.e. the last bits. With data whose
 * dot products are exact (small integers) every path gives identical values, which
 * is how the tests check ties and duplicate rows exactly.
 *
 * Ordering. Neighbours are ranked by (distance, index): ties go to the lower index.
 * The bounded heaps below compare that pair, so the result does not depend on the
 * order in which candidates are offered.
 */

import { throwIfAborted, ValidationError } from "../../core/errors.js";
import { Matrix } from "../../core/matrix.js";
import { checkFiniteEntries } from "../../core/validate.js";
import { dot } from "../basic.js";
import { gemmABtExact, gemmABtFixedKernel, gemmABtTs, wasmWorthIt } from "./gemm.js";
import {
  alongsideHelpers,
  balancedBounds,
  helperPart,
  type KernelHelper,
  kernelHelpers,
} from "./helper.js";
import { type HeapStorage, NeighbourHeaps, type TwoPartNeighbours } from "./neighbourHeaps.js";
import { type WasmArena, wasmArena } from "./wasm/backend.js";

/** Target size of one distance block, in doubles (8 MiB). */
const BLOCK_ELEMENTS = 1 << 20;

/** A row-block size (a multiple of 4 in [4, 256]) holding about 8 MiB of distances against n rows. */
export function defaultBlockRows(n: number): number {
  const r = Math.floor(BLOCK_ELEMENTS / Math.max(1, n));
  return Math.max(4, Math.min(256, r - (r % 4)));
}

function resolveBlockRows(owner: string, blockRows: number | undefined, n: number): number {
  if (blockRows === undefined) return defaultBlockRows(n);
  if (!Number.isInteger(blockRows) || blockRows < 1) {
    throw new ValidationError(
      "blockRows",
      `The 'blockRows' parameter of ${owner} must be an integer in [1, inf). Got ${blockRows} instead.`,
    );
  }
  return blockRows;
}

/** ||x_i||^2 for every row. */
export function squaredRowNorms(X: Matrix): Float64Array {
  const { rows, cols, data } = X;
  const out = new Float64Array(rows);
  for (let i = 0; i < rows; i++) out[i] = dot(data, data, cols, i * cols, i * cols);
  return out;
}

/**
 * All pairwise squared distances between the rows of X, dense n x n (small n only).
 * Each pair is evaluated once and mirrored, so D is exactly symmetric with a zero
 * diagonal.
 */
export function pairwiseSquaredDistances(X: Matrix): Matrix {
  const n = X.rows;
  const k = X.cols;
  const norms = squaredRowNorms(X);
  const D = new Matrix(n, n);
  const dd = D.data;
  gemmABtExact(n, n, k, X.data, k, X.data, k, dd, n);
  for (let i = 0; i < n; i++) {
    const ni = norms[i];
    for (let j = 0; j < i; j++) {
      const v = Math.max(ni + norms[j] - 2 * dd[i * n + j], 0);
      dd[i * n + j] = v;
      dd[j * n + i] = v;
    }
    dd[i * n + i] = 0;
  }
  return D;
}

/**
 * Calls `visit(i0, i1, block)` for consecutive row blocks of A, where `block`
 * ((i1 - i0) x B.rows, row-major) holds ||a_i - b_j||^2 for i in [i0, i1). The
 * block buffer is reused between calls: copy what you keep.
 */
export function forEachCrossDistanceBlock(
  A: Matrix,
  B: Matrix,
  visit: (i0: number, i1: number, block: Float64Array) => void,
  { blockRows }: { blockRows?: number } = {},
): void {
  if (A.cols !== B.cols) {
    throw new ValidationError(
      "B",
      `The 'B' parameter of forEachCrossDistanceBlock must have ${A.cols} columns (as A). Got ${B.cols} instead.`,
    );
  }
  const nb = B.rows;
  const k = A.cols;
  const step = resolveBlockRows("forEachCrossDistanceBlock", blockRows, nb);
  const na = squaredRowNorms(A);
  const bn = squaredRowNorms(B);
  const buf = new Float64Array(Math.min(step, A.rows) * nb);
  for (let i0 = 0; i0 < A.rows; i0 += step) {
    const i1 = Math.min(i0 + step, A.rows);
    const block = buf.subarray(0, (i1 - i0) * nb);
    gemmABtExact(i1 - i0, nb, k, A.data.subarray(i0 * k), k, B.data, k, block, nb);
    for (let i = i0; i < i1; i++) {
      const off = (i - i0) * nb;
      const ni = na[i];
      for (let j = 0; j < nb; j++) {
        const v = ni + bn[j] - 2 * block[off + j];
        block[off + j] = Math.max(v, 0);
      }
    }
    visit(i0, i1, block);
  }
}

/** Squared distances between the rows of A (queries) and B (e.g. training rows), dense. */
export function crossSquaredDistances(A: Matrix, B: Matrix): Matrix {
  const D = new Matrix(A.rows, B.rows);
  forEachCrossDistanceBlock(A, B, (i0, _i1, block) => {
    D.data.set(block, i0 * B.rows);
  });
  return D;
}

/**
 * The second part of a two-part distance d_ij = p_ij + lambda l_ij:
 * - "none": l = 0;
 * - "classes": l_ij = ||y_i - y_j||^2 for one-hot rows y, i.e. 0 within a class and
 *   2 across; with `crossClassOnly` same-class pairs are skipped altogether;
 * - "embedding": l_ij = ||f_i - f_j||^2 for the rows of F, summed as differences
 *   (not in the Gram form: rows of F in one cluster are nearly equal, and the Gram
 *   form's cancellation error, multiplied by a huge lambda, would swamp p).
 */
export type SecondTerm =
  | { readonly kind: "none" }
  | {
      readonly kind: "classes";
      readonly codes: Int32Array;
      readonly lambda: number;
      readonly crossClassOnly?: boolean;
    }
  | { readonly kind: "embedding"; readonly F: Matrix; readonly lambda: number };

export interface PairScanOptions {
  /**
   * The rows of X taking part (global indices), in scan order; default all rows in
   * order. Positions [0, active) are query rows: every pair among them is visited
   * once and offered to both rows' heaps; each query row is also paired with every
   * position in [active, order.length), offered to the query row only.
   */
  readonly order?: Int32Array | null;
  /** Number of query rows at the front of `order` (default: all). */
  readonly active?: number;
  readonly term?: SecondTerm;
  readonly blockRows?: number;
  /** Checked between row blocks: a long search (n^2 d work) stops within a block of work. */
  readonly signal?: AbortSignal;
  /**
   * Other threads (helper.ts) to split the query row blocks with (default none). Each
   * thread offers its pairs to heaps of its own, merged into `heaps` at the end: the
   * heaps keep the smallest (distance, index) pairs whatever the order of the offers,
   * and each pair is computed by the same GEMM call as on one thread, so the result
   * has one thread's bits.
   */
  readonly helpers?: readonly KernelHelper[];
  /**
   * Compute every product with gemmABtFixedKernel, so that each distance has the bits
   * of the wasm kernel whatever the block shapes (a search that computes some pairs
   * elsewhere, graph/trackedNeighbours.ts, gets the same bits for them). Default: the
   * kernel gemmABtRaw picks by size, which may sum a small block's entries otherwise.
   */
  readonly fixedKernel?: boolean;
  /**
   * Filter each row's pairs in the WebAssembly module before the heaps (default true
   * where the module runs; scanBlocksFiltered): the same result, faster. false keeps
   * the loop in TypeScript, the path the filter is tested against.
   */
  readonly filter?: boolean;
}

/**
 * The block engine behind every search here: visits pairs of rows of X as described
 * in PairScanOptions, computes p_ij (and l_ij), and offers them to `heaps` (indexed
 * by global row). `norms` are `squaredRowNorms(X)`. Each unordered pair is visited
 * at most once, so callers can split the pairs between several scans without
 * offering a candidate twice.
 */
export function scanNearestPairs(
  X: Matrix,
  norms: Float64Array,
  heaps: NeighbourHeaps,
  options: PairScanOptions = {},
): void {
  const k = X.cols;
  const order = options.order ?? null;
  const total = order === null ? X.rows : order.length;
  const active = options.active ?? total;
  const term: SecondTerm = options.term ?? { kind: "none" };
  const step = resolveBlockRows("scanNearestPairs", options.blockRows, total);
  if (!Number.isInteger(active) || active < 0 || active > total) {
    throw new ValidationError(
      "active",
      `The 'active' parameter of scanNearestPairs must be an integer in [0, ${total}] (the rows scanned). Got ${active} instead.`,
    );
  }
  if (heaps.rows !== X.rows || norms.length !== X.rows) {
    throw new ValidationError(
      "heaps",
      `The 'heaps' and 'norms' parameters of scanNearestPairs must have one entry per row of X (${X.rows}). Got ${heaps.rows} and ${norms.length} instead.`,
    );
  }
  if (active === 0 || total < 2) return;
  // Gather the participating rows contiguously (only when a subset or a new order is asked).
  let G: Float64Array;
  let gn: Float64Array;
  if (order === null) {
    G = X.data;
    gn = norms;
  } else {
    G = new Float64Array(total * k);
    gn = new Float64Array(total);
    for (let a = 0; a < total; a++) {
      const g = order[a];
      G.set(X.data.subarray(g * k, (g + 1) * k), a * k);
      gn[a] = norms[g];
    }
  }
  const ctx: ScanContext = {
    order,
    gn,
    heaps,
    kind: term.kind === "none" ? 0 : term.kind === "classes" ? 1 : 2,
    codes: term.kind === "classes" ? term.codes : new Int32Array(0),
    crossOnly: term.kind === "classes" && term.crossClassOnly === true,
    fd: term.kind === "embedding" ? term.F.data : new Float64Array(0),
    fc: term.kind === "embedding" ? term.F.cols : 0,
    lambda: term.kind === "none" ? 0 : term.lambda,
  };
  const layout: BlockLayout = {
    G,
    k,
    active,
    rest: total - active,
    step,
    fixed: options.fixedKernel === true,
    filter: options.filter !== false,
  };
  const blocks = Math.ceil(active / step);
  const helpers = options.helpers ?? [];
  const signal = options.signal;
  if (helpers.length > 0 && blocks >= 2) {
    scanOnThreads(ctx, layout, blocks, helpers, signal);
    return;
  }
  scanBlocks(ctx, layout, 0, blocks, true, () => {
    throwIfAborted(signal);
    return false;
  });
}

/** The rows of a scan, gathered in scan order (G: total x k), and its row blocks. */
interface BlockLayout {
  readonly G: Float64Array;
  readonly k: number;
  /** Query rows (positions [0, active)) and passive ones after them. */
  readonly active: number;
  readonly rest: number;
  /** Rows per query block. */
  readonly step: number;
  /** Products by gemmABtFixedKernel (PairScanOptions.fixedKernel). */
  readonly fixed: boolean;
  /** Pair loops filtered in the module (PairScanOptions.filter). */
  readonly filter: boolean;
}

/**
 * Query row blocks from..to-1 of a scan (block b: positions b step .. (b + 1) step - 1
 * against every position before them and every passive one). Stops early when `stop`
 * says so. `threads`: whether the block products may use the kernel helpers (not
 * while they run parts of this scan).
 */
function scanBlocks(
  ctx: ScanContext,
  layout: BlockLayout,
  from: number,
  to: number,
  threads: boolean,
  stop: () => boolean,
): void {
  // The filtered loop runs the products on this thread: taken where they would be
  // anyway (inside a split scan, or no helpers to split a product with).
  if (layout.filter && ctx.kind !== 2 && (!threads || kernelHelpers().length === 0)) {
    const arena = wasmArena();
    if (arena !== null && scanBlocksFiltered(arena, ctx, layout, from, to, stop)) return;
  }
  const { G, k, active, rest, step, fixed } = layout;
  const product = (
    m: number,
    n: number,
    A: Float64Array,
    B: Float64Array,
    C: Float64Array,
    ldc: number,
  ) => {
    if (fixed) gemmABtFixedKernel(m, n, k, A, k, B, k, C, ldc);
    else gemmABtExact(m, n, k, A, k, B, k, C, ldc, threads);
  };
  const buf = new Float64Array(Math.min(step, active) * Math.max(active, rest));
  for (let blk = from; blk < to; blk++) {
    if (stop()) return;
    const i0 = blk * step;
    const i1 = Math.min(i0 + step, active);
    const mb = i1 - i0;
    // Pairs among query rows: row a against positions b < a (lower triangle).
    product(mb, i1, G.subarray(i0 * k), G, buf, i1);
    for (let a = i0; a < i1; a++) {
      scanRow(ctx, a, buf, (a - i0) * i1, 0, a, true);
    }
    if (rest > 0) {
      // Query rows against the passive positions: only the query row's heap changes.
      product(mb, rest, G.subarray(i0 * k), G.subarray(active * k), buf, rest);
      for (let a = i0; a < i1; a++) {
        scanRow(ctx, a, buf, (a - i0) * rest, active, rest, false);
      }
    }
  }
}

/**
 * scanBlocks with the rows, their norms, the products and the heaps' worst distances
 * in the module's memory, and each row's pair loop filtered there first (pairs.wat,
 * `pairFilter`): only the positions it writes go through scanRow's tests, in the same
 * order, so the same candidates are pushed in the same order as by scanBlocks' own
 * loop, with the same values (the same products of the same kernel, the same
 * arithmetic); the products are not copied out either. Not for the embedding term
 * (kind 2). The products run on this thread. Returns false, having done nothing, when
 * the module's memory cannot hold the scan.
 *
 * The thresholds: thr[pos] is the worst distance of position pos's heap when it was
 * last read (heaps only tighten, so it never undercuts the live one), refreshed after
 * every push this loop makes into that heap and after each query row's own loop; a
 * row's own threshold is its heap's worst at the start of its loop, which the kernel
 * tightens by the row's own pairs.
 */
function scanBlocksFiltered(
  arena: WasmArena,
  ctx: ScanContext,
  layout: BlockLayout,
  from: number,
  to: number,
  stop: () => boolean,
): boolean {
  const { G, k, active, rest, step, fixed } = layout;
  const { order, gn, heaps, kind, codes, crossOnly, lambda } = ctx;
  const total = active + rest;
  const width = Math.max(active, rest);
  const rowsMax = Math.min(step, active);
  const count = heaps.count;
  const mark = arena.mark();
  let ptrs: number[] | null;
  try {
    ptrs = arena.allocAll([
      total * k,
      total,
      total,
      Math.ceil(total / 2),
      rowsMax * width,
      count,
      Math.ceil(width / 2),
    ]);
  } catch {
    // Pinned by a caller with views in use: the memory may not grow now.
    ptrs = null;
  }
  if (ptrs === null) {
    arena.release(mark);
    return false;
  }
  const [pG, pGn, pThr, pCls, pBuf, pHeap, pOut] = ptrs;
  arena.pin();
  try {
    const Gv = arena.view(pG, total * k);
    Gv.set(G.subarray(0, total * k));
    arena.view(pGn, total).set(gn.subarray(0, total));
    const thr = arena.view(pThr, total);
    const wD = heaps.worstDistance;
    for (let b = 0; b < total; b++) thr[b] = wD[order === null ? b : order[b]];
    if (kind === 1) {
      const cls = new Int32Array(arena.buffer, pCls, total);
      for (let b = 0; b < total; b++) cls[b] = codes[order === null ? b : order[b]];
    }
    const buf = arena.view(pBuf, rowsMax * width);
    const out = new Int32Array(arena.buffer, pOut, width);
    const filterKind = kind === 0 ? 0 : crossOnly ? 2 : 1;
    const pairFilter = arena.kernels.pairFilter;
    // The kernels scanBlocks' products use: gemmABtExact would take the TS kernel for a
    // product too small to copy in, whatever memory its operands are in here.
    const product = (m: number, n: number, A: Float64Array, B: Float64Array, ldc: number) => {
      if (fixed) gemmABtFixedKernel(m, n, k, A, k, B, k, buf, ldc);
      else if (wasmWorthIt(m, n, k)) gemmABtExact(m, n, k, A, k, B, k, buf, ldc, false);
      else gemmABtTs(m, n, k, A, k, B, k, buf, ldc);
    };
    // Row a against positions first .. first + len - 1, whose products are buf[off ..].
    const row = (a: number, off: number, first: number, len: number, both: boolean) => {
      const gi = order === null ? a : order[a];
      const na = gn[a];
      const ci = kind === 1 ? codes[gi] : 0;
      const written = pairFilter(
        pBuf + off * 8,
        pGn + first * 8,
        pThr + first * 8,
        pCls + first * 4,
        len,
        na,
        wD[gi],
        ci,
        lambda,
        filterKind,
        both ? 1 : 0,
        pHeap,
        count,
        pOut,
      );
      // The pair decoding below is scanRow's, written out again on purpose: this is the
      // innermost loop of the filtered scan, where a call per pair would cost.
      for (let t = 0; t < written; t++) {
        const b = out[t];
        const pos = first + b;
        const gj = order === null ? pos : order[pos];
        let l = 0;
        if (kind === 1) {
          const same = codes[gj] === ci;
          if (same && crossOnly) continue;
          l = same ? 0 : 2;
        }
        let p = na + gn[pos] - 2 * buf[off + b];
        if (!(p > 0)) p = 0;
        const d = kind === 0 ? p : p + lambda * l;
        if (pushPair(heaps, gi, gj, d, p, l, both)) thr[pos] = wD[gj];
      }
      if (both) thr[a] = wD[gi];
    };
    for (let blk = from; blk < to; blk++) {
      if (stop()) return true;
      const i0 = blk * step;
      const i1 = Math.min(i0 + step, active);
      const mb = i1 - i0;
      const A = Gv.subarray(i0 * k);
      product(mb, i1, A, Gv, i1);
      for (let a = i0; a < i1; a++) row(a, (a - i0) * i1, 0, a, true);
      if (rest > 0) {
        product(mb, rest, A, Gv.subarray(active * k), rest);
        for (let a = i0; a < i1; a++) row(a, (a - i0) * rest, active, rest, false);
      }
    }
    return true;
  } finally {
    arena.unpin();
    arena.release(mark);
  }
}

/** What a helper gets for its query row blocks of a pair scan (pairScanTask). */
export interface PairScanTaskInput {
  /** The scan without its heaps (the helper offers to heaps of its own). */
  readonly scan: Omit<ScanContext, "heaps">;
  /** G in shared memory. */
  readonly layout: BlockLayout;
  /** Rows of X (the heaps' rows) and candidates kept per row. */
  readonly rows: number;
  readonly count: number;
  readonly from: number;
  readonly to: number;
  readonly cancel: Int32Array;
}

/** The helper side of a pair scan: its query row blocks, into heaps of its own. */
export function pairScanTask(input: PairScanTaskInput): HeapStorage {
  const { from, to, cancel } = input;
  const heaps = new NeighbourHeaps(input.rows, input.count);
  const cancelled = () => Atomics.load(cancel, 0) !== 0;
  scanBlocks({ ...input.scan, heaps }, input.layout, from, to, false, cancelled);
  if (cancelled()) {
    return { size: new Int32Array(0), dist: new Float64Array(0), index: new Int32Array(0) };
  }
  const { size, dist, index, first, second } = heaps;
  return { size, dist, index, first, second };
}

/** The query row blocks split over this thread and the helpers by their pairs (work). */
function scanOnThreads(
  ctx: ScanContext,
  layout: BlockLayout,
  blocks: number,
  helpers: readonly KernelHelper[],
  signal: AbortSignal | undefined,
): void {
  const { step, active, rest } = layout;
  const G = new Float64Array(new SharedArrayBuffer(layout.G.length * 8));
  G.set(layout.G);
  const shared = { ...layout, G };
  const cancel = new Int32Array(new SharedArrayBuffer(4));
  const bounds = balancedBounds(blocks, 1 + helpers.length, (b) => {
    const i1 = Math.min((b + 1) * step, active);
    return (i1 - b * step) * (i1 + rest);
  });
  const { heaps, ...scan } = ctx;
  const { theirs } = alongsideHelpers(
    helpers,
    "pairScan",
    (h): PairScanTaskInput => ({
      scan,
      layout: shared,
      rows: heaps.rows,
      count: heaps.count,
      ...helperPart(bounds, h),
      cancel,
    }),
    cancel,
    () =>
      scanBlocks(ctx, shared, 0, bounds[1], false, () => {
        throwIfAborted(signal);
        return Atomics.load(cancel, 0) !== 0;
      }),
  );
  throwIfAborted(signal);
  for (const part of theirs as HeapStorage[]) heaps.offerAll(part);
}

interface ScanContext {
  readonly order: Int32Array | null;
  readonly gn: Float64Array;
  readonly heaps: NeighbourHeaps;
  /** 0: no second term, 1: class codes, 2: embedding rows. */
  readonly kind: number;
  readonly codes: Int32Array;
  readonly crossOnly: boolean;
  readonly fd: Float64Array;
  readonly fc: number;
  readonly lambda: number;
}

/**
 * Pairs position a with positions first .. first + len - 1, whose dot products with
 * row a are dots[off ..]; offers each to row a's heap and, when `both`, to the other
 * row's heap too.
 */
function scanRow(
  ctx: ScanContext,
  a: number,
  dots: Float64Array,
  off: number,
  first: number,
  len: number,
  both: boolean,
): void {
  const { order, gn, heaps, kind, codes, crossOnly, fd, fc, lambda } = ctx;
  const gi = order === null ? a : order[a];
  const na = gn[a];
  const ci = kind === 1 ? codes[gi] : 0;
  const oi = gi * fc;
  for (let b = 0; b < len; b++) {
    const pos = first + b;
    const gj = order === null ? pos : order[pos];
    let l = 0;
    if (kind === 1) {
      const same = codes[gj] === ci;
      if (same && crossOnly) continue;
      l = same ? 0 : 2;
    }
    let p = na + gn[pos] - 2 * dots[off + b];
    if (!(p > 0)) p = 0;
    if (kind === 2) {
      const oj = gj * fc;
      for (let t = 0; t < fc; t++) {
        const diff = fd[oi + t] - fd[oj + t];
        l += diff * diff;
      }
    }
    const d = kind === 0 ? p : p + lambda * l;
    pushPair(heaps, gi, gj, d, p, l, both);
  }
}

/**
 * Pushes the pair (gi, gj) to row gi's heap and, when `both`, to row gj's, wherever
 * (d, index) beats the heap's worst (ties to the lower index): the heaps' tests of
 * scanRow and of scanBlocksFiltered's loop. Returns whether row gj's heap took it.
 */
function pushPair(
  heaps: NeighbourHeaps,
  gi: number,
  gj: number,
  d: number,
  p: number,
  l: number,
  both: boolean,
): boolean {
  const wD = heaps.worstDistance;
  const wJ = heaps.worstIndex;
  if (d < wD[gi] || (d === wD[gi] && gj < wJ[gi])) heaps.push(gi, d, gj, p, l);
  if (!both || !(d < wD[gj] || (d === wD[gj] && gi < wJ[gj]))) return false;
  heaps.push(gj, d, gi, p, l);
  return true;
}

/**
 * The `count` nearest rows of X to each row i (row i itself excluded, ties to the
 * lower index), by squared Euclidean distance, block by block (memory
 * O(blockRows x n + n x count)). Each pair is computed once and serves both rows,
 * halving the GEMM work.
 */
export function nearestNeighbours(
  X: Matrix,
  count: number,
  { blockRows, signal }: { blockRows?: number; signal?: AbortSignal } = {},
): TwoPartNeighbours {
  const n = X.rows;
  if (!Number.isInteger(count) || count < 1 || count > n - 1) {
    throw new ValidationError(
      "count",
      `The 'count' parameter of nearestNeighbours must be an integer in [1, ${n - 1}] (the other rows of X). Got ${count} instead.`,
    );
  }
  checkFiniteEntries("nearestNeighbours", "X", X);
  const heaps = new NeighbourHeaps(n, count);
  scanNearestPairs(X, squaredRowNorms(X), heaps, { blockRows, ...(signal ? { signal } : {}) });
  return heaps.sorted(0);
}

/**
 * For each row of A (queries), the `count` nearest rows of B (ties to the lower
 * index of B), block by block; the 1-NN classifier uses count = 1.
 */
export function crossNearestNeighbours(
  A: Matrix,
  B: Matrix,
  count: number,
  { blockRows }: { blockRows?: number } = {},
): { rows: number; count: number; indices: Int32Array; distances: Float64Array } {
  if (!Number.isInteger(count) || count < 1 || count > B.rows) {
    throw new ValidationError(
      "count",
      `The 'count' parameter of crossNearestNeighbours must be an integer in [1, ${B.rows}] (the rows of B). Got ${count} instead.`,
    );
  }
  checkFiniteEntries("crossNearestNeighbours", "A", A);
  checkFiniteEntries("crossNearestNeighbours", "B", B);
  const heaps = new NeighbourHeaps(A.rows, count);
  const nb = B.rows;
  forEachCrossDistanceBlock(
    A,
    B,
    (i0, i1, block) => {
      for (let i = i0; i < i1; i++) {
        const off = (i - i0) * nb;
        for (let j = 0; j < nb; j++) {
          const d = block[off + j];
          if (!heaps.rejects(i, d, j)) heaps.push(i, d, j, d, 0);
        }
      }
    },
    { blockRows },
  );
  const s = heaps.sorted(0);
  return { rows: s.rows, count, indices: s.indices, distances: s.distances };
}
