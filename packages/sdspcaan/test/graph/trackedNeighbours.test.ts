/**
 * The tracked within-class search (src/graph/trackedNeighbours.ts) gives, search after
 * search, the labelled search's neighbours whatever P did in between (small drifts,
 * column sign flips, large jumps, duplicated rows, small classes), while rescanning
 * only the rows it cannot certify: bit for bit against step 1 run in full with the
 * same (fixed) kernel, and against the whole labelled search up to the last bits of
 * the distances (which the block scan sums with a kernel chosen by block size; none
 * where the dot products are exact).
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { AbortError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { labelledNeighbours } from "#internal/graph/neighbours.js";
import { classOrder } from "#internal/graph/rowOrder.js";
import {
  LIST_MAX_RELATIVE_MOVE,
  WithinClassNeighbourTracker,
} from "#internal/graph/trackedNeighbours.js";
import { scanNearestPairs, squaredRowNorms } from "#internal/linalg/kernels/distances.js";
import { NeighbourHeaps, type TwoPartNeighbours } from "#internal/linalg/kernels/neighbourHeaps.js";
import { setKernelBackend } from "#internal/linalg/kernels/wasm/backend.js";
import { expectSameBits } from "../helpers/graphs.js";

afterEach(() => {
  setKernelBackend("auto");
});

/**
 * The same neighbours, with distances equal up to the rounding of the Gram form (the
 * block scan may sum a small block's dot products in another order).
 */
function expectSameNeighbours(full: TwoPartNeighbours, tracked: TwoPartNeighbours, P: Matrix) {
  expect(Array.from(tracked.indices)).toEqual(Array.from(full.indices));
  const maxNorm = Math.max(...squaredRowNorms(P));
  const tol = 64 * (P.cols + 4) * 2 ** -53 * maxNorm;
  for (let t = 0; t < full.distances.length; t++) {
    const err = Math.abs(full.distances[t] - tracked.distances[t]);
    if (!(err <= tol * Math.max(1, full.distances[t] / maxNorm))) {
      throw new Error(`entry ${t}: ${full.distances[t]} / ${tracked.distances[t]}`);
    }
  }
}

/** Step 1 of the labelled search in full, every product by the fixed kernel. */
function fullStepOne(P: Matrix, codes: Int32Array, classes: number, count: number): NeighbourHeaps {
  const heaps = new NeighbourHeaps(P.rows, count);
  const norms = squaredRowNorms(P);
  const { start, byClass } = classOrder(codes, classes);
  for (let c = 0; c < classes; c++) {
    const members = byClass.subarray(start[c], start[c + 1]);
    if (members.length >= 2) {
      scanNearestPairs(P, norms, heaps, { order: members, fixedKernel: true, blockRows: 29 });
    }
  }
  return heaps;
}

function expectSameHeaps(a: NeighbourHeaps, b: NeighbourHeaps): void {
  expect(Array.from(b.size)).toEqual(Array.from(a.size));
  for (let i = 0; i < a.rows; i++) {
    const entries = (h: NeighbourHeaps) =>
      Array.from({ length: h.size[i] }, (_, t) => [
        h.dist[i * h.count + t],
        h.index[i * h.count + t],
      ]).sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const ea = entries(a);
    const eb = entries(b);
    for (let t = 0; t < ea.length; t++) {
      if (!Object.is(ea[t][0], eb[t][0]) || ea[t][1] !== eb[t][1]) {
        throw new Error(`row ${i}: ${ea[t]} / ${eb[t]}`);
      }
    }
  }
}

/**
 * Gaussian classes (class sizes from `sizes`, rows interleaved at random), unit noise
 * around centres `spread` apart.
 */
function classes(sizes: number[], k: number, spread: number, seed: number) {
  const rng = new Random(seed);
  const n = sizes.reduce((a, b) => a + b, 0);
  const codes = new Int32Array(n);
  let at = 0;
  sizes.forEach((size, c) => {
    for (let t = 0; t < size; t++) codes[at++] = c;
  });
  const perm = rng.permutation(n);
  const shuffled = Int32Array.from(perm, (i) => codes[i]);
  const centres = sizes.map(() => Array.from({ length: k }, () => spread * rng.normal()));
  const P = new Matrix(n, k);
  for (let i = 0; i < n; i++) {
    for (let l = 0; l < k; l++) P.data[i * k + l] = centres[shuffled[i]][l] + rng.normal();
  }
  return { P, codes: shuffled };
}

