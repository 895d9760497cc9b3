import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import {
  crossNearestNeighbours,
  crossSquaredDistances,
  defaultBlockRows,
  forEachCrossDistanceBlock,
  nearestNeighbours,
  pairwiseSquaredDistances,
  squaredRowNorms,
} from "#internal/linalg/kernels/distances.js";
import {
  bruteForceRanking,
  directSquaredDistance,
  integerMatrix,
  normalMatrix,
} from "../../helpers/graphs.js";

/** Integer data with forced duplicate rows (exact arithmetic, so ties are exact). */
const integerData = fc
  .record({
    n: fc.integer({ min: 2, max: 24 }),
    k: fc.integer({ min: 1, max: 6 }),
    range: fc.integer({ min: 0, max: 3 }),
    duplicates: fc.integer({ min: 0, max: 5 }),
    seed: fc.integer(),
  })
  .map(({ n, k, range, duplicates, seed }) => {
    const rng = new Random(seed);
    const X = integerMatrix(rng, n, k, range);
    for (let t = 0; t < duplicates; t++) {
      const from = rng.integer(n);
      const to = rng.integer(n);
      X.data.copyWithin(to * k, from * k, (from + 1) * k);
    }
    return { X, seed };
  });

describe("dense squared distances", () => {
  it("equal ||x_i - x_j||^2 and are exactly symmetric with a zero diagonal", () => {
    const X = normalMatrix(new Random(1), 20, 7, 3);
    const D = pairwiseSquaredDistances(X);
    for (let i = 0; i < 20; i++) {
      expect(D.get(i, i)).toBe(0);
      for (let j = 0; j < 20; j++) {
        expect(D.get(i, j)).toBe(D.get(j, i));
        expect(D.get(i, j)).toBeCloseTo(directSquaredDistance(X, i, X, j), 10);
      }
    }
  });

  it("stay accurate with more columns than one GEMM panel; duplicate rows are 0 apart up to round-off", () => {
    const rng = new Random(2);
    const X = normalMatrix(rng, 9, 700, 1.7);
    X.data.copyWithin(5 * 700, 2 * 700, 3 * 700);
    const D = pairwiseSquaredDistances(X);
    const norms = squaredRowNorms(X);
    for (let i = 0; i < 9; i++) {
      expect(norms[i]).toBeCloseTo(directSquaredDistance(X, i, new Matrix(1, 700), 0), 9);
      for (let j = 0; j < 9; j++) {
        const direct = directSquaredDistance(X, i, X, j);
        expect(Math.abs(D.get(i, j) - direct)).toBeLessThanOrEqual(1e-12 * (norms[i] + norms[j]));
      }
    }
    expect(D.get(2, 5)).toBe(D.get(5, 2));
    expect(D.get(2, 5)).toBeLessThanOrEqual(1e-12 * norms[2]);
  });

  it("crossSquaredDistances equals the direct formula and the block visitor covers every row once", () => {
    const rng = new Random(3);
    const A = normalMatrix(rng, 13, 5);
    const B = normalMatrix(rng, 8, 5);
    const D = crossSquaredDistances(A, B);
    for (let i = 0; i < 13; i++) {
      for (let j = 0; j < 8; j++) {
        expect(D.get(i, j)).toBeCloseTo(directSquaredDistance(A, i, B, j), 12);
      }
    }
    const seen: number[] = [];
    forEachCrossDistanceBlock(
      A,
      B,
      (i0, i1, block) => {
        expect(block.length).toBe((i1 - i0) * 8);
        for (let i = i0; i < i1; i++) {
          seen.push(i);
          for (let j = 0; j < 8; j++) expect(block[(i - i0) * 8 + j]).toBe(D.get(i, j));
        }
      },
      { blockRows: 3 },
    );
    expect(seen).toEqual(Array.from({ length: 13 }, (_, i) => i));
    expect(() => crossSquaredDistances(A, normalMatrix(rng, 2, 4))).toThrow(/'B'.*5 columns/);
  });
});

