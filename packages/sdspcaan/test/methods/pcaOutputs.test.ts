/**
 * PCA's scikit-learn outputs (singular values, explained variance and its ratio, k as
 * a variance fraction, whitening) and the inverse transform, against NumPy.
 * Fixture: test/fixtures/methods/pca_outputs.json (its "command" field says how it was
 * made; scripts/fixtures/pca_outputs.py).
 */
import { readFileSync } from "node:fs";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { SdspcaanError } from "#internal/core/errors.js";
import type { Matrix } from "#internal/core/matrix.js";
import { LDA } from "#internal/methods/lda.js";
import { PCA } from "#internal/methods/pca.js";
import { loadModel } from "#internal/methods/registry.js";

interface PCACase {
  case: string;
  k: number;
  X: number[][];
  y: number[];
  Xnew: number[][];
  singularValues: number[];
  explainedVariance: number[];
  explainedVarianceRatio: number[];
  totalVariance: number;
  kForFraction: Record<string, number>;
  Z: number[][];
  whitened: number[][];
  inverse: number[][];
}

const fixture = JSON.parse(readFileSync(fixtureFile("methods/pca_outputs.json"), "utf8")) as {
  cases: PCACase[];
  leastSquares: { W: number[][]; mean: number[]; Z: number[][]; inverse: number[][] };
};

/** max_j |a_j - b_j| / |b_j|. */
function relativeError(a: ArrayLike<number>, b: readonly number[]): number {
  expect(a.length).toBe(b.length);
  let worst = 0;
  for (let j = 0; j < b.length; j++)
    worst = Math.max(worst, Math.abs(a[j] - b[j]) / Math.abs(b[j]));
  return worst;
}

/** max |A - B| over max |B|, after flipping each column of A to B's sign (signs are a convention). */
function matrixError(A: Matrix, B: number[][], upToSign = false): number {
  expect([A.rows, A.cols]).toEqual([B.length, B[0].length]);
  let scale = 0;
  let worst = 0;
  for (let j = 0; j < A.cols; j++) {
    let dot = 0;
    for (let i = 0; i < A.rows; i++) dot += A.get(i, j) * B[i][j];
    const sign = upToSign && dot < 0 ? -1 : 1;
    for (let i = 0; i < A.rows; i++) {
      scale = Math.max(scale, Math.abs(B[i][j]));
      worst = Math.max(worst, Math.abs(sign * A.get(i, j) - B[i][j]));
    }
  }
  return worst / scale;
}

describe.each(fixture.cases.map((c) => [c.case, c] as const))("PCA against NumPy: %s", (_, c) => {
  const model = new PCA({ k: c.k }).fit(c.X);

  it("has NumPy's singular values, explained variance and ratio (1e-10 relative)", () => {
    expect(relativeError(model.singularValues, c.singularValues)).toBeLessThan(1e-10);
    expect(relativeError(model.explainedVariance, c.explainedVariance)).toBeLessThan(1e-10);
    expect(relativeError(model.explainedVarianceRatio, c.explainedVarianceRatio)).toBeLessThan(
      1e-10,
    );
    expect(
      relativeError([model.fitInfo.details.totalVariance ?? 0], [c.totalVariance]),
    ).toBeLessThan(1e-10);
  });

  it("keeps the fewest components whose variance ratios reach a fraction k", () => {
    for (const [fraction, k] of Object.entries(c.kForFraction)) {
      const byFraction = new PCA({ k: Number(fraction) }).fit(c.X);
      expect([fraction, byFraction.nComponents]).toEqual([fraction, k]);
      expect(byFraction.params.k).toBe(Number(fraction));
    }
  });

  it("projects, whitens and maps back as NumPy does", () => {
    expect(matrixError(model.transform(c.Xnew), c.Z, true)).toBeLessThan(1e-10);
    const whitened = new PCA({ k: c.k, whiten: true }).fit(c.X);
    expect(matrixError(whitened.transform(c.Xnew), c.whitened, true)).toBeLessThan(1e-10);
    expect(matrixError(model.inverseTransform(model.transform(c.Xnew)), c.inverse)).toBeLessThan(
      1e-10,
    );
    // Whitening is undone first: the same reconstruction.
    const back = whitened.inverseTransform(whitened.transform(c.Xnew));
    expect(matrixError(back, c.inverse)).toBeLessThan(1e-10);
  });

  it("saves the outputs and whiten in its model file", () => {
    const whitened = new PCA({ k: c.k, whiten: true }).fit(c.X);
    const json = JSON.parse(JSON.stringify(whitened.toJSON()));
    expect(json.params).toEqual({ k: c.k, whiten: true });
    const loaded = loadModel(json) as PCA;
    expect(Array.from(loaded.singularValues)).toEqual(Array.from(whitened.singularValues));
    expect(Array.from(loaded.explainedVarianceRatio)).toEqual(
      Array.from(whitened.explainedVarianceRatio),
    );
    expect(Array.from(loaded.transform(c.Xnew).data)).toEqual(
      Array.from(whitened.transform(c.Xnew).data),
    );
  });
});

