/**
 * The embedded WebAssembly modules' bytes: module.ts holds the kernels' module and the
 * relaxed-SIMD GEMM's (fma.wat) deflated together as base64 (see inflateRaw.ts); they
 * are decoded and inflated here, the kernels' once for both the support check and the
 * compile.
 */
import { inflateRaw } from "./inflateRaw.js";
import { FMA_WASM_SIZE, KERNELS_WASM_DEFLATED_BASE64, KERNELS_WASM_SIZE } from "./module.js";

/** Standard base64 (RFC 4648), loop decoder where the engine has no atob. */
function decodeBase64(text: string): Uint8Array {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  let len = text.length;
  while (len > 0 && text[len - 1] === "=") len--;
  const out = new Uint8Array((len * 3) >> 2);
  // Six bits per character into `acc`; each time it holds a whole byte (its top 8 of
  // `bits + 8`), that byte goes out.
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < len; i++) {
    acc = (acc << 6) | alphabet.indexOf(text[i]);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = acc >> bits;
      acc &= (1 << bits) - 1;
    }
  }
  return out;
}

/**
 * The embedded modules' bytes, the kernels' and then the relaxed-SIMD GEMM's (module.ts
 * holds them compressed together: see inflateRaw.ts).
 */
function embeddedBytes(): Uint8Array {
  const size = KERNELS_WASM_SIZE + FMA_WASM_SIZE;
  return inflateRaw(base64Bytes(KERNELS_WASM_DEFLATED_BASE64), size);
}

/** The embedded kernels' module. */
export function kernelModuleBytes(): Uint8Array {
  return embeddedBytes().subarray(0, KERNELS_WASM_SIZE);
}

/** The embedded relaxed-SIMD GEMM's module (fma.wat). */
export function fmaModuleBytes(): Uint8Array {
  return embeddedBytes().subarray(KERNELS_WASM_SIZE);
}

let moduleBytes: Uint8Array | null = null;

/** kernelModuleBytes, inflated once: the support check validates them, the loader compiles them. */
export function kernelBytes(): Uint8Array {
  moduleBytes ??= kernelModuleBytes();
  return moduleBytes;
}

function base64Bytes(text: string): Uint8Array {
  // The engine's own decoder (every browser, Node >= 16) is native code: in a fresh
  // process it takes a fraction of a millisecond where the loop below, not yet
  // optimised, takes several. The loop stays for engines without atob.
  const atob = (globalThis as { atob?: (text: string) => string }).atob;
  if (typeof atob === "function") {
    const binary = atob(text);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  }
  return decodeBase64(text);
}

/** The loop decoder of kernelModuleBytes, exported for its test. */
export { decodeBase64 as decodeBase64ForTest };
