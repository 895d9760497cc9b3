/**
 * An exact k-d tree for the nearest-neighbour searches of the adaptive graph on the
 * projected data P (n x k, k small: the subspace dimension). A search offers rows to
 * the bounded heaps of `distances.ts` and skips a subtree only when every row in it
 * is provably rejected by the heap, so the result is the brute-force search's (the
 * same ranking by (d, index)), at a cost far below n^2 k when k is small.
 *
 * Distances are computed in the Gram form ||p_i||^2 + ||p_j||^2 - 2 p_i.p_j (clipped
 * at 0), as the block search computes them, so both searches give the same values up
 * to the last bits of the dot product's summation order.
 *
 * The pruning bound. For a box B, b = sum_t gap_t^2 (gap_t = distance of p_i to B
 * along axis t) is a lower bound of the true ||p_i - p_j||^2 for every row j in B.
 * The Gram-form value of a row differs from the true one by at most about (k + 4) u
 * (||p_i||^2 + ||p_j||^2) and b itself is rounded by k u relative; BOUND_SLACK times
 * (||p_i||^2 + max_j ||p_j||^2) covers both with a wide margin. With P_lo = b (1 -
 * 1e-12) - slack every computed p_j in B is >= P_lo, and since rounding is monotone
 * every computed d_j = fl(p_j + lambda l) >= fl(P_lo + lambda l): when that exceeds
 * the heap's worst distance, no row of B can enter the heap.
 */

import type { Matrix } from "../core/matrix.js";
import type { NeighbourHeaps } from "../linalg/kernels/neighbourHeaps.js";

/** Rows per leaf. */
const LEAF_SIZE = 24;
/** Relative slack of the pruning bound (see the file comment). */
const BOUND_SLACK = 1e-10;

/** A k-d tree over a subset of the rows of P. */
export class KdTree {
  readonly P: Matrix;
  /** Global row indices, permuted so that every node holds a contiguous range. */
  readonly rows: Int32Array;
  private readonly start: number[] = [];
  private readonly end: number[] = [];
  private readonly left: number[] = [];
  private readonly right: number[] = [];
  /** Per node, k lower then k upper bounds of its box. */
  private readonly box: number[] = [];
  /** Largest ||p_j||^2 over the tree's rows. */
  readonly maxNorm: number;
  private readonly norms: Float64Array;
  /** Search stack (depth <= 2 log2(n / LEAF_SIZE) + 2 entries are ever live). */
  private readonly stack = new Int32Array(256);

  /** Builds the tree over `rows` (global indices into P); `norms` = squared row norms of P. */
  constructor(P: Matrix, norms: Float64Array, rows: Int32Array) {
    this.P = P;
    this.norms = norms;
    this.rows = Int32Array.from(rows);
    let maxNorm = 0;
    for (const r of rows) if (norms[r] > maxNorm) maxNorm = norms[r];
    this.maxNorm = maxNorm;
    if (rows.length > 0) this.build(0, rows.length);
  }

  /** The tree's rows in leaf order: queries in this order reuse the same nodes in turn. */
  get leafOrder(): Int32Array {
    return this.rows;
  }

  private build(lo: number, hi: number): number {
    const k = this.P.cols;
    const data = this.P.data;
    const id = this.start.length;
    this.start.push(lo);
    this.end.push(hi);
    this.left.push(-1);
    this.right.push(-1);
    const boxAt = this.box.length;
    for (let t = 0; t < 2 * k; t++) this.box.push(0);
    let bestAxis = 0;
    let bestSpread = -1;
    for (let t = 0; t < k; t++) {
      let mn = Number.POSITIVE_INFINITY;
      let mx = Number.NEGATIVE_INFINITY;
      for (let a = lo; a < hi; a++) {
        const v = data[this.rows[a] * k + t];
        if (v < mn) mn = v;
        if (v > mx) mx = v;
      }
      this.box[boxAt + t] = mn;
      this.box[boxAt + k + t] = mx;
      if (mx - mn > bestSpread) {
        bestSpread = mx - mn;
        bestAxis = t;
      }
    }
    if (hi - lo > LEAF_SIZE && bestSpread > 0) {
      const mid = (lo + hi) >> 1;
      this.select(lo, hi, mid, bestAxis);
      const l = this.build(lo, mid);
      const r = this.build(mid, hi);
      this.left[id] = l;
      this.right[id] = r;
    }
    return id;
  }

