import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { addScaled, CsrMatrix } from "#internal/linalg/sparse.js";
import { naiveProduct } from "../helpers/matrices.js";
import { inputs } from "../helpers/properties.js";

/** A random sparse matrix (about `density` of the entries set) and its dense twin. */
function randomSparse(seed: number, rows: number, cols: number, density: number) {
  const rng = new Random(seed);
  const dense = new Matrix(rows, cols);
  for (let t = 0; t < dense.data.length; t++) {
    if (rng.uniform() < density) dense.data[t] = rng.normal();
  }
  return { dense, sparse: CsrMatrix.fromDense(dense) };
}

function expectClose(a: Matrix, b: Matrix, tol: number): void {
  expect(a.rows).toBe(b.rows);
  expect(a.cols).toBe(b.cols);
  for (let t = 0; t < a.data.length; t++) {
    expect(Math.abs(a.data[t] - b.data[t])).toBeLessThanOrEqual(tol);
  }
}

describe("CsrMatrix construction", () => {
  it("sums duplicate triplets and sorts columns within rows", () => {
    const A = CsrMatrix.fromTriplets(3, 4, [2, 0, 2, 0, 2], [3, 1, 0, 1, 3], [1, 2, 3, 4, 5]);
    expect(Array.from(A.rowPtr)).toEqual([0, 1, 1, 3]);
    expect(Array.from(A.colIdx)).toEqual([1, 0, 3]);
    expect(Array.from(A.values)).toEqual([6, 3, 6]);
    expect(A.get(2, 3)).toBe(6);
    expect(A.get(1, 1)).toBe(0);
  });

  it("builds from per-row entries in any order, summing duplicates", () => {
    const A = CsrMatrix.fromRows(2, 3, [
      { indices: [2, 0, 2], values: [1, 2, 3] },
      { indices: [], values: [] },
    ]);
    expect(A.toDense().toRows()).toEqual([
      [2, 0, 4],
      [0, 0, 0],
    ]);
  });

  it("round-trips through dense form", () => {
    const { dense, sparse } = randomSparse(1, 7, 5, 0.3);
    expect(sparse.toDense().data).toEqual(dense.data);
    expect(CsrMatrix.identity(3).toDense().toRows()).toEqual(Matrix.identity(3).toRows());
    expect(CsrMatrix.zeros(2, 3).nnz).toBe(0);
  });

  it("rejects malformed structure with the argument named", () => {
    const bad = () =>
      new CsrMatrix(
        2,
        2,
        Int32Array.from([0, 2, 2]),
        Int32Array.from([1, 0]),
        Float64Array.from([1, 1]),
      );
    expect(bad).toThrow(ValidationError);
    expect(bad).toThrow(/colIdx.*strictly increasing.*Got 0 after 1 in row 0/);
    expect(
      () => new CsrMatrix(2, 2, Int32Array.from([0, 1]), new Int32Array(1), new Float64Array(1)),
    ).toThrow(/rowPtr.*3 entries/);
    expect(() => CsrMatrix.fromTriplets(2, 2, [0, 2], [0, 0], [1, 1])).toThrow(
      /'rowIndex'.*\[0, 1\]. Got 2/,
    );
    expect(() => CsrMatrix.fromRows(1, 2, [{ indices: [5], values: [1] }])).toThrow(
      /column indices in \[0, 1\]. Got 5 in row 0/,
    );
  });
});

