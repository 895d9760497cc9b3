/**
 * Two ways to get the k trailing eigenvectors of SDSPCAAN's n x n matrix
 *
 *   Z = -G - alpha Y Y^T + beta D + delta G L G,     G = X X^T       (Eq. SDSPCAAN-Q)
 *
 * - dense: form Z (n^2 memory, the n^3 product G L G every time the graph changes)
 *   and run the dense symmetric solver; exact and fastest while n is small;
 * - operator: never form an n x n matrix; apply Z to blocks through the thin SVD
 *   X = U S V^T (G V = U S^2 U^T V), the one-hot labels, the diagonal D and the sparse
 *   L, and solve with block LOBPCG warm-started from the previous outer iteration.
 *   Tr(G L G), which the trace scaling of delta needs, is Tr(H^T L H) with
 *   H = U S^2 (H H^T = G^2): a sparse quadratic form instead of an n^3 product.
 *
 * The operator path can precondition LOBPCG with the exact (Z - sigma I)^-1: Z is a
 * diagonal plus a term of rank at most r + c, so Woodbury applies it at about half the
 * cost of Z (zPreconditioner.ts, which also proves from the inertia how many
 * eigenvalues lie below sigma). sigma sits in a gap below the k-th of the previous
 * outer iteration's Ritz values (interiorShifts); a shift below the whole spectrum,
 * the textbook choice, gains nothing here, since the k smallest eigenvalues of Z spread
 * as widely as all the others. Only the search directions change: the eigenpairs meet
 * the same residual test. "auto" uses it for k >= 20, where LOBPCG needs many sweeps
 * without it; for small k its setup (U^T L U and W^T E^-1 W, n r^2 each) costs more
 * than the few sweeps it saves (docs/performance.md, "How the solver is chosen").
 *
 * At large n the operator path can also start LOBPCG from the Ritz vectors of Z on
 * the block Krylov space span{W, D W, ..., D^J W} (zKrylovStart.ts), where Z's wanted
 * eigenvectors lie to within omega^J when they are far below beta D: LOBPCG then needs
 * one or two iterations instead of 12-25 to meet the same residual test.
 *
 * Both paths give the same subspace (tested); `chooseZSolver` picks by size.
 */
import { ValidationError } from "../../core/errors.js";
import { Matrix } from "../../core/matrix.js";
import { lobpcg } from "../../linalg/eigen/lobpcg.js";
import { trailingEigenpairs } from "../../linalg/eigen/symmetricEigen.js";
import { multiply } from "../../linalg/kernels/gemm.js";
import { sandwichProduct, sandwichScratch } from "../../linalg/sandwich.js";
import type { CsrMatrix } from "../../linalg/sparse.js";
import type { FitWarning } from "../fitReport.js";
import { fitWarning } from "../fitWarnings.js";
import { classSums, trainingSvd } from "../sharedSteps.js";
import type { TrainingData } from "../training.js";
import { GramOperator } from "./gramOperator.js";
import { trailingEigenpairsOfZ } from "./zDenseForm.js";
import { isConstantRange, krylovDegree, krylovOmega, krylovStart } from "./zKrylovStart.js";
import { liftedStart } from "./zLiftedStart.js";
import { interiorShifts, type ShiftedInverse, ZWoodbury } from "./zPreconditioner.js";

/**
 * Above this many training samples "auto" uses the operator path (for k <= 20). Measured
 * (SDSPCAAN, d = 1024, 20 classes, eigen-solve time per outer iteration, dense / LOBPCG;
 * scripts/dev/solverThreshold.ts): k = 10: n = 1000 0.49 / 0.82 s, n = 1500 1.1 / 1.3 s,
 * n = 2000 1.9 / 1.6 s, so the crossover is near 2000 for small k.
 */
export const DENSE_Z_LIMIT = 2000;

/**
 * For k > 20 the dense path is kept up to this many samples: LOBPCG without a
 * preconditioner needs many sweeps for a cluster of 100 smallest eigenvalues. Measured at
 * n = 2000: k = 30 dense 2.8 s / LOBPCG 6.4 s, k = 100 2.6 s / 32 s per iteration; n = 3000,
 * k = 100: 7.1 s / 28 s (before the preconditioner; not measured again with it). Above
 * it no n x n matrix is formed whatever k is (two of them, 72 MB each at n = 3000).
 */
