/**
 * PCA (k = 10, 50) and LDA fits as a library user gets them (`new PCA({ k }).fit(X)`,
 * `new LDA().fit(X, y)`, default kernels) against exact NumPy/SciPy counterparts
 * (bench/ref/pca_ref.py, one BLAS thread: covariance or Gram matrix, whichever is
 * smaller, then scipy.linalg.eigh for the k largest pairs; LDA through the full eigh
 * of the covariance and a c x c between-class problem), on all of YaleB
 * (2,414 x 1,024) and on the first 10,000 Fashion-MNIST training images (raw pixels).
 * Both sides get the same matrix (written here to a temporary file). Runs alternate
 * between the reference and ours; each side warms up once per run and then times one
 * fit; medians of wall and CPU time, and the largest principal angle between our W
 * and the reference's (LDA: between their column spans). --quick: YaleB only.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { frobeniusNorm } from "../../packages/sdspcaan/src/linalg/basic.js";
import { multiply, multiplyAtB } from "../../packages/sdspcaan/src/linalg/kernels/gemm.js";
import { choleskyQR } from "../../packages/sdspcaan/src/linalg/orthogonalize.js";
import { LDA } from "../../packages/sdspcaan/src/methods/lda.js";
import { PCA } from "../../packages/sdspcaan/src/methods/pca.js";
import { openDataset } from "../../packages/sdspcaan-cli/src/io/load.js";
import {
  type BenchContext,
  type BenchSuite,
  dataDir,
  median,
  record,
  runPython,
} from "../harness.js";

interface Data {
  name: string;
  X: Matrix;
  y: Int32Array;
}

const CASES = ["pca10", "pca50", "lda"] as const;
type CaseName = (typeof CASES)[number];

function fitOurs(name: CaseName, data: Data): Matrix {
  if (name === "lda") return new LDA().fit(data.X, Array.from(data.y)).components;
  return new PCA({ k: name === "pca10" ? 10 : 50 }).fit(data.X).components;
}

/** An orthonormal basis of the column span of W (CholQR2 on a copy). */
function orthonormalBasis(W: Matrix): Matrix {
  const Q = W.clone();
  choleskyQR(Q);
  choleskyQR(Q);
  return Q;
}

/** Largest principal angle (rad) between the column spans of A and B, from its sine bound. */
function largestAngle(A: Matrix, B: Matrix): number {
  const U = orthonormalBasis(A);
  const V = orthonormalBasis(B);
  const P = multiply(U, multiplyAtB(U, V));
  for (let i = 0; i < P.data.length; i++) P.data[i] = V.data[i] - P.data[i];
  return Math.asin(Math.min(1, frobeniusNorm(P)));
}

async function loadData(name: string, quick: boolean): Promise<Data | null> {
  const dir = dataDir();
  if (name === "yaleb") {
    const ds = await openDataset(join(dir, "YaleB_32x32.mat"));
    return { name, X: ds.dataset.X, y: codesOf(ds.dataset.y) };
  }
  if (quick) return null;
  const ds = await openDataset("FashionMNIST", process.env.SDSPCAAN_DATA ? { dataDir: dir } : {});
  const n = 10_000;
  const d = ds.dataset.X.cols;
  const X = new Matrix(n, d, ds.dataset.X.data.slice(0, n * d));
  return {
    name: "fashion10k",
    X,
    y: codesOf(ds.dataset.y as ArrayLike<unknown> & Iterable<unknown> as unknown[]).slice(0, n),
  };
}

function codesOf(labels: ArrayLike<unknown>): Int32Array {
  const index = new Map<unknown, number>();
  return Int32Array.from(Array.from(labels), (v) => {
    if (!index.has(v)) index.set(v, index.size);
    return index.get(v) as number;
  });
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function runData(ctx: BenchContext, data: Data): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sdspcaan-pca-bench-"));
  try {
    const { rows: n, cols: d } = data.X;
    const xPath = join(dir, "X.f64");
    const yPath = join(dir, "y.i32");
    writeFileSync(xPath, new Uint8Array(data.X.data.buffer, data.X.data.byteOffset, n * d * 8));
    writeFileSync(yPath, new Uint8Array(data.y.buffer, data.y.byteOffset, n * 4));
    const times = new Map<
      CaseName,
      { wall: number[]; cpu: number[]; refWall: number[]; refCpu: number[] }
    >(CASES.map((c) => [c, { wall: [], cpu: [], refWall: [], refCpu: [] }]));
    const last = new Map<CaseName, Matrix>();
    for (let r = 0; r < ctx.runs; r++) {
      ctx.log(`${data.name}: reference, run ${r + 1}/${ctx.runs}`);
      const ref = runPython("pca_ref.py", [xPath, yPath, String(n), String(d), dir], ctx.log);
      if (ref === null) return;
      ctx.log(`${data.name}: ours, run ${r + 1}/${ctx.runs}`);
      for (const c of CASES) {
        const t = times.get(c) as NonNullable<ReturnType<typeof times.get>>;
        const refCase = ref[c] as { wall_ms: number; cpu_ms: number };
        t.refWall.push(refCase.wall_ms);
        t.refCpu.push(refCase.cpu_ms);
        fitOurs(c, data);
        const w0 = performance.now();
        const c0 = cpuMs();
        last.set(c, fitOurs(c, data));
        t.cpu.push(cpuMs() - c0);
        t.wall.push(performance.now() - w0);
      }
    }
    for (const c of CASES) {
      const t = times.get(c) as NonNullable<ReturnType<typeof times.get>>;
      const W = last.get(c) as Matrix;
      const refW = new Matrix(
        d,
        W.cols,
        new Float64Array(readFileSync(join(dir, `${c}.f64`)).buffer.slice(0)),
      );
      const cpu = median(t.cpu);
      const refCpu = median(t.refCpu);
      ctx.emit(
        record(`${c}_${data.name}`, median(t.wall), median(t.refWall), {
          n,
          d,
          k: W.cols,
          cpu_ms: Math.round(cpu),
          ref_cpu_ms: Math.round(refCpu),
          cpu_ratio: Math.round((1000 * cpu) / refCpu) / 1000,
          angle_rad: Number(largestAngle(refW, W).toPrecision(2)),
        }),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const pcaSuite: BenchSuite = {
  name: "pca",
  description:
    "PCA (k = 10, 50) and LDA on all of YaleB and 10,000 Fashion-MNIST images vs exact NumPy/SciPy",
  async run(ctx: BenchContext) {
    for (const name of ["yaleb", "fashion"]) {
      const data = await loadData(name, ctx.quick);
      if (data !== null) await runData(ctx, data);
    }
  },
};
