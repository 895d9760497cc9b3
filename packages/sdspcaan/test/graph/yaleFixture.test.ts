/**
 * Agreement with the NumPy reference on real data (Yale, 33 training rows): the
 * initial graph and per-iteration updates at lambda = 1, 2^20 and 2^80. Fixture made
 * by scripts/fixtures/graph_yale.py (the exact command is inside the fixture).
 */
import { readFileSync } from "node:fs";
import { fixtureFile, readDataFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { encodeLabels } from "#internal/core/validate.js";
import { initialAdaptiveGraph, labelledAdaptiveGraph } from "#internal/graph/adaptive.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import { centerColumns } from "#internal/linalg/basic.js";
import type { CsrMatrix } from "#internal/linalg/sparse.js";

type Triplet = [number, number, number];
interface Fixture {
  command: string;
  rows: number[];
  codes: number[];
  m: number;
  eps: number;
  initial: { S: Triplet[]; gamma: number[]; L: Triplet[] };
  projection: { k: number; P: number[][] };
  updates: Array<{ lambda: number; S: Triplet[]; gamma: number[]; exact?: Triplet[] }>;
}

const fixture: Fixture = JSON.parse(readFileSync(fixtureFile("graph/yale_graph.json"), "utf8"));

async function loadTrainingRows(): Promise<{ X: Matrix; codes: Int32Array }> {
  const { X: fea, y } = await readDataFile("Yale_32x32.mat");
  const X = centerColumns(fea.selectRows(fixture.rows)).centered;
  const labels = fixture.rows.map((r) => y[r]);
  return { X, codes: encodeLabels(labels, labels.length).codes };
}

/** The pattern of S equals the fixture's, and each entry is within tol(i) of it. */
function expectSameEntries(S: CsrMatrix, expected: Triplet[], tol: (i: number) => number): void {
  expect(S.nnz).toBe(expected.length);
  for (const [i, j, v] of expected) {
    expect(S.rowLength(i)).toBeGreaterThan(0);
    const got = S.get(i, j);
    expect(got).toBeGreaterThan(0);
    expect(Math.abs(got - v)).toBeLessThanOrEqual(tol(i));
  }
}

function expectRelative(got: ArrayLike<number>, expected: number[], rel: number): void {
  expect(got.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    expect(Math.abs(got[i] - expected[i])).toBeLessThanOrEqual(rel * Math.abs(expected[i]));
  }
}

/** Unit in the last place of x (x > 0). */
function ulp(x: number): number {
  return 2 ** (Math.floor(Math.log2(x)) - 52);
}

const { X, codes } = await loadTrainingRows();

describe("the graph on Yale agrees with the NumPy reference", () => {
  const P = Matrix.fromRows(fixture.projection.P);
  const m = fixture.m;

  it("uses the fixture's rows and labels", () => {
    expect(fixture.command).toMatch(/graph_yale\.py/);
    expect(Array.from(codes)).toEqual(fixture.codes);
    expect(X.rows).toBe(33);
    expect(X.cols).toBe(1024);
  });

  it("initial graph: S, gamma and the Laplacian of the symmetrised S", () => {
    const g = initialAdaptiveGraph(X, { m, eps: fixture.eps });
    expectSameEntries(g.S, fixture.initial.S, () => 1e-12);
    expectRelative(g.gamma, fixture.initial.gamma, 1e-12);
    const L = graphLaplacian(symmetrizeGraph(g.S));
    for (const [i, j, v] of fixture.initial.L) {
      expect(Math.abs(L.get(i, j) - v)).toBeLessThanOrEqual(1e-12);
    }
    // Every stored entry of L is in the reference's (the diagonal is stored even if 0).
    const stored = new Set(fixture.initial.L.map(([i, j]) => `${i},${j}`));
    for (let i = 0; i < L.rows; i++) {
      for (let p = L.rowPtr[i]; p < L.rowPtr[i + 1]; p++) {
        if (L.values[p] !== 0) expect(stored.has(`${i},${L.colIdx[p]}`)).toBe(true);
      }
    }
  });

  for (const update of fixture.updates.filter((u) => u.lambda <= 2 ** 20)) {
    it(`update at lambda = 2^${Math.log2(update.lambda)}: S and gamma`, () => {
      for (const strategy of ["auto", "full", "tree"] as const) {
        const g = labelledAdaptiveGraph(P, codes, update.lambda, { m, strategy });
        expectSameEntries(g.S, update.S, () => 1e-12);
        expectRelative(g.gamma, update.gamma, 1e-12);
      }
    });
  }

  it("update at lambda = 2^80: exact against rational arithmetic, and within the reference's own rounding", () => {
    const update = fixture.updates.find((u) => u.lambda === 2 ** 80);
    if (update?.exact === undefined) throw new Error("fixture lacks the lambda = 2^80 update");
    const g = labelledAdaptiveGraph(P, codes, update.lambda, { m });
    // The SPEC's split form reproduces the exact weights to round-off...
    expectSameEntries(g.S, update.exact, () => 1e-15);
    // ...while the reference, forming d = p + lambda l first, is off by up to
    // m ulp(d_(m+1)) / denominator in each row.
    const count = g.neighbours.count;
    const tol = (i: number) =>
      1e-12 + (4 * m * ulp(g.neighbours.distances[i * count + m])) / (2 * g.gamma[i]);
    expectSameEntries(g.S, update.S, tol);
    for (let i = 0; i < g.gamma.length; i++) {
      expect(Math.abs(g.gamma[i] - update.gamma[i])).toBeLessThanOrEqual(tol(i) * 2 * g.gamma[i]);
    }
  });
});
