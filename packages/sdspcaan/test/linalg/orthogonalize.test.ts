/**
 * The triangular solve V <- V R^{-1} (solveUpperFromRight): it solves, and on the wasm
 * backend its resident path (V, R and the GEMM scratch in the module's memory, leaves
 * in the `trsm` kernel) gives the same bits as the path it replaced (TS leaves, each
 * GEMM copied into the module when that pays).
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { setKernelBackend, wasmArena } from "#internal/linalg/kernels/wasm/backend.js";
import {
  choleskyUpper,
  gram,
  solveUpperFromRight,
  solveUpperFromRightInPlace,
} from "#internal/linalg/orthogonalize.js";
import { maxAbsDifference, randomMatrix } from "../helpers/matrices.js";
import { inputs } from "../helpers/properties.js";

afterEach(() => {
  setKernelBackend("auto");
});

/** An upper-triangular R with a well-conditioned diagonal (a Cholesky factor). */
function upperFactor(k: number, seed: number): Matrix {
  const G = gram(randomMatrix(k + 3, k, seed));
  for (let i = 0; i < k; i++) G.data[i * k + i] += 0.5;
  expect(choleskyUpper(G)).toBe(true);
  return G;
}

function sameBits(a: Float64Array, b: Float64Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

describe("solveUpperFromRight", () => {
  it.each(["ts", "wasm"] as const)("solves V R^-1 on the %s backend (X R = V)", (backend) => {
    setKernelBackend(backend);
    for (const [rows, k] of [
      [1, 1],
      [7, 3],
      [40, 48],
      [33, 49],
      [120, 97],
      [5, 130],
    ]) {
      const R = upperFactor(k, rows + k);
      const V = randomMatrix(rows, k, 3 * rows + k);
      const X = V.clone();
      solveUpperFromRight(X, R);
      // X R recomputed naively must give V back.
      const back = new Matrix(rows, k);
      for (let i = 0; i < rows; i++) {
        for (let j = 0; j < k; j++) {
          let s = 0;
          for (let l = 0; l <= j; l++) s += X.data[i * k + l] * R.data[l * k + j];
          back.data[i * k + j] = s;
        }
      }
      expect(maxAbsDifference(back.data, V.data)).toBeLessThan(1e-11);
    }
  });

  it("the resident wasm path gives the same bits as the copying path (property)", () => {
    setKernelBackend("wasm");
    fc.assert(
      fc.property(
        inputs({ rows: [1, 160], k: [1, 140], seed: [0, 1000], zeros: fc.boolean() }),
        ({ rows, k, seed, zeros }) => {
          const R = upperFactor(k, seed);
          const V = randomMatrix(rows, k, seed + 1, 10 ** ((seed % 7) - 3));
          // Exact zeros take the leaves' skip branch.
          if (zeros) for (let i = 0; i < V.data.length; i += 3) V.data[i] = 0;
          const viaResident = V.clone();
          const viaCopies = V.clone();
          solveUpperFromRight(viaResident, R);
          solveUpperFromRightInPlace(viaCopies, R);
          return sameBits(viaResident.data, viaCopies.data);
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });

  it("operands already in the module's memory take the copying path and still solve", () => {
    setKernelBackend("wasm");
    const R = upperFactor(20, 4);
    const source = randomMatrix(30, 20, 5);
    const expected = source.clone();
    solveUpperFromRightInPlace(expected, R);
    const arena = wasmArena();
    if (arena === null) throw new Error("the wasm backend is not active");
    const mark = arena.mark();
    const ptrs = arena.allocAll([30 * 20]);
    if (ptrs === null) throw new Error("no arena memory");
    try {
      const V = new Matrix(30, 20, arena.view(ptrs[0], 30 * 20));
      V.data.set(source.data);
      solveUpperFromRight(V, R);
      expect(sameBits(V.data, expected.data)).toBe(true);
    } finally {
      arena.release(mark);
    }
  });

  it("refuses V whose width is not R's order", () => {
    expect(() => solveUpperFromRight(new Matrix(3, 4), new Matrix(5, 5))).toThrow(/4 columns/);
  });
});
