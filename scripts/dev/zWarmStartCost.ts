/**
 * Developer tool: what a warm-started Z solve (Rayleigh-Ritz on the previous outer
 * iteration's eigenvectors plus Chebyshev-filtered subspace steps) would cost on the
 * dense path, against the dense solve it would replace. Runs SDSPCA's Q-loop on a
 * YaleB training split (seed 0, repeat 0: profileFit's setting; a = b = 1, k = 100),
 * and at the chosen outer iterations prints Z's spectrum, the move of the wanted
 * subspace since the previous iteration (chordal distance), the contraction per
 * filter degree of the slowest wanted vector (1 / growth of the Chebyshev polynomial
 * on [lambda_{b+1}, lambda_max] at lambda_k, b = k + guards), the degrees that would
 * take that move down to full precision, and the time of a product Z V (n x b) and of
 * the dense solve.
 *
 * Usage: node --import tsx scripts/dev/zWarmStartCost.ts [k] [guards] [iterations...]
 */
import { join } from "node:path";
// The library's Node entry: the native GEMM where installed, as the benches run.
import "../../packages/sdspcaan/src/index.node.js";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { makeSplit } from "../../packages/sdspcaan/src/data/splits.js";
import {
  symmetricEigen,
  trailingEigenpairs,
} from "../../packages/sdspcaan/src/linalg/eigen/symmetricEigen.js";
import { multiply, multiplyAtB } from "../../packages/sdspcaan/src/linalg/kernels/gemm.js";
import { TrainingData } from "../../packages/sdspcaan/src/methods/training.js";
import { loadDataset } from "../../packages/sdspcaan-cli/src/io/load.js";

const k = Number(process.argv[2] ?? "100");
const guards = Number(process.argv[3] ?? "20");
const report = new Set(
  (process.argv.length > 4 ? process.argv.slice(4) : ["2", "10", "40", "100"]).map(Number),
);
const last = Math.max(...report);
/** Where a warm solve must take the subspace: the dense solve's own accuracy. */
const TARGET = 1e-13;

const ds = await loadDataset(join("data", "YaleB_32x32.mat"));
const split = makeSplit(ds.X.rows, { seed: 0, dataset: "YaleB", repeat: 0 });
const data = TrainingData.prepare(
  ds.X.selectRows(split.train),
  Array.from(split.train, (i) => ds.y[i]),
);
const G = data.gram();
const n = G.rows;
const codes = data.requireLabels("zWarmStartCost").codes;
const trG = data.gramTrace();
const alpha = trG / n;
const Z0 = new Matrix(n, n);
for (let i = 0; i < n; i++) {
  for (let j = 0; j < n; j++) {
    Z0.data[i * n + j] = -G.data[i * n + j] - (codes[i] === codes[j] ? alpha : 0);
  }
}
const median = (f: () => unknown, runs = 7): number => {
  const t: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    f();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[runs >> 1];
};

const Dd = new Float64Array(n).fill(1);
let previous: Matrix | null = null;
for (let t = 1; t <= last; t++) {
  let sumD = 0;
  for (const v of Dd) sumD += v;
  const beta = trG / sumD;
  const Z = Z0.clone();
  for (let i = 0; i < n; i++) Z.data[i * n + i] += beta * Dd[i];
  const { vectors: Q } = trailingEigenpairs(Z, k);
  if (report.has(t)) {
    const all = symmetricEigen(Z, { vectors: false }).values;
    const b = k + guards;
    // Chebyshev filter on [lambda_{b+1}, lambda_max]: lambda_k maps to x < -1, where
    // T_m grows like (|x| + sqrt(x^2 - 1))^m; the unwanted part stays within [-1, 1].
    const centre = 0.5 * (all[n - 1] + all[b]);
    const half = 0.5 * (all[n - 1] - all[b]);
    const x = Math.abs((all[k - 1] - centre) / half);
    const growth = x + Math.sqrt(x * x - 1);
    let move = Number.NaN;
    if (previous !== null) {
      const C = multiplyAtB(previous, Q);
      let f = 0;
      for (const v of C.data) f += v * v;
      move = Math.sqrt(Math.max(0, 2 * k - 2 * f));
    }
    const degrees = Math.ceil(Math.log(move / TARGET) / Math.log(growth));
    const V = Q.clone();
    const Vb = new Matrix(n, b);
    for (let i = 0; i < n; i++) Vb.data.set(V.data.subarray(i * k, i * k + k), i * b);
    const productMs = median(() => multiply(Z, Vb));
    const denseMs = median(() => trailingEigenpairs(Z, k), 5);
    console.log(
      `t=${t}: lambda_1 ${all[0].toExponential(2)}, lambda_k ${all[k - 1].toExponential(3)}, lambda_{k+1} ${all[k].toExponential(3)}, lambda_{b+1} ${all[b].toExponential(3)}, lambda_max ${all[n - 1].toExponential(3)}; subspace move ${move.toExponential(2)}; growth per degree ${growth.toFixed(2)}; degrees to ${TARGET}: ${degrees}; Z V ${productMs.toFixed(2)} ms, dense solve ${denseMs.toFixed(1)} ms`,
    );
  }
  previous = Q;
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let j = 0; j < k; j++) s += Q.data[i * k + j] ** 2;
    Dd[i] = 1 / (2 * Math.sqrt(s + 2 ** -52));
  }
}