describe("CsrMatrix products", () => {
  it("multiplyVector equals the dense product", () => {
    const { dense, sparse } = randomSparse(2, 9, 6, 0.4);
    const x = Float64Array.from({ length: 6 }, (_, i) => Math.sin(i + 1));
    const y = sparse.multiplyVector(x);
    const ref = naiveProduct(dense, new Matrix(6, 1, x));
    for (let i = 0; i < 9; i++) expect(y[i]).toBeCloseTo(ref.data[i], 14);
    expect(() => sparse.multiplyVector(new Float64Array(5))).toThrow(/length 6.*Got 5/);
  });

  it("multiplyMatrix equals the dense product for any block width and sparsity", () => {
    const fraction = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(
        inputs({ rows: [1, 12], cols: [1, 12], b: [1, 9], density: fraction, seed: fc.integer() }),
        ({ rows, cols, b, density, seed }) => {
          const { dense, sparse } = randomSparse(seed, rows, cols, density);
          const rng = new Random(seed + 1);
          const B = new Matrix(cols, b);
          for (let t = 0; t < B.data.length; t++) B.data[t] = rng.normal();
          const out = new Matrix(rows, b);
          out.data.fill(Number.NaN);
          const C = sparse.multiplyMatrix(B, out);
          expect(C).toBe(out);
          expectClose(C, naiveProduct(dense, B), 1e-12);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("multiplyMatrix checks shapes and aliasing", () => {
    const { sparse } = randomSparse(3, 4, 4, 0.5);
    expect(() => sparse.multiplyMatrix(new Matrix(3, 2))).toThrow(/'B'.*4 rows.*Got 3/);
    const B = new Matrix(4, 2);
    expect(() => sparse.multiplyMatrix(B, B)).toThrow(/must not share storage/);
  });

  it("quadraticTrace equals Tr(F^T A F)", () => {
    const { dense, sparse } = randomSparse(4, 8, 8, 0.4);
    const F = new Matrix(8, 3);
    const rng = new Random(5);
    for (let t = 0; t < F.data.length; t++) F.data[t] = rng.normal();
    const AF = naiveProduct(dense, F);
    let ref = 0;
    for (let t = 0; t < F.data.length; t++) ref += F.data[t] * AF.data[t];
    expect(sparse.quadraticTrace(F)).toBeCloseTo(ref, 12);
  });
});

describe("CsrMatrix structure operations", () => {
  it("transpose is the dense transpose, with sorted rows, and an involution", () => {
    const { dense, sparse } = randomSparse(6, 6, 9, 0.35);
    const T = sparse.transpose();
    expect(T.rows).toBe(9);
    expect(T.toDense().data).toEqual(dense.transpose().data);
    const TT = T.transpose();
    expect(Array.from(TT.rowPtr)).toEqual(Array.from(sparse.rowPtr));
    expect(Array.from(TT.colIdx)).toEqual(Array.from(sparse.colIdx));
    expect(Array.from(TT.values)).toEqual(Array.from(sparse.values));
  });

  it("rowSums and diagonal agree with the dense matrix", () => {
    const { dense, sparse } = randomSparse(7, 5, 5, 0.6);
    const sums = sparse.rowSums();
    const diag = sparse.diagonal();
    for (let i = 0; i < 5; i++) {
      let s = 0;
      for (let j = 0; j < 5; j++) s += dense.get(i, j);
      expect(sums[i]).toBeCloseTo(s, 14);
      expect(diag[i]).toBe(dense.get(i, i));
    }
  });

  it("symmetricPart is (A + A^T)/2 and exactly symmetric", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 15 }), fc.integer(), (n, seed) => {
        const { dense, sparse } = randomSparse(seed, n, n, 0.3);
        const S = sparse.symmetricPart();
        expect(S.isSymmetric()).toBe(true);
        const D = S.toDense();
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < n; j++) {
            expect(D.get(i, j)).toBe(0.5 * dense.get(i, j) + 0.5 * dense.get(j, i));
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("isSymmetric tells a non-symmetric matrix apart", () => {
    const A = CsrMatrix.fromTriplets(2, 2, [0], [1], [1]);
    expect(A.isSymmetric()).toBe(false);
    expect(A.symmetricPart().isSymmetric()).toBe(true);
  });

  it("addScaled merges sorted rows", () => {
    const a = randomSparse(8, 6, 7, 0.4);
    const b = randomSparse(9, 6, 7, 0.4);
    const C = addScaled(a.sparse, b.sparse, 2, -3).toDense();
    for (let t = 0; t < C.data.length; t++) {
      expect(C.data[t]).toBeCloseTo(2 * a.dense.data[t] - 3 * b.dense.data[t], 14);
    }
    expect(() => addScaled(a.sparse, CsrMatrix.zeros(6, 6), 1, 1)).toThrow(/shape of A/);
  });

  it("principalSubmatrix keeps the chosen rows and columns, renumbered", () => {
    const { dense, sparse } = randomSparse(10, 8, 8, 0.5);
    const idx = Int32Array.from([1, 4, 5, 7]);
    const sub = sparse.principalSubmatrix(idx).toDense();
    for (let a = 0; a < idx.length; a++) {
      for (let b = 0; b < idx.length; b++) expect(sub.get(a, b)).toBe(dense.get(idx[a], idx[b]));
    }
    expect(() => sparse.principalSubmatrix(Int32Array.from([3, 2]))).toThrow(
      /strictly increasing.*Got 2 at position 1/,
    );
  });

  it("scale multiplies every value", () => {
    const { dense, sparse } = randomSparse(11, 4, 4, 0.5);
    const D = sparse.scale(-2).toDense();
    for (let t = 0; t < D.data.length; t++) expect(D.data[t] === -2 * dense.data[t]).toBe(true);
  });
});
