/**
 * The smallest eigenvalues (and, for PCAN, eigenvectors) of a graph Laplacian, as
 * the rank control of Algorithms 2 and 3 needs them (the c + 1 smallest).
 *
 * L is block diagonal over the connected components of the graph, each block has
 * exactly one zero eigenvalue (eigenvector: the constant vector on the component),
 * and the spectrum of L is the union of the blocks' spectra. So:
 *  - with p >= count components, the count smallest eigenvalues are exactly 0 and the
 *    eigenvectors are the normalised indicator vectors of the first `count`
 *    components (no eigen-solve at all);
 *  - otherwise each component of size s contributes 0 and its smallest
 *    min(s, count - p + 1) - 1 positive eigenvalues, computed on the component's own
 *    block; the count smallest of the union are returned.
 * The zero eigenvalues are reported as exact zeros (a dense solver would return
 * round-off of order eps ||L||, with no meaning).
 *
 * Negligible edges (values only). Once lambda is large, the cross-class weights of
 * SDSPCAAN's graph are ~1e-16 and the graph is connected only through them; solving
 * the connected n x n problem then costs O(n^3) for nothing. With `pruneBudget` b,
 * the lightest edges are dropped while twice their total weight stays <= b. The
 * dropped edges form a graph whose Laplacian E = L - L' is positive semidefinite with
 * trace 2 sum w, and by Ky Fan's inequality any sum of the j smallest eigenvalues
 * moves by at most ||E||_* = Tr(E) <= b; the result carries that bound
 * (`perturbationBound`) so the caller can redo the exact solve when a decision is
 * within it of its threshold.
 */
import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { chebyshevSmallestEigenpairs } from "../linalg/eigen/chebyshev.js";
import { symmetricEigen } from "../linalg/eigen/symmetricEigen.js";
import { CsrMatrix } from "../linalg/sparse.js";
import { connectedComponents, type GraphComponents } from "./components.js";

export interface LaplacianSpectrum {
  /**
   * The `count` smallest eigenvalues, ascending. With `decision`, a component's values
   * may be Ritz values of an early-stopped solve (upper bounds of its eigenvalues,
   * within their residuals of them) when that already settles the decision.
   */
  readonly values: Float64Array;
  /** n x count eigenvectors (only when asked for). */
  readonly vectors: Matrix | null;
  /** The connected components of the (pruned) graph. */
  readonly components: GraphComponents;
  /** Upper bound on how far any sum of the j smallest values may be from L's own (0 without pruning). */
  readonly perturbationBound: number;
  /** True when `decision` was given and the values settle it despite perturbationBound. */
  readonly settled: boolean;
  /**
   * How many components' solves stopped once their values were beyond the decision's
   * reach (above tol + perturbationBound), not counting the decision component.
   */
  readonly stoppedEarly: number;
}

/** The rank control's question (rankControl.ts): where sum_{i<=c} e_i and sum_{i<=c+1} e_i lie against tol. */
export interface RankDecision {
  readonly c: number;
  readonly tol: number;
}

/**
 * Components at least this large are solved only as far as the rank-control decision
 * needs (`decision`): on Fashion-MNIST's 60,000-node graphs the full-accuracy solve of
 * clustered eigenvalues near 0 took most of the fit. Smaller components (every graph of
 * the paper's data sets) keep the full-accuracy solve. The bounds an early stop reads
 * are a Ritz value less its residual, which bounds the eigenvalue nearest to it; that
 * it is the smallest positive one rests on the start block holding the lowest
 * eigenvectors, so the components other than the decision one stop early only from
 * trusted warm starts (LaplacianWarmStart.trusted); the decision component stops from
 * any start after one sweep, as it did before the others could stop.
 */
export const DECISION_SOLVE_MIN_SIZE = 4000;

export interface LaplacianSpectrumOptions {
  /** Compute eigenvectors too (default false). Not combinable with pruning. */
  vectors?: boolean;
  /** Drop the lightest edges up to this total trace perturbation (default 0: exact). */
  pruneBudget?: number;
  /** Warm start of the iterative solves of large components (updated in place). */
  warm?: LaplacianWarmStart;
  /** Components up to this size are solved densely (default DENSE_COMPONENT_LIMIT). */
  denseLimit?: number;
  /**
   * The rank control's decision (not combinable with `vectors`). Every iteratively
   * solved component of at least DECISION_SOLVE_MIN_SIZE nodes may stop early: the
   * largest is solved last and stops as soon as its Ritz bounds settle the decision,
   * the others as soon as their smallest positive eigenvalue is bounded above
   * tol + perturbation bound, where no sum the decision compares can use it.
   */
  decision?: RankDecision;
  /** Smallest component that may stop early (default DECISION_SOLVE_MIN_SIZE). */
  decisionMinSize?: number;
  signal?: AbortSignal;
}

