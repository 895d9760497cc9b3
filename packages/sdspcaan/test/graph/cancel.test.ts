/**
 * The long inner steps of a large fit (the initial neighbour search, the k-d tree
 * search, the iterative Laplacian solve) check the caller's AbortSignal themselves,
 * so that cancelling a 60,000-sample fit takes effect within one block of work rather
 * than at the next outer iteration.
 */
import { describe, expect, it } from "vitest";
import { AbortError } from "#internal/core/errors.js";
import {
  embeddedAdaptiveGraph,
  initialAdaptiveGraph,
  labelledAdaptiveGraph,
} from "#internal/graph/adaptive.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import { rankControlEigenvalues } from "#internal/graph/laplacianSpectrum.js";
import { nearestNeighbours } from "#internal/linalg/kernels/distances.js";
import { randomMatrix } from "../helpers/matrices.js";

describe("cancelling the inner steps", () => {
  const aborted = AbortSignal.abort();
  const P = randomMatrix(200, 3, 5);
  const codes = Int32Array.from({ length: 200 }, (_, i) => i % 4);

  it("stops the neighbour searches", () => {
    expect(() => nearestNeighbours(P, 5, { signal: aborted })).toThrow(AbortError);
    expect(() => initialAdaptiveGraph(P, { m: 5, signal: aborted })).toThrow(AbortError);
    for (const strategy of ["tree", "blocks", "clusters"] as const) {
      expect(() => labelledAdaptiveGraph(P, codes, 1, { m: 5, strategy, signal: aborted })).toThrow(
        AbortError,
      );
    }
  });

  it("stops PCAN's embedded search and the labelled search once lambda keeps rows in their class", () => {
    const F = randomMatrix(200, 4, 6);
    expect(() => embeddedAdaptiveGraph(P, F, 1, { m: 5, signal: aborted })).toThrow(AbortError);
    // lambda = 1e6: every row is finished within its class (no cross-class scan).
    expect(() =>
      labelledAdaptiveGraph(P, codes, 1e6, { m: 5, strategy: "blocks", signal: aborted }),
    ).toThrow(AbortError);
    // Without the signal the same calls run.
    expect(embeddedAdaptiveGraph(P, F, 1, { m: 5 }).S.rows).toBe(200);
    expect(labelledAdaptiveGraph(P, codes, 1e6, { m: 5, strategy: "blocks" }).S.rows).toBe(200);
  });

  it("stops the iterative Laplacian solve", () => {
    const g = initialAdaptiveGraph(P, { m: 5 });
    const L = graphLaplacian(symmetrizeGraph(g.S));
    expect(() =>
      rankControlEigenvalues(L, 4, 1e-3, undefined, {
        signal: aborted,
        denseLimit: 20,
        decisionMinSize: 1,
      }),
    ).toThrow(AbortError);
    // Without the signal the same call runs.
    expect(rankControlEigenvalues(L, 4, 1e-3, undefined, { denseLimit: 20 }).length).toBe(5);
  });
});
