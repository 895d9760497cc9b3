/**
 * What the environment asks of the kernels: the backends' names, SDSPCAAN_KERNELS's
 * request, and the refusals of environment variables that name nothing known
 * (SDSPCAAN_KERNELS here, SDSPCAAN_NATIVE from the Node entry). The variables are read
 * when the library loads, where a throw would fail the import itself, before the
 * program could catch anything or choose the kernels itself; so each refusal is kept
 * (EnvironmentRefusals) and thrown wherever the kernels are chosen, until the program
 * chooses what that variable would have chosen.
 */
import { ValidationError } from "../../../core/errors.js";

/**
 * The backend the kernels run on: "fast" (the WebAssembly module with the fastest GEMM
 * the platform has: the native addon's fused kernel in Node, the module's relaxed-SIMD
 * one where the engine validates it, else the module's own), "wasm" (the portable
 * WebAssembly kernels, every product with the module's bits) or "ts" (the TypeScript
 * kernels).
 */
export type KernelBackend = "fast" | "wasm" | "ts";
/**
 * What `setKernelBackend` and SDSPCAAN_KERNELS accept: "auto" and "fast" (the default:
 * "fast" where WebAssembly SIMD runs, else "ts"), "portable" (the kernels as they were
 * before "fast": "wasm" where WebAssembly SIMD runs, else "ts"), "wasm" or "ts".
 */
export type KernelBackendRequest = KernelBackend | "auto" | "portable";

/** The requests, as `setKernelBackend` and SDSPCAAN_KERNELS accept them. */
export const REQUESTS: readonly KernelBackendRequest[] = ["auto", "fast", "portable", "wasm", "ts"];

/**
 * The backend SDSPCAAN_KERNELS asks for in `env` ("auto" when unset or empty; any case):
 * the library's loader starts from it when a `process.env` exists. A value that names
 * no backend is a ValidationError naming the variable: taken for "auto" it would lose,
 * without a word, the bits a "portable" (misspelt) was set for.
 */
export function kernelRequestFromEnv(
  env: Record<string, string | undefined> | undefined,
): KernelBackendRequest {
  const given = env?.SDSPCAAN_KERNELS;
  const value = given?.trim().toLowerCase() ?? "";
  if (value === "") return "auto";
  const request = REQUESTS.find((r) => r === value);
  if (request === undefined) {
    throw new ValidationError(
      "SDSPCAAN_KERNELS",
      `The environment variable SDSPCAAN_KERNELS must be "auto", "fast", "portable", "wasm" or "ts" (or unset). Got ${JSON.stringify(given)} instead.`,
    );
  }
  return request;
}

/**
 * The loader's first request: SDSPCAAN_KERNELS's, or its refusal. The variable is read
 * when the library loads, where a throw would fail the import itself (before the
 * program could catch anything or choose with setKernelBackend), so the refusal is
 * kept and thrown when the kernels are first chosen.
 */
export function requestFromEnvironment(): {
  request: KernelBackendRequest;
  refusal: ValidationError | null;
} {
  try {
    return { request: kernelRequestFromEnv(processEnv()), refusal: null };
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    return { request: "auto", refusal: err };
  }
}

/** `process.env` where there is one and reading it is allowed, else undefined. */
function processEnv(): Record<string, string | undefined> | undefined {
  try {
    const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process
      ?.env;
    // Deno without --allow-env throws on a read (NotCapable), not on the access above.
    void env?.SDSPCAAN_KERNELS;
    return env;
  } catch {
    // The library imports with no permissions: the variable counts as unset.
    return undefined;
  }
}

/** The refusals standing, in the order they came. */
export class EnvironmentRefusals {
  /** The refusals by variable name (the error's argument), in the order they came. */
  private readonly byVariable = new Map<string, ValidationError>();
  /** The first of them (null: none), kept so that every kernel call reads one field. */
  private first: ValidationError | null = null;

  /** Keeps `error` to throw until `chosen(error.argument)`. */
  refuse(error: ValidationError): void {
    if (!this.byVariable.has(error.argument)) this.byVariable.set(error.argument, error);
    this.first ??= error;
  }

  /** The program chose what `variable` chooses: its refusal no longer stands. */
  chosen(variable: string): void {
    if (!this.byVariable.delete(variable)) return;
    this.first = null;
    for (const error of this.byVariable.values()) {
      this.first = error;
      break;
    }
  }

  /** The first refusal still standing, or null. */
  standing(): ValidationError | null {
    return this.first;
  }

  /** Throws the first refusal still standing, if any. */
  check(): void {
    const error = this.first;
    // A fresh error each time: its stack is the call's that chose the kernels.
    if (error !== null) throw new ValidationError(error.argument, error.message);
  }
}