describe("block-wise nearest neighbours", () => {
  it("equal the brute-force ranking by (distance, index), with ties and duplicate rows", () => {
    fc.assert(
      fc.property(integerData, fc.integer({ min: 1, max: 9 }), ({ X }, blockRows) => {
        const n = X.rows;
        const count = Math.min(n - 1, 1 + (blockRows % 6));
        const res = nearestNeighbours(X, count, { blockRows });
        for (let i = 0; i < n; i++) {
          const expected = bruteForceRanking(
            n,
            i,
            (a, b) => directSquaredDistance(X, a, X, b),
            count,
          );
          const got = Array.from(res.indices.subarray(i * count, (i + 1) * count));
          expect(got).toEqual(expected);
          for (let t = 0; t < count; t++) {
            expect(res.distances[i * count + t]).toBe(directSquaredDistance(X, i, X, expected[t]));
          }
        }
      }),
      { numRuns: 80 },
    );
  });

  it("give the dense computation's result for any block size", () => {
    const X = normalMatrix(new Random(4), 41, 300, 2);
    const D = pairwiseSquaredDistances(X);
    const count = 6;
    const reference = Array.from({ length: 41 }, (_, i) =>
      bruteForceRanking(41, i, (a, b) => D.get(a, b), count),
    );
    for (const blockRows of [1, 3, 4, 7, 16, 64]) {
      const res = nearestNeighbours(X, count, { blockRows });
      for (let i = 0; i < 41; i++) {
        expect(Array.from(res.indices.subarray(i * count, (i + 1) * count))).toEqual(reference[i]);
        for (let t = 0; t < count; t++) {
          const dense = D.get(i, reference[i][t]);
          expect(Math.abs(res.distances[i * count + t] - dense)).toBeLessThanOrEqual(1e-13 * dense);
        }
      }
    }
  });

  it("never list a row as its own neighbour, even among duplicates", () => {
    const X = new Matrix(5, 2);
    X.data.fill(1);
    const res = nearestNeighbours(X, 4);
    for (let i = 0; i < 5; i++) {
      const got = Array.from(res.indices.subarray(i * 4, (i + 1) * 4));
      expect(got).not.toContain(i);
      expect(got).toEqual([0, 1, 2, 3, 4].filter((j) => j !== i));
    }
  });

  it("cross search equals brute force (ties to the lower training index)", () => {
    fc.assert(
      fc.property(integerData, fc.integer({ min: 1, max: 7 }), ({ X, seed }, blockRows) => {
        const Q = integerMatrix(new Random(seed + 7), 6, X.cols, 3);
        const count = Math.min(X.rows, 3);
        const res = crossNearestNeighbours(Q, X, count, { blockRows });
        for (let i = 0; i < Q.rows; i++) {
          const dist = (j: number) => directSquaredDistance(Q, i, X, j);
          const js = Array.from({ length: X.rows }, (_, j) => j).sort(
            (a, b) => dist(a) - dist(b) || a - b,
          );
          expect(Array.from(res.indices.subarray(i * count, (i + 1) * count))).toEqual(
            js.slice(0, count),
          );
        }
      }),
      { numRuns: 50 },
    );
  });

  it("reject bad arguments with the argument, the range and the value", () => {
    const X = normalMatrix(new Random(5), 4, 2);
    expect(() => nearestNeighbours(X, 4)).toThrow(ValidationError);
    expect(() => nearestNeighbours(X, 4)).toThrow(/'count'.*\[1, 3\].*Got 4/);
    expect(() => nearestNeighbours(X, 2, { blockRows: 0 })).toThrow(/'blockRows'.*Got 0/);
    const bad = X.clone();
    bad.data[3] = Number.NaN;
    expect(() => nearestNeighbours(bad, 2)).toThrow(/'X'.*finite.*row 1, column 1/);
    expect(() => crossNearestNeighbours(X, X, 5)).toThrow(/'count'.*\[1, 4\].*Got 5/);
  });

  it("choose row blocks of about 8 MiB, a multiple of 4", () => {
    expect(defaultBlockRows(100)).toBe(256);
    expect(defaultBlockRows(20000)).toBe(52);
    expect(defaultBlockRows(10_000_000)).toBe(4);
  });
});