/**
 * Components larger than this are solved by Chebyshev-filtered subspace iteration on
 * the sparse block instead of densely (n^3 time, n^2 memory). Measured on SDSPCAAN's
 * graphs (d = 1024, 21 eigenvalues, warm-started): at 1000 nodes dense 0.24 s per
 * solve against 0.38 s, at 2000 nodes 1.8 s against 0.85 s.
 */
export const DENSE_COMPONENT_LIMIT = 1500;

/**
 * The eigenvectors of the last iterative solve, n x b in global node order, reused
 * as the start block of the next one (an outer iteration changes the graph a little).
 */
export interface LaplacianWarmStart {
  block: Matrix | null;
  /**
   * 1 for the nodes whose rows of `block` come from a solve that converged to full
   * accuracy, or from early-stopped solves started from such rows. Only a component
   * all of whose nodes are marked may stop early: rows never solved (zeros) or left by
   * a cold early stop may miss the lowest eigenvectors, and one filter sweep a call
   * would not find them (measured: a component's reported value stayed at 0.017-0.036
   * for four calls against a true 0.0103).
   */
  trusted?: Uint8Array | null;
}

/**
 * The `want` smallest eigenpairs of one connected component's Laplacian by
 * Chebyshev-filtered subspace iteration (LOBPCG without a preconditioner needs
 * hundreds of iterations on the clustered low end of a Laplacian spectrum);
 * `bound` is the sum of the residual norms (each Ritz value is within its residual
 * of an eigenvalue), added to the perturbation bound of the result.
 */
function iterativeComponentSolve(
  sub: CsrMatrix,
  want: number,
  members: Int32Array,
  n: number,
  warm: LaplacianWarmStart | undefined,
  signal?: AbortSignal,
  stop?: (values: Float64Array, residualNorms: Float64Array) => boolean,
  stopFrom: "trusted" | "any" = "trusted",
): {
  values: Float64Array;
  vectors: Matrix;
  residualNorms: Float64Array;
  bound: number;
  stopped: boolean;
} {
  const size = sub.rows;
  let initial: Matrix | undefined;
  let trusted = false;
  if (warm?.block && warm.block.rows === n) {
    const b = warm.block.cols;
    const cols = Math.min(b, want);
    initial = new Matrix(size, cols);
    for (let t = 0; t < size; t++) {
      for (let j = 0; j < cols; j++)
        initial.data[t * cols + j] = warm.block.data[members[t] * b + j];
    }
    const marks = warm.trusted;
    trusted = cols === want && marks?.length === n && members.every((i) => marks[i] === 1);
  }
  // Gershgorin: the spectrum of a Laplacian lies in [0, 2 max degree].
  const diag = sub.diagonal();
  let maxDegree = 0;
  for (let i = 0; i < size; i++) maxDegree = Math.max(maxDegree, diag[i]);
  let stopped = false;
  let sweeps = 0;
  const result = chebyshevSmallestEigenpairs((V) => sub.multiplyMatrix(V), size, want, {
    upperBound: 2 * maxDegree,
    initial,
    tol: 1e-10,
    maxIterations: 1000,
    seed: size,
    ...(signal ? { signal } : {}),
    // After at least one filter sweep, and (unless stopFrom is "any") only from trusted
    // warm rows (LaplacianWarmStart.trusted): a Ritz value less its residual bounds
    // some eigenvalue, not necessarily the smallest. A cold block after one sweep can
    // miss the lowest eigenvectors entirely (seen on a 6,000-node class graph: Ritz
    // value 0.095 for an eigenvalue of 0.005), and the warm start alone may miss one
    // that the changed graph brought down.
    ...(stop && (trusted || stopFrom === "any")
      ? {
          stop: (values: Float64Array, residualNorms: Float64Array) => {
            if (sweeps++ === 0) return false;
            stopped = stop(values, residualNorms);
            return stopped;
          },
        }
      : {}),
  });
  if (warm) {
    const b = result.vectors.cols;
    const fresh = warm.block === null || warm.block.rows !== n || warm.block.cols !== b;
    if (fresh) warm.block = new Matrix(n, b);
    // A new block (or one handed in without marks) trusts none of its rows.
    if (fresh || warm.trusted?.length !== n) warm.trusted = new Uint8Array(n);
    const blk = warm.block as Matrix;
    const marks = warm.trusted as Uint8Array;
    // Trusted: a full-accuracy solve, or an early stop that started from trusted rows.
    const mark = result.converged || (stopped && trusted) ? 1 : 0;
    for (let t = 0; t < size; t++) {
      for (let j = 0; j < b; j++) blk.data[members[t] * b + j] = result.vectors.data[t * b + j];
      marks[members[t]] = mark;
    }
  }
  let bound = 0;
  for (const r of result.residualNorms) bound += r;
  return {
    values: result.values,
    vectors: result.vectors,
    residualNorms: result.residualNorms,
    bound,
    stopped,
  };
}

