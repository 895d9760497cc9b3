/**
 * The class bounds that settle the rank control's "test" without a solve of L
 * (src/graph/rankBounds.ts): they bound the exact sums, and whenever they prove
 * "test", the exact eigenvalues give "test" too. A fit that uses them ends with the
 * exact Laplacian eigenvalues of its last graph.
 */
import fc from "fast-check";
import { readDataFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { makeSplit } from "#internal/data/splits.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import { rankControlEigenvalues } from "#internal/graph/laplacianSpectrum.js";
import {
  classRankBounds,
  MAX_CLASS_BLOCK,
  pathLowerBoundFirst,
  provenRankDecision,
  provesTest,
} from "#internal/graph/rankBounds.js";
import { rankControl } from "#internal/graph/rankControl.js";
import { maxAbs } from "#internal/linalg/basic.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { CsrMatrix } from "#internal/linalg/sparse.js";
import type { PcanDetails } from "#internal/methods/pcanFamily.js";
import { createMethod } from "#internal/methods/registry.js";
import type { QLoopDetails } from "#internal/methods/sdspcaFamily.js";

/** ORL's training rows of the protocol's split of repeat 0: 80 samples of 40 classes, some with one sample. */
async function orlTraining(): Promise<{ X: Matrix; y: number[] }> {
  const ds = await readDataFile("ORL_32x32.mat");
  const train = Array.from(makeSplit(ds.X.rows, { seed: 0, dataset: "ORL", repeat: 0 }).train);
  return { X: ds.X.selectRows(train), y: train.map((i) => ds.y[i] as number) };
}

/** Laplacian of a symmetric weight matrix given densely. */
function laplacianOf(W: Matrix): CsrMatrix {
  return graphLaplacian(CsrMatrix.fromDense(W));
}

function exactSums(
  L: CsrMatrix,
  c: number,
): { first: number; plusOne: number; values: Float64Array } {
  const values = symmetricEigen(L.toDense(), { vectors: false }).values;
  let first = 0;
  for (let i = 0; i < c; i++) first += values[i];
  return { first, plusOne: first + values[c], values };
}

/**
 * A labelled graph: within-class edges of weight in [0.05, 1] with probability 0.9,
 * cross-class edges of weight in [0, 1] times 10^-crossScale with probability 0.4.
 */
const labelledGraph = fc
  .record({
    c: fc.integer({ min: 2, max: 4 }),
    extra: fc.integer({ min: 0, max: 16 }),
    crossScale: fc.integer({ min: 0, max: 9 }),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
  })
  .map(({ c, extra, crossScale, seed }) => {
    let state = seed;
    const next = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 2 ** 32;
    };
    const n = c + extra + 1;
    // Every class gets one row first, the rest at random.
    const codes = Int32Array.from({ length: n }, (_, i) => (i < c ? i : Math.floor(next() * c)));
    const W = new Matrix(n, n);
    for (let i = 0; i < n; i++) {
      for (let j = i + 1; j < n; j++) {
        const same = codes[i] === codes[j];
        const present = next() < (same ? 0.9 : 0.4);
        const w = !present ? 0 : same ? 0.05 + 0.95 * next() : next() * 10 ** -crossScale;
        W.data[i * n + j] = w;
        W.data[j * n + i] = w;
      }
    }
    return { c, codes, L: laplacianOf(W) };
  });

describe("classRankBounds", () => {
  it("bounds the exact sums of the c and c + 1 smallest eigenvalues", () => {
    fc.assert(
      fc.property(labelledGraph, ({ c, codes, L }) => {
        const bounds = classRankBounds(L, codes, c);
        expect(bounds).not.toBeNull();
        const exact = exactSums(L, c);
        const slack = 1e-12 * Math.max(1, maxAbs(L.diagonal()));
        expect(bounds?.upperFirst).toBeGreaterThanOrEqual(exact.first - slack);
        expect(bounds?.lowerFirstPlusOne).toBeLessThanOrEqual(exact.plusOne + slack);
      }),
      { numRuns: 200 },
    );
  });

  it('proves "test" only where the exact eigenvalues give "test"', () => {
    let proven = 0;
    fc.assert(
      fc.property(
        labelledGraph,
        fc.double({ min: -9, max: -1, noNaN: true }),
        ({ c, codes, L }, logTol) => {
          const tol = 10 ** logTol;
          const bounds = classRankBounds(L, codes, c);
          if (!provesTest(bounds, tol, L.rows, maxAbs(L.diagonal()))) return;
          proven++;
          const exact = exactSums(L, c);
          const action = rankControl({ eigenvalues: exact.values, clusters: c, tol, lambda: 1 });
          expect(action.action).toBe("test");
        },
      ),
      // A fixed seed: the count below must not depend on the draw.
      { numRuns: 400, seed: 20261126 },
    );
    // The property must have been exercised, not passed vacuously.
    expect(proven).toBeGreaterThan(20);
  });

  it("gives no lower bound when a class is split within itself", () => {
    // Classes {0, 1} and {2, 3}; rows 2 and 3 share no edge, so L_w has three zeros.
    const W = Matrix.fromRows([
      [0, 1, 1e-9, 0],
      [1, 0, 0, 1e-9],
      [1e-9, 0, 0, 0],
      [0, 1e-9, 0, 0],
    ]);
    const L = laplacianOf(W);
    const bounds = classRankBounds(L, Int32Array.from([0, 0, 1, 1]), 2);
    expect(bounds?.lowerFirstPlusOne).toBeLessThan(1e-15);
    expect(provesTest(bounds, 1e-3, 4, 1)).toBe(false);
  });

  it("declines classes larger than MAX_CLASS_BLOCK", () => {
    const n = MAX_CLASS_BLOCK + 2;
    // A path: one connected graph, one class of n - 1 rows.
    const rows = Array.from({ length: n }, (_, i) =>
      i + 1 < n ? { indices: [i + 1], values: [1] } : { indices: [], values: [] },
    );
    const S = symmetrizeGraph(CsrMatrix.fromRows(n, n, rows));
    const codes = Int32Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 0));
    expect(classRankBounds(graphLaplacian(S), codes, 2)).toBeNull();
    expect(provesTest(null, 1, n, 1)).toBe(false);
  });
});

