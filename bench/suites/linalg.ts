/**
 * Dense linear algebra against NumPy/SciPy (one BLAS thread), on the same matrices:
 * they are generated here from fixed seeds and written to .npy files that
 * bench/ref/linalg_ref.py reads.
 *
 * - eigen: k smallest eigenpairs of a random symmetric n x n matrix (k = 10, 100)
 *   against scipy.linalg.eigh(subset_by_index=[0, k-1]);
 * - gemm: X X^T for X n x 1024 against numpy's X @ X.T, with GFLOP/s;
 * - gemm also with the native GEMM where it is built (`backend: "native"`: the wasm
 *   backend with nativeGemm.node.ts's kernel installed);
 * - eigen and gemm run on the active kernel backend (`backend` in the records: wasm
 *   where WebAssembly SIMD is available) and, for comparison, also on the pure
 *   TypeScript kernels (eigen up to n = 1000), interleaved run by run;
 * - lobpcg: a cold solve for the 10 smallest eigenpairs of the SDSPCAAN matrix
 *   Z = -X X^T - alpha Y Y^T + beta D + delta X X^T L X X^T (SPEC section 3 item 7),
 *   applied matrix-free with d = 1024, class-structured X, a kNN-graph Laplacian L
 *   built here, against scipy.sparse.linalg.lobpcg on the same LinearOperator.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { Random } from "../../packages/sdspcaan/src/core/rng.js";
import { lobpcg } from "../../packages/sdspcaan/src/linalg/eigen/lobpcg.js";
import { symmetricEigen } from "../../packages/sdspcaan/src/linalg/eigen/symmetricEigen.js";
import {
  gemmABtRaw,
  multiply,
  multiplyABt,
} from "../../packages/sdspcaan/src/linalg/kernels/gemm.js";
import {
  nativeGemmUnavailable,
  setNativeKernels,
} from "../../packages/sdspcaan/src/linalg/kernels/nativeGemm.node.js";
import {
  type KernelBackend,
  kernelBackend,
  requestedKernelBackend,
  setKernelBackend,
} from "../../packages/sdspcaan/src/linalg/kernels/wasm/backend.js";
import {
  type BenchContext,
  type BenchSuite,
  median,
  record,
  runPython,
  timeMedian,
} from "../harness.js";

/** Writes a float64 (or int32) C-order array as .npy (format version 1.0). */
function writeNpy(path: string, data: Float64Array | Int32Array, shape: number[]): void {
  const descr = data instanceof Float64Array ? "<f8" : "<i4";
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const total = 10 + header.length + 1;
  header += " ".repeat((64 - (total % 64)) % 64);
  header += "\n";
  const head = Buffer.alloc(10 + header.length);
  head.write("\x93NUMPY", 0, "latin1");
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  head.write(header, 10, "latin1");
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  writeFileSync(path, Buffer.concat([head, body]));
}

function randomSymmetric(n: number, seed: number): Matrix {
  const rng = new Random(seed);
  const A = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const v = rng.normal();
      A.data[i * n + j] = v;
      A.data[j * n + i] = v;
    }
  }
  return A;
}

/**
 * Median timings in ms of `runs` calls after `warmups` untimed calls, for several
 * kernel backends at once: each run times every backend in turn (so that load changes
 * on a shared machine hit all of them alike); the requested backend is restored
 * afterwards. V8 needs several calls of the eigen-solver before all of its kernels run
 * optimised code (at n = 250 the first call takes ~15x and the next five ~3x the
 * steady-state time), hence several warm-ups for small n: the benchmark reports the
 * steady state of repeated solves.
 */
function timesPerBackend(
  fn: () => unknown,
  backends: KernelBackend[],
  runs: number,
  warmups: number,
): Map<KernelBackend, number> {
  const saved = requestedKernelBackend();
  const out = new Map<KernelBackend, number[]>();
  try {
    for (let w = 0; w < warmups; w++) {
      for (const b of backends) {
        setKernelBackend(b);
        fn();
      }
    }
    for (let r = 0; r < runs; r++) {
      for (const b of backends) {
        setKernelBackend(b);
        const t0 = performance.now();
        fn();
        const list = out.get(b) ?? [];
        list.push(performance.now() - t0);
        out.set(b, list);
      }
    }
  } finally {
    setKernelBackend(saved);
  }
  return new Map([...out].map(([b, ts]) => [b, median(ts)]));
}

/** The active backend first, then the TS kernels when they are not the active ones. */
function comparedBackends(withTs: boolean): KernelBackend[] {
  const active = kernelBackend();
  return active === "ts" || !withTs ? [active] : [active, "ts"];
}

