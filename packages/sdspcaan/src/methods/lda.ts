/**
 * LDA, linear discriminant analysis (Fisher 1936; an extra beyond the paper, SPEC
 * section 3 item 10): the directions of the generalised eigenproblem
 * S_b w = mu S_w w with the largest mu, where S_b = sum_c n_c (m_c - m)(m_c - m)^T and
 * S_w = sum_i (x_i - m_{c_i})(x_i - m_{c_i})^T. S_b has rank at most c - 1, so
 * 1 <= k <= c - 1.
 *
 * Solved in the span of the centred data, where S_t = S_b + S_w = X^T X is positive
 * definite: with X = U_r S_r R_r^T and w = R_r S_r^-1 z, w^T S_t w = z^T z and
 * w^T S_b w = z^T U_r^T H H^T U_r z for H[:, j] = e_j / sqrt(n_j) (class indicators),
 * so the problem becomes the r x r eigenproblem of B = U_r^T H H^T U_r, whose
 * eigenvalues beta = mu / (1 + mu) lie in [0, 1]. Whenever S_w is nonsingular on the
 * span, (S_b, S_w) and (S_b, S_t) have the same eigenvectors, so this is textbook LDA
 * (no regularisation, no inverse of any scatter matrix).
 *
 * A singular S_w (always when d >= n: rank S_w <= n - c < r). Its null directions in
 * the span are exactly those with beta = 1 (mu infinite): every class projects to a
 * single point. They all tie in Fisher's criterion, and there can be up to c - 1 of
 * them, so which k to keep, and in which basis, is not defined by the criterion. They
 * are ranked deterministically by the null-space LDA rule (Chen et al. 2000): most
 * between-class scatter per unit ||w||_2, i.e. the eigenvectors of the Gram matrix
 * W_0^T W_0 of the tied directions, smallest ||w|| first. They come before every
 * finite-mu direction. The same rule orders any other cluster of numerically equal
 * eigenvalues, so that the basis never depends on the eigen-solver's arbitrary
 * choice inside a multiple eigenspace. Eigenvalues closer than
 * EQUAL_RATIO_TOLERANCE = 1e-9 count as equal (computed null directions have
 * |1 - beta| ~ 1e-14 on Yale, ORL and COIL20).
 *
 * When d < n the thin SVD's right factor is the eigenvector matrix of X^T X, U is
 * never formed (U_r^T H = S_r^-1 R_r^T X^T H), and B's q leading eigenpairs come from
 * the c x c matrix C^T C (z = C y / sqrt(beta)), so the one O(d^3) step is the
 * eigen-decomposition of X^T X; the route through the full thin SVD and the r x r B
 * (directionsFromThinSvd) runs when n <= d, or when a wanted ratio is near zero.
 *
 * W is normalised so that W^T S_t W = I (then W^T S_b W = diag(beta)); the
 * standardised 1-NN classifier ignores per-column scale anyway. Signs follow the
 * library convention (each column's largest-magnitude entry positive).
 */

import { Matrix } from "../core/matrix.js";
import type { OptionSchema } from "../core/options.js";
import { symmetrizeInPlace } from "../linalg/basic.js";
import { fullRankFactor, solveRefined } from "../linalg/cholesky.js";
import { normalizeEigenvectorSigns, symmetricEigen } from "../linalg/eigen/symmetricEigen.js";
import { multiply, multiplyABt, multiplyAtB } from "../linalg/kernels/gemm.js";
import { gramColumns } from "../linalg/kernels/symmetricProducts.js";
import { innerProducts } from "../linalg/orthogonalize.js";
import { defaultRankTolerance } from "../linalg/svd.js";
import { checkComponentCount } from "./commonOptions.js";
import { defineMethod } from "./descriptor.js";
import { type CoreFitResult, Estimator, type FitContext } from "./estimator.js";
import type { FitWarning } from "./fitReport.js";
import { fitWarning } from "./fitWarnings.js";
import type { LDAOptions, ResolvedLDAOptions } from "./optionTypes.js";
import { closedForm, nonDegenerateSvd } from "./sharedSteps.js";
import type { TrainingData } from "./training.js";

