/**
 * The pair scans' loop filtered in the WebAssembly module (distances.ts,
 * scanBlocksFiltered; pairs.wat, pairFilter) against the loop in TypeScript it
 * replaces: the same candidates must be pushed in the same order, so every array of
 * the heaps (their arrangement included) must come out with the same bits.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { crossClassClusterScan } from "#internal/graph/clusterScan.js";
import { classOrder } from "#internal/graph/rowOrder.js";
import {
  type PairScanOptions,
  scanNearestPairs,
  squaredRowNorms,
} from "#internal/linalg/kernels/distances.js";
import { NeighbourHeaps } from "#internal/linalg/kernels/neighbourHeaps.js";
import { kernelBackend, wasmArena } from "#internal/linalg/kernels/wasm/backend.js";
import { integerMatrix, normalMatrix, randomCodes } from "../../helpers/graphs.js";

type Scan = Omit<PairScanOptions, "filter">;

/** Both paths' heaps after the same scans (`before`: scans that fill the heaps first). */
function bothPaths(
  X: Matrix,
  count: number,
  scans: readonly Scan[],
): { filtered: NeighbourHeaps; plain: NeighbourHeaps } {
  const norms = squaredRowNorms(X);
  const run = (filter: boolean) => {
    const heaps = new NeighbourHeaps(X.rows, count);
    for (const scan of scans) scanNearestPairs(X, norms, heaps, { ...scan, filter });
    return heaps;
  };
  return { filtered: run(true), plain: run(false) };
}

function expectSameHeaps(a: NeighbourHeaps, b: NeighbourHeaps): void {
  expect(Array.from(a.size)).toEqual(Array.from(b.size));
  expect(Array.from(a.index)).toEqual(Array.from(b.index));
  for (const key of ["dist", "first", "second", "worstDistance"] as const) {
    const x = a[key];
    const y = b[key];
    for (let t = 0; t < x.length; t++) {
      if (!Object.is(x[t], y[t])) {
        throw new Error(`${key}[${t}]: ${x[t]} (filtered) against ${y[t]} (TypeScript loop)`);
      }
    }
  }
  expect(Array.from(a.worstIndex)).toEqual(Array.from(b.worstIndex));
}

/** A random order of `size` distinct rows of n. */
function someRows(rng: Random, n: number, size: number): Int32Array {
  const all = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.integer(i + 1);
    [all[i], all[j]] = [all[j], all[i]];
  }
  return Int32Array.from(all.slice(0, size));
}

const cases = fc.record({
  n: fc.integer({ min: 2, max: 90 }),
  k: fc.integer({ min: 1, max: 9 }),
  integer: fc.boolean(),
  duplicates: fc.integer({ min: 0, max: 6 }),
  classes: fc.integer({ min: 1, max: 4 }),
  term: fc.constantFrom("none", "classes", "cross"),
  lambda: fc.constantFrom(0, 0.5, 3, 1e6),
  subset: fc.double({ min: 0.1, max: 1, noNaN: true }),
  activeShare: fc.double({ min: 0, max: 1, noNaN: true }),
  blockRows: fc.option(fc.integer({ min: 1, max: 9 })),
  fixedKernel: fc.boolean(),
  prefill: fc.boolean(),
  seed: fc.integer(),
});

describe("the pair scans' loop filtered in the module", () => {
  it("runs on WebAssembly here", () => {
    expect(["fast", "wasm"]).toContain(kernelBackend());
    expect(typeof wasmArena()?.kernels.pairFilter).toBe("function");
  });

  it("pushes what the TypeScript loop pushes, in its order (property)", () => {
    fc.assert(
      fc.property(cases, (c) => {
        const rng = new Random(c.seed);
        const X = c.integer ? integerMatrix(rng, c.n, c.k, 2) : normalMatrix(rng, c.n, c.k);
        for (let t = 0; t < c.duplicates; t++) {
          const from = rng.integer(c.n);
          const to = rng.integer(c.n);
          X.data.copyWithin(to * c.k, from * c.k, (from + 1) * c.k);
        }
        const codes = randomCodes(rng, c.n, c.classes);
        const total = Math.max(2, Math.round(c.subset * c.n));
        const order = someRows(rng, c.n, total);
        const active = Math.max(1, Math.round(c.activeShare * total));
        const count = 1 + rng.integer(Math.min(c.n - 1, 12));
        const term =
          c.term === "none"
            ? undefined
            : {
                kind: "classes" as const,
                codes,
                lambda: c.lambda,
                crossClassOnly: c.term === "cross",
              };
        const scans: Scan[] = [];
        // Heaps that already hold candidates (as the labelled search's step 4 finds them).
        if (c.prefill) scans.push({ order: someRows(rng, c.n, Math.max(2, total >> 1)) });
        scans.push({
          order,
          active,
          ...(term ? { term } : {}),
          ...(c.blockRows !== null ? { blockRows: c.blockRows } : {}),
          fixedKernel: c.fixedKernel,
        });
        const { filtered, plain } = bothPaths(X, count, scans);
        expectSameHeaps(filtered, plain);
      }),
      { numRuns: 300 },
    );
  });

  it("gives the same heaps on a within-class search of the size a fit makes", () => {
    const rng = new Random(7);
    const n = 3000;
    const X = normalMatrix(rng, n, 50);
    const codes = randomCodes(rng, n, 10);
    const scans: Scan[] = [];
    for (let c = 0; c < 10; c++) {
      scans.push({
        order: Int32Array.from({ length: n }, (_, i) => i).filter((i) => codes[i] === c),
      });
    }
    // Then every row against the other classes, as the block scan of step 4 does.
    scans.push({ term: { kind: "classes", codes, lambda: 2, crossClassOnly: true } });
    const { filtered, plain } = bothPaths(X, 16, scans);
    expectSameHeaps(filtered, plain);
  });

  it("offers what the cluster scan's TypeScript loop offers", () => {
    // Classes around random centres, some rows duplicated (ties), at several lambdas:
    // from every row searching the other classes to a few.
    const rng = new Random(11);
    const n = 1500;
    const k = 12;
    const classes = 5;
    const centres = Array.from({ length: classes }, () =>
      Array.from({ length: k }, () => 2 * rng.normal()),
    );
    const codes = Int32Array.from({ length: n }, (_, i) => i % classes);
    const P = new Matrix(n, k);
    for (let i = 0; i < n; i++) {
      for (let l = 0; l < k; l++) P.data[i * k + l] = centres[codes[i]][l] + rng.normal();
    }
    for (let t = 0; t < 40; t++) {
      const from = rng.integer(n);
      const to = (rng.integer(n / classes) * classes + (from % classes)) % n;
      P.data.copyWithin(to * k, from * k, (from + 1) * k);
    }
    const norms = squaredRowNorms(P);
    const { start, byClass } = classOrder(codes, classes);
    const count = 10;
    for (const lambda of [0, 0.5, 4]) {
      const run = (filter: boolean) => {
        const heaps = new NeighbourHeaps(n, count);
        for (let c = 0; c < classes; c++) {
          scanNearestPairs(P, norms, heaps, { order: byClass.subarray(start[c], start[c + 1]) });
        }
        const all = Array.from({ length: n }, (_, i) => i);
        const computed = crossClassClusterScan(P, norms, byClass, start, lambda, heaps, all, {
          filter,
        });
        return { heaps, computed };
      };
      const filtered = run(true);
      const plain = run(false);
      expect(filtered.computed).toBe(plain.computed);
      expect(filtered.computed).toBeGreaterThan(0);
      expectSameHeaps(filtered.heaps, plain.heaps);
    }
  });
});
