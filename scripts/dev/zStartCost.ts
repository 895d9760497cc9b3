/**
 * Developer tool: what each part of LOBPCG's start on SDSPCAAN's Z costs at large n,
 * on synthetic operands of Fashion-MNIST's shape (n rows, r = 784, c = 10, a labelled
 * graph with m = 15 neighbours a row, k = 50 and its 63-column block), so that the parts
 * can be timed one by one without a 15-minute fit to reach a late outer iteration. The
 * values are random: only the shapes, and so the costs, are those of a fit.
 *
 * Prints the median wall time over --repeats of: U^T L U (laplacianProjection, with L U
 * by csrmm on this thread and with L U split by columns of U over the threads), one
 * moment W^T D^ W, the three moments of K_1, the whole K_1 start (J = 1) and the whole
 * lifted start (zLiftedStart.ts), with the kernel helpers on --threads threads (the
 * starts with the resident sparse product unless --plain-sparse).
 *
 * Usage: npx tsx scripts/dev/zStartCost.ts [--n 60000] [--threads 2] [--repeats 3] [--plain-sparse] [--native auto|on|off]
 */
import { parseArgs } from "node:util";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { Random } from "../../packages/sdspcaan/src/core/rng.js";
import { setNativeKernels } from "../../packages/sdspcaan/src/linalg/kernels/nativeGemm.node.js";
import { choleskyQR } from "../../packages/sdspcaan/src/linalg/orthogonalize.js";
import { CsrMatrix } from "../../packages/sdspcaan/src/linalg/sparse.js";
import { GramOperator } from "../../packages/sdspcaan/src/methods/zstep/gramOperator.js";
import {
  chebyshevMoments,
  krylovStart,
} from "../../packages/sdspcaan/src/methods/zstep/zKrylovStart.js";
import { liftedStart } from "../../packages/sdspcaan/src/methods/zstep/zLiftedStart.js";
import {
  laplacianProjection,
  ZWoodbury,
} from "../../packages/sdspcaan/src/methods/zstep/zPreconditioner.js";
import { setKernelThreads } from "../../packages/sdspcaan/src/threads/helperThread.node.js";

const { values: args } = parseArgs({
  options: {
    n: { type: "string", default: "60000" },
    threads: { type: "string", default: "2" },
    native: { type: "string", default: "auto" },
    repeats: { type: "string", default: "3" },
    "plain-sparse": { type: "boolean", default: false },
  },
});
const n = Number(args.n);
const r = 784;
const c = 10;
const neighbours = 15;
const b = 63;
const repeats = Number(args.repeats);
setKernelThreads(Number(args.threads));
const native = setNativeKernels(
  args.native === "auto" ? "auto" : args.native === "on" || args.native === "true",
);

const rng = new Random(1);
const U = new Matrix(n, r);
for (let t = 0; t < U.data.length; t++) U.data[t] = rng.normal();
choleskyQR(U);
const Ut = U.transpose();
const s2 = Float64Array.from({ length: r }, (_, i) => 1e6 / (1 + i));
const codes = Int32Array.from({ length: n }, (_, i) => i % c);
// A symmetric labelled graph: each row joined to `neighbours` random rows of its class.
const rows: number[][] = Array.from({ length: n }, () => []);
const weights: number[][] = Array.from({ length: n }, () => []);
for (let i = 0; i < n; i++) {
  for (let t = 0; t < neighbours; t++) {
    const j = ((Math.floor(rng.uniform() * (n / c)) * c + (i % c)) % n) | 0;
    if (j === i) continue;
    const w = rng.uniform() / neighbours;
    rows[i].push(j);
    weights[i].push(w);
    rows[j].push(i);
    weights[j].push(w);
  }
}
// Merge duplicate pairs (a pair drawn twice), then sort each row by column.
const merged = rows.map((js, i) => {
  const byColumn = new Map<number, number>();
  js.forEach((j, t) => {
    byColumn.set(j, (byColumn.get(j) ?? 0) - weights[i][t]);
  });
  byColumn.set(i, -[...byColumn.values()].reduce((a, w) => a + w, 0));
  return [...byColumn.entries()].sort((x, y) => x[0] - y[0]);
});
const rowPtr = new Int32Array(n + 1);
for (let i = 0; i < n; i++) rowPtr[i + 1] = rowPtr[i] + merged[i].length;
const colIdx = new Int32Array(rowPtr[n]);
const values = new Float64Array(rowPtr[n]);
for (let i = 0; i < n; i++) {
  merged[i].forEach(([j, v], t) => {
    colIdx[rowPtr[i] + t] = j;
    values[rowPtr[i] + t] = v;
  });
}
const L = new CsrMatrix(n, n, rowPtr, colIdx, values);
const betaD = Float64Array.from({ length: n }, () => 35 + 1370 * rng.uniform() ** 4);
const delta = 1e-9;
const gram = new GramOperator(U, Ut, s2);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function time(label: string, run: () => unknown): void {
  const ts: number[] = [];
  for (let t = 0; t < repeats; t++) {
    const t0 = performance.now();
    run();
    ts.push((performance.now() - t0) / 1000);
  }
  console.log(
    `${label.padEnd(34)} ${median(ts).toFixed(2)} s  (${ts.map((v) => v.toFixed(2)).join(", ")})`,
  );
}

const lo = Math.min(...betaD);
const hi = Math.max(...betaD);
const dh = Float64Array.from(betaD, (v) => (v - 0.5 * (lo + hi)) / (0.5 * (hi - lo)));
console.log(
  `n = ${n}, r = ${r}, c = ${c}, b = ${b}, nnz(L) = ${L.nnz}, threads ${args.threads}, ${native ? "native" : "wasm"} GEMM`,
);
time("U^T L U, L U by rows of L (csrmm)", () => laplacianProjection(L, U, Ut));
time("U^T L U, L U split by columns", () =>
  laplacianProjection(L, U, Ut, (A) => gram.sparseTimesUTransposed(A)),
);
// A fresh structure per run, so that U^T L U (cached per Laplacian) is paid each time;
// --plain-sparse gives it the products without the resident sparse one (csrmm).
const products = args["plain-sparse"]
  ? { timesUt: (V: Matrix) => gram.timesUt(V), timesU: (T: Matrix) => gram.timesU(T) }
  : gram;
const fresh = () => new ZWoodbury(U, Ut, s2, codes, c, 1, 1, products);
const woodbury = fresh();
time("one moment W^T D^ W", () => chebyshevMoments(woodbury, dh, 1, undefined));
time("three moments (K_1)", () => chebyshevMoments(woodbury, dh, 3, undefined));
time("K_1 start, with U^T L U", () => krylovStart(fresh(), betaD, delta, L, 1, b));
time("lifted start [1, 3], with U^T L U", () => liftedStart(fresh(), betaD, delta, L, b));
time("lifted start [1, 2], with U^T L U", () =>
  liftedStart(fresh(), betaD, delta, L, b, { passes: [1, 2] }),
);
gram.release();
