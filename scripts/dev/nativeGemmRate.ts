/**
 * GFLOP/s of the kernels' GEMM on operands resident in the module's memory (no copies):
 * the WebAssembly kernel against the native one (AVX-512 where the CPU has it, and AVX2),
 * one thread, on the shapes of the large fits (docs/performance.md, "The native GEMM").
 * Medians of --repeats runs; every native result is checked bit for bit against wasm's.
 *
 * Usage: npx tsx scripts/dev/nativeGemmRate.ts [--repeats 5]
 */
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { Random } from "../../packages/sdspcaan/src/core/rng.js";
import {
  type ExternalGemm,
  wasmArena,
} from "../../packages/sdspcaan/src/linalg/kernels/wasm/backend.js";

const { values: args } = parseArgs({ options: { repeats: { type: "string", default: "5" } } });
const repeats = Number(args.repeats);
const addon = createRequire(import.meta.url)("../../packages/sdspcaan-native/build/gemm.node") as {
  gemm: ExternalGemm;
  gemmAvx2: ExternalGemm;
  isa: string;
};
const arena = wasmArena();
if (arena === null) throw new Error("the wasm backend is not active");
const shapes: Array<[string, number, number, number]> = [
  ["square 1024^3", 1024, 1024, 1024],
  ["moment block 64 x 64 x 4096", 64, 64, 4096],
  ["moment strip 794 x 794 x 4096", 794, 794, 4096],
  ["U Y rows 4096 x 63 x 784", 4096, 63, 784],
  ["U^T V 784 x 63 x 4096", 784, 63, 4096],
];
const median = (t: number[]) => [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)];
console.log(`native isa: ${addon.isa}; medians of ${repeats}, one thread`);
for (const [label, m, n, p] of shapes) {
  const mark = arena.mark();
  const ptrs = arena.allocAll([m * p, n * p, m * n]);
  if (ptrs === null) throw new Error("no room");
  const [pa, pb, pc] = ptrs;
  const rng = new Random(m + n + p);
  const f = arena.f64;
  for (let t = 0; t < m * p; t++) f[(pa >> 3) + t] = rng.normal();
  for (let t = 0; t < n * p; t++) f[(pb >> 3) + t] = rng.normal();
  const variants: Array<[string, () => void]> = [
    ["wasm", () => arena.kernels.gemm(m, n, p, pa, p, pb, p, pc, n)],
    ["native", () => addon.gemm(arena.buffer, m, n, p, pa, p, pb, p, pc, n)],
    ["native avx2", () => addon.gemmAvx2(arena.buffer, m, n, p, pa, p, pb, p, pc, n)],
  ];
  const results: string[] = [];
  let reference: Float64Array | null = null;
  for (const [name, run] of variants) {
    const times: number[] = [];
    for (let r = 0; r <= repeats; r++) {
      arena.f64.fill(0, pc >> 3, (pc >> 3) + m * n);
      const t0 = performance.now();
      run();
      if (r > 0) times.push(performance.now() - t0);
    }
    const out = arena.f64.slice(pc >> 3, (pc >> 3) + m * n);
    if (reference === null) reference = out;
    else if (out.some((v, t) => !Object.is(v, (reference as Float64Array)[t]))) {
      throw new Error(`${name} differs from wasm on ${label}`);
    }
    const ms = median(times);
    results.push(`${name} ${((2 * m * n * p) / ms / 1e6).toFixed(1)}`);
  }
  console.log(`${label}: ${results.join(", ")} GFLOP/s`);
  arena.release(mark);
}