/** P moved: every entry by `scale` times noise, then the columns in `flips` negated. */
function moved(P: Matrix, scale: number, flips: number[], rng: Random): Matrix {
  const out = new Matrix(P.rows, P.cols, Float64Array.from(P.data));
  for (let t = 0; t < out.data.length; t++) out.data[t] += scale * rng.normal();
  for (let i = 0; i < out.rows; i++) {
    for (const j of flips) out.data[i * out.cols + j] = -out.data[i * out.cols + j];
  }
  return out;
}

function search(
  P: Matrix,
  codes: Int32Array,
  lambda: number,
  count: number,
  tracker?: WithinClassNeighbourTracker,
): TwoPartNeighbours {
  return labelledNeighbours(P, codes, lambda, count, {
    strategy: "blocks",
    blockRows: 37,
    helpers: [],
    ...(tracker ? { tracker } : {}),
  });
}

describe("WithinClassNeighbourTracker", () => {
  it("gives the full search's neighbours at every step of a drifting P, rescanning few rows late", () => {
    // Classes of 300, 250, 200, 15 (at most width + 1 = 17: listed whole) and 1 row.
    const { P: P0, codes } = classes([300, 250, 200, 15, 1], 6, 3, 1);
    const count = 8;
    const tracker = new WithinClassNeighbourTracker(codes, 5, count);
    const rng = new Random(2);
    let P = P0;
    const scanned: number[] = [];
    const certified: number[] = [];
    // Large steps first, then ever smaller ones (as an SDSPCAAN fit's rows settle),
    // with a sign flip now and then.
    const scales = [0, 0.5, 0.2, 0.05, 0.01, 0.003, 0.001, 1e-4, 1e-5, 0];
    for (const [t, scale] of scales.entries()) {
      if (t > 0) P = moved(P, scale, t % 3 === 0 ? [1, 4] : [], rng);
      for (const lambda of [0.5, 1e6]) {
        const before = { ...tracker.stats };
        const tracked = search(P, codes, lambda, count, tracker);
        expectSameNeighbours(search(P, codes, lambda, count), tracked, P);
        scanned.push(tracker.stats.rowsScanned - before.rowsScanned);
        certified.push(tracker.stats.rowsCertified - before.rowsCertified);
      }
    }
    // The first search scans every row of the classes with more than width + 1 rows
    // and of the small one (the singleton has no same-class rows), and keeps no lists:
    // it cannot tell how far the rows will move.
    expect(scanned[0]).toBe(300 + 250 + 200 + 15);
    expect(certified[0]).toBe(0);
    // The second, at the same P, makes the lists (the small class is listed whole).
    expect(scanned[1]).toBe(750);
    expect(certified[1]).toBe(15);
    // The large first move rescans most rows, without lists; late, small moves rescan
    // (almost) nothing.
    expect(scanned[2]).toBeGreaterThan(600);
    expect(scanned.slice(-6).every((s) => s <= 5)).toBe(true);
    expect(certified.at(-1)).toBe(765);
  });

  it("fills the heaps exactly as step 1 in full with the same kernel, bit for bit", () => {
    const { P: P0, codes } = classes([300, 250, 30, 2], 7, 3, 11);
    const count = 9;
    const tracker = new WithinClassNeighbourTracker(codes, 4, count);
    const rng = new Random(12);
    let P = P0;
    for (const [t, scale] of [0, 0.3, 0.01, 1e-4, 1e-6].entries()) {
      if (t > 0) P = moved(P, scale, t === 2 ? [3] : [], rng);
      const heaps = new NeighbourHeaps(P.rows, count);
      tracker.fill(P, squaredRowNorms(P), heaps, { blockRows: 41 });
      expectSameHeaps(fullStepOne(P, codes, 4, count), heaps);
    }
    expect(tracker.stats.rowsCertified).toBeGreaterThan(500);
  });

  it("certifies rows across column sign flips (eigenvectors' signs are arbitrary)", () => {
    const { P, codes } = classes([200, 200], 5, 2, 3);
    const tracker = new WithinClassNeighbourTracker(codes, 2, 6);
    search(P, codes, 10, 6, tracker);
    search(P, codes, 10, 6, tracker);
    const flipped = moved(P, 0, [0, 2, 3], new Random(4));
    const before = tracker.stats.rowsScanned;
    expectSameNeighbours(
      search(flipped, codes, 10, 6),
      search(flipped, codes, 10, 6, tracker),
      flipped,
    );
    expect(tracker.stats.rowsScanned).toBe(before);
  });

  it("is exact with duplicated rows and exact ties (integer data), on both kernel backends", () => {
    for (const backend of ["wasm", "ts"] as const) {
      setKernelBackend(backend);
      const rng = new Random(5);
      const n = 300;
      const k = 3;
      const codes = Int32Array.from({ length: n }, (_, i) => i % 3);
      const P = new Matrix(n, k);
      for (let t = 0; t < P.data.length; t++) P.data[t] = rng.integer(5);
      const tracker = new WithinClassNeighbourTracker(codes, 3, 10);
      let Pt = P;
      for (let step = 0; step < 6; step++) {
        if (step > 0) {
          // Move a few rows by one unit: ties shift, most rows keep their answer.
          Pt = new Matrix(n, k, Float64Array.from(Pt.data));
          for (let r = 0; r < 5; r++) Pt.data[rng.integer(n) * k + rng.integer(k)] += 1;
        }
        expectSameBits(search(Pt, codes, 3, 10), search(Pt, codes, 3, 10, tracker));
      }
    }
  });

  it("property: the same neighbours as the full search over random sequences of moves", () => {
    fc.assert(
      fc.property(
        fc.record({
          sizes: fc.array(fc.integer({ min: 1, max: 80 }), { minLength: 1, maxLength: 4 }),
          k: fc.integer({ min: 1, max: 6 }),
          count: fc.integer({ min: 1, max: 6 }),
          scales: fc.array(fc.constantFrom(0, 1e-6, 1e-3, 0.05, 1), {
            minLength: 1,
            maxLength: 5,
          }),
          lambda: fc.constantFrom(0, 0.1, 10, 1e8),
          seed: fc.integer(),
        }),
        ({ sizes, k, count, scales, lambda, seed }) => {
          const n = sizes.reduce((a, b) => a + b, 0);
          if (count > n - 1) return;
          const { P: P0, codes } = classes(sizes, k, 2, seed);
          const tracker = new WithinClassNeighbourTracker(codes, sizes.length, count);
          const rng = new Random(seed ^ 0x5bd1e995);
          let P = P0;
          for (const [t, scale] of [0, ...scales].entries()) {
            if (t > 0) P = moved(P, scale, t % 2 === 0 ? [0] : [], rng);
            expectSameNeighbours(
              search(P, codes, lambda, count),
              search(P, codes, lambda, count, tracker),
              P,
            );
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it("keeps lists only while the rows move little", () => {
    const { P: P0, codes } = classes([300, 300], 5, 2, 8);
    const tracker = new WithinClassNeighbourTracker(codes, 2, 8);
    const rng = new Random(9);
    search(P0, codes, 10, 8, tracker);
    expect(tracker.stats.relativeMove).toBeNaN();
    expect(tracker.stats.listSearches).toBe(0);
    // Unit noise on unit-noise classes: the rows move by about their neighbour distances.
    const far = moved(P0, 1, [], rng);
    search(far, codes, 10, 8, tracker);
    expect(tracker.stats.relativeMove).toBeGreaterThan(LIST_MAX_RELATIVE_MOVE);
    expect(tracker.stats.listSearches).toBe(0);
    const scannedBefore = tracker.stats.rowsScanned;
    search(far, codes, 10, 8, tracker);
    expect(tracker.stats.relativeMove).toBeLessThan(1e-12);
    expect(tracker.stats.listSearches).toBe(1);
    // No row had a list, so every row was rescanned, now into lists ...
    expect(tracker.stats.rowsScanned - scannedBefore).toBe(600);
    // ... which certify every row after a small move.
    const near = moved(far, 1e-6, [], rng);
    const certifiedBefore = tracker.stats.rowsCertified;
    expectSameNeighbours(search(near, codes, 10, 8), search(near, codes, 10, 8, tracker), near);
    expect(tracker.stats.rowsCertified - certifiedBefore).toBe(600);
  });

  it("refuses P, heaps or norms of another shape than its codes and count", () => {
    const { P, codes } = classes([30, 30], 3, 2, 6);
    const tracker = new WithinClassNeighbourTracker(codes, 2, 4);
    expect(() => tracker.fill(P, squaredRowNorms(P), new NeighbourHeaps(P.rows, 5))).toThrow(
      /keeps 4 candidates/,
    );
    const short = new Matrix(10, 3);
    expect(() => tracker.fill(short, squaredRowNorms(short), new NeighbourHeaps(10, 4))).toThrow(
      /made for 60 rows/,
    );
    expect(() => new WithinClassNeighbourTracker(codes, 2, 0)).toThrow(/positive integer/);
  });

  it("stops on an aborted signal", () => {
    const { P, codes } = classes([100, 100], 3, 2, 7);
    const tracker = new WithinClassNeighbourTracker(codes, 2, 4);
    const controller = new AbortController();
    controller.abort();
    expect(() =>
      tracker.fill(P, squaredRowNorms(P), new NeighbourHeaps(P.rows, 4), {
        signal: controller.signal,
      }),
    ).toThrow(AbortError);
  });
});
