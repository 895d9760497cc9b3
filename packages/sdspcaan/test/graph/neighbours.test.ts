/**
 * The candidate search ranks by the floating-point d = p + lambda l with ties to the
 * lower index, whatever the strategy, block size or lambda. Integer data keeps every
 * p exact, so exact ties and duplicate rows are tested too.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import {
  embeddedNeighbours,
  initialNeighbours,
  labelledNeighbours,
} from "#internal/graph/neighbours.js";
import type { TwoPartNeighbours } from "#internal/linalg/kernels/neighbourHeaps.js";
import {
  bruteForceRanking,
  directSquaredDistance,
  integerMatrix,
  randomCodes,
} from "../helpers/graphs.js";

const LAMBDAS = [0, 0.25, 1, 3, 2 ** 10, 2 ** 30, 2 ** 52, 2 ** 60, 2 ** 96];

const labelledCase = fc
  .record({
    n: fc.integer({ min: 3, max: 40 }),
    k: fc.integer({ min: 1, max: 5 }),
    range: fc.integer({ min: 0, max: 40 }),
    classFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    duplicates: fc.integer({ min: 0, max: 6 }),
    lambda: fc.constantFrom(...LAMBDAS),
    countFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    blockRows: fc.integer({ min: 1, max: 12 }),
    seed: fc.integer(),
  })
  .map((c) => {
    const rng = new Random(c.seed);
    const P = integerMatrix(rng, c.n, c.k, c.range);
    for (let t = 0; t < c.duplicates; t++) {
      const from = rng.integer(c.n);
      const to = rng.integer(c.n);
      P.data.copyWithin(to * c.k, from * c.k, (from + 1) * c.k);
    }
    const classes = 1 + Math.floor(c.classFraction * (c.n - 1));
    const codes = randomCodes(rng, c.n, classes);
    const count = 1 + Math.floor(c.countFraction * (c.n - 2));
    return { P, codes, lambda: c.lambda, count, blockRows: c.blockRows, seed: c.seed };
  });

function expectRanking(
  res: TwoPartNeighbours,
  P: Matrix,
  l: (i: number, j: number) => number,
  lambda: number,
): void {
  const n = P.rows;
  const count = res.count;
  const p = (i: number, j: number) => directSquaredDistance(P, i, P, j);
  const d = (i: number, j: number) => p(i, j) + lambda * l(i, j);
  for (let i = 0; i < n; i++) {
    const expected = bruteForceRanking(n, i, d, count);
    expect(Array.from(res.indices.subarray(i * count, (i + 1) * count))).toEqual(expected);
    for (let t = 0; t < count; t++) {
      const j = expected[t];
      expect(res.primary[i * count + t]).toBe(p(i, j));
      expect(res.secondary[i * count + t]).toBe(l(i, j));
      expect(res.distances[i * count + t]).toBe(d(i, j));
    }
  }
}

describe("labelled neighbour search", () => {
  it("ranks by d = p + lambda l (ties to the lower index) for any classes, lambda and block size", () => {
    fc.assert(
      fc.property(labelledCase, ({ P, codes, lambda, count, blockRows }) => {
        const l = (i: number, j: number) => (codes[i] === codes[j] ? 0 : 2);
        const auto = labelledNeighbours(P, codes, lambda, count, { blockRows });
        expectRanking(auto, P, l, lambda);
        const full = labelledNeighbours(P, codes, lambda, count, {
          blockRows,
          strategy: "full",
        });
        expect(full.indices).toEqual(auto.indices);
        expect(full.distances).toEqual(auto.distances);
        // The k-d tree search (auto's choice for large n) gives the same ranking.
        const tree = labelledNeighbours(P, codes, lambda, count, { strategy: "tree" });
        expect(tree.indices).toEqual(auto.indices);
        expect(tree.distances).toEqual(auto.distances);
        expect(tree.primary).toEqual(auto.primary);
        // So does step 4 by cluster bounds (auto's choice for large n in many dimensions).
        const clusters = labelledNeighbours(P, codes, lambda, count, { strategy: "clusters" });
        expect(clusters.indices).toEqual(auto.indices);
        expect(clusters.distances).toEqual(auto.distances);
        expect(clusters.primary).toEqual(auto.primary);
        expect(clusters.secondary).toEqual(auto.secondary);
      }),
      { numRuns: 150 },
    );
  });

  it("takes same-class neighbours first at huge lambda, and the lowest-index other-class rows when a class is too small", () => {
    const rng = new Random(11);
    const n = 30;
    const P = integerMatrix(rng, n, 3, 20);
    const codes = new Int32Array(n);
    for (let i = 0; i < n; i++) codes[i] = i < 12 ? 0 : i < 24 ? 1 : i < 29 ? 2 : 3;
    const count = 6;
    const res = labelledNeighbours(P, codes, 2 ** 96, count);
    for (let i = 0; i < n; i++) {
      const got = Array.from(res.indices.subarray(i * count, (i + 1) * count));
      const same = got.filter((j) => codes[j] === codes[i]);
      const classSize = codes.filter((c) => c === codes[i]).length;
      expect(same.length).toBe(Math.min(count, classSize - 1));
      // Every other-class candidate ties at d = 2 lambda: the lowest indices win.
      const other = got.filter((j) => codes[j] !== codes[i]);
      const lowest = Array.from({ length: n }, (_, j) => j)
        .filter((j) => codes[j] !== codes[i])
        .slice(0, other.length);
      expect(other).toEqual(lowest);
    }
  });

  it("ranks other-class rows by the rounded d when lambda is large but not large enough to tie them all", () => {
    // Row 0 sits at the origin alone in its class; the others lie far away, so their
    // p differ by many units in the last place of 2 lambda.
    const rng = new Random(21);
    const P = integerMatrix(rng, 24, 2, 2000);
    P.data.fill(0, 0, 2);
    const codes = Int32Array.from({ length: 24 }, (_, i) => (i === 0 ? 0 : 1 + (i % 3)));
    for (const lambda of [2 ** 30, 2 ** 52, 2 ** 60, 2 ** 70]) {
      const res = labelledNeighbours(P, codes, lambda, 6);
      expectRanking(res, P, (i, j) => (codes[i] === codes[j] ? 0 : 2), lambda);
    }
  });

  it("breaks a tie between a same-class and an other-class candidate at d = 2 lambda by index", () => {
    // Row 3 (class 0): same-class rows 4 (p = 1) and 5 (p = 2 = 2 lambda); row 0 of
    // class 1 duplicates row 3 (p = 0, d = 2 lambda) and wins the tie with row 5.
    const P = Matrix.fromRows([
      [0, 0],
      [10, 0],
      [20, 0],
      [0, 0],
      [1, 0],
      [1, 1],
      [5, 5],
      [6, 6],
    ]);
    const codes = Int32Array.from([1, 1, 1, 0, 0, 0, 0, 0]);
    const res = labelledNeighbours(P, codes, 1, 2);
    expect(Array.from(res.indices.subarray(6, 8))).toEqual([4, 0]);
    expectRanking(res, P, (i, j) => (codes[i] === codes[j] ? 0 : 2), 1);
  });

  it("lets nearer other-class rows in when lambda is small", () => {
    const P = integerMatrix(new Random(12), 20, 2, 50);
    const codes = randomCodes(new Random(13), 20, 2);
    const res = labelledNeighbours(P, codes, 0, 5);
    let cross = 0;
    for (let t = 0; t < res.indices.length; t++) {
      if (codes[res.indices[t]] !== codes[Math.floor(t / 5)]) cross++;
    }
    expect(cross).toBeGreaterThan(0);
    expectRanking(res, P, (i, j) => (codes[i] === codes[j] ? 0 : 2), 0);
  });

  it("rejects malformed class codes and candidate counts", () => {
    const P = integerMatrix(new Random(14), 4, 2, 3);
    expect(() => labelledNeighbours(P, Int32Array.from([0, 1, 0]), 1, 2)).toThrow(
      /'codes'.*one class index per row \(4\). Got 3/,
    );
    expect(() => labelledNeighbours(P, Int32Array.from([0, -1, 0, 1]), 1, 2)).toThrow(
      /'codes'.*\[0, inf\). Got -1 at row 1/,
    );
    expect(() => labelledNeighbours(P, Int32Array.from([0, 1, 0, 1]), 1, 4)).toThrow(
      /'count' parameter of labelledNeighbours must be an integer in \[1, 3\].*Got 4/,
    );
    expect(() => embeddedNeighbours(P, P, 1, 0)).toThrow(/'count'.*Got 0/);
  });
});

describe("embedded and initial neighbour search", () => {
  it("ranks by p + lambda ||f_i - f_j||^2 for a general second embedding", () => {
    fc.assert(
      fc.property(labelledCase, fc.integer({ min: 1, max: 4 }), (c, cols) => {
        const F = integerMatrix(new Random(c.seed + 3), c.P.rows, cols, 2);
        const l = (i: number, j: number) => directSquaredDistance(F, i, F, j);
        const res = embeddedNeighbours(c.P, F, c.lambda, c.count, { blockRows: c.blockRows });
        expectRanking(res, c.P, l, c.lambda);
      }),
      { numRuns: 80 },
    );
  });

  it("the initial search has no second term", () => {
    const P = integerMatrix(new Random(15), 15, 4, 2);
    const res = initialNeighbours(P, 5, { blockRows: 2 });
    expect(res.lambda).toBe(0);
    expectRanking(res, P, () => 0, 0);
  });
});
