/**
 * Dense symmetric eigen-solver on row-major matrices: the driver of the tridiagonal
 * stage in this folder. A is scaled by a power of two and reduced to tridiagonal form
 * (householder.ts); then
 * - all pairs come from divide and conquer (divideAndConquer.ts), values only from
 *   implicit QL (ql.ts);
 * - the k smallest or largest pairs come from bisection (bisection.ts) and inverse
 *   iteration (inverseIteration.ts), unless a cost model says that clusters make
 *   inverse iteration dearer than divide and conquer on all of T, or inverse iteration
 *   misses its growth test; the k wanted vectors are then taken from the full
 *   decomposition;
 * and the wanted vectors are back-transformed (backTransform.ts).
 *
 * LAPACK counterparts: dsyevd for all pairs (dsytrd, dstedc, dormtr), dsyevx with
 * range = 'I' for k pairs (dsytrd, dstebz, dstein, dormtr), dsterf for values only.
 * Deliberate differences: A is always scaled to max |a_ij| in [1/2, 1) by a power of
 * two, which is exact (dsyev* scale only a norm outside [rmin, rmax]); the cost model
 * and the fall-back to divide and conquer, where dsyevx reports failed vectors in
 * ifail; the symmetry check and the sign convention below.
 *
 * Conventions (SPEC section 1): eigenvalues ascending; each eigenvector's
 * largest-magnitude entry is positive (ties: lowest index); a matrix whose asymmetry is
 * round-off is symmetrised as (A + A^T)/2, one that is non-symmetric beyond a tolerance
 * relative to its largest entry is an error.
 */
import { ValidationError } from "../../core/errors.js";
import { Matrix } from "../../core/matrix.js";
import { checkInteger } from "../../core/validate.js";
import { kernelBackend } from "../kernels/wasm/backend.js";
import { applyReflectors } from "./backTransform.js";
import {
  type SelectedEigenvalues,
  smallestTridiagonalEigenvalues,
  sturmCountAtMost,
} from "./bisection.js";
import type { EigenStageSettings } from "./constants.js";
import { tridiagonalDivideAndConquer } from "./divideAndConquer.js";
import { householderTridiagonalize, type Tridiagonal } from "./householder.js";
import { inverseIterationWork, tridiagonalEigenvectors } from "./inverseIteration.js";
import { tridiagonalQL } from "./ql.js";

/** Which eigenpairs to compute. */
export type EigenSelection = "all" | { readonly smallest: number } | { readonly largest: number };

export interface SymmetricEigenOptions {
  /** All eigenpairs (default), the k smallest, or the k largest. */
  readonly select?: EigenSelection;
  /** Compute eigenvectors (default true). */
  readonly vectors?: boolean;
  /**
   * Largest allowed |A[i][j] - A[j][i]| relative to max |A[i][j]| (default 1e-8);
   * anything below is treated as round-off and removed by symmetrising. Infinity
   * skips the check (for matrices symmetric by construction): the symmetric part
   * (A + A^T)/2 is used, as always.
   */
  readonly symmetryTolerance?: number;
  /**
   * Internal: which form of the stages' loops runs (constants.ts, EigenStageSettings);
   * the tests that compare the module's loops with the TypeScript ones set it.
   */
  readonly stages?: EigenStageSettings;
}

export interface SymmetricEigenResult {
  /** Eigenvalues in ascending order. */
  readonly values: Float64Array;
  /** n x k, column j the unit eigenvector of values[j]; null when vectors were not asked for. */
  readonly vectors: Matrix | null;
}

export interface Eigenpairs {
  /** Eigenvalues in ascending order. */
  readonly values: Float64Array;
  /** n x k, column j the unit eigenvector of values[j]. */
  readonly vectors: Matrix;
}

const DEFAULT_SYMMETRY_TOLERANCE = 1e-8;
const TILE = 32;

function formatNumber(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toPrecision(3);
}

/**
 * Checks that A is a finite square Matrix, symmetric up to `tolerance` relative to its
 * largest entry, and returns max |A[i][j]|. `owner` and `name` appear in the errors.
 */
