/**
 * The WebAssembly SIMD kernels and their selection: the embedded module decodes the
 * same through either base64 decoder (that it matches its source is
 * test/project/wasmModules.test.ts's check), the backend switch and the fallbacks behave, and every kernel agrees with a
 * plain reference on every backend (odd shapes, leading dimensions, operands already in
 * the module's memory), deterministically.
 */
import fc from "fast-check";
import { errorOf } from "sdspcaan-test-support";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { smallestTridiagonalEigenvalues } from "#internal/linalg/eigen/bisection.js";
import { applyReflectors, householderTridiagonalize } from "#internal/linalg/eigen/householder.js";
import {
  inverseIterationWork,
  tridiagonalEigenvectors,
} from "#internal/linalg/eigen/inverseIteration.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { gemmABtRaw, gemmAtBWasm, multiplyABt, transposed } from "#internal/linalg/kernels/gemm.js";
import {
  gemmABtLowerBlocks,
  gramRows,
  transposedGramAndProduct,
} from "#internal/linalg/kernels/symmetricProducts.js";
import {
  ARENA_LIMIT,
  initLinalg,
  KernelLoader,
  type KernelLoaderChoices,
  kernelBackend,
  requestedKernelBackend,
  SYNC_COMPILE_LIMIT,
  setKernelBackend,
  type WasmApi,
  wasmArena,
  wasmSimdSupported,
} from "#internal/linalg/kernels/wasm/backend.js";
import { inflateRaw } from "#internal/linalg/kernels/wasm/inflateRaw.js";
import { kernelRequestFromEnv } from "#internal/linalg/kernels/wasm/kernelEnvironment.js";
import {
  FMA_WASM_SIZE,
  KERNELS_WASM_DEFLATED_BASE64,
  KERNELS_WASM_SIZE,
} from "#internal/linalg/kernels/wasm/module.js";
import {
  decodeBase64ForTest,
  kernelModuleBytes,
} from "#internal/linalg/kernels/wasm/moduleBytes.js";
import { innerProducts } from "#internal/linalg/orthogonalize.js";
import { CsrMatrix } from "#internal/linalg/sparse.js";
import {
  eigenResidual,
  firstDifference,
  maxAbsDifference,
  orthogonalityError,
  randomMatrix,
  randomSymmetric,
  withSpectrum,
} from "../../../helpers/matrices.js";

const BACKENDS = ["ts", "wasm", "fast"] as const;

/** The library's request when this file starts (SDSPCAAN_KERNELS may have set it). */
const initialRequest = requestedKernelBackend();

afterEach(() => {
  setKernelBackend(initialRequest);
});

/** This engine's WebAssembly (Node 20: with SIMD). */
const engine = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

/** A loader of its own: this engine's WebAssembly, "auto", no size limit, or `choices`. */
function loaderWith(choices: Partial<KernelLoaderChoices> = {}): KernelLoader {
  return new KernelLoader({
    request: "auto",
    wasm: engine,
    syncLimit: SYNC_COMPILE_LIMIT,
    ...choices,
  });
}

describe("the embedded module", () => {
  // That it is the assembly of kernels.wat is a project check (test/project/wasmModules.test.ts):
  // the assembler, wabt, is the repository's build tool, not the library's.
  it("decodes to the same bytes through the fallback base64 decoder (engines without atob)", () => {
    const deflated = decodeBase64ForTest(KERNELS_WASM_DEFLATED_BASE64);
    expect(Buffer.from(deflated).equals(Buffer.from(KERNELS_WASM_DEFLATED_BASE64, "base64"))).toBe(
      true,
    );
    const both = inflateRaw(deflated, KERNELS_WASM_SIZE + FMA_WASM_SIZE);
    expect(
      Buffer.from(both.subarray(0, KERNELS_WASM_SIZE)).equals(Buffer.from(kernelModuleBytes())),
    ).toBe(true);
    expect(kernelModuleBytes().length).toBe(KERNELS_WASM_SIZE);
  });

  it("compiles synchronously whatever its size where the engine allows it (Node)", () => {
    expect(SYNC_COMPILE_LIMIT).toBe(Number.POSITIVE_INFINITY);
    const loader = loaderWith();
    expect(loader.backend()).toBe("fast");
    expect(loader.activeArena()).not.toBeNull();
  });
});

