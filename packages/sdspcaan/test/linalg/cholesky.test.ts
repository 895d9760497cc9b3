/**
 * The blocked Cholesky factorisation (linalg/cholesky.ts) by its invariants (L L^T =
 * A - shift I to rounding, L lower), the full-rank certificate (given for Gram matrices
 * of full numerical rank, refused for rank-deficient ones and where an eigenvalue is
 * near the threshold), and the refined solve (residual at rounding, the same solution
 * as a direct solve through the eigen-decomposition).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Matrix } from "#internal/core/matrix.js";
import { frobeniusNorm } from "#internal/linalg/basic.js";
import { choleskyLower, fullRankFactor, solveRefined } from "#internal/linalg/cholesky.js";
import { multiply, multiplyABt } from "#internal/linalg/kernels/gemm.js";
import { gramColumns } from "#internal/linalg/kernels/symmetricProducts.js";
import { randomMatrix, withSpectrum } from "../helpers/matrices.js";
import { inputs } from "../helpers/properties.js";

function factorResidual(A: Matrix, L: Matrix, shift: number): number {
  const P = multiplyABt(L, L);
  const n = A.rows;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      P.data[i * n + j] -= A.data[i * n + j] - (i === j ? shift : 0);
    }
  }
  return frobeniusNorm(P) / frobeniusNorm(A);
}

describe("choleskyLower", () => {
  it("factorises symmetric positive definite matrices of any order (leaves and halves)", () => {
    fc.assert(
      fc.property(inputs({ n: [1, 180], seed: [0, 1_000_000] }), ({ n, seed }) => {
        const X = randomMatrix(n + 5, n, seed);
        const A = gramColumns(X);
        const L = choleskyLower(A) as Matrix;
        expect(L).not.toBeNull();
        for (let i = 0; i < n; i++) {
          for (let j = i + 1; j < n; j++) expect(L.data[i * n + j]).toBe(0);
        }
        expect(factorResidual(A, L, 0)).toBeLessThan(1e-13);
      }),
      { numRuns: 20 },
    );
  });

  it("refuses indefinite and singular matrices", () => {
    const values = Array.from({ length: 150 }, (_, j) => (j === 97 ? -1e-3 : 1 + j));
    expect(choleskyLower(withSpectrum(values, 3))).toBeNull();
    // A shift above the smallest eigenvalue makes a positive definite matrix indefinite.
    const spd = withSpectrum(
      Array.from({ length: 100 }, (_, j) => 1 + j),
      4,
    );
    expect(choleskyLower(spd, 0.5)).not.toBeNull();
    expect(choleskyLower(spd, 1.5)).toBeNull();
  });
});

describe("fullRankFactor", () => {
  const tol2 = 1e-10;

  it("certifies Gram matrices of full numerical rank", () => {
    fc.assert(
      fc.property(inputs({ d: [2, 150], seed: [0, 1_000_000] }), ({ d, seed }) => {
        const G = gramColumns(randomMatrix(2 * d + 3, d, seed));
        expect(fullRankFactor(G, tol2)).not.toBeNull();
      }),
      { numRuns: 15 },
    );
  });

  it("refuses rank-deficient Gram matrices and eigenvalues near the threshold", () => {
    // A repeated column: rank d - 1.
    const X = randomMatrix(200, 120, 5);
    for (let i = 0; i < 200; i++) X.data[i * 120 + 77] = X.data[i * 120 + 3];
    expect(fullRankFactor(gramColumns(X), tol2)).toBeNull();
    // The smallest eigenvalue at the threshold (relative to lambda_max = 1), or just
    // above it: the count could go either way, so no certificate.
    for (const smallest of [tol2, 1.5 * tol2]) {
      const values = Array.from({ length: 130 }, (_, j) => (j === 0 ? smallest : 1 - j / 260));
      expect(fullRankFactor(withSpectrum(values, 6), tol2)).toBeNull();
    }
    // Well above it: certified.
    const values = Array.from({ length: 130 }, (_, j) => (j === 0 ? 1e-6 : 1 - j / 260));
    expect(fullRankFactor(withSpectrum(values, 6), tol2)).not.toBeNull();
  });
});

describe("solveRefined", () => {
  it("solves G X = B to a residual at rounding, conditioned or not", () => {
    for (const [cond, seed] of [
      [1e2, 1],
      [1e6, 2],
      [1e9, 3],
    ] as const) {
      const n = 140;
      const values = Array.from({ length: n }, (_, j) => cond ** (-j / (n - 1)));
      const G = withSpectrum(values, seed);
      const factor = fullRankFactor(G, 1e-13);
      expect(factor).not.toBeNull();
      const Bt = randomMatrix(4, n, seed + 10);
      const Xt = solveRefined(G, factor as NonNullable<typeof factor>, Bt) as Matrix;
      expect(Xt).not.toBeNull();
      // Residual B - G X, relative to ||G|| ||X||.
      const R = multiply(Xt, G);
      for (let i = 0; i < R.data.length; i++) R.data[i] = Bt.data[i] - R.data[i];
      expect(frobeniusNorm(R) / frobeniusNorm(Xt)).toBeLessThan(1e-13);
    }
  });
});
