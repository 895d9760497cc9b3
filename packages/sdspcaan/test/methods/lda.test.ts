/**
 * LDA: agreement with the textbook problem S_b w = mu S_w w (solved directly through
 * the Cholesky factor of S_w) when it is well posed, the normalisation, the
 * deterministic handling of a singular S_w (d >= n), errors, and a Yale split.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { encodeLabels } from "#internal/core/validate.js";
import { centerColumns } from "#internal/linalg/basic.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiply, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import { choleskyUpper } from "#internal/linalg/orthogonalize.js";
import type { CoreFitResult, FitContext } from "#internal/methods/estimator.js";
import { fitLDA, LDA, type LDADetails } from "#internal/methods/lda.js";
import type { TrainingData } from "#internal/methods/training.js";
import { followsSignConvention, subspaceDistance } from "../helpers/matrices.js";
import { inputs } from "../helpers/properties.js";
import { orthonormalBasis } from "../helpers/subspace.js";
import { projectedTestBca, yaleSplit } from "../helpers/yaleSplit.js";

/** c Gaussian classes with a shared random covariance (anisotropic), n samples. */
function gaussianClasses(seed: number, n: number, d: number, c: number) {
  const rng = new Random(seed);
  const centres = Array.from({ length: c }, () =>
    Array.from({ length: d }, () => 2 * rng.normal()),
  );
  const mixing = Array.from({ length: d }, () => Array.from({ length: d }, () => rng.normal()));
  const X = new Matrix(n, d);
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const cls = i % c;
    const z = Array.from({ length: d }, () => rng.normal());
    for (let a = 0; a < d; a++) {
      let v = centres[cls][a];
      for (let b = 0; b < d; b++) v += 0.5 * mixing[a][b] * z[b];
      X.data[i * d + a] = v;
    }
    y.push(cls);
  }
  return { X, y };
}

/** Between- and within-class scatter of the rows of X (dense d x d). */
function scatters(X: Matrix, y: number[]): { Sb: Matrix; Sw: Matrix; St: Matrix } {
  const Xc = centerColumns(X).centered;
  const { codes, counts } = encodeLabels(y, y.length);
  const n = X.rows;
  const d = X.cols;
  const c = counts.length;
  const means = new Matrix(c, d);
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < d; a++)
      means.data[codes[i] * d + a] += Xc.data[i * d + a] / counts[codes[i]];
  }
  const Sb = new Matrix(d, d);
  for (let k = 0; k < c; k++) {
    for (let a = 0; a < d; a++) {
      for (let b = 0; b < d; b++)
        Sb.data[a * d + b] += counts[k] * means.get(k, a) * means.get(k, b);
    }
  }
  const R = Xc.clone();
  for (let i = 0; i < n; i++) {
    for (let a = 0; a < d; a++) R.data[i * d + a] -= means.get(codes[i], a);
  }
  return { Sb, Sw: multiplyAtB(R, R), St: multiplyAtB(Xc, Xc) };
}

/**
 * The textbook solution: with S_w = R^T R (Cholesky), the eigenvectors y of
 * R^-T S_b R^-1 give w = R^-1 y; returns the top-k w (d x k) and their mu.
 */
function textbookLda(Sb: Matrix, Sw: Matrix, k: number): { W: Matrix; mu: number[] } {
  const d = Sb.rows;
  const R = Sw.clone();
  expect(choleskyUpper(R)).toBe(true);
  // M = R^-T Sb R^-1: solve R^T Y = Sb, then M R = Y^T... done column by column.
  const solveRt = (B: Matrix): Matrix => {
    const X = B.clone();
    const cols = B.cols;
    for (let i = 0; i < d; i++) {
      for (let p = 0; p < i; p++) {
        for (let j = 0; j < cols; j++) X.data[i * cols + j] -= R.get(p, i) * X.data[p * cols + j];
      }
      for (let j = 0; j < cols; j++) X.data[i * cols + j] /= R.get(i, i);
    }
    return X;
  };
  const Y = solveRt(Sb);
  const M = solveRt(Y.transpose());
  const Msym = new Matrix(d, d);
  for (let a = 0; a < d; a++) {
    for (let b = 0; b < d; b++) Msym.data[a * d + b] = 0.5 * (M.get(a, b) + M.get(b, a));
  }
  const eig = symmetricEigen(Msym, { select: { largest: k } });
  const V = eig.vectors as Matrix;
  // w = R^-1 v (back substitution), in descending mu.
  const W = new Matrix(d, k);
  const mu: number[] = [];
  for (let j = 0; j < k; j++) {
    const from = k - 1 - j;
    mu.push(eig.values[from]);
    for (let i = d - 1; i >= 0; i--) {
      let s = V.get(i, from);
      for (let p = i + 1; p < d; p++) s -= R.get(i, p) * W.get(p, j);
      W.set(i, j, s / R.get(i, i));
    }
  }
  return { W, mu };
}

