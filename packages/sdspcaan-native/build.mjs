/**
 * Builds the optional native GEMM (gemm.c, fma.c and reduction.c, a Node-API addon) into build/gemm.node with
 * the system C compiler and the headers of the running Node (<node prefix>/include/node),
 * without node-gyp and without the network. It is this package's install script, so
 * the addon is always compiled on the machine that runs it; no binary is packed.
 *
 * It never fails the build: on another architecture, without a compiler or without the
 * headers it says why and exits 0, and the library keeps its WebAssembly kernels
 * (sdspcaan's linalg/kernels/nativeGemm.node.ts). SDSPCAAN_NATIVE=0 skips the build.
 *
 *   node build.mjs            build (or explain why not)
 *   node build.mjs --strict   exit 1 when it cannot be built
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
// gemm.c: the addon and the exact kernels; fma.c: the fast backend's fused kernels;
// reduction.c: the calls of fma.c's reduction kernels.
const sources = ["gemm.c", "fma.c", "reduction.c"].map((file) => join(root, file));
const outDir = join(root, "build");
const out = join(outDir, "gemm.node");
const strict = process.argv.includes("--strict");

function skip(reason) {
  const message = `native GEMM not built: ${reason}. The WebAssembly kernels will be used.`;
  if (strict) {
    console.error(`error: ${message}`);
    process.exit(1);
  }
  console.warn(`note: ${message}`);
  process.exit(0);
}

if (/^(0|off|false|no)$/i.test(process.env.SDSPCAAN_NATIVE ?? "")) skip("SDSPCAAN_NATIVE=0");
if (process.arch !== "x64") skip(`its kernels are for x86-64, this is ${process.arch}`);
if (process.platform !== "linux" && process.platform !== "darwin") {
  skip(`no build recipe for ${process.platform}`);
}
const include = join(dirname(process.execPath), "..", "include", "node");
if (!existsSync(join(include, "node_api.h"))) skip(`no Node headers at ${include}`);

const compiler = process.env.CC || "cc";
const args = [
  "-O3",
  "-std=c11",
  "-fPIC",
  "-shared",
  // Only the fused multiply-adds written in the source (its comment gives the order).
  "-ffp-contract=off",
  "-fvisibility=hidden",
  `-I${include}`,
  ...(process.platform === "darwin" ? ["-undefined", "dynamic_lookup"] : []),
  ...sources,
];
mkdirSync(outDir, { recursive: true });
// Written beside and renamed, so that a failed build leaves no half-written addon.
const partial = `${out}.partial-${process.pid}`;
try {
  execFileSync(compiler, [...args, "-o", partial], { stdio: ["ignore", "inherit", "inherit"] });
  renameSync(partial, out);
} catch (error) {
  rmSync(partial, { force: true });
  skip(`${compiler} failed (${error instanceof Error ? error.message.split("\n")[0] : error})`);
}
console.log(`native GEMM built: ${out}`);