describe("PCA's k and whiten, refused naming them", () => {
  it("k is an integer >= 1 or a fraction in (0, 1)", () => {
    expect(() => new PCA({ k: 1.5 })).toThrow(
      "The 'k' parameter of PCA must be an integer in [1, inf) or a fraction in (0, 1). Got 1.5 instead.",
    );
    const constant = [
      [1, 2],
      [1, 2],
      [1, 2],
    ];
    expect(() => new PCA({ k: 0.5 }).fit(constant)).toThrow(
      "The 'k' parameter of PCA is the fraction 0.5 of the training data's variance, but the centred training data have no variance (every column is constant).",
    );
  });

  it("whiten needs every component to carry variance", () => {
    const rankOne = [
      [1, 2, 3],
      [2, 4, 6],
      [3, 6, 9],
      [4, 8, 12],
    ];
    expect(() => new PCA({ k: 2, whiten: true }).fit(rankOne)).toThrow(
      "The 'whiten' option of PCA needs every component to carry variance, but k = 2 exceeds the numerical rank 1 of the centred training data; choose k <= 1.",
    );
  });
});

describe("inverseTransform of non-orthonormal components", () => {
  it("is NumPy's least-squares inverse Z pinv(W) + mean", () => {
    const { W, mean, Z, inverse } = fixture.leastSquares;
    const d = W.length;
    const k = W[0].length;
    // An LDA model with the fixture's W: 4 classes give k = 3 directions.
    const rows = Array.from({ length: 12 }, (_, i) =>
      Array.from(
        { length: d },
        (_, j) => Math.sin(i * 7 + j * 3) + (i % 4) * (j === i % d ? 3 : 0),
      ),
    );
    const json = JSON.parse(
      JSON.stringify(
        new LDA()
          .fit(
            rows,
            rows.map((_, i) => i % 4),
          )
          .toJSON(),
      ),
    );
    expect(json.components.cols).toBe(k);
    json.components.data = W.flat();
    json.mean = mean;
    const model = loadModel(json) as LDA;
    expect(matrixError(model.inverseTransform(Z), inverse)).toBeLessThan(1e-10);
    // And its projection is Z again.
    expect(matrixError(model.transform(model.inverseTransform(Z)), Z)).toBeLessThan(1e-10);
  });
});

describe("PCA models of model format version 3", () => {
  const c = fixture.cases[0];
  const model = new PCA({ k: c.k }).fit(c.X);
  const v3 = JSON.parse(JSON.stringify(model.toJSON()));
  v3.version = 3;
  delete v3.params.whiten;
  for (const name of ["explainedVarianceRatio", "singularValues", "totalVariance"]) {
    delete v3.fitInfo.details[name];
  }

  it("load with whiten = false and transform as before", () => {
    const loaded = loadModel(v3) as PCA;
    expect(loaded.params).toEqual({ k: c.k, whiten: false });
    expect(Array.from(loaded.explainedVariance)).toEqual(Array.from(model.explainedVariance));
    expect(Array.from(loaded.transform(c.Xnew).data)).toEqual(
      Array.from(model.transform(c.Xnew).data),
    );
  });

  it("say that they do not hold the outputs they never saved", () => {
    const loaded = loadModel(v3) as PCA;
    expect(() => loaded.singularValues).toThrow(SdspcaanError);
    expect(() => loaded.explainedVarianceRatio).toThrow(
      "This PCA model was loaded from a file of model format version 3 or older, which does not save explainedVarianceRatio; fit it again to get them.",
    );
  });

  it("still refuse a version 4 file without whiten", () => {
    const v4 = JSON.parse(JSON.stringify(model.toJSON()));
    delete v4.params.whiten;
    expect(() => loadModel(v4)).toThrow(/params\.whiten.* is missing/);
  });
});

describe("LDA's explained variance ratio", () => {
  it("is each direction's share of the Fisher ratios, summing to 1 over all c - 1", () => {
    const rows = fixture.cases[0].X;
    const y = fixture.cases[0].y;
    const full = new LDA().fit(rows, y);
    const mu = full.fitInfo.details.fisherRatios as number[];
    const total = mu.reduce((a, b) => a + b, 0);
    expect(Array.from(full.explainedVarianceRatio)).toEqual(mu.map((m) => m / total));
    const one = new LDA({ k: 1 }).fit(rows, y);
    expect(one.explainedVarianceRatio).toHaveLength(1);
    expect(one.explainedVarianceRatio[0]).toBe(full.explainedVarianceRatio[0]);
  });

  it("shares the whole ratio among the directions of the within-class null space", () => {
    // d > n: every direction separates the classes perfectly (mu infinite).
    const rows = Array.from({ length: 9 }, (_, i) =>
      Array.from({ length: 20 }, (_, j) => Math.cos(i * 1.3 + j * 0.7 + i * j * 0.1)),
    );
    const model = new LDA().fit(rows, [0, 1, 2, 0, 1, 2, 0, 1, 2]);
    expect(model.fitInfo.details.nullSpaceDirections).toBe(2);
    expect(Array.from(model.explainedVarianceRatio)).toEqual([0.5, 0.5]);
  });
});
