/**
 * Run by fastGemm.test.ts in a Node that validates relaxed SIMD (Node >= 22, or Node 20
 * with --experimental-wasm-relaxed-simd), on the "fast" backend without the native
 * GEMM: the relaxed-SIMD module's GEMM against the module's own. Prints one JSON line.
 */
import { Random } from "#internal/core/rng.js";
import { gemmABtExact, gemmABtRaw } from "#internal/linalg/kernels/gemm.js";
import {
  fmaGemmModule,
  setKernelBackend,
  wasmArena,
} from "#internal/linalg/kernels/wasm/backend.js";
import { wasmEngine } from "../../helpers/wasmEngine.js";

setKernelBackend("fast");
const arena = wasmArena();
if (arena === null) throw new Error("no WebAssembly kernels");
const [m, n, p] = [67, 45, 601];
const rng = new Random(3);
const A = Float64Array.from({ length: m * p }, () => rng.normal());
const B = Float64Array.from({ length: n * p }, () => rng.normal());
const fused = new Float64Array(m * n);
gemmABtRaw(m, n, p, A, p, B, p, fused, n);
const again = new Float64Array(m * n);
gemmABtRaw(m, n, p, A, p, B, p, again, n);
const exact = new Float64Array(m * n);
gemmABtExact(m, n, p, A, p, B, p, exact, n);

// Each gap against the bound 2 (p + 2) u sum |a_l b_l|: the worst ratio.
let worstGap = 0;
let differ = 0;
for (let i = 0; i < m; i++) {
  for (let j = 0; j < n; j++) {
    let scale = 0;
    for (let l = 0; l < p; l++) scale += Math.abs(A[i * p + l] * B[j * p + l]);
    const gap = Math.abs(fused[i * n + j] - exact[i * n + j]);
    worstGap = Math.max(worstGap, gap / (2 * (p + 2) * 2 ** -53 * scale));
    if (gap > 0) differ++;
  }
}

// Entries computed alone (1 x 1 products on operands in the module's memory) and in
// the product's corners, where the module's edge kernels run.
let shapeFree = true;
const mark = arena.mark();
const ptrs = arena.allocAll([p, p, 1]);
if (ptrs === null) throw new Error("no room");
const [pa, pb, pc] = ptrs;
for (const [i, j] of [
  [0, 0],
  [m - 1, n - 1],
  [m - 1, 0],
  [0, n - 1],
  [33, 22],
]) {
  arena.f64.set(A.subarray(i * p, (i + 1) * p), pa >> 3);
  arena.f64.set(B.subarray(j * p, (j + 1) * p), pb >> 3);
  arena.f64[pc >> 3] = 0;
  arena.kernels.gemm(1, 1, p, pa, p, pb, p, pc, 1);
  if (!Object.is(arena.f64[pc >> 3], fused[i * n + j])) shapeFree = false;
}
arena.release(mark);

process.stdout.write(
  `${JSON.stringify({
    validated: fmaGemmModule(wasmEngine) !== null,
    relaxedRuns: arena.hasFmaGemm,
    worstGap,
    differ,
    entries: m * n,
    deterministic: fused.every((v, t) => Object.is(v, again[t])),
    shapeFree,
  })}\n`,
);
