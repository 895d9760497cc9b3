/**
 * inverseTransform on generated data (fast-check): transform undoes it, exactly for
 * orthonormal components and as the least-squares inverse otherwise; PCA's
 * reconstruction error falls as k grows and vanishes at full rank; whitening and the
 * pipeline's standardisation are undone.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { multiply } from "#internal/linalg/kernels/gemm.js";
import { choleskyQR, innerProducts } from "#internal/linalg/orthogonalize.js";
import { hasOrthonormalColumns, inverseBasis } from "#internal/methods/inverseBasis.js";
import { JPCDA } from "#internal/methods/jpcda.js";
import { LDA } from "#internal/methods/lda.js";
import { PCA } from "#internal/methods/pca.js";
import { Pipeline } from "#internal/methods/pipeline.js";
import { createMethod, methodNames } from "#internal/methods/registry.js";

/** n x d Gaussian rows with columns of different scales and offsets; labels in c classes. */
function data(seed: number, n: number, d: number, c = 3): { X: Matrix; y: number[] } {
  const rng = new Random(seed);
  const X = new Matrix(n, d);
  const y = Array.from({ length: n }, (_, i) => i % c);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) X.data[i * d + j] = (1 + j) * rng.normal() + 3 * j + y[i] * (j % 2);
  }
  return { X, y };
}

function identity(k: number): Matrix {
  const I = new Matrix(k, k);
  for (let j = 0; j < k; j++) I.data[j * k + j] = 1;
  return I;
}

function randomScores(seed: number, m: number, k: number): Matrix {
  const rng = new Random(seed);
  const Z = new Matrix(m, k);
  for (let t = 0; t < Z.data.length; t++) Z.data[t] = 5 * rng.normal();
  return Z;
}

/** max |A - B| / max(1, max |B|). */
function difference(A: Matrix, B: Matrix): number {
  let worst = 0;
  let scale = 1;
  for (let t = 0; t < B.data.length; t++) {
    worst = Math.max(worst, Math.abs(A.data[t] - B.data[t]));
    scale = Math.max(scale, Math.abs(B.data[t]));
  }
  return worst / scale;
}

function squaredError(A: Matrix, B: Matrix): number {
  let sum = 0;
  for (let t = 0; t < A.data.length; t++) sum += (A.data[t] - B.data[t]) ** 2;
  return sum;
}

const seeds = fc.integer({ min: 0, max: 1_000_000 });

describe("inverseTransform", () => {
  it("is undone by transform for PCA (orthonormal W) and whitened PCA", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 2, max: 12 }), fc.boolean(), (seed, d, whiten) => {
        const { X } = data(seed, 3 * d, d);
        const k = 1 + (seed % d);
        const model = new PCA({ k, whiten }).fit(X);
        expect(hasOrthonormalColumns(model.components)).toBe(true);
        const Z = randomScores(seed + 1, 5, k);
        expect(difference(model.transform(model.inverseTransform(Z)), Z)).toBeLessThan(1e-10);
      }),
      { numRuns: 40 },
    );
  });

  it("is the least-squares inverse for LDA (W not orthonormal): transform gives Z back", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 3, max: 10 }), (seed, d) => {
        const { X, y } = data(seed, 6 * d, d, 4);
        const model = new LDA().fit(X, y);
        expect(hasOrthonormalColumns(model.components)).toBe(false);
        const Z = randomScores(seed + 2, 5, model.nComponents);
        const back = model.inverseTransform(Z);
        expect(difference(model.transform(back), Z)).toBeLessThan(1e-9);
        // The least-norm solution: B = W (W^T W)^-1, so W^T B = I and B lies in span W.
        const W = model.components;
        const B = inverseBasis(W);
        expect(difference(innerProducts(W, B), identity(W.cols))).toBeLessThan(1e-10);
        const Q = W.clone();
        choleskyQR(Q);
        choleskyQR(Q);
        const inSpan = multiply(Q, innerProducts(Q, B));
        expect(difference(inSpan, B)).toBeLessThan(1e-10);
      }),
      { numRuns: 30 },
    );
  });

  it("maps back what a rank-deficient W reaches (JPCDA, k < c): NumPy's pinv", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 4, max: 10 }), (seed, d) => {
        const { X, y } = data(seed, 6 * d, d, 4);
        const model = new JPCDA({ k: 2 }).fit(X, y);
        expect(model.nComponents).toBe(4);
        const Z = model.transform(X);
        expect(difference(model.transform(model.inverseTransform(Z)), Z)).toBeLessThan(1e-9);
      }),
      { numRuns: 20 },
    );
  });

  it("reconstructs PCA's training data better as k grows, exactly at full rank", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 2, max: 10 }), (seed, d) => {
        const { X } = data(seed, 2 * d + 3, d);
        let previous = Number.POSITIVE_INFINITY;
        for (let k = 1; k <= d; k++) {
          const model = new PCA({ k }).fit(X);
          const error = squaredError(model.inverseTransform(model.transform(X)), X);
          expect(error).toBeLessThanOrEqual(previous * (1 + 1e-12) + 1e-18);
          previous = error;
        }
        const full = new PCA({ k: d }).fit(X);
        expect(difference(full.inverseTransform(full.transform(X)), X)).toBeLessThan(1e-12);
      }),
      { numRuns: 30 },
    );
  });

  it("undoes a pipeline's standardisation", () => {
    fc.assert(
      fc.property(seeds, fc.integer({ min: 2, max: 8 }), (seed, d) => {
        const { X, y } = data(seed, 4 * d, d);
        const pipeline = new Pipeline(new PCA({ k: d })).fit(X, y);
        expect(difference(pipeline.inverseTransform(pipeline.transform(X)), X)).toBeLessThan(1e-12);
      }),
      { numRuns: 20 },
    );
  });

  it("works on every registered method: transform(inverseTransform(Z)) = Z for projected Z", () => {
    const { X, y } = data(5, 60, 8, 3);
    for (const name of methodNames()) {
      const model = createMethod(name, { k: 2 }).fit(X, y);
      // Projected rows: a rank-deficient W (JPCDA) reaches only these.
      const Z = model.transform(data(6, 5, 8, 3).X);
      const error = difference(model.transform(model.inverseTransform(Z)), Z);
      expect({ name, close: error < 1e-9 }).toEqual({ name, close: true });
    }
  });

  it("refuses Z of the wrong width, naming it", () => {
    const { X } = data(1, 20, 5);
    const model = new PCA({ k: 2 }).fit(X);
    expect(() => model.inverseTransform([[1, 2, 3]])).toThrow(ValidationError);
    expect(() => model.inverseTransform([[1, 2, 3]])).toThrow(
      "Z has 3 columns, but PCA projects to 2 components (nComponents); give projected data, e.g. the output of transform.",
    );
  });
});
