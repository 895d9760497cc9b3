/**
 * The lifted start of LOBPCG on Z (src/methods/zLiftedStart.ts): its assembly of the
 * projected problem against Rayleigh-Ritz with an explicit n-long basis, how close it
 * comes to Z's exact eigenvectors against K_J and the powers of 1 / |l|, and its edge
 * cases.
 */
import { describe, expect, it } from "vitest";
import { AbortError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiply, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import { krylovStart } from "#internal/methods/zstep/zKrylovStart.js";
import { liftedStart } from "#internal/methods/zstep/zLiftedStart.js";
import { maxPrincipalAngle, orthonormalBasis } from "../../helpers/subspace.js";
import { type Problem, problem } from "../../helpers/zProblem.js";

/** Z with its diagonal part replaced by diag(betaD). */
function withDiagonal(p: Problem, betaD: Float64Array): Matrix {
  const Z = p.Z.clone();
  const n = Z.rows;
  for (let i = 0; i < n; i++) Z.data[i * n + i] += betaD[i] - p.betaD[i];
  return Z;
}

/** l: Z's k-th eigenvalue on beta D's range mapped to [-1, 1]. */
function scaledEigenvalue(p: Problem, k: number): number {
  const lo = Math.min(...p.betaD);
  const hi = Math.max(...p.betaD);
  return (p.lambda[k - 1] - 0.5 * (lo + hi)) / (0.5 * (hi - lo));
}

/** Checks V^T V = I and V^T Z V = diag(theta). */
function expectRitzPairs(Z: Matrix, V: Matrix, theta: Float64Array, scale: number): void {
  const VtV = multiplyAtB(V, V);
  const VtZV = multiplyAtB(V, multiply(Z, V));
  for (let i = 0; i < V.cols; i++) {
    for (let j = 0; j < V.cols; j++) {
      expect(Math.abs(VtV.get(i, j) - (i === j ? 1 : 0))).toBeLessThan(1e-10);
      expect(Math.abs(VtZV.get(i, j) - (i === j ? theta[i] : 0))).toBeLessThan(1e-10 * scale);
    }
  }
}

// Small graph weight, m = 64 columns of W against b = 10: Z's smallest eigenvalues lie far
// below beta D in [0.5, 20.5] (l about -60 for the 6th), as at large n, and the lifted
// space (at most m + 3 b) is much smaller than K_1 (2 m).
const cases = [
  { name: "n = 400, d = 60", p: problem(31, 400, 60, 4, 1, 0.5, 20, 1e-5) },
  { name: "n = 600, d = 100, beta D spread 100", p: problem(31, 600, 100, 4, 1, 0.5, 100, 1e-5) },
];
const k = 6;
const b = 10;

describe("the lifted start", () => {
  for (const { name, p } of cases) {
    const n = p.Z.rows;
    const scale = Math.max(Math.abs(p.lambda[0]), Math.abs(p.lambda[n - 1]));

    it(`${name}: one pass is Rayleigh-Ritz on span{W, T_1(D^) W Y, .., T_p(D^) W Y}, Y from K_0`, () => {
      const m = p.woodbury.width;
      // K_0's Ritz coefficients Y = W^T x (x = W y).
      const k0 = krylovStart(p.woodbury, p.betaD, p.delta, p.L, 0, b);
      const Wt = new Matrix(m, n, p.woodbury.basisRowsTransposed(0, n));
      const Y = multiply(Wt, (k0 as NonNullable<typeof k0>).vectors);
      const lo = Math.min(...p.betaD);
      const hi = Math.max(...p.betaD);
      const dh = Float64Array.from(p.betaD, (v) => (v - 0.5 * (lo + hi)) / (0.5 * (hi - lo)));
      for (const degree of [1, 2, 3]) {
        const start = liftedStart(p.woodbury, p.betaD, p.delta, p.L, b, { passes: [degree] });
        const { values, vectors, dimension } = start as NonNullable<typeof start>;
        expect(dimension).toBe(m + degree * b);
        // The explicit basis [W, T_1(D^) W Y, ..., T_p(D^) W Y].
        const WY = multiplyAtB(Wt, Y);
        const B = new Matrix(n, m + degree * b);
        let prev = WY.clone();
        let cur = WY.clone();
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < m; j++) B.data[i * B.cols + j] = Wt.data[j * n + i];
        }
        for (let a = 1; a <= degree; a++) {
          const next = new Matrix(n, b);
          for (let i = 0; i < n; i++) {
            for (let j = 0; j < b; j++) {
              const t = i * b + j;
              next.data[t] = a === 1 ? dh[i] * cur.data[t] : 2 * dh[i] * cur.data[t] - prev.data[t];
              B.data[i * B.cols + m + (a - 1) * b + j] = next.data[t];
            }
          }
          prev = cur;
          cur = next;
        }
        const Q = orthonormalBasis(B);
        const ref = symmetricEigen(multiplyAtB(Q, multiply(p.Z, Q)), {
          symmetryTolerance: Number.POSITIVE_INFINITY,
        }).values;
        for (let j = 0; j < b; j++)
          expect(Math.abs(values[j] - ref[j])).toBeLessThan(1e-10 * scale);
        expectRitzPairs(p.Z, vectors, values, scale);
      }
    });

    it(`${name}: comes within (1 / |l|)^(p + 1) of Z's eigenvectors after one refinement, from above`, () => {
      const exact = symmetricEigen(p.Z);
      const want = (exact.vectors as Matrix).leadingColumns(k);
      const l = scaledEigenvalue(p, k);
      expect(l).toBeLessThan(-15);
      const angle = (passes: number[]) => {
        const start = liftedStart(p.woodbury, p.betaD, p.delta, p.L, b, { passes });
        const { values, vectors } = start as NonNullable<typeof start>;
        // Rayleigh-Ritz: every Ritz value lies above the eigenvalue of the same rank.
        for (let j = 0; j < b; j++) {
          expect(values[j]).toBeGreaterThanOrEqual(exact.values[j] - 1e-10 * scale);
        }
        return maxPrincipalAngle(want, vectors.leadingColumns(k));
      };
      const k1 = krylovStart(p.woodbury, p.betaD, p.delta, p.L, 1, b) as NonNullable<
        ReturnType<typeof krylovStart>
      >;
      const angleK1 = maxPrincipalAngle(want, k1.vectors.leadingColumns(k));
      // Measured (scripts/dev lift and these cases): one pass of degree 1 is about as
      // close as K_1 (Y from K_0 is off by O(1 / |l|)); refining Y gains a power of
      // 1 / |l| per lifted block.
      const one = angle([1]);
      expect(one).toBeLessThan(2 * angleK1);
      expect(one).toBeLessThan(l ** -2);
      expect(angle([1, 2])).toBeLessThan(Math.abs(l) ** -3);
      expect(angle([1, 3])).toBeLessThan(l ** -4);
    });
  }

  const p = cases[0].p;
  const n = p.Z.rows;
  const scale = Math.max(Math.abs(p.lambda[0]), Math.abs(p.lambda[n - 1]));

  it("is K_0, exact, when beta D is constant (the first outer iteration)", () => {
    const flat = new Float64Array(n).fill(4.5);
    const Z = withDiagonal(p, flat);
    const start = liftedStart(p.woodbury, flat, p.delta, p.L, b);
    const { values, vectors, dimension } = start as NonNullable<typeof start>;
    expect(dimension).toBe(p.woodbury.width);
    expectRitzPairs(Z, vectors, values, scale);
    const exact = symmetricEigen(Z, { vectors: false }).values;
    for (let j = 0; j < b; j++) expect(Math.abs(values[j] - exact[j])).toBeLessThan(1e-11 * scale);
  });

  it("drops the lifted directions W already holds (beta D with two values)", () => {
    // D^ = +-1: T_2(D^) W Y = W Y lies in span W and T_3(D^) W Y = T_1(D^) W Y, so of the
    // 3 b lifted columns only b remain.
    const two = Float64Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 7));
    const Z = withDiagonal(p, two);
    const start = liftedStart(p.woodbury, two, p.delta, p.L, b, { passes: [3] });
    const { values, vectors, dimension } = start as NonNullable<typeof start>;
    expect(dimension).toBe(p.woodbury.width + b);
    expectRitzPairs(Z, vectors, values, scale);
  });

  it("gives Ritz pairs when W spans all of R^n (n <= d + 1: nothing left to lift)", () => {
    for (const [n2, d2] of [
      [30, 40],
      [24, 23],
    ]) {
      const q = problem(5, n2, d2, 3, 1, 0.5, 20, 1e-3);
      const bb = Math.min(6, q.woodbury.width);
      const start = liftedStart(q.woodbury, q.betaD, q.delta, q.L, bb);
      const { values, vectors, dimension } = start as NonNullable<typeof start>;
      // Here W = [U, Qy] spans all of R^n (U the n - 1 centred directions, Qy the rest of
      // the class indicators), so every lifted direction is dropped: span W alone.
      expect(q.woodbury.width).toBe(n2);
      expect(dimension).toBe(n2);
      const scale2 = Math.max(Math.abs(q.lambda[0]), Math.abs(q.lambda[n2 - 1]));
      expectRitzPairs(q.Z, vectors, values, scale2);
      for (let j = 0; j < bb; j++)
        expect(values[j]).toBeGreaterThanOrEqual(q.lambda[j] - 1e-10 * scale2);
    }
  });

  it("stops with an AbortError when its signal is aborted", () => {
    const controller = new AbortController();
    controller.abort();
    expect(() =>
      liftedStart(p.woodbury, p.betaD, p.delta, p.L, b, { signal: controller.signal }),
    ).toThrowError(AbortError);
  });

  it("returns null when W is narrower than the block", () => {
    expect(liftedStart(p.woodbury, p.betaD, p.delta, p.L, p.woodbury.width + 1)).toBeNull();
  });
});
