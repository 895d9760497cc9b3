/**
 * The products of the Z-step's basis with its thin block Qy (zPreconditioner.ts,
 * thinProducts) in the WebAssembly module (thin.wat) against the TypeScript loops they
 * replace: the same operations in the same order, so the same bits.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { wasmArena } from "#internal/linalg/kernels/wasm/backend.js";
import { thinProducts } from "#internal/methods/zstep/zPreconditioner.js";

function filled(rng: Random, length: number, scale: number): Float64Array {
  return Float64Array.from({ length }, () => scale * rng.normal());
}

describe("thinProducts", () => {
  it("runs in the module here", () => {
    expect(typeof wasmArena()?.kernels.thinProducts).toBe("function");
  });

  it("gives the TypeScript loops' bits, both ways round (property)", () => {
    fc.assert(
      fc.property(
        fc.record({
          n: fc.integer({ min: 1, max: 160 }),
          cq: fc.integer({ min: 0, max: 12 }),
          b: fc.integer({ min: 1, max: 70 }),
          transpose: fc.boolean(),
          scale: fc.constantFrom(1e-300, 1e-8, 1, 1e8, 1e300),
          seed: fc.integer(),
        }),
        ({ n, cq, b, transpose, scale, seed }) => {
          const rng = new Random(seed);
          const Q = new Matrix(n, cq, filled(rng, n * cq, 1));
          const src = filled(rng, (transpose ? n : cq) * b, scale);
          // A nonzero start, as basisTimes' U Y is.
          const start = filled(rng, (transpose ? cq : n) * b, scale);
          const inModule = start.slice();
          const inLoops = start.slice();
          thinProducts(Q, src, b, inModule, transpose);
          thinProducts(Q, src, b, inLoops, transpose, false);
          for (let t = 0; t < start.length; t++) {
            if (!Object.is(inModule[t], inLoops[t])) {
              throw new Error(
                `entry ${t}: ${inModule[t]} in the module, ${inLoops[t]} in the loops`,
              );
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("adds Q src and Q^T src", () => {
    const Q = new Matrix(3, 2, Float64Array.from([1, 2, 3, 4, 5, 6]));
    const out = new Float64Array(3);
    thinProducts(Q, Float64Array.from([1, 10]), 1, out, false);
    expect(Array.from(out)).toEqual([21, 43, 65]);
    const back = new Float64Array(2);
    thinProducts(Q, Float64Array.from([1, 1, 1]), 1, back, true);
    expect(Array.from(back)).toEqual([9, 12]);
  });
});
