/**
 * The tridiagonal eigen-solver's loops in the WebAssembly module (kernels `bisect` and
 * `inverseIteration`) against the TypeScript loops they replace, bit for bit: on the
 * wasm backend, every eigenvalue, block index and eigenvector entry, the count of
 * vectors that missed the growth test and any error must be identical with the loops
 * in the module and with them in TypeScript (`tridiagonalLoops: false` of the eigen-solver's
 * stage settings), on random
 * tridiagonals with splits, 1 x 1 blocks, clusters, repeated eigenvalues, tiny and huge
 * magnitudes, zero diagonals, k = 1 and k = n. Calls to the two kernels are counted, so
 * that a comparison of TypeScript with itself cannot pass unnoticed.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ConvergenceError } from "#internal/core/errors.js";
import { smallestTridiagonalEigenvalues } from "#internal/linalg/eigen/bisection.js";
import { RESIDENT_MIN } from "#internal/linalg/eigen/constants.js";
import { tridiagonalEigenvectors } from "#internal/linalg/eigen/inverseIteration.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { setKernelBackend } from "#internal/linalg/kernels/wasm/backend.js";
import { countKernelCalls, firstDifference, randomSymmetric } from "../../helpers/matrices.js";

interface Solution {
  values: Float64Array;
  block: Int32Array;
  starts: Int32Array;
  split: Float64Array;
  vectors: Float64Array | null;
  unconverged: number;
  error: string | null;
}

/** Bisection and inverse iteration for the k smallest pairs, with the loops where asked. */
function solve(d: Float64Array, e: Float64Array, k: number, wasmLoops: boolean): Solution {
  const stages = { tridiagonalLoops: wasmLoops };
  const dd = d.slice();
  const ee = e.slice();
  const selected = smallestTridiagonalEigenvalues(dd, ee, k, stages);
  const out: Solution = {
    ...selected,
    split: ee,
    vectors: null,
    unconverged: 0,
    error: null,
  };
  try {
    const { vectors, unconverged } = tridiagonalEigenvectors(dd, ee, selected, stages);
    out.vectors = vectors;
    out.unconverged = unconverged;
  } catch (error) {
    if (!(error instanceof ConvergenceError)) throw error;
    out.error = error.message;
  }
  return out;
}

function expectSameBits(wasm: Solution, ts: Solution): void {
  expect(firstDifference(wasm.values, ts.values)).toBe(-1);
  expect(firstDifference(wasm.block, ts.block)).toBe(-1);
  expect(firstDifference(wasm.starts, ts.starts)).toBe(-1);
  expect(firstDifference(wasm.split, ts.split)).toBe(-1);
  expect(wasm.error).toBe(ts.error);
  expect(wasm.unconverged).toBe(ts.unconverged);
  if (ts.vectors === null) expect(wasm.vectors).toBeNull();
  else expect(firstDifference(wasm.vectors as Float64Array, ts.vectors)).toBe(-1);
}

/** Calls of the module's bisect and inverseIteration kernels (see countKernelCalls). */
let counter: ReturnType<typeof countKernelCalls<"bisect" | "inverseIteration">>;
let calls: Record<"bisect" | "inverseIteration", number>;

beforeEach(() => {
  setKernelBackend("wasm");
  counter = countKernelCalls(["bisect", "inverseIteration"]);
  calls = counter.calls;
});

afterEach(() => {
  counter.restore();
  setKernelBackend("auto");
});

/** Compares the two paths and checks that the module ran where it should. */
function checkBoth(d: Float64Array, e: Float64Array, k: number): void {
  counter.reset();
  const ts = solve(d, e, k, false);
  expect(calls).toEqual({ bisect: 0, inverseIteration: 0 });
  const wasm = solve(d, e, k, true);
  expectSameBits(wasm, ts);
  const n = d.length;
  const blocks = Array.from(wasm.starts.subarray(1), (hi, b) => hi - wasm.starts[b]);
  if (blocks.some((m) => m >= 2)) expect(calls.bisect).toBeGreaterThan(0);
  const wanted = new Set(wasm.block);
  const vectorBlocks = [...wanted].filter((b) => blocks[b] >= 2).length;
  if (n >= RESIDENT_MIN && ts.error === null) expect(calls.inverseIteration).toBe(vectorBlocks);
}

// Entries: mostly continuous values (fast-check's doubles include -0 and subnormals),
// zeros (splits, zero diagonals), small integers (exactly repeated eigenvalues), and for
// off-diagonals couplings below eps ||T|| (split by the relative test) or just above it.
const diagonalEntry = fc.oneof(
  { weight: 5, arbitrary: fc.double({ min: -1, max: 1, noNaN: true }) },
  { weight: 1, arbitrary: fc.constant(0) },
  { weight: 2, arbitrary: fc.integer({ min: -2, max: 2 }) },
);
const offDiagonalEntry = fc.oneof(
  { weight: 5, arbitrary: fc.double({ min: -1, max: 1, noNaN: true }) },
  { weight: 2, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constantFrom(1e-17, -3e-17, 1e-15, 1e-12, 1e-8) },
  { weight: 1, arbitrary: fc.constant(1) },
);
// Overall scale: tiny and huge magnitudes (off-diagonals squared must stay finite, as
// they do for any matrix the Householder reduction produces).
const scale = fc.constantFrom(1, 1e-150, 2 ** -1000, 1e-8, 1e8, 1e150);

const randomTridiagonal = fc.integer({ min: 1, max: 48 }).chain((n) =>
  fc.record({
    d: fc.array(diagonalEntry, { minLength: n, maxLength: n }),
    e: fc.array(offDiagonalEntry, { minLength: n - 1, maxLength: n - 1 }),
    scale,
    k: fc.integer({ min: 1, max: n }),
  }),
);

