/**
 * Rank controls settled from the last solved one (src/graph/rankBounds.ts,
 * `perturbedRankDecision`): the solve's bounds of S_c and S_(c+1) bracket the exact
 * sums, the difference norm bounds ||L - L0||_2, and every decision proven this way is
 * the one the exact eigenvalues of the new Laplacian give. An SDSPCAAN fit that uses
 * them takes the same steps as one that solves every rank control.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Random } from "../../src/core/rng.js";
import { graphLaplacian } from "../../src/graph/laplacian.js";
import { rankControlSpectrum } from "../../src/graph/laplacianSpectrum.js";
import { differenceNormBound, perturbedRankDecision } from "../../src/graph/rankBounds.js";
import { DEFAULT_LAMBDA_CAP, rankControl } from "../../src/graph/rankControl.js";
import { symmetricEigen } from "../../src/linalg/eigen/symmetricEigen.js";
import { Matrix } from "../../src/linalg/matrix.js";
import { CsrMatrix } from "../../src/linalg/sparse.js";
import { FitContext } from "../../src/methods/estimator.js";
import { fitQLoop, type QLoopDetails, qLoopSettings } from "../../src/methods/sdspcaFamily.js";
import { TrainingData } from "../../src/methods/training.js";

/**
 * Weights of a labelled graph (dense, symmetric): within-class edges of weight in
 * [0.05, 1] with probability 0.7, cross-class ones of weight up to 10^-crossScale with
 * probability 0.3.
 */
function weights(c: number, n: number, crossScale: number, rng: Random) {
  const codes = Int32Array.from({ length: n }, (_, i) => (i < c ? i : rng.integer(c)));
  const W = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const same = codes[i] === codes[j];
      const present = rng.uniform() < (same ? 0.7 : 0.3);
      const w = !present
        ? 0
        : same
          ? 0.05 + 0.95 * rng.uniform()
          : rng.uniform() * 10 ** -crossScale;
      W.data[i * n + j] = w;
      W.data[j * n + i] = w;
    }
  }
  return { codes, W };
}

/** W with every weight moved by up to `scale` relative, and a few edges of weight `scale` added. */
function perturbed(W: Matrix, scale: number, rng: Random): Matrix {
  const n = W.rows;
  const out = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      let w = W.data[i * n + j] * (1 + scale * (2 * rng.uniform() - 1));
      if (w === 0 && rng.uniform() < 0.02) w = scale * rng.uniform();
      out.data[i * n + j] = w;
      out.data[j * n + i] = w;
    }
  }
  return out;
}

const laplacianOf = (W: Matrix) => graphLaplacian(CsrMatrix.fromDense(W));

function exactValues(L: CsrMatrix): Float64Array {
  return symmetricEigen(L.toDense(), { vectors: false }).values;
}

const graphCase = fc.record({
  c: fc.integer({ min: 2, max: 4 }),
  extra: fc.integer({ min: 0, max: 30 }),
  crossScale: fc.integer({ min: 0, max: 9 }),
  logTol: fc.double({ min: -7, max: -1, noNaN: true }),
  seed: fc.integer({ min: 1, max: 2 ** 30 }),
});

describe("differenceNormBound", () => {
  it("is the largest absolute row sum of A - B, over different sparsity patterns", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 25 }), fc.integer(), (n, seed) => {
        const rng = new Random(seed);
        const sparse = () => {
          const M = new Matrix(n, n);
          for (let t = 0; t < M.data.length; t++) {
            if (rng.uniform() < 0.3) M.data[t] = rng.normal();
          }
          return M;
        };
        const A = sparse();
        const B = sparse();
        let expected = 0;
        for (let i = 0; i < n; i++) {
          let s = 0;
          for (let j = 0; j < n; j++) s += Math.abs(A.data[i * n + j] - B.data[i * n + j]);
          expected = Math.max(expected, s);
        }
        const got = differenceNormBound(CsrMatrix.fromDense(A), CsrMatrix.fromDense(B));
        expect(got).not.toBeNull();
        expect(got as number).toBeGreaterThanOrEqual(expected);
        expect(got as number).toBeLessThanOrEqual(expected * (1 + 1e-12) + 1e-300);
      }),
      { numRuns: 100 },
    );
  });

  it("is null for matrices of different shapes", () => {
    expect(
      differenceNormBound(
        CsrMatrix.fromDense(new Matrix(2, 2)),
        CsrMatrix.fromDense(new Matrix(3, 3)),
      ),
    ).toBeNull();
  });
});

describe("rankControlSpectrum's bounds", () => {
  it("bracket the exact sums of the c and c + 1 smallest eigenvalues, dense and iterative", () => {
    fc.assert(
      fc.property(graphCase, ({ c, extra, crossScale, logTol, seed }) => {
        const { W } = weights(c, c + extra + 1, crossScale, new Random(seed));
        const L = laplacianOf(W);
        const exact = exactValues(L);
        let first = 0;
        for (let i = 0; i < c; i++) first += exact[i];
        const plusOne = first + exact[c];
        const slack = 1e-12 * Math.max(1, ...Array.from(L.diagonal()));
        for (const options of [{}, { denseLimit: 3, decisionMinSize: 1 }]) {
          const { bounds } = rankControlSpectrum(L, c, 10 ** logTol, undefined, options);
          expect(bounds).not.toBeNull();
          if (bounds === null) return;
          expect(bounds.lowerFirst).toBeLessThanOrEqual(first + slack);
          expect(bounds.upperFirst).toBeGreaterThanOrEqual(first - slack);
          expect(bounds.lowerFirstPlusOne).toBeLessThanOrEqual(plusOne + slack);
          expect(bounds.upperFirstPlusOne).toBeGreaterThanOrEqual(plusOne - slack);
        }
      }),
      { numRuns: 150, seed: 20261127 },
    );
  });
});

