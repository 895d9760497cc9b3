/**
 * Where a PCA or LDA fit's time goes on all of YaleB and on 10,000 Fashion-MNIST images
 * (the shapes of `npm run bench -- --only pca`), with the library's Node defaults (the
 * native GEMM where installed): centring, the Gram matrix, the leading eigenpairs, the
 * full eigen-decomposition, the Cholesky certificate, and whole fits. Medians of
 * --repeats, wall and CPU ms.
 *
 * Usage: npx tsx scripts/dev/pcaCost.ts [--repeats 5] [--data yaleb|fashion]
 */
import "../../packages/sdspcaan/src/index.node.js";
import { parseArgs } from "node:util";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { centerColumns, columnMeans } from "../../packages/sdspcaan/src/linalg/basic.js";
import { fullRankFactor } from "../../packages/sdspcaan/src/linalg/cholesky.js";
import {
  leadingEigenpairsWithCount,
  symmetricEigen,
} from "../../packages/sdspcaan/src/linalg/eigen/symmetricEigen.js";
import { transposed } from "../../packages/sdspcaan/src/linalg/kernels/gemm.js";
import {
  gramColumns,
  gramColumnsCentred,
  gramRows,
} from "../../packages/sdspcaan/src/linalg/kernels/symmetricProducts.js";
import { LDA } from "../../packages/sdspcaan/src/methods/lda.js";
import { PCA } from "../../packages/sdspcaan/src/methods/pca.js";
import { openDataset } from "../../packages/sdspcaan-cli/src/io/load.js";

const { values: args } = parseArgs({
  options: {
    repeats: { type: "string", default: "5" },
    data: { type: "string", default: "yaleb" },
  },
});
const repeats = Number(args.repeats);
const median = (t: number[]) => [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
function time(label: string, fn: () => unknown): void {
  fn();
  const t: number[] = [];
  const c: number[] = [];
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    const c0 = cpuMs();
    fn();
    c.push(cpuMs() - c0);
    t.push(performance.now() - t0);
  }
  console.log(
    `${label.padEnd(40)} ${median(t).toFixed(1)} ms wall, ${median(c).toFixed(1)} ms CPU`,
  );
}

let X: Matrix;
let y: number[];
if (args.data === "yaleb") {
  const ds = await openDataset("data/YaleB_32x32.mat");
  X = ds.dataset.X;
  y = Array.from(ds.dataset.y as ArrayLike<number>, Number);
} else {
  const ds = await openDataset("FashionMNIST");
  const n = 10_000;
  X = new Matrix(n, ds.dataset.X.cols, ds.dataset.X.data.slice(0, n * ds.dataset.X.cols));
  y = Array.from(ds.dataset.y as ArrayLike<number>, Number).slice(0, n);
}
console.log(`${args.data}: ${X.rows} x ${X.cols}`);
const Xc = centerColumns(X).centered;
const G = gramColumns(Xc);
const tol2 = 10 * Math.max(X.rows, X.cols) * 2 ** -52;
time("centerColumns", () => centerColumns(X));
time("transposed(Xc)", () => transposed(Xc));
const Xt = transposed(Xc);
time("gramRows(Xc^T) (lower blocks)", () => gramRows(Xt));
time("gramColumns(Xc)", () => gramColumns(Xc));
time("leading 10 + count", () =>
  leadingEigenpairsWithCount(G, 10, tol2, { symmetryTolerance: Infinity }),
);
time("leading 50 + count", () =>
  leadingEigenpairsWithCount(G, 50, tol2, { symmetryTolerance: Infinity }),
);
time("tridiagonal only (values of 1)", () =>
  symmetricEigen(G, { select: { largest: 1 }, vectors: false, symmetryTolerance: Infinity }),
);
time("full eigen (D&C)", () => symmetricEigen(G, { symmetryTolerance: Infinity }));
time("Cholesky certificate", () => fullRankFactor(G, tol2));
time("columnMeans", () => columnMeans(X));
time("gramColumnsCentred", () => gramColumnsCentred(X, columnMeans(X)));
time("PCA k=10 fit", () => new PCA({ k: 10 }).fit(X));
time("PCA k=50 fit", () => new PCA({ k: 50 }).fit(X));
time("LDA fit", () => new LDA().fit(X, y));
