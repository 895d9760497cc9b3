/**
 * The rank control's "test" and "double" decisions from bounds, without an
 * eigen-solve of L.
 *
 * SDSPCAAN's rank control (rankControl.ts) compares S_c = e_1 + ... + e_c and
 * S_(c+1) = S_c + e_(c+1), sums of the smallest eigenvalues of the graph Laplacian L,
 * with tol. Once lambda has pulled the graph towards one component per class, nearly
 * every iteration ends in "test" (S_c <= tol <= S_(c+1)); on a YaleB training split
 * (k = 100) that was 131 of 190 iterations, each paying a dense eigen-solve of the
 * whole n x n L: a quarter of the fit. Two bounds settle "test" from the class
 * structure alone:
 *
 * - Upper bound of S_c (Ky Fan: the sum of the c smallest eigenvalues is at most
 *   Tr(V^T L V) for any n x c V with orthonormal columns). With V the normalised class
 *   indicators, Tr(V^T L V) = sum over classes of cut(C_k) / |C_k|, where cut(C_k) is
 *   the weight of the edges leaving class k: O(nnz) work.
 * - Lower bound of S_(c+1) (Weyl: adding a positive semidefinite matrix raises every
 *   eigenvalue). L = L_w + L_x, where L_w is the Laplacian of the within-class edges
 *   and L_x that of the cross-class ones, which is positive semidefinite. So
 *   e_i(L) >= e_i(L_w) for every i, and L_w is block diagonal by class: its smallest
 *   eigenvalues come from dense solves of blocks of the class sizes.
 *
 * When both settle with a margin for round-off, the decision is "test", the decision
 * the exact eigenvalues give; otherwise the caller solves exactly as before.
 *
 * "double" (S_c > tol) needs a lower bound of S_c; L_w gives none (it has c zeros).
 * Where a class has a single training sample (Yale, ORL, Palm: every split) the graph
 * can never have c components and every rank control is "double", each a solve of L.
 * `pathLowerBoundFirst` bounds S_c from below by paths: drop the negligible edges
 * (removing edges subtracts a positive semidefinite Laplacian, so no eigenvalue
 * rises), then in each remaining component C, for x orthogonal to the constants with
 * ||x|| = 1 and any node r, sum over u of (x_u - x_r)^2 = 1 + s x_r^2 >= 1; along the
 * shortest path from u to r (edge lengths 1/w_e, length d(u)), Cauchy-Schwarz gives
 * (x_u - x_r)^2 <= d(u) x^T L x. So every positive eigenvalue of C is at least
 * 1 / sum over u of d(u): one Dijkstra from r (the node of largest degree). The c
 * smallest eigenvalues are the components' zeros and the smallest positive ones: S_c
 * is at least the sum of the c - p smallest of those bounds, each component counted
 * s - 1 times.
 * "halve" is never decided here: it needs more than c components, which the exact
 * path finds without a solve.
 */

import { Matrix } from "../core/matrix.js";
import { maxAbs } from "../linalg/basic.js";
import { symmetricEigen } from "../linalg/eigen/symmetricEigen.js";
import type { CsrMatrix } from "../linalg/sparse.js";
import type { RankControlAction } from "./rankControl.js";

/**
 * Classes larger than this are not solved as blocks (their dense solves would cost
 * about as much as the exact solve the bounds are meant to save).
 */
export const MAX_CLASS_BLOCK = 400;

/** Upper bound of S_c and lower bound of S_(c+1) (see the file comment). */
export interface RankBounds {
  readonly upperFirst: number;
  readonly lowerFirstPlusOne: number;
}

/**
 * The bounds for the Laplacian L (symmetric, CSR, off-diagonal entries -w_ij) of a
 * graph on rows with class codes 0..c-1; null when a class is larger than
 * MAX_CLASS_BLOCK or absent.
 */