describe("backend selection", () => {
  it("Node 20 has WebAssembly SIMD: auto and fast select fast, portable selects wasm", () => {
    expect(wasmSimdSupported()).toBe(true);
    expect(setKernelBackend("auto")).toBe("fast");
    expect(kernelBackend()).toBe("fast");
    expect(wasmArena()).not.toBeNull();
    expect(setKernelBackend("portable")).toBe("wasm");
    expect(requestedKernelBackend()).toBe("portable");
    expect(setKernelBackend("fast")).toBe("fast");
  });

  it("setKernelBackend switches between the TS, wasm and fast kernels, on one arena", () => {
    expect(setKernelBackend("ts")).toBe("ts");
    expect(wasmArena()).toBeNull();
    expect(setKernelBackend("wasm")).toBe("wasm");
    const arena = wasmArena();
    expect(arena).not.toBeNull();
    expect(setKernelBackend("fast")).toBe("fast");
    expect(wasmArena()).toBe(arena);
  });

  it("rejects an unknown backend name with a ValidationError naming it", () => {
    expect(() => setKernelBackend("gpu" as never)).toThrow(
      'The kernel backend must be "auto", "fast", "portable", "wasm" or "ts". Got "gpu" instead.',
    );
    expect(() => setKernelBackend("gpu" as never)).toThrow(ValidationError);
  });

  it("falls back to TS without WebAssembly SIMD; asking for wasm is then an error", async () => {
    const noSimd = { ...engine, validate: () => false, compile: engine.compile };
    for (const wasm of [null, noSimd]) {
      const loader = loaderWith({ wasm });
      expect(loader.simdSupported()).toBe(false);
      expect(loader.setRequest("auto")).toBe("ts");
      expect(loader.setRequest("fast")).toBe("ts");
      expect(loader.setRequest("portable")).toBe("ts");
      expect(() => loader.setRequest("wasm")).toThrow(
        'The kernel backend "wasm" needs WebAssembly SIMD, and this engine has no WebAssembly SIMD support.',
      );
      expect(loader.requested()).toBe("portable");
      expect(loader.activeArena()).toBeNull();
      expect(loader.privateArena()).toBeNull();
      await expect(loader.init()).resolves.toBe("ts");
    }
    // The products work on the TS kernels, which such an engine runs.
    setKernelBackend("ts");
    const A = randomMatrix(9, 13, 1);
    expect(maxAbsDifference(multiplyABt(A, A).data, naiveABt(A, A).data)).toBeLessThan(1e-12);
  });

  it("a module above the synchronous limit runs TS until init() has compiled it", async () => {
    const loader = loaderWith({ syncLimit: KERNELS_WASM_SIZE - 1 }); // as if the module were too big
    expect(loader.backend()).toBe("ts");
    const pending = loader.init();
    expect(loader.backend()).toBe("ts");
    await expect(pending).resolves.toBe("fast");
    expect(loader.backend()).toBe("fast");
    expect(loader.activeArena()).not.toBeNull();
    await expect(loader.init()).resolves.toBe("fast");
    expect(loader.setRequest("portable")).toBe("wasm");
  });

  it("an engine that refuses synchronous compilation (RangeError) runs TS until init()", async () => {
    // What Chrome's main thread does above its size limit; workers and Node never do.
    type ModuleCtor = WasmApi["Module"];
    const RealModule = engine.Module;
    let refusals = 0;
    // A class, so that `new` works on it (the loader constructs modules).
    class Refusing {
      constructor(bytes: Uint8Array) {
        if (bytes.byteLength >= KERNELS_WASM_SIZE) {
          refusals++;
          throw new RangeError("WebAssembly.Compile is disallowed on the main thread");
        }
        // biome-ignore lint/correctness/noConstructorReturn: stands in for WebAssembly.Module
        return new RealModule(bytes);
      }
    }
    const loader = loaderWith({
      wasm: {
        validate: (bytes) => engine.validate(bytes),
        Module: Refusing as unknown as ModuleCtor,
        Instance: engine.Instance,
        compile: (bytes) => engine.compile(bytes),
      },
    });
    expect(loader.backend()).toBe("ts");
    expect(loader.simdSupported()).toBe(true); // refused, not unsupported
    expect(loader.activeArena()).toBeNull();
    expect(loader.setRequest("fast")).toBe("ts");
    expect(refusals).toBe(1); // not retried on every call
    await expect(loader.init()).resolves.toBe("fast");
    expect(loader.backend()).toBe("fast");
    expect(refusals).toBe(1);
  });

  it("initLinalg() resolves to ts when TS is requested", async () => {
    setKernelBackend("ts");
    await expect(initLinalg()).resolves.toBe("ts");
  });

  it("reads SDSPCAAN_KERNELS, which the library's loader starts from", () => {
    for (const [value, request, backend] of [
      ["ts", "ts", "ts"],
      ["WASM", "wasm", "wasm"],
      [" portable ", "portable", "wasm"],
      ["Fast", "fast", "fast"],
      ["auto", "auto", "fast"],
      ["", "auto", "fast"],
      [undefined, "auto", "fast"],
    ] as const) {
      expect(kernelRequestFromEnv({ SDSPCAAN_KERNELS: value })).toBe(request);
      expect(loaderWith({ request }).backend()).toBe(backend);
    }
    expect(kernelRequestFromEnv(undefined)).toBe("auto");
  });

  const envRefusal = (got: string) =>
    `The environment variable SDSPCAAN_KERNELS must be "auto", "fast", "portable", "wasm" or "ts" (or unset). Got ${got} instead.`;

  it("refuses an SDSPCAAN_KERNELS that names no backend, naming the variable and the names", () => {
    const names = ["auto", "fast", "portable", "wasm", "ts"];
    fc.assert(
      fc.property(
        fc.string().filter((v) => !["", ...names].includes(v.trim().toLowerCase())),
        (value) => {
          const err = errorOf(() => kernelRequestFromEnv({ SDSPCAAN_KERNELS: value }));
          expect(err).toBeInstanceOf(ValidationError);
          expect([(err as ValidationError).argument, err.message]).toEqual([
            "SDSPCAAN_KERNELS",
            envRefusal(JSON.stringify(value)),
          ]);
        },
      ),
    );
    expect(errorOf(() => kernelRequestFromEnv({ SDSPCAAN_KERNELS: "portible" })).message).toBe(
      envRefusal('"portible"'),
    );
  });

  it("a loader holding that refusal throws it wherever the kernels are chosen, until chosen", async () => {
    const refusal = new ValidationError("SDSPCAAN_KERNELS", envRefusal('"portible"'));
    const loader = loaderWith({ refusal });
    const refused = (fn: () => unknown) => {
      const err = errorOf(fn);
      expect(err).toBeInstanceOf(ValidationError);
      expect([(err as ValidationError).argument, err.message]).toEqual([
        "SDSPCAAN_KERNELS",
        envRefusal('"portible"'),
      ]);
    };
    refused(() => loader.backend());
    refused(() => loader.activeArena());
    refused(() => loader.privateArena());
    refused(() => loader.requested());
    await expect(loader.init()).rejects.toThrow(envRefusal('"portible"'));
    // Asking whether the engine could run them chooses nothing.
    expect(loader.simdSupported()).toBe(true);
    expect(loader.refusal()).toBe(refusal);
    // The program's own choice replaces the environment's.
    expect(loader.setRequest("portable")).toBe("wasm");
    expect(loader.refusal()).toBeNull();
    expect(loader.requested()).toBe("portable");
  });

  it("a later variable's refusal waits behind the first, and stands until its own choice", () => {
    const kernels = new ValidationError("SDSPCAAN_KERNELS", "kernels");
    const native = new ValidationError("SDSPCAAN_NATIVE", "native");
    const loader = loaderWith({ refusal: kernels });
    loader.refuse(native);
    loader.refuse(new ValidationError("SDSPCAAN_NATIVE", "later"));
    expect(errorOf(() => loader.backend()).message).toBe("kernels");
    expect(errorOf(() => loader.setRequest("fast")).message).toBe("native");
    loader.chosen("SDSPCAAN_NATIVE");
    expect(loader.backend()).toBe("fast");
  });
});

