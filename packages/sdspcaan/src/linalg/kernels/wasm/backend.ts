/**
 * Selection and loading of the WebAssembly SIMD kernels (kernels.wat, embedded in
 * module.ts and decoded by moduleBytes.ts), and the linear memory they work in; the
 * backends' names and what the environment asks for are kernelEnvironment.ts's.
 *
 * Backends. "wasm" runs the hot kernels in the module: GEMM, the symmetric
 * matrix-vector product and the panel updates of the Householder reduction, the
 * sparse-dense product of the graph Laplacian, and whole loops of the dense eigen-solver
 * (the unblocked Householder reduction: reflectors, symv and rank-2 updates of every
 * column; the back-transformation of eigenvectors: every block's V^T, S, transposition
 * and GEMMs; bisection of a block with its batched Sturm counts; inverse iteration of a
 * block: dlagtf, dlagts, the growth test, the scaling and the Gram-Schmidt products),
 * these loops performing the TypeScript's operations in its order, so bit for bit the
 * same; "ts" runs the pure TypeScript kernels, which stay as the fallback. "fast" is the
 * module with the fastest GEMM the platform has: the native addon's fused kernel in Node
 * (nativeGemm.node.ts), else the relaxed-SIMD module (fma.wat) where the engine
 * validates it, else the module's own; in Node the Householder reduction's symv,
 * combine2, dots2 and panels run natively too. Those have bits of their own; the
 * module's loops and every other kernel stay as on "wasm", and the neighbour searches
 * keep the module's GEMM (`gemmExact`) so that their screened and pruned forms stay exact.
 * "portable" is "wasm" where WebAssembly SIMD runs, else "ts": the kernels of every
 * result computed before "fast" existed. The request is "auto" (the default: "fast"
 * where WebAssembly SIMD runs, else "ts"), "fast", "portable", "wasm" or "ts"; it starts
 * from the environment variable SDSPCAAN_KERNELS when a `process.env` exists and may be
 * read (not in Deno without --allow-env), and `setKernelBackend` changes it. Results of
 * different backends agree to rounding, not bit for bit (different summation orders,
 * fused or not); on one backend the same input always gives the same output.
 *
 * Support. The backend needs a `WebAssembly` global and SIMD, detected by validating the
 * kernels' module itself (inflated once for that and for compiling it). The module is
 * compiled synchronously on first use. Browsers may refuse that on their main thread above a size limit (Chrome had
 * 4 KB for years, 8 MB since; workers have none): the refusal is a RangeError, after
 * which the TypeScript kernels run until `initLinalg()` has compiled the module
 * asynchronously. Node, Deno and browser workers compile any size synchronously, so
 * there the module's size costs nothing but its compile time (about a millisecond).
 * The relaxed-SIMD GEMM (fma.wat, a module of 1.7 KB on the kernels' memory) is checked
 * on its own with WebAssembly.validate and compiled only where that passes (Node >= 22,
 * current Chromium); elsewhere "fast" keeps the module's GEMM, so loading never fails.
 *
 * Memory. One linear memory per module instance holds operands: kernels called with
 * ordinary arrays copy them in (only worth it for enough work per element, which the
 * callers decide from the shapes), while a long computation such as the
 * tridiagonalisation allocates its arrays in the memory and works on views of it for
 * its whole duration. Allocation is a stack (mark/release); the memory only grows.
 * Growing detaches existing views, so code holding views pins the arena and must
 * allocate everything it needs before; growing while pinned is a bug and throws.
 */
import { ValidationError } from "../../../core/errors.js";
import {
  EnvironmentRefusals,
  type KernelBackend,
  type KernelBackendRequest,
  REQUESTS,
  requestFromEnvironment,
} from "./kernelEnvironment.js";
import type { KernelExports, WasmMemory } from "./kernelExports.js";
import { KERNELS_WASM_SIZE } from "./module.js";
import { fmaModuleBytes, kernelBytes } from "./moduleBytes.js";

export type { KernelBackend, KernelBackendRequest } from "./kernelEnvironment.js";
export type { GemmMatrices, GemmOperands, KernelExports } from "./kernelExports.js";

/**
 * The parts of the WebAssembly JS API used here (the project's TS lib has no DOM types,
 * and the API is looked up on globalThis so that its absence is detected, not fatal).
 */