/** Between/total ratios (in [0, 1]) closer than this count as equal (and as 1: mu infinite). */
export const EQUAL_RATIO_TOLERANCE = 1e-9;

/**
 * Gives every run of numerically equal eigenvalues among the first `end` columns of W
 * a canonical basis: consecutive values differing by at most `threshold` form a
 * cluster, whose columns (orthonormal in some inner product that makes them
 * interchangeable) are rotated to the eigenvectors of their Euclidean Gram matrix,
 * ascending, i.e. ordered by increasing ||w||_2 (the null-space LDA rule). The
 * subspace of each cluster and the inner product are unchanged. `values` may be
 * ascending or descending. Returns the number of clusters rotated.
 */
export function canonicalizeEqualEigenvalues(
  W: Matrix,
  values: ArrayLike<number>,
  end: number,
  threshold: number,
): number {
  let rotated = 0;
  let start = 0;
  while (start < end) {
    let stop = start + 1;
    while (stop < end && Math.abs(values[stop] - values[stop - 1]) <= threshold) stop++;
    if (stop - start > 1) {
      rotateToNormOrder(W, start, stop);
      rotated++;
    }
    start = stop;
  }
  return rotated;
}

/** Rotates columns [start, stop) of W to the ascending eigenvectors of their Gram matrix. */
function rotateToNormOrder(W: Matrix, start: number, stop: number): void {
  const d = W.rows;
  const k = W.cols;
  const q = stop - start;
  const N = new Matrix(d, q);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < q; j++) N.data[i * q + j] = W.data[i * k + start + j];
  }
  const G = innerProducts(N, N);
  symmetrizeInPlace(G);
  const Y = symmetricEigen(G).vectors as Matrix;
  const R = multiply(N, Y);
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < q; j++) W.data[i * k + start + j] = R.data[i * q + j];
  }
}

const OPTIONS = {
  k: {
    type: "integer",
    min: 1,
    default: null,
    doc: "Number of discriminant directions k <= c - 1; null means min(c - 1, numerical rank of X).",
  },
} as const satisfies OptionSchema;

/** LDA's diagnostics (`fitInfo.details`). */
export type LDADetails = {
  k: number;
  rank: number;
  classes: number;
  /** Between-class over total scatter of each kept direction, in [0, 1]. */
  betweenToTotal: number[];
  /** Fisher ratio b / (1 - b) per direction; null where it is infinite (null-space directions). */
  fisherRatios: Array<number | null>;
  /** How many kept directions lie in the within-class null space. */
  nullSpaceDirections: number;
};

/**
 * The route LDA's directions take: "auto" (the full-rank solve where X^T X has a
 * Cholesky certificate, else the column span when d < n, else the thin SVD), or, for
 * the tests that compare the routes, "eigen-span" (skips the full-rank solve, so that
 * the eigen-decomposition of X^T X runs where it would have) and "thin-svd" (every
 * problem through the thin SVD and the r x r between-class problem).
 */
export type LDARoute = "auto" | "eigen-span" | "thin-svd";

