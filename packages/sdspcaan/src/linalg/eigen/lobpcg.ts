/**
 * Matrix-free, warm-started block LOBPCG (Knyazev 2001) for a few extreme eigenpairs of
 * a symmetric operator, in the robust form of Duersch, Shao, Yang & Gu (2018,
 * "A robust and efficient implementation of LOBPCG", SIAM J. Sci. Comput. 40(5)):
 *
 * - the search space S = [X, P, W] (Ritz vectors, search directions, residuals) is kept
 *   orthonormal, so the Rayleigh-Ritz step is a standard dense symmetric eigenproblem;
 * - residuals are projected out of [X, P] twice and orthonormalised by SVQB, which drops
 *   numerically dependent directions instead of breaking down;
 * - the new P is built in the small coordinate space, orthogonal to the new X there, so
 *   it needs no n-sized orthogonalisation;
 * - converged vectors are soft-locked: they stay in X (and keep improving) but their
 *   residuals no longer enter W, which shrinks the operator applications;
 * - when [X, P] loses orthonormality, or the residuals vanish in it, the iteration
 *   restarts without P.
 *
 * The operator is only ever applied to new residual blocks; A X and A P are updated by
 * the same small transforms as X and P, and A X of the wanted columns is recomputed
 * with the operator before convergence is declared (the implicit updates drift by
 * rounding). The block size defaults to k plus a few guard vectors: on the SDSPCAAN
 * operator, k + 4 to k + 6 needed the fewest operator applications in total.
 *
 * An optional preconditioner T (symmetric positive definite, approximating
 * (A - sigma I)^-1 for a sigma below the wanted eigenvalues) replaces the residuals R
 * by T R before they enter the search space, as in Knyazev's preconditioned LOBPCG.
 * It changes only the search directions: the Rayleigh-Ritz steps, the residuals and
 * the convergence test stay those of A, so the result is the same to the tolerance.
 *
 * T = (A - sigma I)^-1 with an interior shift (j eigenvalues of A below sigma) is
 * indefinite, but inside LOBPCG it acts as a positive definite one whenever the j
 * smallest Ritz values are below sigma: the residuals R are orthogonal to the Ritz
 * block X and the new directions are orthogonalised against X, so T could be replaced
 * by T' = P T P + X_j X_j^T (P the projector onto the complement of the first j Ritz
 * vectors X_j) without changing a single iterate, and by Haynsworth's inertia
 * additivity P T P is positive definite on that complement exactly when
 * X_j^T (A - sigma I) X_j = diag(theta_i - sigma) is negative definite. With
 * `preconditionerShift` the iteration applies T only then (and the plain residuals
 * otherwise).
 *
 * No LAPACK counterpart: the method is iterative and matrix-free. Its Rayleigh-Ritz
 * steps are small dense problems solved by symmetricEigen.ts.
 */
import { ConvergenceError, throwIfAborted, ValidationError } from "../../core/errors.js";
import { Matrix } from "../../core/matrix.js";
import { Random } from "../../core/rng.js";
import { checkInteger } from "../../core/validate.js";
import { symmetrizeInPlace } from "../basic.js";
import { multiply } from "../kernels/gemm.js";
import {
  choleskyQR,
  gram,
  innerProducts,
  orthogonalizeTwiceAgainst,
  solveUpperFromRight,
} from "../orthogonalize.js";
import { orthonormalizeAgainst, svqb } from "./svqb.js";
import { columnPeakRow, normalizeEigenvectorSigns, symmetricEigen } from "./symmetricEigen.js";

/** Applies the symmetric operator to a block: V (n x b) -> A V (n x b). */
export type BlockOperator = (V: Matrix) => Matrix;

export interface LobpcgIteration {
  /** 1-based iteration number. */
  readonly iteration: number;
  /** Current Ritz values of the k wanted pairs (ascending). */
  readonly values: Float64Array;
  /** Their residual norms ||A x - theta x||. */
  readonly residualNorms: Float64Array;
  /** How many of the k wanted pairs meet the tolerance. */
  readonly convergedCount: number;
}

