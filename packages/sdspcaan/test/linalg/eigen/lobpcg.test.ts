import { describe, expect, it } from "vitest";
import { AbortError, ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { type LobpcgIteration, lobpcg } from "#internal/linalg/eigen/lobpcg.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiply, multiplyABt, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import {
  eigenResidual,
  followsSignConvention,
  isAscending,
  orthogonalityError,
  randomMatrix,
  randomSymmetric,
  subspaceDistance,
  withSpectrum,
} from "../../helpers/matrices.js";

function relativeValueError(a: Float64Array, b: Float64Array): number {
  let scale = 0;
  for (const v of b) scale = Math.max(scale, Math.abs(v));
  let e = 0;
  for (let j = 0; j < a.length; j++) e = Math.max(e, Math.abs(a[j] - b[j]));
  return e / scale;
}

/** A sparse symmetric matrix in compressed rows, applied to blocks. */
interface SparseRows {
  n: number;
  start: Int32Array;
  index: Int32Array;
  value: Float64Array;
}

function applySparse(L: SparseRows, V: Matrix): Matrix {
  const b = V.cols;
  const out = new Matrix(L.n, b);
  for (let i = 0; i < L.n; i++) {
    for (let p = L.start[i]; p < L.start[i + 1]; p++) {
      const w = L.value[p];
      const o = L.index[p] * b;
      for (let j = 0; j < b; j++) out.data[i * b + j] += w * V.data[o + j];
    }
  }
  return out;
}

function toDense(L: SparseRows): Matrix {
  const D = new Matrix(L.n, L.n);
  for (let i = 0; i < L.n; i++) {
    for (let p = L.start[i]; p < L.start[i + 1]; p++) D.data[i * L.n + L.index[p]] += L.value[p];
  }
  return D;
}

/** Laplacian of a graph given by symmetric weighted edges. */
function laplacianFromEdges(n: number, edges: Array<[number, number, number]>): SparseRows {
  const rows: Array<Map<number, number>> = Array.from({ length: n }, () => new Map());
  for (const [i, j, w] of edges) {
    if (i === j) continue;
    rows[i].set(j, (rows[i].get(j) ?? 0) - w);
    rows[j].set(i, (rows[j].get(i) ?? 0) - w);
    rows[i].set(i, (rows[i].get(i) ?? 0) + w);
    rows[j].set(j, (rows[j].get(j) ?? 0) + w);
  }
  const start = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) start[i + 1] = start[i] + rows[i].size;
  const index = new Int32Array(start[n]);
  const value = new Float64Array(start[n]);
  for (let i = 0; i < n; i++) {
    let p = start[i];
    for (const [j, w] of [...rows[i]].sort((x, y) => x[0] - y[0])) {
      index[p] = j;
      value[p++] = w;
    }
  }
  return { n, start, index, value };
}

/**
 * The SDSPCAAN matrix Z = -X X^T - a Y Y^T + b D + c X X^T L X X^T (SPEC section 3 item
 * 7), with class-structured X, one-hot Y, positive diagonal D and a kNN-graph Laplacian.
 */
