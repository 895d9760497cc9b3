/**
 * The Woodbury form of (Z - sigma I)^-1 (src/methods/zPreconditioner.ts) against dense
 * linear algebra on Z formed from its definition, and the inertia it reports.
 */
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiply } from "#internal/linalg/kernels/gemm.js";
import { kernelHelpers } from "#internal/linalg/kernels/helper.js";
import { CsrMatrix } from "#internal/linalg/sparse.js";
import { thinSvd } from "#internal/linalg/svd.js";
import { GramOperator } from "#internal/methods/zstep/gramOperator.js";
import {
  interiorShifts,
  laplacianProjection,
  ZWoodbury,
} from "#internal/methods/zstep/zPreconditioner.js";
import { setKernelThreads } from "#internal/threads/helperThread.node.js";
import { firstDifference } from "../../helpers/matrices.js";
import { type Problem, problem } from "../../helpers/zProblem.js";

/** max |T x - (Z - sigma I)^-1 x| / max |(Z - sigma I)^-1 x| over the columns of a random block. */
function inverseError(p: Problem, sigma: number, apply: (R: Matrix) => Matrix): number {
  const n = p.Z.rows;
  const rng = new Random(99);
  const R = new Matrix(n, 3);
  for (let t = 0; t < R.data.length; t++) R.data[t] = rng.normal();
  const { values, vectors } = symmetricEigen(p.Z);
  const V = vectors as Matrix;
  // (Z - sigma I)^-1 R = V diag(1 / (lambda - sigma)) V^T R.
  const C = multiply(V.transpose(), R);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < 3; j++) C.data[i * 3 + j] /= values[i] - sigma;
  }
  const exact = multiply(V, C);
  const ours = apply(R);
  let err = 0;
  let scale = 0;
  for (let t = 0; t < exact.data.length; t++) {
    err = Math.max(err, Math.abs(ours.data[t] - exact.data[t]));
    scale = Math.max(scale, Math.abs(exact.data[t]));
  }
  return err / scale;
}

