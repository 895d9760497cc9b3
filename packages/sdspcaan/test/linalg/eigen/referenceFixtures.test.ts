/**
 * Agreement with LAPACK through scipy (fixtures made by
 * scripts/fixtures/linalg_reference.py; the command is recorded in each file).
 * Eigenvectors are compared by subspace (principal angles) over groups of equal
 * eigenvalues, and single vectors up to sign, never by raw sign.
 */
import { readFileSync } from "node:fs";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { Matrix } from "#internal/core/matrix.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { dataSpanEigen, generalizedSymmetricEigen } from "#internal/linalg/generalizedEigen.js";
import { thinSvd } from "#internal/linalg/svd.js";
import { maxAbsDifference, subspaceDistance } from "../../helpers/matrices.js";

interface EighCase {
  name: string;
  A: number[][];
  values: number[];
  vectors: number[][];
  subsets: Array<{ first: number; last: number; values: number[]; vectors: number[][] }>;
}

function load<T>(name: string): T & { command: string } {
  return JSON.parse(readFileSync(fixtureFile(`linalg/${name}`), "utf8"));
}

/** Checks span equality group by group, grouping eigenvalues closer than `tie`. */
function expectSameEigenspaces(
  values: ArrayLike<number>,
  ours: Matrix,
  theirs: Matrix,
  tie: number,
  angle: number,
): void {
  let start = 0;
  for (let j = 1; j <= values.length; j++) {
    if (j === values.length || values[j] - values[j - 1] > tie) {
      const idx = Int32Array.from({ length: j - start }, (_, t) => start + t);
      expect(subspaceDistance(theirs.selectColumns(idx), ours.selectColumns(idx))).toBeLessThan(
        angle,
      );
      start = j;
    }
  }
}

/** Largest over columns of min(||a - b||, ||a + b||) / ||b||. */
function columnsUpToSign(a: Matrix, b: Matrix): number {
  let worst = 0;
  for (let j = 0; j < b.cols; j++) {
    let dm = 0;
    let dp = 0;
    let nb = 0;
    for (let i = 0; i < b.rows; i++) {
      const x = a.get(i, j);
      const y = b.get(i, j);
      dm += (x - y) ** 2;
      dp += (x + y) ** 2;
      nb += y * y;
    }
    worst = Math.max(worst, Math.sqrt(Math.min(dm, dp) / nb));
  }
  return worst;
}

describe("fixtures: symmetric eigen-decomposition against scipy.linalg.eigh", () => {
  const data = load<{ cases: EighCase[] }>("eigh.json");

  it("records the command that made it", () => {
    expect(data.command).toMatch(/scripts\/fixtures\/linalg_reference\.py/);
  });

  for (const c of data.cases) {
    it(`${c.name}: values, eigenspaces and subsets`, () => {
      const A = Matrix.fromRows(c.A);
      const scale = Math.max(...c.values.map(Math.abs));
      const full = symmetricEigen(A);
      expect(maxAbsDifference(full.values, c.values)).toBeLessThan(1e-12 * scale);
      expectSameEigenspaces(
        c.values,
        full.vectors as Matrix,
        Matrix.fromRows(c.vectors),
        1e-8 * scale,
        1e-10,
      );
      for (const s of c.subsets) {
        const n = A.rows;
        const k = s.last - s.first + 1;
        const select = s.first === 0 ? { smallest: k } : { largest: k };
        expect(s.first === 0 || s.last === n - 1).toBe(true);
        const sub = symmetricEigen(A, { select });
        expect(maxAbsDifference(sub.values, s.values)).toBeLessThan(1e-12 * scale);
        // A subset may cut a group of equal eigenvalues; compare only whole groups.
        const all = c.values;
        const cutLow = s.first > 0 && all[s.first] - all[s.first - 1] <= 1e-8 * scale;
        const cutHigh = s.last < n - 1 && all[s.last + 1] - all[s.last] <= 1e-8 * scale;
        if (!cutLow && !cutHigh) {
          expectSameEigenspaces(
            s.values,
            sub.vectors as Matrix,
            Matrix.fromRows(s.vectors),
            1e-8 * scale,
            1e-10,
          );
        }
      }
    });
  }
});

describe("fixtures: thin SVD against scipy.linalg.svd", () => {
  const data = load<{
    cases: Array<{
      name: string;
      X: number[][];
      rank: number;
      s: number[];
      U: number[][];
      V: number[][];
    }>;
  }>("svd.json");
  for (const c of data.cases) {
    it(`${c.name}: rank, singular values and singular vectors up to sign`, () => {
      const svd = thinSvd(Matrix.fromRows(c.X));
      expect(svd.rank).toBe(c.rank);
      expect(maxAbsDifference(svd.s, c.s)).toBeLessThan(1e-12 * c.s[0]);
      expect(columnsUpToSign(svd.U, Matrix.fromRows(c.U))).toBeLessThan(1e-10);
      expect(columnsUpToSign(svd.V, Matrix.fromRows(c.V))).toBeLessThan(1e-10);
    });
  }
});

describe("fixtures: generalised problems", () => {
  const data = load<{
    definite: { A: number[][]; B: number[][]; values: number[]; vectors: number[][] };
    dataSpanTall: { X: number[][]; M: number[][]; values: number[]; W: number[][] };
    dataSpanWide: { X: number[][]; M: number[][]; rank: number; values: number[]; W: number[][] };
  }>("generalized.json");

  it("positive definite B agrees with scipy.linalg.eigh(A, B)", () => {
    const { A, B, values, vectors } = data.definite;
    const n = values.length;
    const res = generalizedSymmetricEigen(Matrix.fromRows(A), Matrix.fromRows(B), {
      smallest: n,
    });
    expect(maxAbsDifference(res.values, values)).toBeLessThan(
      1e-11 * Math.max(...values.map(Math.abs)),
    );
    expect(columnsUpToSign(res.vectors, Matrix.fromRows(vectors))).toBeLessThan(1e-9);
  });

  it("the data-span solver with n > d agrees with scipy.linalg.eigh(X^T M X, X^T X)", () => {
    const { X, M, values, W } = data.dataSpanTall;
    const k = values.length;
    const res = dataSpanEigen(Matrix.fromRows(X), Matrix.fromRows(M), { smallest: k });
    expect(maxAbsDifference(res.values, values)).toBeLessThan(
      1e-11 * Math.max(...values.map(Math.abs)),
    );
    expect(columnsUpToSign(res.W, Matrix.fromRows(W))).toBeLessThan(1e-9);
  });

  it("the data-span solver with d > n agrees with the solution built from scipy's SVD", () => {
    const { X, M, rank, values, W } = data.dataSpanWide;
    const res = dataSpanEigen(Matrix.fromRows(X), Matrix.fromRows(M), { smallest: 4 });
    expect(res.rank).toBe(rank);
    expect(maxAbsDifference(res.values, values.slice(0, 4))).toBeLessThan(
      1e-11 * Math.max(...values.map(Math.abs)),
    );
    const ref = Matrix.fromRows(W).leadingColumns(4);
    expect(columnsUpToSign(res.W, ref)).toBeLessThan(1e-9);
  });
});
