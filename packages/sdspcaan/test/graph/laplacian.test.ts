/**
 * Symmetrised S, the Laplacian, connected components and the objective pieces, on
 * graphs built by the adaptive-neighbour code itself.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { initialAdaptiveGraph, labelledAdaptiveGraph } from "#internal/graph/adaptive.js";
import {
  componentLaplacians,
  connectedComponents,
  mergeComponentSpectra,
} from "#internal/graph/components.js";
import {
  applyLaplacian,
  classLaplacianTrace,
  gammaWeightedSquaredNorm,
  graphDegrees,
  graphLaplacian,
  laplacianTrace,
  symmetricLaplacianTrace,
  symmetrizeGraph,
} from "#internal/graph/laplacian.js";
import { wasmArena } from "#internal/linalg/kernels/wasm/backend.js";
import { CsrMatrix } from "#internal/linalg/sparse.js";
import { jacobiEigenvalues, normalMatrix, randomCodes } from "../helpers/graphs.js";

const EPS = 2 ** -52;

/** A labelled graph on random data; large lambda splits it into (at least) the classes. */
function labelledGraph(seed: number, n: number, classes: number, lambda: number, m: number) {
  const rng = new Random(seed);
  const P = normalMatrix(rng, n, 3, 1);
  const codes = randomCodes(rng, n, classes);
  const g = labelledAdaptiveGraph(P, codes, lambda, { m });
  return { ...g, codes, P };
}

const graphCase = fc.record({
  seed: fc.integer(),
  n: fc.integer({ min: 3, max: 30 }),
  classes: fc.integer({ min: 1, max: 5 }),
  lambda: fc.constantFrom(0, 1, 2 ** 40),
  mFraction: fc.double({ min: 0, max: 1, noNaN: true }),
});

function build(c: { seed: number; n: number; classes: number; lambda: number; mFraction: number }) {
  const m = 1 + Math.floor(c.mFraction * (c.n - 3));
  return labelledGraph(c.seed, c.n, Math.min(c.classes, c.n), c.lambda, m);
}