type WasmModule = object;
export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: object };
  compile(bytes: Uint8Array): Promise<WasmModule>;
}

function wasmApi(): WasmApi | null {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  return typeof api === "object" && api !== null ? api : null;
}

/**
 * No limit of our own on synchronous compilation: the engine says when it refuses (a
 * RangeError on a browser's main thread). A loader built with a lower one (a test's)
 * behaves as on a refusal.
 */
export const SYNC_COMPILE_LIMIT = Number.POSITIVE_INFINITY;

/** Largest arena the kernels may use (bytes); bigger problems run the TS kernels. */
export const ARENA_LIMIT = 2 ** 30;

const PAGE = 65536;

/**
 * Stack allocator over the module's memory, with cached views. Pointers are byte
 * offsets, 16-byte aligned.
 */
export class WasmArena {
  readonly kernels: KernelExports;
  /** Whether the relaxed-SIMD GEMM runs on this memory (the "fast" backend's, without the addon). */
  readonly hasFmaGemm: boolean;
  private top = 16;
  private pins = 0;
  private cached: Float64Array;

  constructor(kernels: KernelExports, hasFmaGemm = false) {
    this.kernels = kernels;
    this.hasFmaGemm = hasFmaGemm;
    this.cached = new Float64Array(kernels.memory.buffer);
  }

  /** The whole memory as doubles (re-created after growth). */
  get f64(): Float64Array {
    if (this.cached.buffer !== this.kernels.memory.buffer) {
      this.cached = new Float64Array(this.kernels.memory.buffer);
    }
    return this.cached;
  }

  get buffer(): ArrayBuffer {
    return this.kernels.memory.buffer;
  }

  /** True when `x` is a view of the module's memory (its pointer is x.byteOffset). */
  holds(x: Float64Array): boolean {
    return x.buffer === this.kernels.memory.buffer;
  }

  mark(): number {
    return this.top;
  }

  release(mark: number): void {
    this.top = mark;
  }

  /**
   * Allocates blocks of the given numbers of doubles (uninitialised, 16-byte aligned),
   * growing the memory if needed, and returns their pointers; or null, allocating
   * nothing, when they would exceed ARENA_LIMIT or the engine refuses to grow the
   * memory (the caller then runs the TS kernels). Growing while pinned throws: views
   * would be detached.
   */
  allocAll(sizes: readonly number[]): number[] | null {
    const ptrs: number[] = [];
    let end = this.top;
    for (const doubles of sizes) {
      ptrs.push(end);
      end += (doubles * 8 + 15) & ~15;
    }
    if (end > ARENA_LIMIT) return null;
    const memory = this.kernels.memory;
    if (end > memory.buffer.byteLength) {
      if (this.pins > 0) {
        throw new Error("wasm arena: growing the memory while views of it are in use.");
      }
      // Grow geometrically so that a sequence of slightly larger problems does not
      // grow (and re-create views) every time.
      const have = memory.buffer.byteLength / PAGE;
      const need = Math.ceil(end / PAGE);
      const want = Math.min(Math.max(need, 2 * have), ARENA_LIMIT / PAGE);
      try {
        memory.grow(want - have);
      } catch {
        try {
          memory.grow(need - have);
        } catch {
          return null;
        }
      }
    }
    this.top = end;
    return ptrs;
  }

  /** A view of `length` doubles at `ptr`. */
  view(ptr: number, length: number): Float64Array {
    return new Float64Array(this.kernels.memory.buffer, ptr, length);
  }

  /** While pinned, allocation may not grow the memory (views are in use). */
  pin(): void {
    this.pins++;
  }

  unpin(): void {
    this.pins--;
  }
}

/**
 * A GEMM with the contract of the module's `gemm` export (C += A B^T on byte offsets
 * into the module's memory, leading dimensions in elements), run outside the module on
 * the memory's buffer, which must sum every entry as the module does (kernels.wat): in
 * Node the optional native kernel with AVX-512 or AVX2 vectors
 * (linalg/kernels/nativeGemm.node.ts installs it). Browsers never set one.
 */
export type ExternalGemm = (
  memory: ArrayBuffer,
  ...args: Parameters<KernelExports["gemm"]>
) => void;

