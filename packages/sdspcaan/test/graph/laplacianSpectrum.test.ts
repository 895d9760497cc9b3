/**
 * The smallest eigenvalues of graph Laplacians as the rank control uses them: the
 * component shortcut, pruning of negligible edges with its Ky Fan bound, and the
 * Chebyshev-filtered subspace iteration for large components, all against dense
 * solves.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { initialAdaptiveGraph } from "#internal/graph/adaptive.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import {
  type LaplacianWarmStart,
  laplacianSmallestEigenpairs,
  pruneLightEdges,
  rankControlEigenvalues,
} from "#internal/graph/laplacianSpectrum.js";
import { rankControl } from "#internal/graph/rankControl.js";
import { chebyshevSmallestEigenpairs } from "#internal/linalg/eigen/chebyshev.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiply } from "#internal/linalg/kernels/gemm.js";
import { CsrMatrix } from "#internal/linalg/sparse.js";
import { firstDifference } from "../helpers/matrices.js";
import { inputs } from "../helpers/properties.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

/** Laplacian of the adaptive-neighbour graph of clustered points (blocks of `sizes`). */
function clusteredLaplacian(seed: number, sizes: number[], spread = 4, m = 6): CsrMatrix {
  const rng = new Random(seed);
  const d = 5;
  const rows: number[][] = [];
  sizes.forEach((size, c) => {
    const centre = Array.from({ length: d }, () => spread * c + rng.normal());
    for (let i = 0; i < size; i++) rows.push(centre.map((v) => v + rng.normal()));
  });
  const S = initialAdaptiveGraph(Matrix.fromRows(rows), { m }).S;
  return graphLaplacian(symmetrizeGraph(S));
}

/**
 * pruneLightEdges as it was written first (number[] of weights sorted with a comparator,
 * rows rebuilt by push): the reference for the typed-array version.
 */
function pruneByArrays(L: CsrMatrix, budget: number): { pruned: CsrMatrix; bound: number } {
  const n = L.rows;
  const weights: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let p = L.rowPtr[i]; p < L.rowPtr[i + 1]; p++) {
      const j = L.colIdx[p];
      if (j > i && L.values[p] < 0) weights.push(-L.values[p]);
    }
  }
  weights.sort((a, b) => a - b);
  let dropped = 0;
  let threshold = -1;
  for (let i = 0; i < weights.length; ) {
    let j = i;
    let group = 0;
    while (j < weights.length && weights[j] === weights[i]) group += weights[j++];
    if (2 * (dropped + group) > budget) break;
    dropped += group;
    threshold = weights[i];
    i = j;
  }
  if (threshold < 0) return { pruned: L, bound: 0 };
  const rowPtr = new Int32Array(n + 1);
  const colIdx: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    let diagAt = -1;
    let removed = 0;
    for (let p = L.rowPtr[i]; p < L.rowPtr[i + 1]; p++) {
      const j = L.colIdx[p];
      const v = L.values[p];
      if (j === i) {
        diagAt = colIdx.length;
        colIdx.push(j);
        values.push(v);
      } else if (v < 0 && -v <= threshold) {
        removed += -v;
      } else {
        colIdx.push(j);
        values.push(v);
      }
    }
    if (diagAt >= 0) values[diagAt] -= removed;
    rowPtr[i + 1] = colIdx.length;
  }
  const pruned = new CsrMatrix(n, n, rowPtr, Int32Array.from(colIdx), Float64Array.from(values));
  return { pruned, bound: 2 * dropped };
}

function denseSmallest(L: CsrMatrix, count: number): Float64Array {
  return symmetricEigen(L.toDense(), { select: { smallest: count }, vectors: false }).values;
}