export function checkSymmetricMatrix(
  A: unknown,
  owner: string,
  name = "A",
  tolerance = DEFAULT_SYMMETRY_TOLERANCE,
): number {
  const anrm = checkSquareFinite(A, owner, name);
  // An infinite tolerance accepts any asymmetry: the scan below cannot fail, skip it.
  if (tolerance === Number.POSITIVE_INFINITY) return anrm;
  const { rows: n, data: a } = A as Matrix;
  let worst = 0;
  let wi = 0;
  let wj = 0;
  // Tiled so that the transposed reads stay within cache lines.
  for (let i0 = 0; i0 < n; i0 += TILE) {
    for (let j0 = i0; j0 < n; j0 += TILE) {
      const i1 = Math.min(i0 + TILE, n);
      const j1 = Math.min(j0 + TILE, n);
      for (let i = i0; i < i1; i++) {
        for (let j = Math.max(j0, i + 1); j < j1; j++) {
          const diff = Math.abs(a[i * n + j] - a[j * n + i]);
          if (diff > worst) {
            worst = diff;
            wi = i;
            wj = j;
          }
        }
      }
    }
  }
  if (worst > tolerance * anrm) {
    throw new ValidationError(
      name,
      `The '${name}' argument of ${owner} must be symmetric: |${name}[${wi}][${wj}] - ${name}[${wj}][${wi}]| = ${formatNumber(worst)}, but at most ${formatNumber(tolerance)} * max|${name}| = ${formatNumber(tolerance * anrm)} is allowed. Symmetrise it with (${name} + ${name}^T)/2 if the asymmetry is round-off.`,
    );
  }
  return anrm;
}

/**
 * Checks that A is a finite square Matrix and returns max |A[i][j]|: checkSymmetricMatrix
 * without the symmetry test, for matrices symmetric by construction.
 */
function checkSquareFinite(A: unknown, owner: string, name: string): number {
  if (!(A instanceof Matrix)) {
    throw new ValidationError(
      name,
      `The '${name}' argument of ${owner} must be a Matrix. Got ${A === null ? "null" : typeof A} instead.`,
    );
  }
  if (A.rows !== A.cols) {
    throw new ValidationError(
      name,
      `The '${name}' argument of ${owner} must be a square matrix. Got ${A.rows} x ${A.cols} instead.`,
    );
  }
  const n = A.rows;
  const a = A.data;
  let anrm = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i];
    // v - v is NaN exactly for NaN and +-Infinity.
    if (v - v !== 0) {
      throw new ValidationError(
        name,
        `The '${name}' argument of ${owner} must contain only finite numbers. Got ${v} at row ${Math.floor(i / n)}, column ${i % n}.`,
      );
    }
    const av = Math.abs(v);
    if (av > anrm) anrm = av;
  }
  return anrm;
}

/** Multiplies every entry by 2^exponent exactly (in two steps when 2^exponent would overflow). */
function scaleByPowerOfTwo(data: Float64Array, exponent: number): void {
  if (exponent === 0) return;
  const half = Math.trunc(exponent / 2);
  const f1 = 2 ** half;
  const f2 = 2 ** (exponent - half);
  for (let i = 0; i < data.length; i++) data[i] = data[i] * f1 * f2;
}

/** Row of the largest-magnitude entry of column j of M (the first one on ties). */
export function columnPeakRow(M: Matrix, j: number): number {
  const { rows, cols, data } = M;
  let best = 0;
  let at = 0;
  for (let i = 0; i < rows; i++) {
    const v = Math.abs(data[i * cols + j]);
    if (v > best) {
      best = v;
      at = i;
    }
  }
  return at;
}

/**
 * The library's deterministic sign convention, in place: each column's
 * largest-magnitude entry becomes positive (ties: the lowest row index); the same
 * columns of `companions` (e.g. the left singular vectors) flip with it.
 */
export function normalizeEigenvectorSigns(V: Matrix, ...companions: Matrix[]): Matrix {
  const { cols, data } = V;
  for (let j = 0; j < cols; j++) {
    if (!(data[columnPeakRow(V, j) * cols + j] < 0)) continue;
    for (const M of [V, ...companions]) {
      for (let i = 0; i < M.rows; i++) M.data[i * M.cols + j] = -M.data[i * M.cols + j];
    }
  }
  return V;
}