describe("perturbedRankDecision", () => {
  it("decides only what the exact eigenvalues of the moved graph decide", () => {
    const proven = { double: 0, test: 0, none: 0 };
    fc.assert(
      fc.property(
        graphCase,
        fc.integer({ min: 1, max: 10 }),
        ({ c, extra, crossScale, logTol, seed }, logScale) => {
          const rng = new Random(seed);
          const tol = 10 ** logTol;
          const { W } = weights(c, c + extra + 1, crossScale, rng);
          const L0 = laplacianOf(W);
          const { bounds } = rankControlSpectrum(L0, c, tol, undefined, {
            denseLimit: 3,
            decisionMinSize: 1,
          });
          if (bounds === null) return;
          const L = laplacianOf(perturbed(W, 10 ** -logScale, rng));
          const decision = perturbedRankDecision(L, { L: L0, bounds }, c, tol);
          if (decision === null) {
            proven.none++;
            return;
          }
          proven[decision as "double" | "test"]++;
          const action = rankControl({
            eigenvalues: exactValues(L),
            clusters: c,
            tol,
            lambda: 1,
          }).action;
          expect(action).toBe(decision);
        },
      ),
      { numRuns: 600, seed: 20261127 },
    );
    expect(proven.double).toBeGreaterThan(20);
    expect(proven.test).toBeGreaterThan(20);
    expect(proven.none).toBeGreaterThan(20);
  });

  it("settles nothing once the graph has moved by more than the margin", () => {
    // Two classes, each a path of weight 1: S_c = 0, S_(c+1) = 2 - 2 cos(pi / 3) = 1.
    const n = 6;
    const W = new Matrix(n, n);
    for (const [i, j] of [
      [0, 1],
      [1, 2],
      [3, 4],
      [4, 5],
    ]) {
      W.data[i * n + j] = 1;
      W.data[j * n + i] = 1;
    }
    const L0 = laplacianOf(W);
    const { bounds } = rankControlSpectrum(L0, 2, 0.5);
    if (bounds === null) throw new Error("no bounds");
    const solved = { L: L0, bounds };
    expect(perturbedRankDecision(L0, solved, 2, 0.5)).toBe("test");
    // A cross-class edge of weight 0.01: ||E|| = 0.02, S_c may reach 0.04 < 0.5.
    const near = W.clone();
    near.data[2 * n + 3] = near.data[3 * n + 2] = 0.01;
    expect(perturbedRankDecision(laplacianOf(near), solved, 2, 0.5)).toBe("test");
    // Weight 0.2: ||E|| = 0.4 could bring S_(c+1) below 0.5 and S_c above it.
    const far = W.clone();
    far.data[2 * n + 3] = far.data[3 * n + 2] = 0.2;
    expect(perturbedRankDecision(laplacianOf(far), solved, 2, 0.5)).toBeNull();
  });
});

describe("SDSPCAAN reusing its solved rank controls", () => {
  it("takes the same steps as a fit that solves every rank control", () => {
    // Four classes of 450 rows: above MAX_CLASS_BLOCK, so no class bounds.
    const rng = new Random(1);
    const n = 1800;
    const d = 30;
    const centres = Array.from({ length: 4 }, () =>
      Array.from({ length: d }, () => 4 * rng.normal()),
    );
    const X = new Matrix(n, d);
    const y = Array.from({ length: n }, (_, i) => i % 4);
    for (let i = 0; i < n; i++) {
      for (let l = 0; l < d; l++) X.data[i * d + l] = centres[y[i]][l] + (1 + l / d) * rng.normal();
    }
    const prepared = TrainingData.prepare(X, y);
    const fitWith = (reuseRankControl: boolean) =>
      fitQLoop(prepared, new FitContext("SDSPCAAN", 100, {}), {
        ...qLoopSettings(
          "SDSPCAAN",
          {
            k: 4,
            alpha: 1,
            beta: 1,
            delta: 1,
            tol: 1e-3,
            maxIter: 100,
            eps: 1e-8,
            stopRule: "aligned",
            solver: "lobpcg",
            seed: 0,
            lambdaCap: DEFAULT_LAMBDA_CAP,
          },
          { graph: "adaptive" },
        ),
        reuseRankControl,
      });
    const reused = fitWith(true);
    const solved = fitWith(false);
    const rd = reused.details as QLoopDetails;
    const sd = solved.details as QLoopDetails;
    expect(reused.iterations).toBe(solved.iterations);
    expect(reused.stopReason).toBe(solved.stopReason);
    expect(reused.lambdaTrace).toEqual(solved.lambdaTrace);
    expect(rd.iterateChange).toEqual(sd.iterateChange);
    expect(Array.from(reused.components.data)).toEqual(Array.from(solved.components.data));
    expect(rd.laplacianEigenvalues).toEqual(sd.laplacianEigenvalues);
    expect(reused.stopReason).toBe("converged");
    expect(rd.rankControlsByBounds).toBeGreaterThan(sd.rankControlsByBounds);
  });
});