function naiveABt(A: Matrix, B: Matrix): Matrix {
  const C = new Matrix(A.rows, B.rows);
  for (let i = 0; i < A.rows; i++) {
    for (let j = 0; j < B.rows; j++) {
      let s = 0;
      for (let l = 0; l < A.cols; l++) s += A.data[i * A.cols + l] * B.data[j * B.cols + l];
      C.data[i * B.rows + j] = s;
    }
  }
  return C;
}

function filled(length: number, seed: number): Float64Array {
  const out = new Float64Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.sin(seed * 7.31 + i * 1.37) * 2;
  return out;
}

/**
 * Checks C[i*ldc+j] (+)= A_i . B_j on a sub-block with leading dimensions, and that
 * every other entry of C is untouched.
 */
function checkGemm(
  m: number,
  n: number,
  p: number,
  pad: number,
  accumulate: boolean,
  seed: number,
): void {
  const lda = p + pad;
  const ldb = p + 2 * pad;
  const ldc = n + pad + 1;
  const A = filled(Math.max(m, 1) * lda, seed);
  const B = filled(Math.max(n, 1) * ldb, seed + 1);
  const C = filled(Math.max(m, 1) * ldc + 3, seed + 2);
  const before = C.slice();
  gemmABtRaw(m, n, p, A, lda, B, ldb, C, ldc, accumulate);
  for (let i = 0; i < Math.max(m, 1); i++) {
    for (let j = 0; j < ldc; j++) {
      const o = i * ldc + j;
      if (i < m && j < n) {
        let s = accumulate ? before[o] : 0;
        for (let l = 0; l < p; l++) s += A[i * lda + l] * B[j * ldb + l];
        expect(Math.abs(C[o] - s)).toBeLessThanOrEqual(1e-13 * (p + 1));
      } else {
        expect(C[o]).toBe(before[o]);
      }
    }
  }
}

