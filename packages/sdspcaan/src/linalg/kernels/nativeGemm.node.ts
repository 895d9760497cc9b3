/**
 * The optional native GEMM (sdspcaan-native's gemm.c, built into its build/gemm.node by
 * `npm run build`). Two kernels with the wasm module's `gemm` contract: the module's own
 * with AVX-512 or AVX2 vectors and its bits (each entry summed in kernels.wat's order,
 * without fused multiply-add; 2 to 3.6 times faster per thread, AVX-512, 1.6 to 1.9
 * AVX2; docs/performance.md, "The native GEMM"), which the "wasm" backend's products and
 * every backend's neighbour searches run; and the "fast" backend's (fma.c): fused
 * multiply-adds in register-blocked tiles, each entry one chain of them, bits of its own
 * that agree with the module's to rounding. Every product of the kernels that goes
 * through `gemm` uses one of them once installed (wasm/backend.ts, setExternalKernels):
 * the thin SVD, the Gram products of PCA and LDA, the Householder reduction's rank-2k
 * updates, U^T L U, the moments and the lifted start of SDSPCAAN's large fits, the block
 * scans of the neighbour searches, the 1-NN classifier's distances. Two more kernels
 * come with it: `gemmLowerBlocks` (the lower block rows of U^T L U's chunks and of the
 * moments in one call, B's blocks packed once: each entry with the full product's bits)
 * and `gemm32`, the initial search's single-precision screen (fused multiply-adds, 16
 * lanes: about 3 times the module's rate; not the module's bits, which a screen need
 * not have, since screenedSearch.ts bounds any summation order and decides every
 * distance in double precision). The other kernels stay in WebAssembly.
 *
 * Node only, and per thread: `setNativeKernels` (the CLI calls it with "auto"; the
 * kernel helpers and the experiment's workers follow their parent's setting). On the
 * "wasm" backend the results are the module's bits (the screen only chooses which
 * pairs are decided exactly), so they do not depend on it; on "fast" they are the
 * fused kernel's. The kernel helpers start with their starting thread's setting, and
 * are restarted when it changes.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ValidationError } from "../../core/errors.js";
import {
  type ExternalGemm,
  type ExternalGemmLower,
  type ExternalKernels,
  kernelsChosen,
  setExternalKernels,
  wasmArena,
} from "./wasm/backend.js";

interface NativeAddon {
  readonly gemm: ExternalGemm;
  /** The AVX2 kernel even where AVX-512 runs (same bits; SDSPCAAN_NATIVE=avx2). */
  readonly gemmAvx2: ExternalGemm;
  /** gemm on the lower block rows in one call (the kernels' gemmLowerBlocks; same bits). */
  readonly gemmLower: ExternalGemmLower;
  readonly gemmLowerAvx2: ExternalGemmLower;
  /** The single-precision screen with fused multiply-adds (not the module's bits; a screen). */
  readonly gemm32: ExternalGemm;
  readonly gemm32Avx2: ExternalGemm;
  /**
   * The "fast" backend's GEMM (fma.c): every entry one chain of fused multiply-adds,
   * the same bits at either width; not the module's bits (they agree to rounding).
   */
  readonly gemmFma: ExternalGemm;
  readonly gemmFmaAvx2: ExternalGemm;
  /** gemmFma on the lower block rows (gemmLower's contract, gemmFma's bits). */
  readonly gemmLowerFma: ExternalGemmLower;
  readonly gemmLowerFmaAvx2: ExternalGemmLower;
  /** The "fast" backend's symv (fma.c): the module's contract, fused; both widths one's bits. */
  readonly symvFma: NonNullable<ExternalKernels["symvFast"]>;
  readonly symvFmaAvx2: NonNullable<ExternalKernels["symvFast"]>;
  /** The "fast" backend's combine2 and dots2 (fma.c), likewise. */
  readonly combine2Fma: NonNullable<ExternalKernels["combine2Fast"]>;
  readonly combine2FmaAvx2: NonNullable<ExternalKernels["combine2Fast"]>;
  readonly dots2Fma: NonNullable<ExternalKernels["dots2Fast"]>;
  readonly dots2FmaAvx2: NonNullable<ExternalKernels["dots2Fast"]>;
  /** A panel of the blocked reduction in one call (fma.c, latrd_fma), with the three above. */
  readonly latrdFma: NonNullable<ExternalKernels["latrdFast"]>;
  readonly latrdFmaAvx2: NonNullable<ExternalKernels["latrdFast"]>;
  /** The widest kernel this CPU runs: "avx512", "avx2", or "" (none). */
  readonly isa: string;
  /** The widest fused kernel: "avx512", "avx2" (with FMA), or "" (none). */
  readonly fusedIsa?: string;
}