describe("pathLowerBoundFirst", () => {
  it("never exceeds the exact sum of the c smallest eigenvalues", () => {
    fc.assert(
      fc.property(labelledGraph, ({ c, L }) => {
        const exact = exactSums(L, c);
        const bound = pathLowerBoundFirst(L, c);
        // The dense solve's zero eigenvalues come out as +-(a few eps) times L's largest
        // degree (-1.3e-15 for an isolated node beside a 4-node component): the same
        // slack as for classRankBounds above.
        const slack = 1e-12 * Math.max(1, maxAbs(L.diagonal()));
        expect(bound).toBeGreaterThanOrEqual(0);
        expect(bound).toBeLessThanOrEqual(exact.first * (1 + 1e-12) + slack);
      }),
      { numRuns: 300 },
    );
  });

  it("on two nodes joined by w: 1 / (0 + 1/w) = w <= 2w, the exact eigenvalue", () => {
    const w = 0.3;
    const L = laplacianOf(
      Matrix.fromRows([
        [0, w],
        [w, 0],
      ]),
    );
    expect(pathLowerBoundFirst(L, 2)).toBeCloseTo(w, 15);
    expect(exactSums(L, 2).first).toBeCloseTo(2 * w, 14);
  });

  it("gives 0 when the graph has c or more components", () => {
    const L = laplacianOf(
      Matrix.fromRows([
        [0, 1, 0, 0],
        [1, 0, 0, 0],
        [0, 0, 0, 1],
        [0, 0, 1, 0],
      ]),
    );
    expect(pathLowerBoundFirst(L, 2)).toBe(0);
  });
});

describe("provenRankDecision", () => {
  it('proves "double" or "test" only where the exact eigenvalues give the same', () => {
    const proven = { double: 0, test: 0 };
    fc.assert(
      fc.property(
        labelledGraph,
        fc.double({ min: -9, max: -1, noNaN: true }),
        fc.constantFrom("double" as const, "test" as const),
        ({ c, codes, L }, logTol, previous) => {
          const tol = 10 ** logTol;
          const decision = provenRankDecision(L, codes, c, tol, previous);
          if (decision === null) return;
          proven[decision as "double" | "test"]++;
          const exact = exactSums(L, c);
          expect(
            rankControl({ eigenvalues: exact.values, clusters: c, tol, lambda: 1 }).action,
          ).toBe(decision);
        },
      ),
      { numRuns: 600, seed: 20261126 },
    );
    expect(proven.double).toBeGreaterThan(20);
    expect(proven.test).toBeGreaterThan(20);
  });

  it("proves nothing without a previous decision or after a halving", () => {
    const L = laplacianOf(
      Matrix.fromRows([
        [0, 1],
        [1, 0],
      ]),
    );
    const codes = Int32Array.from([0, 1]);
    expect(provenRankDecision(L, codes, 2, 1e-3, null)).toBeNull();
    expect(provenRankDecision(L, codes, 2, 1e-3, "halve")).toBeNull();
    expect(provenRankDecision(L, codes, 2, 1e-3, "double")).toBe("double");
  });
});

/**
 * The fit settled some rank controls by bounds, and recorded the exact eigenvalues
 * (rankControlEigenvalues, c of them) of its last graph's Laplacian.
 */
function expectExactLastEigenvalues(model: ReturnType<typeof createMethod>, c: number): void {
  const details = model.fitInfo.details as QLoopDetails | PcanDetails;
  expect(details.rankControlsByBounds).toBeGreaterThan(0);
  const L = graphLaplacian(symmetrizeGraph(model.artifacts.S as CsrMatrix));
  expect(details.laplacianEigenvalues).toEqual(Array.from(rankControlEigenvalues(L, c, 1e-3)));
}

describe("SDSPCAAN with rank controls settled by bounds", () => {
  it("at the lambda cap (ORL: singleton classes) ends with the exact eigenvalues of its last graph", async () => {
    const { X, y } = await orlTraining();
    const model = createMethod("sdspcaan", { k: 40 }).fit(X, y);
    expect(model.fitInfo.stopReason).toBe("lambda-cap");
    expectExactLastEigenvalues(model, new Set(y).size);
  });

  it("ends with the exact Laplacian eigenvalues of its last graph", async () => {
    const ds = await readDataFile("COIL20.mat");
    const train = Array.from({ length: 144 }, (_, i) => i * 10);
    const X = ds.X.selectRows(train);
    const y = train.map((i) => ds.y[i] as number);
    const model = createMethod("sdspcaan", { k: 10 }).fit(X, y);
    expect(model.fitInfo.stopReason).toBe("converged");
    expectExactLastEigenvalues(model, 20);
  });

  it("SPCAN (supervised PCAN) settles its doublings by bounds and records the exact eigenvalues", async () => {
    const { X, y } = await orlTraining();
    const model = createMethod("spcan", { k: 50 }).fit(X, y);
    expect(model.fitInfo.stopReason).toBe("lambda-cap");
    expectExactLastEigenvalues(model, new Set(y).size);
  });
});