/** Transposes the k x n "vectors as rows" block into the n x k result matrix. */
function rowsToColumns(z: Float64Array, k: number, n: number): Matrix {
  return new Matrix(k, n, z).transpose();
}

function parseSelection(select: EigenSelection, n: number, owner: string) {
  if (select === "all") return { kind: "all" as const, k: n };
  if (select !== null && typeof select === "object") {
    if ("smallest" in select) {
      const k = checkInteger(owner, "select.smallest", select.smallest, 1, n, "(the matrix order)");
      return { kind: "smallest" as const, k };
    }
    if ("largest" in select) {
      const k = checkInteger(owner, "select.largest", select.largest, 1, n, "(the matrix order)");
      return { kind: "largest" as const, k };
    }
  }
  throw new ValidationError(
    "select",
    `The 'select' option of ${owner} must be "all", {smallest: k} or {largest: k}. Got ${JSON.stringify(select)} instead.`,
  );
}

/**
 * Eigenvalues (ascending) and, unless `vectors` is false, unit eigenvectors of the
 * symmetric matrix A. With `select: {smallest: k}` or `{largest: k}` only those k
 * pairs are computed (bisection + inverse iteration: O(n^3) for the reduction, but only
 * O(n^2 k) after it, plus the re-orthogonalisation inside clusters of close eigenvalues;
 * when a cost model says that the clusters make that dearer than divide and conquer on
 * the whole tridiagonal, the latter runs and only the k wanted vectors are
 * back-transformed); `"all"` uses divide and conquer (implicit QL for values only).
 *
 * Accuracy: backward stable, ||A V - V Lambda|| ~ n eps ||A|| and ||V^T V - I|| ~ n eps,
 * for any scaling of A (it is scaled by a power of two internally).
 */
export function symmetricEigen(
  A: Matrix,
  options: SymmetricEigenOptions = {},
): SymmetricEigenResult {
  const owner = "symmetricEigen";
  const tolerance = options.symmetryTolerance ?? DEFAULT_SYMMETRY_TOLERANCE;
  if (typeof tolerance !== "number" || !(tolerance >= 0)) {
    throw new ValidationError(
      "symmetryTolerance",
      `The 'symmetryTolerance' option of ${owner} must be a number in [0, inf]. Got ${String(tolerance)} instead.`,
    );
  }
  const anrm = checkSymmetricMatrix(A, owner, "A", tolerance);
  const n = A.rows;
  const sel = parseSelection(options.select ?? "all", n, owner);
  const wantVectors = options.vectors ?? true;
  const k = sel.k;
  if (n === 0)
    return { values: new Float64Array(0), vectors: wantVectors ? new Matrix(0, 0) : null };
  if (anrm === 0) {
    return {
      values: new Float64Array(k),
      vectors: wantVectors ? Matrix.identity(n, k) : null,
    };
  }
  const stages = options.stages ?? {};
  const { tri, exponent } = scaledTridiagonal(A, anrm, false, stages);
  const { values, z } = solveTridiagonal(tri, sel.kind, k, wantVectors, stages);
  if (!wantVectors || z === null) {
    scaleByPowerOfTwo(values, -exponent);
    return { values, vectors: null };
  }
  return backTransformed(tri, exponent, values, z, k, stages);
}

/**
 * The end every entry shares: the eigenvalues of T scaled back by 2^-exponent (in
 * place) and the k vectors of T (rows of z) back-transformed to A's, sign-normalised
 * and returned as the columns of an n x k matrix.
 */
function backTransformed(
  tri: Tridiagonal,
  exponent: number,
  values: Float64Array,
  z: Float64Array,
  k: number,
  stages: EigenStageSettings = {},
): Eigenpairs {
  const n = tri.n;
  scaleByPowerOfTwo(values, -exponent);
  applyReflectors(tri, z, k, stages);
  return { values, vectors: normalizeEigenvectorSigns(rowsToColumns(z, k, n)) };
}

/**
 * A (max |a_ij| = anrm > 0) scaled by 2^exponent and reduced to tridiagonal form; the
 * symmetric part (A + A^T)/2 is what is reduced.
 */
