import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { frobeniusNorm } from "#internal/linalg/basic.js";
import {
  leadingEigenpairs,
  leadingEigenpairsWithCount,
  normalizeEigenvectorSigns,
  symmetricEigen,
  symmetricEigenvalues,
  trailingEigenpairs,
} from "#internal/linalg/eigen/symmetricEigen.js";
import { multiplyABt } from "#internal/linalg/kernels/gemm.js";
import {
  eigenResidual,
  followsSignConvention,
  isAscending,
  maxAbsDifference,
  orthogonalityError,
  randomMatrix,
  randomSymmetric,
  subspaceDistance,
  withSpectrum,
} from "../../helpers/matrices.js";
import { inputs } from "../../helpers/properties.js";

type Kind = "symmetric" | "psd" | "lowRank" | "clustered" | "repeated";

function build(kind: Kind, n: number, seed: number, scale: number): Matrix {
  switch (kind) {
    case "symmetric":
      return randomSymmetric(n, seed, scale);
    case "psd": {
      const X = randomMatrix(n, n + 3, seed, Math.sqrt(scale));
      return multiplyABt(X, X);
    }
    case "lowRank": {
      const X = randomMatrix(n, Math.max(1, n >> 2), seed, Math.sqrt(scale));
      return multiplyABt(X, X);
    }
    case "clustered": {
      // Eigenvalues in three tight clusters (spread 1e-9 relative).
      const v = Array.from({ length: n }, (_, i) => scale * ((i % 3) + 1 + 1e-9 * i));
      return withSpectrum(v, seed);
    }
    case "repeated": {
      // Exactly repeated eigenvalues (multiplicity up to 4), including zero.
      const v = Array.from({ length: n }, (_, i) => scale * (Math.floor(i / 4) - 1));
      return withSpectrum(v, seed);
    }
  }
}

function checkPairs(A: Matrix, values: Float64Array, V: Matrix): void {
  const norm = frobeniusNorm(A);
  expect(eigenResidual(A, V, values)).toBeLessThanOrEqual(1e-10 * Math.max(norm, Number.MIN_VALUE));
  expect(orthogonalityError(V)).toBeLessThanOrEqual(1e-12);
  expect(isAscending(values)).toBe(true);
  expect(followsSignConvention(V)).toBe(true);
}

const kinds: Kind[] = ["symmetric", "psd", "lowRank", "clustered", "repeated"];

describe("symmetricEigen: invariants of the full decomposition", () => {
  it("A V = V Lambda, V^T V = I, ascending, signs, on seeded random matrices of every kind", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...kinds),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.constantFrom(1, 1e-150, 1e150, 3.7e-300),
        (kind, n, seed, scale) => {
          const A = build(kind, n, seed, scale);
          const { values, vectors } = symmetricEigen(A);
          expect(values.length).toBe(n);
          checkPairs(A, values, vectors as Matrix);
        },
      ),
      { numRuns: 60, seed: 42 },
    );
  });

  it("handles sizes that take the blocked Householder path", () => {
    for (const kind of ["symmetric", "repeated"] as Kind[]) {
      const A = build(kind, 200, 7, 1);
      const { values, vectors } = symmetricEigen(A);
      checkPairs(A, values, vectors as Matrix);
    }
  });

  it("recovers a prescribed spectrum with exact repeats", () => {
    const spectrum = [-2, -2, -2, 0, 0, 1e-12, 3, 3, 5, 5, 5, 5];
    const A = withSpectrum(spectrum, 3);
    const values = symmetricEigenvalues(A);
    expect(maxAbsDifference(values, spectrum)).toBeLessThan(1e-13);
  });

  it("diagonal and zero matrices", () => {
    const D = Matrix.fromRows([
      [3, 0, 0],
      [0, -1, 0],
      [0, 0, 2],
    ]);
    const { values, vectors } = symmetricEigen(D);
    expect(Array.from(values)).toEqual([-1, 2, 3]);
    expect((vectors as Matrix).toRows()).toEqual([
      [0, 0, 1],
      [1, 0, 0],
      [0, 1, 0],
    ]);
    const Z = symmetricEigen(new Matrix(4, 4), { select: { smallest: 2 } });
    expect(Array.from(Z.values)).toEqual([0, 0]);
    expect(orthogonalityError(Z.vectors as Matrix)).toBe(0);
  });

  it("returns values only when vectors are not wanted", () => {
    const A = randomSymmetric(30, 1);
    const r = symmetricEigen(A, { vectors: false, select: { largest: 3 } });
    expect(r.vectors).toBeNull();
    expect(r.values.length).toBe(3);
  });
});

