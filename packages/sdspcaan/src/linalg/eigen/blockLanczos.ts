/**
 * The k largest eigenpairs of a dense symmetric matrix by block Lanczos with full
 * reorthogonalisation and Rayleigh-Ritz on the whole Krylov basis: for small k beside
 * the order (PCA's k leading directions of a Gram matrix), the basis needed to
 * converge to residuals near machine precision is a few times k, so the work is
 * O(n^2 m) in GEMMs (m the basis size) instead of the O(n^3) Householder reduction
 * of the dense path (symmetricEigen.ts), which at these orders runs at a fraction of
 * the GEMM's rate (its symmetric matrix-vector products are memory-bound).
 *
 * The result is only returned when it can be trusted to the dense path's accuracy:
 * every one of the k + 1 leading Ritz pairs has a residual ||A y - theta y|| at most
 * RESIDUAL_TOLERANCE ||A||, and the Davis-Kahan bound on the angle between the Ritz
 * subspace and A's leading k-dimensional invariant subspace,
 * sqrt(sum_j ||r_j||^2 / (theta_j - (theta_{k+1} + ||r_{k+1}||))^2), is at most
 * ANGLE_BOUND. Otherwise (a cluster straddling the k-th eigenvalue, no convergence
 * within the basis limit, an invariant subspace found early, a small order) it
 * returns null and the caller runs the dense path. The bound assumes the k + 1 Ritz
 * values approximate A's k + 1 largest eigenvalues, not others below a missed one: a
 * random start block has components along every eigenvector, and the Krylov space of
 * such a block finds the largest eigenvalues first.
 *
 * No LAPACK counterpart (ARPACK's dsaupd is the implicitly restarted single-vector
 * form). Deliberate differences from textbook block Lanczos: the projected matrix
 * T = Q^T A Q is computed in full from the stored products A Q rather than from the
 * three-term recurrence (so T stays exact to rounding whatever the loss of
 * orthogonality), Rayleigh-Ritz runs at basis sizes growing by a quarter rather than
 * every step (each one is a dense solve of order m), and the residuals are computed
 * explicitly from A Q, not estimated from T.
 */
import { Matrix } from "../../core/matrix.js";
import { RandomStream } from "../../core/rng.js";
import { gemmABtRaw } from "../kernels/gemm.js";
import { type WasmArena, wasmArena } from "../kernels/wasm/backend.js";
import { type Eigenpairs, largestEigenpairsOfSymmetric } from "./symmetricEigen.js";

/** Residuals of the k + 1 leading Ritz pairs at most this times theta_1 (about ||A||). */
export const RESIDUAL_TOLERANCE = 2 ** -46;
/** The largest bound on the principal angle to the true subspace that is accepted (rad). */
export const ANGLE_BOUND = 1e-11;
/** Below this order the dense path runs (the reduction is cheap there). */
export const LANCZOS_MIN_ORDER = 64;
/**
 * The basis may grow to at most this many times k + 1, or BASIS_MIN for small k (a
 * Krylov degree of a dozen blocks), and half the order.
 */
const BASIS_FACTOR = 16;
const BASIS_MIN = 128;

/** Test hook: the last call's basis size and Rayleigh-Ritz steps, and why it gave up. */
export const lanczosDiagnostics: {
  basis: number;
  rayleighRitz: number;
  outcome: "converged" | "order" | "basis" | "breakdown" | "gap";
  angleBound: number;
} = { basis: 0, rayleighRitz: 0, outcome: "order", angleBound: Number.NaN };

/**
 * Buffers in the module's memory when the wasm backend is active (the GEMMs then use
 * them in place, no copies), else plain arrays. A view is taken afresh at each use,
 * since a callee's allocation may grow the memory and detach older views.
 */
class Buffers {
  private readonly arena: WasmArena | null;
  private readonly mark: number;
  private readonly ptrs: number[] = [];
  private readonly plain: Float64Array[] = [];
  private readonly sizes: readonly number[];