/**
 * Wilkinson's W+ matrices of order 2h + 1 (eigenvalues in close pairs), c copies glued by
 * a coupling (0 splits them; 1e-10 keeps one block with clusters of c nearly equal
 * eigenvalues, re-orthogonalised against each other), optionally with a zero diagonal.
 */
const gluedWilkinson = fc
  .record({
    h: fc.integer({ min: 1, max: 10 }),
    copies: fc.integer({ min: 1, max: 6 }),
    glue: fc.constantFrom(0, 1e-300, 1e-14, 1e-10, 1e-3),
    zeroDiagonal: fc.boolean(),
    scale,
  })
  .chain((w) => {
    const n = (2 * w.h + 1) * w.copies;
    return fc.record({ w: fc.constant(w), k: fc.integer({ min: 1, max: n }) });
  });

/** Equal diagonal entries coupled by tiny off-diagonals: one cluster spanning the block. */
const cluster = fc.integer({ min: 2, max: 40 }).chain((n) =>
  fc.record({
    d: fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: n, maxLength: n }),
    e: fc.array(fc.double({ min: 0.5, max: 1, noNaN: true }), {
      minLength: n - 1,
      maxLength: n - 1,
    }),
    spread: fc.constantFrom(0, 1e-15, 1e-12, 1e-9),
    coupling: fc.constantFrom(1e-13, 1e-10, 1e-7),
    k: fc.integer({ min: 1, max: n }),
  }),
);

describe("tridiagonal loops in the module and in TypeScript give the same bits", () => {
  it("random tridiagonals: splits, 1 x 1 blocks, repeated values, zero diagonals, any k", () => {
    fc.assert(
      fc.property(randomTridiagonal, ({ d, e, scale: s, k }) => {
        checkBoth(
          Float64Array.from(d, (v) => v * s),
          Float64Array.from(e, (v) => v * s),
          k,
        );
      }),
      { numRuns: 300, seed: 11 },
    );
  });

  it("glued Wilkinson matrices (clusters of close pairs; splits when the glue is zero)", () => {
    fc.assert(
      fc.property(gluedWilkinson, ({ w, k }) => {
        const m = 2 * w.h + 1;
        const n = m * w.copies;
        const d = new Float64Array(n);
        const e = new Float64Array(n - 1);
        for (let b = 0; b < w.copies; b++) {
          for (let i = 0; i < m; i++)
            d[b * m + i] = w.zeroDiagonal ? 0 : Math.abs(w.h - i) * w.scale;
          for (let i = 0; i < m - 1; i++) e[b * m + i] = w.scale;
          if (b > 0) e[b * m - 1] = w.glue * w.scale;
        }
        checkBoth(d, e, k);
      }),
      { numRuns: 150, seed: 12 },
    );
  });

  it("tight clusters and exactly repeated eigenvalues inside one block", () => {
    fc.assert(
      fc.property(cluster, ({ d, e, spread, coupling, k }) => {
        checkBoth(
          Float64Array.from(d, (v) => 1 + spread * v),
          Float64Array.from(e, (v) => coupling * v),
          k,
        );
      }),
      { numRuns: 150, seed: 13 },
    );
  });

  it("fixed corner cases: order 1, all 1 x 1 blocks, k = 1 and k = n, the (-1, 2, -1) matrix", () => {
    checkBoth(Float64Array.of(3), new Float64Array(0), 1);
    checkBoth(Float64Array.of(-0, 0), Float64Array.of(-0), 2);
    const n = 40;
    const diag = Float64Array.from({ length: n }, (_, i) => (i * 7) % 5);
    checkBoth(diag, new Float64Array(n - 1), 1);
    checkBoth(diag, new Float64Array(n - 1), n);
    checkBoth(new Float64Array(n), new Float64Array(n - 1).fill(1), n);
    checkBoth(new Float64Array(200).fill(2), new Float64Array(199).fill(-1), 1);
    checkBoth(new Float64Array(200).fill(2), new Float64Array(199).fill(-1), 200);
  });

  it("the driver's eigenpairs of dense matrices (reduction, selection, back-transformation)", () => {
    for (const [n, k, seed] of [
      [9, 3, 1],
      [33, 10, 2],
      [64, 1, 3],
      [120, 12, 4],
    ]) {
      const A = randomSymmetric(n, seed);
      for (const select of [{ smallest: k }, { largest: k }]) {
        const ts = symmetricEigen(A, { select, stages: { tridiagonalLoops: false } });
        const wasm = symmetricEigen(A, { select });
        expect(firstDifference(wasm.values, ts.values)).toBe(-1);
        expect(firstDifference(wasm.vectors?.data ?? [], ts.vectors?.data ?? [])).toBe(-1);
      }
    }
    expect(calls.bisect).toBeGreaterThan(0);
    expect(calls.inverseIteration).toBeGreaterThan(0);
  });
});

describe("bisection on the two backends", () => {
  it("gives the same eigenvalues bit for bit (the Sturm counts are the same operations)", () => {
    fc.assert(
      fc.property(randomTridiagonal, ({ d, e, scale: s, k }) => {
        const dd = Float64Array.from(d, (v) => v * s);
        const ee = Float64Array.from(e, (v) => v * s);
        setKernelBackend("ts");
        const ts = smallestTridiagonalEigenvalues(dd.slice(), ee.slice(), k);
        setKernelBackend("wasm");
        const wasm = smallestTridiagonalEigenvalues(dd.slice(), ee.slice(), k);
        expect(firstDifference(wasm.values, ts.values)).toBe(-1);
        expect(firstDifference(wasm.block, ts.block)).toBe(-1);
      }),
      { numRuns: 200, seed: 14 },
    );
  });
});
