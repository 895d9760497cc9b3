import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { centerColumns, frobeniusNorm } from "#internal/linalg/basic.js";
import { lanczosDiagnostics } from "#internal/linalg/eigen/blockLanczos.js";
import {
  leadingEigenpairs,
  leadingEigenpairsWithCount,
  symmetricEigenvalues,
} from "#internal/linalg/eigen/symmetricEigen.js";
import { multiply, multiplyABt } from "#internal/linalg/kernels/gemm.js";
import { gramColumns } from "#internal/linalg/kernels/symmetricProducts.js";
import {
  defaultRankTolerance,
  leadingSingularTriplets,
  leadingTripletsOfColumnGram,
  thinSvd,
} from "#internal/linalg/svd.js";
import {
  followsSignConvention,
  orthogonalityError,
  randomMatrix,
  randomOrthogonal,
  subspaceDistance,
  withSpectrum,
} from "../helpers/matrices.js";
import { inputs } from "../helpers/properties.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

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
        inputs({ n: [1, 40], d: [1, 40], rank: [1, 40], seed: [0, 1_000_000] }),
        ({ n, d, rank, seed }) => {
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

/**
 * Singular values with a relative gap of at least 1.5 after every index in `gapsAfter`
 * (else a random spread), optionally `rank` < m of them non-zero and a cluster of equal
 * values at [clusterStart, clusterStart + clusterSize).
 */
function spectrum(
  m: number,
  seed: number,
  options: { rank?: number; clusterStart?: number; clusterSize?: number; gapAfter?: number } = {},
): number[] {
  const rng = new Random(seed);
  const s: number[] = [];
  let v = 1 + rng.uniform();
  for (let j = 0; j < m; j++) {
    s.push(v);
    const inCluster =
      options.clusterStart !== undefined &&
      j >= options.clusterStart &&
      j + 1 < options.clusterStart + (options.clusterSize ?? 1);
    if (inCluster) continue;
    v /= j + 1 === options.gapAfter ? 2 : 1.02 + 0.3 * rng.uniform();
  }
  const rank = options.rank ?? m;
  for (let j = rank; j < m; j++) s[j] = 0;
  return s;
}

describe("leadingSingularTriplets against the full thinSvd", () => {
  function expectAgreement(X: Matrix, k: number) {
    const full = thinSvd(X);
    const part = leadingSingularTriplets(X, k);
    expect(part.rank).toBe(full.rank);
    expect(part.rankTolerance).toBe(full.rankTolerance);
    const kept = Math.min(k, full.rank);
    expect(part.s.length).toBe(kept);
    expect(part.V.cols).toBe(kept);
    // Eigenvalues of the Gram matrix (s^2) to relative 1e-12, plus the absolute
    // ~n eps lambda_max that any backward-stable dense solver leaves on small ones.
    const lmax = full.s[0] ** 2;
    for (let j = 0; j < kept; j++) {
      const l = full.s[j] ** 2;
      expect(Math.abs(part.s[j] ** 2 - l)).toBeLessThanOrEqual(1e-12 * l + 1e-14 * lmax);
    }
    if (kept > 0) {
      expect(orthogonalityError(part.V)).toBeLessThan(1e-13);
      // sin of the largest principal angle (bounded above by a Frobenius norm).
      expect(subspaceDistance(full.V.leadingColumns(kept), part.V)).toBeLessThan(1e-10);
      expect(followsSignConvention(part.V)).toBe(true);
    }
  }

  it("gives thinSvd's leading k columns, values and rank (tall and wide, gap at k)", () => {
    const fraction = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(
        inputs({ n: [2, 50], d: [2, 50], kFraction: fraction, seed: [0, 1e6] }),
        ({ n, d, kFraction, seed }) => {
          const m = Math.min(n, d);
          const k = Math.max(1, Math.min(m - 1, Math.round(kFraction * m)));
          const X = withSingularValues(n, d, spectrum(m, seed, { gapAfter: k }), seed);
          expectAgreement(X, k);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("counts the rank beyond k and stops at it below k (rank-deficient data)", () => {
    for (const [n, d, rank, k, seed] of [
      [60, 30, 12, 5, 1],
      [25, 70, 9, 4, 2],
      [60, 30, 6, 10, 3],
      [25, 70, 5, 20, 4],
    ]) {
      const X = withSingularValues(n, d, spectrum(Math.min(n, d), seed, { rank }), seed);
      expect(thinSvd(X).rank).toBe(rank);
      expectAgreement(X, k);
    }
  });

  it("gives the same leading subspace when a cluster of equal values lies inside it", () => {
    for (const [n, d, seed] of [
      [80, 40, 5],
      [40, 80, 6],
    ]) {
      const m = Math.min(n, d);
      // Five equal values at positions 3..7, a gap after position 10.
      const s = spectrum(m, seed, { clusterStart: 3, clusterSize: 5, gapAfter: 10 });
      expectAgreement(withSingularValues(n, d, s, seed), 10);
    }
  });

  it("names k when it is out of range", () => {
    const X = randomMatrix(6, 4, 1);
    expect(() => leadingSingularTriplets(X, 5)).toThrow(/'k' argument.*min\(n, d\) = 4.*Got 5/);
    expect(() => leadingSingularTriplets(X, 0)).toThrow(ValidationError);
  });
});

describe("leadingEigenpairsWithCount", () => {
  it("returns leadingEigenpairs' bits and the count of eigenvalues above the threshold", () => {
    const inner = fc.double({ min: 0.05, max: 0.95, noNaN: true });
    fc.assert(
      fc.property(
        inputs({ n: [2, 60], seed: [0, 1e6], fraction: inner }),
        ({ n, seed, fraction }) => {
          const rng = new Random(seed);
          const values = Array.from({ length: n }, () => rng.normal() * 10 ** (3 * rng.uniform()));
          const A = withSpectrum(values, seed);
          const k = Math.max(1, Math.round(fraction * n));
          const all = symmetricEigenvalues(A);
          const lmax = all[n - 1];
          const threshold = fraction * 0.5;
          const expected = lmax > 0 ? all.filter((v) => v > threshold * lmax).length : 0;
          // Thresholds within rounding of an eigenvalue may count either way.
          const near = all.some((v) => Math.abs(v - threshold * lmax) < 1e-9 * Math.abs(lmax));
          const got = leadingEigenpairsWithCount(A, k, threshold);
          const ref = leadingEigenpairs(A, k);
          expect(Array.from(got.values)).toEqual(Array.from(ref.values));
          expect(Array.from(got.vectors.data)).toEqual(Array.from(ref.vectors.data));
          if (!near) expect(got.countAbove).toBe(expected);
        },
      ),
      { numRuns: 40 },
    );
  });
});

/** n x d data with decaying column scales (a spectrum like images') and an offset. */
function decaying(n: number, d: number, seed: number): Matrix {
  const rng = new Random(seed);
  const X = new Matrix(n, d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) X.data[i * d + j] = 3 + rng.normal() * 1.04 ** -j;
  }
  return X;
}

describe("the column side on d < n: block Lanczos and the rank certificate against the dense path", () => {
  /**
   * PCA's route (leadingTripletsOfColumnGram on the centred X^T X) from order 64 on,
   * and the dense one (reduction, bisection, inverse iteration, Sturm count) alone.
   */
  function bothRoutes(X: Matrix, k: number) {
    const centred = centerColumns(X).centered;
    const dense = leadingTripletsOfColumnGram(gramColumns(centred), X.rows, k, undefined, Infinity);
    const fast = leadingTripletsOfColumnGram(gramColumns(centred), X.rows, k, undefined, 64);
    return { dense, fast, outcome: lanczosDiagnostics.outcome };
  }

  it("gives the same vectors, values and rank", () => {
    let converged = 0;
    for (let seed = 0; seed < 6; seed++) {
      const d = 200 + 13 * seed;
      const k = 1 + (seed % 5);
      const { dense, fast, outcome } = bothRoutes(decaying(d + 30 + seed, d, seed), k);
      if (outcome === "converged") converged++;
      expect(maxPrincipalAngle(fast.V, dense.V)).toBeLessThan(1e-10);
      expect(fast.rank).toBe(d);
      expect(dense.rank).toBe(d);
      expect(fast.rankTolerance).toBe(dense.rankTolerance);
      fast.s.forEach((v, j) => {
        expect(Math.abs(v ** 2 - dense.s[j] ** 2)).toBeLessThan(1e-12 * v ** 2);
      });
    }
    // The Lanczos route ran (a failed one falls back to the dense path silently).
    expect(converged).toBeGreaterThanOrEqual(4);
  });

  it("falls back to the dense path (and its rank) on rank-deficient data", () => {
    const X = decaying(260, 220, 9);
    // Three columns repeated: rank 217.
    for (let i = 0; i < 260; i++) {
      for (const [to, from] of [
        [50, 1],
        [80, 2],
        [120, 3],
      ]) {
        X.data[i * 220 + to] = X.data[i * 220 + from];
      }
    }
    const { dense, fast } = bothRoutes(X, 4);
    expect(fast.rank).toBe(217);
    expect(dense.rank).toBe(217);
    expect(Array.from(fast.V.data)).toEqual(Array.from(dense.V.data));
    expect(Array.from(fast.s)).toEqual(Array.from(dense.s));
  });

  it("takes the dense path below order 1000 by default", () => {
    const X = decaying(260, 220, 4);
    const centred = centerColumns(X).centered;
    const byDefault = leadingTripletsOfColumnGram(gramColumns(centred), 260, 3);
    const dense = leadingTripletsOfColumnGram(gramColumns(centred), 260, 3, undefined, Infinity);
    expect(Array.from(byDefault.V.data)).toEqual(Array.from(dense.V.data));
  });
});
