import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { centerColumns, frobeniusNorm } from "#internal/linalg/basic.js";
import { symmetricEigenvalues } from "#internal/linalg/eigen/symmetricEigen.js";
import { dataSpanEigen, generalizedSymmetricEigen } from "#internal/linalg/generalizedEigen.js";
import { multiply, multiplyABt, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import { thinSvd } from "#internal/linalg/svd.js";
import {
  followsSignConvention,
  isAscending,
  maxAbsDifference,
  orthogonalityError,
  randomMatrix,
  randomSymmetric,
  symmetrize,
} from "../helpers/matrices.js";
import { inputs } from "../helpers/properties.js";

/** A graph-Laplacian-like symmetric n x n matrix (random non-negative weights). */
function laplacianLike(n: number, seed: number): Matrix {
  const R = randomMatrix(n, n, seed);
  const S = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (i !== j) S.data[i * n + j] = Math.abs(R.data[i * n + j] + R.data[j * n + i]);
    }
  }
  const L = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    let deg = 0;
    for (let j = 0; j < n; j++) {
      deg += S.data[i * n + j];
      L.data[i * n + j] = -S.data[i * n + j];
    }
    L.data[i * n + i] = deg;
  }
  return L;
}

/** ||A W - B W diag(mu)||_F relative to (||A||_F + max|mu| ||B||_F) ||W||_F (the backward error scale). */
function relativeGeneralizedResidual(A: Matrix, B: Matrix, W: Matrix, mu: Float64Array): number {
  const AW = multiply(A, W);
  const BW = multiply(B, W);
  const k = W.cols;
  for (let i = 0; i < AW.rows; i++) {
    for (let j = 0; j < k; j++) AW.data[i * k + j] -= BW.data[i * k + j] * mu[j];
  }
  let muMax = 0;
  for (const m of mu) muMax = Math.max(muMax, Math.abs(m));
  return frobeniusNorm(AW) / ((frobeniusNorm(A) + muMax * frobeniusNorm(B)) * frobeniusNorm(W));
}

describe("dataSpanEigen", () => {
  it("solves (X^T M X, X^T X) with W^T X^T X W = I, for d > n, n > d and rank-deficient X", () => {
    fc.assert(
      fc.property(
        inputs({ n: [3, 30], d: [3, 30], rank: [1, 30], seed: [0, 1e6], largest: fc.boolean() }),
        ({ n, d, rank, seed, largest }) => {
          const r = Math.min(rank, n, d);
          const X = multiply(randomMatrix(n, r, seed), randomMatrix(r, d, seed + 1));
          const M = laplacianLike(n, seed + 2);
          const k = Math.max(1, Math.min(r, 3));
          const res = dataSpanEigen(X, M, largest ? { largest: k } : { smallest: k });
          expect(res.rank).toBe(r);
          expect(res.W.rows).toBe(d);
          expect(res.W.cols).toBe(k);
          const B = multiplyAtB(X, X);
          const A = multiplyAtB(X, multiply(M, X));
          // W^T X^T X W = I, measured through the image X W (forming X^T X first would add
          // rounding of order eps cond(X)^2 to the measurement itself).
          expect(orthogonalityError(multiply(X, res.W))).toBeLessThan(1e-12);
          expect(relativeGeneralizedResidual(A, B, res.W, res.values)).toBeLessThan(1e-12);
          expect(isAscending(res.values)).toBe(true);
          expect(followsSignConvention(res.W)).toBe(true);
        },
      ),
      { numRuns: 50, seed: 11 },
    );
  });

  it("gives the extreme values of the projected problem U_r^T M U_r", () => {
    const X = centerColumns(randomMatrix(20, 60, 4)).centered;
    const M = laplacianLike(20, 5);
    const svd = thinSvd(X);
    expect(svd.rank).toBe(19);
    const projected = multiplyAtB(svd.U, multiply(M, svd.U));
    const all = symmetricEigenvalues(symmetrize(projected));
    const res = dataSpanEigen(X, M, { smallest: 4 }, { svd });
    expect(maxAbsDifference(res.values, all.subarray(0, 4))).toBeLessThan(1e-12 * all[18]);
  });

  it("accepts M as a matrix, a callback M U, or the projected matrix, with the same result", () => {
    const X = randomMatrix(15, 40, 9);
    const M = laplacianLike(15, 10);
    const svd = thinSvd(X);
    const a = dataSpanEigen(X, M, { smallest: 3 }, { svd });
    const b = dataSpanEigen(X, (U) => multiply(M, U), { smallest: 3 }, { svd });
    const c = dataSpanEigen(
      X,
      { projected: multiplyAtB(svd.U, multiply(M, svd.U)) },
      { smallest: 3 },
      { svd },
    );
    expect(maxAbsDifference(a.W.data, b.W.data)).toBeLessThan(1e-12);
    expect(maxAbsDifference(a.W.data, c.W.data)).toBeLessThan(1e-10);
  });

  it("k above the numerical rank is an error naming the rank", () => {
    const X = multiply(randomMatrix(10, 2, 1), randomMatrix(2, 30, 2));
    const M = laplacianLike(10, 3);
    expect(() => dataSpanEigen(X, M, { smallest: 3 })).toThrow(ValidationError);
    expect(() => dataSpanEigen(X, M, { smallest: 3 })).toThrow(
      /'select\.smallest'.*\[1, 2\].*numerical rank.*Got 3 instead/,
    );
  });

  it("rejects a callback returning the wrong shape, and a non-symmetric M", () => {
    const X = randomMatrix(6, 10, 1);
    expect(() => dataSpanEigen(X, () => new Matrix(6, 2), { smallest: 1 })).toThrow(
      /callback.*6 x 6 Matrix. Got 6 x 2/,
    );
    const M = randomMatrix(6, 6, 2);
    expect(() => dataSpanEigen(X, M, { smallest: 1 })).toThrow(/'M'.*must be symmetric/);
  });
});