/** The Wilkinson matrix W_m^+ (m odd): tridiagonal, pairs of eigenvalues equal to ~1e-14. */
function wilkinson(m: number, glue = 1): Matrix {
  const W = new Matrix(m, m);
  const h = (m - 1) / 2;
  for (let i = 0; i < m; i++) {
    W.set(i, i, Math.abs(h - i));
    if (i + 1 < m) {
      W.set(i, i + 1, glue);
      W.set(i + 1, i, glue);
    }
  }
  return W;
}

describe("symmetricEigen: hard tridiagonal cases for inverse iteration", () => {
  it("Wilkinson W21+ (eigenvalue pairs equal to ~1e-14): orthonormal vectors for every subset", () => {
    const W = wilkinson(21);
    const full = symmetricEigen(W);
    checkPairs(W, full.values, full.vectors as Matrix);
    // The two largest agree to about 1e-14 (a textbook trap for inverse iteration).
    expect(full.values[20] - full.values[19]).toBeLessThan(1e-12);
    for (const k of [2, 5, 11, 20]) {
      const top = symmetricEigen(W, { select: { largest: k } });
      checkPairs(W, top.values, top.vectors as Matrix);
      expect(maxAbsDifference(top.values, full.values.subarray(21 - k))).toBeLessThan(1e-13);
    }
  });

  it("glued Wilkinson matrices (clusters of tens of nearly equal eigenvalues)", () => {
    // Five copies of W21+ glued by off-diagonal entries of 1e-10.
    const m = 21;
    const copies = 5;
    const n = m * copies;
    const G = new Matrix(n, n);
    const W = wilkinson(m);
    for (let c = 0; c < copies; c++) {
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < m; j++) G.set(c * m + i, c * m + j, W.get(i, j));
      }
      if (c > 0) {
        G.set(c * m - 1, c * m, 1e-10);
        G.set(c * m, c * m - 1, 1e-10);
      }
    }
    for (const k of [10, 30]) {
      const top = symmetricEigen(G, { select: { largest: k } });
      checkPairs(G, top.values, top.vectors as Matrix);
    }
    const full = symmetricEigen(G);
    checkPairs(G, full.values, full.vectors as Matrix);
  });

  it("graded matrices whose entries span 1e-150 to 1", () => {
    const n = 30;
    const A = randomSymmetric(n, 13);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) A.data[i * n + j] *= 10 ** (-5 * Math.max(i, j));
    }
    const r = symmetricEigen(A, { select: { smallest: 10 } });
    checkPairs(A, r.values, r.vectors as Matrix);
  });
});