export const DENSE_Z_LIMIT_LARGE_K = 3000;

/** LOBPCG's iteration cap per solve of Z; a solve that reaches it warns. */
const LOBPCG_MAX_ITERATIONS = 2000;

/** The Z solver "auto" picks for n training samples and k eigenpairs. */
export function autoZSolver(n: number, k: number): "dense" | "lobpcg" {
  const limit = k > 20 ? DENSE_Z_LIMIT_LARGE_K : DENSE_Z_LIMIT;
  return n <= limit ? "dense" : "lobpcg";
}

/**
 * Whether "auto" preconditions LOBPCG for k eigenpairs. Measured on Fashion-MNIST at
 * n = 10,000 (docs/performance.md, "How the solver is chosen"): k = 10
 * 3.0-3.6 s without, 5.5-6.7 s with (6 LOBPCG iterations without, 5-6 with: the setup
 * is all cost); k = 20 6.6-25 s without, 10.4-15.7 s with (21 % less CPU over outer
 * iterations 2 to 15, the sweeps without it growing to 50-86); k = 50 33-46 s without,
 * 19-26 s with.
 */
export function autoPreconditioner(k: number): boolean {
  return k >= 20;
}

/**
 * Whether "auto" starts LOBPCG from the Ritz vectors of Z on the block Krylov space
 * K_J = span{W, D^ W, ..., D^J W} of degree J (zKrylovStart.ts) for n training samples,
 * k eigenpairs and W of `width` columns. Only for k >= 20, where LOBPCG needs many
 * sweeps (and the preconditioner already pays for U^T L U, which the start needs too),
 * and only while K_J is small beside n (its dense work grows like ((J + 1) width)^3).
 * J = 0, exact in the first outer iteration (D = I), replaces LOBPCG's coldest solve
 * (24-39 iterations on Fashion-MNIST with k = 50) with a dense problem of order width;
 * J >= 1 costs 2J + 1 products of n width^2 / 2 and dense work of order (J + 1) width
 * against the 12-25 preconditioned LOBPCG iterations it saves (SDSPCAAN, Fashion-MNIST,
 * k = 50, two threads, eigen-solve time over the first outer iterations, with / without:
 * n = 5,000 80 / 31 s (8 iterations, J = 2 forced: K_J as wide as n / 2), 10,000 35 /
 * 50 s (6), and with the Cholesky-only form of the basis' orthonormalisation (about 1 s
 * less per solve) 20,000 37 / 99 s (5) and 60,000 66 / 266 s (4); with k = 10 at 60,000
 * the J = 0 start saved nothing and U^T L U cost 2-3 s per later iteration;
 * measured at commit 285e458).
 *
 * Where J >= 1 would be needed, the lifted space (the default `space`, zLiftedStart.ts)
 * takes K_J's place: its dense problem has order width + 3 b (b the block size), and
 * it pays from LIFTED_START_MIN_N samples on (whole fits on Fashion-MNIST, 5,000
 * images, against "auto" without it, i.e. preconditioned LOBPCG after the first solve:
 * k = 50 277 / 322 s, k = 20 114 / 209 s, the same 75 and 68 outer iterations).
 */
export function autoKrylovStart(
  n: number,
  k: number,
  width: number,
  degree: number,
  space: ZKrylovSpaceChoice = "lifted",
  block: number = lobpcgBlockSize(n, k),
): boolean {
  if (k < 20) return false;
  if (degree === 0) return width <= n / 4;
  if (space === "lifted") return n >= LIFTED_START_MIN_N && width + 3 * block <= n / 4;
  return n >= KRYLOV_START_MIN_N && (degree + 1) * width <= n / 4;
}

/**
 * LOBPCG's block on Z for k eigenpairs: k plus guard vectors. With only a few guards
 * the k-th pair converges slowly where the spectrum is dense (measured: k = 10 at
 * n = 2500 took 168 LOBPCG iterations with 4 guards, 64 with 10).
 */
export function lobpcgBlockSize(n: number, k: number): number {
  return Math.min(n, k + Math.max(10, Math.ceil(k / 4)));
}

/** From this many training samples on "auto" uses the lifted space (see autoKrylovStart). */
export const LIFTED_START_MIN_N = 5_000;

