/**
 * The "fast" backend's GEMM. Natively (sdspcaan-native's fma.c): every entry is one chain
 * of fused multiply-adds from C's value in l order, checked against that chain computed
 * exactly (BigInt) on every remainder of the kernel's blocking, at both widths; it agrees
 * with the module's GEMM to rounding; its lower-block form writes its entries and nothing
 * else; and the library's products on "fast" run it, with the same bits on one, two and
 * three threads, while gemmABtExact and "portable" keep the module's bits. The relaxed-SIMD
 * module (fma.wat; that it matches its source is test/project/wasmModules.test.ts's check)
 * is passed over without failing where the engine refuses it, and where the engine
 * validates it (a child process with relaxed SIMD switched on) agrees with the module's
 * GEMM to rounding with bits of its own.
 */
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import fc from "fast-check";
import { repoRoot } from "sdspcaan-test-support";
import { afterEach, describe, expect, it } from "vitest";
import { Random } from "#internal/core/rng.js";
import { householderTridiagonalize } from "#internal/linalg/eigen/householder.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { gemmABtExact, gemmABtRaw } from "#internal/linalg/kernels/gemm.js";
import {
  nativeGemmUnavailable,
  setNativeKernels,
} from "#internal/linalg/kernels/nativeGemm.node.js";
import { gemmABtLowerBlocks } from "#internal/linalg/kernels/symmetricProducts.js";
import {
  type ExternalGemm,
  fmaGemmModule,
  kernelBackend,
  moduleGemmInUse,
  setKernelBackend,
  wasmArena,
} from "#internal/linalg/kernels/wasm/backend.js";
import { fmaModuleBytes } from "#internal/linalg/kernels/wasm/moduleBytes.js";
import { setKernelThreads } from "#internal/threads/helperThread.node.js";
import { firstDifference, fusedMultiplyAdd, randomMatrix } from "../../helpers/matrices.js";
import { inputs } from "../../helpers/properties.js";
import { wasmEngine } from "../../helpers/wasmEngine.js";

const x64 = process.arch === "x64";
const optedOut = /^(0|off|false|no)$/i.test(process.env.SDSPCAAN_NATIVE?.trim() ?? "");

type GemmLower = (memory: ArrayBuffer, ...args: number[]) => string | undefined;

type Native = (memory: ArrayBuffer, ...args: number[]) => string | undefined;

interface Addon {
  symvFma: Native;
  symvFmaAvx2: Native;
  combine2Fma: Native;
  combine2FmaAvx2: Native;
  dots2Fma: Native;
  dots2FmaAvx2: Native;
  latrdFma: Native;
  gemm: ExternalGemm;
  gemmFma: (...args: Parameters<ExternalGemm>) => string | undefined;
  gemmFmaAvx2: (...args: Parameters<ExternalGemm>) => string | undefined;
  gemmLowerFma: GemmLower;
  gemmLowerFmaAvx2: GemmLower;
  fusedIsa: string;
}

function addon(): Addon {
  return createRequire(import.meta.url)(
    join(repoRoot, "packages/sdspcaan-native/build/gemm.node"),
  ) as Addon;
}

/** Unit roundoff of double precision. */
const U = 2 ** -53;

/** A, B and C filled with normal values in an ArrayBuffer, at byte offsets 0, pb, pc. */
function operands(m: number, n: number, ld: number, ldc: number, seed: number) {
  const rng = new Random(seed);
  const pb = m * ld * 8;
  const pc = pb + n * ld * 8;
  const memory = new ArrayBuffer(pc + m * ldc * 8);
  const f = new Float64Array(memory);
  for (let t = 0; t < f.length; t++) f[t] = rng.normal();
  return { memory, f, pb, pc, c0: f.slice(pc >> 3) };
}

afterEach(() => {
  setKernelThreads(1);
  setKernelBackend("auto");
  setNativeKernels("auto");
});

