/**
 * A small labelled problem and SDSPCAAN's Q-loop settings for the tests that compare two
 * ways of running the same fit (methods/sdspcaFamily.ts, `fitQLoop`).
 */

import { expect } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { DEFAULT_LAMBDA_CAP } from "#internal/graph/rankControl.js";
import {
  type QLoopOptionValues,
  type QLoopPaths,
  type QLoopSettings,
  qLoopSettings,
} from "#internal/methods/qLoopOptions.js";
import { SDSPCAAN } from "#internal/methods/sdspcaan.js";
import {
  type QLoopEstimator,
  type QLoopMethodClass,
  withQLoopPaths,
} from "#internal/methods/sdspcaFamily.js";
import { maxPrincipalAngle } from "./subspace.js";

/** n rows of four Gaussian classes in 30 dimensions (row i in class i % 4). */
export function fourGaussianClasses(seed: number, n: number): { X: Matrix; y: Int32Array } {
  const rng = new Random(seed);
  const d = 30;
  const centres = Array.from({ length: 4 }, () =>
    Array.from({ length: d }, () => 4 * rng.normal()),
  );
  const X = new Matrix(n, d);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = i % 4;
    for (let l = 0; l < d; l++) X.data[i * d + l] = centres[y[i]][l] + (1 + l / d) * rng.normal();
  }
  return { X, y };
}

/**
 * SDSPCAAN's settings (a = b = c = 1, tol 1e-3, the dense solver) with k and maxIter,
 * and the internal path choices `paths`.
 */
export function sdspcaanSettings(
  k: number,
  maxIter: number,
  paths: QLoopPaths = {},
): QLoopSettings {
  return qLoopSettings(
    "SDSPCAAN",
    {
      k,
      alpha: 1,
      beta: 1,
      delta: 1,
      tol: 1e-3,
      maxIter,
      eps: 1e-8,
      stopRule: "aligned",
      solver: "dense",
      seed: 0,
      lambdaCap: DEFAULT_LAMBDA_CAP,
    },
    { graph: "adaptive", paths },
  );
}

/**
 * A new, unfitted model of `model`'s class and options whose fits take the internal
 * path choices `paths` (withQLoopPaths): how the tests force a path "auto" picks by
 * size, e.g. `withPaths(new SDSPCAAN(options), { largeScale: "always" }).fit(X, y)`.
 */
export function withPaths<E extends QLoopEstimator<QLoopOptionValues>>(
  model: E,
  paths: QLoopPaths,
): E {
  const Method = withQLoopPaths(model.constructor as QLoopMethodClass, paths);
  return new Method(model.params) as E;
}

/**
 * Fits SDSPCAAN with `options` on the dense path and on the matrix-free path with the
 * large-n graph paths forced (k-d tree search, decision-driven Laplacian solves), and
 * expects the same fit: iterations, lambda trace, stop reason, and the subspace to 1e-6 rad.
 */
export function expectLargeScaleMatchesDense(
  X: Matrix,
  y: ArrayLike<number>,
  options: ConstructorParameters<typeof SDSPCAAN>[0],
): void {
  const dense = new SDSPCAAN({ ...options, solver: "dense" }).fit(X, y);
  const large = withPaths(new SDSPCAAN({ ...options, solver: "lobpcg" }), {
    largeScale: "always",
  }).fit(X, y);
  expect(large.fitInfo.iterations).toBe(dense.fitInfo.iterations);
  expect(large.fitInfo.lambdaTrace).toEqual(dense.fitInfo.lambdaTrace);
  expect(large.fitInfo.stopReason).toBe(dense.fitInfo.stopReason);
  expect(maxPrincipalAngle(dense.components, large.components)).toBeLessThan(1e-6);
}