describe("laplacianSmallestEigenpairs", () => {
  it("agrees with a dense solve, connected or not, with exact zeros per component", () => {
    for (const sizes of [[60], [20, 25, 30], [12, 1, 30, 2]]) {
      const L = clusteredLaplacian(1, sizes, 40);
      const count = 6;
      const ours = laplacianSmallestEigenpairs(L, count, { vectors: true });
      const dense = denseSmallest(L, count);
      for (let j = 0; j < count; j++) expect(ours.values[j]).toBeCloseTo(dense[j], 10);
      for (let j = 0; j < Math.min(count, ours.components.count); j++)
        expect(ours.values[j]).toBe(0);
      // Eigenvectors: L v = mu v and orthonormal.
      const V = ours.vectors as Matrix;
      const LV = L.multiplyMatrix(V);
      for (let t = 0; t < LV.data.length; t++) {
        expect(Math.abs(LV.data[t] - ours.values[t % count] * V.data[t])).toBeLessThan(1e-9);
      }
    }
  });

  it("solves large components iteratively to the dense answer (values and subspace)", () => {
    const L = clusteredLaplacian(2, [70, 80, 90], 3);
    const count = 8;
    const iterative = laplacianSmallestEigenpairs(L, count, { vectors: true, denseLimit: 50 });
    const dense = laplacianSmallestEigenpairs(L, count, { vectors: true });
    for (let j = 0; j < count; j++) expect(iterative.values[j]).toBeCloseTo(dense.values[j], 8);
    expect(iterative.perturbationBound).toBeGreaterThan(0);
    expect(iterative.perturbationBound).toBeLessThan(1e-6);
    expect(maxPrincipalAngle(iterative.vectors as Matrix, dense.vectors as Matrix)).toBeLessThan(
      1e-5,
    );
  });

  it("bounds the effect of pruning light edges by Ky Fan's inequality", () => {
    // Two clusters joined by one very light edge: pruning it splits the graph.
    const L0 = clusteredLaplacian(3, [30, 30], 60);
    const dense0 = L0.toDense();
    const w = 1e-12;
    dense0.data[0 * 60 + 59] -= w;
    dense0.data[59 * 60 + 0] -= w;
    dense0.data[0] += w;
    dense0.data[59 * 60 + 59] += w;
    const L = CsrMatrix.fromDense(dense0);
    const pruned = laplacianSmallestEigenpairs(L, 3, { pruneBudget: 1e-6 });
    expect(pruned.perturbationBound).toBeGreaterThanOrEqual(2 * w);
    expect(pruned.components.count).toBeGreaterThanOrEqual(2);
    const exact = denseSmallest(L, 3);
    for (let j = 1; j <= 3; j++) {
      const a = pruned.values.slice(0, j).reduce((s, v) => s + v, 0);
      const b = exact.slice(0, j).reduce((s, v) => s + v, 0);
      expect(Math.abs(a - b)).toBeLessThanOrEqual(pruned.perturbationBound + 1e-12);
    }
  });

  it("prunes light edges with the bits of the number[] version it replaced (property)", () => {
    const budgets = fc.double({ min: 0, max: 4, noNaN: true });
    fc.assert(
      fc.property(
        inputs({ n: [1, 120], degree: [0, 8], levels: [1, 6], budget: budgets, seed: [0, 1e6] }),
        ({ n, degree, levels, budget, seed }) => {
          // Few distinct weights (groups of equal ones) and some tiny ones, as late in a fit.
          const rng = new Random(seed);
          const rows: number[] = [];
          const cols: number[] = [];
          const vals: number[] = [];
          for (let i = 0; i < n; i++) {
            for (let e = 0; e < degree; e++) {
              rows.push(i);
              cols.push(Math.floor(rng.uniform() * n));
              const level = Math.floor(rng.uniform() * levels);
              vals.push(level === 0 ? 1e-17 : level / levels);
            }
          }
          const L = graphLaplacian(symmetrizeGraph(CsrMatrix.fromTriplets(n, n, rows, cols, vals)));
          const got = pruneLightEdges(L, budget);
          const want = pruneByArrays(L, budget);
          return (
            Object.is(got.bound, want.bound) &&
            firstDifference(got.pruned.rowPtr, want.pruned.rowPtr) === -1 &&
            firstDifference(got.pruned.colIdx, want.pruned.colIdx) === -1 &&
            firstDifference(got.pruned.values, want.pruned.values) === -1
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it("rank-control eigenvalues give the exact decisions", () => {
    for (const seed of [4, 5, 6]) {
      const L = clusteredLaplacian(seed, [25, 25, 25, 25], 6);
      const c = 4;
      const tol = 1e-3;
      const fast = rankControlEigenvalues(L, c, tol);
      const exact = denseSmallest(L, c + 1);
      const sum = (v: ArrayLike<number>, j: number) =>
        Array.from(v)
          .slice(0, j)
          .reduce((s, x) => s + x, 0);
      expect(sum(fast, c) > tol).toBe(sum(exact, c) > tol);
      expect(sum(fast, c + 1) < tol).toBe(sum(exact, c + 1) < tol);
    }
  });
});

/**
 * Two Laplacians of the same clustered points, the second with the points moved a
 * little (as consecutive outer iterations change the graph): well-separated clusters,
 * so each cluster is a component.
 */
function clusteredPair(seed: number, sizes: number[], jitter: number): [CsrMatrix, CsrMatrix] {
  const rng = new Random(seed);
  const d = 5;
  const rows: number[][] = [];
  sizes.forEach((size, c) => {
    const centre = Array.from({ length: d }, () => 40 * c + rng.normal());
    for (let i = 0; i < size; i++) rows.push(centre.map((v) => v + rng.normal()));
  });
  const moved = rows.map((r) => r.map((v) => v + jitter * rng.normal()));
  const laplacian = (points: number[][]) =>
    graphLaplacian(symmetrizeGraph(initialAdaptiveGraph(Matrix.fromRows(points), { m: 6 }).S));
  return [laplacian(rows), laplacian(moved)];
}

/** The rank control's action from exact eigenvalues. */
function exactAction(L: CsrMatrix, c: number, tol: number): string {
  return rankControl({ eigenvalues: denseSmallest(L, c + 1), clusters: c, tol, lambda: 1 }).action;
}

describe("early stops of the rank control's component solves", () => {
  // Every component iterative and allowed to stop early.
  const small = { denseLimit: 20, decisionMinSize: 1 };

  it("never stop from a cold or untrusted start (but the decision component); from trusted warm rows they do, with the exact decision", () => {
    const [L1, L2] = clusteredPair(3, [70, 80, 90, 100], 0.05);
    const c = 4;
    const lambda2 = denseSmallest(L2, c + 1)[c];
    // tol below every component's smallest positive eigenvalue: "test".
    const tol = 0.5 * lambda2;
    const decision = { c, tol };
    const warm: LaplacianWarmStart = { block: null };
    const cold = laplacianSmallestEigenpairs(L1, c + 1, { ...small, warm, decision });
    expect(cold.stoppedEarly).toBe(0);
    // The three components solved to full accuracy are trusted; the decision component
    // (the largest, solved last) may stop from a cold start, and is then not.
    const marks = warm.trusted as Uint8Array;
    const sizes = [70, 80, 90, 100];
    for (let k = 0, at = 0; k < sizes.length; at += sizes[k++]) {
      const expected = k === 3 && cold.settled ? 0 : 1;
      expect(marks.slice(at, at + sizes[k]).every((v) => v === expected)).toBe(true);
    }
    // A full-accuracy solve of the decision component too, so that all rows are trusted.
    laplacianSmallestEigenpairs(L1, c + 1, { ...small, warm });
    // The same rows, but not known to come from a converged solve: no early stop.
    const untrusted: LaplacianWarmStart = { block: (warm.block as Matrix).clone() };
    const fromUntrusted = laplacianSmallestEigenpairs(L2, c + 1, {
      ...small,
      warm: untrusted,
      decision,
    });
    expect(fromUntrusted.stoppedEarly).toBe(0);
    const next = laplacianSmallestEigenpairs(L2, c + 1, { ...small, warm, decision });
    // Three components stop early, the fourth (the decision component) settles.
    expect(next.stoppedEarly).toBe(3);
    expect(next.settled).toBe(true);
    const sumFirst = (v: Float64Array, j: number) => v.slice(0, j).reduce((a, b) => a + b, 0);
    expect(sumFirst(next.values, c) <= tol && sumFirst(next.values, c + 1) >= tol).toBe(true);
    expect(exactAction(L2, c, tol)).toBe("test");
    // Reported values are Ritz values: at or above the exact ones, and near them (one
    // filter sweep from the last graph's vectors).
    const exact = denseSmallest(L2, c + 1);
    for (let j = 0; j <= c; j++) {
      expect(next.values[j]).toBeGreaterThanOrEqual(exact[j] - 1e-12);
      expect(next.values[j]).toBeLessThan(exact[j] + 1e-2 * lambda2);
    }
    // The marks stay set after early stops.
    expect(Array.from(warm.trusted as Uint8Array).every((v) => v === 1)).toBe(true);
  });

  it("give the exact decision for any tol, cold or warm, along a sequence of moving graphs (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.array(fc.integer({ min: 25, max: 70 }), { minLength: 2, maxLength: 5 }),
        fc.constantFrom(0.2, 0.9, 0.999, 1.001, 1.1, 3, 30),
        fc.integer({ min: -1, max: 1 }),
        (seed, sizes, factor, shift) => {
          const [L1, L2] = clusteredPair(seed, sizes, 0.1);
          // c around the number of components: "double", "test" or "halve".
          const c = Math.max(1, sizes.length + shift);
          if (c + 1 > L1.rows) return true;
          // tol set against L2's smallest positive eigenvalue (near the decision's edge
          // for factors close to 1).
          const positive = denseSmallest(L2, sizes.length + 1)[sizes.length];
          const tol = factor * positive;
          const warm: LaplacianWarmStart = { block: null };
          const first = rankControlEigenvalues(L1, c, tol, warm, small);
          const second = rankControlEigenvalues(L2, c, tol, warm, small);
          const third = rankControlEigenvalues(L1, c, tol, warm, small);
          const action = (v: Float64Array) =>
            rankControl({ eigenvalues: v, clusters: c, tol, lambda: 1 }).action;
          return (
            action(first) === exactAction(L1, c, tol) &&
            action(second) === exactAction(L2, c, tol) &&
            action(third) === exactAction(L1, c, tol)
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("chebyshevSmallestEigenpairs", () => {
  it("finds the smallest eigenpairs of a Laplacian, and a warm start needs fewer sweeps", () => {
    const L = clusteredLaplacian(7, [100, 100], 2);
    const n = L.rows;
    const k = 6;
    const apply = (V: Matrix) => L.multiplyMatrix(V);
    const diag = L.diagonal();
    const upper = 2 * Math.max(...diag);
    const cold = chebyshevSmallestEigenpairs(apply, n, k, { upperBound: upper, tol: 1e-10 });
    expect(cold.converged).toBe(true);
    const dense = symmetricEigen(L.toDense(), { select: { smallest: k } });
    for (let j = 0; j < k; j++) expect(cold.values[j]).toBeCloseTo(dense.values[j], 9);
    expect(maxPrincipalAngle(cold.vectors, dense.vectors as Matrix)).toBeLessThan(1e-6);
    const QtQ = multiply(cold.vectors.transpose(), cold.vectors);
    for (let i = 0; i < k; i++)
      for (let j = 0; j < k; j++) expect(QtQ.get(i, j)).toBeCloseTo(i === j ? 1 : 0, 12);
    const warm = chebyshevSmallestEigenpairs(apply, n, k, {
      upperBound: upper,
      tol: 1e-10,
      initial: cold.block,
    });
    expect(warm.converged).toBe(true);
    expect(warm.iterations).toBeLessThan(cold.iterations);
  });

  it("carries a warm start across calls through LaplacianWarmStart", () => {
    const L = clusteredLaplacian(8, [120], 2);
    const warm: LaplacianWarmStart = { block: null };
    const first = laplacianSmallestEigenpairs(L, 5, { denseLimit: 10, warm });
    expect(warm.block?.rows).toBe(120);
    const second = laplacianSmallestEigenpairs(L, 5, { denseLimit: 10, warm });
    for (let j = 0; j < 5; j++) expect(second.values[j]).toBeCloseTo(first.values[j], 10);
  });
});
