/**
 * The Householder reduction's unblocked loop and the back-transformation in the
 * WebAssembly module (kernels `tridiagonalizeUnblocked` and `applyReflectorBlocks`)
 * against the TypeScript loops they replace, bit for bit: on the wasm backend, every
 * entry of the diagonal, the off-diagonal, tau, the reflectors' storage and the
 * back-transformed vectors must be identical (Object.is, so -0 differs from 0) with the
 * loops in the module and with them in TypeScript (`householderLoops: false` of the
 * eigen-solver's stage settings), on
 * random symmetric matrices of orders 1 to 200: below the blocked crossover (the
 * unblocked loop reduces everything) and above it (panels, then the unblocked loop on
 * the trailing part), with zero columns (tau = 0 reflectors), tridiagonal and diagonal
 * matrices, -0 entries, tiny and huge scales and a leading dimension larger than n.
 * Calls to the two kernels are counted, so that a comparison of TypeScript with itself
 * cannot pass unnoticed.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { applyReflectors } from "#internal/linalg/eigen/backTransform.js";
import { RESIDENT_MIN } from "#internal/linalg/eigen/constants.js";
import { householderTridiagonalize, type Tridiagonal } from "#internal/linalg/eigen/householder.js";
import { symmetricEigen, trailingEigenpairs } from "#internal/linalg/eigen/symmetricEigen.js";
import { setNativeKernels } from "#internal/linalg/kernels/nativeGemm.node.js";
import { setKernelBackend } from "#internal/linalg/kernels/wasm/backend.js";
import { countKernelCalls, firstDifference } from "../../helpers/matrices.js";

/** Calls of the module's two kernels (see countKernelCalls). */
let counter: ReturnType<
  typeof countKernelCalls<"tridiagonalizeUnblocked" | "applyReflectorBlocks">
>;
let calls: Record<"tridiagonalizeUnblocked" | "applyReflectorBlocks", number>;

function resetCalls(): void {
  counter.reset();
}

beforeEach(() => {
  // The module's loops run where its own GEMM does: no native kernel (moduleGemmInUse).
  setKernelBackend("wasm");
  setNativeKernels(false);
  counter = countKernelCalls(["tridiagonalizeUnblocked", "applyReflectorBlocks"]);
  calls = counter.calls;
});

afterEach(() => {
  counter.restore();
  setKernelBackend("auto");
  setNativeKernels("auto");
});

function expectSameTridiagonal(wasm: Tridiagonal, ts: Tridiagonal): void {
  expect(firstDifference(wasm.diagonal, ts.diagonal)).toBe(-1);
  expect(firstDifference(wasm.offDiagonal, ts.offDiagonal)).toBe(-1);
  expect(firstDifference(wasm.tau, ts.tau)).toBe(-1);
  expect(wasm.ld).toBe(ts.ld);
  expect(firstDifference(wasm.reflectors, ts.reflectors)).toBe(-1);
}

/** How the test matrix is built (see `buildMatrix`). */
type Structure = "dense" | "blocks" | "tridiagonal" | "diagonal" | "zero";

interface Case {
  n: number;
  pad: number;
  seed: number;
  structure: Structure;
  /** "blocks": the chance that a block ends at each row (small: few large blocks). */
  blockRate: number;
  scale: number;
  negativeZeros: boolean;
  integers: boolean;
  k: number;
}

/**
 * The stored triangle (a[j * ld + i], i >= j) of a symmetric matrix; the other entries
 * (never read) hold a marker that must come out unchanged. "blocks": block diagonal with
 * random block ends (short blocks make many reflectors with few non-zero entries), so that the column before each block end is zero below its
 * sub-diagonal entry, which is zero too (a tau = 0 reflector mid-way, also after the
 * panels of the blocked reduction have run); "tridiagonal" and "diagonal": every
 * reflector is the identity. Zeros off the structure are -0 when asked, and some
 * entries inside it too; "integers" draws from {-2, ..., 2} (repeated values, exact
 * cancellations).
 */
