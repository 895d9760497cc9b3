/**
 * The single-precision screened nearest-neighbour search (kernels/screenedSearch.ts)
 * returns what the full double-precision search returns: the same neighbours and the
 * same distances, bit for bit, on data whose dot products are exact and on real-valued
 * data wherever the full search's blocks run the wasm GEMM; the screening kernel stays
 * within the error bound the decision relies on.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { initialNeighbours } from "#internal/graph/neighbours.js";
import { defaultBlockRows, nearestNeighbours } from "#internal/linalg/kernels/distances.js";
import { wasmWorthIt } from "#internal/linalg/kernels/gemm.js";
import type { TwoPartNeighbours } from "#internal/linalg/kernels/neighbourHeaps.js";
import {
  exactDistance,
  screenedNearestNeighbours,
} from "#internal/linalg/kernels/screenedSearch.js";
import { setKernelBackend, wasmArena } from "#internal/linalg/kernels/wasm/backend.js";
import { randomMatrix } from "../../helpers/matrices.js";
import { inputs } from "../../helpers/properties.js";

afterEach(() => {
  setKernelBackend("auto");
});

function integerMatrix(rows: number, cols: number, seed: number, range: number): Matrix {
  const r = new Random(seed);
  const M = new Matrix(rows, cols);
  for (let t = 0; t < M.data.length; t++)
    M.data[t] = Math.floor(r.uniform() * range) - (range >> 1);
  return M;
}

/** Whether every block of the full search runs the wasm GEMM (then its bits are defined). */
function fullSearchRunsWasm(n: number, d: number): boolean {
  const step = defaultBlockRows(n);
  for (let i0 = 0; i0 < n; i0 += step) {
    const i1 = Math.min(i0 + step, n);
    if (!wasmWorthIt(i1 - i0, i1, d)) return false;
  }
  return true;
}

function expectSame(a: TwoPartNeighbours, b: TwoPartNeighbours): void {
  expect(a.rows).toBe(b.rows);
  expect(a.count).toBe(b.count);
  expect(Array.from(a.indices)).toEqual(Array.from(b.indices));
  expect(Buffer.from(a.distances.buffer).equals(Buffer.from(b.distances.buffer))).toBe(true);
  expect(Buffer.from(a.primary.buffer).equals(Buffer.from(b.primary.buffer))).toBe(true);
}

function screened(X: Matrix, count: number): TwoPartNeighbours {
  const result = screenedNearestNeighbours(X, count);
  if (result === null) throw new Error("the screened search did not apply");
  return result;
}

describe("the gemm32 screening kernel", () => {
  it("stays within (gamma_p + 3u) sum |a_l b_l| of the double dot product", () => {
    const arena = wasmArena();
    if (arena === null) throw new Error("the wasm backend is not active");
    const u = 2 ** -24;
    for (const [m, n, p] of [
      [1, 1, 1],
      [3, 5, 7],
      [2, 4, 8],
      [7, 9, 130],
      [16, 37, 784],
    ]) {
      const A = randomMatrix(m, p, m + n + p);
      const B = randomMatrix(n, p, m * n + p, 100);
      const mark = arena.mark();
      const ptrs = arena.allocAll([Math.ceil((m * p) / 2), Math.ceil((n * p) / 2), m * n]);
      if (ptrs === null) throw new Error("no arena memory");
      try {
        new Float32Array(arena.buffer, ptrs[0], m * p).set(A.data);
        new Float32Array(arena.buffer, ptrs[1], n * p).set(B.data);
        arena.kernels.gemm32(m, n, p, ptrs[0], p, ptrs[1], p, ptrs[2], n);
        const C = arena.view(ptrs[2], m * n);
        const gamma = (p * u) / (1 - p * u) + 3 * u;
        for (let i = 0; i < m; i++) {
          for (let j = 0; j < n; j++) {
            let exact = 0;
            let abs = 0;
            for (let l = 0; l < p; l++) {
              exact += A.data[i * p + l] * B.data[j * p + l];
              abs += Math.abs(A.data[i * p + l] * B.data[j * p + l]);
            }
            expect(Math.abs(C[i * n + j] - exact)).toBeLessThanOrEqual(gamma * abs * 1.0001);
          }
        }
        // Single precision really was used: the error is far above double rounding.
        expect(C[0]).not.toBe(0);
      } finally {
        arena.release(mark);
      }
    }
  });
});

