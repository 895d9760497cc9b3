/**
 * Assembles packages/sdspcaan/src/linalg/kernels/wasm/kernels.wat (WebAssembly text with SIMD) into the binary
 * module and embeds it, compressed and base64-encoded, in packages/sdspcaan/src/linalg/kernels/wasm/module.ts, so that the
 * browser-safe core loads it without fetching or reading a file; and fma.wat, the "fast"
 * backend's GEMM with relaxed-SIMD fused multiply-adds (gemm.wat with every multiply-add
 * fused, `fuseMultiplyAdds`), into a second small module beside it. A line `;; @include NAME.wat`
 * in kernels.wat is replaced by that file of the same folder (module fields, no `(module`):
 * the text format has one module per file, and this keeps each file to one concern.
 *
 *   npx tsx scripts/build-wasm.ts           rewrite module.ts
 *   npx tsx scripts/build-wasm.ts --check   exit 1 when module.ts is out of date
 *
 * The assembler is the `wabt` devDependency (pinned by package-lock.json), with only the
 * SIMD feature enabled (and relaxed SIMD for fma.wat) and no names section, so the bytes depend only on the .wat file
 * and the wabt version. test/project/wasmModules.test.ts re-assembles both and compares.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { deflateRawSync } from "node:zlib";
import wabtInit from "wabt";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const watPath = resolve(repoRoot, "packages/sdspcaan/src/linalg/kernels/wasm/kernels.wat");
export const modulePath = resolve(repoRoot, "packages/sdspcaan/src/linalg/kernels/wasm/module.ts");

export const fmaWatPath = resolve(dirname(watPath), "fma.wat");

/** A .wat file with each `;; @include NAME.wat` line replaced by that file's text. */
function withIncludes(path: string): string {
  return readFileSync(path, "utf8").replace(
    /^[ \t]*;; @include ([\w.-]+\.wat)[ \t]*$/gm,
    (_line, name: string) => readFileSync(resolve(dirname(path), name), "utf8").trimEnd(),
  );
}

/** kernels.wat with its includes. */
export function kernelSource(): string {
  return withIncludes(watPath);
}

/**
 * The end of the balanced s-expression starting at `text[start]` ("("), or of the atom
 * there: the index just after it.
 */
function expressionEnd(text: string, start: number): number {
  if (text[start] !== "(") return text.slice(start).search(/[\s)]|$/) + start;
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text[i] === "(") depth++;
    else if (text[i] === ")" && --depth === 0) return i + 1;
  }
  throw new Error("build-wasm: unbalanced parentheses");
}

/** The arguments of the s-expression `text` ("(op a b ...)"), as text. */
function argumentsOf(text: string): string[] {
  const args: string[] = [];
  let i = text.indexOf(" ");
  while (i > 0 && i < text.length - 1) {
    while (/\s/.test(text[i])) i++;
    if (text[i] === ")") break;
    const end = expressionEnd(text, i);
    args.push(text.slice(i, end));
    i = end;
  }
  return args;
}

/**
 * Every (f64x2.add S (f64x2.mul X Y)) of `source` as (f64x2.relaxed_madd X Y S): the
 * fused form of gemm.wat for fma.wat, inner expressions first.
 */
export function fuseMultiplyAdds(source: string): string {
  let out = "";
  let i = 0;
  for (;;) {
    const at = source.indexOf("(f64x2.add ", i);
    if (at < 0) return out + source.slice(i);
    const end = expressionEnd(source, at);
    const [sum, product, ...rest] = argumentsOf(source.slice(at, end));
    out += source.slice(i, at);
    if (rest.length === 0 && product?.startsWith("(f64x2.mul ")) {
      const [x, y] = argumentsOf(product).map(fuseMultiplyAdds);
      out += `(f64x2.relaxed_madd ${x} ${y} ${fuseMultiplyAdds(sum)})`;
    } else {
      out += `(f64x2.add ${fuseMultiplyAdds(sum)} ${fuseMultiplyAdds(product ?? "")})`;
    }
    i = end;
  }
}

/** fma.wat with its includes (comments dropped), every multiply-add of the GEMM fused. */
export function fmaSource(): string {
  return fuseMultiplyAdds(withIncludes(fmaWatPath).replace(/;;.*$/gm, ""));
}