describe.skipIf(!x64 || optedOut)("the native fused GEMM (x86-64)", () => {
  it("sums each entry as one chain of fused multiply-adds from C, at either width, on every remainder of its blocking", () => {
    // Tiles of 12 x 16 (AVX-512) and 6 x 8 (AVX2), panels of 256, blocks of 384 columns:
    // m, n and p range over every remainder of the tiles and past a panel.
    const native = addon();
    expect(["avx512", "avx2"]).toContain(native.fusedIsa);
    fc.assert(
      fc.property(
        inputs({ m: [1, 26], n: [1, 34], p: [1, 300], pad: [0, 3], seed: [0, 1e6] }),
        ({ m, n, p, pad, seed }) => {
          const ld = p + pad;
          const ldc = n + pad;
          const { memory, f, pb, pc, c0 } = operands(m, n, ld, ldc, seed);
          for (const run of [native.gemmFma, native.gemmFmaAvx2]) {
            f.set(c0, pc >> 3);
            run(memory, m, n, p, 0, ld, pb, ld, pc, ldc);
            for (let i = 0; i < m; i++) {
              for (let j = 0; j < ldc; j++) {
                let c = c0[i * ldc + j];
                if (j < n) {
                  for (let l = 0; l < p; l++) {
                    c = fusedMultiplyAdd(f[i * ld + l], f[(pb >> 3) + j * ld + l], c);
                  }
                }
                if (!Object.is(f[(pc >> 3) + i * ldc + j], c)) {
                  throw new Error(`entry (${i}, ${j}) of ${m} x ${n} x ${p} differs`);
                }
              }
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it("gives each entry the bits it has alone, past a block of columns and a panel, at both widths, A packed or not", () => {
    // Rows of A 530 doubles apart are read in place; 1,024 apart (4 KiB-aliased) with
    // many columns they are packed first; one row against one column always in place.
    const native = addon();
    for (const [m, n, p] of [
      [29, 411, 530],
      [29, 411, 1024],
    ]) {
      const { memory, f, pb, pc, c0 } = operands(m, n, p, n, 7);
      native.gemmFma(memory, m, n, p, 0, p, pb, p, pc, n);
      const whole = f.slice(pc >> 3);
      f.set(c0, pc >> 3);
      native.gemmFmaAvx2(memory, m, n, p, 0, p, pb, p, pc, n);
      expect(firstDifference(f.slice(pc >> 3), whole)).toBe(-1);
      // Row i against column j alone (a 1 x 1 product, C at its own entry).
      f.set(c0, pc >> 3);
      for (const [i, j] of [
        [0, 0],
        [28, 410],
        [12, 383],
        [13, 384],
        [5, 17],
      ]) {
        native.gemmFma(memory, 1, 1, p, i * p * 8, p, pb + j * p * 8, p, pc + (i * n + j) * 8, n);
        expect(f[(pc >> 3) + i * n + j]).toBe(whole[i * n + j]);
      }
    }
  });

  it("agrees with the module's GEMM to rounding: |fused - exact| <= 2 (p + 2) u (|C| + sum |a_l b_l|)", () => {
    const native = addon();
    for (const [m, n, p] of [
      [37, 53, 1000],
      [100, 7, 4097],
    ]) {
      const { memory, f, pb, pc, c0 } = operands(m, n, p, n, m + n + p);
      native.gemmFma(memory, m, n, p, 0, p, pb, p, pc, n);
      const fused = f.slice(pc >> 3);
      f.set(c0, pc >> 3);
      native.gemm(memory, m, n, p, 0, p, pb, p, pc, n);
      const exact = f.slice(pc >> 3);
      let differ = 0;
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let scale = Math.abs(c0[i * n + j]);
          for (let l = 0; l < p; l++) scale += Math.abs(f[i * p + l] * f[(pb >> 3) + j * p + l]);
          const gap = Math.abs(fused[i * n + j] - exact[i * n + j]);
          expect(gap).toBeLessThanOrEqual(2 * (p + 2) * U * scale);
          if (gap > 0) differ++;
        }
      }
      // Another kernel: most entries differ in their last bits.
      expect(differ).toBeGreaterThan((m * n) / 2);
    }
  });

  it("gemmLowerFma writes gemmFma's entries on the lower block rows and leaves every other entry", () => {
    const native = addon();
    fc.assert(
      fc.property(
        inputs({ n: [1, 60], p: [1, 300], block: [1, 30], baseSeed: [0, 70], seed: [0, 1e6] }),
        ({ n, p, block, baseSeed, seed }) => {
          const m = 1 + (seed % n);
          const base = baseSeed % (n + 1);
          const { memory, f, pb, pc, c0 } = operands(m, n, p, n, seed);
          native.gemmFma(memory, m, n, p, 0, p, pb, p, pc, n);
          const full = f.slice(pc >> 3);
          for (const lower of [native.gemmLowerFma, native.gemmLowerFmaAvx2]) {
            f.set(c0, pc >> 3);
            lower(memory, m, n, p, 0, p, pb, p, pc, n, base, block);
            for (let i = 0; i < m; i++) {
              const width = Math.min(n, base + (Math.floor(i / block) + 1) * block);
              for (let j = 0; j < n; j++) {
                const want = j < width ? full[i * n + j] : c0[i * n + j];
                if (!Object.is(f[(pc >> 3) + i * n + j], want)) {
                  throw new Error(`entry (${i}, ${j}) differs`);
                }
              }
            }
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it("runs the library's products on the fast backend, the same bits on one, two and three threads; gemmABtExact and portable keep the module's", () => {
    expect(nativeGemmUnavailable()).toBeNull();
    const [m, n, p] = [310, 270, 703];
    const A = randomMatrix(m, p, 1);
    const B = randomMatrix(n, p, 2);
    const product = (threads: boolean) => {
      const C = new Float64Array(m * n);
      gemmABtRaw(m, n, p, A.data, p, B.data, p, C, n, false, threads);
      return C;
    };
    // The module's bits: the portable backend, natively or not.
    setKernelBackend("portable");
    expect(kernelBackend()).toBe("wasm");
    setNativeKernels(false);
    const wasm = product(false);
    setNativeKernels(true);
    expect(moduleGemmInUse()).toBe(false);
    expect(firstDifference(product(false), wasm)).toBe(-1);
    // The fast backend: the fused chains.
    setKernelBackend("fast");
    expect(kernelBackend()).toBe("fast");
    const fast = product(false);
    expect(firstDifference(fast, wasm)).not.toBe(-1);
    const arena = wasmArena();
    if (arena === null) throw new Error("no arena");
    const { memory, f, pb, pc } = operands(1, 1, p, 1, 0);
    f.set(A.data.subarray(0, p), 0);
    f.set(B.data.subarray(0, p), pb >> 3);
    f[pc >> 3] = 0;
    addon().gemmFma(memory, 1, 1, p, 0, p, pb, p, pc, 1);
    expect(fast[0]).toBe(f[pc >> 3]);
    const exact = new Float64Array(m * n);
    gemmABtExact(m, n, p, A.data, p, B.data, p, exact, n, false);
    expect(firstDifference(exact, wasm)).toBe(-1);
    const lowerOne = new Float64Array(m * m);
    gemmABtLowerBlocks(m, p, A.data, p, A.data, p, lowerOne, m);
    for (const threads of [2, 3]) {
      setKernelThreads(threads);
      expect(firstDifference(product(true), fast)).toBe(-1);
      const exactThreaded = new Float64Array(m * n);
      gemmABtExact(m, n, p, A.data, p, B.data, p, exactThreaded, n, true);
      expect(firstDifference(exactThreaded, wasm)).toBe(-1);
      const lower = new Float64Array(m * m);
      gemmABtLowerBlocks(m, p, A.data, p, A.data, p, lower, m);
      expect(firstDifference(lower, lowerOne)).toBe(-1);
    }
  });
});

describe.skipIf(!x64 || optedOut)("the fast backend's reduction kernels (x86-64)", () => {
  /** Doubles filled with normal values (and some -0 and 0) in a fresh ArrayBuffer. */
  function memoryOf(doubles: number, seed: number) {
    const rng = new Random(seed);
    const memory = new ArrayBuffer(doubles * 8);
    const f = new Float64Array(memory);
    for (let t = 0; t < doubles; t++) {
      const u = rng.uniform();
      f[t] = u < 0.02 ? -0 : u < 0.04 ? 0 : rng.normal();
    }
    return { memory, f };
  }

  it("combine2: t[r] = fma(w_l[r], -cw_l, fma(v_l[r], -cv_l, t[r])) for l in order, at both widths", () => {
    const native = addon();
    fc.assert(
      fc.property(
        inputs({ len: [0, 90], count: [1, 9], pad: [0, 3], seed: [0, 1e6] }),
        ({ len, count, pad, seed }) => {
          const ld = len + pad;
          // t (len), v and w (count rows of ld each), cv and cw (count each).
          const v = len;
          const w = v + count * ld;
          const cv = w + count * ld;
          const cw = cv + count;
          const { memory, f } = memoryOf(cw + count, seed);
          const t0 = f.slice(0, len);
          const want = Float64Array.from(t0, (x, r) => {
            let acc = x;
            for (let l = 0; l < count; l++) {
              acc = fusedMultiplyAdd(f[v + l * ld + r], -f[cv + l], acc);
              acc = fusedMultiplyAdd(f[w + l * ld + r], -f[cw + l], acc);
            }
            return acc;
          });
          for (const run of [native.combine2Fma, native.combine2FmaAvx2]) {
            f.set(t0, 0);
            run(memory, 0, len, v * 8, ld, w * 8, ld, count, cv * 8, cw * 8);
            expect(firstDifference(f.subarray(0, len), want)).toBe(-1);
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it("dots2: each dot product in 32 lanes of fused multiply-adds, added in a fixed order, at both widths", () => {
    const native = addon();
    const sum8 = (t: number[], o: number) =>
      t[o] + t[o + 1] + (t[o + 2] + t[o + 3]) + (t[o + 4] + t[o + 5] + (t[o + 6] + t[o + 7]));
    const dot = (f: Float64Array, at: number, x: number, len: number) => {
      const lanes = new Array<number>(32).fill(0);
      for (let r = 0; r < len; r++)
        lanes[r % 32] = fusedMultiplyAdd(f[at + r], f[x + r], lanes[r % 32]);
      return sum8(lanes, 0) + sum8(lanes, 8) + (sum8(lanes, 16) + sum8(lanes, 24));
    };
    fc.assert(
      fc.property(
        inputs({ len: [0, 150], count: [1, 7], seed: [0, 1e6] }),
        ({ len, count, seed }) => {
          const [v, w, x, ov] = [0, count * len, 2 * count * len, 2 * count * len + len];
          const ow = ov + count;
          const { memory, f } = memoryOf(ow + count, seed);
          for (const run of [native.dots2Fma, native.dots2FmaAvx2]) {
            run(memory, v * 8, len, w * 8, len, count, x * 8, len, ov * 8, ow * 8);
            for (let l = 0; l < count; l++) {
              expect(f[ov + l]).toBe(dot(f, v + l * len, x, len));
              expect(f[ow + l]).toBe(dot(f, w + l * len, x, len));
            }
          }
        },
      ),
      { numRuns: 120 },
    );
  });

  it("symv: y + S x to rounding, the same bits at both widths, on every remainder of its sweeps", () => {
    const native = addon();
    for (let m = 1; m <= 70; m++) {
      for (const pad of [0, 3]) {
        const lda = m + pad;
        const [a, x, y] = [0, m * lda, m * lda + m];
        const { memory, f } = memoryOf(y + m, m * 10 + pad);
        const y0 = f.slice(y, y + m);
        const S = (r: number, c: number) => (r >= c ? f[a + c * lda + r] : f[a + r * lda + c]);
        native.symvFma(memory, a * 8, lda, m, x * 8, y * 8);
        const wide = f.slice(y, y + m);
        f.set(y0, y);
        native.symvFmaAvx2(memory, a * 8, lda, m, x * 8, y * 8);
        expect(firstDifference(f.subarray(y, y + m), wide)).toBe(-1);
        for (let r = 0; r < m; r++) {
          let exact = y0[r];
          let scale = Math.abs(y0[r]);
          for (let c = 0; c < m; c++) {
            exact += S(r, c) * f[x + c];
            scale += Math.abs(S(r, c) * f[x + c]);
          }
          expect(Math.abs(wide[r] - exact)).toBeLessThanOrEqual(2 * (m + 2) * U * scale);
        }
      }
    }
  });

  it("refuses operands outside the memory with a RangeError", () => {
    const native = addon();
    const memory = new ArrayBuffer(8 * 100);
    expect(() => native.symvFma(memory, 0, 10, 11, 0, 0)).toThrow(/symv: an operand lies outside/);
    expect(() => native.symvFma(memory, 0, 9, 10, 0, 0)).toThrow(RangeError);
    expect(() => native.combine2Fma(memory, 0, 50, 0, 50, 400, 50, 2, 0, 8)).toThrow(
      /combine2\/dots2: an operand lies outside/,
    );
    expect(() => native.dots2Fma(memory, 0, 60, 0, 60, 2, 0, 60, 0, 8)).toThrow(RangeError);
    expect(() => native.dots2Fma(memory, 0, 10)).toThrow(/dots2: expected/);
    expect(() => native.latrdFma(memory, 0, 11, 11, 0, 4, 0, 0, 0, 0)).toThrow(
      /latrd: an operand lies outside/,
    );
    expect(() => native.latrdFma(memory, 0, 5, 5, 3, 4, 0, 0, 0, 0)).toThrow(RangeError);
  });

  it("runs each panel of the blocked reduction in one native call, with the TypeScript loop's bits", () => {
    setKernelBackend("fast");
    const arena = wasmArena();
    if (arena === null) throw new Error("no arena");
    // Installed on "fast" only: the arena's latrd refuses elsewhere (nothing done).
    const mark = arena.mark();
    const ptrs = arena.allocAll([100 * 100, 99, 99, 32 * 100, 66]);
    if (ptrs === null) throw new Error("no room");
    expect(arena.kernels.latrd(ptrs[0], 100, 100, 0, 32, ptrs[1], ptrs[2], ptrs[3], ptrs[4])).toBe(
      true,
    );
    setKernelBackend("portable");
    expect(arena.kernels.latrd(ptrs[0], 100, 100, 0, 32, ptrs[1], ptrs[2], ptrs[3], ptrs[4])).toBe(
      false,
    );
    arena.release(mark);
    setKernelBackend("fast");
    // Orders with one panel, several, and a leading dimension above n.
    for (const [n, pad] of [
      [98, 0],
      [131, 3],
      [260, 0],
    ]) {
      const lda = n + pad;
      const A = randomMatrix(n, lda, n);
      for (let i = 0; i < n; i++)
        for (let j = 0; j < i; j++) A.data[j * lda + i] = A.data[i * lda + j];
      const native = householderTridiagonalize(A.data.slice(), n, lda);
      const loop = householderTridiagonalize(A.data.slice(), n, lda, { nativePanels: false });
      expect(firstDifference(native.diagonal, loop.diagonal)).toBe(-1);
      expect(firstDifference(native.offDiagonal, loop.offDiagonal)).toBe(-1);
      expect(firstDifference(native.tau, loop.tau)).toBe(-1);
      expect(firstDifference(native.reflectors, loop.reflectors)).toBe(-1);
    }
  });

  it("gives the fast backend's eigenpairs those of the portable one to rounding, and the same bits twice", () => {
    const rng = new Random(12);
    for (const [n, k] of [
      [150, 20],
      [483, 100],
    ]) {
      const A = randomMatrix(n, n, n);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < i; j++) {
          const v = rng.normal();
          A.data[i * n + j] = v;
          A.data[j * n + i] = v;
        }
      }
      setKernelBackend("portable");
      const portable = symmetricEigen(A, { select: { smallest: k } });
      setKernelBackend("fast");
      const fast = symmetricEigen(A, { select: { smallest: k } });
      const again = symmetricEigen(A, { select: { smallest: k } });
      expect(firstDifference(again.values, fast.values)).toBe(-1);
      expect(firstDifference(again.vectors?.data ?? [], fast.vectors?.data ?? [])).toBe(-1);
      // Another summation order: the values differ in their last bits, by at most a few
      // n u ||A||; the vectors (well separated here) by as little.
      const norm = Math.max(...portable.values.map(Math.abs), ...fast.values.map(Math.abs));
      let moved = 0;
      for (let j = 0; j < k; j++) {
        const gap = Math.abs(fast.values[j] - portable.values[j]);
        expect(gap).toBeLessThanOrEqual(4 * n * U * norm * 4);
        if (gap > 0) moved++;
      }
      expect(moved).toBeGreaterThan(0);
    }
  });
});

describe("the relaxed-SIMD GEMM module (fma.wat)", () => {
  // That it is the assembly of fma.wat is a project check (test/project/wasmModules.test.ts):
  // the assembler, wabt, is the repository's build tool, not the library's.
  it("is passed over, never failing, where the engine refuses it", () => {
    const Module = wasmEngine.Module;
    expect(fmaGemmModule({ validate: () => false, Module })).toBeNull();
    expect(
      fmaGemmModule({
        validate: () => {
          throw new Error("no");
        },
        Module,
      }),
    ).toBeNull();
    class Refusing {
      constructor() {
        throw new RangeError("refused");
      }
    }
    expect(fmaGemmModule({ validate: () => true, Module: Refusing })).toBeNull();
    // This engine's answer decides; the fast backend runs either way.
    const validates = fmaGemmModule(wasmEngine) !== null;
    setNativeKernels(false);
    setKernelBackend("fast");
    expect(wasmArena()?.hasFmaGemm).toBe(validates);
    expect(moduleGemmInUse()).toBe(!validates);
  });

  it("where the engine validates it: agrees with the module's GEMM to rounding, in bits of its own that no shape changes", () => {
    // Node >= 22 validates it; Node 20 does with V8's flag for relaxed SIMD.
    const bytes = fmaModuleBytes();
    const flags = wasmEngine.validate(bytes) ? [] : ["--experimental-wasm-relaxed-simd"];
    const child = spawnSync(
      process.execPath,
      [
        ...flags,
        "--import",
        "tsx",
        join(repoRoot, "packages/sdspcaan/test/linalg/kernels/fmaModule.child.ts"),
      ],
      { cwd: repoRoot, encoding: "utf8", env: { ...process.env, SDSPCAAN_KERNELS: "fast" } },
    );
    expect(child.stderr).toBe("");
    const report = JSON.parse(child.stdout) as {
      validated: boolean;
      relaxedRuns: boolean;
      worstGap: number;
      differ: number;
      entries: number;
      deterministic: boolean;
      shapeFree: boolean;
    };
    expect(report.validated).toBe(true);
    expect(report.relaxedRuns).toBe(true);
    expect(report.worstGap).toBeLessThanOrEqual(1);
    expect(report.differ).toBeGreaterThan(report.entries / 4);
    expect(report.deterministic).toBe(true);
    expect(report.shapeFree).toBe(true);
  });
});
