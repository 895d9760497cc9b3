/**
 * Adaptive-neighbour rows (Eq. SDSPCAAN-si): the row invariants, agreement with the
 * formula written out directly where that is accurate, and exactness at huge lambda
 * where the literal formula breaks down.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import {
  adaptiveNeighbourRows,
  defaultNeighbourCount,
  embeddedAdaptiveGraph,
  GRAPH_EPS,
  initialAdaptiveGraph,
  labelledAdaptiveGraph,
} from "#internal/graph/adaptive.js";
import { pairwiseSquaredDistances } from "#internal/linalg/kernels/distances.js";
import {
  directSquaredDistance,
  integerMatrix,
  normalMatrix,
  randomCodes,
} from "../helpers/graphs.js";
import { inputs } from "../helpers/properties.js";

const EPS = GRAPH_EPS;

/** The weights of row i written as in the paper, from a dense d (ties to the lower index). */
function literalRow(d: (j: number) => number, n: number, i: number, m: number) {
  const js = Array.from({ length: n }, (_, j) => j)
    .filter((j) => j !== i)
    .sort((a, b) => d(a) - d(b) || a - b);
  const star = d(js[m]);
  let sum = 0;
  for (let t = 0; t < m; t++) sum += d(js[t]);
  const denom = m * star - sum;
  const row = new Map<number, number>();
  for (let t = 0; t < m; t++) row.set(js[t], (star - d(js[t])) / (denom + EPS));
  return { row, gamma: denom / 2 };
}

/**
 * The weights of row i in exact rational arithmetic (BigInt) for integer p and an
 * integer lambda, ranked by the floating-point d as the SPEC asks; returns doubles.
 */
function exactRow(
  p: (j: number) => number,
  l: (j: number) => number,
  lambda: bigint,
  n: number,
  i: number,
  m: number,
): Map<number, number> {
  const lam = Number(lambda);
  const js = Array.from({ length: n }, (_, j) => j)
    .filter((j) => j !== i)
    .sort((a, b) => p(a) + lam * l(a) - (p(b) + lam * l(b)) || a - b);
  const exactD = (j: number) => BigInt(p(j)) + lambda * BigInt(l(j));
  const star = exactD(js[m]);
  const diffs = js.slice(0, m).map((j) => {
    const v = star - exactD(j);
    return v > 0n ? v : 0n;
  });
  const denom = diffs.reduce((a, b) => a + b, 0n);
  // s = diff / (denom + 2^-52) = diff 2^52 / (denom 2^52 + 1), scaled by 2^600 so that
  // even tiny weights keep far more than 53 significant bits.
  const den = (denom << 52n) + 1n;
  const row = new Map<number, number>();
  js.slice(0, m).forEach((j, t) => {
    row.set(j, Number(((diffs[t] << 52n) << 600n) / den) / 2 ** 600);
  });
  return row;
}

function rowOf(S: { rowPtr: Int32Array; colIdx: Int32Array; values: Float64Array }, i: number) {
  const out = new Map<number, number>();
  for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) out.set(S.colIdx[p], S.values[p]);
  return out;
}