describe("symmetricEigen: subsets agree with the full decomposition", () => {
  it("k smallest and k largest match the ends of the full spectrum", () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Kind>("symmetric", "psd", "lowRank"),
        fc.integer({ min: 2, max: 60 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (kind, n, seed, frac) => {
          const A = build(kind, n, seed, 1);
          const k = Math.max(1, Math.round(frac * n));
          const full = symmetricEigen(A);
          const V = full.vectors as Matrix;
          const small = symmetricEigen(A, { select: { smallest: k } });
          const large = symmetricEigen(A, { select: { largest: k } });
          checkPairs(A, small.values, small.vectors as Matrix);
          checkPairs(A, large.values, large.vectors as Matrix);
          const norm = frobeniusNorm(A);
          expect(maxAbsDifference(small.values, full.values.subarray(0, k))).toBeLessThan(
            1e-12 * norm,
          );
          expect(maxAbsDifference(large.values, full.values.subarray(n - k))).toBeLessThan(
            1e-12 * norm,
          );
          // Subspaces: compare only where the selection does not cut a cluster.
          const gapLow = k < n ? full.values[k] - full.values[k - 1] : Number.POSITIVE_INFINITY;
          if (gapLow > 1e-6 * norm) {
            const idx = Int32Array.from({ length: k }, (_, j) => j);
            const dist = subspaceDistance(V.selectColumns(idx), small.vectors as Matrix);
            expect(dist).toBeLessThan((1e-12 * norm) / gapLow + 1e-12);
          }
        },
      ),
      { numRuns: 40, seed: 7 },
    );
  });

  it("a selection inside a cluster of repeated eigenvalues still gives an orthonormal basis of eigenvectors", () => {
    const A = build("repeated", 24, 11, 1);
    const r = symmetricEigen(A, { select: { smallest: 6 } });
    checkPairs(A, r.values, r.vectors as Matrix);
    expect(maxAbsDifference(r.values, [-1, -1, -1, -1, 0, 0])).toBeLessThan(1e-13);
  });

  it("agrees between the unblocked and blocked sizes for a large subset", () => {
    const A = build("psd", 260, 5, 1);
    const small = symmetricEigen(A, { select: { smallest: 40 } });
    checkPairs(A, small.values, small.vectors as Matrix);
    const large = leadingEigenpairs(A, 12);
    checkPairs(A, large.values, large.vectors);
  });

  it("trailingEigenpairs and leadingEigenpairs are the two ends, both ascending", () => {
    const A = withSpectrum([5, 1, 4, 2, 3], 9);
    const t = trailingEigenpairs(A, 2);
    const l = leadingEigenpairs(A, 2);
    expect(maxAbsDifference(t.values, [1, 2])).toBeLessThan(1e-14);
    expect(maxAbsDifference(l.values, [4, 5])).toBeLessThan(1e-14);
    expect(t.vectors.rows).toBe(5);
    expect(t.vectors.cols).toBe(2);
  });
});

describe("symmetricEigen: symmetry and conventions", () => {
  it("symmetrises round-off asymmetry and gives the same result as the symmetric part", () => {
    const A = randomSymmetric(12, 4);
    const B = A.clone();
    B.data[1] += 1e-13;
    const a = symmetricEigen(A);
    const b = symmetricEigen(B);
    expect(maxAbsDifference(a.values, b.values)).toBeLessThan(1e-12);
  });

  it("normalizeEigenvectorSigns makes the largest-magnitude entry positive, lowest index on ties", () => {
    const V = Matrix.fromRows([
      [0.5, -0.6],
      [-0.5, 0.6],
      [0.1, 0.2],
    ]);
    normalizeEigenvectorSigns(V);
    expect(V.toRows()).toEqual([
      [0.5, 0.6],
      [-0.5, -0.6],
      [0.1, -0.2],
    ]);
  });

  it("is deterministic", () => {
    const A = build("clustered", 30, 2, 1);
    const a = symmetricEigen(A, { select: { smallest: 5 } });
    const b = symmetricEigen(A, { select: { smallest: 5 } });
    expect(Array.from((a.vectors as Matrix).data)).toEqual(Array.from((b.vectors as Matrix).data));
  });
});