/** Sum of the `count` smallest of `values` (all of them when fewer). */
function smallestSum(values: number[], count: number): number {
  const sorted = values.slice().sort((a, b) => a - b);
  let s = 0;
  for (let i = 0; i < Math.min(count, sorted.length); i++) s += sorted[i];
  return s;
}

/**
 * Whether the rank control's decision is settled when the eigenvalues are `fixed`
 * (known up to the shared bound B) plus, for the component being solved, values in
 * [lo_t, hi_t]. With S_j the sum of the j smallest: "double" needs S_c > tol, "halve"
 * S_(c+1) < tol, "test" otherwise; each comparison is settled when the bounds of S_j
 * (sums of the j smallest lower / upper ends, widened by B) lie on one side of tol.
 */
function decisionSettled(
  fixed: number[],
  lo: number[],
  hi: number[],
  B: number,
  { c, tol }: RankDecision,
): boolean {
  const low = fixed.concat(lo);
  const high = fixed.concat(hi);
  if (smallestSum(low, c) - B > tol) return true; // double
  if (!(smallestSum(high, c) + B <= tol)) return false;
  return smallestSum(high, c + 1) + B < tol || smallestSum(low, c + 1) - B >= tol;
}

/**
 * True when every early-stopped component's lower bound exceeds tol + B. Why that is
 * enough, for S_j the sum of the j smallest values and j = c, c + 1: such a component's
 * true eigenvalues and its reported (Ritz) values all exceed tol + B. A sum of the j
 * smallest that is at most tol + B holds none of them, true or reported (each of its
 * terms is at most the sum), so it is the same with either; a sum above tol + B with
 * one stays above with the other. Each comparison with tol (and the check against the
 * perturbation bound B) therefore comes out as with the exact values.
 */
function valuesAboveReach(lowerBounds: readonly number[], tol: number, B: number): boolean {
  return lowerBounds.every((low) => low > tol + B);
}

interface Candidate {
  value: number;
  component: number;
  /** Index of the eigenpair within the component's solve (0 = the null vector). */
  local: number;
}

/**
 * L with its lightest off-diagonal entries removed (the diagonal adjusted so that
 * rows still sum to 0) while twice the removed weight stays within the budget. Typed
 * arrays throughout: on a 60,000-node graph the version with a number[] of weights,
 * sorted with a comparator, and rows rebuilt by push took about 0.4 s of each rank
 * control (measured at commit 285e458); this one keeps the same threshold and entries, and
 * sums in the same order, so its result has the same bits.
 */
export function pruneLightEdges(
  L: CsrMatrix,
  budget: number,
): { pruned: CsrMatrix; bound: number } {
  const n = L.rows;
  let count = 0;
  for (let i = 0; i < n; i++) {
    for (let p = L.rowPtr[i]; p < L.rowPtr[i + 1]; p++) {
      if (L.colIdx[p] > i && L.values[p] < 0) count++;
    }
  }
  const weights = new Float64Array(count);
  count = 0;
  for (let i = 0; i < n; i++) {
    for (let p = L.rowPtr[i]; p < L.rowPtr[i + 1]; p++) {
      if (L.colIdx[p] > i && L.values[p] < 0) weights[count++] = -L.values[p];
    }
  }
  // Ascending (a typed array sorts numerically; the weights are positive and finite).
  weights.sort();
  // Drop whole groups of equal weights (so the cut is a threshold) while within budget.
  let dropped = 0;
  let threshold = -1;
  for (let i = 0; i < weights.length; ) {
    let j = i;
    let group = 0;
    while (j < weights.length && weights[j] === weights[i]) group += weights[j++];
    if (2 * (dropped + group) > budget) break;
    dropped += group;
    threshold = weights[i];
    i = j;
  }
  if (threshold < 0) return { pruned: L, bound: 0 };
  const rowPtr = new Int32Array(n + 1);
  const colIdx = new Int32Array(L.rowPtr[n]);
  const values = new Float64Array(L.rowPtr[n]);
  let at = 0;
  for (let i = 0; i < n; i++) {
    let diagAt = -1;
    let removed = 0;
    for (let p = L.rowPtr[i]; p < L.rowPtr[i + 1]; p++) {
      const j = L.colIdx[p];
      const v = L.values[p];
      if (j === i) {
        diagAt = at;
        colIdx[at] = j;
        values[at++] = v;
      } else if (v < 0 && -v <= threshold) {
        removed += -v;
      } else {
        colIdx[at] = j;
        values[at++] = v;
      }
    }
    if (diagAt >= 0) values[diagAt] -= removed;
    rowPtr[i + 1] = at;
  }
  const pruned = new CsrMatrix(n, n, rowPtr, colIdx.slice(0, at), values.slice(0, at));
  return { pruned, bound: 2 * dropped };
}