describe("generalizedSymmetricEigen", () => {
  it("positive definite B: residual, B-orthonormality and agreement with the reduced problem", () => {
    const n = 25;
    const A = randomSymmetric(n, 1);
    const Y = randomMatrix(n, n + 5, 2);
    const B = multiplyABt(Y, Y);
    const res = generalizedSymmetricEigen(A, B, { smallest: 6 });
    expect(res.rank).toBe(n);
    expect(relativeGeneralizedResidual(A, B, res.vectors, res.values)).toBeLessThan(1e-12);
    expect(orthogonalityError(res.vectors, B)).toBeLessThan(1e-12);
    const top = generalizedSymmetricEigen(A, B, { largest: 2 });
    expect(top.values[1]).toBeGreaterThan(res.values[5]);
  });

  it("singular B: solved on its range (LDA with a singular within-class scatter)", () => {
    // Three classes in 40 dimensions with 12 samples: S_w has rank 12 - 3 = 9.
    const d = 40;
    const counts = [4, 4, 4];
    const X = randomMatrix(12, d, 5);
    const means = counts.map(() => new Float64Array(d));
    let row = 0;
    const labels: number[] = [];
    counts.forEach((c, cls) => {
      for (let t = 0; t < c; t++, row++) {
        labels.push(cls);
        for (let j = 0; j < d; j++) {
          X.data[row * d + j] += cls * 2;
          means[cls][j] += X.data[row * d + j] / c;
        }
      }
    });
    const centred = X.clone();
    for (let i = 0; i < 12; i++) {
      for (let j = 0; j < d; j++) centred.data[i * d + j] -= means[labels[i]][j];
    }
    const Sw = symmetrize(multiplyAtB(centred, centred));
    const grand = new Float64Array(d);
    for (const m of means) for (let j = 0; j < d; j++) grand[j] += m[j] / 3;
    const Mb = new Matrix(3, d);
    for (let c = 0; c < 3; c++) {
      for (let j = 0; j < d; j++) Mb.data[c * d + j] = 2 * (means[c][j] - grand[j]);
    }
    const Sb = symmetrize(multiplyAtB(Mb, Mb));
    const res = generalizedSymmetricEigen(Sb, Sw, { largest: 2 });
    expect(res.rank).toBe(9);
    expect(orthogonalityError(res.vectors, Sw)).toBeLessThan(1e-12);
    // Residual projected on range(Sw) = range(centred^T) vanishes.
    const AW = multiply(Sb, res.vectors);
    const BW = multiply(Sw, res.vectors);
    for (let i = 0; i < d; i++) {
      for (let j = 0; j < 2; j++) AW.data[i * 2 + j] -= BW.data[i * 2 + j] * res.values[j];
    }
    const projectedResidual = frobeniusNorm(multiply(centred, AW));
    expect(projectedResidual).toBeLessThan(
      1e-11 * frobeniusNorm(Sb) * frobeniusNorm(res.vectors) * frobeniusNorm(centred),
    );
    expect(res.values[1]).toBeGreaterThan(0);
    expect(() => generalizedSymmetricEigen(Sb, Sw, { largest: 10 })).toThrow(
      /\[1, 9\].*numerical rank r of B/,
    );
  });

  it("rejects an indefinite B, a non-symmetric A and mismatched sizes", () => {
    const A = randomSymmetric(4, 1);
    const B = randomSymmetric(4, 2);
    expect(() => generalizedSymmetricEigen(A, B, { smallest: 1 })).toThrow(
      /'B'.*positive semidefinite/,
    );
    const N = randomMatrix(4, 4, 3);
    expect(() => generalizedSymmetricEigen(N, Matrix.identity(4), { smallest: 1 })).toThrow(
      /'A'.*symmetric/,
    );
    expect(() => generalizedSymmetricEigen(A, Matrix.identity(5), { smallest: 1 })).toThrow(
      /'B'.*4 x 4 like A. Got 5 x 5/,
    );
    expect(() => generalizedSymmetricEigen(A, Matrix.identity(4), { biggest: 1 } as never)).toThrow(
      /'select'.*\{smallest: k\} or \{largest: k\}/,
    );
  });
});