function sdspcaanProblem(n: number, d: number, classes: number, seed: number) {
  const rng = new Random(seed);
  const labels = Int32Array.from({ length: n }, (_, i) => i % classes);
  const means = randomMatrix(classes, d, seed + 1, 2);
  const X = randomMatrix(n, d, seed + 2);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < d; j++) X.data[i * d + j] += means.data[labels[i] * d + j];
  }
  const diag = Float64Array.from({ length: n }, () => 0.5 + rng.uniform());
  // kNN graph (5 neighbours, Gaussian weights) on squared distances.
  const G = multiplyABt(X, X);
  const edges: Array<[number, number, number]> = [];
  for (let i = 0; i < n; i++) {
    const dist: Array<[number, number]> = [];
    for (let j = 0; j < n; j++) {
      if (j !== i) dist.push([G.get(i, i) + G.get(j, j) - 2 * G.get(i, j), j]);
    }
    dist.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    for (let t = 0; t < 5; t++) edges.push([i, dist[t][1], 0.5]);
  }
  const L = laplacianFromEdges(n, edges);
  const a = 1;
  const b = 1;
  const c = 1e-4;
  const apply = (V: Matrix): Matrix => {
    const XtV = multiplyAtB(X, V);
    const XXtV = multiply(X, XtV);
    const inner = multiply(X, multiplyAtB(X, applySparse(L, XXtV)));
    const out = new Matrix(n, V.cols);
    const k = V.cols;
    const YtV = new Float64Array(classes * k);
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < k; j++) YtV[labels[i] * k + j] += V.data[i * k + j];
    }
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < k; j++) {
        const o = i * k + j;
        out.data[o] =
          -XXtV.data[o] - a * YtV[labels[i] * k + j] + b * diag[i] * V.data[o] + c * inner.data[o];
      }
    }
    return out;
  };
  const dense = new Matrix(n, n);
  const XXt = multiplyABt(X, X);
  const XXtLXXt = multiply(multiply(XXt, toDense(L)), XXt);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      dense.data[i * n + j] =
        -XXt.data[i * n + j] -
        a * (labels[i] === labels[j] ? 1 : 0) +
        (i === j ? b * diag[i] : 0) +
        c * 0.5 * (XXtLXXt.data[i * n + j] + XXtLXXt.data[j * n + i]);
    }
  }
  return { apply, dense };
}

describe("lobpcg on dense matrices", () => {
  it("agrees with the dense solver (values and subspaces), smallest and largest", () => {
    const n = 240;
    const spectrum = Array.from({ length: n }, (_, i) => (i < 6 ? i - 6 : i / 10));
    const A = withSpectrum(spectrum, 21);
    for (const largest of [false, true]) {
      const res = lobpcg((V) => multiply(A, V), n, 5, { largest, tol: 1e-10, seed: 1 });
      const ref = symmetricEigen(A, { select: largest ? { largest: 5 } : { smallest: 5 } });
      expect(res.converged).toBe(true);
      expect(relativeValueError(res.values, ref.values)).toBeLessThan(1e-8);
      expect(subspaceDistance(ref.vectors as Matrix, res.vectors)).toBeLessThan(1e-7);
      expect(isAscending(res.values)).toBe(true);
      expect(followsSignConvention(res.vectors)).toBe(true);
      expect(orthogonalityError(res.vectors)).toBeLessThan(1e-12);
      let scale = 0;
      for (const v of res.values) scale = Math.max(scale, Math.abs(v));
      for (const r of res.residualNorms) expect(r).toBeLessThanOrEqual(1e-10 * scale * 1.01);
      expect(eigenResidual(A, res.vectors, res.values)).toBeLessThan(1e-9 * scale);
    }
  });

  it("converges on a random symmetric matrix with an unstructured spectrum", () => {
    const A = randomSymmetric(300, 5);
    const res = lobpcg((V) => multiply(A, V), 300, 4, { seed: 3 });
    const ref = symmetricEigen(A, { select: { smallest: 4 } });
    expect(res.converged).toBe(true);
    expect(relativeValueError(res.values, ref.values)).toBeLessThan(1e-8);
  });

  it("a warm start from the previous block converges in fewer iterations than a cold start", () => {
    const n = 300;
    const A = randomSymmetric(n, 8);
    const cold = lobpcg((V) => multiply(A, V), n, 6, { seed: 1 });
    // A nearby operator, as in consecutive outer iterations of SDSPCAAN.
    const E = randomSymmetric(n, 9, 1e-3);
    const B = new Matrix(n, n);
    for (let i = 0; i < n * n; i++) B.data[i] = A.data[i] + E.data[i];
    const coldB = lobpcg((V) => multiply(B, V), n, 6, { seed: 1 });
    const warmB = lobpcg((V) => multiply(B, V), n, 6, { seed: 1, initial: cold.block });
    expect(coldB.converged && warmB.converged).toBe(true);
    expect(warmB.iterations).toBeLessThan(coldB.iterations);
    expect(relativeValueError(warmB.values, coldB.values)).toBeLessThan(1e-8);
  });

  it("small operators are solved densely", () => {
    const A = randomSymmetric(20, 2);
    const res = lobpcg((V) => multiply(A, V), 20, 3, { largest: true });
    const ref = symmetricEigen(A, { select: { largest: 3 } });
    expect(res.iterations).toBe(0);
    expect(relativeValueError(res.values, ref.values)).toBeLessThan(1e-12);
    expect(subspaceDistance(ref.vectors as Matrix, res.vectors)).toBeLessThan(1e-10);
  });
});