/**
 * Where the addon is: the optional package sdspcaan-native compiles it from source at
 * install (no binary is shipped), into its build/gemm.node.
 */
function addonPath(): string | null {
  try {
    const pkg = createRequire(import.meta.url).resolve("sdspcaan-native/package.json");
    const path = join(dirname(pkg), "build", "gemm.node");
    return existsSync(path) ? path : null;
  } catch {
    return null;
  }
}

let probed: { addon: NativeAddon } | { reason: string } | undefined;

/** The loaded addon, or why there is none (cached: a process loads it at most once). */
function probe(): { addon: NativeAddon } | { reason: string } {
  if (probed !== undefined) return probed;
  const path = addonPath();
  if (path === null) {
    probed = {
      reason:
        process.arch === "x64"
          ? "the package sdspcaan-native is not installed, or could not compile its addon (it needs a C compiler and Node's headers at install)"
          : `the native kernel is for x86-64 and this is ${process.arch}`,
    };
    return probed;
  }
  try {
    const addon = createRequire(import.meta.url)(path) as NativeAddon;
    probed =
      addon.isa === "avx512" || addon.isa === "avx2"
        ? { addon }
        : { reason: "this CPU has neither AVX2 nor AVX-512, which the native kernel needs" };
  } catch (error) {
    probed = {
      reason: `${path} did not load (${error instanceof Error ? error.message : String(error)})`,
    };
  }
  return probed;
}

/** Why the native GEMM cannot run here, or null when it can. */
export function nativeGemmUnavailable(): string | null {
  const p = probe();
  return "reason" in p ? p.reason : null;
}

let active: "avx512" | "avx2" | null = null;

/** Whether the native GEMM is installed on this thread (setNativeKernels). */
export function nativeKernelsActive(): boolean {
  return active !== null;
}

/** The vector width the installed native GEMM runs with, or null when it is not installed. */
export function nativeGemmIsa(): "avx512" | "avx2" | null {
  return active;
}

/**
 * What SDSPCAAN_NATIVE in `env` says: 0 (or off, false, no) turns "auto" off; avx2 keeps
 * to AVX2; unset, empty, 1, on, true, yes or auto leave "auto" as it is (any case). Any
 * other value is refused naming the variable: a misspelt avx2 or 0 would otherwise be
 * "auto" without a word.
 */
export function nativeSettingFromEnv(
  env: Record<string, string | undefined> | undefined,
): "off" | "avx2" | "auto" {
  const given = env?.SDSPCAAN_NATIVE;
  const value = given?.trim().toLowerCase() ?? "";
  if (/^(0|off|false|no)$/.test(value)) return "off";
  if (value === "avx2") return "avx2";
  if (/^(|1|on|true|yes|auto)$/.test(value)) return "auto";
  throw new ValidationError(
    "SDSPCAAN_NATIVE",
    `The environment variable SDSPCAAN_NATIVE must be 0 (or off, false, no: the WebAssembly kernels), avx2, or 1 (or on, true, yes, auto), or be unset. Got ${JSON.stringify(given)} instead.`,
  );
}