/**
 * The `count` smallest eigenpairs of the Laplacian L (symmetric, rows summing to 0).
 * Ties between equal eigenvalues are ordered by component, then by position.
 */
export function laplacianSmallestEigenpairs(
  L: CsrMatrix,
  count: number,
  {
    vectors = false,
    pruneBudget = 0,
    warm,
    denseLimit = DENSE_COMPONENT_LIMIT,
    decision,
    decisionMinSize = DECISION_SOLVE_MIN_SIZE,
    signal,
  }: LaplacianSpectrumOptions = {},
): LaplacianSpectrum {
  const n = L.rows;
  if (!Number.isInteger(count) || count < 1 || count > n) {
    throw new ValidationError(
      "count",
      `The 'count' parameter of laplacianSmallestEigenpairs must be an integer in [1, ${n}]. Got ${count} instead.`,
    );
  }
  if (vectors && pruneBudget > 0) {
    throw new ValidationError(
      "pruneBudget",
      "laplacianSmallestEigenpairs cannot prune edges when eigenvectors are asked for.",
    );
  }
  const pruning = pruneBudget > 0 ? pruneLightEdges(L, pruneBudget) : { pruned: L, bound: 0 };
  const pruned = pruning.pruned;
  let bound = pruning.bound;
  const comps = connectedComponents(pruned);
  const p = comps.count;
  const candidates: Candidate[] = [];
  for (let c = 0; c < p; c++) candidates.push({ value: 0, component: c, local: 0 });
  const solved: Array<Matrix | null> = new Array(p).fill(null);
  let settled = false;
  // Components stopped once their eigenvalues were provably above the decision's reach,
  // with that lower bound (checked against the final perturbation bound below).
  const aboveReach: number[] = [];
  let settledBound = 0;
  if (p < count) {
    const extra = count - p;
    // Components that may stop early: solved iteratively, large enough, with a decision.
    const mayStopEarly = (size: number) =>
      decision !== undefined && !vectors && size >= decisionMinSize && size > denseLimit;
    // The largest of them is solved last and stops once the decision is settled.
    let decisionComponent = -1;
    for (let c = 0; c < p; c++) {
      const size = comps.sizes[c];
      if (mayStopEarly(size) && (decisionComponent < 0 || size > comps.sizes[decisionComponent])) {
        decisionComponent = c;
      }
    }
    const order: number[] = [];
    for (let c = 0; c < p; c++) if (c !== decisionComponent) order.push(c);
    if (decisionComponent >= 0) order.push(decisionComponent);
    for (const c of order) {
      const size = comps.sizes[c];
      if (size === 1) continue;
      const want = Math.min(size, extra + 1);
      const sub = pruned.principalSubmatrix(comps.members[c]);
      let stop: ((v: Float64Array, r: Float64Array) => boolean) | undefined;
      const iterative = size > denseLimit;
      if (decision && mayStopEarly(size) && c !== decisionComponent) {
        // Every positive eigenvalue of this component is at least v_1 - r_1 (its smallest
        // positive Ritz value less its residual). Once that exceeds tol + B, no sum the
        // rank control compares with tol can include one of them and stay on the other
        // side of tol (valuesAboveReach below), so more accuracy would not change it.
        const B = bound;
        const { tol } = decision;
        stop = (v, r) => v[1] - r[1] > tol + B;
      } else if (c === decisionComponent) {
        const fixed = candidates.map((x) => x.value);
        const B = bound;
        stop = (v, r) => {
          const lo: number[] = [];
          const hi: number[] = [];
          for (let t = 1; t < want; t++) {
            hi.push(Math.max(0, v[t]));
            lo.push(Math.max(0, v[t] - r[t]));
          }
          return decisionSettled(fixed, lo, hi, B, decision as RankDecision);
        };
      }
      const eig = !iterative
        ? {
            ...symmetricEigen(sub.toDense(), { select: { smallest: want }, vectors }),
            residualNorms: null,
            bound: 0,
            stopped: false,
          }
        : iterativeComponentSolve(
            sub,
            want,
            comps.members[c],
            n,
            warm,
            signal,
            stop,
            // The decision component keeps the stop it had before the others could stop
            // early (from any start): in the first outer iterations, where the
            // components change with every doubling of lambda, requiring trust there
            // made each rank control a full cold solve (about 100 s more in the first
            // outer iteration at 60,000 images). docs/methods.md says what that risks.
            c === decisionComponent ? "any" : "trusted",
          );
      if (eig.stopped && c !== decisionComponent) {
        // Its residuals are not part of the bound: the values only need to stay above tol + B.
        aboveReach.push(eig.values[1] - (eig.residualNorms as Float64Array)[1]);
      } else if (eig.stopped) {
        // The decision component's values are intervals in its own test (decisionSettled),
        // which read the bound as it was before it: that is the bound the early stops need.
        settled = true;
        settledBound = eig.bound;
      } else {
        bound += eig.bound;
      }
      // Position 0 is the component's null vector (the block is a connected
      // Laplacian, so its smallest eigenvalue is the simple zero).
      for (let t = 1; t < want; t++) {
        candidates.push({ value: Math.max(0, eig.values[t]), component: c, local: t });
      }
      solved[c] = eig.vectors;
    }
  }
  if (decision && !valuesAboveReach(aboveReach, decision.tol, bound)) {
    // A later component's residuals widened the bound past what an early stop relied on:
    // solve again without early stops.
    return laplacianSmallestEigenpairs(L, count, {
      pruneBudget,
      denseLimit,
      ...(warm ? { warm } : {}),
      ...(signal ? { signal } : {}),
    });
  }
  candidates.sort((a, b) => a.value - b.value || a.component - b.component || a.local - b.local);
  const chosen = candidates.slice(0, count);
  const values = Float64Array.from(chosen, (c) => c.value);
  let V: Matrix | null = null;
  if (vectors) {
    const out = new Matrix(n, count);
    chosen.forEach((cand, j) => {
      const members = comps.members[cand.component];
      if (cand.local === 0) {
        const v = 1 / Math.sqrt(members.length);
        for (const i of members) out.data[i * count + j] = v;
      } else {
        const Vc = solved[cand.component] as Matrix;
        for (let t = 0; t < members.length; t++) {
          out.data[members[t] * count + j] = Vc.data[t * Vc.cols + cand.local];
        }
      }
    });
    V = out;
  }
  return {
    values,
    vectors: V,
    components: comps,
    perturbationBound: bound + settledBound,
    settled,
    stoppedEarly: aboveReach.length,
  };
}

