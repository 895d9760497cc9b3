/**
 * The native GEMM (native/gemm.c, linalg/kernels/nativeGemm.node.ts): built by
 * `npm run build` on x86-64, it must load here; on the portable backend both its kernels
 * (AVX-512 where the CPU has it, and AVX2) give the WebAssembly kernel's bits on every
 * shape, leading dimension and accumulation, and so does its lower-block-rows call; its
 * single-precision screen stays within the screened search's bound and leaves that
 * search's answer as it was; the helpers run it; bad calls are refused; and a large-n
 * SDSPCAAN fit on it is the WebAssembly fit, bit for bit.
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import fc from "fast-check";
import { errorOf, repoRoot } from "sdspcaan-test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { initialNeighbours } from "#internal/graph/neighbours.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { gemmABtRaw } from "#internal/linalg/kernels/gemm.js";
import { kernelHelpers } from "#internal/linalg/kernels/helper.js";
import {
  nativeGemmIsa,
  nativeGemmUnavailable,
  nativeKernelsActive,
  nativeSettingFromEnv,
  setNativeKernels,
} from "#internal/linalg/kernels/nativeGemm.node.js";
import { gemmABtLowerBlocks } from "#internal/linalg/kernels/symmetricProducts.js";
import {
  type ExternalGemm,
  externalGemmInstalled,
  requestedKernelBackend,
  setKernelBackend,
  wasmArena,
} from "#internal/linalg/kernels/wasm/backend.js";
import { SDSPCAAN } from "#internal/methods/sdspcaan.js";
import { kernelThreads, setKernelThreads } from "#internal/threads/helperThread.node.js";
import { firstDifference, randomMatrix } from "../../helpers/matrices.js";
import { inputs } from "../../helpers/properties.js";
import { withPaths } from "../../helpers/qLoop.js";

const x64 = process.arch === "x64";
/** SDSPCAAN_NATIVE=0 skips the build of the addon (scripts/build-native.mjs), and its tests. */
const optedOut = /^(0|off|false|no)$/i.test(process.env.SDSPCAAN_NATIVE?.trim() ?? "");

/** The addon's functions return the name of the kernel that ran. */
type Gemm = (...args: Parameters<ExternalGemm>) => string | undefined;

/** gemmLower's arguments: gemm's, then base and block. */
type GemmLower = (memory: ArrayBuffer, ...args: number[]) => string | undefined;

interface Addon {
  gemm: Gemm;
  gemmAvx2: Gemm;
  gemmLower: GemmLower;
  gemmLowerAvx2: GemmLower;
  gemm32: Gemm;
  gemm32Avx2: Gemm;
  isa: string;
}

function addon(): Addon {
  return createRequire(import.meta.url)(
    join(repoRoot, "packages/sdspcaan-native/build/gemm.node"),
  ) as Addon;
}

/**
 * Allocates A (m x ld), B (n x ld) and three m x ldc blocks C1, C2, C3 in the arena,
 * fills A and B with normal values and the three Cs with the same ones (the products
 * are added to C), lets `run` compute a product into each, and expects C2 and C3 to
 * hold C1's bits, every entry.
 */
function expectSameProducts(
  arena: NonNullable<ReturnType<typeof wasmArena>>,
  m: number,
  n: number,
  ld: number,
  ldc: number,
  rng: Random,
  run: (at: { pa: number; pb: number; p1: number; p2: number; p3: number }) => void,
): void {
  const mark = arena.mark();
  try {
    const ptrs = arena.allocAll([m * ld, n * ld, m * ldc, m * ldc, m * ldc]);
    if (ptrs === null) throw new Error("no room in the arena");
    const [pa, pb, p1, p2, p3] = ptrs;
    const f = arena.f64;
    for (let t = 0; t < m * ld; t++) f[(pa >> 3) + t] = rng.normal();
    for (let t = 0; t < n * ld; t++) f[(pb >> 3) + t] = rng.normal();
    for (let t = 0; t < m * ldc; t++) {
      const v = rng.normal();
      f[(p1 >> 3) + t] = v;
      f[(p2 >> 3) + t] = v;
      f[(p3 >> 3) + t] = v;
    }
    run({ pa, pb, p1, p2, p3 });
    const g = arena.f64;
    const first = g.slice(p1 >> 3, (p1 >> 3) + m * ldc);
    expect(firstDifference(g.slice(p2 >> 3, (p2 >> 3) + m * ldc), first)).toBe(-1);
    expect(firstDifference(g.slice(p3 >> 3, (p3 >> 3) + m * ldc), first)).toBe(-1);
  } finally {
    arena.release(mark);
  }
}

