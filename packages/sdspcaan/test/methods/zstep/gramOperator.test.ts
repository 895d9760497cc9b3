/**
 * The Gram operator with U and U^T resident in WebAssembly memory gives the bits of the
 * code it replaces: multiply(U, S^2 multiply(U^T, V)), symmetricLaplacianTrace and
 * transposed(A.multiplyMatrix(U)).
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import type { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import {
  graphLaplacian,
  symmetricLaplacianTrace,
  symmetrizeGraph,
} from "#internal/graph/laplacian.js";
import { transposed } from "#internal/linalg/kernels/gemm.js";
import { setKernelBackend } from "#internal/linalg/kernels/wasm/backend.js";
import { CsrMatrix } from "#internal/linalg/sparse.js";
import { GramOperator } from "#internal/methods/zstep/gramOperator.js";
import { laplacianProjection, ZWoodbury } from "#internal/methods/zstep/zPreconditioner.js";
import { firstDifference, gramByMultiply, randomMatrix } from "../../helpers/matrices.js";
import { inputs } from "../../helpers/properties.js";

function factors(n: number, r: number, seed: number) {
  const U = randomMatrix(n, r, seed);
  const s2 = Float64Array.from({ length: r }, (_, j) => (r - j) ** 2 / 7);
  return { U, Ut: U.transpose(), s2 };
}

/** A random symmetric graph on n nodes with about `degree` neighbours per row. */
function randomGraph(n: number, degree: number, seed: number): CsrMatrix {
  const rng = new Random(seed);
  const rows: number[] = [];
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let e = 0; e < degree; e++) {
      const j = Math.floor(rng.uniform() * n);
      if (j === i) continue;
      rows.push(i);
      cols.push(j);
      vals.push(rng.uniform());
    }
  }
  return symmetrizeGraph(CsrMatrix.fromTriplets(n, n, rows, cols, vals));
}

/** Rows i0..i1-1 of A as a matrix of their own (row pointers from 0, all columns). */
function rowsOf(A: CsrMatrix, i0: number, i1: number): CsrMatrix {
  const p0 = A.rowPtr[i0];
  const p1 = A.rowPtr[i1];
  return new CsrMatrix(
    i1 - i0,
    A.cols,
    Int32Array.from(A.rowPtr.subarray(i0, i1 + 1), (p) => p - p0),
    A.colIdx.subarray(p0, p1),
    A.values.subarray(p0, p1),
  );
}

afterEach(() => {
  setKernelBackend("auto");
});