function buildMatrix(c: Case): Float64Array {
  const { n, pad } = c;
  const ld = n + pad;
  const random = new Random(c.seed);
  const a = new Float64Array(n * ld).fill(7.25);
  const blockOf = new Int32Array(n);
  for (let i = 1, b = 0; i < n; i++) {
    if (random.uniform() < c.blockRate) b++;
    blockOf[i] = b;
  }
  const zero = c.negativeZeros ? -0 : 0;
  for (let j = 0; j < n; j++) {
    for (let i = j; i < n; i++) {
      const inside =
        c.structure === "dense" ||
        (c.structure === "blocks" && blockOf[i] === blockOf[j]) ||
        (c.structure === "tridiagonal" && i - j <= 1) ||
        (c.structure === "diagonal" && i === j);
      let v = zero;
      if (inside) {
        v = c.integers ? random.integer(5) - 2 : random.normal();
        if (c.negativeZeros && random.uniform() < 0.1) v = -0;
      }
      a[j * ld + i] = v * c.scale;
    }
  }
  return a;
}

/** Vectors (k x n, rows) to back-transform, with zeros and -0 among them. */
function buildVectors(n: number, k: number, seed: number): Float64Array {
  const random = new Random(seed + 1);
  return Float64Array.from({ length: k * n }, () => {
    const u = random.uniform();
    return u < 0.05 ? -0 : u < 0.1 ? 0 : random.normal();
  });
}

/** Reduction and back-transformation with the loops in TypeScript, then in the module. */
function checkBoth(c: Case): void {
  const { n, pad } = c;
  const a = buildMatrix(c);
  const z = buildVectors(n, c.k, c.seed);
  resetCalls();
  const inTs = { householderLoops: false };
  const ts = householderTridiagonalize(a.slice(), n, n + pad, inTs);
  const zTs = z.slice();
  applyReflectors(ts, zTs, c.k, inTs);
  expect(calls).toEqual({ tridiagonalizeUnblocked: 0, applyReflectorBlocks: 0 });
  const wasm = householderTridiagonalize(a.slice(), n, n + pad);
  expectSameTridiagonal(wasm, ts);
  const zWasm = z.slice();
  applyReflectors(wasm, zWasm, c.k);
  expect(firstDifference(zWasm, zTs)).toBe(-1);
  // Below RESIDENT_MIN everything stays in TypeScript; an order-1 matrix has no reflector
  // to apply.
  const resident = n >= RESIDENT_MIN ? 1 : 0;
  expect(calls).toEqual({ tridiagonalizeUnblocked: resident, applyReflectorBlocks: resident });
}

// Orders: every size up to 200, with extra weight on the edges (RESIDENT_MIN, the last
// order reduced unblocked only (97), the first blocked ones, one or several panels).
const order = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 200 }) },
  { weight: 2, arbitrary: fc.constantFrom(1, 2, 7, 8, 9, 33, 80, 96, 97, 98, 99, 129, 130, 131) },
);
const scale = fc.constantFrom(1, 1e-150, 1e150, 2 ** -1000, 1e-8, 1e8, 0.75);
const structure = fc.constantFrom<Structure>(
  "dense",
  "dense",
  "blocks",
  "blocks",
  "tridiagonal",
  "diagonal",
  "zero",
);
const randomCase = order.chain((n) =>
  fc.record({
    n: fc.constant(n),
    pad: fc.constantFrom(0, 0, 0, 3),
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    structure,
    blockRate: fc.constantFrom(0.03, 0.1, 0.4),
    scale,
    negativeZeros: fc.boolean(),
    integers: fc.boolean(),
    k: fc.integer({ min: 1, max: n }),
  }),
);