export interface LobpcgOptions {
  /**
   * Warm start: an n x m block whose columns span (approximately) the wanted
   * eigenvectors, e.g. the previous solve's `block`. Its first min(m, blockSize)
   * columns are used; missing columns are filled with seeded random vectors.
   */
  readonly initial?: Matrix;
  /**
   * A pair counts as converged when ||A x - theta x|| <= tol * max |theta| over the
   * current block (default 1e-8).
   */
  readonly tol?: number;
  /** Iteration limit (default 1000). Not converging is reported, not thrown. */
  readonly maxIterations?: number;
  /** Seed of the random start vectors (default 0). */
  readonly seed?: number;
  /**
   * Block size b >= k: the b - k guard vectors speed up convergence of the k-th pair
   * (default min(n, k + max(4, ceil(k / 4)))).
   */
  readonly blockSize?: number;
  /** Find the k largest eigenpairs instead of the k smallest (default false). */
  readonly largest?: boolean;
  /** Aborts between iterations with an AbortError. */
  readonly signal?: AbortSignal;
  /** Called after every iteration with the current Ritz values and residuals. */
  readonly onIteration?: (info: LobpcgIteration) => void;
  /**
   * T: R (n x q) -> T R (n x q), applied to the residual blocks (default: none, T = I).
   * T must be symmetric positive definite; the ideal is (A - sigma I)^-1 with sigma
   * below the wanted eigenvalues (with `largest`, (sigma I - A)^-1 with sigma above
   * them: the residuals are those of -A then). Convergence is still tested on the
   * residuals of A.
   */
  readonly preconditioner?: BlockOperator;
  /**
   * For a preconditioner (A - sigma I)^-1 with an interior shift: sigma and the number
   * of eigenvalues of A below it (`below` >= 1, less than the block size; with
   * `largest`, both of -A). T is then applied only in iterations where the `below`
   * smallest Ritz values lie below sigma (see the file comment).
   */
  readonly preconditionerShift?: { readonly sigma: number; readonly below: number };
}

export interface LobpcgResult {
  /** The k eigenvalues found, ascending (also with `largest`). */
  readonly values: Float64Array;
  /** n x k, column j for values[j], largest-magnitude entry positive. */
  readonly vectors: Matrix;
  /** Iterations used (0 when the operator was small enough to solve densely). */
  readonly iterations: number;
  /** Of those, the iterations whose residuals went through the preconditioner. */
  readonly preconditionedIterations: number;
  /** True when every wanted pair met the tolerance. */
  readonly converged: boolean;
  /** ||A v_j - values[j] v_j|| for each returned pair. */
  readonly residualNorms: Float64Array;
  /** The final n x b block of Ritz vectors (wanted pairs first): pass it as `initial` to warm-start a related solve. */
  readonly block: Matrix;
  /**
   * The Ritz values of A for the columns of `block`, in its column order (ascending;
   * descending with `largest`): the guard columns' values sketch the spectrum just
   * beyond the wanted pairs.
   */
  readonly blockValues: Float64Array;
}

const OWNER = "lobpcg";

function checkPositiveNumber(name: string, value: unknown): number {
  if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) {
    throw new ValidationError(
      name,
      `The '${name}' option of ${OWNER} must be a finite number in (0, inf). Got ${String(value)} instead.`,
    );
  }
  return value;
}

/** Concatenates blocks with the same row count side by side. */
function concatColumns(blocks: Matrix[]): Matrix {
  const n = blocks[0].rows;
  let m = 0;
  for (const b of blocks) m += b.cols;
  const out = new Matrix(n, m);
  let off = 0;
  for (const b of blocks) {
    const c = b.cols;
    for (let i = 0; i < n; i++) {
      out.data.set(b.data.subarray(i * c, (i + 1) * c), i * m + off);
    }
    off += c;
  }
  return out;
}

function columnNorms(R: Matrix): Float64Array {
  const out = new Float64Array(R.cols);
  const c = R.cols;
  for (let i = 0; i < R.rows; i++) {
    for (let j = 0; j < c; j++) out[j] += R.data[i * c + j] ** 2;
  }
  for (let j = 0; j < c; j++) out[j] = Math.sqrt(out[j]);
  return out;
}

function maxOffIdentity(G: Matrix): number {
  let e = 0;
  const k = G.rows;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) e = Math.max(e, Math.abs(G.data[i * k + j] - (i === j ? 1 : 0)));
  }
  return e;
}

/** R = AX - X diag(theta). */
function residuals(X: Matrix, AX: Matrix, theta: Float64Array): Matrix {
  const R = AX.clone();
  const b = X.cols;
  for (let i = 0; i < X.rows; i++) {
    for (let j = 0; j < b; j++) R.data[i * b + j] -= X.data[i * b + j] * theta[j];
  }
  return R;
}