describe.each(BACKENDS)("GEMM against the triple loop (%s)", (backend) => {
  it("odd shapes: 0, 1, 3, 5, 7 rows/columns, short and long contractions, with padding", () => {
    setKernelBackend(backend);
    const dims = [0, 1, 2, 3, 5, 7];
    let seed = 1;
    for (const m of dims) {
      for (const n of dims) {
        for (const p of [0, 1, 4, 5, 7]) {
          checkGemm(m, n, p, 3, seed % 2 === 0, seed++);
        }
      }
    }
  });

  it("shapes beyond one block and one panel (every remainder mod 2, 4, 64, 256)", () => {
    setKernelBackend(backend);
    let seed = 100;
    for (const [m, n, p] of [
      [65, 67, 257],
      [130, 9, 513],
      [9, 130, 300],
      [64, 64, 256],
      [33, 35, 31],
      [2, 4, 1024],
    ] as const) {
      checkGemm(m, n, p, 5, true, seed++);
      checkGemm(m, n, p, 0, false, seed++);
    }
  });

  it("X X^T (one operand copied once) and Gram matrices", () => {
    setKernelBackend(backend);
    const X = randomMatrix(67, 45, 3);
    expect(maxAbsDifference(multiplyABt(X, X).data, naiveABt(X, X).data)).toBeLessThan(1e-12);
    const Y = randomMatrix(45, 45, 4);
    // Same buffer and offset, different row counts: rows of X against its first rows.
    const C = new Float64Array(67 * 20);
    gemmABtRaw(67, 20, 45, X.data, 45, X.data, 45, C, 20);
    const ref = naiveABt(X, new Matrix(20, 45, X.data.slice(0, 20 * 45)));
    expect(maxAbsDifference(C, ref.data)).toBeLessThan(1e-12);
    const G = gramRows(Y);
    expect(maxAbsDifference(G.data, naiveABt(Y, Y).data)).toBeLessThan(1e-12);
    expect(maxAbsDifference(G.data, G.transpose().data)).toBe(0);
  });

  it("gemmABtLowerBlocks fills the blocks on and below the diagonal, nothing else", () => {
    setKernelBackend(backend);
    for (const [n, p, block] of [
      [70, 33, 16],
      [5, 3, 64],
      [129, 65, 64],
    ] as const) {
      const lda = p + 2;
      const ldc = n + 3;
      const A = filled(n * lda, n);
      const B = filled(n * lda + 1, p).subarray(1);
      const C = filled(n * ldc, 7);
      const before = C.slice();
      gemmABtLowerBlocks(n, p, A, lda, B, lda, C, ldc, block);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < ldc; j++) {
          const o = i * ldc + j;
          if (j < n && j < (Math.floor(i / block) + 1) * block) {
            let s = 0;
            for (let l = 0; l < p; l++) s += A[i * lda + l] * B[j * lda + l];
            expect(Math.abs(C[o] - s)).toBeLessThan(1e-12);
          } else {
            expect(C[o]).toBe(before[o]);
          }
        }
      }
    }
  });

  it("is deterministic: the same product twice gives the same bits", () => {
    setKernelBackend(backend);
    const A = randomMatrix(131, 517, 5);
    const B = randomMatrix(77, 517, 6);
    const first = multiplyABt(A, B).data;
    for (let r = 0; r < 3; r++) expect(multiplyABt(A, B).data).toEqual(first);
  });
});