/**
 * `gemmLowerBlocks`'s contract run outside the module (memory first): rows [0, m) of C
 * get columns [0, min(n, base + (floor(r / block) + 1) block)) only, each entry summed as
 * the module's `gemm` sums it.
 */
export type ExternalGemmLower = (
  memory: ArrayBuffer,
  ...args: Parameters<KernelExports["gemmLowerBlocks"]>
) => void;

/** Kernels run outside the module in place of its own (nativeGemm.node.ts). */
export interface ExternalKernels {
  /** Replaces the module's `gemm` (so `gemmExact`, and `gemm` on "wasm"): the module's bits. */
  readonly gemm: ExternalGemm;
  /** Replaces the per-block-row loop of `gemmLowerBlocks` on "wasm": the same entries, the same bits. */
  readonly gemmLower?: ExternalGemmLower;
  /**
   * The "fast" backend's `gemm`: bits of its own, which must not depend on the shape
   * of the product or on how its rows are split (each entry summed in one fixed order),
   * so that products split over threads, and pruned searches, keep one product's bits.
   */
  readonly gemmFast?: ExternalGemm;
  /** `gemmLowerBlocks` on "fast": gemmFast's entries on the lower block rows. */
  readonly gemmLowerFast?: ExternalGemmLower;
  /** `symv` on "fast" (the Householder reduction's): bits of its own, the module's contract. */
  readonly symvFast?: (memory: ArrayBuffer, ...args: Parameters<KernelExports["symv"]>) => void;
  /** `combine2` and `dots2` on "fast" (the reduction's panel corrections): the same. */
  readonly combine2Fast?: (
    memory: ArrayBuffer,
    ...args: Parameters<KernelExports["combine2"]>
  ) => void;
  readonly dots2Fast?: (memory: ArrayBuffer, ...args: Parameters<KernelExports["dots2"]>) => void;
  /** A panel of the blocked Householder reduction on "fast" (KernelExports.latrd). */
  readonly latrdFast?: (memory: ArrayBuffer, ...args: Parameters<KernelExports["latrd"]>) => void;
  /**
   * Replaces `gemm32`, the single-precision screen. Not the module's bits: its callers
   * bound the rounding of any summation order, with or without fused multiply-adds
   * (screenedSearch.ts), so only which candidates are looked at exactly may change,
   * never a result.
   */
  readonly gemm32?: ExternalGemm;
}

let external: ExternalKernels | null = null;

/**
 * Routes every call of the kernels' `gemm` (in every instance of this thread, the
 * existing ones included) to `kernels.gemm`, and `gemmLowerBlocks` and `gemm32` to
 * theirs where given, or back to the module's own with null. The other kernels stay
 * in the module. The external `gemm` sums each entry in the module's order, so every
 * result keeps its bits, and code that reproduces the module's sums elsewhere (the
 * screened search's exact distances) stays exact.
 */
export function setExternalKernels(kernels: ExternalKernels | null): void {
  external = kernels;
}

/** Whether an external GEMM is installed on this thread (setExternalKernels). */
export function externalGemmInstalled(): boolean {
  return external !== null;
}

/**
 * Whether the arena's `gemm` is now the module's own kernel, the one its loops call
 * inside (applyReflectorBlocks): only then do those loops give the bits of their
 * TypeScript forms with the arena's `gemm`. Not with an external GEMM installed, nor
 * on "fast" with a GEMM of its own (the native fused one, the relaxed-SIMD module).
 */
export function moduleGemmInUse(): boolean {
  const arena = wasmArena();
  if (arena === null) return false;
  if (loader.fastRequested() && (external?.gemmFast !== undefined || arena.hasFmaGemm)) {
    return false;
  }
  return external === null;
}

/**
 * The relaxed-SIMD GEMM's module where the engine validates it (f64x2.relaxed_madd:
 * Node >= 22, current Chromium), else null; `api` is the engine's WebAssembly (a test
 * passes one that refuses). Never throws: an engine without it keeps the module's GEMM.
 */
export function fmaGemmModule(api: Pick<WasmApi, "validate" | "Module">): WasmModule | null {
  try {
    const bytes = fmaModuleBytes();
    return api.validate(bytes) === true ? new api.Module(bytes) : null;
  } catch {
    return null;
  }
}