/** LDA's fit on prepared data along `route` (see LDARoute). */
export function fitLDA(
  data: TrainingData,
  params: ResolvedLDAOptions,
  ctx: FitContext,
  route: LDARoute = "auto",
): CoreFitResult<LDADetails> {
  const owner = "LDA";
  const labels = data.requireLabels(owner);
  const { codes, counts } = labels;
  const c = counts.length;
  if (params.k !== null) {
    checkComponentCount(
      owner,
      params.k,
      c - 1,
      `at most c - 1 = ${c - 1} for ${c} classes: the between-class scatter has rank at most c - 1`,
    );
  }
  const fullRank =
    route !== "auto" ? null : ctx.timeEigen(() => fullRankDirections(data, codes, counts));
  const span =
    route === "thin-svd" || fullRank !== null ? null : ctx.timeEigen(() => columnSpan(data));
  if (span !== null && span.rank === 0) nonDegenerateSvd(owner, data, ctx);
  const r = fullRank ? data.d : (span?.rank ?? nonDegenerateSvd(owner, data, ctx).rank);
  const k = params.k ?? Math.min(c - 1, r);
  checkComponentCount(
    owner,
    k,
    r,
    `at most the numerical rank r = ${r} of the centred training data: LDA is solved in the span of the data`,
  );
  const q = Math.min(c - 1, r);
  ctx.checkAborted();
  const solved =
    fullRank ??
    (span && ctx.timeEigen(() => directionsInColumnSpan(data, span, codes, counts, q))) ??
    directionsFromThinSvd(data, ctx, codes, counts, q);
  const { betas, W } = solved;
  // Directions with beta = 1 (mu infinite) come first already (largest beta); the
  // rule orders them, and any other tie, by ||w||.
  canonicalizeEqualEigenvalues(W, betas, q, EQUAL_RATIO_TOLERANCE);
  const nullDirections = nullSpaceCount(betas);
  const out = W.leadingColumns(k);
  normalizeEigenvectorSigns(out);
  const warnings: FitWarning[] = [];
  if (betas[k - 1] <= EQUAL_RATIO_TOLERANCE) {
    let rankSb = 0;
    while (rankSb < q && betas[rankSb] > EQUAL_RATIO_TOLERANCE) rankSb++;
    warnings.push(
      fitWarning(
        "between-class-rank",
        `The between-class scatter has numerical rank ${rankSb} < k = ${k} (class means are linearly dependent): the last ${k - rankSb === 1 ? "direction carries" : `${k - rankSb} directions carry`} no class separation.`,
        { rank: rankSb, k },
      ),
    );
  }
  const fisherRatios = Array.from(betas.subarray(0, k), (b, j) =>
    j < nullDirections ? null : b / (1 - b),
  );
  return closedForm(out, {
    warnings,
    details: {
      k,
      rank: r,
      classes: c,
      betweenToTotal: Array.from(betas),
      fisherRatios,
      nullSpaceDirections: nullDirections,
    },
  });
}

/** How many leading ratios are 1 (to EQUAL_RATIO_TOLERANCE): directions in the within-class null space. */
function nullSpaceCount(betas: ArrayLike<number>): number {
  let count = 0;
  while (count < betas.length && betas[count] >= 1 - EQUAL_RATIO_TOLERANCE) count++;
  return count;
}

/**
 * The share of the discriminant variance along each of the first k of the q
 * directions, as scikit-learn's `explained_variance_ratio_`: the Fisher ratios
 * mu_j = beta_j / (1 - beta_j) (between- over within-class variance) over their sum
 * for all q directions. Directions in the within-class null space have mu infinite:
 * when there are any, they share the whole ratio equally (the limit as their
 * within-class variance goes to 0) and the others have 0.
 */
export function discriminantRatios(betweenToTotal: readonly number[], k: number): Float64Array {
  const nullDirections = nullSpaceCount(betweenToTotal);
  const out = new Float64Array(k);
  if (nullDirections > 0) {
    for (let j = 0; j < Math.min(k, nullDirections); j++) out[j] = 1 / nullDirections;
    return out;
  }
  const mu = betweenToTotal.map((b) => b / (1 - b));
  const total = mu.reduce((a, b) => a + b, 0);
  for (let j = 0; j < k; j++) out[j] = total > 0 ? mu[j] / total : 0;
  return out;
}

export class LDA extends Estimator<ResolvedLDAOptions, LDADetails> {
  constructor(options: LDAOptions = {}) {
    super(LDA_METHOD, options);
  }

  protected fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<LDADetails> {
    return fitLDA(data, this.params, ctx);
  }

  /**
   * Each direction's share of the discriminant variance, as scikit-learn's
   * `explained_variance_ratio_` (see discriminantRatios): its between- over
   * within-class variance over the sum for all min(c - 1, rank) directions.
   */
  get explainedVarianceRatio(): Float64Array {
    return discriminantRatios(this.fitInfo.details.betweenToTotal, this.nComponents);
  }
}

/** Descending between/total ratios and W0 = R_r S_r^-1 Z (d x q), before the tie rule. */
interface Directions {
  betas: Float64Array;
  W: Matrix;
}

