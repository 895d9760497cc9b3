/**
 * The rank control's "test" decision from bounds, without an eigen-solve of L.
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
 * the exact eigenvalues give; otherwise the caller solves exactly as before. "double"
 * and "halve" are never decided here (L_w has c zero eigenvalues, so it gives no lower
 * bound on S_c; "halve" needs more than c components, which the exact path finds
 * without a solve).
 */
import { symmetricEigen } from "../linalg/eigen/symmetricEigen.js";
import { Matrix } from "../linalg/matrix.js";
import type { CsrMatrix } from "../linalg/sparse.js";

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
  const margin = 1e-10 * tol + 64 * n * Number.EPSILON * maxDegree;
  return bounds.upperFirst + margin < tol && bounds.lowerFirstPlusOne - margin > tol;
}