function scaledTridiagonal(
  A: Matrix,
  anrm: number,
  inPlace = false,
  stages: EigenStageSettings = {},
): { tri: Tridiagonal; exponent: number } {
  const n = A.rows;
  // Scale to max |a_ij| in [1/2, 1) by a power of two (exact), so that squares in the
  // reflectors and Sturm counts neither overflow nor lose the matrix to underflow.
  const exponent = -(Math.floor(Math.log2(anrm)) + 1);
  // In place, entry (j, i >= j) is written once from itself and (i, j), which is never
  // written: the same values as in a new array, without its page faults.
  const work = inPlace ? A.data : new Float64Array(n * n);
  const a = A.data;
  // The scaling by 2^exponent in two exact steps (as scaleByPowerOfTwo), fused with
  // the symmetrisation so that only the stored triangle is touched, once.
  const half = Math.trunc(exponent / 2);
  const f1 = 2 ** half;
  const f2 = 2 ** (exponent - half);
  for (let j0 = 0; j0 < n; j0 += TILE) {
    for (let i0 = j0; i0 < n; i0 += TILE) {
      const j1 = Math.min(j0 + TILE, n);
      const i1 = Math.min(i0 + TILE, n);
      for (let j = j0; j < j1; j++) {
        for (let i = Math.max(i0, j); i < i1; i++) {
          work[j * n + i] = (0.5 * a[j * n + i] + 0.5 * a[i * n + j]) * f1 * f2;
        }
      }
    }
  }
  return { tri: householderTridiagonalize(work, n, n, stages), exponent };
}

/** The k largest eigenpairs of a symmetric A and how many eigenvalues exceed a threshold. */
export interface LeadingEigenpairsWithCount extends Eigenpairs {
  /**
   * The number of eigenvalues of A greater than relativeThreshold * lambda_max (0 when
   * lambda_max <= 0), counted on the tridiagonal form by a Sturm sequence.
   */
  readonly countAbove: number;
}

/**
 * The k largest eigenpairs of the symmetric A (ascending, as `leadingEigenpairs`: the
 * same reduction, bisection, inverse iteration and back-transformation, so the same
 * bits) and, from the same tridiagonal form, the number of eigenvalues above
 * relativeThreshold * lambda_max: a numerical rank in O(n) after the reduction, without
 * the other n - k eigenvalues. An eigenvalue within rounding (~n eps ||A||) of the
 * threshold may be counted on either side of it, as the computed eigenvalues would be.
 */
export function leadingEigenpairsWithCount(
  A: Matrix,
  k: number,
  relativeThreshold: number,
  options: Pick<SymmetricEigenOptions, "symmetryTolerance"> & {
    /** A's storage may be overwritten (it is used as the reduction's work array). */
    readonly overwrite?: boolean;
  } = {},
): LeadingEigenpairsWithCount {
  const owner = "leadingEigenpairsWithCount";
  const anrm = checkSymmetricMatrix(
    A,
    owner,
    "A",
    options.symmetryTolerance ?? DEFAULT_SYMMETRY_TOLERANCE,
  );
  const n = A.rows;
  checkInteger(owner, "k", k, 1, n, "(the matrix order)");
  if (typeof relativeThreshold !== "number" || !(relativeThreshold >= 0)) {
    throw new ValidationError(
      "relativeThreshold",
      `The 'relativeThreshold' argument of ${owner} must be a number >= 0. Got ${String(relativeThreshold)} instead.`,
    );
  }
  return largestPairs(A, anrm, k, relativeThreshold, options.overwrite === true);
}

/**
 * leadingEigenpairsWithCount's result with its bits (the same reduction, solve,
 * back-transformation and count), for a caller whose A is symmetric by construction
 * and whose k (1..n) and relativeThreshold (>= 0; 0 counts the positive eigenvalues)
 * are valid: only A's shape and finiteness are checked. The Gram matrices of svd.ts
 * and block Lanczos's projected matrix (blockLanczos.ts) take it, so that a bundle
 * that needs no other entry (PCA's) carries neither the general one's selection nor
 * its symmetry test.
 */
export function largestEigenpairsOfSymmetric(
  A: Matrix,
  k: number,
  relativeThreshold = 0,
  overwrite = false,
): LeadingEigenpairsWithCount {
  const anrm = checkSquareFinite(A, "largestEigenpairsOfSymmetric", "A");
  return largestPairs(A, anrm, k, relativeThreshold, overwrite);
}