/** The class-indicator matrix H[:, j] = e_j / sqrt(n_j) (n x c). */
function classIndicators(codes: ArrayLike<number>, counts: ArrayLike<number>, n: number): Matrix {
  const c = counts.length;
  const H = new Matrix(n, c);
  for (let i = 0; i < n; i++) H.data[i * c + codes[i]] = 1 / Math.sqrt(counts[codes[i]]);
  return H;
}

/**
 * The textbook route of the file comment: the thin SVD X = U_r S_r R_r^T (U formed and
 * re-orthonormalised), C = U_r^T H and the q largest eigenpairs of the r x r B = C C^T.
 */
function directionsFromThinSvd(
  data: TrainingData,
  ctx: FitContext,
  codes: ArrayLike<number>,
  counts: ArrayLike<number>,
  q: number,
): Directions {
  const svd = nonDegenerateSvd("LDA", data, ctx);
  const r = svd.rank;
  // C = U_r^T H (r x c): B = C C^T is S_b in span coordinates.
  const C = innerProducts(svd.U, classIndicators(codes, counts, data.n));
  const B = innerProducts(C.transpose(), C.transpose());
  symmetrizeInPlace(B);
  const eig = ctx.timeEigen(() => symmetricEigen(B, { select: { largest: q } }));
  const Zasc = eig.vectors as Matrix;
  // Descending ratios beta and their vectors z; W0 = R_r S_r^-1 Z.
  const betas = new Float64Array(q);
  const Z = new Matrix(r, q);
  for (let j = 0; j < q; j++) {
    const from = q - 1 - j;
    betas[j] = Math.min(1, Math.max(0, eig.values[from]));
    for (let a = 0; a < r; a++) Z.data[a * q + j] = Zasc.data[a * q + from] / svd.s[a];
  }
  return { betas, W: multiply(svd.V, Z) };
}

/** R_r and S_r^2 of the centred X from the eigen-decomposition of X^T X (d x d). */
interface ColumnSpan {
  /** d x r, the right singular vectors, descending. */
  readonly V: Matrix;
  /** The r squared singular values, descending. */
  readonly lambda: Float64Array;
  readonly rank: number;
}

/**
 * When d <= n, the right factor of the thin SVD is the eigenvector matrix of X^T X
 * itself (thinSvd's Gram side and rank rule); U is never needed, since
 * U_r^T H = S_r^-1 R_r^T (X^T H). Null when n < d (the thin-SVD route then runs).
 */
function columnSpan(data: TrainingData): ColumnSpan | null {
  const X = data.X;
  if (data.n <= data.d) return null;
  const { values, vectors } = symmetricEigen(gramColumns(X), {
    symmetryTolerance: Number.POSITIVE_INFINITY,
  });
  const V = vectors as Matrix;
  const m = values.length;
  const lmax = values[m - 1];
  const tol = defaultRankTolerance(data.n, data.d);
  const order: number[] = [];
  if (lmax > 0) {
    for (let j = m - 1; j >= 0 && values[j] > tol * tol * lmax; j--) order.push(j);
  }
  return {
    V: V.selectColumns(order),
    lambda: Float64Array.from(order, (j) => values[j]),
    rank: order.length,
  };
}

/** Ratios at most this far from 0 leave the c x c route (z = C y / sqrt(beta) loses digits). */
const SMALL_RATIO = 1e-6;

/**
 * The q largest eigenpairs of the c x c problem K = Y diag(beta) Y^T that both
 * column-span routes end in: the ratios beta (capped at 1) and Y_q diag(beta)^-1/2.
 * Null when one of the q ratios is below SMALL_RATIO (its direction is not in the
 * range the route works in; the caller's fallback then runs).
 */
function leadingRatios(K: Matrix, q: number): { betas: Float64Array; Yq: Matrix } | null {
  const c = K.rows;
  symmetrizeInPlace(K);
  const eig = symmetricEigen(K);
  const Y = eig.vectors as Matrix;
  const betas = new Float64Array(q);
  const Yq = new Matrix(c, q);
  for (let j = 0; j < q; j++) {
    const from = c - 1 - j;
    const beta = eig.values[from];
    if (!(beta > SMALL_RATIO)) return null;
    betas[j] = Math.min(1, beta);
    const f = 1 / Math.sqrt(beta);
    for (let i = 0; i < c; i++) Yq.data[i * q + j] = Y.data[i * c + from] * f;
  }
  return { betas, Yq };
}