/** This process's SDSPCAAN_NATIVE setting (see nativeSettingFromEnv). */
function environmentSetting(): "off" | "avx2" | "auto" {
  let env: Record<string, string | undefined> | undefined;
  try {
    env = { SDSPCAAN_NATIVE: process.env.SDSPCAAN_NATIVE };
  } catch {
    // Deno without --allow-env refuses the read (NotCapable): unset, as in initialRequest.
  }
  return nativeSettingFromEnv(env);
}

/**
 * Installs the addon's kernels on this thread (the AVX2 ones when asked or when they are
 * all): the module's GEMM with its bits (the "wasm" backend's, and every backend's
 * neighbour searches), and the fused one of the "fast" backend where the CPU has FMA.
 */
function install(addon: NativeAddon): void {
  const narrow = addon.isa === "avx2" || environmentSetting() === "avx2";
  const fused = addon.fusedIsa === "avx512" || addon.fusedIsa === "avx2";
  const fusedNarrow = narrow || addon.fusedIsa === "avx2";
  setExternalKernels({
    ...(narrow
      ? { gemm: addon.gemmAvx2, gemmLower: addon.gemmLowerAvx2, gemm32: addon.gemm32Avx2 }
      : { gemm: addon.gemm, gemmLower: addon.gemmLower, gemm32: addon.gemm32 }),
    ...(fused
      ? fusedNarrow
        ? {
            gemmFast: addon.gemmFmaAvx2,
            gemmLowerFast: addon.gemmLowerFmaAvx2,
            symvFast: addon.symvFmaAvx2,
            combine2Fast: addon.combine2FmaAvx2,
            dots2Fast: addon.dots2FmaAvx2,
            latrdFast: addon.latrdFmaAvx2,
          }
        : {
            gemmFast: addon.gemmFma,
            gemmLowerFast: addon.gemmLowerFma,
            symvFast: addon.symvFma,
            combine2Fast: addon.combine2Fma,
            dots2Fast: addon.dots2Fma,
            latrdFast: addon.latrdFma,
          }
      : {}),
  });
  active = narrow ? "avx2" : "avx512";
}

/**
 * Runs the kernels' GEMM natively (true), in WebAssembly (false), or natively where it
 * can and SDSPCAAN_NATIVE does not say 0 ("auto"); returns whether it now runs natively.
 * true throws, naming the reason, where it cannot. Only with WebAssembly kernels active
 * (the TypeScript kernels have no `gemm` to replace). On the "wasm" (portable) backend
 * the results are the WebAssembly kernel's, bit for bit: only the time changes; on
 * "fast" the native fused kernel runs, whose bits are its own.
 */
export function setNativeKernels(request: boolean | "auto"): boolean {
  if (request !== true && request !== false && request !== "auto") {
    throw new ValidationError(
      "native",
      `The native kernels' setting must be true, false or "auto". Got ${String(request)} instead.`,
    );
  }
  // Read before anything else: a bad SDSPCAAN_NATIVE is refused here, and a setting the
  // program chose replaces the refusal the Node entry kept from its import.
  const setting = request === false ? "off" : environmentSetting();
  kernelsChosen("SDSPCAAN_NATIVE");
  let want = request === true || (request === "auto" && setting !== "off");
  if (want && wasmArena() === null) {
    if (request === true) {
      throw new ValidationError(
        "native",
        "The native GEMM replaces the WebAssembly kernel, and the WebAssembly backend is not active (SDSPCAAN_KERNELS=ts, or no WebAssembly SIMD).",
      );
    }
    want = false;
  }
  const p = probe();
  if (want && "reason" in p) {
    if (request === true) {
      throw new ValidationError("native", `The native GEMM cannot run here: ${p.reason}.`);
    }
    want = false;
  }
  if (want && "addon" in p) install(p.addon);
  else {
    setExternalKernels(null);
    active = null;
  }
  return active !== null;
}

/**
 * Installs the native GEMM on a kernel helper's thread when the thread that started it
 * runs it (helperWorker.node.ts); false when it cannot, and the helper then reports it.
 */
export function installNativeOnHelper(): boolean {
  const p = probe();
  if ("reason" in p) return false;
  install(p.addon);
  return true;
}