describe("GramOperator", () => {
  it("keeps U and U^T resident and gives multiply's bits for every block width", () => {
    const { U, Ut, s2 } = factors(300, 37, 1);
    const op = new GramOperator(U, Ut, s2);
    expect(op.resident).toBe(true);
    // Widths 1 and 2 take multiply's TS paths; the others its wasm kernel.
    for (const b of [1, 2, 3, 5, 8, 20, 31]) {
      const V = randomMatrix(300, b, 10 + b);
      const got = op.apply(V);
      const want = gramByMultiply(U, Ut, s2, V);
      expect(got.rows).toBe(300);
      expect(got.cols).toBe(b);
      expect(firstDifference(got.data, want.data)).toBe(-1);
    }
  });

  it("matches multiply bit for bit on random shapes (property)", () => {
    fc.assert(
      fc.property(
        inputs({ n: [1, 260], rWanted: [1, 40], b: [1, 24], seed: [0, 1e6] }),
        ({ n, rWanted, b, seed }) => {
          const r = Math.min(rWanted, n);
          const { U, Ut, s2 } = factors(n, r, seed);
          const op = new GramOperator(U, Ut, s2);
          const V = randomMatrix(n, b, seed + 1);
          const got = op.apply(V);
          // A second product on the same operator reuses the resident copies.
          const V2 = randomMatrix(n, b, seed + 2);
          const got2 = op.apply(V2);
          return (
            firstDifference(got.data, gramByMultiply(U, Ut, s2, V).data) === -1 &&
            firstDifference(got2.data, gramByMultiply(U, Ut, s2, V2).data) === -1
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it("sums Tr(G L G) over the edges with symmetricLaplacianTrace's bits, odd and even widths", () => {
    for (const [n, r, seed] of [
      [200, 31, 3],
      [200, 32, 4],
      [57, 1, 5],
      [120, 2, 6],
    ] as const) {
      const { U, Ut, s2 } = factors(n, r, seed);
      const S = randomGraph(n, 6, seed);
      const op = new GramOperator(U, Ut, s2);
      expect(op.resident).toBe(true);
      const got = op.edgeTrace(S);
      expect(Object.is(got, symmetricLaplacianTrace(S, U, s2, false))).toBe(true);
      // Scratch is released: a product after the trace still agrees.
      const V = randomMatrix(n, 7, seed);
      expect(firstDifference(op.apply(V).data, gramByMultiply(U, Ut, s2, V).data)).toBe(-1);
      expect(Object.is(op.edgeTrace(S), got)).toBe(true);
    }
  });

  it("gives (A U)^T for sparse rows on one thread with the bits of the TypeScript A U", () => {
    // One thread: the product's fallback (test/linalg/helperThread.test.ts splits it).
    // Rows with 0 to 11 stored entries (csrmm's groups of four and its tail), odd and
    // even r, all rows of L and a chunk of them (row pointers from 0, all n columns).
    for (const [n, r, degree, seed] of [
      [211, 37, 5, 1],
      [200, 38, 2, 2],
      [90, 3, 1, 3],
      [64, 2, 9, 4],
    ] as const) {
      const { U, Ut, s2 } = factors(n, r, seed);
      const L = graphLaplacian(randomGraph(n, degree, seed));
      const chunk = rowsOf(L, 17, Math.min(n, 17 + 61));
      const op = new GramOperator(U, Ut, s2);
      expect(op.resident).toBe(true);
      for (const A of [L, chunk]) {
        const got = op.sparseTimesUTransposed(A);
        setKernelBackend("ts");
        const want = transposed(A.multiplyMatrix(U));
        setKernelBackend("auto");
        expect(got.rows).toBe(r);
        expect(got.cols).toBe(A.rows);
        expect(firstDifference(got.data, want.data)).toBe(-1);
      }
      // U^T L U through it: laplacianProjection's bits with the plain sparse product.
      const plain = laplacianProjection(L, U, Ut);
      const fast = laplacianProjection(L, U, Ut, (A) => op.sparseTimesUTransposed(A));
      expect(firstDifference(fast.data, plain.data)).toBe(-1);
    }
  });

  it("forms U^T L U where U lives with laplacianProjection's bits, over one chunk or several", () => {
    // One thread (test/linalg/helperThread.test.ts deals the chunks to helpers). n
    // beyond LAPLACIAN_CHUNK_ROWS gives several chunks and a short last one.
    for (const [n, r, degree, seed] of [
      [9000, 12, 4, 1],
      [300, 38, 7, 2],
      [4096, 2, 3, 3],
      [150, 40, 0, 4],
    ] as const) {
      const { U, Ut, s2 } = factors(n, r, seed);
      const L = graphLaplacian(randomGraph(n, degree, seed));
      const op = new GramOperator(U, Ut, s2);
      expect(op.resident).toBe(true);
      const got = op.laplacianGram(L);
      expect(got).not.toBeNull();
      const want = laplacianProjection(L, U, Ut);
      expect(firstDifference((got as Matrix).data, want.data)).toBe(-1);
      // Symmetric to the last bit, and again the same (the scratch was given back).
      const K = (got as Matrix).data;
      for (let i = 0; i < r; i++) {
        for (let j = 0; j < i; j++) expect(Object.is(K[i * r + j], K[j * r + i])).toBe(true);
      }
      expect(firstDifference((op.laplacianGram(L) as Matrix).data, K)).toBe(-1);
    }
  });

  it("leaves U^T L U to laplacianProjection where its kernels would not run", () => {
    // r odd (the sparse kernel pairs columns), a last chunk too small for the GEMM
    // kernel, U not resident, L of another size.
    const odd = factors(200, 31, 5);
    const oddOp = new GramOperator(odd.U, odd.Ut, odd.s2);
    expect(oddOp.laplacianGram(graphLaplacian(randomGraph(200, 4, 5)))).toBeNull();
    const thin = factors(4097, 2, 6);
    const thinOp = new GramOperator(thin.U, thin.Ut, thin.s2);
    expect(thinOp.laplacianGram(graphLaplacian(randomGraph(4097, 3, 6)))).toBeNull();
    const even = factors(200, 30, 7);
    const plain = new GramOperator(even.U, even.Ut, even.s2, false);
    const L = graphLaplacian(randomGraph(200, 4, 7));
    expect(plain.laplacianGram(L)).toBeNull();
    const op = new GramOperator(even.U, even.Ut, even.s2);
    expect(op.laplacianGram(graphLaplacian(randomGraph(199, 4, 7)))).toBeNull();
    // With it, Z's structure gets the same U^T L U either way.
    const codes = Int32Array.from({ length: 200 }, (_, i) => i % 3);
    const fast = new ZWoodbury(even.U, even.Ut, even.s2, codes, 3, 1, 1, op).laplacianTerm(L);
    const slow = new ZWoodbury(even.U, even.Ut, even.s2, codes, 3, 1, 1).laplacianTerm(L);
    expect(firstDifference(fast.data, slow.data)).toBe(-1);
  });

  it("falls back to ordinary arrays on the TypeScript backend and when asked", () => {
    const { U, Ut, s2 } = factors(150, 20, 9);
    const V = randomMatrix(150, 6, 9);
    const S = randomGraph(150, 5, 9);
    const withWasm = new GramOperator(U, Ut, s2, false);
    expect(withWasm.resident).toBe(false);
    expect(firstDifference(withWasm.apply(V).data, gramByMultiply(U, Ut, s2, V).data)).toBe(-1);
    setKernelBackend("ts");
    const ts = new GramOperator(U, Ut, s2);
    expect(ts.resident).toBe(false);
    expect(firstDifference(ts.apply(V).data, gramByMultiply(U, Ut, s2, V).data)).toBe(-1);
    expect(Object.is(ts.edgeTrace(S), symmetricLaplacianTrace(S, U, s2))).toBe(true);
    const L = graphLaplacian(S);
    const want = transposed(L.multiplyMatrix(U));
    expect(firstDifference(ts.sparseTimesUTransposed(L).data, want.data)).toBe(-1);
    expect(firstDifference(withWasm.sparseTimesUTransposed(L).data, want.data)).toBe(-1);
  });

  it("rejects factors of inconsistent shapes and blocks of the wrong height", () => {
    const { U, Ut, s2 } = factors(40, 5, 2);
    expect(() => new GramOperator(U, U, s2)).toThrow(/U\^T 40 x 5/);
    expect(() => new GramOperator(U, Ut, new Float64Array(4))).toThrow(/S\^2 has 4/);
    const op = new GramOperator(U, Ut, s2);
    expect(() => op.apply(randomMatrix(39, 3, 1))).toThrow(/39 rows, not 40/);
  });
});