/** Compressed sparse rows (built locally so the bench depends only on this suite). */
interface Csr {
  n: number;
  indptr: Int32Array;
  indices: Int32Array;
  data: Float64Array;
}

function csrTimesBlock(L: Csr, V: Matrix): Matrix {
  const b = V.cols;
  const out = new Matrix(L.n, b);
  const o = out.data;
  const v = V.data;
  for (let i = 0; i < L.n; i++) {
    const oi = i * b;
    for (let p = L.indptr[i]; p < L.indptr[i + 1]; p++) {
      const w = L.data[p];
      const vj = L.indices[p] * b;
      for (let j = 0; j < b; j++) o[oi + j] += w * v[vj + j];
    }
  }
  return out;
}

/**
 * A realistic SDSPCAAN problem: c classes whose means lie in a low-dimensional
 * subspace, samples = latent class position + latent noise lifted to d dimensions +
 * isotropic noise; the graph is the symmetrised 15-nearest-neighbour graph on the
 * latent coordinates (s_ij = 1/15, then (S + S^T)/2), as the adaptive-neighbour graph
 * of the paper has ~2m non-zeros per row; D is a positive diagonal.
 */
export function sdspcaanProblem(n: number, d: number, classes: number, seed: number) {
  const rng = new Random(seed);
  const latent = 16;
  const m = 15;
  const labels = new Int32Array(n);
  for (let i = 0; i < n; i++) labels[i] = rng.integer(classes);
  const centres = new Float64Array(classes * latent);
  for (let i = 0; i < centres.length; i++) centres[i] = 3 * rng.normal();
  const Z = new Matrix(n, latent);
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < latent; t++) {
      Z.data[i * latent + t] = centres[labels[i] * latent + t] + rng.normal();
    }
  }
  const lift = new Matrix(latent, d);
  for (let i = 0; i < lift.data.length; i++) lift.data[i] = rng.normal() / Math.sqrt(latent);
  const X = multiply(Z, lift);
  for (let i = 0; i < X.data.length; i++) X.data[i] += 0.5 * rng.normal();
  // Centre the columns, as the methods do.
  const mean = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) mean[j] += X.data[i * d + j] / n;
  for (let i = 0; i < n; i++) for (let j = 0; j < d; j++) X.data[i * d + j] -= mean[j];
  // kNN on the latent coordinates, in row blocks through the GEMM kernel.
  const sq = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let t = 0; t < latent; t++) s += Z.data[i * latent + t] ** 2;
    sq[i] = s;
  }
  const neighbours = new Int32Array(n * m);
  const BS = 256;
  const G = new Float64Array(BS * n);
  const best = new Float64Array(m);
  const bestIdx = new Int32Array(m);
  for (let i0 = 0; i0 < n; i0 += BS) {
    const rows = Math.min(BS, n - i0);
    gemmABtRaw(rows, n, latent, Z.data.subarray(i0 * latent), latent, Z.data, latent, G, n);
    for (let r = 0; r < rows; r++) {
      const i = i0 + r;
      best.fill(Number.POSITIVE_INFINITY);
      bestIdx.fill(-1);
      for (let j = 0; j < n; j++) {
        if (j === i) continue;
        const dist = sq[i] + sq[j] - 2 * G[r * n + j];
        if (dist >= best[m - 1]) continue;
        let p = m - 1;
        while (p > 0 && best[p - 1] > dist) {
          best[p] = best[p - 1];
          bestIdx[p] = bestIdx[p - 1];
          p--;
        }
        best[p] = dist;
        bestIdx[p] = j;
      }
      neighbours.set(bestIdx, i * m);
    }
  }
  const rowsMap: Array<Map<number, number>> = Array.from({ length: n }, () => new Map());
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < m; t++) {
      const j = neighbours[i * m + t];
      const w = 0.5 / m;
      rowsMap[i].set(j, (rowsMap[i].get(j) ?? 0) + w);
      rowsMap[j].set(i, (rowsMap[j].get(i) ?? 0) + w);
    }
  }
  const indptr = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) indptr[i + 1] = indptr[i] + rowsMap[i].size + 1;
  const indices = new Int32Array(indptr[n]);
  const data = new Float64Array(indptr[n]);
  for (let i = 0; i < n; i++) {
    const entries = [...rowsMap[i]].sort((a, b) => a[0] - b[0]);
    let degree = 0;
    for (const [, w] of entries) degree += w;
    let p = indptr[i];
    let placedDiagonal = false;
    for (const [j, w] of entries) {
      if (!placedDiagonal && j > i) {
        indices[p] = i;
        data[p++] = degree;
        placedDiagonal = true;
      }
      indices[p] = j;
      data[p++] = -w;
    }
    if (!placedDiagonal) {
      indices[p] = i;
      data[p++] = degree;
    }
  }
  const L: Csr = { n, indptr, indices, data };
  const diag = new Float64Array(n);
  for (let i = 0; i < n; i++) diag[i] = 0.5 + rng.uniform();
  const Xt = X.transpose();
  // Trace scaling of SPEC section 1 with a = b = c = 1; Tr(X X^T L X X^T) by Hutchinson's
  // estimator with 16 Rademacher probes (the bench needs the right scale, not 16 digits).
  let trXXt = 0;
  for (let i = 0; i < X.data.length; i++) trXXt += X.data[i] ** 2;
  let trD = 0;
  for (let i = 0; i < n; i++) trD += diag[i];
  const probes = new Matrix(n, 16);
  for (let i = 0; i < probes.data.length; i++) probes.data[i] = rng.uniform() < 0.5 ? -1 : 1;
  const XXtProbe = multiply(X, multiply(Xt, probes));
  const LXXtProbe = csrTimesBlock(L, XXtProbe);
  let quad = 0;
  for (let i = 0; i < XXtProbe.data.length; i++) quad += XXtProbe.data[i] * LXXtProbe.data[i];
  const trSandwich = quad / 16;
  const alpha = trXXt / n;
  const beta = trXXt / trD;
  const delta = trXXt / trSandwich;
  const apply = (V: Matrix): Matrix => {
    const b = V.cols;
    const T = multiply(Xt, V); // X^T V, d x b
    const XT = multiply(X, T);
    const T2 = multiply(Xt, csrTimesBlock(L, XT)); // X^T L X X^T V
    for (let i = 0; i < T.data.length; i++) T.data[i] = -T.data[i] + delta * T2.data[i];
    const out = multiply(X, T);
    const YtV = new Float64Array(classes * b);
    for (let i = 0; i < n; i++) {
      const c = labels[i] * b;
      for (let j = 0; j < b; j++) YtV[c + j] += V.data[i * b + j];
    }
    for (let i = 0; i < n; i++) {
      const c = labels[i] * b;
      for (let j = 0; j < b; j++) {
        const o = i * b + j;
        out.data[o] += -alpha * YtV[c + j] + beta * diag[i] * V.data[o];
      }
    }
    return out;
  };
  return { X, labels, diag, L, alpha, beta, delta, apply };
}