/**
 * The c + 1 smallest eigenvalues of L for the rank control, as cheaply as possible:
 * first with negligible edges pruned (a budget of 1e-6 tol), and again exactly when
 * a sum the rank control compares with tol lies within the perturbation bound of it.
 * A component of DECISION_SOLVE_MIN_SIZE nodes or more is solved only until its
 * Ritz values' bounds settle the rank control's decision, or put its values beyond
 * the decision's reach (the values returned then give that same decision); the exact
 * re-solve runs when they cannot.
 */
export function rankControlEigenvalues(
  L: CsrMatrix,
  c: number,
  tol: number,
  warm?: LaplacianWarmStart,
  options: Pick<LaplacianSpectrumOptions, "signal" | "denseLimit" | "decisionMinSize"> = {},
): Float64Array {
  const count = Math.min(c + 1, L.rows);
  const decision = count === c + 1 ? { c, tol } : undefined;
  const { signal } = options;
  const fast = laplacianSmallestEigenpairs(L, count, {
    ...options,
    pruneBudget: 1e-6 * tol,
    warm,
    ...(decision ? { decision } : {}),
  });
  if (fast.perturbationBound === 0 || fast.settled) return fast.values;
  let sumC = 0;
  for (let i = 0; i < Math.min(c, count); i++) sumC += fast.values[i];
  const sumC1 = sumC + (count > c ? fast.values[c] : 0);
  const b = fast.perturbationBound;
  if (Math.abs(sumC - tol) > b && Math.abs(sumC1 - tol) > b) return fast.values;
  // Too close to call with pruning: solve the unpruned L (iterative parts keep their
  // own, much smaller, residual bound).
  return laplacianSmallestEigenpairs(L, count, {
    warm,
    ...(signal ? { signal } : {}),
    ...(options.denseLimit !== undefined ? { denseLimit: options.denseLimit } : {}),
  }).values;
}