/** The relaxed-SIMD GEMM's `module` on `memory`, or null where the engine lacks it. */
function fmaGemmOn(
  api: WasmApi,
  module: WasmModule | null,
  memory: WasmMemory,
): KernelExports["gemm"] | null {
  if (module === null) return null;
  try {
    const instance = new api.Instance(module, { env: { memory } });
    return (instance.exports as { gemm: KernelExports["gemm"] }).gemm;
  } catch {
    return null;
  }
}

/**
 * An instance of the kernels' `module` with its memory; `fma` is the relaxed-SIMD
 * GEMM's module (null where not validated), `fastRequested` says per call whether the
 * "fast" backend is requested.
 */
function instantiate(
  api: WasmApi,
  module: WasmModule,
  fma: WasmModule | null,
  fastRequested: () => boolean,
): WasmArena {
  const instance = new api.Instance(module, {});
  const exports = instance.exports as unknown as KernelExports;
  const memory = exports.memory;
  const fmaGemm = fmaGemmOn(api, fma, memory);
  // Each call goes to the external kernel `pick` finds (checked per call, so that
  // setExternalKernels and setKernelBackend switch instances that already exist, the
  // helpers' private arenas among them), else to `own`.
  type Call = (...args: number[]) => void;
  const routed =
    (own: Call, pick: () => ((memory: ArrayBuffer, ...args: number[]) => void) | undefined) =>
    (...args: number[]) => {
      const ext = pick();
      if (ext === undefined) own(...args);
      else ext(memory.buffer, ...args);
    };
  const onFast = <T>(ext: T | undefined) => (fastRequested() ? ext : undefined);
  const exactGemm = routed(exports.gemm as Call, () => external?.gemm);
  const fmaOrExact = fmaGemm === null ? exactGemm : (fmaGemm as Call);
  const gemm = routed(
    (...args) => (fastRequested() ? fmaOrExact : exactGemm)(...args),
    () => onFast(external?.gemmFast),
  );
  const kernels: KernelExports = {
    ...exports,
    gemm,
    gemmExact: exactGemm,
    symv: routed(exports.symv as Call, () => onFast(external?.symvFast)),
    combine2: routed(exports.combine2 as Call, () => onFast(external?.combine2Fast)),
    dots2: routed(exports.dots2 as Call, () => onFast(external?.dots2Fast)),
    gemm32: routed(exports.gemm32 as Call, () => external?.gemm32),
    latrd: (...args) => {
      const ext = onFast(external?.latrdFast);
      ext?.(memory.buffer, ...args);
      return ext !== undefined;
    },
    gemmLowerBlocks: (m, n, p, A, lda, B, ldb, C, ldc, base, block) => {
      const ext = fastRequested() ? external?.gemmLowerFast : external?.gemmLower;
      if (ext !== undefined) {
        ext(memory.buffer, m, n, p, A, lda, B, ldb, C, ldc, base, block);
        return;
      }
      // One call per block row (its blocks up to the diagonal): the kernel packs the
      // row's panel of A once instead of once per block.
      for (let r0 = 0; r0 < m; r0 += block) {
        const rows = Math.min(block, m - r0);
        const width = Math.min(n, base + r0 + block);
        gemm(rows, width, p, A + r0 * lda * 8, lda, B, ldb, C + r0 * ldc * 8, ldc);
      }
    },
  };
  return new WasmArena(kernels, fmaGemm !== null);
}

/** What a kernel loader is built from: its choices, explicit. */
export interface KernelLoaderChoices {
  /** The backend requested until `setRequest` changes it. */
  readonly request: KernelBackendRequest;
  /** The engine's WebAssembly API, null where it has none. */
  readonly wasm: WasmApi | null;
  /** Compile synchronously only up to this size in bytes (SYNC_COMPILE_LIMIT). */
  readonly syncLimit: number;
  /**
   * An environment variable's refusal (SDSPCAAN_KERNELS naming no backend), thrown by
   * every choice of the kernels until `setRequest` chooses them.
   */
  readonly refusal?: ValidationError | null;
}

/**
 * The kernels' loader: the request, whether the engine runs the module, the compiled
 * module and the arena of the shared instance. The library has one (`loader` below,
 * from the engine's WebAssembly global and SDSPCAAN_KERNELS), behind the functions
 * that follow; the tests build their own to check the paths of other engines (without
 * WebAssembly, refusing to compile synchronously, a module above the limit).
 */
