/**
 * The Krylov start of LOBPCG on Z (src/methods/zKrylovStart.ts): Rayleigh-Ritz on
 * K_J = span{T_0(D^) W, ..., T_J(D^) W} assembled from moments, against the same
 * Rayleigh-Ritz done with an explicit n-long basis, against Z's exact eigenvectors
 * (how the error falls with J), and through the solver against the dense path.
 */
import { describe, expect, it } from "vitest";
import { AbortError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { makeSyntheticDataset } from "#internal/data/synthetic.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiply, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import { type WasmArena, wasmArena } from "#internal/linalg/kernels/wasm/backend.js";
import { SDSPCA } from "#internal/methods/sdspca.js";
import { SDSPCAAN } from "#internal/methods/sdspcaan.js";
import { SDSPCALPP } from "#internal/methods/sdspcaLpp.js";
import {
  chebyshevMoments,
  krylovDegree,
  krylovOmega,
  krylovStart,
  MAX_KRYLOV_DEGREE,
} from "#internal/methods/zstep/zKrylovStart.js";
import {
  autoKrylovStart,
  KRYLOV_START_MIN_N,
  LIFTED_START_MIN_N,
} from "#internal/methods/zstep/zSolvers.js";
import { withPaths } from "../../helpers/qLoop.js";
import { maxPrincipalAngle, orthonormalBasis } from "../../helpers/subspace.js";
import { type Problem, problem } from "../../helpers/zProblem.js";

/** Z with its diagonal part replaced by diag(betaD). */
function withDiagonal(p: Problem, betaD: Float64Array): Matrix {
  const Z = p.Z.clone();
  const n = Z.rows;
  for (let i = 0; i < n; i++) Z.data[i * n + i] += betaD[i] - p.betaD[i];
  return Z;
}

/** The explicit basis [T_0(D^) W, ..., T_J(D^) W] (n x (J + 1) m). */
function explicitBasis(p: Problem, betaD: Float64Array, J: number): Matrix {
  const n = betaD.length;
  const Wt = new Matrix(p.woodbury.width, n, p.woodbury.basisRowsTransposed(0, n));
  const m = Wt.rows;
  const lo = Math.min(...betaD);
  const hi = Math.max(...betaD);
  const B = new Matrix(n, (J + 1) * m);
  for (let i = 0; i < n; i++) {
    const x = (betaD[i] - 0.5 * (lo + hi)) / (0.5 * (hi - lo));
    let prev = 1;
    let cur = x;
    for (let a = 0; a <= J; a++) {
      const t = a === 0 ? 1 : a === 1 ? x : 2 * x * cur - prev;
      if (a >= 2) {
        prev = cur;
        cur = t;
      }
      for (let j = 0; j < m; j++) B.data[i * (J + 1) * m + a * m + j] = t * Wt.data[j * n + i];
    }
  }
  return B;
}

/** max over columns of |Z v - theta v| / max |lambda|. */
function residual(Z: Matrix, V: Matrix, theta: Float64Array, scale: number): number {
  const ZV = multiply(Z, V);
  let r = 0;
  for (let j = 0; j < V.cols; j++) {
    let s = 0;
    for (let i = 0; i < V.rows; i++) {
      const e = ZV.data[i * V.cols + j] - theta[j] * V.data[i * V.cols + j];
      s += e * e;
    }
    r = Math.max(r, Math.sqrt(s));
  }
  return r / scale;
}

describe("the degree J from omega", () => {
  it("omega is 0 for a constant beta D, infinite when lambda is not below it, |l| - sqrt(l^2 - 1) otherwise", () => {
    expect(krylovOmega(-5, 3, 3)).toBe(0);
    expect(krylovOmega(2, 1, 9)).toBe(Number.POSITIVE_INFINITY);
    expect(krylovOmega(1, 1, 9)).toBe(Number.POSITIVE_INFINITY);
    // lambda = -3 on [1, 9]: l = (-3 - 5) / 4 = -2.
    expect(krylovOmega(-3, 1, 9)).toBeCloseTo(2 - Math.sqrt(3), 14);
    // Further below, smaller omega (about 1 / (2 |l|)).
    expect(krylovOmega(-3995, 1, 9)).toBeCloseTo(1 / 2000, 6);
  });

  it("is 0 when K_0 is exact, grows with omega, and gives up above the largest degree's reach", () => {
    expect(krylovDegree(0)).toBe(0);
    let last = 0;
    for (const omega of [1e-6, 1e-4, 1e-3, 0.01, 0.03, 0.06, 0.09, 0.3, 0.5]) {
      const J = krylovDegree(omega);
      expect(J).not.toBeNull();
      expect(J as number).toBeGreaterThanOrEqual(last);
      last = J as number;
    }
    expect(last).toBe(MAX_KRYLOV_DEGREE);
    expect(krylovDegree(0.7)).toBeNull();
  });
});

describe("Rayleigh-Ritz on K_J from moments", () => {
  // n = 160, d = 12, c = 4 and a small graph weight: Z's 16 smallest eigenvalues (-s^2
  // and the label term, -88 to -242) lie far below beta D in [0.5, 20.5], so omega is
  // small (0.03 for the 6th), as at large n.
  const p = problem(31, 160, 12, 4, 1, 0.5, 20, 1e-5);
  const n = p.Z.rows;
  const b = 10;
  const scale = Math.max(Math.abs(p.lambda[0]), Math.abs(p.lambda[n - 1]));

  it("gives the Ritz pairs of an explicit basis of K_J, orthonormal, with V^T Z V = diag(theta)", () => {
    for (let J = 0; J <= 3; J++) {
      const start = krylovStart(p.woodbury, p.betaD, p.delta, p.L, J, b);
      expect(start).not.toBeNull();
      const { values, vectors, degree, dimension } = start as NonNullable<typeof start>;
      expect(degree).toBe(J);
      expect(dimension).toBe((J + 1) * p.woodbury.width);
      // The same Rayleigh-Ritz with an orthonormalised n-long basis.
      const Q = orthonormalBasis(explicitBasis(p, p.betaD, J));
      const H = multiplyAtB(Q, multiply(p.Z, Q));
      const ref = symmetricEigen(H, { symmetryTolerance: Number.POSITIVE_INFINITY }).values;
      for (let j = 0; j < b; j++) expect(Math.abs(values[j] - ref[j])).toBeLessThan(1e-10 * scale);
      // Orthonormal Ritz vectors, and Z's projection on them diagonal with the Ritz values.
      const VtV = multiplyAtB(vectors, vectors);
      const VtZV = multiplyAtB(vectors, multiply(p.Z, vectors));
      for (let i = 0; i < b; i++) {
        for (let j = 0; j < b; j++) {
          expect(Math.abs(VtV.get(i, j) - (i === j ? 1 : 0))).toBeLessThan(1e-10);
          expect(Math.abs(VtZV.get(i, j) - (i === j ? values[i] : 0))).toBeLessThan(1e-10 * scale);
        }
      }
    }
  });

  it("converges to Z's eigenvectors as J grows, about omega times per degree, from above", () => {
    const exact = symmetricEigen(p.Z);
    const k = 6;
    const want = (exact.vectors as Matrix).leadingColumns(k);
    const lo = Math.min(...p.betaD);
    const hi = Math.max(...p.betaD);
    const omega = krylovOmega(exact.values[k - 1], lo, hi);
    expect(omega).toBeLessThan(0.1);
    const angles: number[] = [];
    for (let J = 0; J <= 3; J++) {
      const start = krylovStart(p.woodbury, p.betaD, p.delta, p.L, J, b);
      const { values, vectors } = start as NonNullable<typeof start>;
      angles.push(maxPrincipalAngle(want, vectors.leadingColumns(k)));
      // Rayleigh-Ritz: every Ritz value lies above the eigenvalue of the same rank.
      for (let j = 0; j < b; j++) {
        expect(values[j]).toBeGreaterThanOrEqual(exact.values[j] - 1e-10 * scale);
      }
    }
    for (let J = 1; J <= 3; J++) expect(angles[J]).toBeLessThan(3 * omega * angles[J - 1]);
    expect(angles[3]).toBeLessThan(1e-6);
  });

  it("is exact at J = 0 when beta D is constant (the first outer iteration)", () => {
    const flat = new Float64Array(n).fill(4.5);
    const Z = withDiagonal(p, flat);
    const start = krylovStart(p.woodbury, flat, p.delta, p.L, 2, b);
    const { values, vectors, degree } = start as NonNullable<typeof start>;
    expect(degree).toBe(0);
    expect(residual(Z, vectors, values, scale)).toBeLessThan(1e-11);
    const exact = symmetricEigen(Z, { vectors: false }).values;
    for (let j = 0; j < b; j++) expect(Math.abs(values[j] - exact[j])).toBeLessThan(1e-11 * scale);
  });

  it("drops the directions of a dependent basis (beta D with two values)", () => {
    // D^ = +-1 everywhere: T_2(D^) = 1 and T_3(D^) = D^, so K_3 = K_1. (Rows not aligned
    // with the classes i % 4: a class indicator in span W on the rows of one value would
    // be an eigenvector of D^, and K_1's basis dependent too.)
    const two = Float64Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 7));
    const Z = withDiagonal(p, two);
    const start = krylovStart(p.woodbury, two, p.delta, p.L, 3, b);
    const { values, vectors, degree, dimension } = start as NonNullable<typeof start>;
    expect(degree).toBe(3);
    expect(dimension).toBe(2 * p.woodbury.width);
    // With two values K_1 holds (beta D - lambda)^-1 W exactly: the Ritz pairs are exact.
    expect(residual(Z, vectors, values, scale)).toBeLessThan(1e-10);
    const VtV = multiplyAtB(vectors, vectors);
    for (let i = 0; i < b; i++) {
      for (let j = 0; j < b; j++)
        expect(Math.abs(VtV.get(i, j) - (i === j ? 1 : 0))).toBeLessThan(1e-10);
    }
  });

  it("stops with an AbortError when its signal is aborted", () => {
    const controller = new AbortController();
    controller.abort();
    expect(() =>
      krylovStart(p.woodbury, p.betaD, p.delta, p.L, 2, b, controller.signal),
    ).toThrowError(AbortError);
  });

  it("returns null when K_J is smaller than the block", () => {
    const m = p.woodbury.width;
    expect(krylovStart(p.woodbury, p.betaD, p.delta, p.L, 0, m + 1)).toBeNull();
  });
});

