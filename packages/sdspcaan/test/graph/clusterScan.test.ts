/**
 * Step 4 of the labelled search by cluster bounds (src/graph/clusterScan.ts) offers
 * the candidates the block scan offers, with the same distances bit for bit wherever
 * both run the same GEMM kernel, while computing only a fraction of the cross-class
 * pairs. Real-valued data (inexact dot products) on the wasm backend; the
 * integer-data property test in neighbours.test.ts covers ties and duplicates.
 */
import { afterEach, describe, expect, it } from "vitest";
import { AbortError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { CLUSTER_SIZE, classClusters, crossClassClusterScan } from "#internal/graph/clusterScan.js";
import { labelledNeighbours } from "#internal/graph/neighbours.js";
import { classOrder } from "#internal/graph/rowOrder.js";
import { scanNearestPairs, squaredRowNorms } from "#internal/linalg/kernels/distances.js";
import { NeighbourHeaps } from "#internal/linalg/kernels/neighbourHeaps.js";
import { kernelBackend, setKernelBackend } from "#internal/linalg/kernels/wasm/backend.js";
import { expectSameBits } from "../helpers/graphs.js";

afterEach(() => {
  setKernelBackend("auto");
});

/**
 * Gaussian classes around random centres (spread `spread` apart, unit noise), the last
 * class with only `small` rows; rows interleaved by class.
 */
function blobs(n: number, k: number, classes: number, small: number, spread: number, seed: number) {
  const rng = new Random(seed);
  const centres = Array.from({ length: classes }, () =>
    Array.from({ length: k }, () => spread * rng.normal()),
  );
  const codes = new Int32Array(n);
  for (let i = 0; i < n; i++) codes[i] = i < small ? classes - 1 : i % (classes - 1);
  const P = new Matrix(n, k);
  for (let i = 0; i < n; i++) {
    for (let l = 0; l < k; l++) P.data[i * k + l] = centres[codes[i]][l] + rng.normal();
  }
  return { P, codes };
}

/**
 * Classes of very different spreads (0.05 to 4): the broad classes' rows need the
 * tight classes' rows long before the tight ones need theirs, so a pair of clusters is
 * needed by one side only.
 */
function mixedSpreads(n: number, k: number, classes: number, seed: number) {
  const rng = new Random(seed);
  const spreads = Array.from({ length: classes }, (_, c) => 0.05 * 80 ** (c / (classes - 1)));
  const order = rng.permutation(classes);
  const codes = Int32Array.from({ length: n }, (_, i) => order[i % classes]);
  const centres = Array.from({ length: classes }, () =>
    Array.from({ length: k }, () => rng.normal()),
  );
  const P = new Matrix(n, k);
  for (let i = 0; i < n; i++) {
    for (let l = 0; l < k; l++) {
      P.data[i * k + l] = centres[codes[i]][l] + spreads[codes[i]] * rng.normal();
    }
  }
  return { P, codes };
}

/**
 * Groups of almost equal rows (jitter 1e-4) at random places, several groups per
 * class, of 8 rows (or sizes[c] in class c): the clusters are the groups (or halves of
 * them), so the bounds are tight and the pairs just inside and just outside a row's
 * threshold sit in clusters whose bound is close to it. With groups of 16 in class 0
 * and of 8 in class 1, and 10 candidates per row, class 1's rows need class 0's groups
 * while class 0's rows need nothing beyond their own group: a pair of clusters needed
 * by its second cluster only.
 */
function microGroups(groups: number, k: number, classes: number, seed: number, sizes = [8]) {
  const rng = new Random(seed);
  let n = 0;
  for (let g = 0; g < groups; g++) n += sizes[(g % classes) % sizes.length];
  const P = new Matrix(n, k);
  const codes = new Int32Array(n);
  // Rows of a class come group by group, so that the evenly spaced seeds find the groups.
  let i = 0;
  for (let c = 0; c < classes; c++) {
    for (let g = c; g < groups; g += classes) {
      const centre = Array.from({ length: k }, () => rng.normal());
      for (let r = 0; r < sizes[c % sizes.length]; r++, i++) {
        codes[i] = c;
        for (let l = 0; l < k; l++) P.data[i * k + l] = centre[l] + 1e-4 * rng.normal();
      }
    }
  }
  return { P, codes };
}

/**
 * Gaussian classes, 200 rows of the first of them copies of one row: they all join one
 * cluster, which is cut into pieces (exact ties among them, ranked by index).
 */
function duplicatedClass(n: number, k: number, classes: number, seed: number) {
  const { P, codes } = blobs(n, k, classes, 0, 1, seed);
  // Rows 0, classes - 1, 2 (classes - 1), ... are class 0; the first 200 become row 0.
  for (let c = 1; c < 200; c++) P.data.copyWithin(c * (classes - 1) * k, 0, k);
  return { P, codes };
}

/** The cluster scan's neighbours are the block scan's, bit for bit, at every lambda and count. */
function expectBlockScanResults(
  P: Matrix,
  codes: Int32Array,
  lambdas: readonly number[],
  counts: readonly number[],
): void {
  for (const lambda of lambdas) {
    for (const count of counts) {
      const blocks = labelledNeighbours(P, codes, lambda, count, {
        strategy: "blocks",
        helpers: [],
      });
      const clusters = labelledNeighbours(P, codes, lambda, count, { strategy: "clusters" });
      expectSameBits(blocks, clusters);
    }
  }
}

describe("cross-class candidates by cluster bounds", () => {
  const { P: real, codes } = blobs(640, 30, 7, 6, 1.2, 3);
  // The same points scaled and rounded to integers: exact dot products.
  const integral = new Matrix(
    real.rows,
    real.cols,
    real.data.map((v) => Math.round(16 * v)),
  );

  // The wasm kernel gives an entry the same bits in any product; the TypeScript kernel
  // only where the dot products are exact (gemm.ts, gemmABtFixedKernel): integer data.
  for (const backend of ["ts", "wasm"] as const) {
    it(`gives the block scan's candidates and distances bit for bit (${backend} kernels)`, () => {
      setKernelBackend(backend);
      expect(kernelBackend()).toBe(backend);
      const P = backend === "wasm" ? real : integral;
      const scale = backend === "wasm" ? 1 : 256; // squared distances scale by 16^2
      // lambda from "every row searches all other classes" to "only the small class does".
      const lambdas = [0, 0.5, 4, 16, 64, 2 ** 12, 2 ** 40].map((v) => scale * v);
      expectBlockScanResults(P, codes, lambdas, [3, 11]);
    });
  }

  it("gives the block scan's candidates where only one side of a pair of clusters needs it, and where the bounds are tight", () => {
    for (const { P, codes: labels } of [
      mixedSpreads(700, 12, 6, 4),
      microGroups(90, 16, 5, 6),
      microGroups(18, 8, 2, 7, [16, 8]),
      duplicatedClass(900, 20, 5, 8),
    ]) {
      expectBlockScanResults(P, labels, [0, 0.01, 0.1, 0.4, 1, 4], [4, 10]);
    }
  });

  it("computes a fraction of the cross-class pairs when the classes are apart", () => {
    const sep = blobs(2000, 24, 9, 40, 3, 8);
    const n = sep.P.rows;
    const count = 10;
    const lambda = 1;
    const norms = squaredRowNorms(sep.P);
    const classes = 9;
    const { start, byClass } = classOrder(sep.codes, classes);
    const withinClass = () => {
      const heaps = new NeighbourHeaps(n, count);
      for (let c = 0; c < classes; c++) {
        scanNearestPairs(sep.P, norms, heaps, { order: byClass.subarray(start[c], start[c + 1]) });
      }
      return heaps;
    };
    // Every row searches the other classes (as for small lambda).
    const all = Array.from({ length: n }, (_, i) => i);
    const pruned = withinClass();
    const computed = crossClassClusterScan(sep.P, norms, byClass, start, lambda, pruned, all);
    const full = withinClass();
    const order = Int32Array.from(all);
    scanNearestPairs(sep.P, norms, full, {
      order,
      term: { kind: "classes", codes: sep.codes, lambda, crossClassOnly: true },
    });
    expectSameBits(full.sorted(lambda), pruned.sorted(lambda));
    let crossPairs = 0;
    for (let c = 0; c < classes; c++) {
      const size = start[c + 1] - start[c];
      crossPairs += size * (n - size);
    }
    crossPairs /= 2;
    expect(computed).toBeGreaterThan(0);
    expect(computed).toBeLessThan(0.25 * crossPairs);
  });

  it("puts every row in one cluster of its class, and no more than 4 CLUSTER_SIZE rows in any", () => {
    const { P, codes: labels } = duplicatedClass(900, 20, 5, 8);
    const n = P.rows;
    const { start, byClass } = classOrder(labels, 4);
    const clusters = classClusters(P, byClass, start, undefined);
    expect(Array.from(clusters.rows).sort((a, b) => a - b)).toEqual(
      Array.from({ length: n }, (_, i) => i),
    );
    let largest = 0;
    for (let a = 0; a < clusters.count; a++) {
      const size = clusters.start[a + 1] - clusters.start[a];
      largest = Math.max(largest, size);
      for (let t = clusters.start[a]; t < clusters.start[a + 1]; t++) {
        expect(labels[clusters.rows[t]]).toBe(clusters.cls[a]);
      }
    }
    // The 200 copies fill whole pieces of the largest size.
    expect(largest).toBe(4 * CLUSTER_SIZE);
  });

  it("computes nothing when no row remains, and stops on an aborted signal", () => {
    const norms = squaredRowNorms(real);
    const heaps = new NeighbourHeaps(real.rows, 4);
    const byClass = Int32Array.from({ length: real.rows }, (_, i) => i);
    const start = Int32Array.from([0, real.rows]);
    expect(crossClassClusterScan(real, norms, byClass, start, 1, heaps, [])).toBe(0);
    expect(() =>
      labelledNeighbours(real, codes, 1, 5, { strategy: "clusters", signal: AbortSignal.abort() }),
    ).toThrow(AbortError);
  });
});