/**
 * Orthonormal columns of the small m x q matrix Y after removing its components along
 * the orthonormal columns of C (two Gram-Schmidt passes), dropping directions that
 * vanish; the P update of Duersch et al. done in the coordinates of the search space.
 */
function complementBasis(Y: Matrix, C: Matrix): Matrix {
  const m = Y.rows;
  const cols: Float64Array[] = [];
  const basis: Float64Array[] = [];
  for (let j = 0; j < C.cols; j++) basis.push(C.column(j));
  for (let j = 0; j < Y.cols; j++) {
    const y = Y.column(j);
    let before = 0;
    for (let i = 0; i < m; i++) before += y[i] * y[i];
    before = Math.sqrt(before);
    if (before === 0) continue;
    const after = orthogonalizeTwiceAgainst(y, basis);
    if (after <= 1e-10 * before) continue;
    for (let i = 0; i < m; i++) y[i] /= after;
    basis.push(y);
    cols.push(y);
  }
  const out = new Matrix(m, cols.length);
  for (let j = 0; j < cols.length; j++) {
    for (let i = 0; i < m; i++) out.data[i * cols.length + j] = cols[j][i];
  }
  return out;
}

/**
 * The k smallest (or, with `largest`, the k largest) eigenpairs of the symmetric
 * operator `apply` of order n, by block LOBPCG (see the file comment). When n is too
 * small for an iterative method to pay off (n < 4 b), the operator is applied to the
 * identity and solved densely instead.
 */
export function lobpcg(
  apply: BlockOperator,
  n: number,
  k: number,
  options: LobpcgOptions = {},
): LobpcgResult {
  if (typeof apply !== "function") {
    throw new ValidationError(
      "apply",
      `The 'apply' argument of ${OWNER} must be a function V => A V. Got ${typeof apply} instead.`,
    );
  }
  checkInteger(OWNER, "n", n, 1);
  checkInteger(OWNER, "k", k, 1, n, "(the operator order n)");
  const tol = checkPositiveNumber("tol", options.tol ?? 1e-8);
  const maxIterations = checkInteger(OWNER, "maxIterations", options.maxIterations ?? 1000, 1);
  const seed = options.seed ?? 0;
  if (typeof seed !== "number" || !Number.isFinite(seed)) {
    throw new ValidationError(
      "seed",
      `The 'seed' option of ${OWNER} must be a finite number. Got ${String(seed)} instead.`,
    );
  }
  const b = checkInteger(
    OWNER,
    "blockSize",
    options.blockSize ?? Math.min(n, k + Math.max(4, Math.ceil(k / 4))),
    k,
    n,
    "(at least k, at most n)",
  );
  const largest = options.largest ?? false;
  const initial = options.initial;
  if (initial !== undefined) {
    if (!(initial instanceof Matrix) || initial.rows !== n || initial.cols < 1) {
      throw new ValidationError(
        "initial",
        `The 'initial' option of ${OWNER} must be a Matrix with n = ${n} rows and at least 1 column. Got ${initial instanceof Matrix ? `${initial.rows} x ${initial.cols}` : typeof initial} instead.`,
      );
    }
    for (let i = 0; i < initial.data.length; i++) {
      if (initial.data[i] - initial.data[i] !== 0) {
        throw new ValidationError(
          "initial",
          `The 'initial' option of ${OWNER} must contain only finite numbers. Got ${initial.data[i]} at row ${Math.floor(i / initial.cols)}, column ${i % initial.cols}.`,
        );
      }
    }
  }
  const { signal, onIteration, preconditioner, preconditionerShift } = options;
  if (preconditioner !== undefined && typeof preconditioner !== "function") {
    throw new ValidationError(
      "preconditioner",
      `The 'preconditioner' option of ${OWNER} must be a function R => T R. Got ${typeof preconditioner} instead.`,
    );
  }
  if (preconditionerShift !== undefined) {
    const { sigma, below } = preconditionerShift;
    if (preconditioner === undefined) {
      throw new ValidationError(
        "preconditionerShift",
        `The 'preconditionerShift' option of ${OWNER} needs a 'preconditioner'.`,
      );
    }
    if (typeof sigma !== "number" || !Number.isFinite(sigma)) {
      throw new ValidationError(
        "preconditionerShift",
        `The 'preconditionerShift.sigma' option of ${OWNER} must be a finite number. Got ${String(sigma)} instead.`,
      );
    }
    checkInteger(OWNER, "preconditionerShift.below", below, 1, b - 1, "(below the block size)");
  }
  throwIfAborted(signal);
  const sign = largest ? -1 : 1;
  const op = (V: Matrix): Matrix => {
    const AV = apply(V);
    if (!(AV instanceof Matrix) || AV.rows !== n || AV.cols !== V.cols) {
      throw new ValidationError(
        "apply",
        `The 'apply' callback of ${OWNER} must return A V as a ${n} x ${V.cols} Matrix. Got ${AV instanceof Matrix ? `${AV.rows} x ${AV.cols}` : typeof AV} instead.`,
      );
    }
    const out = sign === 1 ? AV.clone() : new Matrix(n, V.cols);
    const d = out.data;
    for (let i = 0; i < d.length; i++) {
      const v = sign === 1 ? d[i] : -AV.data[i];
      if (v - v !== 0) {
        throw new ValidationError(
          "apply",
          `The 'apply' callback of ${OWNER} returned a non-finite value (${v}) at row ${Math.floor(i / V.cols)}, column ${i % V.cols}.`,
        );
      }
      d[i] = v;
    }
    return out;
  };
  if (n < 4 * b) return denseSolve(op, n, k, b, sign);
  const precondition =
    preconditioner === undefined
      ? null
      : (R: Matrix): Matrix => checkedBlock("preconditioner", preconditioner(R), R, n);
  return iterate(op, n, k, b, sign, tol, maxIterations, seed, initial, signal, onIteration, {
    apply: precondition,
    shift: preconditionerShift ?? null,
  });
}