  constructor(sizes: readonly number[]) {
    this.sizes = sizes;
    const arena = wasmArena();
    this.mark = arena?.mark() ?? 0;
    const ptrs = arena?.allocAll(sizes) ?? null;
    if (arena !== null && ptrs !== null) {
      this.arena = arena;
      this.ptrs = ptrs;
    } else {
      this.arena = null;
      for (const s of sizes) this.plain.push(new Float64Array(s));
    }
  }

  view(i: number): Float64Array {
    return this.arena === null ? this.plain[i] : this.arena.view(this.ptrs[i], this.sizes[i]);
  }

  release(): void {
    this.arena?.release(this.mark);
  }
}

const G_ = 0;
const QT = 1; // basis vectors as rows (m x n)
const QC = 2; // the same as columns (n x mMax)
const AQT = 3; // A times each basis vector, as rows
const AQC = 4; // the same as columns
const W_ = 5; // the next block (b x n)
const COEF = 6; // projection coefficients (b x mMax)
const T_ = 7; // Q^T A Q (mMax x mMax)
const SV = 8; // Ritz coefficient rows ((k + 1) x mMax)
const Y_ = 9; // Ritz vectors as rows ((k + 1) x n)
const AY = 10; // A times them
const COL = 11; // T's new block column ((m + b) x b)

/**
 * The k largest eigenpairs of the symmetric A (n x n; only trusted results, see the
 * file comment), in leadingEigenpairs' order (ascending: values[k - 1] is the
 * largest; vectors n x k, unit, orthonormal, signs not normalised), or null.
 */
export function leadingEigenpairsLanczos(A: Matrix, k: number, seed = 0): Eigenpairs | null {
  const n = A.rows;
  const diag = lanczosDiagnostics;
  diag.basis = 0;
  diag.rayleighRitz = 0;
  diag.angleBound = Number.NaN;
  const want = k + 1;
  const mMax = Math.min(Math.floor(n / 2), Math.max(BASIS_MIN, BASIS_FACTOR * want));
  if (n < LANCZOS_MIN_ORDER || 4 * want > mMax) {
    diag.outcome = "order";
    return null;
  }
  // Blocks of about half the wanted pairs: bigger blocks take fewer (GEMM-rate) steps
  // but a larger basis for the same convergence.
  const b = Math.min(64, Math.max(8, Math.ceil(want / 2)));
  const buf = new Buffers([
    n * n,
    mMax * n,
    n * mMax,
    mMax * n,
    n * mMax,
    b * n,
    b * mMax,
    mMax * mMax,
    want * mMax,
    want * n,
    want * n,
    mMax * b,
  ]);
  try {
    buf.view(G_).set(A.data.subarray(0, n * n));
    const rng = new RandomStream(seed);
    const w0 = buf.view(W_);
    for (let i = 0; i < b * n; i++) w0[i] = rng.normal();
    let m = 0;
    let nextCheck = Math.max(6 * want, 2 * b);
    for (;;) {
      if (!appendBlock(buf, n, b, m, mMax)) {
        diag.outcome = "breakdown";
        return null;
      }
      m += b;
      diag.basis = m;
      if (m >= nextCheck || m + b > mMax) {
        diag.rayleighRitz++;
        const result = rayleighRitz(buf, n, m, mMax, k);
        if (result !== null) return result;
        if (diag.outcome === "gap") return null;
        if (m + b > mMax) {
          diag.outcome = "basis";
          return null;
        }
        nextCheck = Math.max(m + b, Math.ceil(1.25 * m));
      }
      // The next block: A times the last one (block Lanczos), orthogonalised above.
      buf.view(W_).set(buf.view(AQT).subarray((m - b) * n, m * n));
    }
  } finally {
    buf.release();
  }
}

