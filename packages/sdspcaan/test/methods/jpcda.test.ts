/**
 * JPCDA: the objective never decreases, W has c columns whatever k is, the reported
 * objective is the paper's ratio evaluated densely, k >= rank gives ridge regression,
 * clear errors, and behaviour on a Yale training split.
 */

import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { encodeLabels } from "#internal/core/validate.js";
import { centerColumns } from "#internal/linalg/basic.js";
import { multiply, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import { choleskyUpper } from "#internal/linalg/orthogonalize.js";
import { JPCDA } from "#internal/methods/jpcda.js";
import { PCA } from "#internal/methods/pca.js";
import { projectedTestBca, yaleSplit } from "../helpers/yaleSplit.js";

/** c Gaussian classes in d dimensions (class centres 2 apart on average), n samples. */
function gaussianClasses(seed: number, n: number, d: number, c: number) {
  const rng = new Random(seed);
  const centres = Array.from({ length: c }, () =>
    Array.from({ length: d }, () => 2 * rng.normal()),
  );
  const X: number[][] = [];
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const cls = i % c;
    X.push(centres[cls].map((m) => m + rng.normal()));
    y.push(cls);
  }
  return { X: Matrix.fromRows(X), y };
}

/** Yc: centred one-hot labels (n x c). */
function centredOneHot(y: number[]): Matrix {
  const { codes, classes, counts } = encodeLabels(y, y.length);
  const n = y.length;
  const c = classes.length;
  const Y = new Matrix(n, c);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < c; j++) Y.data[i * c + j] = (codes[i] === j ? 1 : 0) - counts[j] / n;
  }
  return Y;
}

/** Solves A X = B for symmetric positive definite A by Cholesky (dense, for checks). */
function solveSpd(A: Matrix, B: Matrix): Matrix {
  const R = A.clone();
  expect(choleskyUpper(R)).toBe(true);
  const k = R.rows;
  const c = B.cols;
  const X = B.clone();
  for (let i = 0; i < k; i++) {
    for (let p = 0; p < i; p++) {
      for (let j = 0; j < c; j++) X.data[i * c + j] -= R.data[p * k + i] * X.data[p * c + j];
    }
    for (let j = 0; j < c; j++) X.data[i * c + j] /= R.data[i * k + i];
  }
  for (let i = k - 1; i >= 0; i--) {
    for (let p = i + 1; p < k; p++) {
      for (let j = 0; j < c; j++) X.data[i * c + j] -= R.data[i * k + p] * X.data[p * c + j];
    }
    for (let j = 0; j < c; j++) X.data[i * c + j] /= R.data[i * k + i];
  }
  return X;
}

function addIdentity(A: Matrix, eta: number): Matrix {
  const B = A.clone();
  for (let i = 0; i < B.rows; i++) B.data[i * B.cols + i] += eta;
  return B;
}

function squaredNorm(A: Matrix): number {
  let s = 0;
  for (const v of A.data) s += v * v;
  return s;
}

/** [Tr(Q^T X^T X Q)]^2 / (||XQV - Yc||^2 + eta ||V||^2) with the ridge V, all dense. */
function denseObjective(Xc: Matrix, Yc: Matrix, Q: Matrix, eta: number): number {
  const XQ = multiply(Xc, Q);
  const V = solveSpd(addIdentity(multiplyAtB(XQ, XQ), eta), multiplyAtB(XQ, Yc));
  const R = multiply(XQ, V);
  for (let t = 0; t < R.data.length; t++) R.data[t] -= Yc.data[t];
  const N = squaredNorm(XQ);
  return (N * N) / (squaredNorm(R) + eta * squaredNorm(V));
}

function expectNonDecreasing(initial: number, trace: number[]): void {
  let previous = initial;
  for (const value of trace) {
    expect(value).toBeGreaterThanOrEqual(previous * (1 - 1e-12));
    previous = value;
  }
}

