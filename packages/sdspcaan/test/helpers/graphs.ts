/**
 * Dense, deliberately naive references for the graph tests: every candidate of every
 * row ranked by (d, index), the weight formula evaluated directly, and a small
 * Jacobi eigen-solver for counting zero eigenvalues. O(n^2) and O(n^3): small n only.
 */
import { expect } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import type { Random } from "#internal/core/rng.js";
import type { TwoPartNeighbours } from "#internal/linalg/kernels/neighbourHeaps.js";

/** n x k matrix of integers in [-range, range] (exact arithmetic: ties stay ties). */
export function integerMatrix(rng: Random, n: number, k: number, range: number): Matrix {
  const M = new Matrix(n, k);
  for (let t = 0; t < M.data.length; t++) M.data[t] = rng.integer(2 * range + 1) - range;
  return M;
}

/** n x k matrix of standard normal deviates times `scale`. */
export function normalMatrix(rng: Random, n: number, k: number, scale = 1): Matrix {
  const M = new Matrix(n, k);
  for (let t = 0; t < M.data.length; t++) M.data[t] = scale * rng.normal();
  return M;
}

/** ||a_i - b_j||^2 from differences (exact for small integers). */
export function directSquaredDistance(A: Matrix, i: number, B: Matrix, j: number): number {
  let s = 0;
  for (let t = 0; t < A.cols; t++) {
    const diff = A.get(i, t) - B.get(j, t);
    s += diff * diff;
  }
  return s;
}

/** Indices j != i ranked by (d(i, j), j), the first `count` of them. */
export function bruteForceRanking(
  n: number,
  i: number,
  d: (i: number, j: number) => number,
  count: number,
): number[] {
  const js: number[] = [];
  for (let j = 0; j < n; j++) if (j !== i) js.push(j);
  js.sort((a, b) => {
    const da = d(i, a);
    const db = d(i, b);
    return da < db ? -1 : da > db ? 1 : a - b;
  });
  return js.slice(0, count);
}

/** Eigenvalues (ascending) of a small symmetric matrix by cyclic Jacobi rotations. */
export function jacobiEigenvalues(A: Matrix): number[] {
  const n = A.rows;
  const a = A.clone().data;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (apq === 0) continue;
        const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p];
          const akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k];
          const aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
      }
    }
  }
  const ev: number[] = [];
  for (let i = 0; i < n; i++) ev.push(a[i * n + i]);
  return ev.sort((x, y) => x - y);
}

/** Class codes 0..c-1 for n rows, each class with at least one row, shuffled. */
export function randomCodes(rng: Random, n: number, classes: number): Int32Array {
  const codes = new Int32Array(n);
  for (let i = 0; i < n; i++) codes[i] = i < classes ? i : rng.integer(classes);
  const perm = rng.permutation(n);
  return Int32Array.from(perm, (p) => codes[p]);
}

/** The same neighbours with the same distances, bit for bit (p and l too). */
export function expectSameBits(a: TwoPartNeighbours, b: TwoPartNeighbours): void {
  expect(Array.from(b.indices)).toEqual(Array.from(a.indices));
  for (let t = 0; t < a.indices.length; t++) {
    if (
      !Object.is(a.distances[t], b.distances[t]) ||
      !Object.is(a.primary[t], b.primary[t]) ||
      !Object.is(a.secondary[t], b.secondary[t])
    ) {
      throw new Error(`entry ${t}: ${a.distances[t]} / ${b.distances[t]}`);
    }
  }
}