describe("adaptive-neighbour rows: invariants", () => {
  const lambdas = fc.constantFrom(0, 1, 2 ** 20, 2 ** 60, 2 ** 96);

  it("rows are non-negative, have at most m non-zeros and sum to 1 up to eps", () => {
    fc.assert(
      fc.property(
        inputs({ n: [3, 40], k: [1, 8], classes: [1, 6], lambda: lambdas, seed: fc.integer() }),
        ({ n, k, classes, lambda, seed }) => {
          const rng = new Random(seed);
          const P = normalMatrix(rng, n, k, 10);
          const codes = randomCodes(rng, n, Math.min(classes, n));
          const m = 1 + rng.integer(n - 2);
          const g = labelledAdaptiveGraph(P, codes, lambda, { m });
          for (let i = 0; i < n; i++) {
            expect(g.S.rowLength(i)).toBeLessThanOrEqual(m);
            let sum = 0;
            for (let p = g.S.rowPtr[i]; p < g.S.rowPtr[i + 1]; p++) {
              expect(g.S.values[p]).toBeGreaterThan(0);
              expect(g.S.colIdx[p]).not.toBe(i);
              sum += g.S.values[p];
            }
            // sum = denom / (denom + eps) up to m roundings.
            const denom = 2 * g.gamma[i];
            expect(Math.abs(sum - 1)).toBeLessThanOrEqual((m + 2) * EPS + EPS / denom);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it("gamma is half the denominator, and the weights follow Eq. (SDSPCAAN-si) where it is accurate", () => {
    const rng = new Random(3);
    const n = 30;
    const P = normalMatrix(rng, n, 4, 2);
    const codes = randomCodes(rng, n, 3);
    const m = 6;
    const D = pairwiseSquaredDistances(P);
    for (const lambda of [0, 0.5, 1, 4]) {
      const g = labelledAdaptiveGraph(P, codes, lambda, { m });
      for (let i = 0; i < n; i++) {
        const d = (j: number) => D.get(i, j) + lambda * (codes[i] === codes[j] ? 0 : 2);
        const lit = literalRow(d, n, i, m);
        expect(g.gamma[i]).toBeCloseTo(lit.gamma, 10);
        const ours = rowOf(g.S, i);
        for (const [j, v] of lit.row) {
          expect(Math.abs((ours.get(j) ?? 0) - v)).toBeLessThanOrEqual(1e-13);
        }
      }
    }
  });

  it("the initial graph is the graph of the raw distances, and m defaults to min(15, n - 2)", () => {
    const rng = new Random(4);
    const X = normalMatrix(rng, 25, 6, 1);
    const g = initialAdaptiveGraph(X);
    expect(g.m).toBe(defaultNeighbourCount(25));
    expect(g.m).toBe(15);
    expect(defaultNeighbourCount(10)).toBe(8);
    const D = pairwiseSquaredDistances(X);
    for (let i = 0; i < 25; i++) {
      const lit = literalRow((j) => D.get(i, j), 25, i, 15);
      const ours = rowOf(g.S, i);
      for (const [j, v] of lit.row) expect(Math.abs((ours.get(j) ?? 0) - v)).toBeLessThan(1e-14);
    }
  });

  it("the embedded graph uses ||f_i - f_j||^2 as the second term", () => {
    const rng = new Random(5);
    const P = normalMatrix(rng, 18, 3, 1);
    const F = normalMatrix(rng, 18, 2, 0.3);
    const D = pairwiseSquaredDistances(P);
    const g = embeddedAdaptiveGraph(P, F, 3, { m: 4 });
    for (let i = 0; i < 18; i++) {
      const lit = literalRow((j) => D.get(i, j) + 3 * directSquaredDistance(F, i, F, j), 18, i, 4);
      const ours = rowOf(g.S, i);
      for (const [j, v] of lit.row) expect(Math.abs((ours.get(j) ?? 0) - v)).toBeLessThan(1e-12);
    }
  });

  it("a row whose m + 1 nearest are all equidistant gets the formula's 0 / eps = 0 weights", () => {
    const X = new Matrix(4, 1);
    X.data.set([0, 1, 1, 1]);
    // Row 0's three candidates all lie at distance 1: d_(m+1) - d_ij = 0.
    const g = initialAdaptiveGraph(X, { m: 2 });
    expect(g.S.rowLength(0)).toBe(0);
    expect(g.gamma[0]).toBe(0);
  });
});

describe("adaptive-neighbour rows: precision at huge lambda", () => {
  // Integer data, a class of one and classes smaller than m + 1, so that rows need
  // other-class neighbours whose d = p + lambda * 2 share their leading bits.
  const rng = new Random(6);
  const n = 16;
  const P = integerMatrix(rng, n, 3, 30);
  const codes = Int32Array.from([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 3, 4, 4]);
  const m = 5;
  const p = (i: number) => (j: number) => directSquaredDistance(P, i, P, j);
  const l = (i: number) => (j: number) => (codes[i] === codes[j] ? 0 : 2);

  for (const e of [60, 96]) {
    it(`the split form is exact at lambda = 2^${e}`, () => {
      const lambda = 2 ** e;
      const g = labelledAdaptiveGraph(P, codes, lambda, { m });
      for (let i = 0; i < n; i++) {
        const exact = exactRow(p(i), l(i), 2n ** BigInt(e), n, i, m);
        const ours = rowOf(g.S, i);
        let sum = 0;
        for (const [j, v] of exact) {
          expect(Math.abs((ours.get(j) ?? 0) - v)).toBeLessThanOrEqual(4 * EPS * v);
          sum += ours.get(j) ?? 0;
        }
        expect(Math.abs(sum - 1)).toBeLessThanOrEqual(8 * EPS + EPS / (2 * g.gamma[i]));
      }
    });
  }

  it("the literal form m d_(m+1) - sum d fails at lambda = 2^60 where the split form holds", () => {
    const lambda = 2 ** 60;
    const g = labelledAdaptiveGraph(P, codes, lambda, { m });
    let worstLiteral = 0;
    let worstOurs = 0;
    for (let i = 0; i < n; i++) {
      const exact = exactRow(p(i), l(i), 2n ** 60n, n, i, m);
      const lit = literalRow((j) => p(i)(j) + lambda * l(i)(j), n, i, m).row;
      const ours = rowOf(g.S, i);
      for (const [j, v] of exact) {
        worstLiteral = Math.max(worstLiteral, Math.abs((lit.get(j) ?? 0) - v));
        worstOurs = Math.max(worstOurs, Math.abs((ours.get(j) ?? 0) - v));
      }
    }
    expect(worstOurs).toBeLessThan(1e-15);
    expect(worstLiteral).toBeGreaterThan(0.1);
  });
});

describe("adaptive-neighbour rows: argument checks", () => {
  const P = normalMatrix(new Random(7), 6, 2);
  const codes = Int32Array.from([0, 0, 1, 1, 2, 2]);

  it("names m, lambda, eps, strategy and the matrices", () => {
    expect(() => labelledAdaptiveGraph(P, codes, 1, { m: 5 })).toThrow(ValidationError);
    expect(() => labelledAdaptiveGraph(P, codes, 1, { m: 5 })).toThrow(
      /'m' parameter of labelledAdaptiveGraph must be an integer in \[1, 4\].*Got 5/,
    );
    expect(() => labelledAdaptiveGraph(P, codes, -1)).toThrow(/'lambda'.*Got -1/);
    expect(() => labelledAdaptiveGraph(P, codes, Number.POSITIVE_INFINITY)).toThrow(
      /'lambda'.*Got Infinity/,
    );
    expect(() => labelledAdaptiveGraph(P, codes, Number.MAX_VALUE)).toThrow(/'lambda'/);
    expect(() => labelledAdaptiveGraph(P, codes, 1, { eps: -1 })).toThrow(/'eps'.*Got -1/);
    expect(() =>
      labelledAdaptiveGraph(P, codes, 1, { strategy: "fast" as unknown as "auto" }),
    ).toThrow(/'strategy'.*"auto", "blocks", "tree", "clusters", "full". Got "fast"/);
    const bad = P.clone();
    bad.data[5] = Number.NaN;
    expect(() => initialAdaptiveGraph(bad)).toThrow(/'X'.*finite.*row 2, column 1/);
    expect(() => initialAdaptiveGraph(new Matrix(2, 3))).toThrow(/at least 3 rows.*Got 2/);
    expect(() => embeddedAdaptiveGraph(P, new Matrix(5, 2), 1)).toThrow(
      /'F'.*one row per row of P \(6\). Got 5/,
    );
  });

  it("adaptiveNeighbourRows needs m + 1 candidates per row", () => {
    const g = initialAdaptiveGraph(P, { m: 2 });
    expect(() => adaptiveNeighbourRows(g.neighbours, 3)).toThrow(/'m'.*\[1, 2\].*Got 3/);
  });
});