describe("JPCDA objective", () => {
  const cases = [
    { seed: 1, n: 40, d: 60, c: 4, k: 6, eta: 1 },
    { seed: 2, n: 90, d: 12, c: 3, k: 5, eta: 0.01 },
    { seed: 3, n: 30, d: 80, c: 5, k: 10, eta: 100 },
    { seed: 4, n: 60, d: 25, c: 6, k: 2, eta: 10 },
  ];

  it.each(cases)("never decreases (seed $seed, n $n, d $d, k $k, eta $eta)", (p) => {
    const { X, y } = gaussianClasses(p.seed, p.n, p.d, p.c);
    const model = new JPCDA({ k: p.k, eta: p.eta }).fit(X, y);
    const info = model.fitInfo;
    expect(info.objective.length).toBe(info.iterations);
    expect(info.iterations).toBeGreaterThan(0);
    expectNonDecreasing(info.details.initialObjective as number, info.objective);
    expect(info.objective.at(-1)).toBeGreaterThan(info.details.initialObjective as number);
  });

  it("starts from PCA: the initial objective is the dense ratio at Q = PCA, V = ridge", () => {
    const { X, y } = gaussianClasses(5, 36, 50, 4);
    const k = 7;
    const eta = 0.5;
    const Xc = centerColumns(X).centered;
    const Q = new PCA({ k }).fit(X).components;
    const expected = denseObjective(Xc, centredOneHot(y), Q, eta);
    const got = new JPCDA({ k, eta }).fit(X, y).fitInfo.details.initialObjective as number;
    expect(Math.abs(got - expected)).toBeLessThanOrEqual(1e-10 * expected);
  });

  it("reports each outer iteration's objective through onProgress", () => {
    const { X, y } = gaussianClasses(6, 40, 30, 3);
    const seen: Array<number | null> = [];
    const model = new JPCDA({ k: 4 }).fit(X, y, { onProgress: (p) => seen.push(p.objective) });
    expect(seen).toEqual(model.fitInfo.objective);
  });

  it("stops when the relative change falls below tol, or at maxIter", () => {
    const { X, y } = gaussianClasses(7, 40, 60, 4);
    const loose = new JPCDA({ k: 8, tol: 1e-2 }).fit(X, y).fitInfo;
    const strict = new JPCDA({ k: 8, tol: 1e-6 }).fit(X, y).fitInfo;
    expect(loose.converged).toBe(true);
    expect(loose.stopReason).toBe("converged");
    expect(strict.converged).toBe(true);
    expect(strict.iterations).toBeGreaterThan(loose.iterations);
    expect(strict.objective.at(-1)).toBeGreaterThan(loose.objective.at(-1) as number);
    const trace = strict.objective;
    const last = trace.length - 1;
    expect(Math.abs(trace[last] - trace[last - 1])).toBeLessThanOrEqual(1e-6 * trace[last]);
    expect(Math.abs(trace[last - 1] - trace[last - 2])).toBeGreaterThan(1e-6 * trace[last - 1]);
    const capped = new JPCDA({ k: 8, tol: 1e-12, maxIter: 2 }).fit(X, y).fitInfo;
    expect(capped.iterations).toBe(2);
    expect(capped.stopReason).toBe("max-iterations");
    expect(capped.converged).toBe(false);
  });
});

