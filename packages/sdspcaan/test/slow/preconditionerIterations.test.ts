/**
 * The shift-and-invert preconditioner of LOBPCG on Z earns its cost where the smallest
 * eigenvalues cluster, which needs a large block (k = 50): two 6-iteration fits of
 * 400 x 200, about 10 s, so `npm run test:slow`. That the preconditioned path gives the
 * dense path's subspace is checked on small data in test/methods/sdspcaFamily.test.ts.
 */
import { describe, expect, it } from "vitest";
import { makeSyntheticDataset } from "#internal/data/synthetic.js";
import { SDSPCAAN } from "#internal/methods/sdspcaan.js";
import { withPaths } from "../helpers/qLoop.js";

describe("the matrix-free LOBPCG path", () => {
  it("the preconditioner cuts LOBPCG's iterations on a clustered spectrum (k = 50)", () => {
    // The demo's synthetic data at n = 400 with ten nuisance directions: the 50 smallest
    // eigenvalues of Z are clustered (measured: 32-42 LOBPCG iterations per warm solve
    // without the preconditioner, 16-19 with it, 2.2 times fewer in all; 3 to 4 times
    // fewer on Fashion-MNIST, docs/performance.md).
    const ds = makeSyntheticDataset({
      samples: 400,
      features: 200,
      classes: 6,
      nuisanceDim: 10,
      seed: 3,
    });
    const perSolve = (preconditioner: "never" | "always") => {
      const fit = withPaths(new SDSPCAAN({ k: 50, solver: "lobpcg", maxIter: 6 }), {
        preconditioner,
      }).fit(ds.X, ds.y);
      expect(fit.fitInfo.iterations).toBe(6);
      return fit.fitInfo.details.lobpcgIterationsPerSolve as number[];
    };
    const plain = perSolve("never");
    const pre = perSolve("always");
    // The first solve is never preconditioned (no spectrum to place the shift in yet).
    expect(pre[0]).toBe(plain[0]);
    const warm = (v: number[]) => v.slice(1).reduce((a, b) => a + b, 0);
    expect(2 * warm(pre)).toBeLessThan(warm(plain));
  });
});