describe("the Chebyshev moments W^T T_j(D^) W", () => {
  it("have the same bits when a product's allocation grows the module's memory mid-pass", () => {
    const p = problem(7, 600, 90, 4, 1);
    const lo = Math.min(...p.betaD);
    const hi = Math.max(...p.betaD);
    const dh = Float64Array.from(p.betaD, (v) => (2 * v - lo - hi) / (hi - lo));
    const want = chebyshevMoments(p.woodbury, dh, 3, undefined);
    const arena = wasmArena() as WasmArena;
    const m = p.woodbury.width;
    const n = dh.length;
    const mark = arena.mark();
    try {
      // Fill the memory so that the pass's two chunk buffers end at its last bytes: the
      // first product's m x m block then grows it, detaching views made before.
      const free = Math.floor((arena.buffer.byteLength - arena.mark()) / 8);
      expect(arena.allocAll([free - 2 * m * n - 16])).not.toBeNull();
      const size = arena.buffer.byteLength;
      const got = chebyshevMoments(p.woodbury, dh, 3, undefined);
      expect(arena.buffer.byteLength).toBeGreaterThan(size);
      for (let j = 1; j <= 3; j++) {
        expect(got[j].data.every((v, t) => Object.is(v, want[j].data[t]))).toBe(true);
      }
    } finally {
      arena.release(mark);
    }
  });
});