describe("JPCDA output", () => {
  it("has c columns whatever k is, and they sum to zero", () => {
    const { X, y } = gaussianClasses(8, 45, 30, 5);
    for (const k of [1, 3, 4, 12]) {
      const model = new JPCDA({ k }).fit(X, y);
      expect(model.nComponents).toBe(5);
      expect(model.components.rows).toBe(30);
      expect(model.transform(X).cols).toBe(5);
      // Yc 1_c = 0, so V 1_c = 0 and W 1_c = 0.
      const W = model.components;
      let scale = 0;
      for (const v of W.data) scale = Math.max(scale, Math.abs(v));
      for (let i = 0; i < W.rows; i++) {
        let s = 0;
        for (let j = 0; j < 5; j++) s += W.get(i, j);
        expect(Math.abs(s)).toBeLessThanOrEqual(1e-12 * scale * 5);
      }
    }
  });

  it("warns when k < c - 1 caps the rank of W", () => {
    const { X, y } = gaussianClasses(9, 45, 30, 5);
    expect(
      new JPCDA({ k: 2 })
        .fit(X, y)
        .fitInfo.warnings.map((w) => w.message)
        .join(" "),
    ).toMatch(/below c - 1 = 4/);
    expect(new JPCDA({ k: 4 }).fit(X, y).fitInfo.warnings).toEqual([]);
  });

  it("is ridge regression (X^T X + eta I)^-1 X^T Yc when Q spans the whole data (k = d < n)", () => {
    const { X, y } = gaussianClasses(10, 80, 9, 3);
    const eta = 2;
    const model = new JPCDA({ k: 9, eta }).fit(X, y);
    const Xc = centerColumns(X).centered;
    const expected = solveSpd(
      addIdentity(multiplyAtB(Xc, Xc), eta),
      multiplyAtB(Xc, centredOneHot(y)),
    );
    const W = model.components;
    let scale = 0;
    for (const v of expected.data) scale = Math.max(scale, Math.abs(v));
    for (let t = 0; t < W.data.length; t++) {
      expect(Math.abs(W.data[t] - expected.data[t])).toBeLessThanOrEqual(1e-10 * scale);
    }
    expect(model.fitInfo.converged).toBe(true);
  });

  it("uses the whole data span and warns when k exceeds the rank (d > n)", () => {
    const { X, y } = gaussianClasses(11, 20, 40, 4);
    const atRank = new JPCDA({ k: 19 }).fit(X, y);
    const above = new JPCDA({ k: 20 }).fit(X, y);
    expect(above.fitInfo.warnings.map((w) => w.message).join(" ")).toMatch(
      /k = 20 exceeds the numerical rank 19/,
    );
    expect(Array.from(above.components.data)).toEqual(Array.from(atRank.components.data));
  });
});

describe("JPCDA errors", () => {
  const { X, y } = gaussianClasses(12, 30, 10, 3);

  it("rejects k above min(n, d), naming the bound", () => {
    expect(() => new JPCDA({ k: 11 }).fit(X, y)).toThrow(
      /The 'k' parameter of JPCDA must be an integer in \[1, 10\] \(at most min\(n, d\) = 10\)\. Got 11 instead\./,
    );
  });

  it("rejects a non-positive eta and a bad maxInnerIter", () => {
    expect(() => new JPCDA({ eta: 0 })).toThrow(
      /'eta' parameter of JPCDA must be a number in \(0, inf\)\. Got 0/,
    );
    expect(() => new JPCDA({ eta: -1 })).toThrow(ValidationError);
    expect(() => new JPCDA({ maxInnerIter: 0 })).toThrow(/'maxInnerIter'/);
  });

  it("needs labels", () => {
    expect(() => new JPCDA({ k: 2 }).fit(X)).toThrow(/JPCDA is supervised/);
  });

  it("refuses training data with no variance", () => {
    const flat = Array.from({ length: 6 }, () => [1, 2, 3]);
    expect(() => new JPCDA({ k: 1 }).fit(flat, [0, 0, 0, 1, 1, 1])).toThrow(/numerical rank 0/);
  });
});

describe("JPCDA on Yale (a 20% training split, train z-score)", () => {
  it("increases the objective monotonically and classifies far above chance", async () => {
    const yale = await yaleSplit();
    const { train, ytrain } = yale;
    const c = new Set(ytrain).size;
    const model = new JPCDA({ k: 20, eta: 1 }).fit(train, ytrain);
    const info = model.fitInfo;
    expect(train.rows).toBe(33);
    expect(model.nComponents).toBe(c);
    expect(info.converged).toBe(true);
    expectNonDecreasing(info.details.initialObjective as number, info.objective);
    // 15 classes (chance 1/15); the paper reports 44.67 +- 5.87 % for tuned JPCDA.
    expect(projectedTestBca(model, yale)).toBeGreaterThan(0.35);
  });
});
