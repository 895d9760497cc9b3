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
 *
 * Then the JavaScript peers (bench/peers.ts: ml-pca, DruidJS) on the same rows, their
 * input converted before the clock starts, one row each per case with the same
 * columns (`ratio` to the reference, `vs_ours` to our time) and their angle to the
 * reference. A peer whose first (cold) fit takes over PEER_SLOW_MS is timed that once
 * (`runs: 1`; JIT warm-up is noise at that length), the others like ours.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
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
import { peers } from "../peers.js";
import { largestAngle } from "../subspace.js";

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

const PEER_SLOW_MS = 5000;

// A full garbage collection before each timed fit, so that no fit pays for the garbage
// of the one before (a peer's fit leaves gigabytes of it), and a pause after it for the
// collector's background threads to finish: process.cpuUsage counts them too.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
async function collectGarbage(): Promise<void> {
  gc();
  await new Promise((resolve) => setTimeout(resolve, 300));
}

interface PeerTimes {
  wall: number[];
  cpu: number[];
  W: Matrix | null;
  slow: boolean;
}

async function timed<T>(fn: () => T): Promise<{ value: T; wall: number; cpu: number }> {
  await collectGarbage();
  const w0 = performance.now();
  const c0 = cpuMs();
  const value = fn();
  return { value, cpu: cpuMs() - c0, wall: performance.now() - w0 };
}

/** One run of every peer: its fits (one per unit of its cases), timed as the file comment says. */
async function runPeers(
  ctx: BenchContext,
  data: Data,
  times: Map<string, PeerTimes>,
  classes: number,
): Promise<void> {
  for (const peer of peers) {
    // Converted afresh each run and dropped after it, so that our fits never run with
    // the peers' boxed copies of X in the heap (a bigger heap to mark costs them CPU).
    const input = peer.prepare(data.X, data.y);
    for (const unit of peer.cases) {
      const key = `${peer.name}|${unit}`;
      const k = unit === "lda" ? classes - 1 : unit === "pca10" ? 10 : 50;
      let t = times.get(key);
      const fitPeer = () => peer.fit(input, data.y, k);
      if (t === undefined) {
        ctx.log(`${data.name}: ${peer.name} ${unit}, first fit`);
        const cold = await timed(fitPeer);
        t = { wall: [], cpu: [], W: cold.value, slow: cold.wall >= PEER_SLOW_MS };
        times.set(key, t);
        if (t.slow) {
          t.wall.push(cold.wall);
          t.cpu.push(cold.cpu);
          continue;
        }
      } else if (t.slow) {
        continue;
      } else {
        fitPeer();
      }
      const warm = await timed(fitPeer);
      t.wall.push(warm.wall);
      t.cpu.push(warm.cpu);
      t.W = warm.value;
    }
  }
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
    const peerTimes = new Map<string, PeerTimes>();
    const classes = new Set(data.y).size;
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
        await collectGarbage();
        const w0 = performance.now();
        const c0 = cpuMs();
        last.set(c, fitOurs(c, data));
        t.cpu.push(cpuMs() - c0);
        t.wall.push(performance.now() - w0);
      }
      await runPeers(ctx, data, peerTimes, classes);
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
      for (const peer of peers) {
        const unit = peer.cases.includes(c) ? c : c.startsWith("pca") ? "pca" : null;
        const p = unit === null ? undefined : peerTimes.get(`${peer.name}|${unit}`);
        if (p === undefined || p.W === null || !peer.cases.includes(unit as string)) continue;
        const Wp = p.W.cols === W.cols ? p.W : p.W.leadingColumns(W.cols);
        const peerCpu = median(p.cpu);
        const slug = peer.name
          .replace(/[^A-Za-z]+/g, "_")
          .replace(/_+$/, "")
          .toLowerCase();
        ctx.emit(
          record(`${c}_${data.name}_${slug}`, median(p.wall), median(t.refWall), {
            n,
            d,
            k: W.cols,
            cpu_ms: Math.round(peerCpu),
            ref_cpu_ms: Math.round(refCpu),
            cpu_ratio: Math.round((1000 * peerCpu) / refCpu) / 1000,
            angle_rad: Number(largestAngle(refW, Wp).toPrecision(2)),
            runs: p.wall.length,
            vs_ours: Math.round((1000 * median(p.wall)) / median(t.wall)) / 1000,
          }),
        );
      }
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
