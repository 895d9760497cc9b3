import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import {
  gemmABtFixedKernel,
  gemmABtRaw,
  multiply,
  multiplyABt,
  multiplyAtB,
  transposed,
} from "#internal/linalg/kernels/gemm.js";
import { gramColumns, gramRows } from "#internal/linalg/kernels/symmetricProducts.js";
import { kernelBackend, setKernelBackend } from "#internal/linalg/kernels/wasm/backend.js";
import { innerProducts } from "#internal/linalg/orthogonalize.js";
import { maxAbsDifference, naiveProduct, randomMatrix } from "../../helpers/matrices.js";

const dim = fc.integer({ min: 1, max: 37 });

describe("GEMM kernels agree with the textbook triple loop", () => {
  it("multiply, multiplyABt and multiplyAtB on every remainder shape", () => {
    fc.assert(
      fc.property(dim, dim, dim, fc.integer({ min: 0, max: 10_000 }), (m, n, p, seed) => {
        const A = randomMatrix(m, p, seed);
        const B = randomMatrix(p, n, seed + 1);
        const ref = naiveProduct(A, B);
        const tol = 1e-12 * p;
        expect(maxAbsDifference(multiply(A, B).data, ref.data)).toBeLessThan(tol);
        expect(maxAbsDifference(multiplyABt(A, B.transpose()).data, ref.data)).toBeLessThan(tol);
        expect(maxAbsDifference(multiplyAtB(A.transpose(), B).data, ref.data)).toBeLessThan(tol);
      }),
      { numRuns: 80, seed: 5 },
    );
  });

  it("crosses the KC and MC panel boundaries", () => {
    const A = randomMatrix(131, 517, 1);
    const B = randomMatrix(517, 9, 2);
    expect(maxAbsDifference(multiply(A, B).data, naiveProduct(A, B).data)).toBeLessThan(1e-11);
  });

  it("accumulates into a sub-block with leading dimensions", () => {
    const A = randomMatrix(7, 10, 3);
    const B = randomMatrix(6, 10, 4);
    const C = randomMatrix(9, 11, 5);
    const before = C.clone();
    // C[1:8, 2:8] += A B^T, reading A and B through their full row strides.
    gemmABtRaw(7, 6, 10, A.data, 10, B.data, 10, C.data.subarray(11 + 2), 11, true);
    const AB = naiveProduct(A, B.transpose());
    for (let i = 0; i < 9; i++) {
      for (let j = 0; j < 11; j++) {
        const inside = i >= 1 && i < 8 && j >= 2 && j < 8;
        const expected = before.get(i, j) + (inside ? AB.get(i - 1, j - 2) : 0);
        expect(Math.abs(C.get(i, j) - expected)).toBeLessThan(1e-12);
      }
    }
  });

  it("Gram matrices are exactly symmetric and match the products", () => {
    const X = randomMatrix(70, 23, 6);
    const G = gramRows(X);
    const H = gramColumns(X);
    expect(maxAbsDifference(G.data, G.transpose().data)).toBe(0);
    expect(maxAbsDifference(G.data, naiveProduct(X, X.transpose()).data)).toBeLessThan(1e-11);
    expect(maxAbsDifference(H.data, naiveProduct(X.transpose(), X).data)).toBeLessThan(1e-11);
  });
});

describe("an entry's bits do not depend on the product's shape", () => {
  // Pruned searches (graph/clusterScan.ts) rebuild a large product's entries from many
  // small products, so the kernel must give an entry the same bits in any shape.
  it("gemmABtFixedKernel gives a large product's entries bit for bit on the wasm backend", () => {
    setKernelBackend("wasm");
    try {
      expect(kernelBackend()).toBe("wasm");
      // Large enough for gemmABtRaw to run the backend's kernel; odd sizes for the edges.
      const A = randomMatrix(67, 53, 1);
      const B = randomMatrix(45, 53, 2);
      const big = new Float64Array(67 * 45);
      gemmABtRaw(67, 45, 53, A.data, 53, B.data, 53, big, 45, false, false);
      for (const [r0, m, c0, n] of [
        [0, 1, 0, 1],
        [3, 2, 5, 3],
        [10, 7, 40, 5],
        [60, 7, 0, 45],
      ]) {
        const small = new Float64Array(m * n);
        gemmABtFixedKernel(
          m,
          n,
          53,
          A.data.subarray(r0 * 53),
          53,
          B.data.subarray(c0 * 53),
          53,
          small,
          n,
        );
        for (let i = 0; i < m; i++) {
          for (let j = 0; j < n; j++) {
            expect(Object.is(small[i * n + j], big[(r0 + i) * 45 + c0 + j])).toBe(true);
          }
        }
      }
    } finally {
      setKernelBackend("auto");
    }
  });
});

describe("innerProducts (A^T B; on the wasm backend the transposes run in the module)", () => {
  // The JS path innerProducts took before the wasm transpose: transpose, then the kernel.
  const viaJsTransposes = (A: Matrix, B: Matrix): Matrix => {
    const C = new Matrix(A.cols, B.cols);
    const At = A.transpose();
    const Bt = A === B ? At : B.transpose();
    gemmABtRaw(A.cols, B.cols, A.rows, At.data, A.rows, Bt.data, A.rows, C.data, B.cols);
    return C;
  };

  it("transposed gives Matrix.transpose's values, small and large, odd shapes", () => {
    for (const [rows, cols] of [
      [3, 5],
      [4097, 1],
      [1, 4097],
      [301, 63],
      [1001, 19],
    ]) {
      const M = randomMatrix(rows, cols, rows + cols);
      const T = transposed(M);
      expect([T.rows, T.cols]).toEqual([cols, rows]);
      const ref = M.transpose().data;
      for (let t = 0; t < ref.length; t++) expect(Object.is(T.data[t], ref[t])).toBe(true);
    }
  });

  it("innerProducts gives the bits of the JS transposes, for A = B too, and where the kernel is not used", () => {
    for (const [n, p, q] of [
      [300, 63, 63],
      [257, 5, 12],
      [1001, 3, 7],
      [4, 2, 2],
      [30, 1, 40],
    ]) {
      const A = randomMatrix(n, p, n + p);
      const B = randomMatrix(n, q, n + q + 1);
      const C = innerProducts(A, B);
      const ref = viaJsTransposes(A, B);
      for (let t = 0; t < ref.data.length; t++)
        expect(Object.is(C.data[t], ref.data[t])).toBe(true);
      const G = innerProducts(A, A);
      const refG = viaJsTransposes(A, A);
      for (let t = 0; t < refG.data.length; t++) {
        expect(Object.is(G.data[t], refG.data[t])).toBe(true);
      }
      expect(maxAbsDifference(C.data, naiveProduct(A.transpose(), B).data)).toBeLessThan(1e-10);
    }
  });
});
