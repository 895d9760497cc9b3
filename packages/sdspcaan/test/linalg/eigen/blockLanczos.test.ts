/**
 * Block Lanczos for the k largest eigenpairs (eigen/blockLanczos.ts) against the dense
 * path it stands in for (leadingEigenpairs): the same values to rounding and the same
 * subspace (principal angles, never raw signs), orthonormal vectors with residuals at
 * rounding; and null, so that the caller runs the dense path, where the result could
 * not be trusted: a cluster straddling the k-th eigenvalue, a small order, a Krylov
 * space that becomes invariant (rank deficiency).
 */
import { describe, expect, it } from "vitest";
import type { Matrix } from "#internal/core/matrix.js";
import {
  lanczosDiagnostics,
  leadingEigenpairsLanczos,
} from "#internal/linalg/eigen/blockLanczos.js";
import { leadingEigenpairs } from "#internal/linalg/eigen/symmetricEigen.js";
import { gramColumns } from "#internal/linalg/kernels/symmetricProducts.js";
import {
  eigenResidual,
  orthogonalityError,
  randomMatrix,
  withSpectrum,
} from "../../helpers/matrices.js";
import { maxPrincipalAngle } from "../../helpers/subspace.js";

function compare(A: Matrix, k: number) {
  const fast = leadingEigenpairsLanczos(A, k);
  const dense = leadingEigenpairs(A, k);
  return { fast, dense };
}

describe("leadingEigenpairsLanczos", () => {
  it("gives the dense path's values and subspace on Gram matrices", () => {
    let converged = 0;
    for (let seed = 0; seed < 8; seed++) {
      const d = 130 + 11 * seed;
      const k = 1 + (seed % 4);
      // Decaying column scales: a spectrum like image data's.
      const X = randomMatrix(d + 40, d, seed);
      for (let i = 0; i < X.rows; i++) {
        for (let j = 0; j < d; j++) X.data[i * d + j] *= 1.1 ** -j;
      }
      const A = gramColumns(X);
      const { fast, dense } = compare(A, k);
      if (fast === null) {
        // Only for want of basis or of a gap, never a wrong answer.
        expect(["gap", "basis"]).toContain(lanczosDiagnostics.outcome);
        continue;
      }
      converged++;
      const scale = dense.values[k - 1];
      for (let j = 0; j < k; j++) {
        expect(Math.abs(fast.values[j] - dense.values[j])).toBeLessThan(1e-13 * scale);
      }
      expect(maxPrincipalAngle(fast.vectors, dense.vectors)).toBeLessThan(1e-10);
      expect(orthogonalityError(fast.vectors)).toBeLessThan(1e-13);
      expect(eigenResidual(A, fast.vectors, fast.values)).toBeLessThan(1e-12 * scale);
    }
    expect(converged).toBeGreaterThanOrEqual(6);
  });

  it("converges on prescribed spectra with a gap at k", () => {
    const n = 300;
    const values = Array.from({ length: n }, (_, j) => 0.9 ** j);
    const A = withSpectrum(values, 11);
    for (const k of [1, 5, 8]) {
      const { fast, dense } = compare(A, k);
      expect(fast).not.toBeNull();
      expect(lanczosDiagnostics.outcome).toBe("converged");
      const f = fast as NonNullable<typeof fast>;
      expect(maxPrincipalAngle(f.vectors, dense.vectors)).toBeLessThan(1e-10);
      // Ascending, as leadingEigenpairs.
      for (let j = 1; j < k; j++) expect(f.values[j]).toBeGreaterThan(f.values[j - 1]);
    }
  });

  it("gives up on a cluster straddling the k-th eigenvalue", () => {
    const n = 300;
    // lambda_5 = lambda_6 (to 1e-15): the top-5 subspace is not determined.
    const values = Array.from({ length: n }, (_, j) => 0.97 ** Math.min(j, 200) / (j < 4 ? 1 : 2));
    values[5] = values[4] * (1 - 1e-15);
    values.sort((a, b) => b - a);
    const A = withSpectrum(values, 12);
    expect(leadingEigenpairsLanczos(A, 5)).toBeNull();
    expect(["gap", "basis"]).toContain(lanczosDiagnostics.outcome);
  });

  it("gives up on small orders, large k and invariant Krylov spaces", () => {
    expect(leadingEigenpairsLanczos(withSpectrum([3, 2, 1, 0.5], 1), 1)).toBeNull();
    expect(lanczosDiagnostics.outcome).toBe("order");
    const A = gramColumns(randomMatrix(200, 150, 2));
    expect(leadingEigenpairsLanczos(A, 40)).toBeNull();
    expect(lanczosDiagnostics.outcome).toBe("order");
    // Rank 3: the Krylov space of the first block already holds the whole range.
    const X = randomMatrix(160, 3, 3);
    const wide = multiplyRank(X, 140);
    expect(leadingEigenpairsLanczos(gramColumns(wide), 2)).toBeNull();
    expect(lanczosDiagnostics.outcome).toBe("breakdown");
  });
});

/** X (n x r) times a fixed random r x d mixing: rank r, d columns. */
function multiplyRank(X: Matrix, d: number): Matrix {
  const M = randomMatrix(X.cols, d, 99);
  const out = randomMatrix(X.rows, d, 0);
  for (let i = 0; i < X.rows; i++) {
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let p = 0; p < X.cols; p++) s += X.data[i * X.cols + p] * M.data[p * d + j];
      out.data[i * d + j] = s;
    }
  }
  return out;
}