describe("the wasm GEMM's edge kernels", () => {
  /** A B^T by the module's kernel itself (gemmABtRaw sends small products to the TS kernel). */
  const moduleProduct = (A: Matrix, B: Matrix): Float64Array => {
    const arena = wasmArena();
    if (arena === null) throw new Error("wasm backend expected");
    const [m, n, p] = [A.rows, B.rows, A.cols];
    const mark = arena.mark();
    try {
      const [pa, pb, pc] = arena.allocAll([m * p, n * p, m * n]) as number[];
      const f = arena.f64;
      f.set(A.data, pa >> 3);
      f.set(B.data, pb >> 3);
      f.fill(0, pc >> 3, (pc >> 3) + m * n);
      arena.kernels.gemm(m, n, p, pa, p, pb, p, pc, n);
      return f.slice(pc >> 3, (pc >> 3) + m * n);
    } finally {
      arena.release(mark);
    }
  };

  it("every entry has the bits of its row pair multiplied alone, whichever kernel computed it (2 x 4, 1 x 4, 2 x 1, 1 x 1)", () => {
    setKernelBackend("wasm");
    // m odd and even, n % 4 = 0..3, contractions odd, even and across the 256 panel.
    for (const [m, n, p] of [
      [7, 7, 33],
      [6, 5, 257],
      [65, 6, 300],
      [3, 4, 513],
      [2, 3, 2],
      [1, 9, 17],
    ]) {
      const A = randomMatrix(m, p, m * 31 + n);
      const B = randomMatrix(n, p, n * 17 + p);
      const C = moduleProduct(A, B);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          const alone = moduleProduct(A.selectRows([i]), B.selectRows([j]))[0];
          expect(Object.is(C[i * n + j], alone)).toBe(true);
        }
      }
    }
  });
});

