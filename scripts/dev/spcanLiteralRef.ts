/**
 * Our `new SPCAN({ formulation: "literal" })` against the NumPy reference's `spcan`
 * (../shared/reference/sdspcaan_ref.py, which implements the paper's literal
 * definition, Z = X X^T L X X^T), fit by fit on the same preprocessed data and split.
 *
 *     npx tsx scripts/dev/spcanLiteralRef.ts data.csv splits.json ref-fit.json [more ref fits...]
 *
 * data.csv: the data set already z-scored over all samples (ddof 1, as the reference's
 * `--preprocess zscore-all`; label last), so both sides fit the same numbers with no
 * preprocessing of their own. Each ref-fit.json is the reference's
 * `fit --data data.csv --splits splits.json --repeat r --method spcan --k K --eval
 * --json-out ref-fit.json`; its k and repeat are read from it. How the inputs were made
 * (Python, numpy/scipy; R=../shared/reference/sdspcaan_ref.py):
 *
 *     python3 -c "import sys,numpy as np; sys.path.insert(0,'../shared/reference');
 *       import sdspcaan_ref as R; X,y,_=R.load_dataset('data/Yale_32x32.mat',None,None,None);
 *       np.savetxt('Yale.csv',np.column_stack([R.preprocess(X.astype(float),'zscore-all'),y]),
 *       delimiter=',',fmt='%.17g')"
 *     python3 $R splits --data Yale.csv --seed 0 --repeats 3 --out Yale-splits.json
 *     OPENBLAS_NUM_THREADS=1 python3 $R fit --data Yale.csv --splits Yale-splits.json \
 *       --repeat 0 --method spcan --k 10 --eval --json-out ref-Yale-10.json
 *
 * Prints per fit: iterations, stop reason and final lambda of each side; the test BCA
 * of each side (the reference's own 1-NN, ours with NearestNeighbour1: both z-score the
 * projected features with training statistics); the k smallest eigenvalues of Z at the
 * last iteration (max relative difference over the eigenvalues above 1e-8 of the
 * largest, and how many are below that, i.e. tied at zero); and the largest principal
 * angle between the two W's, meaningful only when the k-th eigenvalue is separated from
 * the (k+1)-th (otherwise the basis of the tied block is arbitrary).
 */
import { readFileSync } from "node:fs";
import { balancedAccuracy } from "../../packages/sdspcaan/src/classify/metrics.js";
import { NearestNeighbour1 } from "../../packages/sdspcaan/src/classify/nearestNeighbour.js";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { multiplyAtB } from "../../packages/sdspcaan/src/linalg/kernels/gemm.js";
import { thinSvd } from "../../packages/sdspcaan/src/linalg/svd.js";
import { SPCAN } from "../../packages/sdspcaan/src/methods/spcan.js";
import { loadDataset } from "../../packages/sdspcaan-cli/src/io/load.js";

const [csv, splitsPath, ...refs] = process.argv.slice(2);
const ds = await loadDataset(csv);
const y = [...ds.y];
const splits = JSON.parse(readFileSync(splitsPath, "utf8")).splits as Array<
  Record<"train" | "val" | "test", number[]>
>;

function maxAngle(A: Matrix, B: Matrix): number {
  const C = multiplyAtB(thinSvd(A).U, thinSvd(B).U);
  const s = thinSvd(C).s;
  // Fewer singular values than columns: a rank-deficient W (a zero column) on one side.
  return s.length < Math.min(A.cols, B.cols)
    ? Math.PI / 2
    : Math.acos(Math.min(1, s[s.length - 1]));
}

console.log(
  "| data | k | ours: iter, stop, lambda | ref: iter, stop, lambda | test BCA ours | test BCA ref | eig. tied at 0 (ours/ref) | max rel. diff of the others | lambda_k+1 - lambda_k (ref) | max principal angle |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
for (const refPath of refs) {
  const ref = JSON.parse(readFileSync(refPath, "utf8"));
  const k = ref.k as number;
  const repeat = ref.split?.repeat ?? 0;
  const sp = splits[repeat];
  const rows = (idx: number[]) => ds.X.selectRows(Int32Array.from(idx));
  const labels = (idx: number[]) => idx.map((i) => y[i]);
  // The reference's m (min(m, n - 2) there and here).
  const m = ref.params.m_requested as number;
  const model = new SPCAN({ k, m, formulation: "literal" }).fit(rows(sp.train), labels(sp.train));
  const nn = new NearestNeighbour1().fit(model.transform(rows(sp.train)), labels(sp.train));
  const test = balancedAccuracy(labels(sp.test), nn.predict(model.transform(rows(sp.test))));
  const ours = (model.fitInfo.details as { eigenvalues: number[] }).eigenvalues;
  const theirs = (ref.eigvals_final as number[]).slice(0, k);
  const scale = Math.max(...theirs.map(Math.abs), ...ours.map(Math.abs));
  const zero = (v: number) => Math.abs(v) <= 1e-8 * scale;
  let rel = 0;
  for (let i = 0; i < k; i++) {
    if (zero(theirs[i]) || zero(ours[i])) continue;
    rel = Math.max(rel, Math.abs(ours[i] - theirs[i]) / Math.abs(theirs[i]));
  }
  const all = ref.eigvals_final as number[];
  const gap = all.length > k ? (all[k] - all[k - 1]) / scale : Number.NaN;
  const angle = maxAngle(model.components, Matrix.fromRows(ref.W as number[][]));
  const info = model.fitInfo;
  const lam = (x: number) => `2^${Math.log2(x).toFixed(1)}`;
  console.log(
    `| ${csv.replace(/.*\//, "").replace(/\.csv$/, "")} r${repeat} | ${k} | ${info.iterations}, ${info.stopReason}, ${lam((info.details as { lambdaFinal: number }).lambdaFinal)} | ${ref.iterations}, ${ref.stop_reason}, ${lam(ref.params.lambda_final)} | ${(100 * test).toFixed(2)} | ${(100 * ref.summary.test_bca).toFixed(2)} | ${ours.filter(zero).length}/${theirs.filter(zero).length} | ${rel.toExponential(1)} | ${gap.toExponential(1)} | ${angle.toExponential(1)} |`,
  );
}