/**
 * Orthonormalises the block W (b x n) against the m basis rows (classical
 * Gram-Schmidt twice, in GEMMs) and within itself (modified Gram-Schmidt), appends it to the basis
 * and its products with A, and extends T. False when the block has (numerically)
 * lost rank: the Krylov space is invariant or nearly so.
 */
function appendBlock(buf: Buffers, n: number, b: number, m: number, mMax: number): boolean {
  // Each row's norm before any projection: what is left of it measures deflation.
  const before = new Float64Array(b);
  {
    const w = buf.view(W_);
    for (let j = 0; j < b; j++) {
      let ss = 0;
      for (let i = 0; i < n; i++) ss += w[j * n + i] ** 2;
      before[j] = Math.sqrt(ss);
    }
  }
  for (let pass = 0; pass < 2; pass++) {
    if (m > 0) {
      // coef = W Q^T (b x m); W -= coef Q^T's transpose, i.e. W -= coef (Q as columns)^T.
      gemmABtRaw(b, m, n, buf.view(W_), n, buf.view(QT), n, buf.view(COEF), mMax);
      const c = buf.view(COEF);
      for (let i = 0; i < b; i++) {
        for (let j = 0; j < m; j++) c[i * mMax + j] = -c[i * mMax + j];
      }
      gemmABtRaw(b, n, m, c, mMax, buf.view(QC), mMax, buf.view(W_), n, true);
    }
    if (!orthonormalizeRows(buf.view(W_), before, b, n)) return false;
    // The second pass starts from unit rows.
    before.fill(1);
  }
  const w = buf.view(W_);
  buf.view(QT).set(w, m * n);
  const qc = buf.view(QC);
  for (let j = 0; j < b; j++) {
    for (let i = 0; i < n; i++) qc[i * mMax + m + j] = w[j * n + i];
  }
  // A Q_new as columns, A W^T, straight into its place (A streamed, the thin W the
  // packed operand: the other way round the kernel would pack all of A for b rows),
  // then copied to rows.
  gemmABtRaw(n, b, n, buf.view(G_), n, buf.view(W_), n, buf.view(AQC).subarray(m), mMax);
  const aqt = buf.view(AQT);
  const aqc = buf.view(AQC);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < b; j++) aqt[(m + j) * n + i] = aqc[i * mMax + m + j];
  }
  // T's new block column (rows 0 .. m + b) and its mirror: T[:, m + j] = Q^T A q_{m+j}.
  gemmABtRaw(m + b, b, n, buf.view(QT), n, buf.view(AQT).subarray(m * n), n, buf.view(COL), b);
  const col = buf.view(COL);
  const t = buf.view(T_);
  for (let i = 0; i < m + b; i++) {
    for (let j = 0; j < b; j++) {
      t[i * mMax + m + j] = col[i * b + j];
      t[(m + j) * mMax + i] = col[i * b + j];
    }
  }
  // The new diagonal block symmetrised (its two triangles are separate sums).
  for (let i = 0; i < b; i++) {
    for (let j = 0; j < i; j++) {
      const v = 0.5 * (col[(m + i) * b + j] + col[(m + j) * b + i]);
      t[(m + i) * mMax + m + j] = v;
      t[(m + j) * mMax + m + i] = v;
    }
  }
  return true;
}

/**
 * Modified Gram-Schmidt on the rows of W (b x n), each row against the rows before it
 * twice: stable however ill-conditioned the block (A's leading eigenvalues dominate
 * A Q when the spectrum decays fast, where Cholesky-QR fails). False when a row keeps
 * less than 1e-10 of its norm before the block's projections (the Krylov space is
 * numerically invariant: the dense path is then the safe one).
 */