describe("(Z - sigma I)^-1 through Woodbury", () => {
  it("equals the dense inverse below the spectrum, and the shift is proven positive definite", () => {
    for (const [seed, n, d, c, recon] of [
      [1, 60, 8, 3, 1],
      [2, 60, 20, 4, 1],
      [3, 60, 8, 3, 0],
    ] as const) {
      const p = problem(seed, n, d, c, recon);
      const spread = p.lambda[5] - p.lambda[0];
      for (const sigma of [p.lambda[0] - 10 * spread, p.lambda[0] - 0.1 * spread]) {
        const inv = p.woodbury.build(p.betaD, p.delta, p.L, sigma);
        expect(inv).not.toBeNull();
        expect(inv?.below).toBe(0);
        expect(inverseError(p, sigma, (R) => inv?.apply(R) as Matrix)).toBeLessThan(1e-10);
      }
    }
  });

  it("applies with the same bits when its products go through the Gram operator (resident U, threads)", () => {
    // Sizes where multiply runs the wasm kernel, with 1 and 3 threads.
    const p = problem(7, 240, 30, 4, 1);
    const svd = thinSvd(p.X);
    const s2 = Float64Array.from(svd.s, (v) => v * v);
    const Ut = svd.U.transpose();
    const plain = new ZWoodbury(svd.U, Ut, s2, p.codes, 4, 3, 1);
    const spread = p.lambda[5] - p.lambda[0];
    const sigma = p.lambda[0] - 0.1 * spread;
    const R = new Matrix(240, 9);
    const rng = new Random(3);
    for (let t = 0; t < R.data.length; t++) R.data[t] = rng.normal();
    const want = plain.build(p.betaD, p.delta, p.L, sigma)?.apply(R.clone()) as Matrix;
    for (const threads of [1, 3]) {
      setKernelThreads(threads);
      const gram = new GramOperator(svd.U, Ut, s2, true, kernelHelpers());
      expect(gram.resident).toBe(true);
      expect(gram.threads).toBe(threads);
      const viaGram = new ZWoodbury(svd.U, Ut, s2, p.codes, 4, 3, 1, gram);
      const got = viaGram.build(p.betaD, p.delta, p.L, sigma)?.apply(R.clone()) as Matrix;
      gram.release();
      expect(firstDifference(got.data, want.data)).toBe(-1);
    }
    setKernelThreads(1);
  });

  it("counts the eigenvalues below an interior shift exactly (and still inverts)", () => {
    const p = problem(4, 60, 8, 3, 1);
    // The last gap below min(Dp), where Dp - sigma stays positive: j eigenvalues below.
    const dmin = Math.min(...p.betaD);
    let j = 1;
    while (0.5 * (p.lambda[j] + p.lambda[j + 1]) < dmin) j++;
    expect(j).toBeGreaterThanOrEqual(3);
    const sigma = 0.5 * (p.lambda[j - 1] + p.lambda[j]);
    const inv = p.woodbury.build(p.betaD, p.delta, p.L, sigma);
    expect(inv?.below).toBe(j);
    expect(inverseError(p, sigma, (R) => inv?.apply(R) as Matrix)).toBeLessThan(1e-10);
  });

  it("handles a rank-deficient [U, Y] (n <= d: U spans the centred class indicators)", () => {
    const p = problem(5, 40, 60, 4, 1);
    // U has r = n - 1 columns; only the constant vector's part of Y is left for Qy.
    expect(p.woodbury.width).toBe(40);
    for (const [sigma, below] of [
      [p.lambda[0] - 1, 0],
      [0.5 * (p.lambda[2] + p.lambda[3]), 3],
    ] as const) {
      const inv = p.woodbury.build(p.betaD, p.delta, p.L, sigma);
      expect(inv?.below).toBe(below);
      expect(inverseError(p, sigma, (R) => inv?.apply(R) as Matrix)).toBeLessThan(1e-10);
    }
  });

  it("refuses shifts it cannot apply: a diagonal that is not positive, a singular Z - sigma I", () => {
    const p = problem(6, 60, 8, 3, 1);
    expect(p.woodbury.build(p.betaD, p.delta, p.L, Math.min(...p.betaD))).toBeNull();
    expect(p.woodbury.build(p.betaD, p.delta, p.L, p.lambda[0])).toBeNull();
  });

  it("U A U^T with the middle factor A gives Z, the operator of the preconditioned solves", () => {
    // n > d (U spans a proper subspace) and n <= d, with and without the reconstruction term.
    for (const [seed, n, d, recon] of [
      [31, 60, 12, 1],
      [32, 40, 55, 1],
      [33, 50, 20, 0],
    ] as const) {
      const p = problem(seed, n, d, 3, recon);
      const svd = thinSvd(p.X);
      const A = p.woodbury.middleFactor(p.delta, p.L);
      const UAUt = multiply(multiply(svd.U, A), svd.U.transpose());
      let err = 0;
      let scale = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          const rest = (i === j ? p.betaD[i] : 0) - (p.codes[i] === p.codes[j] ? 3 : 0);
          const z = p.Z.data[i * n + j];
          err = Math.max(err, Math.abs(rest + UAUt.data[i * n + j] - z));
          scale = Math.max(scale, Math.abs(z));
        }
      }
      expect(err).toBeLessThan(1e-12 * scale);
    }
  });

  it("U^T L U equals the dense product", () => {
    const rng = new Random(7);
    const n = 30;
    const U = new Matrix(n, 4);
    for (let t = 0; t < U.data.length; t++) U.data[t] = rng.normal();
    const L = new Matrix(n, n);
    for (let i = 0; i < n; i++) {
      const j = (i + 1 + Math.floor(rng.uniform() * (n - 1))) % n;
      L.data[i * n + j] -= 1;
      L.data[j * n + i] -= 1;
      L.data[i * n + i] += 1;
      L.data[j * n + j] += 1;
    }
    const dense = multiply(multiply(U.transpose(), L), U);
    const ours = laplacianProjection(CsrMatrix.fromDense(L), U);
    for (let t = 0; t < dense.data.length; t++) {
      expect(Math.abs(ours.data[t] - dense.data[t])).toBeLessThan(1e-12 * 100);
    }
  });
});