/**
 * The q largest eigenpairs of B = C C^T (r x r, rank <= c - 1) from those of the c x c
 * C^T C = Y diag(beta) Y^T: z = C y / sqrt(beta), exactly B's eigenvectors for beta > 0.
 * C = S_r^-1 R_r^T (X^T H) needs only X^T H (d x c). Null when one of the q ratios is
 * below SMALL_RATIO (B's eigenvectors for beta = 0 are not in the range of C): the
 * thin-SVD route then runs.
 */
function directionsInColumnSpan(
  data: TrainingData,
  span: ColumnSpan,
  codes: ArrayLike<number>,
  counts: ArrayLike<number>,
  q: number,
): Directions | null {
  const { V, lambda, rank: r } = span;
  const c = counts.length;
  const M = multiplyAtB(data.X, classIndicators(codes, counts, data.n));
  const C = multiplyAtB(V, M);
  for (let a = 0; a < r; a++) {
    const f = 1 / Math.sqrt(lambda[a]);
    for (let j = 0; j < c; j++) C.data[a * c + j] *= f;
  }
  const ratios = leadingRatios(innerProducts(C, C), q);
  if (ratios === null) return null;
  const { betas, Yq } = ratios;
  // W0 = R_r S_r^-1 Z with Z = C Y diag(beta)^-1/2.
  const Z = multiply(C, Yq);
  for (let a = 0; a < r; a++) {
    const f = 1 / Math.sqrt(lambda[a]);
    for (let j = 0; j < q; j++) Z.data[a * q + j] *= f;
  }
  return { betas, W: multiply(V, Z) };
}

/**
 * When d < n and X^T X = G has full numerical rank (proved by the Cholesky
 * certificate of linalg/cholesky.ts, which holds for most real data with more samples
 * than features), the column-span route without the eigen-decomposition of G: with
 * M = X^T H (d x c), its W0 = R S^-2 R^T M Y diag(beta)^-1/2 = G^-1 M Y diag(beta)^-1/2
 * and C^T C = M^T G^-1 M, so one solve G F = M (from the certificate's factor, refined)
 * and the c x c problem give the same directions, at a quarter of the flops of the
 * Householder reduction and in GEMMs. Null (the eigen route then runs) when d >= n, the
 * certificate fails, the refinement does not settle, or a wanted ratio is below
 * SMALL_RATIO.
 */
function fullRankDirections(
  data: TrainingData,
  codes: ArrayLike<number>,
  counts: ArrayLike<number>,
): Directions | null {
  const { n, d } = data;
  const c = counts.length;
  if (n <= d) return null;
  const G = data.columnGram();
  const tol = defaultRankTolerance(n, d);
  const factor = fullRankFactor(G, tol * tol);
  if (factor === null) return null;
  // M^T = H^T X (c x d): class sums of the centred rows over sqrt(n_j).
  const Mt = data.centredClassSums(codes, counts);
  const Ft = solveRefined(G, factor, Mt);
  if (Ft === null) return null;
  const ratios = leadingRatios(multiplyABt(Mt, Ft), Math.min(c - 1, d));
  if (ratios === null) return null;
  return { betas: ratios.betas, W: multiplyAtB(Ft, ratios.Yq) };
}

/** LDA: the method's declaration (see descriptor.ts). */
export const LDA_METHOD = defineMethod({
  name: "lda",
  displayName: "LDA",
  summary: "Linear discriminant analysis; k <= c - 1.",
  supervised: true,
  options: OPTIONS,
  // At most c - 1 discriminant directions, so the paper's k >= c would exclude LDA.
  kBounds: ({ classes }) => ({ minK: 1, maxK: Math.max(1, classes - 1) }),
  create: (options) => new LDA(options),
});