describe("GEMM on operands in the module's memory", () => {
  it("the arena refuses (null, nothing allocated) what exceeds its limit", () => {
    setKernelBackend("wasm");
    const arena = wasmArena();
    if (arena === null) throw new Error("wasm backend expected");
    const mark = arena.mark();
    expect(arena.allocAll([16, ARENA_LIMIT / 8])).toBeNull();
    expect(arena.mark()).toBe(mark);
    const ptrs = arena.allocAll([3, 5]) as number[];
    expect(ptrs[0]).toBe(mark);
    expect(ptrs[1] - ptrs[0]).toBe(32); // 16-byte aligned
    arena.release(mark);
  });

  it("uses views in place, mixed with ordinary arrays, and protects live views", () => {
    setKernelBackend("wasm");
    const arena = wasmArena();
    if (arena === null) throw new Error("wasm backend expected");
    const m = 13;
    const n = 11;
    const p = 37;
    const mark = arena.mark();
    const [pa, pc] = arena.allocAll([m * p, m * n]) as number[];
    try {
      const A = arena.view(pa, m * p);
      A.set(filled(m * p, 1));
      const B = filled(n * p, 2);
      const C = arena.view(pc, m * n);
      C.fill(1);
      gemmABtRaw(m, n, p, A, p, B, p, C, n, true);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) {
          let s = 1;
          for (let l = 0; l < p; l++) s += A[i * p + l] * B[j * p + l];
          expect(Math.abs(C[i * n + j] - s)).toBeLessThan(1e-12);
        }
      }
      // A copy that would grow the memory while a view is live is refused loudly (the
      // growth would detach the caller's view A).
      const rowsB = Math.ceil(arena.buffer.byteLength / (8 * p)) + 1;
      const bigB = new Float64Array(rowsB * p);
      const bigC = new Float64Array(m * rowsB);
      expect(() => gemmABtRaw(m, rowsB, p, A, p, bigB, p, bigC, rowsB)).toThrow(
        /growing the memory while views/,
      );
    } finally {
      arena.release(mark);
    }
  });
});

describe.each(BACKENDS)("tridiagonal kernels on every backend (%s)", (backend) => {
  it("reduction, bisection, inverse iteration and back-transformation give eigenpairs", () => {
    setKernelBackend(backend);
    for (const n of [5, 9, 40, 97, 98, 130, 211]) {
      const A = randomSymmetric(n, 10 + n);
      const work = A.data.slice();
      const tri = householderTridiagonalize(work, n);
      const k = Math.min(n, 17);
      const d = tri.diagonal.slice();
      const e = tri.offDiagonal.slice();
      const selected = smallestTridiagonalEigenvalues(d, e, k);
      const { vectors, unconverged } = tridiagonalEigenvectors(d, e, selected);
      expect(unconverged).toBe(0);
      applyReflectors(tri, vectors, k);
      const V = new Matrix(k, n, vectors).transpose();
      expect(eigenResidual(A, V, selected.values)).toBeLessThan(1e-12 * n);
      expect(orthogonalityError(V)).toBeLessThan(1e-13 * n);
    }
  });

  it("a cluster of 60 nearly equal eigenvalues: re-orthogonalised vectors", () => {
    setKernelBackend(backend);
    const n = 150;
    const spectrum = Array.from({ length: n }, (_, i) => (i < 60 ? 1 + i * 1e-9 : 2 + i));
    const A = withSpectrum(spectrum, 3);
    const { values, vectors } = symmetricEigen(A, { select: { smallest: 70 } });
    const V = vectors as Matrix;
    expect(eigenResidual(A, V, values)).toBeLessThan(1e-11);
    expect(orthogonalityError(V)).toBeLessThan(1e-11);
  });

  it("large selections in a big cluster (the divide-and-conquer side of the cost model)", () => {
    setKernelBackend(backend);
    const n = 220;
    const spectrum = Array.from({ length: n }, (_, i) =>
      i < 40 ? -5 + 0.1 * i : i < 200 ? 1 + 1e-4 * i : 3 + i,
    );
    const A = withSpectrum(spectrum, 9);
    for (const select of [{ smallest: 190 }, { largest: 185 }, { smallest: 30 }]) {
      const { values, vectors } = symmetricEigen(A, { select });
      const V = vectors as Matrix;
      const k = values.length;
      const sorted = [...spectrum].sort((x, y) => x - y);
      const expected = "smallest" in select ? sorted.slice(0, k) : sorted.slice(n - k);
      expect(maxAbsDifference(values, expected)).toBeLessThan(1e-12 * n);
      expect(eigenResidual(A, V, values)).toBeLessThan(1e-11);
      expect(orthogonalityError(V)).toBeLessThan(1e-11);
      for (let j = 0; j < k; j++) {
        let best = 0;
        let at = 0;
        for (let i = 0; i < n; i++) {
          const v = Math.abs(V.data[i * k + j]);
          if (v > best) {
            best = v;
            at = i;
          }
        }
        expect(V.data[at * k + j]).toBeGreaterThan(0);
      }
    }
  });

  it("is deterministic", () => {
    setKernelBackend(backend);
    const A = randomSymmetric(180, 4);
    const first = symmetricEigen(A, { select: { smallest: 40 } });
    for (let r = 0; r < 2; r++) {
      const again = symmetricEigen(A, { select: { smallest: 40 } });
      expect(again.values).toEqual(first.values);
      expect((again.vectors as Matrix).data).toEqual((first.vectors as Matrix).data);
    }
  });
});