export class KernelLoader {
  private request: KernelBackendRequest;
  private readonly wasm: WasmApi | null;
  private readonly syncLimit: number;
  /** null: not yet probed. */
  private supported: boolean | null = null;
  private module: WasmModule | null = null;
  private arena: WasmArena | null = null;
  private pending: Promise<KernelBackend> | null = null;
  /** The engine refused to compile the module synchronously: wait for `init`. */
  private syncRefused = false;
  /** The relaxed-SIMD GEMM's module (undefined: not yet probed; null: not validated). */
  private fmaModule: WasmModule | null | undefined = undefined;
  /** The active arena; undefined: decide again on the next call. */
  private active: WasmArena | null | undefined = undefined;
  /**
   * Environment variables' refusals: the first is thrown wherever the kernels are
   * chosen, until the program chooses in their place (`setRequest` for SDSPCAAN_KERNELS,
   * sdspcaan/node's `setNativeKernels` for SDSPCAAN_NATIVE).
   */
  private readonly refusals = new EnvironmentRefusals();

  constructor(choices: KernelLoaderChoices) {
    this.request = choices.request;
    this.wasm = choices.wasm;
    this.syncLimit = choices.syncLimit;
    if (choices.refusal) this.refuse(choices.refusal);
  }

  /** Keeps `error` (an environment variable's) to throw until `chosen(error.argument)`. */
  refuse(error: ValidationError): void {
    this.refusals.refuse(error);
  }

  /** The program chose what `variable` chooses: its refusal no longer stands. */
  chosen(variable: string): void {
    this.refusals.chosen(variable);
  }

  /** The first refusal still standing, or null. */
  refusal(): ValidationError | null {
    return this.refusals.standing();
  }

  private checkNotRefused(): void {
    this.refusals.check();
  }

  /** Whether this engine has WebAssembly with SIMD (cached). */
  simdSupported(): boolean {
    if (this.supported === null) {
      try {
        this.supported = this.wasm !== null && this.wasm.validate(kernelBytes()) === true;
      } catch {
        this.supported = false;
      }
    }
    return this.supported === true;
  }

  /** Whether the "fast" backend is requested ("auto" or "fast"), whichever runs. */
  fastRequested(): boolean {
    return this.request === "auto" || this.request === "fast";
  }

  /** The arena of the wasm backend when it is the active one, else null (the TS kernels). */
  activeArena(): WasmArena | null {
    this.checkNotRefused();
    if (this.active === undefined) this.active = this.decide();
    return this.active;
  }

  private decide(): WasmArena | null {
    if (this.request === "ts" || !this.simdSupported()) return null;
    if (this.arena !== null) return this.arena;
    // Refused synchronously: TS kernels until init() has compiled the module.
    if (this.syncRefused || KERNELS_WASM_SIZE > this.syncLimit) return null;
    const api = this.wasm as WasmApi;
    try {
      const module = new api.Module(kernelBytes());
      this.module = module;
      this.arena = this.instantiate(module);
      return this.arena;
    } catch (error) {
      // A browser main thread's size limit throws RangeError; anything else (a
      // CompileError) means the engine cannot run these kernels at all.
      if (error instanceof RangeError) this.syncRefused = true;
      else this.supported = false;
      return null;
    }
  }

  private instantiate(module: WasmModule): WasmArena {
    const api = this.wasm as WasmApi;
    if (this.fmaModule === undefined) this.fmaModule = fmaGemmModule(api);
    return instantiate(api, module, this.fmaModule, () => this.fastRequested());
  }

  /** A fresh instance with a memory of its own, or null (see `privateArena`). */
  privateArena(): WasmArena | null {
    if (this.activeArena() === null || this.module === null) return null;
    return this.instantiate(this.module);
  }

