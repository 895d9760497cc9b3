/**
 * Z's weights (methods/zstep/zWeights.ts): the paper's trace scaling, the absolute
 * weights, and the refusal of weights that would make Z overflow, naming the option.
 */
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import type { CsrMatrix } from "#internal/linalg/sparse.js";
import type { ZGraph } from "#internal/methods/zstep/zSolvers.js";
import { type ZWeightSettings, ZWeights } from "#internal/methods/zstep/zWeights.js";

const settings = (over: Partial<ZWeightSettings> = {}): ZWeightSettings => ({
  owner: "SDSPCAAN",
  alpha: 0.5,
  beta: 2,
  delta: 3,
  weighting: "scaled",
  ...over,
});

/** A graph term with Tr(G L G) = trM (the weights read nothing else of it). */
const graph = (trM: number): ZGraph => ({ L: null as unknown as CsrMatrix, trM, M: null });

describe("ZWeights", () => {
  const Dd = Float64Array.from([0.5, 1, 1.5, 2]);
  const trG = 40;

  it("scales a, b, c by Tr(XX^T)/Tr(YY^T), Tr(XX^T)/Tr(D), Tr(XX^T)/Tr(XX^T L XX^T)", () => {
    const w = new ZWeights(settings(), trG, 4);
    expect(w.alpha).toBe((0.5 * 40) / 4);
    expect(w.at(Dd, graph(8))).toEqual({ beta: (2 * 40) / 5, delta: (3 * 40) / 8 });
    // No graph term, or one whose trace vanishes: no weight.
    expect(w.at(Dd, null).delta).toBe(0);
    expect(w.at(Dd, graph(0)).delta).toBe(0);
  });

  it('takes a, b, c as the weights with weighting "absolute"', () => {
    const w = new ZWeights(settings({ weighting: "absolute" }), trG, 4);
    expect(w.alpha).toBe(0.5);
    expect(w.at(Dd, graph(8))).toEqual({ beta: 2, delta: 3 });
    expect(w.at(Dd, null)).toEqual({ beta: 2, delta: 0 });
  });

  it("refuses a weight whose term of Z overflows, naming the option", () => {
    const absolute = (over: Partial<ZWeightSettings>) =>
      new ZWeights(settings({ weighting: "absolute", ...over }), trG, 4);
    for (const name of ["alpha", "beta", "delta"] as const) {
      const w = absolute({ [name]: 1e300 });
      let error: unknown = null;
      try {
        w.at(Dd, graph(8));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).argument).toBe(name);
      expect((error as Error).message).toMatch(
        new RegExp(`^The '${name}' parameter of SDSPCAAN is too large for this data`),
      );
    }
    expect(() => new ZWeights(settings(), 1e200, 4).at(Dd, null)).toThrow(
      /^SDSPCAAN cannot form Z for this X: Tr\(XX\^T\) = 1\.00e\+200 exceed 1e\+150/,
    );
    expect(() => new ZWeights(settings(), trG, 4).at(Dd, graph(1e200))).toThrow(
      /and Tr\(XX\^T L XX\^T\) = 1\.00e\+200 exceed/,
    );
  });
});