describe("Householder loops in the module and in TypeScript give the same bits", () => {
  it("random symmetric matrices of orders 1..200: d, e, tau, reflectors, Q z", () => {
    fc.assert(
      fc.property(randomCase, (c) => checkBoth(c)),
      { numRuns: 150, seed: 21 },
    );
  });

  it("every order from 1 to 200 once, dense and block diagonal", () => {
    for (let n = 1; n <= 200; n++) {
      checkBoth({
        n,
        pad: n % 3,
        seed: n,
        structure: n % 2 === 0 ? "dense" : "blocks",
        blockRate: 0.08,
        scale: 1,
        negativeZeros: n % 5 === 0,
        integers: n % 7 === 0,
        k: Math.max(1, Math.round(n / (1 + (n % 4)))),
      });
    }
  });

  it("fixed corner cases: zero, diagonal, tridiagonal and all -0 matrices, huge and tiny", () => {
    for (const n of [8, 40, 97, 98, 160]) {
      for (const s of ["zero", "diagonal", "tridiagonal"] as const) {
        for (const sc of [1e-150, 1e150]) {
          checkBoth({
            n,
            pad: 0,
            seed: n,
            structure: s,
            blockRate: 0,
            scale: sc,
            negativeZeros: true,
            integers: false,
            k: n,
          });
        }
      }
    }
  });
});

/** Random symmetric Matrix (full storage), optionally with integer entries. */
function symmetricMatrix(n: number, seed: number, integers: boolean, s: number): Matrix {
  const random = new Random(seed);
  const A = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const v = (integers ? random.integer(5) - 2 : random.normal()) * s;
      A.data[i * n + j] = v;
      A.data[j * n + i] = v;
    }
  }
  return A;
}

describe("the driver's eigenpairs with the loops in the module and in TypeScript", () => {
  const eigenCase = order.chain((n) =>
    fc.record({
      n: fc.constant(n),
      seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
      integers: fc.boolean(),
      scale,
      select: fc.oneof(
        fc.constant<"all">("all"),
        fc.integer({ min: 1, max: n }).map((k) => ({ smallest: k })),
        fc.integer({ min: 1, max: n }).map((k) => ({ largest: k })),
      ),
    }),
  );

  it("symmetricEigen: the same eigenvalues and eigenvectors bit for bit", () => {
    fc.assert(
      fc.property(eigenCase, ({ n, seed, integers, scale: s, select }) => {
        const A = symmetricMatrix(n, seed, integers, s);
        resetCalls();
        const ts = symmetricEigen(A, { select, stages: { householderLoops: false } });
        expect(calls).toEqual({ tridiagonalizeUnblocked: 0, applyReflectorBlocks: 0 });
        const wasm = symmetricEigen(A, { select });
        expect(firstDifference(wasm.values, ts.values)).toBe(-1);
        expect(firstDifference(wasm.vectors?.data ?? [], ts.vectors?.data ?? [])).toBe(-1);
        if (n >= RESIDENT_MIN) {
          expect(calls.tridiagonalizeUnblocked).toBe(1);
          expect(calls.applyReflectorBlocks).toBe(1);
        }
      }),
      { numRuns: 60, seed: 22 },
    );
  });

  it("trailingEigenpairs at the paper's small training sizes (Yale 33, ORL 80, COIL20 288)", () => {
    for (const [n, k] of [
      [33, 10],
      [33, 33],
      [80, 40],
      [80, 10],
      [288, 40],
    ]) {
      const A = symmetricMatrix(n, n + k, false, 1);
      const ts = trailingEigenpairs(A, k, { stages: { householderLoops: false } });
      resetCalls();
      const wasm = trailingEigenpairs(A, k);
      expect(calls).toEqual({ tridiagonalizeUnblocked: 1, applyReflectorBlocks: 1 });
      expect(firstDifference(wasm.values, ts.values)).toBe(-1);
      expect(firstDifference(wasm.vectors.data, ts.vectors.data)).toBe(-1);
    }
  });
});
