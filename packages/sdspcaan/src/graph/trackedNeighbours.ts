/**
 * Step 1 of the labelled neighbour search (neighbours.ts: each row's `count` nearest
 * same-class rows) across the outer iterations of one fit, without rescanning the
 * rows whose answer provably has not changed.
 *
 * Why. Late in an SDSPCAAN fit the projected rows P = X X^T Q move very little from
 * one outer iteration to the next, yet the block scans visit every same-class pair
 * (sum_c n_c^2 k / 2 products and as many heap offers): about 4 s of a 21 s outer
 * iteration on 60,000 Fashion-MNIST images with k = 50.
 *
 * How, exactly. Each row keeps a list of its `width` (> count) nearest same-class rows
 * from the last scan that visited it, and a lower bound r_i on its distance to every
 * same-class row outside the list (from the width-th distance of that scan).
 * - Motion. When P changes, each row moves by delta_i = ||p_i - s (.) p_i^old||, with
 *   s the column signs that best align the old P with the new (eigenvectors' signs are
 *   arbitrary; flipping columns changes no distance). By the triangle inequality, for
 *   every j outside i's list, ||p_i - p_j|| >= r_i - delta_i - delta_j >= r_i -
 *   delta_i - max delta over i's class: that is the new r_i.
 * - Certificate. The new distances to the listed rows are computed exactly as the
 *   block scan computes them (p = ||p_i||^2 + ||p_j||^2 - 2 p_i.p_j clipped at 0, the
 *   dot by the GEMM kernel a large scan uses, gemmABtFixedKernel, whose entries have
 *   the same bits whatever the product's shape). If the count-th smallest, tau_i, is
 *   below r_i^2 by more than the rounding of a computed p (the same slack as
 *   clusterScan.ts), no row outside the list can enter i's heap: its answer is the
 *   count smallest (d, index) of its list, which are offered to the heaps.
 * - Otherwise the row is rescanned against its whole class (one block scan per class
 *   over its uncertified rows, which are the scan's query rows), into heaps of the
 *   list width; the list and r_i are renewed from them, and their count smallest are
 *   offered to the heaps.
 * - Lists cost: a scan into heaps of twice the count takes about twice as long. So they
 *   are made only once the rows have settled: when the median over rows of delta_i,
 *   relative to the row's count-th same-class distance, is at most
 *   LIST_MAX_RELATIVE_MOVE. While the rows move more (the first search, and lambda's
 *   doublings early in a fit), the uncertified rows are rescanned straight into the
 *   heaps and keep no list.
 * Every row so meets exactly the candidates the full scan would keep, with the same
 * distances, so the heaps end as step 1 leaves them. A class with at most width + 1
 * members lists all its other rows (r_i = infinity) and is never scanned.
 */
import { throwIfAborted, ValidationError } from "../core/errors.js";
import type { Matrix } from "../core/matrix.js";
import { scanNearestPairs } from "../linalg/kernels/distances.js";
import { gemmABtFixedKernel } from "../linalg/kernels/gemm.js";
import type { KernelHelper } from "../linalg/kernels/helper.js";
import { NeighbourHeaps } from "../linalg/kernels/neighbourHeaps.js";
import { classOrder, queryRowsFirst } from "./rowOrder.js";

/** Unit roundoff of double precision. */
const U = 2 ** -53;
/** Multiple of (k + 4) u max ||p_i||^2 allowed for the rounding of one computed p_ij (as clusterScan.ts). */
const SLACK = 16;

/** How many same-class rows each row lists, as a multiple of the heap's count. */
export const TRACKED_WIDTH_FACTOR = 2;

/**
 * Rows are rescanned into lists (heaps of the list width, which cost about 1.5 times
 * a scan into heaps of the count) only while the rows move little: when the median
 * over rows of delta_i / sqrt(p_i), p_i the row's count-th same-class distance at the
 * last search, is at most this. Above, few rows could be certified next time, and
 * their rescans keep heaps of the count and no lists. Measured on Fashion-MNIST's
 * 60,000 images in 50 PCA dimensions with scripts/dev/trackedSearchCost.ts at commit
 * 285e458.
 */
export const LIST_MAX_RELATIVE_MOVE = 0.01;

export interface TrackedSearchOptions {
  readonly blockRows?: number;
  readonly helpers?: readonly KernelHelper[];
  readonly signal?: AbortSignal;
}

/** What the tracker did over its searches (rows summed over searches). */
export interface TrackedNeighbourStats {
  searches: number;
  /** Rows whose answer came from their list. */
  rowsCertified: number;
  /** Rows scanned against their whole class. */
  rowsScanned: number;
  /** Searches whose rescans renewed the rows' lists (the rows moved little). */
  listSearches: number;
  /** The last search's median relative move (NaN when unknown). */
  relativeMove: number;
}

