/**
 * PCA's default path (the k leading eigenpairs of the smaller Gram matrix, the rank by
 * a Sturm count) against the full thin SVD it replaced (passed to fitPCA as its
 * triplet solver): the
 * same components up to principal angles of 1e-10, the same explained variances to
 * relative 1e-12, rank and warnings, on tall, wide, rank-deficient and clustered data.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { centerColumns } from "#internal/linalg/basic.js";
import { multiplyABt } from "#internal/linalg/kernels/gemm.js";
import { choleskyQR } from "#internal/linalg/orthogonalize.js";
import type { CoreFitResult, FitContext } from "#internal/methods/estimator.js";
import { fitPCA, PCA, type PCADetails, type PCATriplets } from "#internal/methods/pca.js";
import { trainingSvd } from "#internal/methods/sharedSteps.js";
import type { TrainingData } from "#internal/methods/training.js";
import { orthogonalityError, randomOrthogonal, subspaceDistance } from "../helpers/matrices.js";
import { inputs } from "../helpers/properties.js";

/**
 * n x d data of rank `rank` with singular values 2^(-j/8) (a cluster of `tie` equal ones
 * first): a gap at every index, and no value so small that the Gram route resolves it
 * only to an absolute eps * s_max^2.
 */
function lowRankData(n: number, d: number, rank: number, tie: number, seed: number): Matrix {
  const s = Array.from({ length: rank }, (_, j) => 2 ** (-Math.max(0, j - tie + 1) / 8));
  // Left factor orthonormal and orthogonal to the ones vector, so that centring
  // leaves the singular values (and the cluster) as they are.
  const L = centerColumns(randomOrthogonal(n, seed).leadingColumns(rank)).centered;
  choleskyQR(L);
  choleskyQR(L);
  const R = randomOrthogonal(d, seed + 1).leadingColumns(rank);
  for (let i = 0; i < n; i++) for (let j = 0; j < rank; j++) L.data[i * rank + j] *= s[j];
  const X = multiplyABt(L, R);
  // An offset per column, which the fit's centring removes.
  const rng = new Random(seed);
  for (let j = 0; j < d; j++) {
    const o = rng.normal();
    for (let i = 0; i < n; i++) X.data[i * d + j] += o;
  }
  return X;
}

/** The full thin SVD's rank and leading k triplets: the exact path PCA used before. */
function fullSvdTriplets(data: TrainingData, k: number): PCATriplets {
  const svd = trainingSvd(data);
  const kept = Math.min(k, svd.rank);
  return {
    s: svd.s.slice(0, kept),
    V: svd.V.leadingColumns(kept),
    rank: svd.rank,
    rankTolerance: svd.rankTolerance,
    totalSquares: data.gramTrace(),
  };
}

/** PCA fitted through the full thin SVD. */
class FullSvdPCA extends PCA {
  protected override fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<PCADetails> {
    return fitPCA(data, this.params, ctx, fullSvdTriplets);
  }
}

function fitBoth(X: Matrix, k: number) {
  const full = new FullSvdPCA({ k }).fit(X);
  const fast = new PCA({ k }).fit(X);
  return { full, fast };
}

describe("PCA: the leading-eigenpairs path against the full thin SVD", () => {
  it("agrees on random data (tall and wide, any k)", () => {
    fc.assert(
      fc.property(inputs({ n: [3, 40], d: [2, 40], seed: [0, 1_000_000] }), ({ n, d, seed }) => {
        const rng = new Random(seed);
        const m = Math.min(n, d);
        const k = 1 + Math.floor(rng.uniform() * m);
        // Rank min(n - 1, d): centred data have at most n - 1.
        const X = lowRankData(n, d, Math.min(n - 1, d), 1, seed);
        const { full, fast } = fitBoth(X, k);
        const a = full.fitInfo.details as { rank: number; explainedVariance: number[] };
        const b = fast.fitInfo.details as { rank: number; explainedVariance: number[] };
        expect(b.rank).toBe(a.rank);
        expect(b.explainedVariance.length).toBe(a.explainedVariance.length);
        // Relative 1e-12, plus the absolute ~n eps lambda_max of any dense solver.
        const top = a.explainedVariance[0];
        b.explainedVariance.forEach((v, j) => {
          expect(Math.abs(v - a.explainedVariance[j])).toBeLessThanOrEqual(
            1e-12 * a.explainedVariance[j] + 1e-14 * top,
          );
        });
        expect(fast.fitInfo.warnings).toEqual(full.fitInfo.warnings);
        expect(orthogonalityError(fast.components)).toBeLessThan(1e-12);
        expect(subspaceDistance(full.components, fast.components)).toBeLessThan(1e-10);
      }),
      { numRuns: 30 },
    );
  });

  it("agrees when k exceeds the rank (the completed columns too) and inside a cluster", () => {
    for (const [n, d, rank, tie, k, seed] of [
      [50, 30, 8, 1, 12, 1],
      [20, 60, 6, 1, 10, 2],
      [60, 40, 20, 6, 10, 3],
      [30, 70, 20, 6, 10, 4],
    ]) {
      const { full, fast } = fitBoth(lowRankData(n, d, rank, tie, seed), k);
      expect((fast.fitInfo.details as { rank: number }).rank).toBe(
        (full.fitInfo.details as { rank: number }).rank,
      );
      expect(fast.fitInfo.warnings).toEqual(full.fitInfo.warnings);
      expect(subspaceDistance(full.components, fast.components)).toBeLessThan(1e-10);
      const distinct = Math.min(k, rank) > tie ? Math.min(k, rank) : 0;
      // Outside the cluster the columns themselves agree (distinct values, same signs).
      for (let j = tie; j < distinct; j++) {
        let diff = 0;
        for (let i = 0; i < d; i++) {
          diff = Math.max(diff, Math.abs(fast.components.get(i, j) - full.components.get(i, j)));
        }
        expect(diff).toBeLessThan(1e-10);
      }
    }
  });
});

describe("k above the rank", () => {
  it("says how many components carry no variance, in the singular for one", () => {
    // Five samples on a plane through 0: the centred data has rank 3.
    const X = [
      [1, 0, 0, 0, 0],
      [0, 2, 0, 0, 0],
      [0, 0, 3, 0, 0],
      [-1, -2, -3, 0, 0],
      [2, 2, 0, 0, 0],
    ];
    const message = (k: number) =>
      new PCA({ k }).fit(X).fitInfo.warnings.find((w) => w.code === "k-above-rank")?.message;
    expect(message(4)).toBe(
      "k = 4 exceeds the numerical rank 3 of the centred training data; the last component is an orthonormal direction that carries no training variance.",
    );
    expect(message(5)).toBe(
      "k = 5 exceeds the numerical rank 3 of the centred training data; the last 2 components are orthonormal directions that carry no training variance.",
    );
  });
});
