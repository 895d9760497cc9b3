/**
 * LPP: the union-symmetrised kNN graph and its weights, the constraint
 * W^T X^T D X W = I, the objective equal to the sum of the k smallest generalised
 * eigenvalues, agreement with the dense d x d problem when n > d, labels ignored,
 * errors, and a Yale split.
 */

import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { graphLaplacian } from "#internal/graph/laplacian.js";
import { centerColumns } from "#internal/linalg/basic.js";
import { generalizedSymmetricEigen } from "#internal/linalg/generalizedEigen.js";
import { nearestNeighbours } from "#internal/linalg/kernels/distances.js";
import { multiply, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import type { CsrMatrix } from "#internal/linalg/sparse.js";
import { LPP, type LPPWeight, localityGraph } from "#internal/methods/lpp.js";
import { followsSignConvention, subspaceDistance } from "../helpers/matrices.js";
import { orthonormalBasis } from "../helpers/subspace.js";
import { projectedTestBca, yaleSplit } from "../helpers/yaleSplit.js";

/** Points along a noisy curve in d dimensions (a manifold LPP is meant for). */
function noisyCurve(seed: number, n: number, d: number): Matrix {
  const rng = new Random(seed);
  const X = new Matrix(n, d);
  for (let i = 0; i < n; i++) {
    const t = (4 * Math.PI * i) / n;
    for (let a = 0; a < d; a++) {
      X.data[i * d + a] = Math.sin(t * (1 + (a % 3)) + a) + 0.1 * rng.normal();
    }
  }
  return X;
}

/** X^T D X and X^T L X for the graph S and centred X (dense d x d). */
function graphForms(Xc: Matrix, S: CsrMatrix): { XtDX: Matrix; XtLX: Matrix } {
  const degrees = S.rowSums();
  const DX = Xc.clone();
  for (let i = 0; i < Xc.rows; i++) {
    for (let a = 0; a < Xc.cols; a++) DX.data[i * Xc.cols + a] *= degrees[i];
  }
  const LX = multiply(graphLaplacian(S).toDense(), Xc);
  return { XtDX: multiplyAtB(Xc, DX), XtLX: multiplyAtB(Xc, LX) };
}

function fittedGraph(X: Matrix, neighbours: number, weight: LPPWeight, bandwidth: number | null) {
  const Xc = centerColumns(X).centered;
  return { Xc, graph: localityGraph(nearestNeighbours(Xc, neighbours), weight, bandwidth) };
}

describe("localityGraph", () => {
  const X = noisyCurve(1, 40, 5);
  const Xc = centerColumns(X).centered;
  const p = 4;
  const knn = nearestNeighbours(Xc, p);
  const isNeighbour = (i: number, j: number) =>
    Array.from(knn.indices.subarray(i * p, (i + 1) * p)).includes(j);
  const distance = (i: number, j: number) => {
    let s = 0;
    for (let a = 0; a < 5; a++) s += (Xc.get(i, a) - Xc.get(j, a)) ** 2;
    return s;
  };

  it("links i and j when either is among the other's nearest, symmetrically, never i to itself", () => {
    const { S } = localityGraph(knn, "binary", null);
    expect(S.isSymmetric()).toBe(true);
    for (let i = 0; i < 40; i++) {
      expect(S.get(i, i)).toBe(0);
      for (let j = 0; j < 40; j++) {
        if (i === j) continue;
        expect(S.get(i, j)).toBe(isNeighbour(i, j) || isNeighbour(j, i) ? 1 : 0);
      }
    }
  });

  it("weighs edges by exp(-d/t) with t = the mean squared neighbour distance by default", () => {
    let total = 0;
    for (let i = 0; i < 40; i++) {
      for (let a = 0; a < p; a++) total += distance(i, knn.indices[i * p + a]);
    }
    const t = total / (40 * p);
    const graph = localityGraph(knn, "heat", null);
    expect(graph.bandwidth).toBeCloseTo(t, 12);
    const fixed = localityGraph(knn, "heat", 0.7);
    expect(fixed.bandwidth).toBe(0.7);
    for (let i = 0; i < 40; i++) {
      for (let q = graph.S.rowPtr[i]; q < graph.S.rowPtr[i + 1]; q++) {
        const j = graph.S.colIdx[q];
        expect(graph.S.values[q]).toBeCloseTo(Math.exp(-distance(i, j) / t), 12);
        expect(fixed.S.get(i, j)).toBeCloseTo(Math.exp(-distance(i, j) / 0.7), 12);
      }
    }
    expect(graph.edges * 2).toBe(graph.S.nnz);
  });

  it("gives every edge weight 1 when all neighbour distances are 0 (duplicates)", () => {
    const dup = Matrix.fromRows([
      [1, 2],
      [1, 2],
      [3, 4],
      [3, 4],
    ]);
    const graph = localityGraph(nearestNeighbours(dup, 1), "heat", null);
    expect(graph.bandwidth).toBe(1);
    expect(Array.from(graph.S.values)).toEqual([1, 1, 1, 1]);
  });
});

describe("LPP solution", () => {
  const cases = [
    { n: 30, d: 50, neighbours: 5, weight: "heat" as const },
    { n: 30, d: 50, neighbours: 3, weight: "binary" as const },
    { n: 80, d: 6, neighbours: 6, weight: "heat" as const },
  ];

  it.each(cases)("satisfies W^T X^T D X W = I (n $n, d $d, $weight)", (c) => {
    const X = noisyCurve(2, c.n, c.d);
    const model = new LPP({ k: 4, neighbours: c.neighbours, weight: c.weight }).fit(X);
    const { Xc, graph } = fittedGraph(X, c.neighbours, c.weight, null);
    const { XtDX, XtLX } = graphForms(Xc, graph.S);
    const W = model.components;
    const C = multiplyAtB(W, multiply(XtDX, W));
    for (let a = 0; a < 4; a++) {
      for (let b = 0; b < 4; b++) {
        expect(Math.abs(C.get(a, b) - (a === b ? 1 : 0))).toBeLessThanOrEqual(1e-9);
      }
    }
    // The objective Tr(W^T X^T L X W) is the sum of the k smallest generalised eigenvalues.
    const values = model.fitInfo.details.eigenvalues as number[];
    const objective = multiplyAtB(W, multiply(XtLX, W));
    let trace = 0;
    for (let a = 0; a < 4; a++) trace += objective.get(a, a);
    const sum = values.reduce((s, v) => s + v, 0);
    expect(Math.abs(trace - sum)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(sum)));
    for (let j = 1; j < 4; j++) expect(values[j]).toBeGreaterThanOrEqual(values[j - 1]);
    expect(followsSignConvention(W)).toBe(true);
  });

  it("agrees with the dense d x d problem (X^T L X, X^T D X) when n > d", () => {
    const X = noisyCurve(3, 90, 5);
    const model = new LPP({ k: 3, neighbours: 7 }).fit(X);
    const { Xc, graph } = fittedGraph(X, 7, "heat", null);
    const { XtDX, XtLX } = graphForms(Xc, graph.S);
    const dense = generalizedSymmetricEigen(XtLX, XtDX, { smallest: 3 });
    const values = model.fitInfo.details.eigenvalues as number[];
    for (let j = 0; j < 3; j++) {
      expect(Math.abs(values[j] - dense.values[j])).toBeLessThanOrEqual(1e-10 * dense.values[2]);
    }
    expect(
      subspaceDistance(orthonormalBasis(dense.vectors), orthonormalBasis(model.components)),
    ).toBeLessThan(1e-8);
  });

  it("ignores labels", () => {
    const X = noisyCurve(4, 30, 8);
    const withLabels = new LPP({ k: 2 }).fit(
      X,
      X.toRows().map((_, i) => i % 3),
    );
    const without = new LPP({ k: 2 }).fit(X);
    expect(Array.from(withLabels.components.data)).toEqual(Array.from(without.components.data));
  });

  it("reports the graph it used", () => {
    const info = new LPP({ k: 2, neighbours: 4, weight: "binary" }).fit(
      noisyCurve(5, 30, 8),
    ).fitInfo;
    expect(info.stopReason).toBe("closed-form");
    expect(info.details.weight).toBe("binary");
    expect(info.details.bandwidth).toBeNull();
    expect(info.details.edges).toBeGreaterThanOrEqual(30 * 2);
  });
});