/** The two entries above after their checks (anrm = max |a_ij|). */
function largestPairs(
  A: Matrix,
  anrm: number,
  k: number,
  relativeThreshold: number,
  overwrite: boolean,
): LeadingEigenpairsWithCount {
  const n = A.rows;
  if (anrm === 0) {
    return { values: new Float64Array(k), vectors: Matrix.identity(n, k), countAbove: 0 };
  }
  const { tri, exponent } = scaledTridiagonal(A, anrm, overwrite);
  const { values, z } = solveTridiagonal(tri, "largest", k, true);
  const lmax = values[k - 1];
  const countAbove =
    lmax > 0 ? n - sturmCountAtMost(tri.diagonal, tri.offDiagonal, relativeThreshold * lmax) : 0;
  return { ...backTransformed(tri, exponent, values, z as Float64Array, k), countAbove };
}

/** Eigenvalues (ascending) and eigenvectors of T as rows (k x n) for the selection. */
function solveTridiagonal(
  tri: Tridiagonal,
  kind: "all" | "smallest" | "largest",
  k: number,
  wantVectors: boolean,
  stages: EigenStageSettings = {},
): { values: Float64Array; z: Float64Array | null } {
  const n = tri.n;
  // A selection of every pair is the full decomposition (divide and conquer beats n
  // bisections and inverse iterations).
  if (kind === "all" || k === n) return allTridiagonalPairs(tri, wantVectors);
  const d = tri.diagonal.slice();
  const e = tri.offDiagonal.slice();
  // The k largest of T are the k smallest of -T (same vectors).
  if (kind === "largest") {
    for (let i = 0; i < n; i++) d[i] = -d[i];
    for (let i = 0; i < n - 1; i++) e[i] = -e[i];
  }
  const selected = smallestTridiagonalEigenvalues(d, e, k, stages);
  let values = selected.values;
  let z: Float64Array | null = null;
  if (wantVectors && divideAndConquerIsCheaper(d, e, selected, n)) {
    const all = allTridiagonalPairs(tri, true);
    return pickFromAll(all.values, all.z as Float64Array, kind, k, n);
  }
  if (wantVectors) {
    const { vectors, unconverged } = tridiagonalEigenvectors(d, e, selected, stages);
    if (unconverged > 0) {
      // Inverse iteration missed its growth test (rare: extreme clustering); fall back
      // to the full decomposition, which has no such failure mode, and select from it.
      const all = allTridiagonalPairs(tri, true);
      return pickFromAll(all.values, all.z as Float64Array, kind, k, n);
    }
    z = vectors;
  }
  if (kind === "largest") {
    const out = new Float64Array(k);
    for (let j = 0; j < k; j++) out[j] = -values[k - 1 - j];
    values = out;
    if (z !== null) z = reverseRows(z, k, n);
  }
  return { values, z };
}

/**
 * Cost model (ms on the 2-core dev machine, fitted on random and SDSPCAAN matrices of
 * order 250-1000) choosing, for k < n eigenvectors, between inverse iteration
 * (~A per vector element, plus ~B per element of re-orthogonalisation inside clusters,
 * which is quadratic in the cluster sizes) and divide and conquer on all of T
 * (~C n^2 + D n^3, the secular equations and the GEMMs of the merges), after which only
 * the k wanted vectors are back-transformed either way. Measured: with well separated
 * eigenvalues inverse iteration wins for every k < n (n = 500, k = 475: 53 ms against
 * 103 ms on the wasm backend); with the clusters of SDSPCAAN's matrices (one of ~60 at
 * k = 100, n = 483) it wins up to k ~ n / 2 and then loses fast (k = 290: 98 ms against
 * 60 ms; TypeScript kernels: k = 193, 244 ms against 81 ms). The decision depends only
 * on the eigenvalues and the backend, so it is deterministic.
 */