/**
 * From this many training samples on "auto" uses K_J with J >= 1 when `krylovSpace` is
 * "chebyshev" (see autoKrylovStart).
 */
export const KRYLOV_START_MIN_N = 10_000;

/**
 * Guard columns of LOBPCG's start block that are fresh seeded random vectors on every
 * solve; the other guards carry over from the previous solve's block. The random ones
 * keep an eigenvector the previous block misses entirely (e.g. one in the null space of
 * G, which beta D pulls down) within reach. Measured on Fashion-MNIST (10,000 images,
 * k = 50, 13 guards, outer iterations 2-8, measured at commit 285e458): LOBPCG iterations 142
 * with all 13 guards random, 126 with 4, 114 with 2, 117 with 1, 115 with none.
 */
export const FRESH_GUARDS = 2;

/** What one iteration needs of the graph: L, and Tr(G L G) (plus G L G itself when dense). */
export interface ZGraph {
  readonly L: CsrMatrix;
  readonly trM: number;
  /** G L G (dense path only). */
  readonly M: Matrix | null;
}

export interface ZSolution {
  readonly values: Float64Array;
  readonly vectors: Matrix;
}

export interface ZSolver {
  readonly kind: "dense" | "lobpcg";
  /**
   * Tr(G L G) and, for the dense path, G L G, for the graph S (symmetric) and its
   * Laplacian L, which the next solves use (with a weight delta, see zWeights.ts).
   */
  graphTerm(S: CsrMatrix, L: CsrMatrix): ZGraph;
  /** The k trailing eigenpairs of Z = Z0 + beta diag(Dd) + delta G L G. */
  solve(beta: number, Dd: Float64Array, delta: number, graph: ZGraph | null): ZSolution;
  /** G Q: the projected training rows (Q^T X x_i)^T. */
  project(Q: Matrix): Matrix;
  /** Diagnostics (LOBPCG iterations and solves on the matrix-free path), JSON-safe. */
  readonly stats: ZSolverStats;
  /** Warnings met while solving (the fit reports them). */
  readonly warnings: FitWarning[];
  /** Frees what the solver holds outside the JS heap (resident factors, helper threads). */
  release(): void;
}

export type ZSolverChoice = "auto" | "dense" | "lobpcg";

/** Whether LOBPCG is preconditioned with (Z - sigma I)^-1 (see zPreconditioner.ts). */
export type ZPreconditionerChoice = "auto" | "always" | "never";

/** Whether LOBPCG starts from Rayleigh-Ritz on W's Krylov spaces (see zKrylovStart.ts). */
export type ZKrylovStartChoice = "auto" | "always" | "never";

/**
 * The space of that start once beta D varies: the lifted space (zLiftedStart.ts) or
 * K_J (zKrylovStart.ts). Kept selectable so that the measurements between them in
 * docs/performance.md can be repeated.
 */
export type ZKrylovSpaceChoice = "lifted" | "chebyshev";

/** What the matrix-free path counts (empty on the dense path). */
export type ZSolverStats = {
  lobpcgIterations?: number;
  lobpcgSolves?: number;
  /** LOBPCG iterations of each solve, in order. */
  lobpcgIterationsPerSolve?: number[];
  /** Solves preconditioned with (Z - sigma I)^-1. */
  preconditionedSolves?: number;
  /** LOBPCG iterations whose residuals went through the preconditioner. */
  preconditionedIterations?: number;
  /** Threads the products with the SVD factor ran on (1 + kernel helpers; linalg/kernels/helper.ts). */
  productThreads?: number;
  /** The degree J of each solve started from K_J's Ritz vectors (zKrylovStart.ts), in order. */
  krylovDegrees?: number[];
  /** Solves started from the lifted space's Ritz vectors (zLiftedStart.ts). */
  liftedStarts?: number;
};

class DenseZSolver implements ZSolver {
  readonly kind = "dense" as const;
  readonly stats: ZSolverStats = {};
  readonly warnings: FitWarning[] = [];
  private readonly G: Matrix;
  private readonly Z0: Matrix;
  /** The eigen-solver's workspace, reused by every solve (zDenseForm.ts). */
  private readonly work: Float64Array;
  /** L G and its transpose, the temporaries of every G L G (sandwich.ts). */
  private readonly sandwich = sandwichScratch();
  /** Z formed whole, for the general entry (a zero or non-finite Z). */
  private Z: Matrix | null = null;
  private readonly k: number;

