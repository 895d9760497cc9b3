/**
 * Developer tool: where the matrix-free LOBPCG path of the SDSPCA family overtakes the
 * dense one. Fits SDSPCAAN (a = b = c = 1) for a few outer iterations on generated data
 * with class structure (d = 1024) with both solvers and prints ms per fit and per
 * outer iteration (the first solve of LOBPCG is cold; later ones are warm-started).
 * Usage: npx tsx scripts/dev/solverThreshold.ts [n ...]
 */

import { makeSyntheticDataset } from "../../packages/sdspcaan/src/data/synthetic.js";
import { SDSPCAAN } from "../../packages/sdspcaan/src/methods/sdspcaan.js";
import { TrainingData } from "../../packages/sdspcaan/src/methods/training.js";

const sizes = process.argv.slice(2).map(Number);
for (const n of sizes.length ? sizes : [1000, 2000, 3000]) {
  const ds = makeSyntheticDataset({ samples: n, features: 1024, classes: 20, seed: 1 });
  for (const k of [10, 100]) {
    const row: Record<string, number | string> = { n, k };
    for (const solver of ["dense", "lobpcg"] as const) {
      const data = TrainingData.prepare(ds.X, ds.y);
      const t0 = performance.now();
      const model = new SDSPCAAN({ k, solver, maxIter: 6 }).fitPrepared(data);
      const total = performance.now() - t0;
      row[`${solver}_ms`] = Math.round(total);
      row[`${solver}_eigen_ms_per_iter`] = Math.round(
        model.fitInfo.timings.eigenMs / model.fitInfo.iterations,
      );
    }
    console.log(JSON.stringify(row));
  }
}