const COST = {
  // "fast" shares "wasm"'s model: the vector loops are the module's on both.
  fast: { A: 2.2e-4, B: 4.2e-6, C: 3.8e-4, D: 0 },
  wasm: { A: 2.2e-4, B: 4.2e-6, C: 3.8e-4, D: 0 },
  ts: { A: 4.2e-4, B: 4.2e-5, C: 5.5e-4, D: 2.5e-7 },
} as const;

function divideAndConquerIsCheaper(
  d: Float64Array,
  e: Float64Array,
  selected: SelectedEigenvalues,
  n: number,
): boolean {
  const c = COST[kernelBackend()];
  const { vectorElements, pairElements } = inverseIterationWork(d, e, selected);
  const inverseIteration = c.A * vectorElements + c.B * pairElements;
  const divideAndConquer = c.C * n * n + c.D * n * n * n;
  return divideAndConquer < inverseIteration;
}

function reverseRows(z: Float64Array, k: number, n: number): Float64Array {
  const out = new Float64Array(k * n);
  for (let j = 0; j < k; j++) out.set(z.subarray((k - 1 - j) * n, (k - j) * n), j * n);
  return out;
}

function pickFromAll(
  values: Float64Array,
  z: Float64Array,
  kind: "smallest" | "largest",
  k: number,
  n: number,
): { values: Float64Array; z: Float64Array } {
  const start = kind === "smallest" ? 0 : n - k;
  return {
    values: values.slice(start, start + k),
    z: z.slice(start * n, (start + k) * n),
  };
}

function allTridiagonalPairs(
  tri: Tridiagonal,
  wantVectors: boolean,
): { values: Float64Array; z: Float64Array | null } {
  const d = tri.diagonal.slice();
  const e = tri.offDiagonal.slice();
  // With vectors, divide and conquer (its work is mostly GEMM); values alone come
  // from implicit QL in O(n^2).
  if (wantVectors) return tridiagonalDivideAndConquer(d, e);
  tridiagonalQL(d, e, null);
  return { values: d.sort(), z: null };
}

/** The k smallest eigenvalues (ascending) of the symmetric A and their eigenvectors (n x k). */
export function trailingEigenpairs(
  A: Matrix,
  k: number,
  options: Pick<SymmetricEigenOptions, "symmetryTolerance" | "stages"> = {},
): Eigenpairs {
  if (A instanceof Matrix)
    checkInteger("trailingEigenpairs", "k", k, 1, A.rows, "(the matrix order)");
  const { values, vectors } = symmetricEigen(A, { ...options, select: { smallest: k } });
  return { values, vectors: vectors as Matrix };
}

/**
 * The k largest eigenvalues of the symmetric A, still in ascending order (values[k-1]
 * is the largest), and their eigenvectors (n x k).
 */
export function leadingEigenpairs(A: Matrix, k: number): Eigenpairs {
  if (A instanceof Matrix)
    checkInteger("leadingEigenpairs", "k", k, 1, A.rows, "(the matrix order)");
  const { values, vectors } = symmetricEigen(A, { select: { largest: k } });
  return { values, vectors: vectors as Matrix };
}

/** All eigenvalues of the symmetric A, ascending. */
export function symmetricEigenvalues(A: Matrix): Float64Array {
  return symmetricEigen(A, { vectors: false }).values;
}

/**
 * The k smallest eigenpairs (as `trailingEigenpairs`) of a symmetric A that the caller
 * has already scaled as symmetricEigen scales it: `work` (n x n) holds
 * 2^exponent A's stored triangle, work[j * n + i] for i >= j (the lower triangle in
 * householder.ts's terms), with max |entry| in [1/2, 1), and is overwritten by the
 * reflectors. The same steps after the scaling as symmetricEigen, so the same bits as
 * `trailingEigenpairs(A, k)` when the entries are the ones symmetricEigen would have
 * written; without its validation, its n^2 scan and its copy, for a caller that forms
 * A anew in every iteration of a loop and can write it scaled at once
 * (methods/zstep/zDenseForm.ts).
 */
export function trailingEigenpairsOfScaled(
  work: Float64Array,
  n: number,
  exponent: number,
  k: number,
): Eigenpairs {
  const tri = householderTridiagonalize(work, n);
  const { values, z } = solveTridiagonal(tri, "smallest", k, true);
  return backTransformed(tri, exponent, values, z as Float64Array, k);
}
