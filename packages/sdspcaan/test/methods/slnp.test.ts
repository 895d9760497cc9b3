/**
 * SLNP: the within-class row weights (sum 1, non-negative, the simplex optimum), the
 * within-class graph, W^T X^T X W = I, the W-step against the dense generalised
 * problem, the canonical null-space basis (convergence when d >= n), the PCA variant,
 * clear errors, and behaviour on an MSRA25 training subset.
 */
import fc from "fast-check";
import { readDataFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { balancedAccuracy } from "#internal/classify/metrics.js";
import { nearestNeighbourPredict } from "#internal/classify/nearestNeighbour.js";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { preprocessSplit } from "#internal/data/preprocess.js";
import { makeSplit } from "#internal/data/splits.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import { centerColumns } from "#internal/linalg/basic.js";
import { generalizedSymmetricEigen } from "#internal/linalg/generalizedEigen.js";
import { multiply, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import { thinSvd } from "#internal/linalg/svd.js";
import { PCA } from "#internal/methods/pca.js";
import {
  SLNP,
  slnpRowWeights,
  withinClassGraph,
  withinClassWStep,
} from "#internal/methods/slnp.js";
import { orthogonalityError, subspaceDistance } from "../helpers/matrices.js";
import { orthonormalBasis } from "../helpers/subspace.js";

/** c Gaussian classes in d dimensions, n samples (class of sample i: i mod c). */
function gaussianClasses(seed: number, n: number, d: number, c: number, spread = 2) {
  const rng = new Random(seed);
  const centres = Array.from({ length: c }, () =>
    Array.from({ length: d }, () => spread * rng.normal()),
  );
  const X = new Matrix(n, d);
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const cls = i % c;
    for (let j = 0; j < d; j++) X.data[i * d + j] = centres[cls][j] + rng.normal();
    y.push(cls);
  }
  return { X, y };
}

function membersOf(y: number[], c: number): Int32Array[] {
  const lists: number[][] = Array.from({ length: c }, () => []);
  for (let i = 0; i < y.length; i++) lists[y[i]].push(i);
  return lists.map((l) => Int32Array.from(l));
}

/** Absolute slack for subnormal distances, where relative error bounds fail. */
const TINY = 1e-300;

describe("slnpRowWeights", () => {
  const sortedDistances = fc
    .array(fc.double({ min: 0, max: 1e6, noNaN: true }), { minLength: 2, maxLength: 20 })
    .map((a) => a.sort((x, y) => x - y));

  it("gives non-negative weights summing to 1 (property)", () => {
    fc.assert(
      fc.property(sortedDistances, (d) => {
        const s = new Float64Array(d.length);
        slnpRowWeights(d, s);
        let total = 0;
        for (const v of s) {
          expect(v).toBeGreaterThanOrEqual(0);
          expect(v).toBeLessThanOrEqual(1);
          total += v;
        }
        expect(Math.abs(total - 1)).toBeLessThanOrEqual(1e-12);
      }),
    );
  });

  it("is the simplex minimiser of sum s_j d_j + gamma ||s||^2: d_j + 2 gamma s_j is constant", () => {
    fc.assert(
      fc.property(sortedDistances, (d) => {
        const s = new Float64Array(d.length);
        const gamma = slnpRowWeights(d, s);
        const norm = Math.hypot(...d);
        if (norm === 0) return;
        expect(Math.abs(gamma - ((d.length - 1) / 2) * norm)).toBeLessThanOrEqual(
          1e-12 * gamma + TINY,
        );
        const first = d[0] + 2 * gamma * s[0];
        for (let j = 1; j < d.length; j++) {
          // Every weight is interior or exactly at 0 (then the KKT value may be larger).
          const value = d[j] + 2 * gamma * s[j];
          if (s[j] > 0)
            expect(Math.abs(value - first)).toBeLessThanOrEqual(1e-9 * (first + d[j]) + TINY);
          else expect(value).toBeGreaterThanOrEqual(first * (1 - 1e-9) - TINY);
        }
      }),
    );
  });

  it("matches the closed form 1/m + (mean d - d_j) / ((m - 1) ||d||)", () => {
    const d = [0.5, 1, 2, 4, 4.5];
    const s = new Float64Array(5);
    slnpRowWeights(d, s);
    const mean = d.reduce((a, b) => a + b) / 5;
    const norm = Math.hypot(...d);
    d.forEach((dj, j) => {
      expect(s[j]).toBeCloseTo(1 / 5 + (mean - dj) / (4 * norm), 14);
    });
  });

  it("gives the boundary case 0 to a lone far neighbour, and 1/m to equal or all-zero distances", () => {
    const s = new Float64Array(4);
    slnpRowWeights([0, 0, 0, 7], s);
    expect(Array.from(s)).toEqual([1 / 3, 1 / 3, 1 / 3, 0]);
    expect(slnpRowWeights([2, 2, 2, 2], s)).toBeCloseTo(6, 14);
    expect(Array.from(s)).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(slnpRowWeights([0, 0, 0, 0], s)).toBe(0);
    expect(Array.from(s)).toEqual([0.25, 0.25, 0.25, 0.25]);
  });
});

describe("withinClassGraph", () => {
  it("rejects m < 2 and class lists that miss or repeat a row", () => {
    const { X, y } = gaussianClasses(1, 12, 3, 2);
    const members = membersOf(y, 2);
    expect(() => withinClassGraph(X, members, 1)).toThrow(/integer in \[2, inf\)/);
    expect(() => withinClassGraph(X, [members[0]], 2)).toThrow(/Row 1 is in no class/);
    expect(() => withinClassGraph(X, [members[0], members[0]], 2)).toThrow(/Got row 0 twice/);
    expect(() => slnpRowWeights([3], new Float64Array(1))).toThrow(/m >= 2 distances/);
  });

  it("links each sample to its m nearest same-class samples, rows summing to 1", () => {
    const { X, y } = gaussianClasses(1, 30, 4, 3);
    const members = membersOf(y, 3);
    const m = 4;
    const { S } = withinClassGraph(X, members, m);
    for (let i = 0; i < 30; i++) {
      expect(S.rowLength(i)).toBe(m);
      let total = 0;
      const linked: number[] = [];
      for (let p = S.rowPtr[i]; p < S.rowPtr[i + 1]; p++) {
        const j = S.colIdx[p];
        expect(j).not.toBe(i);
        expect(y[j]).toBe(y[i]);
        expect(S.values[p]).toBeGreaterThanOrEqual(0);
        total += S.values[p];
        linked.push(j);
      }
      expect(Math.abs(total - 1)).toBeLessThanOrEqual(1e-14);
      // Brute force: the m nearest same-class rows by squared distance.
      const candidates = Array.from(members[y[i]]).filter((j) => j !== i);
      const dist = (j: number) => {
        let s = 0;
        for (let t = 0; t < 4; t++) s += (X.get(i, t) - X.get(j, t)) ** 2;
        return s;
      };
      const nearest = candidates.sort((a, b) => dist(a) - dist(b) || a - b).slice(0, m);
      expect(linked.sort((a, b) => a - b)).toEqual(nearest.sort((a, b) => a - b));
    }
  });
});

describe("SLNP fit", () => {
  it("ends with W^T X^T X W = I (d > n and n > d)", () => {
    for (const [n, d] of [
      [24, 40],
      [60, 8],
    ]) {
      const { X, y } = gaussianClasses(2, n, d, 4);
      const model = new SLNP({ k: 3 }).fit(X, y);
      const XW = multiply(centerColumns(X).centered, model.components);
      expect(orthogonalityError(XW)).toBeLessThanOrEqual(1e-10);
      expect(model.fitInfo.converged).toBe(true);
    }
  });

  it("uses m = min(15, smallest class - 2) by default", () => {
    const { X, y } = gaussianClasses(3, 40, 6, 4);
    expect(new SLNP({ k: 2 }).fit(X, y).fitInfo.details.m).toBe(8);
    const big = gaussianClasses(3, 80, 6, 2);
    expect(new SLNP({ k: 2 }).fit(big.X, big.y).fitInfo.details.m).toBe(15);
  });

  it("solves the W-step as the dense generalised problem (X^T L X, X^T X) when n > d", () => {
    const { X, y } = gaussianClasses(4, 60, 7, 3, 0.5);
    const Xc = centerColumns(X).centered;
    const { S } = withinClassGraph(Xc, membersOf(y, 3), 5);
    const Ssym = symmetrizeGraph(S);
    const step = withinClassWStep(Xc, Ssym, thinSvd(Xc), 3, 3);
    const LX = multiply(graphLaplacian(Ssym).toDense(), Xc);
    const dense = generalizedSymmetricEigen(multiplyAtB(Xc, LX), multiplyAtB(Xc, Xc), {
      smallest: 3,
    });
    for (let j = 0; j < 3; j++) {
      expect(Math.abs(step.values[j] - dense.values[j])).toBeLessThanOrEqual(
        1e-10 * dense.values[2],
      );
    }
    expect(step.nullDimension).toBe(0);
    expect(
      subspaceDistance(orthonormalBasis(dense.vectors), orthonormalBasis(step.W)),
    ).toBeLessThanOrEqual(1e-8);
  });

  it("reports Tr(W^T X^T L X W) per iteration through onProgress", () => {
    const { X, y } = gaussianClasses(5, 40, 10, 4);
    const seen: Array<number | null> = [];
    const model = new SLNP({ k: 4 }).fit(X, y, { onProgress: (p) => seen.push(p.objective) });
    const info = model.fitInfo;
    expect(seen).toEqual(info.objective);
    const eigenvalues = info.details.eigenvalues as number[];
    expect(info.objective.at(-1)).toBeCloseTo(
      eigenvalues.reduce((a, b) => a + b),
      12,
    );
  });

  it("converges under each stop rule and records the measured change", () => {
    const { X, y } = gaussianClasses(6, 48, 6, 4);
    for (const stopRule of ["aligned", "paper", "subspace"] as const) {
      const info = new SLNP({ k: 3, stopRule }).fit(X, y).fitInfo;
      const changes = info.details.changeTrace as number[];
      expect(changes.length).toBe(info.iterations);
      expect(info.stopReason).toBe("converged");
      expect(changes.at(-1)).toBeLessThan(1e-3);
      for (const c of changes.slice(0, -1)) expect(c).toBeGreaterThanOrEqual(1e-3);
    }
    const capped = new SLNP({ k: 3, tol: 1e-300, maxIter: 3 }).fit(X, y).fitInfo;
    expect(capped.iterations).toBe(3);
    expect(capped.stopReason).toBe("max-iterations");
  });
});

describe("SLNP null space (d >= n)", () => {
  // 5 classes of 6 samples in 50 dimensions: the data span holds the class indicators.
  const { X, y } = gaussianClasses(7, 30, 50, 5);

  it("collapses every class to a point for k <= c - 1 and converges at once", () => {
    const model = new SLNP({ k: 3 }).fit(X, y);
    const info = model.fitInfo;
    expect(info.details.nullSpaceDimension).toBeGreaterThanOrEqual(4);
    expect(info.iterations).toBe(1);
    expect(info.converged).toBe(true);
    const P = model.transform(X);
    for (let i = 0; i < 30; i++) {
      for (let j = 0; j < 3; j++) {
        expect(Math.abs(P.get(i, j) - P.get(y[i], j))).toBeLessThanOrEqual(1e-9);
      }
    }
  });

  it("orders the tied null directions by ||w|| (the null-space LDA rule)", () => {
    const W = new SLNP({ k: 4 }).fit(X, y).components;
    const norms = [0, 1, 2, 3].map((j) => Math.hypot(...W.column(j)));
    for (let j = 1; j < 4; j++) expect(norms[j]).toBeGreaterThanOrEqual(norms[j - 1]);
  });

  it("keeps converging for k above the null space", () => {
    const info = new SLNP({ k: 8 }).fit(X, y).fitInfo;
    expect(info.converged).toBe(true);
  });
});

describe("SLNP on principal components (pcaDimensions)", () => {
  it("equals SLNP on the top-p PCA scores, mapped back", () => {
    const { X, y } = gaussianClasses(8, 60, 20, 4);
    const p = 8;
    const viaOption = new SLNP({ k: 3, pcaDimensions: p }).fit(X, y);
    const pca = new PCA({ k: p }).fit(X);
    const scores = pca.transform(X);
    const manual = new SLNP({ k: 3 }).fit(scores, y);
    const a = viaOption.transform(X);
    const b = manual.transform(scores);
    for (let j = 0; j < 3; j++) {
      const sign = Math.sign(a.get(0, j) * b.get(0, j));
      for (let i = 0; i < 60; i++) {
        expect(Math.abs(a.get(i, j) - sign * b.get(i, j))).toBeLessThanOrEqual(1e-8);
      }
    }
    expect(viaOption.fitInfo.details.pcaDimensions).toBe(p);
    expect(viaOption.components.rows).toBe(20);
  });

  it("rejects k above the number of principal components", () => {
    const { X, y } = gaussianClasses(8, 60, 20, 4);
    expect(() => new SLNP({ k: 6, pcaDimensions: 5 }).fit(X, y)).toThrow(
      /'k' parameter of SLNP must be an integer in \[1, 5\] \(at most the 5 principal components/,
    );
  });
});

describe("SLNP errors", () => {
  it("names a class with fewer than 4 training samples", () => {
    const { X } = gaussianClasses(9, 11, 5, 1);
    const y = ["a", "a", "a", "a", "b", "b", "b", "b", "tiny", "tiny", "tiny"];
    expect(() => new SLNP({ k: 2 }).fit(X, y)).toThrow(
      /SLNP needs at least 4 training samples in every class .*; class "tiny" has 3\./,
    );
    const y2 = [1, 1, 1, 1, 2, 2, 3, 3, 3, 3, 3];
    expect(() => new SLNP({ k: 2 }).fit(X, y2)).toThrow(/class 2 has 2/);
  });

  it("rejects m above the smallest class size - 2, naming that class", () => {
    const { X, y } = gaussianClasses(10, 20, 5, 4);
    expect(() => new SLNP({ k: 2, m: 4 }).fit(X, y)).toThrow(
      /The 'm' parameter of SLNP must be an integer in \[2, 3\] \(the smallest training class, 0, has 5 samples, and m <= n_c - 2\)\. Got 4 instead\./,
    );
    expect(() => new SLNP({ m: 1 })).toThrow(
      /'m' parameter of SLNP must be an integer in \[2, inf\)/,
    );
  });

  it("rejects k above the rank of the data", () => {
    const { X, y } = gaussianClasses(11, 12, 30, 2);
    expect(() => new SLNP({ k: 12 }).fit(X, y)).toThrow(
      /'k' parameter of SLNP must be an integer in \[1, 11\] \(at most the numerical rank r = 11/,
    );
  });

  it("rejects an unknown stop rule", () => {
    expect(() => new SLNP({ stopRule: "raw" as never })).toThrow(ValidationError);
  });
});

describe("SLNP on MSRA25 (a stratified 6% training subset, train z-score)", () => {
  it("converges with W^T X^T X W = I and classifies the rest well", async () => {
    const ds = await readDataFile("MSRA25_uni.mat");
    const y = ds.y as number[];
    const split = makeSplit(ds.X.rows, {
      seed: 0,
      dataset: "MSRA25",
      repeat: 0,
      stratify: true,
      y,
      fractions: { train: 0.06, val: 0.04 },
    });
    const pp = preprocessSplit(ds.X, split);
    const ytrain = Array.from(split.train, (i) => y[i]);
    const ytest = Array.from(split.test, (i) => y[i]);
    const model = new SLNP({ k: 10 }).fit(pp.train, ytrain);
    const info = model.fitInfo;
    expect(info.converged).toBe(true);
    const XW = multiply(centerColumns(pp.train).centered, model.components);
    expect(orthogonalityError(XW)).toBeLessThanOrEqual(1e-9);
    const predicted = nearestNeighbourPredict(
      model.transform(pp.train),
      ytrain,
      model.transform(pp.test),
    );
    // 12 classes; the paper reports 99.76% with 20% training data.
    expect(balancedAccuracy(ytest, predicted)).toBeGreaterThan(0.9);
  });
});