describe("LDA against the textbook generalised problem (n >> d)", () => {
  it.each([
    { seed: 1, n: 400, d: 6, c: 4, k: 3 },
    { seed: 2, n: 300, d: 10, c: 5, k: 2 },
    { seed: 3, n: 500, d: 8, c: 3, k: 1 },
  ])("spans the same subspace with the same Fisher ratios (seed $seed)", (p) => {
    const { X, y } = gaussianClasses(p.seed, p.n, p.d, p.c);
    const { Sb, Sw } = scatters(X, y);
    const expected = textbookLda(Sb, Sw, p.k);
    const model = new LDA({ k: p.k }).fit(X, y);
    const W = model.components;
    expect(subspaceDistance(orthonormalBasis(expected.W), orthonormalBasis(W))).toBeLessThan(1e-8);
    // Each direction separately (distinct eigenvalues): the same line.
    for (let j = 0; j < p.k; j++) {
      const a = orthonormalBasis(new Matrix(p.d, 1, expected.W.column(j)));
      const b = orthonormalBasis(new Matrix(p.d, 1, W.column(j)));
      expect(subspaceDistance(a, b)).toBeLessThan(1e-8);
    }
    const ratios = model.fitInfo.details.fisherRatios as number[];
    for (let j = 0; j < p.k; j++) {
      expect(Math.abs(ratios[j] - expected.mu[j])).toBeLessThanOrEqual(1e-9 * expected.mu[0]);
    }
    expect(model.fitInfo.details.nullSpaceDirections).toBe(0);
  });
});

describe("LDA normalisation and signs", () => {
  it("has W^T S_t W = I and W^T S_b W = diag(between/total ratios)", () => {
    const { X, y } = gaussianClasses(4, 200, 7, 4);
    const { Sb, St } = scatters(X, y);
    const model = new LDA({ k: 3 }).fit(X, y);
    const W = model.components;
    const WtStW = multiplyAtB(W, multiply(St, W));
    const WtSbW = multiplyAtB(W, multiply(Sb, W));
    const betas = model.fitInfo.details.betweenToTotal as number[];
    for (let a = 0; a < 3; a++) {
      for (let b = 0; b < 3; b++) {
        expect(Math.abs(WtStW.get(a, b) - (a === b ? 1 : 0))).toBeLessThanOrEqual(1e-10);
        expect(Math.abs(WtSbW.get(a, b) - (a === b ? betas[a] : 0))).toBeLessThanOrEqual(1e-10);
      }
    }
    for (let j = 1; j < betas.length; j++) expect(betas[j]).toBeLessThanOrEqual(betas[j - 1]);
    expect(followsSignConvention(W)).toBe(true);
  });

  it("defaults k to c - 1", () => {
    const { X, y } = gaussianClasses(5, 120, 6, 4);
    expect(new LDA().fit(X, y).nComponents).toBe(3);
  });
});

describe("LDA with a singular within-class scatter (d >= n)", () => {
  // 4 classes of 5 samples in 30 dimensions: rank S_w = 16 < rank S_t = 19.
  const { X, y } = gaussianClasses(6, 20, 30, 4);

  it("puts the c - 1 null directions of S_w first, collapsing each class to a point", () => {
    const model = new LDA({ k: 3 }).fit(X, y);
    const info = model.fitInfo;
    expect(info.details.nullSpaceDirections).toBe(3);
    expect(info.details.fisherRatios).toEqual([null, null, null]);
    const P = model.transform(X);
    for (let i = 0; i < 20; i++) {
      for (let j = 0; j < 3; j++) expect(Math.abs(P.get(i, j) - P.get(y[i], j))).toBeLessThan(1e-9);
    }
    // The JSON form stays finite (no Infinity in the fit info).
    expect(JSON.stringify(model.toJSON())).not.toMatch(/Infinity|NaN/);
  });

  it("orders the tied directions by ||w|| (null-space LDA) and is deterministic", () => {
    const W = new LDA({ k: 3 }).fit(X, y).components;
    const norms = [0, 1, 2].map((j) => Math.hypot(...W.column(j)));
    expect(norms[1]).toBeGreaterThanOrEqual(norms[0]);
    expect(norms[2]).toBeGreaterThanOrEqual(norms[1]);
    // k = 2 keeps the two smallest-norm directions of the k = 3 fit.
    const W2 = new LDA({ k: 2 }).fit(X, y).components;
    for (let j = 0; j < 2; j++) {
      const a = orthonormalBasis(new Matrix(30, 1, W.column(j)));
      const b = orthonormalBasis(new Matrix(30, 1, W2.column(j)));
      expect(subspaceDistance(a, b)).toBeLessThan(1e-9);
    }
  });
});