/** (A - sigma I)^-1 from the eigen-decomposition of A, applied to blocks. */
function shiftedInverse(A: Matrix, sigma: number): (R: Matrix) => Matrix {
  const { values, vectors } = symmetricEigen(A);
  const V = vectors as Matrix;
  const Vt = V.transpose();
  return (R) => {
    const C = multiply(Vt, R);
    const b = R.cols;
    for (let i = 0; i < values.length; i++) {
      for (let j = 0; j < b; j++) C.data[i * b + j] /= values[i] - sigma;
    }
    return multiply(V, C);
  };
}

describe("lobpcg with a preconditioner", () => {
  // Ten wanted eigenvalues in a cluster whose gaps are tiny against the spread of the
  // rest (up to 1e4): slow without a preconditioner.
  const n = 300;
  const k = 10;
  const spectrum = Array.from({ length: n }, (_, i) => (i < 12 ? 1 + 0.05 * i : 2 + (i * i) / 9));
  const A = withSpectrum(spectrum, 31);
  const ref = symmetricEigen(A, { select: { smallest: k } });

  it("(A - sigma I)^-1 below the spectrum: the same pairs in far fewer iterations", () => {
    const plain = lobpcg((V) => multiply(A, V), n, k, { tol: 1e-10, seed: 4 });
    const pre = lobpcg((V) => multiply(A, V), n, k, {
      tol: 1e-10,
      seed: 4,
      preconditioner: shiftedInverse(A, 0.5),
    });
    for (const res of [plain, pre]) {
      expect(res.converged).toBe(true);
      expect(relativeValueError(res.values, ref.values)).toBeLessThan(1e-10);
      expect(subspaceDistance(ref.vectors as Matrix, res.vectors)).toBeLessThan(1e-7);
    }
    expect(plain.preconditionedIterations).toBe(0);
    expect(pre.preconditionedIterations).toBe(pre.iterations);
    expect(3 * pre.iterations).toBeLessThan(plain.iterations);
  });

  it("an interior shift is applied only while the Ritz values below it are below it", () => {
    // sigma between the 4th and 5th eigenvalues: 4 below.
    const sigma = 0.5 * (spectrum[3] + spectrum[4]);
    const pre = lobpcg((V) => multiply(A, V), n, k, {
      tol: 1e-10,
      seed: 4,
      preconditioner: shiftedInverse(A, sigma),
      preconditionerShift: { sigma, below: 4 },
    });
    expect(pre.converged).toBe(true);
    expect(relativeValueError(pre.values, ref.values)).toBeLessThan(1e-10);
    expect(subspaceDistance(ref.vectors as Matrix, pre.vectors)).toBeLessThan(1e-7);
    expect(pre.preconditionedIterations).toBeGreaterThan(0);
    // A count no Ritz values can satisfy (more values below sigma than there are):
    // never applied, and the result is the unpreconditioned one.
    const never = lobpcg((V) => multiply(A, V), n, k, {
      tol: 1e-10,
      seed: 4,
      preconditioner: shiftedInverse(A, sigma),
      preconditionerShift: { sigma, below: 6 },
    });
    const plain = lobpcg((V) => multiply(A, V), n, k, { tol: 1e-10, seed: 4 });
    expect(never.preconditionedIterations).toBe(0);
    expect(never.iterations).toBe(plain.iterations);
    expect(Array.from(never.values)).toEqual(Array.from(plain.values));
  });

  it("rejects a bad preconditioner or shift with errors naming them", () => {
    const B = randomSymmetric(50, 1);
    const apply = (V: Matrix) => multiply(B, V);
    const bad = (T: unknown, shift?: unknown) => () =>
      lobpcg(apply, 50, 3, {
        blockSize: 6,
        preconditioner: T as (R: Matrix) => Matrix,
        ...(shift === undefined
          ? {}
          : { preconditionerShift: shift as { sigma: number; below: number } }),
      });
    expect(bad(3)).toThrow(/'preconditioner'.*function R => T R.*Got number/);
    expect(bad(() => new Matrix(50, 1))).toThrow(/'preconditioner'.*50 x \d+ Matrix/);
    expect(
      bad((R: Matrix) => {
        const out = R.clone();
        out.data[0] = Number.POSITIVE_INFINITY;
        return out;
      }),
    ).toThrow(/'preconditioner'.*non-finite value \(Infinity\)/);
    expect(() => lobpcg(apply, 50, 3, { preconditionerShift: { sigma: 0, below: 1 } })).toThrow(
      /'preconditionerShift'.*needs a 'preconditioner'/,
    );
    expect(bad((R: Matrix) => R, { sigma: Number.NaN, below: 1 })).toThrow(
      /'preconditionerShift.sigma'.*finite number.*Got NaN/,
    );
    expect(bad((R: Matrix) => R, { sigma: 0, below: 6 })).toThrow(
      /'preconditionerShift.below'.*\[1, 5\].*Got 6 instead/,
    );
  });
});

