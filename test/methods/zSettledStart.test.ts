/**
 * The settled warm start of the matrix-free Z solver (src/methods/zSolvers.ts): under
 * krylovStart "auto", once the previous solve's eigenvectors moved less than K_J's
 * target angle, LOBPCG starts from the previous block instead of K_J. Driven here by
 * a sequence of Z's whose diagonal part converges geometrically, as late in a fit, at
 * a size where "auto" uses K_J with J >= 1; checked against the warm start alone
 * ("never"), which the dense path checks elsewhere.
 */
import { describe, expect, it } from "vitest";
import { Random } from "../../src/core/rng.js";
import { graphLaplacian } from "../../src/graph/laplacian.js";
import { Matrix } from "../../src/linalg/matrix.js";
import { CsrMatrix } from "../../src/linalg/sparse.js";
import { TrainingData } from "../../src/methods/training.js";
import {
  chooseZSolver,
  KRYLOV_START_MIN_N,
  type ZKrylovStartChoice,
  type ZSolution,
} from "../../src/methods/zSolvers.js";
import { maxPrincipalAngle } from "../helpers/subspace.js";

const n = KRYLOV_START_MIN_N;
const d = 40;
const c = 4;
const k = 20;

/** Rows with a class-dependent mean, so that G and Y Y^T both shape Z's trailing part. */
function data(): TrainingData {
  const rng = new Random(11);
  const X = new Matrix(n, d);
  const y: number[] = [];
  const means = Array.from({ length: c }, () => Array.from({ length: d }, () => rng.normal()));
  for (let i = 0; i < n; i++) {
    const label = i % c;
    y.push(label);
    for (let j = 0; j < d; j++) {
      X.data[i * d + j] = means[label][j] + (1 + j / 10) * rng.normal();
    }
  }
  return TrainingData.prepare(X, y);
}

/** beta D at step t: D* (1 + rho^t E) with E fixed in [-1, 1], so each solve moves less. */
function diagonals(steps: number, rho: number): Float64Array[] {
  const rng = new Random(12);
  const base = Float64Array.from({ length: n }, () => 1 + 2 * rng.uniform());
  const E = Float64Array.from({ length: n }, () => 2 * rng.uniform() - 1);
  return Array.from({ length: steps }, (_, t) =>
    Float64Array.from(base, (v, i) => v * (1 + 0.5 * rho ** t * E[i])),
  );
}

/** A symmetric graph within each class (each row to two later rows of its class). */
function classGraph(codes: Int32Array): CsrMatrix {
  const rows: number[] = [];
  const cols: number[] = [];
  const values: number[] = [];
  for (let i = 0; i < n; i++) {
    for (const step of [c, 2 * c]) {
      const j = (i + step) % n;
      if (codes[j] !== codes[i]) continue;
      const w = 0.5 + ((i * 7 + j) % 5) / 10;
      rows.push(i, j);
      cols.push(j, i);
      values.push(w, w);
    }
  }
  return CsrMatrix.fromTriplets(n, n, rows, cols, values);
}

/**
 * The solves of one Z solver over the sequence of diagonals, with the graph term
 * delta G L G (delta > 0) or without it (delta 0).
 */
function run(
  trainingData: TrainingData,
  choice: ZKrylovStartChoice,
  Ds: Float64Array[],
  delta: number,
) {
  const codes = (trainingData.labels as { codes: Int32Array }).codes;
  const solver = chooseZSolver({
    choice: "lobpcg",
    data: trainingData,
    alpha: 100,
    codes,
    classes: c,
    k,
    seed: 0,
    krylovStart: choice,
  });
  try {
    const S = classGraph(codes);
    const graph = delta === 0 ? null : solver.graphTerm(S, graphLaplacian(S));
    const solutions: ZSolution[] = Ds.map((D) => solver.solve(1000, D, delta, graph));
    return { solutions, stats: { ...solver.stats } };
  } finally {
    solver.release();
  }
}

describe.each([
  ["without a graph term", 0],
  ["with a graph term (plain products in settled solves, compact ones after K_J)", 1e-7],
])("the settled warm start, %s", (_, delta) => {
  const trainingData = data();
  const Ds = diagonals(16, 0.6);
  const never = run(trainingData, "never", Ds, delta);
  const auto = run(trainingData, "auto", Ds, delta);
  const always = run(trainingData, "always", Ds, delta);

  it("gives the same eigenpairs as the warm start alone, solve by solve", () => {
    for (const other of [auto, always]) {
      for (let t = 0; t < Ds.length; t++) {
        const a = never.solutions[t];
        const b = other.solutions[t];
        for (let j = 0; j < k; j++) {
          expect(Math.abs(b.values[j] - a.values[j])).toBeLessThan(1e-9 * Math.abs(a.values[j]));
        }
        expect(maxPrincipalAngle(a.vectors, b.vectors)).toBeLessThan(1e-6);
      }
    }
  });

  it("uses K_J while Z moves, then the previous block once it has settled", () => {
    const degrees = auto.stats.krylovDegrees as number[];
    const settled = auto.stats.settledSolves as number;
    // The first solve has no estimate of lambda_k (and D is not constant): a cold start.
    // Then K_1 while the eigenvectors move more than K_J's target angle per solve, then
    // the previous block: every solve after the first is started one way or the other.
    expect(degrees.length).toBeGreaterThan(2);
    expect(degrees.every((J) => J === 1)).toBe(true);
    expect(settled).toBeGreaterThan(2);
    expect(degrees.length + settled).toBe(Ds.length - 1);
    // Measured: 3-4 LOBPCG iterations per settled solve, as many as from K_1 (3).
    const perSolve = auto.stats.lobpcgIterationsPerSolve as number[];
    for (const its of perSolve.slice(-settled)) expect(its).toBeLessThanOrEqual(5);
    expect(always.stats.settledSolves).toBe(0);
    expect(never.stats.settledSolves).toBe(0);
  });
});