/**
 * Keeps, for one set of class codes, what the next within-class search needs: the
 * last P, each row's list and bound. One tracker per fit (its rows' classes never change).
 */
export class WithinClassNeighbourTracker {
  readonly count: number;
  readonly width: number;
  readonly stats: TrackedNeighbourStats = {
    searches: 0,
    rowsCertified: 0,
    rowsScanned: 0,
    listSearches: 0,
    relativeMove: Number.NaN,
  };
  private readonly codes: Int32Array;
  private readonly start: Int32Array;
  private readonly byClass: Int32Array;
  /** Row i's list: lists[i * width .. i * width + listSize[i]). */
  private readonly lists: Int32Array;
  private readonly listSize: Int32Array;
  /** Lower bound of ||p_i - p_j|| for same-class j outside i's list (NaN: no list yet). */
  private readonly bound: Float64Array;
  /** P at the last search (n x its columns). */
  private previous: Float64Array | null = null;
  /** sqrt of each row's count-th same-class distance at the last search (NaN: unknown). */
  private readonly scale: Float64Array;

  constructor(codes: Int32Array, classes: number, count: number) {
    if (!Number.isInteger(count) || count < 1) {
      throw new ValidationError(
        "count",
        `The 'count' parameter of WithinClassNeighbourTracker must be a positive integer. Got ${count} instead.`,
      );
    }
    const n = codes.length;
    this.codes = codes;
    this.count = count;
    this.width = TRACKED_WIDTH_FACTOR * count;
    const { start, byClass } = classOrder(codes, classes);
    this.start = start;
    this.byClass = byClass;
    this.lists = new Int32Array(n * this.width);
    this.listSize = new Int32Array(n);
    this.bound = new Float64Array(n).fill(Number.NaN);
    this.scale = new Float64Array(n).fill(Number.NaN);
  }