/**
 * The block a callback returned, checked: an n x q Matrix of finite numbers for the
 * n x q block V it was given.
 */
function checkedBlock(name: string, out: unknown, V: Matrix, n: number): Matrix {
  if (!(out instanceof Matrix) || out.rows !== n || out.cols !== V.cols) {
    throw new ValidationError(
      name,
      `The '${name}' callback of ${OWNER} must return a ${n} x ${V.cols} Matrix. Got ${out instanceof Matrix ? `${out.rows} x ${out.cols}` : typeof out} instead.`,
    );
  }
  const d = out.data;
  for (let i = 0; i < d.length; i++) {
    if (d[i] - d[i] !== 0) {
      throw new ValidationError(
        name,
        `The '${name}' callback of ${OWNER} returned a non-finite value (${d[i]}) at row ${Math.floor(i / V.cols)}, column ${i % V.cols}.`,
      );
    }
  }
  return out;
}

/** Small operators: apply to the identity and use the dense solver. */
function denseSolve(
  op: BlockOperator,
  n: number,
  k: number,
  b: number,
  sign: number,
): LobpcgResult {
  const A = symmetrizeInPlace(op(Matrix.identity(n)));
  const { values, vectors } = symmetricEigen(A, { select: { smallest: b } });
  // A holds the operator iterated on (negated for `largest`); finish undoes the sign.
  return finish(op, vectors as Matrix, values, k, sign, 0, true, null, A);
}

/**
 * Packages the result: the first k columns of the Ritz block (for `largest`, of the
 * negated operator's block, reversed back into ascending order), with residual norms
 * computed from `exactAX` (the operator applied to the first k columns of X) when
 * given, else by one more application of the operator.
 */
function finish(
  op: BlockOperator,
  X: Matrix,
  theta: Float64Array,
  k: number,
  sign: number,
  iterations: number,
  converged: boolean,
  exactAX: Matrix | null,
  denseA: Matrix | null = null,
): LobpcgResult {
  const idx = Int32Array.from({ length: k }, (_, j) => (sign === 1 ? j : k - 1 - j));
  const vectors = X.selectColumns(idx);
  const values = new Float64Array(k);
  for (let j = 0; j < k; j++) values[j] = sign * theta[idx[j]];
  const flipped = Uint8Array.from({ length: k }, (_, j) =>
    vectors.data[columnPeakRow(vectors, j) * k + j] < 0 ? 1 : 0,
  );
  const AV = denseA
    ? multiply(denseA, vectors)
    : exactAX
      ? exactAX.selectColumns(idx)
      : op(vectors);
  normalizeEigenvectorSigns(vectors);
  // AV is the image under the operator actually iterated on (negated for `largest`).
  const R = new Matrix(vectors.rows, k);
  for (let i = 0; i < vectors.rows; i++) {
    for (let j = 0; j < k; j++) {
      const av = sign * AV.data[i * k + j] * (flipped[j] ? -1 : 1);
      R.data[i * k + j] = av - values[j] * vectors.data[i * k + j];
    }
  }
  return {
    values,
    vectors,
    iterations,
    preconditionedIterations: 0,
    converged,
    residualNorms: columnNorms(R),
    block: X.clone(),
    blockValues: Float64Array.from(theta.subarray(0, X.cols), (v) => sign * v),
  };
}

