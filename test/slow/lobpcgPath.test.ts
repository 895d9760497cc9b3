/**
 * The matrix-free LOBPCG path of SDSPCAAN against the dense path on a case whose
 * smallest eigenvalues are hard for LOBPCG (alpha = 10, beta = 0.1, m = 6: about 2,000
 * LOBPCG iterations per fit, 4 s), so `npm run test:slow`. The two easier cases are in
 * test/methods/sdspcaFamily.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { Random } from "../../packages/sdspcaan/src/core/rng.js";
import { SDSPCAAN } from "../../packages/sdspcaan/src/methods/sdspcaan.js";
import { withQLoopSettings } from "../helpers/qLoop.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

/** The blobs of test/methods/sdspcaFamily.test.ts (seed 12, 90 x 30, 3 classes). */
function blobs(seed: number, n: number, d: number, c: number, sep = 3): { X: Matrix; y: number[] } {
  const rng = new Random(seed);
  const latent = 5;
  const centres = Array.from({ length: c }, () =>
    Array.from({ length: latent }, () => sep * rng.normal()),
  );
  const A = Array.from({ length: latent }, () => Array.from({ length: d }, () => rng.normal()));
  const X = new Matrix(n, d);
  const y: number[] = [];
  for (let i = 0; i < n; i++) {
    const cls = i % c;
    y.push(cls);
    const z = centres[cls].map((m) => m + rng.normal());
    for (let j = 0; j < d; j++) {
      let v = 0.3 * rng.normal();
      for (let l = 0; l < latent; l++) v += z[l] * A[l][j];
      X.data[i * d + j] = v;
    }
  }
  return { X, y };
}

describe("the matrix-free LOBPCG path", () => {
  it("gives the dense path's subspace and iteration count with alpha = 10 and m = 6", () => {
    const { X, y } = blobs(12, 90, 30, 3);
    const opts = { k: 4, alpha: 10, beta: 0.1, delta: 10, m: 6 };
    const dense = new SDSPCAAN({ ...opts, solver: "dense" }).fit(X, y);
    for (const preconditioner of ["never", "always"] as const) {
      const operator = withQLoopSettings({ preconditioner }, () =>
        new SDSPCAAN({ ...opts, solver: "lobpcg" }).fit(X, y),
      );
      expect(operator.fitInfo.solver).toBe("lobpcg");
      expect(operator.fitInfo.details.lobpcgIterations as number).toBeGreaterThan(0);
      expect(operator.fitInfo.details.preconditionedSolves).toBe(
        preconditioner === "always" ? operator.fitInfo.iterations - 1 : 0,
      );
      expect(maxPrincipalAngle(dense.components, operator.components)).toBeLessThan(1e-6);
      expect(operator.fitInfo.iterations).toBe(dense.fitInfo.iterations);
      expect(operator.fitInfo.lambdaTrace).toEqual(dense.fitInfo.lambdaTrace);
    }
  });
});