  /** Compiles the module asynchronously where supported (see `initLinalg`). */
  init(): Promise<KernelBackend> {
    try {
      this.checkNotRefused();
    } catch (err) {
      return Promise.reject(err);
    }
    if (this.request === "ts" || !this.simdSupported() || this.arena !== null) {
      this.active = undefined;
      return Promise.resolve(this.backend());
    }
    if (this.pending === null) {
      const api = this.wasm as WasmApi;
      this.pending = api
        .compile(kernelBytes())
        .then((module) => {
          if (this.arena === null) {
            this.module = module;
            this.arena = this.instantiate(module);
          }
        })
        .catch(() => {
          this.supported = false;
        })
        .then(() => {
          this.pending = null;
          this.active = undefined;
          return this.backend();
        });
    }
    return this.pending;
  }

  /** The backend the kernels currently run on. */
  backend(): KernelBackend {
    if (this.activeArena() === null) return "ts";
    return this.fastRequested() ? "fast" : "wasm";
  }

  /** The current request. */
  requested(): KernelBackendRequest {
    this.checkNotRefused();
    return this.request;
  }

  /** Changes the request (see `setKernelBackend`); returns the backend now active. */
  setRequest(request: KernelBackendRequest): KernelBackend {
    if (!REQUESTS.includes(request)) {
      throw new ValidationError(
        "backend",
        `The kernel backend must be "auto", "fast", "portable", "wasm" or "ts". Got ${JSON.stringify(request)} instead.`,
      );
    }
    if (request === "wasm" && !this.simdSupported()) {
      throw new ValidationError(
        "backend",
        'The kernel backend "wasm" needs WebAssembly SIMD, and this engine has no WebAssembly SIMD support.',
      );
    }
    this.request = request;
    this.active = undefined;
    this.chosen("SDSPCAAN_KERNELS");
    return this.backend();
  }
}

/** The library's loader. */
const loader = new KernelLoader({
  ...requestFromEnvironment(),
  wasm: wasmApi(),
  syncLimit: SYNC_COMPILE_LIMIT,
});

/**
 * The library's loader keeps `error`, an environment variable's refusal (sdspcaan/node's
 * SDSPCAAN_NATIVE, read on import), to throw when the kernels are first chosen.
 */
export function refuseKernelsUntilChosen(error: ValidationError): void {
  loader.refuse(error);
}

/** The program chose what `variable` chooses (sdspcaan/node's `setNativeKernels`). */
export function kernelsChosen(variable: string): void {
  loader.chosen(variable);
}

/** The environment's refusal the kernels are waiting on, or null (the Node entry asks on import). */
export function kernelRefusal(): ValidationError | null {
  return loader.refusal();
}

/** Whether this engine has WebAssembly with SIMD (cached). */
export function wasmSimdSupported(): boolean {
  return loader.simdSupported();
}

/** The arena of the wasm backend when it is the active one, else null (use the TS kernels). */
export function wasmArena(): WasmArena | null {
  return loader.activeArena();
}

/**
 * A fresh instance of the kernels with a memory of its own, or null when the wasm
 * backend is not active. For operands that stay resident for a whole computation (the
 * thin SVD factors of a large fit, hundreds of MB): in the shared arena they would pin
 * it for that long, and copying them in for every product costs as much as a thin
 * product with them. The memory is freed with the arena object.
 */
export function privateArena(): WasmArena | null {
  return loader.privateArena();
}

/**
 * Compiles the WebAssembly kernels asynchronously where supported and resolves to the
 * backend that is then active. Optional everywhere the engine compiles synchronously
 * (Node, workers, current browsers); on a browser main thread that refuses, the
 * kernels are TypeScript until it has resolved. Calling it again is cheap.
 */
export function initLinalg(): Promise<KernelBackend> {
  return loader.init();
}

/** The backend the kernels currently run on. */
export function kernelBackend(): KernelBackend {
  return loader.backend();
}

/** The current request ("auto" unless changed). */
export function requestedKernelBackend(): KernelBackendRequest {
  return loader.requested();
}

/**
 * Chooses the kernels: "auto" or "fast" (the default: the fastest kernels the platform
 * has, "fast" where WebAssembly SIMD runs, else "ts"), "portable" (the kernels every
 * committed result was computed with: "wasm" where WebAssembly SIMD runs, else "ts"),
 * "wasm" (an error where unsupported) or "ts". Each backend gives the same bits for the
 * same input (and thread count); different backends agree to rounding. Returns the
 * backend now active.
 */
export function setKernelBackend(request: KernelBackendRequest): KernelBackend {
  return loader.setRequest(request);
}