export function classRankBounds(L: CsrMatrix, codes: Int32Array, c: number): RankBounds | null {
  const n = L.rows;
  const sizes = new Int32Array(c);
  for (let i = 0; i < n; i++) sizes[codes[i]]++;
  for (let k = 0; k < c; k++) if (sizes[k] === 0 || sizes[k] > MAX_CLASS_BLOCK) return null;
  // Members of each class in row order, and each row's position within its class.
  const start = new Int32Array(c + 1);
  for (let k = 0; k < c; k++) start[k + 1] = start[k] + sizes[k];
  const members = new Int32Array(n);
  const local = new Int32Array(n);
  const fill = start.slice(0, c);
  for (let i = 0; i < n; i++) {
    const k = codes[i];
    local[i] = fill[k] - start[k];
    members[fill[k]++] = i;
  }
  const { rowPtr, colIdx, values } = L;
  const cut = new Float64Array(c);
  const candidates: number[] = [];
  for (let k = 0; k < c; k++) {
    const size = sizes[k];
    if (size === 1) {
      candidates.push(0);
      for (let p = rowPtr[members[start[k]]]; p < rowPtr[members[start[k]] + 1]; p++) {
        if (colIdx[p] !== members[start[k]]) cut[k] -= values[p];
      }
      continue;
    }
    // L_w's block: within-class weights off the diagonal, within-class degree on it.
    const block = new Matrix(size, size);
    const b = block.data;
    for (let t = 0; t < size; t++) {
      const i = members[start[k] + t];
      for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) {
        const j = colIdx[p];
        if (j === i) continue;
        const w = -values[p];
        if (codes[j] === k) {
          b[t * size + local[j]] = -w;
          b[t * size + t] += w;
        } else {
          cut[k] += w;
        }
      }
    }
    const want = Math.min(size, c + 1);
    const eig = symmetricEigen(block, { select: { smallest: want }, vectors: false });
    for (let t = 0; t < want; t++) candidates.push(eig.values[t]);
  }
  candidates.sort((x, y) => x - y);
  let lowerFirstPlusOne = 0;
  for (let t = 0; t <= c && t < candidates.length; t++) lowerFirstPlusOne += candidates[t];
  let upperFirst = 0;
  for (let k = 0; k < c; k++) upperFirst += cut[k] / sizes[k];
  return { upperFirst, lowerFirstPlusOne };
}

/**
 * True when the bounds prove S_c <= tol <= S_(c+1) with room for round-off in the
 * exact eigenvalues (relative 1e-10 of tol, plus n eps times L's largest degree).
 */
export function provesTest(
  bounds: RankBounds | null,
  tol: number,
  n: number,
  maxDegree: number,
): boolean {
  if (bounds === null) return false;
  const margin = roundingMargin(tol, n, maxDegree);
  return bounds.upperFirst + margin < tol && bounds.lowerFirstPlusOne - margin > tol;
}

/** How far the exact eigenvalue sums may be from tol and still be round-off. */
function roundingMargin(tol: number, n: number, maxDegree: number): number {
  return 1e-10 * tol + 64 * n * Number.EPSILON * maxDegree;
}

/** Edges lighter than this times the heaviest one are dropped for the path bound. */
const NEGLIGIBLE_EDGE = 1e-8;