function orthonormalizeRows(w: Float64Array, before: Float64Array, b: number, n: number): boolean {
  for (let j = 0; j < b; j++) {
    const rj = j * n;
    for (let pass = 0; pass < 2; pass++) {
      for (let p = 0; p < j; p++) {
        const rp = p * n;
        let dot = 0;
        for (let i = 0; i < n; i++) dot += w[rj + i] * w[rp + i];
        for (let i = 0; i < n; i++) w[rj + i] -= dot * w[rp + i];
      }
    }
    let ss = 0;
    for (let i = 0; i < n; i++) ss += w[rj + i] * w[rj + i];
    const norm = Math.sqrt(ss);
    if (!(norm > 1e-10 * before[j])) return false;
    const inv = 1 / norm;
    for (let i = 0; i < n; i++) w[rj + i] *= inv;
  }
  return true;
}

/**
 * Rayleigh-Ritz on the m basis vectors: the k + 1 largest eigenpairs of T, their Ritz
 * vectors and residuals. The k wanted pairs (ascending) when the tests of the file
 * comment pass; null otherwise (lanczosDiagnostics.outcome = "gap" when the residuals
 * have converged but the gap does not bound the angle: more basis would not help).
 */
function rayleighRitz(
  buf: Buffers,
  n: number,
  m: number,
  mMax: number,
  k: number,
): Eigenpairs | null {
  const want = k + 1;
  const T = new Matrix(m, m);
  const t = buf.view(T_);
  for (let i = 0; i < m; i++) T.data.set(t.subarray(i * mMax, i * mMax + m), i * m);
  const eig = largestEigenpairsOfSymmetric(T, want);
  const S = eig.vectors as Matrix; // m x want, ascending
  // Ritz coefficients as rows, descending: sv[j] = column want - 1 - j of S.
  const sv = buf.view(SV);
  for (let j = 0; j < want; j++) {
    for (let a = 0; a < m; a++) sv[j * mMax + a] = S.data[a * want + (want - 1 - j)];
  }
  gemmABtRaw(want, n, m, buf.view(SV), mMax, buf.view(QC), mMax, buf.view(Y_), n);
  gemmABtRaw(want, n, m, buf.view(SV), mMax, buf.view(AQC), mMax, buf.view(AY), n);
  const theta = new Float64Array(want);
  for (let j = 0; j < want; j++) theta[j] = eig.values[want - 1 - j];
  const y = buf.view(Y_);
  const ay = buf.view(AY);
  const res = new Float64Array(want);
  for (let j = 0; j < want; j++) {
    let ss = 0;
    for (let i = 0; i < n; i++) {
      const r = ay[j * n + i] - theta[j] * y[j * n + i];
      ss += r * r;
    }
    res[j] = Math.sqrt(ss);
  }
  const norm = Math.abs(theta[0]);
  for (let j = 0; j < want; j++) if (!(res[j] <= RESIDUAL_TOLERANCE * norm)) return null;
  // Davis-Kahan per column: ||P y_j|| <= ||r_j|| / (theta_j - lambda_{k+1}), with
  // lambda_{k+1} <= theta_{k+1} + ||r_{k+1}||.
  const above = theta[k] + res[k];
  let bound2 = 0;
  for (let j = 0; j < k; j++) {
    const gap = theta[j] - above;
    bound2 = gap > 0 ? bound2 + (res[j] / gap) ** 2 : Number.POSITIVE_INFINITY;
  }
  const bound = Math.sqrt(bound2);
  lanczosDiagnostics.angleBound = bound;
  if (!(bound <= ANGLE_BOUND)) {
    lanczosDiagnostics.outcome = "gap";
    return null;
  }
  lanczosDiagnostics.outcome = "converged";
  const values = new Float64Array(k);
  const V = new Matrix(n, k);
  for (let j = 0; j < k; j++) {
    // Column c of the ascending result is the (k - 1 - c)-th largest.
    const from = k - 1 - j;
    values[j] = theta[from];
    for (let i = 0; i < n; i++) V.data[i * k + j] = y[from * n + i];
  }
  return { values, vectors: V };
}