async function assemble(name: string, source: string, relaxed: boolean): Promise<Uint8Array> {
  const wabt = await wabtInit();
  const mod = wabt.parseWat(name, source, { simd: true, relaxed_simd: relaxed });
  try {
    mod.validate();
    const { buffer } = mod.toBinary({ canonicalize_lebs: true, write_debug_names: false });
    return Uint8Array.from(buffer);
  } finally {
    mod.destroy();
  }
}

/** The binary module assembled from kernels.wat and the files it includes. */
export function assembleKernels(): Promise<Uint8Array> {
  return assemble("kernels.wat", kernelSource(), false);
}

/** The relaxed-SIMD GEMM's module, assembled from fma.wat (gemm.wat fused). */
export function assembleFmaKernels(): Promise<Uint8Array> {
  return assemble("fma.wat", fmaSource(), true);
}

/**
 * The text of module.ts for the given bytes: raw DEFLATE (level 9), base64-encoded,
 * which every bundle of the library carries at less than half the plain base64's
 * size; inflateRaw.ts decodes it. The compressed bytes depend on the zlib in Node, so
 * `--check` compares what module.ts decodes to, not its text.
 */
export function moduleSource(bytes: Uint8Array, fmaBytes: Uint8Array): string {
  // One stream for both: the relaxed-SIMD GEMM is most of the kernels' GEMM again, which
  // the compressor then finds (about 0.2 KB more than the kernels alone, not 1 KB).
  const both = Buffer.concat([Buffer.from(bytes), Buffer.from(fmaBytes)]);
  const b64 = Buffer.from(deflateRawSync(both, { level: 9 })).toString("base64");
  const lines: string[] = [];
  for (let i = 0; i < b64.length; i += 88) lines.push(`  "${b64.slice(i, i + 88)}"`);
  return [
    "// Generated by scripts/build-wasm.ts from kernels.wat and fma.wat: do not edit by hand.",
    "// Rebuild with `npx tsx scripts/build-wasm.ts`.",
    "",
    "/** Size of the binary module in bytes. */",
    `export const KERNELS_WASM_SIZE = ${bytes.length};`,
    "",
    "/** Size of the relaxed-SIMD GEMM's module (fma.wat) in bytes, which follows it. */",
    `export const FMA_WASM_SIZE = ${fmaBytes.length};`,
    "",
    "/**",
    " * The binary module and then the relaxed-SIMD GEMM's, compressed together (raw",
    " * DEFLATE) and base64-encoded: string literals joined by +, which minifiers fold into",
    " * one literal (an array joined at run time would stay an array in every bundle).",
    " */",
    "export const KERNELS_WASM_DEFLATED_BASE64 =",
    `${lines.join(" +\n")};`,
    "",
  ].join("\n");
}

/**
 * The two modules module.ts embeds, as the library decodes them (its own inflateRaw.ts),
 * for comparing with a fresh assembly: `--check`, and test/project/wasmModules.test.ts.
 */
export async function embeddedModules(): Promise<{ kernels: Uint8Array; fma: Uint8Array }> {
  const embedded = await import(pathToFileURL(modulePath).href);
  const { inflateRaw } = await import(
    pathToFileURL(resolve(dirname(modulePath), "inflateRaw.ts")).href
  );
  const size = embedded.KERNELS_WASM_SIZE as number;
  const both = inflateRaw(
    Buffer.from(embedded.KERNELS_WASM_DEFLATED_BASE64, "base64"),
    size + (embedded.FMA_WASM_SIZE as number),
  ) as Uint8Array;
  return { kernels: both.subarray(0, size), fma: both.subarray(size) };
}

async function main(): Promise<void> {
  const bytes = await assembleKernels();
  const fmaBytes = await assembleFmaKernels();
  if (process.argv.includes("--check")) {
    const { kernels, fma } = await embeddedModules();
    const both = Buffer.concat([Buffer.from(kernels), Buffer.from(fma)]);
    if (!both.equals(Buffer.concat([Buffer.from(bytes), Buffer.from(fmaBytes)]))) {
      console.error(
        "packages/sdspcaan/src/linalg/kernels/wasm/module.ts is out of date: run npx tsx scripts/build-wasm.ts",
      );
      process.exit(1);
    }
    console.log(`module.ts is up to date (${bytes.length} bytes)`);
    return;
  }
  writeFileSync(modulePath, moduleSource(bytes, fmaBytes));
  console.log(`wrote ${modulePath} (${bytes.length} + ${fmaBytes.length} bytes)`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