function randomBlock(n: number, cols: number, rng: Random): Matrix {
  const M = new Matrix(n, cols);
  for (let i = 0; i < M.data.length; i++) M.data[i] = rng.normal();
  return M;
}

/** Orthonormal n x b start block from the warm start and random fill. */
function startBlock(n: number, b: number, rng: Random, initial?: Matrix): Matrix {
  let X: Matrix;
  if (initial) {
    const m = Math.min(initial.cols, b);
    const head = initial.leadingColumns(m);
    X = m < b ? concatColumns([head, randomBlock(n, b - m, rng)]) : head;
  } else {
    X = randomBlock(n, b, rng);
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const { Q } = svqb(X, 1e-12);
    if (Q.cols === b) {
      if (choleskyQR(Q) !== null) return Q;
    }
    // A rank-deficient warm start: keep its good directions, add random ones.
    X = Q.cols > 0 ? concatColumns([Q, randomBlock(n, b - Q.cols, rng)]) : randomBlock(n, b, rng);
  }
  throw new ConvergenceError(
    `${OWNER} could not build an orthonormal start block of ${b} vectors.`,
  );
}

/** Rayleigh-Ritz on the orthonormal basis S: the eigenpairs of S^T A S, ascending. */
function rayleighRitz(S: Matrix, AS: Matrix): { theta: Float64Array; C: Matrix } {
  const H = symmetrizeInPlace(innerProducts(S, AS));
  const { values, vectors } = symmetricEigen(H);
  return { theta: values, C: vectors as Matrix };
}

/** Largest |entry| of Q^T P and of P^T P - I: how far [Q, P] is from orthonormal. */
function blockOrthogonalityError(Q: Matrix, P: Matrix): number {
  const C = innerProducts(Q, P);
  let e = 0;
  for (let i = 0; i < C.data.length; i++) e = Math.max(e, Math.abs(C.data[i]));
  return Math.max(e, maxOffIdentity(gram(P)));
}

