/**
 * G L G (linalg/sandwich.ts), SDSPCAAN's graph term on the dense path: the
 * product itself, its exact symmetry, and the reused scratch of a loop giving the
 * bits of fresh temporaries whatever the order and the sizes of the calls.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import { multiply } from "#internal/linalg/kernels/gemm.js";
import { sandwichProduct, sandwichScratch } from "#internal/linalg/sandwich.js";
import { CsrMatrix } from "#internal/linalg/sparse.js";
import { firstDifference } from "../helpers/matrices.js";

function gram(rng: Random, n: number, d: number): Matrix {
  const X = new Matrix(n, d);
  for (let t = 0; t < X.data.length; t++) X.data[t] = rng.normal();
  const G = multiply(X, X.transpose());
  // Exactly symmetric, as the training data's Gram matrix is.
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) G.data[j * n + i] = G.data[i * n + j];
  return G;
}

/** The Laplacian of a random symmetric graph with about m edges per row. */
function laplacian(rng: Random, n: number, m: number): CsrMatrix {
  const S = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < m; t++) {
      const j = Math.floor(rng.uniform() * n);
      if (j !== i) S.data[i * n + j] = rng.uniform();
    }
  }
  return graphLaplacian(symmetrizeGraph(CsrMatrix.fromDense(S)));
}

describe("sandwichProduct", () => {
  it("is G L G, symmetric to the bit", () => {
    const rng = new Random(1);
    const n = 150;
    const G = gram(rng, n, 20);
    const L = laplacian(rng, n, 4);
    const M = sandwichProduct(G, L);
    const dense = multiply(multiply(G, L.toDense()), G);
    let scale = 0;
    for (const v of dense.data) scale = Math.max(scale, Math.abs(v));
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        expect(Object.is(M.data[i * n + j], M.data[j * n + i])).toBe(true);
        expect(Math.abs(M.data[i * n + j] - dense.data[i * n + j])).toBeLessThan(1e-12 * scale);
      }
    }
  });

  it("gives the same bits with a reused scratch, over calls of changing graphs and sizes", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 1e6 }),
        fc.array(fc.integer({ min: 1, max: 140 }), { minLength: 1, maxLength: 4 }),
        (seed, sizes) => {
          const rng = new Random(seed);
          const scratch = sandwichScratch();
          for (const n of sizes) {
            const G = gram(rng, n, 7);
            const L = laplacian(rng, n, 3);
            const fresh = sandwichProduct(G, L);
            const reused = sandwichProduct(G, L, scratch);
            expect(firstDifference(reused.data, fresh.data)).toBe(-1);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