describe("screenedNearestNeighbours", () => {
  it("equals the full search on integer data (exact dot products, many ties)", () => {
    setKernelBackend("wasm");
    for (const [n, d, count, range] of [
      [40, 3, 5, 3],
      [300, 17, 16, 5],
      [700, 32, 8, 9],
      [1100, 40, 16, 4],
    ]) {
      const X = integerMatrix(n, d, n + d, range);
      expectSame(screened(X, count), nearestNeighbours(X, count));
    }
  });

  it("equals the full search bit for bit on real-valued data (property)", () => {
    setKernelBackend("wasm");
    fc.assert(
      fc.property(
        inputs({ n: [3, 600], d: [4, 70], c: [1, 20], seed: [0, 10_000], scale: [-6, 6] }),
        ({ n, d, c, seed, scale }) => {
          fc.pre(fullSearchRunsWasm(n, d));
          const count = Math.min(c, n - 1);
          const X = randomMatrix(n, d, seed, 10 ** scale);
          expectSame(screened(X, count), nearestNeighbours(X, count));
        },
      ),
      { numRuns: 40, seed: 5 },
    );
  });

  it("gives the same result whatever the rows per block of the screen", () => {
    // From 16,384 rows on the screen's blocks are larger than the scans' (64 rows, not
    // 2^20 / n): each row keeps its best lower bounds with ties to the lower index, so
    // the blocks' sizes, and the order in which pairs are offered, change nothing.
    setKernelBackend("wasm");
    const X = randomMatrix(700, 24, 3);
    for (let i = 0; i < 30; i++) X.data.copyWithin((699 - i) * 24, i * 7 * 24, (i * 7 + 1) * 24);
    const reference = nearestNeighbours(X, 6);
    for (const blockRows of [1, 4, 13, 64, 256, 700]) {
      const result = screenedNearestNeighbours(X, 6, { blockRows });
      if (result === null) throw new Error("the screen did not apply");
      expectSame(result, reference);
    }
  });

  it("rows whose window holds more estimates than were kept are searched exactly (duplicates)", () => {
    setKernelBackend("wasm");
    // 60 copies of one row and near-copies: every estimate of those rows ties.
    const base = randomMatrix(1, 24, 3);
    const X = randomMatrix(400, 24, 4);
    for (let i = 0; i < 60; i++) X.data.set(base.data, i * 24);
    for (let i = 60; i < 90; i++) {
      for (let l = 0; l < 24; l++) X.data[i * 24 + l] = base.data[l] * (1 + 1e-9 * (i - 60));
    }
    expect(fullSearchRunsWasm(400, 24)).toBe(true);
    expectSame(screened(X, 10), nearestNeighbours(X, 10));
  });

  it("exactDistance has the full search's bits for every pair", () => {
    setKernelBackend("wasm");
    const n = 300;
    const d = 601; // more than two panels of 256, an odd tail
    expect(fullSearchRunsWasm(n, d)).toBe(true);
    const X = randomMatrix(n, d, 8);
    const full = nearestNeighbours(X, n - 1);
    const norms = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let l = 0; l < d; l++) s += X.data[i * d + l] * X.data[i * d + l];
      norms[i] = s;
    }
    // The norms must be the search's own (squaredRowNorms); compare through it.
    const check = screened(X, n - 1);
    expectSame(check, full);
    for (let t = 0; t < 50; t++) {
      const i = (t * 37) % n;
      const slot = (t * 11) % (n - 1);
      const j = full.indices[i * (n - 1) + slot];
      expect(
        Math.abs(exactDistance(X.data, d, norms, i, j) - full.primary[i * (n - 1) + slot]),
      ).toBeLessThan(1e-10 * (norms[i] + norms[j]));
    }
  });

  it("does not apply outside the screenable range or without the wasm kernels", () => {
    setKernelBackend("wasm");
    const X = randomMatrix(50, 8, 9);
    X.data[17] = 1e20;
    expect(screenedNearestNeighbours(X, 3)).toBeNull();
    X.data[17] = 1e-20;
    expect(screenedNearestNeighbours(X, 3)).toBeNull();
    X.data[17] = Number.NaN;
    expect(screenedNearestNeighbours(X, 3)).toBeNull();
    setKernelBackend("ts");
    expect(screenedNearestNeighbours(randomMatrix(50, 8, 9), 3)).toBeNull();
  });

  it("stops when the signal is aborted", () => {
    setKernelBackend("wasm");
    const controller = new AbortController();
    controller.abort();
    expect(() =>
      screenedNearestNeighbours(randomMatrix(100, 8, 1), 3, { signal: controller.signal }),
    ).toThrow(/abort/i);
  });
});

describe("initialNeighbours", () => {
  it("gives the full search's result above the screening thresholds, and its errors", () => {
    setKernelBackend("wasm");
    const X = randomMatrix(2050, 20, 12);
    expect(fullSearchRunsWasm(2050, 20)).toBe(true);
    expectSame(initialNeighbours(X, 16), nearestNeighbours(X, 16));
    expect(() => initialNeighbours(X, 2050)).toThrow(/'count'/);
    const bad = randomMatrix(2050, 20, 13);
    bad.data[99] = Number.POSITIVE_INFINITY;
    expect(() => initialNeighbours(bad, 16)).toThrow(/finite/);
  });
});
