import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/core/errors.js";
import { centerColumns, frobeniusNorm } from "../../src/linalg/basic.js";
import { symmetricEigenvalues } from "../../src/linalg/eigen/symmetricEigen.js";
import { multiply, multiplyABt } from "../../src/linalg/kernels/gemm.js";
import { Matrix } from "../../src/linalg/matrix.js";
import { defaultRankTolerance, thinSvd } from "../../src/linalg/svd.js";
import {
  followsSignConvention,
  orthogonalityError,
  randomMatrix,
  randomOrthogonal,
} from "./helpers.js";

function reconstructionError(X: Matrix, U: Matrix, s: Float64Array, V: Matrix): number {
  const US = U.clone();
  const r = s.length;
  for (let i = 0; i < US.rows; i++) for (let j = 0; j < r; j++) US.data[i * r + j] *= s[j];
  const R = multiplyABt(US, V);
  for (let i = 0; i < R.data.length; i++) R.data[i] -= X.data[i];
  return frobeniusNorm(R);
}

/** X = Q1[:, :m] diag(s) Q2[:, :m]^T with prescribed singular values. */
function withSingularValues(n: number, d: number, s: number[], seed: number): Matrix {
  const Q1 = randomOrthogonal(n, seed).leadingColumns(s.length);
  const Q2 = randomOrthogonal(d, seed + 1).leadingColumns(s.length);
  for (let i = 0; i < n; i++) for (let j = 0; j < s.length; j++) Q1.data[i * s.length + j] *= s[j];
  return multiplyABt(Q1, Q2);
}

describe("thinSvd", () => {
  it("reconstructs X with orthonormal factors and descending values (wide, tall, low-rank)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (n, d, rank, seed) => {
          const r = Math.min(rank, n, d);
          const X = multiply(randomMatrix(n, r, seed), randomMatrix(r, d, seed + 1));
          const svd = thinSvd(X);
          expect(svd.rank).toBe(r);
          expect(svd.U.rows).toBe(n);
          expect(svd.V.rows).toBe(d);
          expect(reconstructionError(X, svd.U, svd.s, svd.V)).toBeLessThan(
            1e-12 * frobeniusNorm(X) * Math.sqrt(r) * 10,
          );
          expect(orthogonalityError(svd.U)).toBeLessThan(1e-12);
          expect(orthogonalityError(svd.V)).toBeLessThan(1e-12);
          for (let i = 1; i < svd.rank; i++) expect(svd.s[i]).toBeLessThanOrEqual(svd.s[i - 1]);
          expect(followsSignConvention(svd.V)).toBe(true);
        },
      ),
      { numRuns: 50, seed: 3 },
    );
  });

  it("centred data with d > n has rank n - 1", () => {
    const X = centerColumns(randomMatrix(30, 100, 5)).centered;
    const svd = thinSvd(X);
    expect(svd.rank).toBe(29);
    expect(orthogonalityError(svd.U)).toBeLessThan(1e-12);
    expect(orthogonalityError(svd.V)).toBeLessThan(1e-12);
  });

  it("squared singular values are the eigenvalues of X^T X", () => {
    const X = randomMatrix(25, 12, 8);
    const svd = thinSvd(X);
    const ev = symmetricEigenvalues(multiply(X.transpose(), X));
    for (let j = 0; j < 12; j++) {
      expect(Math.abs(svd.s[j] ** 2 - ev[11 - j])).toBeLessThan(1e-12 * ev[11]);
    }
  });

  it("keeps singular values above the rank tolerance and drops those below the Gram route's resolution", () => {
    const s = [3, 1, 1e-3, 1e-5, 1e-10, 1e-13];
    const X = withSingularValues(20, 30, s, 12);
    const svd = thinSvd(X);
    expect(defaultRankTolerance(20, 30)).toBeGreaterThan(1e-7);
    expect(svd.rank).toBe(4);
    // Each kept s_j carries an absolute error of about eps s_max^2 / s_j (Gram route).
    for (let j = 0; j < 4; j++) {
      expect(Math.abs(svd.s[j] - s[j])).toBeLessThan((100 * 2 ** -52 * s[0] ** 2) / s[j]);
    }
    expect(orthogonalityError(svd.U)).toBeLessThan(1e-12);
    expect(orthogonalityError(svd.V)).toBeLessThan(1e-12);
    expect(reconstructionError(X, svd.U, svd.s, svd.V)).toBeLessThan(1e-9);
    const strict = thinSvd(X, { rankTolerance: 1e-2 });
    expect(strict.rank).toBe(2);
  });

  it("a zero matrix has rank 0", () => {
    const svd = thinSvd(new Matrix(3, 5));
    expect(svd.rank).toBe(0);
    expect(svd.U.cols).toBe(0);
    expect(svd.V.cols).toBe(0);
  });

  it("rejects non-finite data and out-of-range tolerances", () => {
    const X = randomMatrix(3, 4, 1);
    X.data[5] = Number.NaN;
    expect(() => thinSvd(X)).toThrow(/finite.*Got NaN at row 1, column 1/);
    expect(() => thinSvd(randomMatrix(3, 4, 1), { rankTolerance: 1e-12 })).toThrow(ValidationError);
    expect(() => thinSvd(randomMatrix(3, 4, 1), { rankTolerance: 1e-12 })).toThrow(
      /rankTolerance.*\[1\.49e-8, 1\).*Got 1e-12/,
    );
    expect(() => thinSvd(new Matrix(0, 4))).toThrow(/at least 1 row.*Got 0 x 4/);
  });
});