  /** Quickselect: rows[lo..hi) partitioned so that rows[mid] has the median coordinate. */
  private select(lo: number, hi: number, mid: number, axis: number): void {
    const k = this.P.cols;
    const data = this.P.data;
    const rows = this.rows;
    let a = lo;
    let b = hi - 1;
    while (a < b) {
      const pivot = data[rows[(a + b) >> 1] * k + axis];
      let i = a;
      let j = b;
      while (i <= j) {
        while (data[rows[i] * k + axis] < pivot) i++;
        while (data[rows[j] * k + axis] > pivot) j--;
        if (i <= j) {
          const t = rows[i];
          rows[i] = rows[j];
          rows[j] = t;
          i++;
          j--;
        }
      }
      if (mid <= j) b = j;
      else if (mid >= i) a = i;
      else return;
    }
  }

  /**
   * Offers to row i's heap every row j of the tree (j != i) that could enter it, with
   * d = p_ij + lambda l, l = `secondPart` for every row of this tree (0 within the
   * query's class, 2 across).
   */
  search(i: number, heaps: NeighbourHeaps, lambda: number, secondPart: number): void {
    if (this.rows.length === 0) return;
    const k = this.P.cols;
    const data = this.P.data;
    const norms = this.norms;
    const ni = norms[i];
    const offI = i * k;
    const slack = BOUND_SLACK * (ni + this.maxNorm);
    const extra = lambda * secondPart;
    const stack = this.stack;
    let top = 0;
    stack[top++] = 0;
    const wD = heaps.worstDistance;
    const box = this.box;
    while (top > 0) {
      const node = stack[--top];
      // Lower bound of the squared distance from p_i to the node's box.
      const boxAt = node * 2 * k;
      let bound = 0;
      for (let t = 0; t < k; t++) {
        const v = data[offI + t];
        const mn = box[boxAt + t];
        const mx = box[boxAt + k + t];
        const gap = v < mn ? mn - v : v > mx ? v - mx : 0;
        bound += gap * gap;
      }
      if (heaps.size[i] === heaps.count) {
        const lo = bound * (1 - 1e-12) - slack;
        if (Math.max(lo, 0) + extra > wD[i]) continue;
      }
      const l = this.left[node];
      if (l < 0) {
        for (let a = this.start[node]; a < this.end[node]; a++) {
          const j = this.rows[a];
          if (j === i) continue;
          const offJ = j * k;
          let s = 0;
          for (let t = 0; t < k; t++) s += data[offI + t] * data[offJ + t];
          let p = ni + norms[j] - 2 * s;
          if (!(p > 0)) p = 0;
          heaps.offer(i, p + extra, j, p, secondPart);
        }
        continue;
      }
      // Visit the nearer child first (pushed last).
      const r = this.right[node];
      if (this.nearerIsLeft(i, l, r)) {
        stack[top++] = r;
        stack[top++] = l;
      } else {
        stack[top++] = l;
        stack[top++] = r;
      }
    }
  }

  private nearerIsLeft(i: number, l: number, r: number): boolean {
    const k = this.P.cols;
    const data = this.P.data;
    let dl = 0;
    let dr = 0;
    for (let t = 0; t < k; t++) {
      const v = data[i * k + t];
      const gl = boxGap(this.box, l * 2 * k, k, t, v);
      const gr = boxGap(this.box, r * 2 * k, k, t, v);
      dl += gl * gl;
      dr += gr * gr;
    }
    return dl <= dr;
  }
}

/**
 * How far v lies outside [min, max] of coordinate t of the box at `at` (its k minima,
 * then its k maxima): 0 inside.
 */
function boxGap(box: readonly number[], at: number, k: number, t: number, v: number): number {
  const min = box[at + t];
  const max = box[at + k + t];
  return v < min ? min - v : v > max ? v - max : 0;
}