/** Lower bound of S_c by path resistances (see the file comment); 0 when none. */
export function pathLowerBoundFirst(L: CsrMatrix, c: number): number {
  const n = L.rows;
  const { rowPtr, colIdx, values } = L;
  let maxWeight = 0;
  for (let p = 0; p < rowPtr[n]; p++) if (-values[p] > maxWeight) maxWeight = -values[p];
  if (!(maxWeight > 0)) return 0;
  const floor = NEGLIGIBLE_EDGE * maxWeight;
  const kept = (p: number, i: number) => colIdx[p] !== i && -values[p] >= floor;
  // Components of the kept edges, by breadth-first search.
  const component = new Int32Array(n).fill(-1);
  const order = new Int32Array(n);
  const starts: number[] = [];
  let filled = 0;
  for (let r = 0; r < n; r++) {
    if (component[r] >= 0) continue;
    const id = starts.length;
    starts.push(filled);
    component[r] = id;
    order[filled++] = r;
    for (let head = starts[id]; head < filled; head++) {
      const i = order[head];
      for (let p = rowPtr[i]; p < rowPtr[i + 1]; p++) {
        const j = colIdx[p];
        if (kept(p, i) && component[j] < 0) {
          component[j] = id;
          order[filled++] = j;
        }
      }
    }
  }
  starts.push(n);
  const p = starts.length - 1;
  if (p >= c) return 0;
  // Each component's bound 1 / sum_u d(u), from r its node of largest weighted degree.
  const dist = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
  // Popped once each: the heap is lazy (a node may be in it more than once).
  const done = new Uint8Array(n);
  const heap = new MinHeap(n);
  const bounds: { value: number; count: number }[] = [];
  for (let id = 0; id < p; id++) {
    const s = starts[id + 1] - starts[id];
    if (s === 1) continue;
    let root = order[starts[id]];
    let best = -1;
    for (let t = starts[id]; t < starts[id + 1]; t++) {
      const i = order[t];
      let degree = 0;
      for (let q = rowPtr[i]; q < rowPtr[i + 1]; q++) if (kept(q, i)) degree -= values[q];
      if (degree > best) {
        best = degree;
        root = i;
      }
    }
    dist[root] = 0;
    heap.push(root, 0);
    let total = 0;
    while (heap.size > 0) {
      const i = heap.pop();
      const di = dist[i];
      if (done[i] === 1) continue;
      done[i] = 1;
      total += di;
      for (let q = rowPtr[i]; q < rowPtr[i + 1]; q++) {
        if (!kept(q, i)) continue;
        const j = colIdx[q];
        const dj = di + 1 / -values[q];
        if (dj < dist[j]) {
          dist[j] = dj;
          heap.push(j, dj);
        }
      }
    }
    bounds.push({ value: 1 / total, count: s - 1 });
  }
  bounds.sort((a, b) => a.value - b.value);
  let need = c - p;
  let sum = 0;
  for (const b of bounds) {
    const take = Math.min(need, b.count);
    sum += take * b.value;
    need -= take;
    if (need === 0) break;
  }
  return need === 0 ? sum : 0;
}

/**
 * The rank control's decision when bounds prove it, else null: "test" from the class
 * bounds, "double" from the path bound, each tried first where the previous decision
 * was the same (they are cheap next to a solve of L, but not free).
 */
export function provenRankDecision(
  L: CsrMatrix,
  codes: Int32Array,
  c: number,
  tol: number,
  previous: RankControlAction | null,
): RankControlAction | null {
  if (previous === null || previous === "halve") return null;
  const n = L.rows;
  // A Laplacian's diagonal holds the degrees (non-negative).
  const maxDegree = maxAbs(L.diagonal());
  if (previous === "test")
    return provesTest(classRankBounds(L, codes, c), tol, n, maxDegree) ? "test" : null;
  return pathLowerBoundFirst(L, c) - roundingMargin(tol, n, maxDegree) > tol ? "double" : null;
}

/** A binary min-heap of node indices by key (lazy: a node may be pushed again with a smaller key). */
class MinHeap {
  private nodes: Int32Array;
  private keys: Float64Array;
  size = 0;

  constructor(capacity: number) {
    this.nodes = new Int32Array(Math.max(capacity, 1));
    this.keys = new Float64Array(Math.max(capacity, 1));
  }

  push(node: number, key: number): void {
    if (this.size === this.nodes.length) {
      const nodes = new Int32Array(2 * this.size);
      nodes.set(this.nodes);
      const keys = new Float64Array(2 * this.size);
      keys.set(this.keys);
      this.nodes = nodes;
      this.keys = keys;
    }
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.keys[parent] <= key) break;
      this.nodes[i] = this.nodes[parent];
      this.keys[i] = this.keys[parent];
      i = parent;
    }
    this.nodes[i] = node;
    this.keys[i] = key;
  }

  /** Removes and returns the node of smallest key. */
  pop(): number {
    const top = this.nodes[0];
    const node = this.nodes[--this.size];
    const key = this.keys[this.size];
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && this.keys[child + 1] < this.keys[child]) child++;
      if (this.keys[child] >= key) break;
      this.nodes[i] = this.nodes[child];
      this.keys[i] = this.keys[child];
      i = child;
    }
    this.nodes[i] = node;
    this.keys[i] = key;
    return top;
  }
}