interface RefTask {
  kind: "eigh" | "gemm" | "lobpcg";
  [key: string]: unknown;
}

function runReference(
  tasks: RefTask[],
  dir: string,
  ctx: BenchContext,
): Array<Record<string, unknown>> | null {
  const plan = join(dir, "plan.json");
  writeFileSync(plan, JSON.stringify({ runs: ctx.runs, tasks }));
  const out = runPython("linalg_ref.py", [plan], ctx.log);
  return out ? (out.results as Array<Record<string, unknown>>) : null;
}

export const linalgSuite: BenchSuite = {
  name: "linalg",
  description:
    "k smallest eigenpairs (eigh subset), GEMM X X^T, LOBPCG on the SDSPCAAN operator, against numpy/scipy",
  run(ctx) {
    const dir = join(tmpdir(), `sdspcaan-bench-linalg-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      runEigen(ctx, dir);
      runGemm(ctx, dir);
      runLobpcg(ctx, dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

function runEigen(ctx: BenchContext, dir: string): void {
  const sizes = ctx.quick ? [250, 500] : [250, 500, 1000, 2000];
  const ks = [10, 100];
  const measured: Array<{ n: number; k: number; ts: Map<KernelBackend, number> }> = [];
  const tasks: RefTask[] = [];
  for (const n of sizes) {
    const A = randomSymmetric(n, 1000 + n);
    const file = join(dir, `sym_${n}.npy`);
    writeNpy(file, A.data, [n, n]);
    for (const k of ks) {
      ctx.log(`eigen n=${n} k=${k}`);
      const ts = timesPerBackend(
        () => symmetricEigen(A, { select: { smallest: k } }),
        comparedBackends(n <= 1000),
        ctx.runs,
        n <= 500 ? 8 : n <= 1000 ? 2 : 0,
      );
      measured.push({ n, k, ts });
      tasks.push({ kind: "eigh", file, n, k });
    }
  }
  const ref = runReference(tasks, dir, ctx);
  measured.forEach((m, i) => {
    const r = ref?.[i];
    for (const [backend, ms] of m.ts) {
      ctx.emit(
        record("eigh_smallest", ms, r ? (r.ref_ms as number) : null, { n: m.n, k: m.k, backend }),
      );
    }
  });
}

/**
 * The wasm backend with the native GEMM installed (nativeGemm.node.ts), run after the
 * backends' own runs; null where the addon is not built or cannot run.
 */
function nativeTime(fn: () => unknown, runs: number): number | null {
  if (nativeGemmUnavailable() !== null) return null;
  const saved = requestedKernelBackend();
  try {
    setKernelBackend("wasm");
    setNativeKernels(true);
    return timeMedian(fn, runs);
  } finally {
    setNativeKernels(false);
    setKernelBackend(saved);
  }
}

function runGemm(ctx: BenchContext, dir: string): void {
  const sizes = ctx.quick ? [500] : [500, 2000];
  const d = 1024;
  const measured: Array<{ n: number; ts: Map<KernelBackend | "native", number> }> = [];
  const tasks: RefTask[] = [];
  for (const n of sizes) {
    const rng = new Random(7 + n);
    const X = new Matrix(n, d);
    for (let i = 0; i < X.data.length; i++) X.data[i] = rng.normal();
    const file = join(dir, `gemm_${n}.npy`);
    writeNpy(file, X.data, [n, d]);
    ctx.log(`gemm n=${n}`);
    const ts: Map<KernelBackend | "native", number> = timesPerBackend(
      () => multiplyABt(X, X),
      comparedBackends(true),
      Math.max(ctx.runs, 5),
      1,
    );
    const native = nativeTime(() => multiplyABt(X, X), Math.max(ctx.runs, 5));
    if (native !== null) ts.set("native", native);
    measured.push({ n, ts });
    tasks.push({ kind: "gemm", file, n, d });
  }
  const ref = runReference(tasks, dir, ctx);
  measured.forEach((m, i) => {
    const flops = 2 * m.n * m.n * d;
    const r = ref?.[i];
    const refMs = r ? (r.ref_ms as number) : null;
    for (const [backend, ms] of m.ts) {
      ctx.emit(
        record("gemm_XXt", ms, refMs, {
          n: m.n,
          d,
          backend,
          gflops: Math.round((flops / ms / 1e6) * 100) / 100,
          ref_gflops: refMs ? Math.round((flops / refMs / 1e6) * 100) / 100 : null,
        }),
      );
    }
  });
}

function runLobpcg(ctx: BenchContext, dir: string): void {
  const sizes = ctx.quick ? [2000] : [2000, 10000];
  const d = 1024;
  const k = 10;
  const classes = 20;
  const tol = 1e-8;
  for (const n of sizes) {
    ctx.log(`lobpcg n=${n}: building the problem`);
    const p = sdspcaanProblem(n, d, classes, 4242 + n);
    const runs: number[] = [];
    let last: ReturnType<typeof lobpcg> | null = null;
    let applications = 0;
    const counted = (V: Matrix) => {
      applications += V.cols;
      return p.apply(V);
    };
    for (let r = 0; r < ctx.runs; r++) {
      ctx.log(`lobpcg n=${n}: run ${r + 1}/${ctx.runs}`);
      applications = 0;
      const t0 = performance.now();
      last = lobpcg(counted, n, k, { seed: r, tol });
      runs.push(performance.now() - t0);
    }
    const res = last as ReturnType<typeof lobpcg>;
    let scale = 0;
    for (const v of res.values) scale = Math.max(scale, Math.abs(v));
    const prefix = join(dir, `lob_${n}`);
    writeNpy(`${prefix}_X.npy`, p.X.data, [n, d]);
    writeNpy(`${prefix}_labels.npy`, p.labels, [n]);
    writeNpy(`${prefix}_diag.npy`, p.diag, [n]);
    writeNpy(`${prefix}_indptr.npy`, p.L.indptr, [n + 1]);
    writeNpy(`${prefix}_indices.npy`, p.L.indices, [p.L.indices.length]);
    writeNpy(`${prefix}_data.npy`, p.L.data, [p.L.data.length]);
    const ref = runReference(
      [
        {
          kind: "lobpcg",
          prefix,
          n,
          d,
          k,
          classes,
          alpha: p.alpha,
          beta: p.beta,
          delta: p.delta,
          // scipy's tolerance is absolute: the same threshold as ours, tol * max |mu|.
          tol: tol * scale,
          maxiter: 1000,
          values: Array.from(res.values),
        },
      ],
      dir,
      ctx,
    );
    const r = ref?.[0];
    ctx.emit(
      record("lobpcg_sdspcaan", median(runs), r ? (r.ref_ms as number) : null, {
        n,
        d,
        k,
        iterations: res.iterations,
        converged: res.converged,
        operator_columns: applications,
        ref_iterations: r ? (r.iterations as number) : null,
        ref_max_value_diff: r ? (r.max_value_diff as number) : null,
      }),
    );
  }
}
