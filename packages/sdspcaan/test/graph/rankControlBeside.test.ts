/**
 * The rank control beside the Z solve (graph/rankControlBeside.ts): its Laplacian solves
 * on the side thread give the values the calling thread gives, bit for bit, along a
 * sequence of moving graphs (so with the same warm starts) and along a whole fit; a
 * solve still running when the fit fails is stopped and waited for, and the side thread
 * serves the next fit.
 */
import { afterAll, describe, expect, it } from "vitest";
import { AbortError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { initialAdaptiveGraph } from "#internal/graph/adaptive.js";
import { graphLaplacian, symmetrizeGraph } from "#internal/graph/laplacian.js";
import { RankControlRunner } from "#internal/graph/rankControlBeside.js";
import { sideHelper } from "#internal/linalg/kernels/helper.js";
import type { CsrMatrix } from "#internal/linalg/sparse.js";
import { FitContext } from "#internal/methods/estimator.js";
import { fitQLoop, type QLoopDetails } from "#internal/methods/sdspcaFamily.js";
import { TrainingData } from "#internal/methods/training.js";
import { setKernelThreads, sideHelperRunning } from "#internal/threads/helperThread.node.js";
import { fourGaussianClasses, sdspcaanSettings } from "../helpers/qLoop.js";

afterAll(() => setKernelThreads(1));

/**
 * Laplacians of clustered points moving a little each step (as consecutive outer
 * iterations move the graph): components of `size` nodes, solved iteratively with the
 * decision's early stops (denseLimit 40, decisionMinSize 1, as largeScale "always").
 */
function movingLaplacians(seed: number, clusters: number, size: number, steps: number) {
  const rng = new Random(seed);
  const d = 5;
  let rows: number[][] = [];
  for (let c = 0; c < clusters; c++) {
    const centre = Array.from({ length: d }, () => 40 * c + rng.normal());
    for (let i = 0; i < size; i++) rows.push(centre.map((v) => v + rng.normal()));
  }
  const out: CsrMatrix[] = [];
  for (let t = 0; t < steps; t++) {
    out.push(
      graphLaplacian(symmetrizeGraph(initialAdaptiveGraph(Matrix.fromRows(rows), { m: 6 }).S)),
    );
    rows = rows.map((r) => r.map((v) => v + 0.05 * rng.normal()));
  }
  return out;
}

const FORCED = { denseLimit: 40, decisionMinSize: 1 };

function solveAll(runner: RankControlRunner, Ls: readonly CsrMatrix[]): Float64Array[] {
  try {
    return Ls.map((L) => {
      runner.start(L);
      return runner.finish().values;
    });
  } finally {
    runner.release();
  }
}

function expectSameBits(a: Float64Array, b: Float64Array): void {
  expect(a.length).toBe(b.length);
  for (let i = 0; i < a.length; i++) expect(Object.is(a[i], b[i])).toBe(true);
}

describe("RankControlRunner", () => {
  it("solves here without a side thread, and beside with one, to the same bits", () => {
    setKernelThreads(1);
    expect(sideHelper()).toBeNull();
    const Ls = movingLaplacians(1, 4, 150, 6);
    // The decision's tol between the components' smallest positive eigenvalues.
    const tol = 1e-3;
    const here = new RankControlRunner(4, tol, FORCED, true);
    expect(here.beside).toBe(false);
    const expected = solveAll(here, Ls);

    setKernelThreads(2);
    const beside = new RankControlRunner(4, tol, FORCED, true);
    expect(beside.beside).toBe(true);
    expect(sideHelperRunning()).toBe(true);
    const got = solveAll(beside, Ls);
    for (let t = 0; t < Ls.length; t++) expectSameBits(got[t], expected[t]);
    // `beside: false` keeps the solves here even with a side thread.
    expect(new RankControlRunner(4, tol, FORCED, false).beside).toBe(false);
  });

  it("keeps each runner's warm start: two runners in turn give their own sequences", () => {
    setKernelThreads(2);
    const A = movingLaplacians(2, 3, 120, 4);
    const B = movingLaplacians(3, 3, 120, 4);
    const tol = 1e-3;
    const alone = (Ls: CsrMatrix[]) => solveAll(new RankControlRunner(3, tol, FORCED, false), Ls);
    const expectedA = alone(A);
    const expectedB = alone(B);
    const ra = new RankControlRunner(3, tol, FORCED, true);
    const rb = new RankControlRunner(3, tol, FORCED, true);
    try {
      for (let t = 0; t < A.length; t++) {
        ra.start(A[t]);
        expectSameBits(ra.finish().values, expectedA[t]);
        rb.start(B[t]);
        expectSameBits(rb.finish().values, expectedB[t]);
      }
    } finally {
      ra.release();
      rb.release();
    }
  });

  it("stops a running solve when released, and reports the caller's abort", () => {
    setKernelThreads(2);
    const Ls = movingLaplacians(4, 4, 150, 2);
    const runner = new RankControlRunner(4, 1e-3, FORCED, true);
    runner.start(Ls[0]);
    runner.release();
    runner.release();

    const controller = new AbortController();
    const aborted = new RankControlRunner(4, 1e-3, { ...FORCED, signal: controller.signal }, true);
    try {
      aborted.start(Ls[0]);
      controller.abort();
      expect(() => aborted.finish()).toThrow(AbortError);
    } finally {
      aborted.release();
    }
    // The side thread serves the next runner as before.
    const next = new RankControlRunner(4, 1e-3, FORCED, true);
    const expected = solveAll(new RankControlRunner(4, 1e-3, FORCED, false), Ls);
    const got = solveAll(next, Ls);
    for (let t = 0; t < Ls.length; t++) expectSameBits(got[t], expected[t]);
  });

  it("refuses a finish without a start, and a second start", () => {
    setKernelThreads(2);
    const L = movingLaplacians(5, 2, 60, 1)[0];
    for (const beside of [false, true]) {
      const runner = new RankControlRunner(2, 1e-3, FORCED, beside);
      try {
        expect(() => runner.finish()).toThrow(/no solve is started/);
        runner.start(L);
        expect(() => runner.start(L)).toThrow(/already started/);
        runner.finish();
      } finally {
        runner.release();
      }
    }
  });
});

describe("SDSPCAAN with the rank control beside the Z solve", () => {
  it("gives the fit of the rank control here, to the last bit", () => {
    setKernelThreads(2);
    const { X, y } = fourGaussianClasses(1, 300);
    const prepared = TrainingData.prepare(X, Array.from(y));
    const fitWith = (rankControlBeside: boolean) =>
      fitQLoop(
        prepared,
        new FitContext("SDSPCAAN", 40, {}),
        // The iterative rank control with its warm starts, at this size.
        sdspcaanSettings(6, 40, { largeScale: "always", rankControlBeside }),
      );
    const beside = fitWith(true);
    const here = fitWith(false);
    const bd = beside.details as QLoopDetails;
    const hd = here.details as QLoopDetails;
    expect(beside.iterations).toBe(here.iterations);
    expect(beside.iterations).toBeGreaterThan(3);
    expect(beside.lambdaTrace).toEqual(here.lambdaTrace);
    expect(bd.iterateChange).toEqual(hd.iterateChange);
    expect(bd.laplacianEigenvalues).toEqual(hd.laplacianEigenvalues);
    expect(bd.rankControlsByBounds).toBe(hd.rankControlsByBounds);
    // Some rank controls were solved (not all settled by bounds), so some ran beside.
    expect(bd.rankControlsByBounds).toBeLessThan(beside.iterations);
    expectSameBits(beside.components.data, here.components.data);
  });
});
