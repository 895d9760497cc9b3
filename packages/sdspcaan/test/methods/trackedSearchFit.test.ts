/**
 * SDSPCAAN's S updates with the tracked within-class search (graph/trackedNeighbours.ts;
 * by default from TRACKED_SEARCH_MIN_ROWS training samples on, here forced on a smaller
 * set) give the fit the untracked search gives: the same outer iterations, stop-test
 * values and subspace.
 */
import { describe, expect, it } from "vitest";
import { FitContext } from "#internal/methods/estimator.js";
import { fitQLoop, type QLoopDetails } from "#internal/methods/sdspcaFamily.js";
import { TrainingData } from "#internal/methods/training.js";
import { fourGaussianClasses, sdspcaanSettings } from "../helpers/qLoop.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

describe("SDSPCAAN with the tracked within-class search", () => {
  it("gives the untracked fit: same iterations, stop-test values and subspace", () => {
    const { X, y } = fourGaussianClasses(1, 180);
    const prepared = TrainingData.prepare(X, Array.from(y));
    const fitWith = (trackNeighbours: boolean) =>
      fitQLoop(
        prepared,
        new FitContext("SDSPCAAN", 60, {}),
        // k = 26 > 24 columns: the block scans, where the tracker applies (as for any
        // n below TREE_MIN_ROWS and CLUSTER_MIN_ROWS, 4,000: 180 rows as 600 did).
        sdspcaanSettings(26, 60, { trackNeighbours }),
      );
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
    expect(td.neighbourRowsScanned).toBeGreaterThanOrEqual(180);
    expect(td.neighbourRowsCertified).toBeGreaterThan(td.neighbourRowsScanned);
  });
});