describe("symmetricEigen: bad input", () => {
  const expectError = (fn: () => unknown, argument: string, pattern: RegExp) => {
    try {
      fn();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe(argument);
      expect((err as Error).message).toMatch(pattern);
      return;
    }
    throw new Error("expected a ValidationError");
  };

  it("rejects a non-square matrix", () => {
    expectError(() => symmetricEigen(new Matrix(2, 3)), "A", /square.*Got 2 x 3/);
  });

  it("rejects a non-symmetric matrix, naming the entry and the tolerance", () => {
    const A = Matrix.fromRows([
      [1, 2],
      [2.1, 1],
    ]);
    expectError(() => symmetricEigen(A), "A", /symmetric.*\|A\[0\]\[1\] - A\[1\]\[0\]\| = 0\.100/);
  });

  it("rejects NaN and Infinity", () => {
    const A = randomSymmetric(3, 1);
    A.data[4] = Number.NaN;
    expectError(() => symmetricEigen(A), "A", /finite.*Got NaN at row 1, column 1/);
    A.data[4] = Number.POSITIVE_INFINITY;
    expectError(() => trailingEigenpairs(A, 1), "A", /finite.*Got Infinity/);
  });

  it("rejects k outside [1, n]", () => {
    const A = randomSymmetric(4, 1);
    expectError(() => trailingEigenpairs(A, 0), "k", /integer in \[1, 4\].*Got 0 instead/);
    expectError(() => leadingEigenpairs(A, 5), "k", /integer in \[1, 4\].*Got 5 instead/);
    expectError(
      () => symmetricEigen(A, { select: { smallest: 2.5 } }),
      "select.smallest",
      /integer in \[1, 4\].*Got 2\.5 instead/,
    );
    expectError(
      () => symmetricEigen(A, { select: "some" as unknown as "all" }),
      "select",
      /"all", \{smallest: k\} or \{largest: k\}/,
    );
  });

  it("rejects something that is not a Matrix", () => {
    expectError(() => symmetricEigen([[1]] as unknown as Matrix), "A", /must be a Matrix/);
  });
});

describe("symmetryTolerance", () => {
  it("Infinity skips the symmetry check and uses the symmetric part, as a passing check does", () => {
    const S = Matrix.fromRows([
      [2, 1, 0],
      [1, 3, 1],
      [0, 1, 4],
    ]);
    const checked = symmetricEigen(S);
    const trusted = symmetricEigen(S, { symmetryTolerance: Number.POSITIVE_INFINITY });
    expect(Array.from(trusted.values)).toEqual(Array.from(checked.values));
    expect(Array.from(trusted.vectors?.data ?? [])).toEqual(
      Array.from(checked.vectors?.data ?? []),
    );
    // Any asymmetry passes, and (A + A^T)/2 is what gets solved.
    const A = Matrix.fromRows([
      [2, 3, 0],
      [-1, 3, 1],
      [0, 1, 4],
    ]);
    const relaxed = symmetricEigen(A, { symmetryTolerance: Number.POSITIVE_INFINITY });
    expect(Array.from(relaxed.values)).toEqual(Array.from(checked.values));
    expect(() => symmetricEigen(A)).toThrow(/must be symmetric/);
  });

  it("refuses a negative or NaN tolerance, naming the option", () => {
    const S = Matrix.identity(2, 2);
    expect(() => symmetricEigen(S, { symmetryTolerance: -1 })).toThrow(/symmetryTolerance/);
    expect(() => symmetricEigen(S, { symmetryTolerance: Number.NaN })).toThrow(/symmetryTolerance/);
  });
});

describe("leadingEigenpairsWithCount with overwrite", () => {
  it("gives the bits of the call on a copy (A's storage as the work array)", () => {
    fc.assert(
      fc.property(inputs({ n: [1, 120], seed: [0, 1_000_000] }), ({ n, seed }) => {
        const A = randomSymmetric(n, seed);
        const k = 1 + (seed % n);
        const copy = leadingEigenpairsWithCount(A, k, 1e-3);
        const inPlace = leadingEigenpairsWithCount(A.clone(), k, 1e-3, { overwrite: true });
        expect(Array.from(inPlace.values)).toEqual(Array.from(copy.values));
        expect(Array.from(inPlace.vectors.data)).toEqual(Array.from(copy.vectors.data));
        expect(inPlace.countAbove).toBe(copy.countAbove);
      }),
      { numRuns: 20 },
    );
  });
});