// The native kernel with the module's bits is the portable backend's ("fast" runs the
// fused one: fastGemm.test.ts); each test switches it on where it compares.
beforeEach(() => {
  setKernelBackend("portable");
  setNativeKernels(false);
});

// Every test leaves the kernels as the file found them (the default kernels' setup), so
// that the files after it in its worker run on those.
const start = {
  backend: requestedKernelBackend(),
  native: nativeKernelsActive(),
  threads: kernelThreads(),
};
afterEach(() => {
  setNativeKernels(false);
  setKernelThreads(start.threads);
  setKernelBackend(start.backend);
  setNativeKernels(start.native);
});

describe.skipIf(!x64 || optedOut)("the native GEMM (x86-64)", () => {
  it("is built and runs on this machine (npm ci builds packages/sdspcaan-native/build/gemm.node)", () => {
    expect(nativeGemmUnavailable()).toBeNull();
    expect(["avx512", "avx2"]).toContain(addon().isa);
    expect(setNativeKernels(true)).toBe(true);
    expect(nativeKernelsActive()).toBe(true);
    expect(nativeGemmIsa()).toBe(addon().isa);
    expect(externalGemmInstalled()).toBe(true);
    expect(setNativeKernels(false)).toBe(false);
    expect(nativeGemmIsa()).toBeNull();
    expect(externalGemmInstalled()).toBe(false);
  });

  it("gives the WebAssembly kernel's bits, with either vector width, on any shape, leading dimension and C", () => {
    const arena = wasmArena();
    if (arena === null) throw new Error("the wasm backend is not active");
    const { gemm, gemmAvx2, isa } = addon();
    fc.assert(
      fc.property(
        inputs({ m: [1, 40], n: [1, 40], p: [1, 600], pad: [0, 3], seed: [0, 1e6] }),
        ({ m, n, p, pad, seed }) => {
          const rng = new Random(seed);
          const ld = p + pad;
          const ldc = n + pad;
          expectSameProducts(arena, m, n, ld, ldc, rng, ({ pa, pb, p1, p2, p3 }) => {
            setNativeKernels(false);
            arena.kernels.gemm(m, n, p, pa, ld, pb, ld, p1, ldc);
            // Each says which kernel ran: the widest the CPU has, and AVX2.
            expect(gemm(arena.buffer, m, n, p, pa, ld, pb, ld, p2, ldc)).toBe(isa);
            expect(gemmAvx2(arena.buffer, m, n, p, pa, ld, pb, ld, p3, ldc)).toBe("avx2");
          });
        },
      ),
      { numRuns: 120 },
    );
  });

  it("gives the bits of the WebAssembly kernel through the library's products, on one thread and two", () => {
    const m = 300;
    const n = 260;
    const p = 701;
    const A = randomMatrix(m, p, 1);
    const B = randomMatrix(n, p, 2);
    const wasm = new Float64Array(m * n);
    gemmABtRaw(m, n, p, A.data, p, B.data, p, wasm, n, false, false);
    const Gwasm = new Float64Array(m * m);
    gemmABtLowerBlocks(m, p, A.data, p, A.data, p, Gwasm, m);
    setNativeKernels(true);
    const one = new Float64Array(m * n);
    gemmABtRaw(m, n, p, A.data, p, B.data, p, one, n, false, false);
    expect(firstDifference(one, wasm)).toBe(-1);
    setKernelThreads(2);
    const two = new Float64Array(m * n);
    gemmABtRaw(m, n, p, A.data, p, B.data, p, two, n, false, true);
    expect(firstDifference(two, wasm)).toBe(-1);
    const G2 = new Float64Array(m * m);
    gemmABtLowerBlocks(m, p, A.data, p, A.data, p, G2, m);
    expect(firstDifference(G2, Gwasm)).toBe(-1);
    // The helper itself answers (a failed helper would have let the products above
    // fall back to this thread): one product asked of it directly.
    const [helper] = kernelHelpers();
    const direct = new Float64Array(m * n);
    helper.startProduct(m, n, p, A.data, p, B.data, p, null, n);
    helper.finishProduct(direct, n);
    expect(firstDifference(direct, wasm)).toBe(-1);
  });

  it("sums every lower-block entry as the full product does, block rows whole or split, either kernel", () => {
    // gemmABtLowerBlocks calls the kernel once per block row (and a helper once per
    // strip): each entry it keeps must have the bits the full product gives it.
    for (const native of [false, true]) {
      setNativeKernels(native);
      for (const [m, p, block] of [
        [300, 701, 64],
        [197, 130, 64],
        [70, 33, 16],
      ] as const) {
        const A = randomMatrix(m, p, m + p);
        const B = randomMatrix(m, p, m + p + 1);
        const full = new Float64Array(m * m);
        gemmABtRaw(m, m, p, A.data, p, B.data, p, full, m, false, false);
        for (const threads of [1, 2]) {
          setKernelThreads(threads);
          const lower = new Float64Array(m * m);
          gemmABtLowerBlocks(m, p, A.data, p, B.data, p, lower, m, block);
          for (let i = 0; i < m; i++) {
            const width = Math.min(m, (Math.floor(i / block) + 1) * block);
            for (let j = 0; j < width; j++) {
              if (!Object.is(lower[i * m + j], full[i * m + j])) {
                throw new Error(
                  `entry (${i}, ${j}) differs (native ${native}, ${threads} threads)`,
                );
              }
            }
          }
        }
        setKernelThreads(1);
      }
    }
  });

  it("gemmLower writes the block-row loop's entries with their bits and leaves every other entry", () => {
    // arena.kernels.gemmLowerBlocks without the addon is one module gemm per block row;
    // with it, one native call. Same entries, same bits, the rest of C as it was.
    const arena = wasmArena();
    if (arena === null) throw new Error("the wasm backend is not active");
    const { gemmLower, gemmLowerAvx2, isa } = addon();
    fc.assert(
      fc.property(
        inputs({
          n: [1, 50],
          p: [1, 300],
          block: [1, 24],
          baseSeed: [0, 60],
          seed: [0, 1e6],
          pad: [0, 2],
        }),
        ({ n, p, block, baseSeed, seed, pad }) => {
          const rng = new Random(seed);
          const m = 1 + (seed % n);
          const base = baseSeed % (n + 1);
          const ld = p + pad;
          const ldc = n + pad;
          expectSameProducts(arena, m, n, ld, ldc, rng, ({ pa, pb, p1, p2, p3 }) => {
            setNativeKernels(false);
            arena.kernels.gemmLowerBlocks(m, n, p, pa, ld, pb, ld, p1, ldc, base, block);
            expect(gemmLower(arena.buffer, m, n, p, pa, ld, pb, ld, p2, ldc, base, block)).toBe(
              isa,
            );
            gemmLowerAvx2(arena.buffer, m, n, p, pa, ld, pb, ld, p3, ldc, base, block);
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it("gemm32 screens within the bound the screened search assumes, and that search finds the same neighbours", () => {
    // The native screen sums in another order with fused multiply-adds: its estimates
    // differ from the module's, but stay within gamma_p sum |a_l b_l| of the exact dot
    // product (what screenedSearch.ts's bound covers), and C is overwritten.
    const arena = wasmArena();
    if (arena === null) throw new Error("the wasm backend is not active");
    const { gemm32, gemm32Avx2, isa } = addon();
    const u = 2 ** -24;
    for (const [m, n, p] of [
      [16, 203, 784],
      [5, 7, 33],
      [9, 40, 1],
      [37, 101, 130],
    ] as const) {
      const rng = new Random(m * n + p);
      const mark = arena.mark();
      try {
        const ptrs = arena.allocAll([Math.ceil((m * p) / 2), Math.ceil((n * p) / 2), m * n]);
        if (ptrs === null) throw new Error("no room in the arena");
        const [pa, pb, pc] = ptrs;
        const a = new Float32Array(arena.buffer, pa, m * p);
        const b = new Float32Array(arena.buffer, pb, n * p);
        for (let t = 0; t < m * p; t++) a[t] = rng.normal() * 4;
        for (let t = 0; t < n * p; t++) b[t] = rng.normal();
        const gamma = (p * u) / (1 - p * u);
        for (const kernel of [gemm32, gemm32Avx2]) {
          arena.f64.fill(Number.NaN, pc >> 3, (pc >> 3) + m * n);
          const ran = kernel(arena.buffer, m, n, p, pa, p, pb, p, pc, n);
          expect(ran).toBe(kernel === gemm32 ? isa : "avx2");
          const c = arena.f64;
          for (let i = 0; i < m; i++) {
            for (let j = 0; j < n; j++) {
              let exact = 0;
              let size = 0;
              for (let l = 0; l < p; l++) {
                exact += a[i * p + l] * b[j * p + l];
                size += Math.abs(a[i * p + l] * b[j * p + l]);
              }
              const got = c[(pc >> 3) + i * n + j];
              expect(Math.abs(got - exact)).toBeLessThanOrEqual(gamma * size + 1e-12 * size);
            }
          }
        }
      } finally {
        arena.release(mark);
      }
    }
    // The initial search (screened from 2,000 rows on) with the native screen: the
    // module's neighbours and distances, bit for bit, on one thread and two, with
    // duplicated rows (exact ties) among them.
    const rng = new Random(11);
    const n = 2600;
    const d = 48;
    const X = new Matrix(n, d);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < d; j++) X.data[i * d + j] = rng.normal() + (i % 7 === j % 7 ? 2 : 0);
    }
    for (let i = 0; i < 40; i++) X.data.copyWithin((n - 1 - i) * d, i * 13 * d, (i * 13 + 1) * d);
    setNativeKernels(false);
    const wasm = initialNeighbours(X, 11);
    for (const threads of [1, 2]) {
      setNativeKernels(true);
      setKernelThreads(threads);
      const native = initialNeighbours(X, 11);
      expect(Array.from(native.indices)).toEqual(Array.from(wasm.indices));
      expect(firstDifference(native.distances, wasm.distances)).toBe(-1);
      expect(firstDifference(native.primary, wasm.primary)).toBe(-1);
    }
  });

  it("refuses operands outside the memory and malformed calls, with a RangeError", () => {
    const { gemm } = addon();
    const memory = new ArrayBuffer(8 * 100);
    // C's last row would end past the buffer.
    expect(() => gemm(memory, 2, 2, 3, 0, 3, 48, 3, 8 * 98, 2)).toThrow(RangeError);
    // A leading dimension shorter than the row; a negative size; a misaligned offset.
    expect(() => gemm(memory, 2, 2, 3, 0, 2, 48, 3, 96, 2)).toThrow(RangeError);
    expect(() => gemm(memory, -1, 2, 3, 0, 3, 48, 3, 96, 2)).toThrow(RangeError);
    expect(() => gemm(memory, 2, 2, 3, 4, 3, 48, 3, 96, 2)).toThrow(RangeError);
    const call = gemm as unknown as (...args: unknown[]) => void;
    expect(() => call(new Float64Array(4), 1, 1, 1, 0, 1, 8, 1, 16, 1)).toThrow(RangeError);
    expect(() => call(memory, 1, 1)).toThrow(RangeError);
    // gemmLower: two more arguments, a positive block; gemm32: float operands (4-byte
    // aligned) that must fit too.
    const { gemmLower, gemm32 } = addon();
    expect(() => gemmLower(memory, 2, 2, 3, 0, 3, 48, 3, 96, 2)).toThrow(RangeError);
    expect(() => gemmLower(memory, 2, 2, 3, 0, 3, 48, 3, 96, 2, 0, 0)).toThrow(/block/);
    expect(() => gemmLower(memory, 2, 2, 3, 0, 3, 48, 3, 8 * 98, 2, 0, 1)).toThrow(RangeError);
    expect(() => gemm32(memory, 2, 2, 3, 2, 3, 48, 3, 96, 2)).toThrow(RangeError);
    expect(() => gemm32(memory, 2, 2, 3, 0, 3, 8 * 99, 3, 96, 2)).toThrow(RangeError);
    expect(() => gemm32(memory, 2, 2, 3, 0, 3, 48, 3, 8 * 98, 2)).toThrow(RangeError);
    // A valid call: [1 2 3; 4 5 6] [1 0 1; 0 1 0]^T.
    const f = new Float64Array(memory);
    f.set([1, 2, 3, 4, 5, 6, 1, 0, 1, 0, 1, 0]);
    gemm(memory, 2, 2, 3, 0, 3, 48, 3, 96, 2);
    expect(Array.from(f.subarray(12, 16))).toEqual([4, 2, 10, 5]);
  });

  it("gives the dense eigen-solver's pairs the module's bits (its back-transformation loop then runs in TypeScript)", () => {
    const rng = new Random(11);
    for (const n of [40, 150, 300]) {
      const A = new Matrix(n, n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j <= i; j++) {
          const v = rng.normal();
          A.data[i * n + j] = v;
          A.data[j * n + i] = v;
        }
      }
      for (const k of [1, Math.floor(n / 5), n]) {
        setNativeKernels(false);
        const wasm = symmetricEigen(A, { select: { smallest: k } });
        setNativeKernels(true);
        const native = symmetricEigen(A, { select: { smallest: k } });
        expect(firstDifference(native.values, wasm.values)).toBe(-1);
        expect(
          firstDifference((native.vectors as Matrix).data, (wasm.vectors as Matrix).data),
        ).toBe(-1);
      }
    }
  });

  it("gives a dense-solver SDSPCAAN fit the WebAssembly fit's components, bit for bit", () => {
    const rng = new Random(8);
    const n = 160;
    const d = 60;
    const X = new Matrix(n, d);
    const y: number[] = [];
    for (let i = 0; i < n; i++) {
      y.push(i % 4);
      for (let j = 0; j < d; j++) X.data[i * d + j] = rng.normal() + (j % 4 === i % 4 ? 1.5 : 0);
    }
    const opts = { k: 40, solver: "dense", maxIter: 30 } as const;
    const wasm = new SDSPCAAN(opts).fit(X, y);
    setNativeKernels(true);
    const native = new SDSPCAAN(opts).fit(X, y);
    expect(native.fitInfo.iterations).toBe(wasm.fitInfo.iterations);
    expect(firstDifference(native.components.data, wasm.components.data)).toBe(-1);
  });

  it("gives a large-n SDSPCAAN fit the WebAssembly fit's components, bit for bit, on two threads", () => {
    const rng = new Random(7);
    const n = 600;
    const d = 40;
    const c = 4;
    const X = new Matrix(n, d);
    const y: number[] = [];
    for (let i = 0; i < n; i++) {
      const label = i % c;
      y.push(label);
      for (let j = 0; j < d; j++) X.data[i * d + j] = rng.normal() + (j % c === label ? 1.2 : 0);
    }
    const opts = { k: 6, solver: "lobpcg" } as const;
    const fitLarge = () => withPaths(new SDSPCAAN(opts), { largeScale: "always" }).fit(X, y);
    const wasm = fitLarge();
    setNativeKernels(true);
    setKernelThreads(2);
    const native = fitLarge();
    expect(native.fitInfo.iterations).toBe(wasm.fitInfo.iterations);
    expect(native.fitInfo.lambdaTrace).toEqual(wasm.fitInfo.lambdaTrace);
    expect(firstDifference(native.components.data, wasm.components.data)).toBe(-1);
  });
});

describe("setNativeKernels", () => {
  it("rejects a setting other than true, false or auto, naming it", () => {
    expect(() => setNativeKernels("yes" as unknown as boolean)).toThrow(ValidationError);
    expect(() => setNativeKernels("yes" as unknown as boolean)).toThrow(/native/);
  });

  it("stays off under auto when SDSPCAAN_NATIVE=0, and keeps to AVX2 with SDSPCAAN_NATIVE=avx2", () => {
    const before = process.env.SDSPCAAN_NATIVE;
    try {
      process.env.SDSPCAAN_NATIVE = "0";
      expect(setNativeKernels("auto")).toBe(false);
      expect(externalGemmInstalled()).toBe(false);
      if (x64 && !optedOut) {
        process.env.SDSPCAAN_NATIVE = "avx2";
        expect(setNativeKernels("auto")).toBe(true);
        expect(nativeGemmIsa()).toBe("avx2");
      }
    } finally {
      if (before === undefined) delete process.env.SDSPCAAN_NATIVE;
      else process.env.SDSPCAAN_NATIVE = before;
    }
  });

  const nativeRefusal = (got: string) =>
    `The environment variable SDSPCAAN_NATIVE must be 0 (or off, false, no: the WebAssembly kernels), avx2, or 1 (or on, true, yes, auto), or be unset. Got ${got} instead.`;

  it("reads SDSPCAAN_NATIVE's settings in any case, and refuses any other value naming it", () => {
    for (const [value, setting] of [
      ["0", "off"],
      [" OFF ", "off"],
      ["false", "off"],
      ["no", "off"],
      ["AVX2", "avx2"],
      ["1", "auto"],
      ["on", "auto"],
      ["True", "auto"],
      ["yes", "auto"],
      ["auto", "auto"],
      ["", "auto"],
      [undefined, "auto"],
    ] as const) {
      expect(nativeSettingFromEnv({ SDSPCAAN_NATIVE: value })).toBe(setting);
    }
    expect(nativeSettingFromEnv(undefined)).toBe("auto");
    const known = /^(0|off|false|no|avx2|1|on|true|yes|auto|)$/;
    fc.assert(
      fc.property(
        fc.string().filter((v) => !known.test(v.trim().toLowerCase())),
        (value) => {
          const err = errorOf(() => nativeSettingFromEnv({ SDSPCAAN_NATIVE: value }));
          expect(err).toBeInstanceOf(ValidationError);
          expect([(err as ValidationError).argument, err.message]).toEqual([
            "SDSPCAAN_NATIVE",
            nativeRefusal(JSON.stringify(value)),
          ]);
        },
      ),
    );
  });

  it("refuses auto and true under an unknown SDSPCAAN_NATIVE; false needs no setting", () => {
    const before = process.env.SDSPCAAN_NATIVE;
    const wasNative = nativeKernelsActive();
    try {
      process.env.SDSPCAAN_NATIVE = "avx";
      for (const request of ["auto", true] as const) {
        const err = errorOf(() => setNativeKernels(request));
        expect([(err as ValidationError).argument, err.message]).toEqual([
          "SDSPCAAN_NATIVE",
          nativeRefusal('"avx"'),
        ]);
        // Refused before anything changed.
        expect(nativeKernelsActive()).toBe(wasNative);
      }
      expect(setNativeKernels(false)).toBe(false);
    } finally {
      if (before === undefined) delete process.env.SDSPCAAN_NATIVE;
      else process.env.SDSPCAAN_NATIVE = before;
      setNativeKernels(wasNative);
    }
  });

  it.skipIf(x64)("says why it cannot run off x86-64, and true throws that reason", () => {
    expect(nativeGemmUnavailable()).toMatch(/x86-64/);
    expect(() => setNativeKernels(true)).toThrow(ValidationError);
    expect(setNativeKernels("auto")).toBe(false);
  });
});