describe("symmetrising S", () => {
  it("gives an exactly symmetric S equal to (S + S^T)/2, with at most 2mn non-zeros", () => {
    fc.assert(
      fc.property(graphCase, (c) => {
        const { S, m } = build(c);
        const Ssym = symmetrizeGraph(S);
        expect(Ssym.isSymmetric()).toBe(true);
        const D = S.toDense();
        const Dsym = Ssym.toDense();
        // Row i holds its own m neighbours plus every row that chose i: 2m on average,
        // but a hub chosen by many rows has more.
        expect(Ssym.nnz).toBeLessThanOrEqual(2 * m * c.n);
        const chosenBy = new Int32Array(c.n);
        for (let t = 0; t < S.nnz; t++) chosenBy[S.colIdx[t]]++;
        for (let i = 0; i < c.n; i++) {
          expect(Ssym.rowLength(i)).toBeLessThanOrEqual(S.rowLength(i) + chosenBy[i]);
          for (let j = 0; j < c.n; j++) {
            expect(Dsym.get(i, j)).toBe(0.5 * D.get(i, j) + 0.5 * D.get(j, i));
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("the Laplacian", () => {
  it("is diag(S 1) - S, symmetric, with L 1 = 0 and x^T L x >= 0", () => {
    fc.assert(
      fc.property(graphCase, (c) => {
        const { S } = build(c);
        const Ssym = symmetrizeGraph(S);
        const L = graphLaplacian(Ssym);
        expect(L.isSymmetric()).toBe(true);
        const deg = graphDegrees(Ssym);
        const D = Ssym.toDense();
        const LD = L.toDense();
        for (let i = 0; i < c.n; i++) {
          for (let j = 0; j < c.n; j++) {
            const expected = i === j ? deg[i] - D.get(i, i) : -D.get(i, j);
            expect(LD.get(i, j) === expected).toBe(true);
          }
        }
        const ones = new Float64Array(c.n).fill(1);
        const L1 = L.multiplyVector(ones);
        for (let i = 0; i < c.n; i++) {
          expect(Math.abs(L1[i])).toBeLessThanOrEqual(4 * c.n * EPS * Math.max(1, deg[i]));
        }
        const rng = new Random(c.seed + 1);
        for (let trial = 0; trial < 5; trial++) {
          const x = new Matrix(
            c.n,
            1,
            Float64Array.from({ length: c.n }, () => rng.normal()),
          );
          const quad = L.quadraticTrace(x);
          const viaDifferences = laplacianTrace(Ssym, x);
          expect(viaDifferences).toBeGreaterThanOrEqual(0);
          expect(quad).toBeGreaterThanOrEqual(-1e-12);
          expect(Math.abs(quad - viaDifferences)).toBeLessThanOrEqual(1e-12 * (1 + quad));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("applyLaplacian equals L X and is exactly 0 on constant columns", () => {
    const { S } = labelledGraph(3, 25, 3, 1, 5);
    const Ssym = symmetrizeGraph(S);
    const L = graphLaplacian(Ssym);
    const X = normalMatrix(new Random(4), 25, 6);
    for (let i = 0; i < 25; i++) X.set(i, 5, 3.7);
    const viaCsr = L.multiplyMatrix(X);
    const viaDiff = applyLaplacian(Ssym, X);
    for (let t = 0; t < X.data.length; t++) {
      expect(Math.abs(viaCsr.data[t] - viaDiff.data[t])).toBeLessThanOrEqual(1e-13);
    }
    for (let i = 0; i < 25; i++) expect(viaDiff.get(i, 5)).toBe(0);
    expect(() => applyLaplacian(Ssym, X, X)).toThrow(/'out'.*sharing X's storage/);
  });

  it("stores the diagonal even for isolated nodes", () => {
    const S = CsrMatrix.fromTriplets(3, 3, [0, 1], [1, 0], [0.5, 0.5]);
    const L = graphLaplacian(S);
    expect(L.toDense().toRows()).toEqual([
      [0.5, -0.5, 0],
      [-0.5, 0.5, 0],
      [0, 0, 0],
    ]);
    expect(L.rowLength(2)).toBe(1);
  });
});

describe("objective pieces", () => {
  const { S, gamma, codes, P } = labelledGraph(5, 20, 3, 1, 4);
  const Ssym = symmetrizeGraph(S);
  const L = graphLaplacian(Ssym);

  it("Tr(S^T Gamma S) = sum_i gamma_i ||s_i||^2", () => {
    const D = Ssym.toDense();
    let ref = 0;
    for (let i = 0; i < 20; i++) {
      let s = 0;
      for (let j = 0; j < 20; j++) s += D.get(i, j) ** 2;
      ref += gamma[i] * s;
    }
    expect(gammaWeightedSquaredNorm(Ssym, gamma)).toBeCloseTo(ref, 12);
    expect(() => gammaWeightedSquaredNorm(Ssym, new Float64Array(3))).toThrow(/'gamma'.*\(20\)/);
  });

  it("Tr(Y^T L Y) for one-hot Y and Tr(P^T L P) from the differences", () => {
    const Y = new Matrix(20, 3);
    for (let i = 0; i < 20; i++) Y.set(i, codes[i], 1);
    expect(classLaplacianTrace(Ssym, codes)).toBeCloseTo(L.quadraticTrace(Y), 14);
    expect(laplacianTrace(Ssym, P)).toBeCloseTo(L.quadraticTrace(P), 12);
    // For a non-symmetric S it is the trace for the Laplacian of (S + S^T)/2.
    expect(laplacianTrace(S, P)).toBeCloseTo(laplacianTrace(Ssym, P), 12);
    expect(classLaplacianTrace(S, codes)).toBeCloseTo(classLaplacianTrace(Ssym, codes), 14);
    // Each edge once for a symmetric S (the matrix-free Z solver's Tr(G L G)), odd and even widths.
    for (const F of [P, Y, P.leadingColumns(1)]) {
      const ref = laplacianTrace(Ssym, F);
      expect(Math.abs(symmetricLaplacianTrace(Ssym, F) - ref)).toBeLessThanOrEqual(1e-13 * ref);
    }
    // Column weights w: the trace of F diag(w) without forming it.
    const w = Float64Array.from({ length: P.cols }, (_, t) => 0.5 + t);
    const scaled = new Matrix(
      P.rows,
      P.cols,
      P.data.map((v, q) => v * w[q % P.cols]),
    );
    const ref = laplacianTrace(Ssym, scaled);
    expect(Math.abs(symmetricLaplacianTrace(Ssym, P, w) - ref)).toBeLessThanOrEqual(1e-13 * ref);
    expect(() => symmetricLaplacianTrace(Ssym, P, new Float64Array(1))).toThrow(/'columnWeights'/);
    expect(() => symmetricLaplacianTrace(Ssym, Y.leadingColumns(1).transpose())).toThrow(
      /'F'.*20 rows/,
    );
  });
});

describe("symmetricLaplacianTrace in the module", () => {
  it("gives the loops' bits on a graph large enough for the module, odd and even widths, with and without weights", () => {
    expect(wasmArena()).not.toBeNull();
    const rng = new Random(17);
    const n = 2400;
    const P = normalMatrix(rng, n, 5, 1);
    const codes = randomCodes(rng, n, 4);
    const Ssym = symmetrizeGraph(labelledAdaptiveGraph(P, codes, 0.5, { m: 12 }).S);
    for (const c of [1, 16, 23]) {
      const F = normalMatrix(rng, n, c, 3);
      const w = Float64Array.from({ length: c }, () => 0.1 + rng.uniform());
      // Large enough that the module runs (MODULE_TRACE_MIN_WORK = 2^18 entries x columns).
      if (c > 1) expect(Ssym.nnz * c).toBeGreaterThanOrEqual(2 ** 18);
      for (const weights of [undefined, w]) {
        const loops = symmetricLaplacianTrace(Ssym, F, weights, false);
        expect(Object.is(symmetricLaplacianTrace(Ssym, F, weights), loops)).toBe(true);
        const ref = laplacianTrace(
          Ssym,
          new Matrix(
            n,
            c,
            F.data.map((v, q) => v * (weights === undefined ? 1 : weights[q % c])),
          ),
        );
        expect(Math.abs(loops - ref)).toBeLessThanOrEqual(1e-12 * ref);
      }
    }
  });
});

describe("connected components", () => {
  it("count the zero eigenvalues of L, and each component's block of L has zero row sums", () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 4, max: 24 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(0, 1, 2 ** 40),
        (seed, n, classes, lambda) => {
          const m = Math.min(3, n - 2);
          const { S } = labelledGraph(seed, n, Math.min(classes, n), lambda, m);
          const Ssym = symmetrizeGraph(S);
          const L = graphLaplacian(Ssym);
          const comps = connectedComponents(Ssym);
          // A connected weighted graph has e_2 >= 4 w_min / n^2 (w_min: its smallest edge
          // weight), so below that an eigenvalue is a zero; skip graphs whose weakest edge
          // is too faint for the dense solver to tell from 0.
          let wMin = Number.POSITIVE_INFINITY;
          for (let t = 0; t < Ssym.nnz; t++)
            if (Ssym.values[t] > 0) wMin = Math.min(wMin, Ssym.values[t]);
          const threshold = wMin / (n * n);
          fc.pre(threshold > 1e-11);
          const zeros = jacobiEigenvalues(L.toDense()).filter(
            (e) => Math.abs(e) < threshold,
          ).length;
          expect(comps.count).toBe(zeros);
          const blocks = componentLaplacians(L, comps);
          expect(blocks.length).toBe(comps.count);
          let nnz = 0;
          for (const b of blocks) {
            nnz += b.laplacian.nnz;
            const sums = b.laplacian.rowSums();
            for (let r = 0; r < sums.length; r++) {
              expect(Math.abs(sums[r])).toBeLessThanOrEqual(1e-14);
            }
          }
          // The blocks hold every entry of L: nothing links two components.
          expect(nnz).toBe(L.nnz);
        },
      ),
      { numRuns: 40 },
    );
  });

  it("agree with a breadth-first search, numbered by lowest node, with sorted members", () => {
    fc.assert(
      fc.property(graphCase, (c) => {
        const { S } = build(c);
        const comps = connectedComponents(S);
        const D = S.toDense();
        const label = new Int32Array(c.n).fill(-1);
        let count = 0;
        for (let s = 0; s < c.n; s++) {
          if (label[s] >= 0) continue;
          const queue = [s];
          label[s] = count;
          while (queue.length > 0) {
            const u = queue.pop() as number;
            for (let v = 0; v < c.n; v++) {
              if (label[v] < 0 && (D.get(u, v) !== 0 || D.get(v, u) !== 0)) {
                label[v] = count;
                queue.push(v);
              }
            }
          }
          count++;
        }
        expect(comps.count).toBe(count);
        expect(Array.from(comps.labels)).toEqual(Array.from(label));
        for (let k = 0; k < count; k++) {
          const members = Array.from(comps.members[k]);
          expect(members).toEqual([...members].sort((a, b) => a - b));
          expect(members.length).toBe(comps.sizes[k]);
          for (const v of members) expect(comps.labels[v]).toBe(k);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("a huge lambda with large classes separates the classes", () => {
    const rng = new Random(8);
    const n = 40;
    const P = normalMatrix(rng, n, 2, 1);
    const codes = Int32Array.from({ length: n }, (_, i) => i % 4);
    const g = labelledAdaptiveGraph(P, codes, 2 ** 50, { m: 5 });
    const Ssym = symmetrizeGraph(g.S);
    const comps = connectedComponents(Ssym);
    expect(comps.count).toBeGreaterThanOrEqual(4);
    let wMin = Number.POSITIVE_INFINITY;
    for (let t = 0; t < Ssym.nnz; t++) wMin = Math.min(wMin, Ssym.values[t]);
    const eigenvalues = jacobiEigenvalues(graphLaplacian(Ssym).toDense());
    expect(eigenvalues.filter((e) => Math.abs(e) < wMin / (n * n)).length).toBe(comps.count);
    for (let i = 0; i < n; i++) {
      for (let p = g.S.rowPtr[i]; p < g.S.rowPtr[i + 1]; p++) {
        expect(codes[g.S.colIdx[p]]).toBe(codes[i]);
      }
    }
  });

  it("the initial graph of well-separated clusters has one component per cluster", () => {
    const X = new Matrix(12, 1);
    for (let i = 0; i < 12; i++) X.data[i] = (i < 6 ? 0 : 1000) + i * 0.01 * (i % 5);
    const g = initialAdaptiveGraph(X, { m: 3 });
    expect(connectedComponents(symmetrizeGraph(g.S)).count).toBe(2);
  });

  it("mergeComponentSpectra takes the smallest values of the union", () => {
    expect(Array.from(mergeComponentSpectra([[0, 2, 5], [0, 1], [0]], 4))).toEqual([0, 0, 0, 1]);
    expect(() => mergeComponentSpectra([[0, 1]], 3)).toThrow(/'count'.*\[0, 2\].*Got 3/);
    expect(() => mergeComponentSpectra([[Number.NaN]], 1)).toThrow(/'spectra'.*finite/);
  });
});