function iterate(
  op: BlockOperator,
  n: number,
  k: number,
  b: number,
  sign: number,
  tol: number,
  maxIterations: number,
  seed: number,
  initial: Matrix | undefined,
  signal: AbortSignal | undefined,
  onIteration: ((info: LobpcgIteration) => void) | undefined,
  preconditioning: {
    readonly apply: BlockOperator | null;
    readonly shift: { readonly sigma: number; readonly below: number } | null;
  },
): LobpcgResult {
  const rng = new Random(seed);
  let X = startBlock(n, b, rng, initial);
  let AX = op(X);
  // Initial Rayleigh-Ritz on X alone.
  const rr0 = rayleighRitz(X, AX);
  X = multiply(X, rr0.C);
  AX = multiply(AX, rr0.C);
  let theta = rr0.theta;
  let spectrumScale = Math.max(Math.abs(theta[0]), Math.abs(theta[b - 1]));
  let P: Matrix | null = null;
  let AP: Matrix | null = null;
  // A X for the k wanted columns straight from the operator (not from the implicit
  // updates), when it is current: convergence is only declared on it.
  let exactWanted: Matrix | null = AX.leadingColumns(k);
  let iterations = 0;
  let preconditioned = 0;
  let converged = false;
  const wantedIndex = Int32Array.from({ length: k }, (_, j) => j);
  for (;;) {
    const R = residuals(X, AX, theta);
    const norms = columnNorms(R);
    let scale = 0;
    for (let j = 0; j < b; j++) scale = Math.max(scale, Math.abs(theta[j]));
    if (scale === 0) scale = spectrumScale;
    const threshold = tol * scale;
    let wanted = 0;
    const active: number[] = [];
    for (let j = 0; j < b; j++) {
      const ok = norms[j] <= threshold;
      if (ok && j < k) wanted++;
      if (!ok) active.push(j);
    }
    if (onIteration && iterations > 0) {
      const vals = new Float64Array(k);
      const res = new Float64Array(k);
      for (let j = 0; j < k; j++) {
        const src = sign === 1 ? j : k - 1 - j;
        vals[j] = sign * theta[src];
        res[j] = norms[src];
      }
      onIteration({
        iteration: iterations,
        values: vals,
        residualNorms: res,
        convergedCount: wanted,
      });
    }
    if (wanted === k) {
      if (exactWanted !== null) {
        converged = true;
        break;
      }
      // The implicitly updated A X has drifted by rounding: confirm the wanted columns
      // with the operator (the guard columns keep their implicit images).
      exactWanted = op(X.selectColumns(wantedIndex));
      for (let i = 0; i < n; i++) {
        AX.data.set(exactWanted.data.subarray(i * k, (i + 1) * k), i * b);
      }
      continue;
    }
    if (iterations >= maxIterations) break;
    throwIfAborted(signal);
    iterations++;
    // Keep X orthonormal to working precision despite the accumulated updates; the
    // Cholesky factor carries A X along without applying the operator again.
    if (maxOffIdentity(gram(X)) > 1e-12) {
      const Rx = choleskyQR(X);
      if (Rx === null) {
        throw new ConvergenceError(`${OWNER} lost the orthonormality of its Ritz vectors.`);
      }
      solveUpperFromRight(AX, Rx);
    }
    if (P && blockOrthogonalityError(X, P) > 1e-10) {
      // The search space lost orthonormality: restart without P (Duersch et al.).
      P = null;
      AP = null;
    }
    // The new directions: the active residuals, preconditioned when a T is given (with
    // an interior shift, only while it acts as a positive definite one).
    const { apply: precondition, shift } = preconditioning;
    const usable =
      precondition !== null && (shift === null || theta[shift.below - 1] < shift.sigma);
    if (usable) preconditioned++;
    const Ra = usable ? precondition(R.selectColumns(active)) : R.selectColumns(active);
    let W = orthonormalizeAgainst(Ra, P ? [X, P] : [X]);
    if (W.cols === 0 && P) {
      // The residuals vanished in [X, P]: restart without P.
      P = null;
      AP = null;
      W = orthonormalizeAgainst(Ra, [X]);
    }
    if (W.cols === 0) {
      // Nothing new can enter the search space: the block is as accurate as rounding allows.
      break;
    }
    const AW = op(W);
    const S = concatColumns(P && AP ? [X, P, W] : [X, W]);
    const AS = concatColumns(P && AP ? [AX, AP, AW] : [AX, AW]);
    const rr = rayleighRitz(S, AS);
    const m = S.cols;
    const Cx = rr.C.leadingColumns(b);
    theta = rr.theta.slice(0, b);
    spectrumScale = Math.max(Math.abs(rr.theta[0]), Math.abs(rr.theta[m - 1]), spectrumScale);
    // New search directions: the [P, W] part of the active Ritz vectors, orthogonal to
    // Cx in coordinates, so that P = S Cp is orthonormal and orthogonal to the new X.
    const Y = new Matrix(m, active.length);
    for (let i = b; i < m; i++) {
      for (let c = 0; c < active.length; c++) {
        Y.data[i * active.length + c] = rr.C.data[i * m + active[c]];
      }
    }
    const Cp = complementBasis(Y, Cx);
    // [X, P] = S [Cx, Cp] and [AX, AP] = AS [Cx, Cp], one product each.
    const both = concatColumns([Cx, Cp]);
    const XP = multiply(S, both);
    const AXP = multiply(AS, both);
    const xIndex = Int32Array.from({ length: b }, (_, j) => j);
    const pIndex = Int32Array.from({ length: Cp.cols }, (_, j) => b + j);
    X = XP.selectColumns(xIndex);
    AX = AXP.selectColumns(xIndex);
    exactWanted = null;
    if (Cp.cols > 0) {
      P = XP.selectColumns(pIndex);
      AP = AXP.selectColumns(pIndex);
    } else {
      P = null;
      AP = null;
    }
  }
  return {
    ...finish(op, X, theta, k, sign, iterations, converged, exactWanted),
    preconditionedIterations: preconditioned,
  };
}
