/**
 * Symmetrising S, the graph Laplacian L = diag(S 1) - S (Algorithms 2 and 3, the
 * first two lines of the loop), and the graph terms of the objectives, all sparse.
 */
import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { type WasmArena, wasmArena } from "../linalg/kernels/wasm/backend.js";
import { CsrMatrix } from "../linalg/sparse.js";
import { checkClassCodes } from "./neighbours.js";

function requireSquare(owner: string, S: CsrMatrix): void {
  if (S.rows !== S.cols) {
    throw new ValidationError(
      "S",
      `The 'S' parameter of ${owner} must be a square matrix. Got ${S.rows} x ${S.cols} instead.`,
    );
  }
}

/** A square S, and the matrix `name` with one row per graph node. */
function requireNodeRows(owner: string, S: CsrMatrix, name: string, M: Matrix): void {
  requireSquare(owner, S);
  if (M.rows !== S.rows) {
    throw new ValidationError(
      name,
      `The '${name}' parameter of ${owner} must have ${S.rows} rows (one per graph node). Got ${M.rows} instead.`,
    );
  }
}

/**
 * S <- (S + S^T) / 2, exactly symmetric. With m non-zeros per row of S the result has
 * at most 2mn non-zeros (2m per row on average; a node chosen by many rows has more).
 */
export function symmetrizeGraph(S: CsrMatrix): CsrMatrix {
  requireSquare("symmetrizeGraph", S);
  return S.symmetricPart();
}

/** Degrees S 1 (row sums). */
export function graphDegrees(S: CsrMatrix): Float64Array {
  requireSquare("graphDegrees", S);
  return S.rowSums();
}

/**
 * L = diag(S 1) - S as CSR, with the diagonal always stored (also where it is 0), so
 * each row has the non-zeros of S's row plus one. S should be symmetric (use
 * `symmetrizeGraph`); L is then symmetric too.
 */
export function graphLaplacian(S: CsrMatrix): CsrMatrix {
  requireSquare("graphLaplacian", S);
  const n = S.rows;
  const deg = S.rowSums();
  const rowPtr = new Int32Array(n + 1);
  let cap = 0;
  for (let i = 0; i < n; i++) {
    cap += S.rowLength(i) + 1;
  }
  const colIdx = new Int32Array(cap);
  const values = new Float64Array(cap);
  let at = 0;
  for (let i = 0; i < n; i++) {
    let diagDone = false;
    for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) {
      const j = S.colIdx[p];
      if (!diagDone && j >= i) {
        colIdx[at] = i;
        values[at] = j === i ? deg[i] - S.values[p] : deg[i];
        at++;
        diagDone = true;
        if (j === i) continue;
      }
      colIdx[at] = j;
      values[at] = -S.values[p];
      at++;
    }
    if (!diagDone) {
      colIdx[at] = i;
      values[at] = deg[i];
      at++;
    }
    rowPtr[i + 1] = at;
  }
  return new CsrMatrix(n, n, rowPtr, colIdx.slice(0, at), values.slice(0, at));
}

/**
 * L X for L = diag(S 1) - S and a dense X (n x b), in the difference form
 * (L X)_i = sum_j s_ij (x_i - x_j): exactly 0 on constant columns, with no cancellation
 * between a large degree and the neighbours' sum. S should be symmetric.
 */
export function applyLaplacian(S: CsrMatrix, X: Matrix, out?: Matrix): Matrix {
  requireNodeRows("applyLaplacian", S, "X", X);
  const b = X.cols;
  const Y = out ?? new Matrix(X.rows, b);
  if (Y.rows !== X.rows || Y.cols !== b || Y.data === X.data) {
    throw new ValidationError(
      "out",
      `The 'out' parameter of applyLaplacian must be a separate ${X.rows} x ${b} matrix. Got ${Y.rows} x ${Y.cols}${Y.data === X.data ? " sharing X's storage" : ""} instead.`,
    );
  }
  const xd = X.data;
  const yd = Y.data;
  for (let i = 0; i < S.rows; i++) {
    const oi = i * b;
    yd.fill(0, oi, oi + b);
    for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) {
      const v = S.values[p];
      const oj = S.colIdx[p] * b;
      for (let t = 0; t < b; t++) yd[oi + t] += v * (xd[oi + t] - xd[oj + t]);
    }
  }
  return Y;
}

/**
 * (1/2) sum_ij s_ij ||f_i - f_j||^2 = Tr(F^T L F) for L the Laplacian of (S + S^T)/2
 * (so for any S, symmetric or not): the graph terms Tr(W^T X^T L X W) with F = XW
 * (Eq. PCAN) and Tr(F^T L F). Summed from differences, hence >= 0 exactly.
 */
export function laplacianTrace(S: CsrMatrix, F: Matrix): number {
  requireNodeRows("laplacianTrace", S, "F", F);
  const c = F.cols;
  const f = F.data;
  let total = 0;
  for (let i = 0; i < S.rows; i++) {
    const oi = i * c;
    for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) {
      const oj = S.colIdx[p] * c;
      let s = 0;
      for (let t = 0; t < c; t++) {
        const diff = f[oi + t] - f[oj + t];
        s += diff * diff;
      }
      total += S.values[p] * s;
    }
  }
  return 0.5 * total;
}