describe("the solver with the Krylov and lifted starts", () => {
  it("gives the dense path's subspace, iterations and lambda trace, in fewer LOBPCG iterations", () => {
    // krylovStart "always" and solver "lobpcg" choose the path whatever n, so n = 300
    // (below LIFTED_START_MIN_N as n = 600 was) takes the same branches.
    const ds = makeSyntheticDataset({
      samples: 300,
      features: 60,
      classes: 5,
      nuisanceDim: 10,
      seed: 3,
    });
    for (const opts of [{ k: 10 }, { k: 6, alpha: 0.1, beta: 10, delta: 0.1 }]) {
      const dense = new SDSPCAAN({ ...opts, maxIter: 12, solver: "dense" }).fit(ds.X, ds.y);
      const perSolve = (krylovStart: "never" | "always") => {
        const fit = withPaths(new SDSPCAAN({ ...opts, maxIter: 12, solver: "lobpcg" }), {
          krylovStart,
        }).fit(ds.X, ds.y);
        expect(maxPrincipalAngle(dense.components, fit.components)).toBeLessThan(1e-6);
        expect(fit.fitInfo.iterations).toBe(dense.fitInfo.iterations);
        expect(fit.fitInfo.lambdaTrace).toEqual(dense.fitInfo.lambdaTrace);
        const degrees = fit.fitInfo.details.krylovDegrees as number[];
        const lifted = fit.fitInfo.details.liftedStarts as number;
        if (krylovStart === "always") {
          // The first solve, with D = I, is exact at J = 0; later ones use the lifted
          // space where K_J would need J >= 1 (not always at this small n).
          expect(degrees).toEqual([0]);
          expect(lifted).toBeGreaterThan(0);
          expect(1 + lifted).toBeLessThanOrEqual(fit.fitInfo.iterations);
        } else {
          expect(degrees).toEqual([]);
          expect(lifted).toBe(0);
        }
        return fit.fitInfo.details.lobpcgIterationsPerSolve as number[];
      };
      const plain = perSolve("never");
      const started = perSolve("always");
      expect(started[0]).toBeLessThanOrEqual(1);
      // With the default weights omega stays small enough for K_J on every solve.
      // Measured at n = 300: 116 LOBPCG iterations in all without a start (9-12 per
      // solve), 33 with the lifted space (0-3).
      if (opts.k === 10) {
        const sum = (v: number[]) => v.reduce((a, c) => a + c, 0);
        expect(2 * sum(started)).toBeLessThan(sum(plain));
      }
    }
  });

  it("gives SDSPCA's and SDSPCA-LPP's dense subspaces too", () => {
    const ds = makeSyntheticDataset({ samples: 400, features: 40, classes: 4, seed: 8 });
    for (const make of [
      (solver: "dense" | "lobpcg") => new SDSPCA({ k: 8, solver }),
      (solver: "dense" | "lobpcg") => new SDSPCALPP({ k: 8, delta: 2, solver }),
    ]) {
      const dense = make("dense").fit(ds.X, ds.y);
      const operator = withPaths(make("lobpcg"), { krylovStart: "always" }).fit(ds.X, ds.y);
      expect((operator.fitInfo.details.krylovDegrees as number[]).length).toBeGreaterThan(0);
      expect(maxPrincipalAngle(dense.components, operator.components)).toBeLessThan(1e-6);
      expect(operator.fitInfo.iterations).toBe(dense.fitInfo.iterations);
    }
  });

  it('"auto": for k >= 20, J = 0 whenever W is narrow beside n, later starts from LIFTED_START_MIN_N (lifted) or KRYLOV_START_MIN_N (chebyshev) samples', () => {
    const N = KRYLOV_START_MIN_N;
    const M = LIFTED_START_MIN_N;
    expect(autoKrylovStart(3200, 20, 794, 0)).toBe(true);
    expect(autoKrylovStart(3200, 20, 801, 0)).toBe(false);
    expect(autoKrylovStart(60_000, 10, 794, 0)).toBe(false);
    // The lifted space (default): width + 3 b <= n / 4 from M samples on.
    expect(autoKrylovStart(M, 10, 794, 1)).toBe(false);
    expect(autoKrylovStart(M - 1, 50, 794, 1)).toBe(false);
    expect(autoKrylovStart(M, 50, 794, 1)).toBe(true);
    expect(autoKrylovStart(M, 50, 794, 3, "lifted", 200)).toBe(false);
    expect(autoKrylovStart(60_000, 50, 794, 3)).toBe(true);
    // K_J: (J + 1) width <= n / 4 from N samples on.
    expect(autoKrylovStart(N - 1, 50, 794, 2, "chebyshev")).toBe(false);
    expect(autoKrylovStart(N, 50, 794, 2, "chebyshev")).toBe(true);
    expect(autoKrylovStart(N, 50, 1000, 3, "chebyshev")).toBe(false);
    expect(autoKrylovStart(60_000, 50, 794, 3, "chebyshev")).toBe(true);
  });
});
