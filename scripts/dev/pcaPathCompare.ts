/**
 * PCA's block Lanczos route (with the Cholesky rank certificate) against the dense
 * eigen-solve on the same data, the two alternating, CPU ms, medians of 7: the
 * measurement behind KRYLOV_MIN_ORDER in packages/sdspcaan/src/linalg/svd.ts. Both run
 * PCA's steps (the centred training data's X^T X, then leadingTripletsOfColumnGram),
 * with the order the Lanczos route starts from lowered to 64 or raised to Infinity.
 *
 * Usage: npx tsx scripts/dev/pcaPathCompare.ts [yaleb|fashion|synthetic:D] [k]
 * (synthetic:D: 1.25 D x D Gaussian data with column scales 1.01^-j)
 */
import "../../packages/sdspcaan/src/index.node.js";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { Random } from "../../packages/sdspcaan/src/core/rng.js";
import { lanczosDiagnostics } from "../../packages/sdspcaan/src/linalg/eigen/blockLanczos.js";
import { leadingTripletsOfColumnGram } from "../../packages/sdspcaan/src/linalg/svd.js";
import { TrainingData } from "../../packages/sdspcaan/src/methods/training.js";
import { openDataset } from "../../packages/sdspcaan-cli/src/io/load.js";

const which = process.argv[2] ?? "yaleb";
const k = Number(process.argv[3] ?? 10);
let X: Matrix;
if (which === "yaleb") {
  X = (await openDataset("data/YaleB_32x32.mat")).dataset.X;
} else if (which.startsWith("synthetic:")) {
  const d = Number(which.slice(10));
  const n = Math.round(1.25 * d);
  const rng = new Random(1);
  X = new Matrix(n, d);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) X.data[i * d + j] = rng.normal() * 1.01 ** -j;
  }
} else {
  const ds = await openDataset("FashionMNIST");
  X = new Matrix(10000, 784, ds.dataset.X.data.slice(0, 10000 * 784));
}
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1];
const lanczos: number[] = [];
const dense: number[] = [];
for (let r = 0; r < 7; r++) {
  for (const krylov of [true, false]) {
    const c0 = cpu();
    const data = TrainingData.prepareForOneFit(X);
    leadingTripletsOfColumnGram(data.columnGram(), data.n, k, undefined, krylov ? 64 : Infinity);
    (krylov ? lanczos : dense).push(cpu() - c0);
  }
}
console.log(
  `${which} k = ${k}: lanczos ${med(lanczos).toFixed(0)} ms (${JSON.stringify(lanczosDiagnostics)}), dense ${med(dense).toFixed(0)} ms`,
);
