/**
 * The dense Z solver's fused formation (methods/zstep/zDenseForm.ts) against the
 * general entry it replaces (`trailingEigenpairs` on Z formed whole): the same bits,
 * on random problems and on whole fits of the three Q-loop methods (the general entry
 * chosen by the path `denseZ: "formed"`).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { trailingEigenpairs } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import { SDSPCA } from "#internal/methods/sdspca.js";
import { SDSPCAAN } from "#internal/methods/sdspcaan.js";
import { SDSPCALPP } from "#internal/methods/sdspcaLpp.js";
import { trailingEigenpairsOfZ } from "#internal/methods/zstep/zDenseForm.js";
import { fourGaussianClasses, withPaths } from "../../helpers/qLoop.js";

/** A symmetric n x n matrix with entries of magnitude ~scale, symmetric to the bit. */
function symmetric(rng: Random, n: number, scale: number): Matrix {
  const A = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const v = scale * rng.normal();
      A.data[i * n + j] = v;
      A.data[j * n + i] = v;
    }
  }
  return A;
}

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
        fc.integer({ min: 0, max: 1e6 }),
        fc.integer({ min: 2, max: 40 }),
        fc.integer({ min: -300, max: 300 }),
        fc.boolean(),
        (seed, n, scaleExp, withGraph) => {
          const rng = new Random(seed);
          const scale = 2 ** scaleExp * (1 + rng.uniform());
          const Z0 = symmetric(rng, n, scale);
          const M = withGraph ? symmetric(rng, n, scale) : null;
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
    const Z0 = symmetric(rng, n, 1e8);
    const M = symmetric(rng, n, 1e7);
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

describe("the dense Z solver with the fused formation", () => {
  const { X, y } = fourGaussianClasses(5, 90);
  const labels = Array.from(y);
  const cases = [
    ["SDSPCA", () => new SDSPCA({ k: 6, solver: "dense" })],
    ["SDSPCA-LPP", () => new SDSPCALPP({ k: 5, solver: "dense", m: 6 })],
    ["SDSPCAAN", () => new SDSPCAAN({ k: 7, solver: "dense", m: 6, maxIter: 40 })],
  ] as const;
  for (const [name, make] of cases) {
    it(`fits ${name} to the same bits as the general entry`, () => {
      const general = withPaths(make(), { denseZ: "formed" }).fit(X, labels);
      const fused = make().fit(X, labels);
      expect(Array.from(fused.components.data)).toEqual(Array.from(general.components.data));
      expect(fused.fitInfo.iterations).toBe(general.fitInfo.iterations);
      expect(fused.fitInfo.objective).toEqual(general.fitInfo.objective);
    });
  }
});