  constructor(data: TrainingData, alpha: number, codes: Int32Array, k: number, recon: number) {
    const G = data.gram();
    const n = G.rows;
    this.G = G;
    this.k = k;
    // Z0 = -G - alpha Y Y^T (Algorithm 1, first line): (Y Y^T)_ij = 1 within a class.
    // recon = 0 drops -G (the paper's literal SPCAN).
    const Z0 = new Matrix(n, n);
    const z = Z0.data;
    const g = G.data;
    for (let i = 0; i < n; i++) {
      const ci = codes[i];
      const off = i * n;
      for (let j = 0; j < n; j++) {
        z[off + j] = codes[j] === ci ? -recon * g[off + j] - alpha : -recon * g[off + j];
      }
    }
    this.Z0 = Z0;
    this.work = new Float64Array(n * n);
  }

  graphTerm(_S: CsrMatrix, L: CsrMatrix): ZGraph {
    const M = sandwichProduct(this.G, L, this.sandwich);
    let trM = 0;
    for (let i = 0; i < M.rows; i++) trM += M.data[i * M.cols + i];
    return { L, trM, M };
  }

  solve(beta: number, Dd: Float64Array, delta: number, graph: ZGraph | null): ZSolution {
    const M = graph === null || delta === 0 ? null : (graph.M as Matrix);
    // Z written scaled into the solver's triangle in one pass: the general entry's bits.
    const fused = trailingEigenpairsOfZ(this.work, this.Z0, beta, Dd, delta, M, this.k);
    if (fused !== null) return fused;
    // A zero or non-finite Z: the general entry handles the one and reports the other.
    const n = this.Z0.rows;
    this.Z ??= new Matrix(n, n);
    const z = this.Z.data;
    z.set(this.Z0.data);
    for (let i = 0; i < n; i++) z[i * n + i] += beta * Dd[i];
    if (M !== null) {
      const md = M.data;
      for (let p = 0; p < z.length; p++) z[p] += delta * md[p];
    }
    // Z is symmetric by construction (G, Y Y^T, D and G L G all are, to the bit), so
    // the n^2 symmetry scan is skipped.
    return trailingEigenpairs(this.Z, this.k, { symmetryTolerance: Number.POSITIVE_INFINITY });
  }

  project(Q: Matrix): Matrix {
    return multiply(this.G, Q);
  }

  release(): void {}
}

class OperatorZSolver implements ZSolver {
  readonly kind = "lobpcg" as const;
  readonly stats: Required<ZSolverStats> = {
    lobpcgIterations: 0,
    lobpcgSolves: 0,
    lobpcgIterationsPerSolve: [],
    preconditionedSolves: 0,
    preconditionedIterations: 0,
    productThreads: 1,
    krylovDegrees: [],
    liftedStarts: 0,
  };
  readonly warnings: FitWarning[] = [];
  /**
   * G V and Tr(G L G) from the thin SVD's U, U^T (kept so that U^T V needs no transpose
   * per product) and S^2, resident in WebAssembly memory (gramOperator.ts).
   */
  private readonly gram: GramOperator;
  private readonly alpha: number;
  private readonly recon: number;
  private readonly codes: Int32Array;
  private readonly c: number;
  private readonly k: number;
  private readonly seed: number;
  private readonly signal: AbortSignal | undefined;
  private readonly precondition: boolean;
  private readonly krylov: ZKrylovStartChoice;
  private readonly krylovSpace: ZKrylovSpaceChoice;
  private block: Matrix | null = null;
  /** The Ritz values of `block` (the previous solve's), for the next shift. */
  private previousValues: Float64Array | null = null;
  private woodbury: ZWoodbury | null = null;

