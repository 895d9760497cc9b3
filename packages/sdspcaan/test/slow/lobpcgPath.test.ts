/**
 * The matrix-free LOBPCG path of SDSPCAAN against the dense path on the cases that take
 * seconds each, so `npm run test:slow`: one whose smallest eigenvalues are hard for
 * LOBPCG (alpha = 10, beta = 0.1, m = 6: about 2,000 LOBPCG iterations per fit, 4 s), one
 * with alpha = 0.1 and beta = 10, and the large-n graph paths on five overlapping
 * classes (n = 300, 76 outer iterations). The quicker cases of the same paths are in
 * test/methods/sdspcaFamily.test.ts.
 */
import { describe, expect, it } from "vitest";
import { SDSPCAAN } from "#internal/methods/sdspcaan.js";
import { blobs } from "../helpers/blobs.js";
import { expectLargeScaleMatchesDense, withPaths } from "../helpers/qLoop.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

describe("the matrix-free LOBPCG path", () => {
  it.each([
    ["alpha = 10 and m = 6", { k: 4, alpha: 10, beta: 0.1, delta: 10, m: 6 }],
    ["alpha = 0.1 and beta = 10", { k: 5, alpha: 0.1, beta: 10, delta: 0.1 }],
  ])("gives the dense path's subspace and iteration count with %s", (_, opts) => {
    const { X, y } = blobs(12, 90, 30, 3);
    const dense = new SDSPCAAN({ ...opts, solver: "dense" }).fit(X, y);
    for (const preconditioner of ["never", "always"] as const) {
      const operator = withPaths(new SDSPCAAN({ ...opts, solver: "lobpcg" }), {
        preconditioner,
      }).fit(X, y);
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

  it("with the large-n graph paths forced, gives the dense path's subspace, iterations and lambda trace on five overlapping classes", () => {
    const { X, y } = blobs(16, 300, 20, 5, 0.8);
    expectLargeScaleMatchesDense(X, y, { k: 6, alpha: 0.5, delta: 3 });
  });
});