/**
 * `laplacianTrace` for a symmetric S (as `symmetrizeGraph` returns it): each edge is
 * visited once, from its upper-triangle entry, and counted twice, which halves the
 * work for wide F (the matrix-free Z solver's Tr(G L G) = Tr(H^T L H) with H n x rank).
 * Equal to `laplacianTrace` up to summation order; the caller vouches for symmetry
 * (a non-symmetric S would silently lose its lower-triangle-only entries).
 * `columnWeights` w gives Tr((F W)^T L (F W)) for W = diag(w) without forming F W:
 * the solver passes U and the squared singular values instead of H = U S^2 (an n x
 * rank matrix less in memory). The loops run in the module where it is active and the
 * work is large enough (`inModule`, default true; the same operations in the same
 * order, so the same bits).
 */
export function symmetricLaplacianTrace(
  S: CsrMatrix,
  F: Matrix,
  columnWeights?: Float64Array,
  inModule = true,
): number {
  requireNodeRows("symmetricLaplacianTrace", S, "F", F);
  const c = F.cols;
  const f = F.data;
  if (columnWeights !== undefined && columnWeights.length !== c) {
    throw new ValidationError(
      "columnWeights",
      `The 'columnWeights' parameter of symmetricLaplacianTrace must have one weight per column of F (${c}). Got ${columnWeights.length} instead.`,
    );
  }
  const w = columnWeights ?? new Float64Array(c).fill(1);
  if (inModule && S.rowPtr[S.rows] * c >= MODULE_TRACE_MIN_WORK) {
    const total = edgeTraceInModule(S, F, w);
    if (total !== null) return total;
  }
  let total = 0;
  for (let i = 0; i < S.rows; i++) {
    const oi = i * c;
    for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) {
      const j = S.colIdx[p];
      if (j <= i) continue;
      const oj = j * c;
      let s0 = 0;
      let s1 = 0;
      let t = 0;
      for (; t + 1 < c; t += 2) {
        const d0 = (f[oi + t] - f[oj + t]) * w[t];
        const d1 = (f[oi + t + 1] - f[oj + t + 1]) * w[t + 1];
        s0 += d0 * d0;
        s1 += d1 * d1;
      }
      if (t < c) {
        const d0 = (f[oi + t] - f[oj + t]) * w[t];
        s0 += d0 * d0;
      }
      total += S.values[p] * (s0 + s1);
    }
  }
  return total;
}

/**
 * Stored entries times columns from which symmetricLaplacianTrace copies S, F and w
 * into the module (`edgeTrace`, kernels.wat): below it the copies cost about what the
 * kernel saves.
 */
const MODULE_TRACE_MIN_WORK = 1 << 18;

/**
 * symmetricLaplacianTrace's loops in the module (`edgeTrace` runs them in their order,
 * so the same bits; tested), on copies of S, F and w; null when the backend is not
 * active or the copies would not fit, and the caller runs the loops.
 */
function edgeTraceInModule(S: CsrMatrix, F: Matrix, w: Float64Array): number | null {
  const arena = wasmArena();
  if (arena === null) return null;
  const size = F.rows * F.cols;
  const mark = arena.mark();
  try {
    const ptrs = arena.allocAll([size]);
    if (ptrs === null) return null;
    arena.f64.set(F.data.subarray(0, size), ptrs[0] >> 3);
    return edgeTraceOnResident(arena, S, ptrs[0], F.cols, w);
  } finally {
    arena.release(mark);
  }
}

/**
 * The module's `edgeTrace` for F (S.rows x c, compact) already at byte offset `f` of
 * `arena`: S and w are copied in above it (the caller releases them with its own mark).
 * Null when they do not fit.
 */
export function edgeTraceOnResident(
  arena: WasmArena,
  S: CsrMatrix,
  f: number,
  c: number,
  w: Float64Array,
): number | null {
  const n = S.rows;
  const nnz = S.rowPtr[n];
  const ptrs = arena.allocAll([Math.ceil((n + 1) / 2), Math.ceil(nnz / 2), nnz, c]);
  if (ptrs === null) return null;
  const [pPtr, pIdx, pVal, pW] = ptrs;
  new Int32Array(arena.buffer, pPtr, n + 1).set(S.rowPtr.subarray(0, n + 1));
  new Int32Array(arena.buffer, pIdx, nnz).set(S.colIdx.subarray(0, nnz));
  const f64 = arena.f64;
  f64.set(S.values.subarray(0, nnz), pVal >> 3);
  f64.set(w, pW >> 3);
  return arena.kernels.edgeTrace(pPtr, pIdx, pVal, n, f, c, pW);
}

/**
 * Tr(Y^T L Y) for the one-hot Y of `codes` (Eq. SDSPCAAN, the lambda term):
 * (1/2) sum_ij s_ij ||y_i - y_j||^2 = the total weight of the cross-class entries.
 */
export function classLaplacianTrace(S: CsrMatrix, codes: Int32Array): number {
  requireSquare("classLaplacianTrace", S);
  checkClassCodes("classLaplacianTrace", codes, S.rows);
  let total = 0;
  for (let i = 0; i < S.rows; i++) {
    const ci = codes[i];
    for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) {
      if (codes[S.colIdx[p]] !== ci) total += S.values[p];
    }
  }
  return total;
}

/** Tr(S^T Gamma S) = sum_i gamma_i ||s_i||^2 (Eq. PCAN, the gamma term). */
export function gammaWeightedSquaredNorm(S: CsrMatrix, gamma: Float64Array): number {
  if (gamma.length !== S.rows) {
    throw new ValidationError(
      "gamma",
      `The 'gamma' parameter of gammaWeightedSquaredNorm must have one entry per row of S (${S.rows}). Got ${gamma.length} instead.`,
    );
  }
  let total = 0;
  for (let i = 0; i < S.rows; i++) {
    let s = 0;
    for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) s += S.values[p] * S.values[p];
    total += gamma[i] * s;
  }
  return total;
}