  constructor(
    data: TrainingData,
    alpha: number,
    codes: Int32Array,
    c: number,
    k: number,
    seed: number,
    signal: AbortSignal | undefined,
    recon: number,
    precondition: boolean,
    krylov: ZKrylovStartChoice,
    krylovSpace: ZKrylovSpaceChoice,
  ) {
    const svd = trainingSvd(data);
    this.recon = recon;
    this.gram = new GramOperator(
      svd.U,
      data.cached("operator:Ut", () => svd.U.transpose()),
      Float64Array.from(svd.s, (v) => v * v),
    );
    this.stats.productThreads = this.gram.threads;
    this.alpha = alpha;
    this.codes = codes;
    this.c = c;
    this.k = k;
    this.seed = seed;
    this.signal = signal;
    this.precondition = precondition;
    this.krylov = krylov;
    this.krylovSpace = krylovSpace;
  }

  graphTerm(S: CsrMatrix, L: CsrMatrix): ZGraph {
    // Once Z's structure is built (the first start or preconditioner), every solve with a
    // graph term forms U^T L U for its Laplacian anyway (ZWoodbury caches it per L, and
    // the compact product and the starts use it), and Tr(G L G) = Tr(S^4 U^T L U) (U^T U
    // = I) is then its diagonal's weighted sum: at 60,000 x 784 the edge sum below took
    // 0.7 s per outer iteration (measured at commit 285e458: "Tr(G L G) from U^T L U").
    if (this.woodbury !== null) {
      const K = this.woodbury.laplacianTerm(L);
      const { s2 } = this.gram;
      const r = K.rows;
      let trM = 0;
      for (let t = 0; t < r; t++) trM += s2[t] * s2[t] * K.data[t * r + t];
      return { L, trM, M: null };
    }
    // Tr(G L G) = Tr(H^T L H) with H = U S^2 (H H^T = G^2), without forming H. S is the
    // symmetrised graph (symmetrizeGraph), so each edge can be visited once.
    return { L, trM: this.gram.edgeTrace(S), M: null };
  }

  /**
   * (Z - sigma I)^-1 with sigma in a gap of the spectrum below the k-th eigenvalue,
   * placed from the previous solve's Ritz values (Z changes little from one outer
   * iteration to the next; see interiorShifts), with the exact count of eigenvalues
   * below it from the inertia of the Woodbury factorisation. Null on the first solve
   * (no spectrum to place sigma in yet) or when no candidate shift gives an invertible
   * Z - sigma I with a positive definite diagonal part; LOBPCG then runs unpreconditioned.
   *
   * (The Ritz values of the new Z on the previous block, one application of Z more,
   * were tried as well: 4-13 % fewer iterations on synthetic data, 30 % more on
   * Fashion-MNIST with k = 50.)
   */
  private shiftedInverse(
    betaD: Float64Array,
    delta: number,
    graph: ZGraph | null,
    blockSize: number,
  ): ShiftedInverse | null {
    const theta = this.previousValues;
    if (theta === null) return null;
    const woodbury = this.structure();
    const L = graph === null ? null : graph.L;
    // Each try costs W^T E^-1 W (n m^2 / 2): two at most.
    for (const sigma of interiorShifts(theta, this.k).slice(0, 2)) {
      const inverse = woodbury.build(betaD, delta, L, sigma);
      if (inverse !== null && inverse.below < blockSize) return inverse;
    }
    return null;
  }

  /** Z = beta D + W C W^T's fixed parts (built on first use). */
  private structure(): ZWoodbury {
    if (this.woodbury === null) {
      this.woodbury = new ZWoodbury(
        this.gram.U,
        this.gram.Ut,
        this.gram.s2,
        this.codes,
        this.c,
        this.alpha,
        this.recon,
        this.gram,
      );
    }
    return this.woodbury;
  }