describe("LDA errors", () => {
  const { X, y } = gaussianClasses(7, 60, 8, 3);

  it("rejects k > c - 1, naming the bound and why", () => {
    expect(() => new LDA({ k: 3 }).fit(X, y)).toThrow(
      /The 'k' parameter of LDA must be an integer in \[1, 2\] \(at most c - 1 = 2 for 3 classes: the between-class scatter has rank at most c - 1\)\. Got 3 instead\./,
    );
  });

  it("rejects k above the rank of the data", () => {
    const thin = gaussianClasses(8, 60, 2, 5);
    expect(() => new LDA({ k: 3 }).fit(thin.X, thin.y)).toThrow(/numerical rank r = 2/);
  });

  it("needs labels with at least two classes", () => {
    expect(() => new LDA({ k: 1 }).fit(X)).toThrow(/LDA is supervised/);
    expect(() =>
      new LDA({ k: 1 }).fit(
        X,
        y.map(() => 0),
      ),
    ).toThrow(/at least 2 classes/);
  });

  it("warns when the class means leave S_b rank-deficient", () => {
    // Classes 0 and 1 share their mean: rank S_b = 1 < k = 2.
    const rng = new Random(9);
    const rows: number[][] = [];
    const labels: number[] = [];
    for (let i = 0; i < 60; i++) {
      const cls = i % 3;
      const shift = cls === 2 ? 3 : 0;
      rows.push([shift + rng.normal(), rng.normal(), rng.normal()]);
      labels.push(cls);
    }
    // Make the means of classes 0 and 1 exactly equal by centring them separately.
    for (const cls of [0, 1]) {
      const members = rows.filter((_, i) => labels[i] === cls);
      for (let a = 0; a < 3; a++) {
        const mean = members.reduce((s, r) => s + r[a], 0) / members.length;
        for (const r of members) r[a] -= mean;
      }
    }
    const model = new LDA({ k: 2 }).fit(rows, labels);
    expect(model.fitInfo.warnings.map((w) => w.message).join(" ")).toMatch(
      /numerical rank 1 < k = 2/,
    );
  });
});

describe("LDA on Yale (a 20% training split, train z-score)", () => {
  it("finds c - 1 null directions of S_w and classifies far above chance", async () => {
    const yale = await yaleSplit();
    const { train, ytrain } = yale;
    const c = new Set(ytrain).size;
    const model = new LDA().fit(train, ytrain);
    expect(model.nComponents).toBe(c - 1);
    expect(model.fitInfo.details.nullSpaceDirections).toBe(c - 1);
    expect(projectedTestBca(model, yale)).toBeGreaterThan(0.3);
  });
});

describe("LDA: the column-span route (d < n) against the thin-SVD route", () => {
  /** LDA with every problem solved through the thin SVD (fitLDA's "thin-svd" route). */
  class ThinSvdLDA extends LDA {
    protected override fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<LDADetails> {
      return fitLDA(data, this.params, ctx, "thin-svd");
    }
  }

  function fitBoth(X: Matrix, y: number[], k: number) {
    const slow = new ThinSvdLDA({ k }).fit(X, y);
    const fast = new LDA({ k }).fit(X, y);
    return { slow, fast };
  }

  /** Largest |a - b| over the columns of two W, relative to each column's norm. */
  function columnDifference(A: Matrix, B: Matrix): number {
    let worst = 0;
    for (let j = 0; j < A.cols; j++) {
      let diff = 0;
      let norm = 0;
      for (let i = 0; i < A.rows; i++) {
        diff = Math.max(diff, Math.abs(A.get(i, j) - B.get(i, j)));
        norm = Math.max(norm, Math.abs(A.get(i, j)));
      }
      worst = Math.max(worst, diff / norm);
    }
    return worst;
  }

  it("gives the same W, ratios and warnings on Gaussian classes", () => {
    fc.assert(
      fc.property(inputs({ d: [2, 12], c: [2, 6], seed: [0, 1_000_000] }), ({ d, c, seed }) => {
        const { X, y } = gaussianClasses(seed, 4 * (d + c), d, c);
        const k = Math.min(c - 1, d);
        const { slow, fast } = fitBoth(X, y, k);
        const a = slow.fitInfo.details as { betweenToTotal: number[]; rank: number };
        const b = fast.fitInfo.details as { betweenToTotal: number[]; rank: number };
        expect(b.rank).toBe(a.rank);
        b.betweenToTotal.forEach((v, j) => {
          expect(Math.abs(v - a.betweenToTotal[j])).toBeLessThan(1e-12);
        });
        expect(fast.fitInfo.warnings).toEqual(slow.fitInfo.warnings);
        expect(columnDifference(slow.components, fast.components)).toBeLessThan(1e-10);
      }),
      { numRuns: 25 },
    );
  });

  it("gives the same canonical basis for tied null directions of S_w (d < n)", () => {
    // Three features constant within each class: S_w is singular on them, so
    // c - 1 = 3 directions tie at beta = 1 and the norm rule orders them.
    const { X: noise, y } = gaussianClasses(7, 60, 5, 4);
    const rng = new Random(8);
    const levels = Array.from({ length: 4 }, () => [rng.normal(), rng.normal(), rng.normal()]);
    const X = new Matrix(60, 8);
    for (let i = 0; i < 60; i++) {
      for (let a = 0; a < 5; a++) X.data[i * 8 + a] = noise.data[i * 5 + a];
      for (let a = 0; a < 3; a++) X.data[i * 8 + 5 + a] = levels[y[i]][a];
    }
    const { slow, fast } = fitBoth(X, y, 3);
    expect((fast.fitInfo.details as { nullSpaceDirections: number }).nullSpaceDirections).toBe(3);
    expect(columnDifference(slow.components, fast.components)).toBeLessThan(1e-10);
  });
});
