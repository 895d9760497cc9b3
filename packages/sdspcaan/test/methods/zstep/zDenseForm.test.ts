/**
 * The dense Z solver's fused formation (methods/zstep/zDenseForm.ts) against the
 * general entry it replaces (`trailingEigenpairs` on Z formed whole): the same bits,
 * on random problems and in the dense Z solver, whose Z is formed here from its terms.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { initialAdaptiveGraph } from "#internal/graph/adaptive.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import { trailingEigenpairs } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import { TrainingData } from "#internal/methods/training.js";
import { trailingEigenpairsOfZ } from "#internal/methods/zstep/zDenseForm.js";
import { chooseZSolver } from "#internal/methods/zstep/zSolvers.js";
import { randomSymmetric } from "../../helpers/matrices.js";
import { inputs } from "../../helpers/properties.js";
import { fourGaussianClasses } from "../../helpers/qLoop.js";

/** Z formed as the general path forms it. */
function formed(Z0: Matrix, beta: number, Dd: Float64Array, delta: number, M: Matrix | null) {
  const n = Z0.rows;
  const Z = Z0.clone();
  for (let i = 0; i < n; i++) Z.data[i * n + i] += beta * Dd[i];
  if (M !== null && delta !== 0) {
    for (let p = 0; p < Z.data.length; p++) Z.data[p] += delta * M.data[p];
  }
  return Z;
}

describe("trailingEigenpairsOfZ", () => {
  it("gives the general entry's eigenpairs bit for bit (random problems, any scale)", () => {
    fc.assert(
      fc.property(
        inputs({ seed: [0, 1e6], n: [2, 40], scaleExp: [-300, 300], withGraph: fc.boolean() }),
        ({ seed, n, scaleExp, withGraph }) => {
          const rng = new Random(seed);
          const scale = 2 ** scaleExp * (1 + rng.uniform());
          const Z0 = randomSymmetric(n, rng, scale);
          const M = withGraph ? randomSymmetric(n, rng, scale) : null;
          const Dd = Float64Array.from({ length: n }, () => rng.uniform() + 0.1);
          const beta = scale * rng.uniform();
          const delta = rng.uniform();
          const k = 1 + Math.floor(rng.uniform() * n);
          const fused = trailingEigenpairsOfZ(new Float64Array(n * n), Z0, beta, Dd, delta, M, k);
          const general = trailingEigenpairs(formed(Z0, beta, Dd, delta, M), k);
          expect(fused).not.toBeNull();
          expect(Array.from(fused?.values ?? [])).toEqual(Array.from(general.values));
          expect(Array.from(fused?.vectors.data ?? [])).toEqual(Array.from(general.vectors.data));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("returns eigenpairs of Z: orthonormal vectors with small residuals", () => {
    const rng = new Random(3);
    const n = 50;
    const Z0 = randomSymmetric(n, rng, 1e8);
    const M = randomSymmetric(n, rng, 1e7);
    const Dd = Float64Array.from({ length: n }, () => rng.uniform());
    const out = trailingEigenpairsOfZ(new Float64Array(n * n), Z0, 1e6, Dd, 0.5, M, 12);
    expect(out).not.toBeNull();
    const { values, vectors } = out as NonNullable<typeof out>;
    const Z = formed(Z0, 1e6, Dd, 0.5, M);
    const VtV = multiplyAtB(vectors, vectors);
    for (let i = 0; i < 12; i++) {
      for (let j = 0; j < 12; j++) {
        expect(Math.abs(VtV.data[i * 12 + j] - (i === j ? 1 : 0))).toBeLessThan(1e-13);
      }
    }
    let norm = 0;
    for (const v of Z.data) norm = Math.max(norm, Math.abs(v));
    for (let j = 0; j < 12; j++) {
      let r = 0;
      for (let i = 0; i < n; i++) {
        let s = -values[j] * vectors.data[i * 12 + j];
        for (let t = 0; t < n; t++) s += Z.data[i * n + t] * vectors.data[t * 12 + j];
        r = Math.max(r, Math.abs(s));
      }
      expect(r).toBeLessThan(1e-12 * n * norm);
    }
    for (let j = 1; j < 12; j++) expect(values[j]).toBeGreaterThanOrEqual(values[j - 1]);
  });

  it("leaves a zero or non-finite Z to the general entry", () => {
    const n = 5;
    const zero = new Matrix(n, n);
    const ones = new Float64Array(n).fill(1);
    expect(trailingEigenpairsOfZ(new Float64Array(n * n), zero, 0, ones, 0, null, 2)).toBeNull();
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const Z0 = Matrix.identity(n, n);
      Z0.data[n + 2] = bad;
      Z0.data[2 * n + 1] = bad;
      expect(trailingEigenpairsOfZ(new Float64Array(n * n), Z0, 1, ones, 0, null, 2)).toBeNull();
    }
  });
});

describe("the dense Z solver", () => {
  // Z's terms as the solver is given them: G = X X^T of the centred rows (the training
  // data's own, `gram`), Y Y^T from the labels, D, and G L G for a graph (`graphTerm`).
  const { X, y } = fourGaussianClasses(5, 90);
  const data = TrainingData.prepare(X, Array.from(y));
  const { codes, classes } = data.requireLabels("the test");
  const alpha = 37.5;
  const k = 6;
  const rng = new Random(11);
  const Ssym = symmetrizeGraph(initialAdaptiveGraph(data.X, { m: 6 }).S);
  const L = graphLaplacian(Ssym);

  /** Z = -G - alpha Y Y^T + beta D + delta G L G, formed here term by term. */
  function zOf(beta: number, Dd: Float64Array, delta: number, M: Matrix | null): Matrix {
    const G = data.gram();
    const n = G.rows;
    const Z0 = new Matrix(n, n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const g = -G.data[i * n + j];
        Z0.data[i * n + j] = codes[i] === codes[j] ? g - alpha : g;
      }
    }
    return formed(Z0, beta, Dd, delta, M);
  }

  it("gives the eigenpairs of Z formed whole, bit for bit, with and without the graph term", () => {
    const solver = chooseZSolver({
      choice: "dense",
      data,
      alpha,
      codes,
      classes: classes.length,
      k,
      seed: 0,
    });
    expect(solver.kind).toBe("dense");
    const graph = solver.graphTerm(Ssym, L);
    // Several outer iterations' weights, one solver (its workspace is reused).
    for (let t = 0; t < 4; t++) {
      const Dd = Float64Array.from({ length: data.n }, () => 0.05 + rng.uniform());
      const beta = 10 * rng.uniform();
      const delta = t === 0 ? 0 : rng.uniform();
      const withGraph = t % 2 === 1 ? graph : null;
      const got = solver.solve(beta, Dd, delta, withGraph);
      const expected = trailingEigenpairs(
        zOf(beta, Dd, delta, withGraph === null ? null : (withGraph.M as Matrix)),
        k,
      );
      expect(Array.from(got.values)).toEqual(Array.from(expected.values));
      expect(Array.from(got.vectors.data)).toEqual(Array.from(expected.vectors.data));
    }
    solver.release();
  });
});