  /**
   * The Ritz vectors of Z on K_J (zKrylovStart.ts) as LOBPCG's start, with J chosen
   * from omega for the previous solve's k-th Ritz value (or 0 while beta D is
   * constant, where K_0 is exact). Null when K_J does not apply (no estimate yet with
   * a varying D, the estimate not below beta D's range, or omega too large for the
   * largest degree).
   */
  private krylovBlock(
    betaD: Float64Array,
    delta: number,
    graph: ZGraph | null,
    blockSize: number,
  ): Matrix | null {
    const n = betaD.length;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (const v of betaD) {
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
    const theta = this.previousValues;
    // The first solve has no estimate of lambda_k: K_0 if beta D is constant, else nothing.
    const omega =
      theta !== null
        ? krylovOmega(theta[this.k - 1], lo, hi)
        : isConstantRange(lo, hi)
          ? 0
          : Number.POSITIVE_INFINITY;
    const degree = Number.isFinite(omega) ? krylovDegree(omega) : null;
    if (degree === null) return null;
    // W's width before W is built: r + c bounds r + c'.
    const width = this.woodbury?.width ?? this.gram.U.cols + this.c;
    if (
      this.krylov === "auto" &&
      !autoKrylovStart(n, this.k, width, degree, this.krylovSpace, blockSize)
    ) {
      return null;
    }
    const L = graph === null ? null : graph.L;
    if (degree >= 1 && this.krylovSpace === "lifted") {
      // Where K_J would need J >= 1, the lifted space holds the wanted vectors closer for
      // less (zLiftedStart.ts; Fashion-MNIST, 60,000 images, k = 50: no LOBPCG iteration
      // after it, against 2 after K_1, and 7.8 s less per outer iteration over the first
      // 8; late in the fit the difference was within the run-to-run spread).
      const lifted = liftedStart(this.structure(), betaD, delta, L, blockSize, {
        signal: this.signal,
      });
      if (lifted === null) return null;
      this.stats.liftedStarts += 1;
      return lifted.vectors;
    }
    const start = krylovStart(this.structure(), betaD, delta, L, degree, blockSize, this.signal);
    if (start === null) return null;
    this.stats.krylovDegrees.push(start.degree);
    return start.vectors;
  }

  solve(beta: number, Dd: Float64Array, delta: number, graph: ZGraph | null): ZSolution {
    const n = this.gram.U.rows;
    const { codes, c, alpha, recon } = this;
    // weight * B - alpha Y Y^T V + beta D V for an n x b block B (G V, or U A U^T V).
    const withLabelsAndDiagonal = (weight: number, B: Matrix, V: Matrix): Matrix => {
      const b = V.cols;
      const out = new Matrix(n, b);
      const o = out.data;
      const sums = classSums(V, codes, c);
      for (let i = 0; i < n; i++) {
        const off = codes[i] * b;
        const di = beta * Dd[i];
        for (let j = 0; j < b; j++) {
          const p = i * b + j;
          o[p] = weight * B.data[p] - alpha * sums[off + j] + di * V.data[p];
        }
      }
      return out;
    };
    const apply = (V: Matrix): Matrix => {
      const GV = this.gram.apply(V);
      const out = withLabelsAndDiagonal(-recon, GV, V);
      if (graph !== null && delta !== 0) {
        const o = out.data;
        const GLGV = this.gram.apply(graph.L.multiplyMatrix(GV));
        for (let p = 0; p < o.length; p++) o[p] += delta * GLGV.data[p];
      }
      return out;
    };
    const blockSize = lobpcgBlockSize(n, this.k);
    let inverse: ShiftedInverse | null = null;
    const betaD = Float64Array.from(Dd, (v) => beta * v);
    // The Krylov start leaves LOBPCG a few iterations, too few to repay the
    // preconditioner's setup (an n m^2 / 2 product, as one moment).
    const krylovBlock =
      this.krylov === "never" ? null : this.krylovBlock(betaD, delta, graph, blockSize);
    if (this.precondition && krylovBlock === null) {
      inverse = this.shiftedInverse(betaD, delta, graph, blockSize);
      if (inverse !== null) this.stats.preconditionedSolves += 1;
    }
    // Once the preconditioner's setup has U^T L U for this graph (ZWoodbury caches it per
    // Laplacian), Z V = beta D V - alpha Y Y^T V + U (A (U^T V)) with the r x r
    // A = -rec S^2 + delta S^2 (U^T L U) S^2: two n x r products per application instead
    // of four and the sparse one (the same operator; only the rounding differs).
    const compact =
      this.woodbury !== null && graph !== null && delta !== 0
        ? this.woodbury.middleFactor(delta, graph.L)
        : null;
    const applyZ =
      compact === null
        ? apply
        : (V: Matrix): Matrix =>
            withLabelsAndDiagonal(1, this.gram.timesU(multiply(compact, this.gram.timesUt(V))), V);
    // Warm start from the previous solve's Ritz block: its k wanted vectors and all but
    // the last FRESH_GUARDS of its guard vectors. The first solve starts from the leading
    // left singular vectors (the trailing eigenvectors of -G) and random guards.
    // A Krylov start is kept whole: its guard vectors are Ritz vectors too.
    const keep = this.block === null ? this.k : Math.max(this.k, blockSize - FRESH_GUARDS);
    const start = this.block ?? this.gram.U;
    const initial = krylovBlock ?? start.leadingColumns(Math.min(start.cols, keep));
    const result = lobpcg(applyZ, n, this.k, {
      initial,
      blockSize,
      tol: 1e-10,
      maxIterations: LOBPCG_MAX_ITERATIONS,
      seed: this.seed + this.stats.lobpcgSolves,
      signal: this.signal,
      ...(inverse === null
        ? {}
        : {
            preconditioner: inverse.apply,
            ...(inverse.below > 0
              ? { preconditionerShift: { sigma: inverse.sigma, below: inverse.below } }
              : {}),
          }),
    });
    this.block = result.block;
    this.previousValues = result.blockValues;
    this.stats.lobpcgIterations += result.iterations;
    this.stats.lobpcgSolves += 1;
    this.stats.lobpcgIterationsPerSolve.push(result.iterations);
    this.stats.preconditionedIterations += result.preconditionedIterations;
    if (!result.converged && this.warnings.length === 0) {
      const residual = Math.max(...result.residualNorms);
      this.warnings.push(
        fitWarning(
          "eigensolver-tolerance",
          `LOBPCG did not reach its tolerance on Z within ${LOBPCG_MAX_ITERATIONS} iterations at outer iteration ${this.stats.lobpcgSolves} (largest residual ${residual.toExponential(2)}); the iteration continued with the best Ritz vectors. solver "dense" solves Z exactly (it forms the n x n matrix).`,
          {
            iteration: this.stats.lobpcgSolves,
            maxIterations: LOBPCG_MAX_ITERATIONS,
            residual,
          },
        ),
      );
    }
    return { values: result.values, vectors: result.vectors };
  }

  project(Q: Matrix): Matrix {
    return this.gram.apply(Q);
  }

  release(): void {
    this.gram.release();
  }
}

/** What the Z eigen-solver is built from (see `chooseZSolver`). */
export interface ZSolverRequest {
  /** "auto" (by size), "dense" or "lobpcg". */
  readonly choice: ZSolverChoice;
  readonly data: TrainingData;
  /** The label term's weight alpha (after trace scaling). */
  readonly alpha: number;
  /** Class codes 0..c-1 of the training rows. */
  readonly codes: Int32Array;
  /** Number of classes c. */
  readonly classes: number;
  /** Eigenpairs wanted. */
  readonly k: number;
  /** Seed of LOBPCG's random start vectors. */
  readonly seed: number;
  readonly signal?: AbortSignal | undefined;
  /** Weight of -X X^T in Z: 1 (default), or 0 for the paper's literal SPCAN. */
  readonly reconstruction?: number;
  /** LOBPCG's preconditioner on the matrix-free path (default "auto", see autoPreconditioner). */
  readonly preconditioner?: ZPreconditionerChoice;
  /** LOBPCG's start from W's Krylov spaces on the matrix-free path (default "auto", see autoKrylovStart). */
  readonly krylovStart?: ZKrylovStartChoice;
  /** The space of that start once beta D varies (default "lifted"). */
  readonly krylovSpace?: ZKrylovSpaceChoice;
}

/** The solver for `request.choice` ("auto": see autoZSolver). */
export function chooseZSolver(request: ZSolverRequest): ZSolver {
  const { choice, data, alpha, codes, classes: c, k, seed, signal } = request;
  const recon = request.reconstruction ?? 1;
  const kind = choice === "auto" ? autoZSolver(data.n, k) : choice;
  if (kind === "dense") return new DenseZSolver(data, alpha, codes, k, recon);
  if (kind === "lobpcg") {
    const mode = request.preconditioner ?? "auto";
    const precondition = mode === "auto" ? autoPreconditioner(k) : mode === "always";
    const krylov = request.krylovStart ?? "auto";
    return new OperatorZSolver(
      data,
      alpha,
      codes,
      c,
      k,
      seed,
      signal,
      recon,
      precondition,
      krylov,
      request.krylovSpace ?? "lifted",
    );
  }
  throw new ValidationError("solver", `Unknown solver ${JSON.stringify(choice)}.`);
}