describe("inverse iteration work estimate", () => {
  it("counts vector elements and the re-orthogonalisation pairs of each cluster", () => {
    // T = diag(d) with two unreduced blocks: [0, 4) and [4, 6) (e[3] = 0).
    const d = Float64Array.from([1, 1 + 1e-9, 1 + 2e-9, 5, 1 + 3e-9, 9]);
    const e = Float64Array.from([1e-12, 1e-12, 1e-12, 0, 1e-12]);
    const selected = smallestTridiagonalEigenvalues(d.slice(), e.slice(), 5);
    const work = inverseIterationWork(d, e, selected);
    // Values 1, 1+1e-9, 1+2e-9, 1+3e-9 (blocks 0, 0, 0, 1) and 5 (block 0): the first
    // three form one cluster of block 0 (pairs 0 + 1 + 2) of order 4; 5 starts a new one.
    expect(work.vectorElements).toBe(4 * 4 + 2);
    expect(work.pairElements).toBe(3 * 4);
  });
});

describe("the two backends agree", () => {
  it("eigenvalues to rounding, eigenvectors up to rounding (same sign convention)", () => {
    const A = randomSymmetric(160, 8);
    setKernelBackend("ts");
    const ts = symmetricEigen(A, { select: { smallest: 30 } });
    setKernelBackend("wasm");
    const wasm = symmetricEigen(A, { select: { smallest: 30 } });
    expect(maxAbsDifference(ts.values, wasm.values)).toBeLessThan(1e-12);
    expect(
      maxAbsDifference((ts.vectors as Matrix).data, (wasm.vectors as Matrix).data),
    ).toBeLessThan(1e-9);
  });
});

describe("sparse times dense (csrmm)", () => {
  it("gives the TS loop's bits: odd and even widths, rows with 0 to 9 entries, small and large products", () => {
    let state = 7;
    const next = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 2 ** 32 - 0.5;
    };
    for (const [n, b] of [
      [40, 1],
      [40, 2],
      [97, 33],
      [200, 200],
      [483, 483],
    ]) {
      const rows = Array.from({ length: n }, (_, i) => {
        const count = i % 10;
        const indices = Array.from({ length: count }, (_, t) => (i * 7 + t * 13) % n);
        return { indices: [...new Set(indices)], values: indices.map(() => next()) };
      });
      const A = CsrMatrix.fromRows(n, n, rows);
      const B = randomMatrix(n, b, n + b);
      setKernelBackend("ts");
      const ts = A.multiplyMatrix(B);
      setKernelBackend("wasm");
      const wasm = A.multiplyMatrix(B);
      expect(wasm.data.every((v, i) => Object.is(v, ts.data[i]))).toBe(true);
    }
  });
});

