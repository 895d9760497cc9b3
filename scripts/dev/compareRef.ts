/**
 * Developer tool: fit one method on a CSV of training rows (label last, as written by
 * the reference's `fit --train-out`) and compare W with a reference JSON by principal
 * angles. Usage: npx tsx scripts/dev/compareRef.ts train.csv ref.json method k [json options]
 */
import { readFileSync } from "node:fs";
import { Matrix } from "../../packages/sdspcaan/src/core/matrix.js";
import { multiplyAtB } from "../../packages/sdspcaan/src/linalg/kernels/gemm.js";
import { thinSvd } from "../../packages/sdspcaan/src/linalg/svd.js";
import { createMethod } from "../../packages/sdspcaan/src/methods/registry.js";

const [csv, refPath, method, kText, extra] = process.argv.slice(2);
const rows = readFileSync(csv, "utf8")
  .trim()
  .split("\n")
  .map((l) => l.split(",").map(Number));
const X = rows.map((r) => r.slice(0, -1));
const y = rows.map((r) => r[r.length - 1]);
const ref = JSON.parse(readFileSync(refPath, "utf8"));
const opts = { k: Number(kText), ...(extra ? JSON.parse(extra) : {}) };
const model = createMethod(method, opts);
const t0 = performance.now();
model.fit(X, y);
const ms = performance.now() - t0;
const W = model.components;
const Wr = Matrix.fromRows(ref.W as number[][]);
function orth(A: Matrix): Matrix {
  return thinSvd(A).U;
}
const C = multiplyAtB(orth(W), orth(Wr));
const s = thinSvd(C).s;
const maxAngle = Math.acos(Math.min(1, s[s.length - 1]));
console.log(
  JSON.stringify({
    method,
    ours: {
      iterations: model.fitInfo.iterations,
      stop: model.fitInfo.stopReason,
      ms: Math.round(ms),
      lambda: model.fitInfo.details.lambdaFinal,
    },
    ref: { iterations: ref.iterations, stop: ref.stop_reason, lambda: ref.params?.lambda_final },
    maxPrincipalAngle: maxAngle,
    minCos: s[s.length - 1],
  }),
);