  /**
   * Offers each row of P its `count` nearest same-class rows (all of them in a class
   * with at most `count` other rows) to `heaps`, as step 1 of labelledNeighbours does.
   * `norms` are squaredRowNorms(P).
   */
  fill(
    P: Matrix,
    norms: Float64Array,
    heaps: NeighbourHeaps,
    options: TrackedSearchOptions = {},
  ): void {
    const n = this.codes.length;
    const k = P.cols;
    if (P.rows !== n || heaps.rows !== n || norms.length !== n) {
      throw new ValidationError(
        "P",
        `WithinClassNeighbourTracker was made for ${n} rows; got P with ${P.rows}, heaps with ${heaps.rows} and ${norms.length} norms.`,
      );
    }
    if (heaps.count !== this.count) {
      throw new ValidationError(
        "heaps",
        `WithinClassNeighbourTracker keeps ${this.count} candidates a row; got heaps of ${heaps.count}.`,
      );
    }
    this.stats.searches++;
    const { start, byClass, lists, listSize, bound, width } = this;
    const classes = start.length - 1;
    const motion = this.motion(P, norms);
    const relativeMove = motion === null ? Number.NaN : this.medianRelativeMove(motion);
    this.stats.relativeMove = relativeMove;
    // Lists only pay once the rows have settled (LIST_MAX_RELATIVE_MOVE).
    const keepLists = relativeMove <= LIST_MAX_RELATIVE_MOVE;
    if (keepLists) this.stats.listSearches++;
    let maxNorm = 0;
    for (let i = 0; i < n; i++) if (norms[i] > maxNorm) maxNorm = norms[i];
    const slack = SLACK * (k + 4) * U * maxNorm;
    const data = P.data;
    const panel = new Float64Array(width * k);
    const dots = new Float64Array(width);
    const d = new Float64Array(width);
    const sorted = new Float64Array(width);
    let wide: NeighbourHeaps | null = null;

    // Rows order[0 .. active) against all of order, every product by the fixed kernel.
    const scan = (into: NeighbourHeaps, order: Int32Array, active: number) =>
      scanNearestPairs(P, norms, into, {
        order,
        active,
        fixedKernel: true,
        blockRows: options.blockRows,
        ...(options.helpers ? { helpers: options.helpers } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    for (let c = 0; c < classes; c++) {
      const members = byClass.subarray(start[c], start[c + 1]);
      const size = members.length;
      if (size < 2) continue;
      throwIfAborted(options.signal);
      let classMotion = 0;
      if (motion !== null) for (const i of members) classMotion = Math.max(classMotion, motion[i]);
      const uncertified: number[] = [];
      for (const i of members) {
        if (size - 1 <= width && listSize[i] === 0) this.listWholeClass(i, members);
        const len = listSize[i];
        if (len === 0 || motion === null) {
          uncertified.push(i);
          continue;
        }
        // Distances to the listed rows, as the block scan computes them.
        const base = i * width;
        for (let t = 0; t < len; t++) {
          const j = lists[base + t];
          panel.set(data.subarray(j * k, (j + 1) * k), t * k);
        }
        gemmABtFixedKernel(1, len, k, data.subarray(i * k, (i + 1) * k), k, panel, k, dots, len);
        for (let t = 0; t < len; t++) {
          let p = norms[i] + norms[lists[base + t]] - 2 * dots[t];
          if (!(p > 0)) p = 0;
          d[t] = p;
        }
        const r = bound[i];
        let ok = r === Number.POSITIVE_INFINITY;
        let next = r;
        if (!ok && len >= this.count) {
          next = r - motion[i] - classMotion;
          sorted.set(d.subarray(0, len));
          const tau = sorted.subarray(0, len).sort()[this.count - 1];
          ok = next > 0 && next * next * (1 - 8 * U) - slack > tau;
        }
        if (!ok) {
          uncertified.push(i);
          continue;
        }
        bound[i] = next;
        for (let t = 0; t < len; t++) heaps.offer(i, d[t], lists[base + t], d[t], 0);
      }
      this.stats.rowsCertified += size - uncertified.length;
      if (uncertified.length === 0) continue;
      this.stats.rowsScanned += uncertified.length;
      if (size - 1 <= width) {
        // Small class: every row lists the whole class; scan it as step 1 does.
        scan(heaps, members, members.length);
        for (const i of members) bound[i] = Number.POSITIVE_INFINITY;
        continue;
      }
      // The uncertified rows first (the scan's query rows), then the rest of the class.
      const scanOrder = queryRowsFirst(uncertified, members, n);
      if (!keepLists) {
        // The rows still move too much for lists to pay: rescan into the heaps directly.
        scan(heaps, scanOrder, uncertified.length);
        for (const i of uncertified) {
          listSize[i] = 0;
          bound[i] = Number.NaN;
        }
        continue;
      }
      if (wide === null) wide = new NeighbourHeaps(n, width);
      scan(wide, scanOrder, uncertified.length);
      for (const i of uncertified) {
        const base = i * width;
        const len = wide.size[i];
        for (let t = 0; t < len; t++) {
          const j = wide.index[base + t];
          const p = wide.dist[base + t];
          lists[base + t] = j;
          heaps.offer(i, p, j, p, 0);
        }
        listSize[i] = len;
        // Every same-class row outside the list has a computed p >= the width-th one.
        const w = wide.worstDistance[i];
        bound[i] = Math.sqrt(Math.max(w - slack, 0)) * (1 - 4 * U);
      }
    }
    for (let i = 0; i < n; i++) {
      this.scale[i] = heaps.size[i] === this.count ? Math.sqrt(heaps.worstDistance[i]) : Number.NaN;
    }
    if (this.previous === null || this.previous.length !== data.length) {
      this.previous = new Float64Array(data.length);
    }
    this.previous.set(data);
  }

  /** The median over rows of delta_i / scale_i (rows with a known, positive scale). */
  private medianRelativeMove(motion: Float64Array): number {
    const ratios: number[] = [];
    for (let i = 0; i < motion.length; i++) {
      const s = this.scale[i];
      if (s > 0) ratios.push(motion[i] / s);
    }
    if (ratios.length === 0) return Number.NaN;
    ratios.sort((a, b) => a - b);
    return ratios[ratios.length >> 1];
  }

  /** Lists every other member of i's class (a class of at most width + 1 rows). */
  private listWholeClass(i: number, members: Int32Array): void {
    const base = i * this.width;
    let len = 0;
    for (const j of members) if (j !== i) this.lists[base + len++] = j;
    this.listSize[i] = len;
    this.bound[i] = Number.POSITIVE_INFINITY;
  }

  /**
   * delta_i = ||p_i - s (.) p_i^old|| with s the column signs that align the last P
   * with this one, rounded up; null on the first search or when P's width changed (its
   * rows never do). `norms` are squaredRowNorms(P).
   */
  private motion(P: Matrix, norms: Float64Array): Float64Array | null {
    const old = this.previous;
    const k = P.cols;
    if (old === null || old.length !== P.data.length) return null;
    const n = P.rows;
    const data = P.data;
    const sign = new Float64Array(k);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < k; j++) sign[j] += old[i * k + j] * data[i * k + j];
    }
    for (let j = 0; j < k; j++) sign[j] = sign[j] < 0 ? -1 : 1;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < k; j++) {
        const diff = data[i * k + j] - sign[j] * old[i * k + j];
        s += diff * diff;
      }
      // Rounded up: the sum's relative error is below (k + 2) u, and a few ulps of ||p_i||.
      out[i] = Math.sqrt(s * (1 + (k + 4) * U)) * (1 + 4 * U) + 8 * U * Math.sqrt(norms[i]);
    }
    return out;
  }
}