describe("U^T L U over row chunks", () => {
  it("equals the sum over edges of w (u_i - u_j)(u_i - u_j)^T across chunk and block boundaries", () => {
    // n above one row chunk (4096) and r above one block of the half product (64).
    const n = 4200;
    const r = 70;
    const rng = new Random(8);
    const U = new Matrix(n, r);
    for (let t = 0; t < U.data.length; t++) U.data[t] = rng.normal();
    const edges: [number, number, number][] = [];
    for (let i = 0; i < n; i++) {
      for (const step of [1, 97, 2048]) edges.push([i, (i + step) % n, 0.5 + rng.uniform()]);
    }
    const entries = new Map<number, number>();
    const add = (i: number, j: number, v: number) =>
      entries.set(i * n + j, (entries.get(i * n + j) ?? 0) + v);
    const expected = new Float64Array(r * r);
    for (const [i, j, w] of edges) {
      add(i, j, -w);
      add(j, i, -w);
      add(i, i, w);
      add(j, j, w);
      for (let a = 0; a < r; a++) {
        const da = U.data[i * r + a] - U.data[j * r + a];
        for (let b = 0; b < r; b++) {
          expected[a * r + b] += w * da * (U.data[i * r + b] - U.data[j * r + b]);
        }
      }
    }
    const triplets = [...entries].map(([key, v]) => [Math.floor(key / n), key % n, v] as const);
    const L = CsrMatrix.fromTriplets(
      n,
      n,
      Int32Array.from(triplets, (t) => t[0]),
      Int32Array.from(triplets, (t) => t[1]),
      Float64Array.from(triplets, (t) => t[2]),
    );
    const K = laplacianProjection(L, U);
    let scale = 0;
    let err = 0;
    for (let t = 0; t < expected.length; t++) {
      scale = Math.max(scale, Math.abs(expected[t]));
      err = Math.max(err, Math.abs(K.data[t] - expected[t]));
    }
    expect(err).toBeLessThan(1e-12 * scale);
    for (let a = 0; a < r; a++) {
      for (let b = 0; b < a; b++) expect(K.data[a * r + b]).toBe(K.data[b * r + a]);
    }
  });
});

describe("interiorShifts", () => {
  it("places sigma at the midpoint of the widest gap below the k-th value, within its window", () => {
    // k = 6, b = 8: theta_k = -1, theta_b - theta_k = 0.5 (g). Gaps below theta_k:
    // (-100, -30) too far (D = 64 > 16 g = 8), (-6, -2) has D = 3 (in [2 g, 16 g] = [1, 8])
    // and half-width 2, (-2, -1.5) is too close (D = 0.75 < 2 g).
    const theta = Float64Array.from([-100, -30, -6, -2, -1.5, -1, -0.8, -0.5]);
    const shifts = interiorShifts(theta, 6);
    expect(shifts[0]).toBe(-4);
    expect(shifts.length).toBe(5);
    for (const s of shifts) expect(s).toBeLessThan(-1);
  });

  it("gives no shift without a gap to place it in", () => {
    expect(interiorShifts(Float64Array.from([1, 2, 3]), 3)).toEqual([]);
    expect(interiorShifts(Float64Array.from([1, 1, 1, 1]), 2)).toEqual([]);
    expect(interiorShifts(Float64Array.from([1, 2, 3]), 1)).toEqual([]);
  });
});
