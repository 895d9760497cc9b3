/**
 * The kernels' rates against OpenBLAS (NumPy/SciPy, one BLAS thread, bench/ref/kernels_ref.py)
 * side by side, CPU time, runs alternating between the two sides, medians:
 *
 * - gemm: C = A B^T (A m x p, B n x p) on the shapes the fits use: a square product, the
 *   Gram matrices of PCA and LDA (X^T X of YaleB, 1,024 x 1,024 from 2,414 rows, and of
 *   10,000 Fashion-MNIST images, 784 x 784), a block of a moment and the products with
 *   U and U^T of SDSPCAAN's large fits, the Householder reduction's rank-2k update and
 *   the back-transformation of 100 vectors at n = 483. Ours with operands resident in the
 *   module's memory, on the "fast" backend (the native fused kernel where it is built),
 *   on "portable" (the native kernel with the module's bits where built) and in the module
 *   itself (`wasm`); `of_numpy` is our rate over NumPy's (the target is 0.6 for "fast").
 * - symv: the reduction's symmetric matrix-vector product against dsymv;
 * - sytrd: the whole reduction to tridiagonal form (householder.ts) against LAPACK's
 *   blocked dsytrd.
 *
 * --quick: the first three GEMM shapes, symv and sytrd at n = 483.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Random } from "../../packages/sdspcaan/src/core/rng.js";
import { householderTridiagonalize } from "../../packages/sdspcaan/src/linalg/eigen/householder.js";
import {
  nativeGemmUnavailable,
  setNativeKernels,
} from "../../packages/sdspcaan/src/linalg/kernels/nativeGemm.node.js";
import {
  type KernelBackendRequest,
  requestedKernelBackend,
  setKernelBackend,
  wasmArena,
} from "../../packages/sdspcaan/src/linalg/kernels/wasm/backend.js";
import { type BenchContext, type BenchSuite, median, record, runPython } from "../harness.js";

const GEMM_SHAPES: Array<[label: string, m: number, n: number, p: number]> = [
  ["square", 1024, 1024, 1024],
  ["gram_yaleb", 1024, 1024, 2414],
  ["gram_fashion10k", 784, 784, 10000],
  ["moment_block", 64, 64, 4096],
  ["u_rows", 4096, 63, 784],
  ["ut_chunk", 784, 63, 4096],
  ["syr2k_483", 64, 419, 64],
  ["back_483", 100, 482, 32],
];
const SYMV_ORDERS = [483, 1024];
const SYTRD_ORDERS = [483, 1024];

/** The variants of our GEMM: the backend asked for and whether the native kernels run. */
const VARIANTS: Array<[name: string, backend: KernelBackendRequest, native: boolean]> = [
  ["fast", "fast", true],
  ["portable", "portable", true],
  ["wasm", "portable", false],
];

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Median CPU milliseconds of `repeats` timed calls (after one untimed), each `calls` runs of fn. */
function medianCpu(fn: () => void, repeats: number, calls = 1): number {
  fn();
  const times: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const c0 = cpuMs();
    for (let t = 0; t < calls; t++) fn();
    times.push((cpuMs() - c0) / calls);
  }
  return median(times);
}

function filled(length: number, rng: Random, into: Float64Array, at: number): void {
  for (let t = 0; t < length; t++) into[at + t] = rng.normal();
}

/** Our CPU milliseconds per GEMM shape for one variant, operands in the module's memory. */
function ourGemms(shapes: typeof GEMM_SHAPES, repeats: number): number[] {
  const arena = wasmArena();
  if (arena === null) throw new Error("kernels: the WebAssembly kernels are not active");
  const rng = new Random(1);
  return shapes.map(([, m, n, p]) => {
    const mark = arena.mark();
    const ptrs = arena.allocAll([m * p, n * p, m * n]);
    if (ptrs === null) throw new Error("kernels: no room in the module's memory");
    const [pa, pb, pc] = ptrs;
    filled(m * p, rng, arena.f64, pa >> 3);
    filled(n * p, rng, arena.f64, pb >> 3);
    const ms = medianCpu(() => arena.kernels.gemm(m, n, p, pa, p, pb, p, pc, n), repeats);
    arena.release(mark);
    return ms;
  });
}

