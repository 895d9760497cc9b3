/**
 * SDSPCAAN's S updates with the tracked within-class search (graph/trackedNeighbours.ts;
 * by default from TRACKED_SEARCH_MIN_ROWS training samples on, here forced on a smaller
 * set) give the fit the untracked search gives: the same outer iterations, stop-test
 * values and subspace.
 */
import { describe, expect, it } from "vitest";
import { Random } from "../../src/core/rng.js";
import { DEFAULT_LAMBDA_CAP } from "../../src/graph/rankControl.js";
import { Matrix } from "../../src/linalg/matrix.js";
import { FitContext } from "../../src/methods/estimator.js";
import { fitQLoop, type QLoopDetails, qLoopSettings } from "../../src/methods/sdspcaFamily.js";
import { TrainingData } from "../../src/methods/training.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

/** Four Gaussian classes in 30 dimensions. */
function data(seed: number) {
  const rng = new Random(seed);
  const n = 600;
  const d = 30;
  const centres = Array.from({ length: 4 }, () =>
    Array.from({ length: d }, () => 4 * rng.normal()),
  );
  const X = new Matrix(n, d);
  const y = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    y[i] = i % 4;
    for (let l = 0; l < d; l++) X.data[i * d + l] = centres[y[i]][l] + (1 + l / d) * rng.normal();
  }
  return { X, y };
}

describe("SDSPCAAN with the tracked within-class search", () => {
  it("gives the untracked fit: same iterations, stop-test values and subspace", () => {
    const { X, y } = data(1);
    const prepared = TrainingData.prepare(X, Array.from(y));
    const fitWith = (trackNeighbours: boolean) =>
      fitQLoop(prepared, new FitContext("SDSPCAAN", 60, {}), {
        ...qLoopSettings(
          "SDSPCAAN",
          {
            // k = 26 > 24 columns: the block scans, where the tracker applies.
            k: 26,
            alpha: 1,
            beta: 1,
            delta: 1,
            tol: 1e-3,
            maxIter: 60,
            eps: 1e-8,
            stopRule: "aligned",
            solver: "dense",
            seed: 0,
            lambdaCap: DEFAULT_LAMBDA_CAP,
          },
          { graph: "adaptive" },
        ),
        trackNeighbours,
      });
    const tracked = fitWith(true);
    const full = fitWith(false);
    const td = tracked.details as QLoopDetails;
    const fd = full.details as QLoopDetails;
    expect(tracked.iterations).toBe(full.iterations);
    expect(tracked.lambdaTrace).toEqual(full.lambdaTrace);
    for (let t = 0; t < fd.iterateChange.length; t++) {
      expect(Math.abs(td.iterateChange[t] - fd.iterateChange[t])).toBeLessThanOrEqual(
        1e-9 * Math.max(1, fd.iterateChange[t]),
      );
    }
    expect(maxPrincipalAngle(tracked.components, full.components)).toBeLessThan(1e-9);
    // The first search scans every row; later ones certify most rows.
    expect(fd.neighbourRowsCertified + fd.neighbourRowsScanned).toBe(0);
    expect(td.neighbourRowsScanned).toBeGreaterThanOrEqual(600);
    expect(td.neighbourRowsCertified).toBeGreaterThan(td.neighbourRowsScanned);
  });
});