describe("lobpcg on operators from the paper", () => {
  it("an SDSPCAAN-shaped operator applied matrix-free matches the dense solver", () => {
    const { apply, dense } = sdspcaanProblem(360, 80, 4, 3);
    const k = 6;
    const res = lobpcg(apply, 360, k, { seed: 2 });
    const ref = symmetricEigen(dense, { select: { smallest: k + 1 } });
    expect(res.converged).toBe(true);
    expect(relativeValueError(res.values, ref.values.subarray(0, k))).toBeLessThan(1e-8);
    // Davis-Kahan: sin(angle) <= ||R||_F / gap, with the gap to the (k+1)-th eigenvalue.
    let rf = 0;
    for (const r of res.residualNorms) rf += r * r;
    const gap = ref.values[k] - res.values[k - 1];
    const wanted = (ref.vectors as Matrix).leadingColumns(k);
    expect(subspaceDistance(wanted, res.vectors)).toBeLessThan((2 * Math.sqrt(rf)) / gap);
  });

  it("finds the c + 1 smallest eigenvalues of a graph Laplacian with a known spectrum", () => {
    // Three disjoint ring lattices (each node joined to its 15 nearest neighbours on
    // either side, 30 non-zeros per row as in the paper's graphs) of 80, 90 and 100
    // nodes. A ring of m nodes has the eigenvalues 30 - 2 sum_{s=1..15} cos(2 pi j s / m),
    // j = 0..m-1; the union has 0 three times (one per component).
    const sizes = [80, 90, 100];
    const reach = 15;
    const edges: Array<[number, number, number]> = [];
    let off = 0;
    for (const m of sizes) {
      for (let i = 0; i < m; i++) {
        for (let s = 1; s <= reach; s++) edges.push([off + i, off + ((i + s) % m), 1]);
      }
      off += m;
    }
    const n = off;
    const L = laplacianFromEdges(n, edges);
    const exact: number[] = [];
    for (const m of sizes) {
      for (let j = 0; j < m; j++) {
        let v = 2 * reach;
        for (let s = 1; s <= reach; s++) v -= 2 * Math.cos((2 * Math.PI * j * s) / m);
        exact.push(v);
      }
    }
    exact.sort((x, y) => x - y);
    const c = sizes.length;
    const res = lobpcg((V) => applySparse(L, V), n, c + 1, { seed: 5 });
    expect(res.converged).toBe(true);
    for (let j = 0; j < c; j++) expect(Math.abs(res.values[j])).toBeLessThan(1e-12 * exact[n - 1]);
    expect(Math.abs(res.values[c] - exact[c])).toBeLessThan(1e-8 * exact[c]);
    // The null space is spanned by the component indicators.
    const indicators = new Matrix(n, c);
    off = 0;
    sizes.forEach((m, comp) => {
      for (let i = 0; i < m; i++) indicators.data[(off + i) * c + comp] = 1 / Math.sqrt(m);
      off += m;
    });
    expect(subspaceDistance(indicators, res.vectors.leadingColumns(c))).toBeLessThan(1e-8);
  });
});