function ourSymvs(orders: number[], repeats: number): number[] {
  const arena = wasmArena();
  if (arena === null) throw new Error("kernels: the WebAssembly kernels are not active");
  const rng = new Random(2);
  return orders.map((n) => {
    const mark = arena.mark();
    const ptrs = arena.allocAll([n * n, n, n]);
    if (ptrs === null) throw new Error("kernels: no room in the module's memory");
    const [pa, px, py] = ptrs;
    filled(n * n + 2 * n, rng, arena.f64, pa >> 3);
    const ms = medianCpu(() => arena.kernels.symv(pa, n, n, px, py), repeats, 50);
    arena.release(mark);
    return ms;
  });
}

function ourSytrds(orders: number[], repeats: number): number[] {
  const rng = new Random(3);
  return orders.map((n) => {
    const A = new Float64Array(n * n);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j <= i; j++) {
        const v = rng.normal();
        A[i * n + j] = v;
        A[j * n + i] = v;
      }
    }
    return medianCpu(() => householderTridiagonalize(A.slice(), n), repeats);
  });
}

export const kernelsSuite: BenchSuite = {
  name: "kernels",
  description:
    "GEMM on the fits' shapes, symv and the Householder reduction against OpenBLAS (one thread, CPU time)",
  run(ctx: BenchContext) {
    const gemms = ctx.quick ? GEMM_SHAPES.slice(0, 3) : GEMM_SHAPES;
    const symvs = ctx.quick ? SYMV_ORDERS.slice(0, 1) : SYMV_ORDERS;
    const sytrds = ctx.quick ? SYTRD_ORDERS.slice(0, 1) : SYTRD_ORDERS;
    const native = nativeGemmUnavailable() === null;
    if (!native) ctx.log(`kernels: no native kernels (${nativeGemmUnavailable()})`);
    const dir = mkdtempSync(join(tmpdir(), "sdspcaan-kernels-"));
    const plan = join(dir, "plan.json");
    writeFileSync(
      plan,
      JSON.stringify({
        repeats: 3,
        gemm: gemms.map(([, m, n, p]) => [m, n, p]),
        symv: symvs,
        sytrd: sytrds,
      }),
    );
    const before = requestedKernelBackend();
    const ref = { gemm: [] as number[][], symv: [] as number[][], sytrd: [] as number[][] };
    const ours = new Map<string, { gemm: number[][]; symv: number[][]; sytrd: number[][] }>();
    try {
      for (let r = 0; r < ctx.runs; r++) {
        ctx.log(`kernels: reference, run ${r + 1}/${ctx.runs}`);
        const got = runPython("kernels_ref.py", [plan], ctx.log);
        if (got === null) return;
        ref.gemm.push(got.gemm as number[]);
        ref.symv.push(got.symv as number[]);
        ref.sytrd.push(got.sytrd as number[]);
        for (const [name, backend, withNative] of VARIANTS) {
          if (withNative && !native && name !== "fast") continue;
          ctx.log(`kernels: ${name}, run ${r + 1}/${ctx.runs}`);
          setKernelBackend(backend);
          setNativeKernels(withNative && native);
          const t = ours.get(name) ?? { gemm: [], symv: [], sytrd: [] };
          t.gemm.push(ourGemms(gemms, 3));
          t.symv.push(ourSymvs(symvs, 3));
          t.sytrd.push(ourSytrds(sytrds, 3));
          ours.set(name, t);
        }
      }
    } finally {
      setKernelBackend(before);
      setNativeKernels("auto");
      rmSync(dir, { recursive: true, force: true });
    }
    const at = (runs: number[][], i: number) => median(runs.map((row) => row[i]));
    for (const [name, t] of ours) {
      gemms.forEach(([label, m, n, p], i) => {
        const ms = at(t.gemm, i);
        const refMs = at(ref.gemm, i);
        ctx.emit({
          ...record(`gemm_${label}_${name}`, ms, refMs, { m, n, p }),
          gflops: Math.round((2 * m * n * p) / ms / 1e5) / 10,
          numpy_gflops: Math.round((2 * m * n * p) / refMs / 1e5) / 10,
          of_numpy: Math.round((100 * refMs) / ms) / 100,
        });
      });
      symvs.forEach((n, i) => {
        const ms = at(t.symv, i);
        const refMs = at(ref.symv, i);
        ctx.emit({
          ...record(`symv_${n}_${name}`, ms, refMs, { n }),
          ts_us: Math.round(ms * 1e4) / 10,
          ref_us: Math.round(refMs * 1e4) / 10,
          gb_per_s: Math.round(((n * n * 4) / ms / 1e6) * 10) / 10,
        });
      });
      sytrds.forEach((n, i) => {
        ctx.emit(record(`sytrd_${n}_${name}`, at(t.sytrd, i), at(ref.sytrd, i), { n }));
      });
    }
  },
};