describe("LPP errors", () => {
  const X = noisyCurve(6, 12, 20);

  it("rejects more neighbours than other samples", () => {
    expect(() => new LPP({ k: 2, neighbours: 12 }).fit(X)).toThrow(
      /The 'neighbours' parameter of LPP must be an integer in \[1, 11\] for 12 training samples \(n - 1\)\. Got 12 instead\./,
    );
  });

  it("rejects k above the rank of the centred data", () => {
    expect(() => new LPP({ k: 12 }).fit(X)).toThrow(
      /'k' parameter of LPP must be an integer in \[1, 11\] \(at most the numerical rank r = 11/,
    );
  });

  it("rejects a non-positive bandwidth and an unknown weight", () => {
    expect(() => new LPP({ bandwidth: 0 })).toThrow(
      /'bandwidth' parameter of LPP must be a number in \(0, inf\)/,
    );
    expect(() => new LPP({ weight: "gaussian" as never })).toThrow(/one of "heat", "binary"/);
  });
});

describe("LPP on Yale (a 20% training split, train z-score)", () => {
  it("meets the constraint on real data and classifies above chance", async () => {
    const yale = await yaleSplit();
    const { train, ytrain } = yale;
    const model = new LPP({ k: 20 }).fit(train, ytrain);
    const { Xc, graph } = fittedGraph(train, 5, "heat", null);
    const XW = multiply(Xc, model.components);
    const degrees = graph.S.rowSums();
    for (let a = 0; a < 20; a++) {
      for (let b = 0; b < 20; b++) {
        let s = 0;
        for (let i = 0; i < XW.rows; i++) s += degrees[i] * XW.get(i, a) * XW.get(i, b);
        expect(Math.abs(s - (a === b ? 1 : 0))).toBeLessThanOrEqual(1e-8);
      }
    }
    // 15 classes: chance is 1/15.
    expect(projectedTestBca(model, yale)).toBeGreaterThan(0.2);
  });
});