describe("lobpcg: options, progress and errors", () => {
  it("reports every iteration and stops at maxIterations without throwing", () => {
    const A = randomSymmetric(200, 4);
    const seen: LobpcgIteration[] = [];
    const res = lobpcg((V) => multiply(A, V), 200, 3, {
      maxIterations: 3,
      tol: 1e-14,
      onIteration: (info) => seen.push(info),
    });
    expect(res.converged).toBe(false);
    expect(res.iterations).toBe(3);
    expect(seen.map((s) => s.iteration)).toEqual([1, 2, 3]);
    expect(seen[2].values.length).toBe(3);
    expect(seen[2].residualNorms.length).toBe(3);
  });

  it("is deterministic for a seed", () => {
    const A = randomSymmetric(150, 6);
    const a = lobpcg((V) => multiply(A, V), 150, 2, { seed: 9 });
    const b = lobpcg((V) => multiply(A, V), 150, 2, { seed: 9 });
    expect(Array.from(a.vectors.data)).toEqual(Array.from(b.vectors.data));
    expect(a.iterations).toBe(b.iterations);
  });

  it("aborts with an AbortError when the signal fires", () => {
    const A = randomSymmetric(200, 4);
    const controller = new AbortController();
    expect(() =>
      lobpcg((V) => multiply(A, V), 200, 3, {
        signal: controller.signal,
        tol: 1e-14,
        onIteration: (info) => {
          if (info.iteration === 2) controller.abort();
        },
      }),
    ).toThrow(AbortError);
    const fired = new AbortController();
    fired.abort();
    expect(() => lobpcg((V) => multiply(A, V), 200, 3, { signal: fired.signal })).toThrow(
      AbortError,
    );
  });

  it("rejects bad arguments with errors naming them", () => {
    const A = randomSymmetric(50, 1);
    const apply = (V: Matrix) => multiply(A, V);
    expect(() => lobpcg(apply, 50, 0)).toThrow(/'k'.*\[1, 50\].*Got 0 instead/);
    expect(() => lobpcg(apply, 50, 51)).toThrow(ValidationError);
    expect(() => lobpcg(apply, 50, 3, { blockSize: 2 })).toThrow(
      /'blockSize'.*\[3, 50\].*Got 2 instead/,
    );
    expect(() => lobpcg(apply, 50, 3, { tol: -1 })).toThrow(/'tol'.*\(0, inf\).*Got -1 instead/);
    expect(() => lobpcg(apply, 50, 3, { initial: new Matrix(49, 3) })).toThrow(
      /'initial'.*n = 50 rows.*Got 49 x 3/,
    );
    expect(() => lobpcg(() => new Matrix(50, 1), 50, 3)).toThrow(/'apply'.*50 x \d+ Matrix/);
    const nanApply = (V: Matrix) => {
      const out = multiply(A, V);
      out.data[0] = Number.NaN;
      return out;
    };
    expect(() => lobpcg(nanApply, 50, 3)).toThrow(/'apply'.*non-finite value \(NaN\)/);
  });
});
