/**
 * The route LDA takes when d < n and X^T X has full numerical rank, against the exact
 * path it replaces: its refined solve against the eigen-decomposition of X^T X (fitLDA's
 * "eigen-span" route). Same subspaces, values, ranks and warnings; rank-deficient data
 * fall back and give the same answer. (PCA's route, block Lanczos with the Cholesky rank
 * certificate, is compared with the dense path in test/linalg/svd.test.ts.)
 * Also the one-fit training data, which centres on the way into the kernels: the same
 * Gram matrix bit for bit and the same class sums as the centred copy.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { transposed } from "#internal/linalg/kernels/gemm.js";
import { gramColumns, gramRows } from "#internal/linalg/kernels/symmetricProducts.js";
import type { CoreFitResult, FitContext } from "#internal/methods/estimator.js";
import { fitLDA, LDA, type LDADetails } from "#internal/methods/lda.js";
import { TrainingData } from "#internal/methods/training.js";
import { inputs } from "../helpers/properties.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

/** n x d data with decaying column scales (a spectrum like images') and an offset. */
function decaying(n: number, d: number, seed: number, decay = 1.04): Matrix {
  const rng = new Random(seed);
  const X = new Matrix(n, d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) X.data[i * d + j] = 3 + rng.normal() * decay ** -j;
  }
  return X;
}

/** c classes with their own means on decaying features, n samples. */
function classes(seed: number, n: number, d: number, c: number) {
  const X = decaying(n, d, seed, 1.01);
  const rng = new Random(seed + 1);
  const centres = Array.from({ length: c }, () => Array.from({ length: d }, () => rng.normal()));
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const cls = i % c;
    for (let j = 0; j < d; j++) X.data[i * d + j] += centres[cls][j];
    y.push(cls);
  }
  return { X, y };
}

describe("LDA on d < n: the refined solve against the eigen-decomposition of X^T X", () => {
  /** LDA that skips the full-rank solve (fitLDA's "eigen-span" route). */
  class EigenSpanLDA extends LDA {
    protected override fitCore(data: TrainingData, ctx: FitContext): CoreFitResult<LDADetails> {
      return fitLDA(data, this.params, ctx, "eigen-span");
    }
  }

  function fitBoth(X: Matrix, y: number[]) {
    const eigen = new EigenSpanLDA().fit(X, y);
    const fast = new LDA().fit(X, y);
    return { eigen, fast };
  }

  it("gives the same directions, ratios and rank (property)", () => {
    fc.assert(
      fc.property(inputs({ d: [2, 30], c: [2, 8], seed: [0, 1_000_000] }), ({ d, c, seed }) => {
        const { X, y } = classes(seed, 3 * (d + c), d, c);
        const { eigen, fast } = fitBoth(X, y);
        expect(fast.fitInfo.details.rank).toBe(eigen.fitInfo.details.rank);
        fast.fitInfo.details.betweenToTotal.forEach((v, j) => {
          expect(Math.abs(v - eigen.fitInfo.details.betweenToTotal[j])).toBeLessThan(1e-12);
        });
        // Column by column (distinct ratios): each direction, not only the span.
        for (let j = 0; j < fast.components.cols; j++) {
          const a = fast.components.selectColumns([j]);
          const b = eigen.components.selectColumns([j]);
          expect(maxPrincipalAngle(a, b)).toBeLessThan(1e-9);
        }
        expect(fast.fitInfo.warnings).toEqual(eigen.fitInfo.warnings);
      }),
      { numRuns: 25 },
    );
  });

  it("falls back on rank-deficient X^T X", () => {
    const { X, y } = classes(3, 120, 20, 4);
    for (let i = 0; i < 120; i++) X.data[i * 20 + 7] = 2 * X.data[i * 20 + 4];
    const { eigen, fast } = fitBoth(X, y);
    expect(fast.fitInfo.details.rank).toBe(19);
    expect(Array.from(fast.components.data)).toEqual(Array.from(eigen.components.data));
  });
});

describe("TrainingData.prepareForOneFit", () => {
  it("centres on the way: the same X, Gram matrix (bit for bit) and class sums", () => {
    for (const [n, d] of [
      [300, 40],
      [70, 9],
    ]) {
      const X = decaying(n, d, n + d);
      const lazy = TrainingData.prepareForOneFit(X);
      const eager = TrainingData.prepare(X);
      expect(Array.from(lazy.mean)).toEqual(Array.from(eager.mean));
      // Before the centred copy is made, and after.
      expect(Array.from(lazy.columnGram().data)).toEqual(Array.from(gramColumns(eager.X).data));
      const codes = Int32Array.from({ length: n }, (_, i) => i % 3);
      const counts = [0, 1, 2].map((c) => codes.filter((v) => v === c).length);
      const sums = lazy.centredClassSums(codes, counts);
      expect(Array.from(sums.data)).toEqual(Array.from(eager.centredClassSums(codes, counts).data));
      expect(Array.from(lazy.X.data)).toEqual(Array.from(eager.X.data));
      // gramColumns in the module's memory: gramRows of the transpose, bit for bit.
      expect(Array.from(gramColumns(eager.X).data)).toEqual(
        Array.from(gramRows(transposed(eager.X)).data),
      );
      expect(Array.from(lazy.columnGram().data)).toEqual(Array.from(gramColumns(eager.X).data));
      expect(Array.from(lazy.centredClassSums(codes, counts).data)).toEqual(Array.from(sums.data));
    }
  });
});