describe("P^T P and P^T Q with the transposes in the module's memory (transposedGramAndProduct)", () => {
  it("gives gramRows(transposed(P)) and multiplyABt(transposed(P), transposed(Q)) bit for bit", () => {
    setKernelBackend("wasm");
    const arena = wasmArena();
    expect(arena).not.toBeNull();
    if (arena === null) return;
    // Below and above the module's transpose threshold, odd widths, one column.
    for (const [n, w, seed] of [
      [50, 20, 1],
      [300, 63, 2],
      [2001, 37, 3],
      [5000, 1, 4],
      [1201, 189, 5],
    ] as const) {
      const P = randomMatrix(n, w, seed);
      const Q = randomMatrix(n, w, seed + 50);
      const Pt = transposed(P);
      const wantS = gramRows(Pt);
      const wantF = multiplyABt(Pt, transposed(Q));
      const before = arena.mark();
      const { S, F } = transposedGramAndProduct(P, Q);
      expect(arena.mark()).toBe(before);
      expect(firstDifference(S.data, wantS.data)).toBe(-1);
      expect(firstDifference(F.data, wantF.data)).toBe(-1);
    }
  });

  it("keeps its views valid when its own allocation grows the module's memory", () => {
    setKernelBackend("wasm");
    const arena = wasmArena();
    if (arena === null) throw new Error("no wasm arena");
    const P = randomMatrix(3000, 63, 7);
    const Q = randomMatrix(3000, 63, 8);
    const Pt = transposed(P);
    const wantS = gramRows(Pt);
    const wantF = multiplyABt(Pt, transposed(Q));
    // Fill the memory up to its end, so that the call's first allocation grows it.
    const mark = arena.mark();
    const free = Math.floor((arena.buffer.byteLength - mark) / 8) - 2;
    expect(arena.allocAll([free])).not.toBeNull();
    const length = arena.buffer.byteLength;
    try {
      const { S, F } = transposedGramAndProduct(P, Q);
      expect(arena.buffer.byteLength).toBeGreaterThan(length);
      expect(firstDifference(S.data, wantS.data)).toBe(-1);
      expect(firstDifference(F.data, wantF.data)).toBe(-1);
    } finally {
      arena.release(mark);
    }
    expect(() => transposedGramAndProduct(P, randomMatrix(3000, 62, 9))).toThrow(/must match/);
  });
});

describe("A^T B with the transposes in the module's memory (gemmAtBWasm)", () => {
  it("the wasm transpose moves every value to its place (odd and single rows and columns)", () => {
    setKernelBackend("wasm");
    const arena = wasmArena();
    expect(arena).not.toBeNull();
    if (arena === null) return;
    for (const [rows, cols] of [
      [1, 1],
      [1, 9],
      [9, 1],
      [7, 5],
      [33, 17],
      [40, 63],
      [301, 2],
    ]) {
      const M = randomMatrix(rows, cols, rows * 100 + cols);
      const mark = arena.mark();
      try {
        const ptrs = arena.allocAll([rows * cols, rows * cols]);
        expect(ptrs).not.toBeNull();
        const [src, dst] = ptrs as number[];
        arena.f64.set(M.data, src >> 3);
        arena.kernels.transpose(src, rows, cols, dst);
        const T = M.transpose().data;
        const got = arena.view(dst, rows * cols);
        for (let t = 0; t < T.length; t++) expect(Object.is(got[t], T[t])).toBe(true);
      } finally {
        arena.release(mark);
      }
    }
  });

  it("takes the wasm path only where gemmABtRaw would run the kernel on one thread", () => {
    setKernelBackend("wasm");
    const A = randomMatrix(300, 63, 1);
    const C = new Matrix(63, 63);
    expect(gemmAtBWasm(300, 63, 63, A.data, A.data, C.data)).toBe(true);
    // Too little work to copy in: gemmABtRaw would run the TS kernel.
    expect(gemmAtBWasm(4, 2, 2, A.data, A.data, new Float64Array(4))).toBe(false);
  });
  it("innerProducts runs no JS transpose on the wasm backend", () => {
    setKernelBackend("wasm");
    const spy = vi.spyOn(Matrix.prototype, "transpose");
    try {
      const A = randomMatrix(300, 63, 2);
      innerProducts(A, randomMatrix(300, 20, 3));
      innerProducts(A, A);
      expect(spy).not.toHaveBeenCalled();
    } finally {
      spy.mockRestore();
    }
  });
});
