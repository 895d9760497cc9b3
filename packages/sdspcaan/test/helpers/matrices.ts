/** Shared builders and measures for the linear-algebra tests (seeded, deterministic). */

import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { frobeniusNorm } from "#internal/linalg/basic.js";
import { multiply, multiplyAtB } from "#internal/linalg/kernels/gemm.js";
import { type KernelExports, wasmArena } from "#internal/linalg/kernels/wasm/backend.js";
import { CsrMatrix } from "#internal/linalg/sparse.js";
import { orthonormalBasis } from "./subspace.js";

export function randomMatrix(rows: number, cols: number, seed: number, scale = 1): Matrix {
  const r = new Random(seed);
  const M = new Matrix(rows, cols);
  for (let i = 0; i < M.data.length; i++) M.data[i] = scale * r.normal();
  return M;
}

/** A symmetric n x n matrix, symmetric to the bit, of normal draws times `scale` (from a seed or a generator). */
export function randomSymmetric(n: number, source: number | Random, scale = 1): Matrix {
  const r = typeof source === "number" ? new Random(source) : source;
  const A = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      const v = scale * r.normal();
      A.data[i * n + j] = v;
      A.data[j * n + i] = v;
    }
  }
  return A;
}

/** A random orthogonal n x n matrix (the orthonormalised columns of a Gaussian one). */
export function randomOrthogonal(n: number, seed: number): Matrix {
  return orthonormalBasis(randomMatrix(n, n, seed));
}

/** Q diag(values) Q^T with a random orthogonal Q: a symmetric matrix with a prescribed spectrum. */
export function withSpectrum(values: ArrayLike<number>, seed: number): Matrix {
  const n = values.length;
  const Q = randomOrthogonal(n, seed);
  const QD = Q.clone();
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) QD.data[i * n + j] *= values[j];
  const A = multiply(QD, Q.transpose());
  return symmetrize(A);
}

export function symmetrize(A: Matrix): Matrix {
  const n = A.rows;
  const out = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) out.data[i * n + j] = 0.5 * (A.data[i * n + j] + A.data[j * n + i]);
  }
  return out;
}

/** ||A V - V diag(values)||_F. */
export function eigenResidual(A: Matrix, V: Matrix, values: ArrayLike<number>): number {
  const AV = multiply(A, V);
  const k = V.cols;
  for (let i = 0; i < V.rows; i++) {
    for (let j = 0; j < k; j++) AV.data[i * k + j] -= V.data[i * k + j] * values[j];
  }
  return frobeniusNorm(AV);
}

/** ||V^T B V - I||_F (B = I when omitted). */
export function orthogonalityError(V: Matrix, B?: Matrix): number {
  const G = multiplyAtB(V, B ? multiply(B, V) : V);
  for (let i = 0; i < G.rows; i++) G.data[i * G.cols + i] -= 1;
  return frobeniusNorm(G);
}

/**
 * Sine of the largest principal angle between the column spans of U and V (both with
 * orthonormal columns, V with at most as many columns as U), bounded above by
 * ||V - U U^T V||_F, which is accurate for small angles (unlike arccos of cosines).
 */
export function subspaceDistance(U: Matrix, V: Matrix): number {
  const UtV = multiplyAtB(U, V);
  const P = multiply(U, UtV);
  for (let i = 0; i < P.data.length; i++) P.data[i] = V.data[i] - P.data[i];
  return frobeniusNorm(P);
}

export function isAscending(values: ArrayLike<number>): boolean {
  for (let i = 1; i < values.length; i++) if (values[i] < values[i - 1]) return false;
  return true;
}

/** True when each column's largest-magnitude entry is positive (first one on ties). */
export function followsSignConvention(V: Matrix): boolean {
  for (let j = 0; j < V.cols; j++) {
    let best = 0;
    let at = 0;
    for (let i = 0; i < V.rows; i++) {
      const v = Math.abs(V.get(i, j));
      if (v > best) {
        best = v;
        at = i;
      }
    }
    if (V.get(at, j) < 0) return false;
  }
  return true;
}

/** A B by the textbook triple loop: the reference the products are checked against. */
export function naiveProduct(A: Matrix, B: Matrix): Matrix {
  const C = new Matrix(A.rows, B.cols);
  for (let i = 0; i < A.rows; i++) {
    for (let j = 0; j < B.cols; j++) {
      let s = 0;
      for (let l = 0; l < A.cols; l++) s += A.get(i, l) * B.get(l, j);
      C.set(i, j, s);
    }
  }
  return C;
}

export function maxAbsDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** Index of the first entry that differs under Object.is (-0 differs from 0), or -1. */
export function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

/**
 * Counts the calls of the named kernels of the active wasm module, so that a test
 * comparing the module's loops with the TypeScript ones cannot compare TypeScript
 * with itself unnoticed. The exports object is frozen: the arena gets a copy with
 * those kernels wrapped until `restore`.
 */
export function countKernelCalls<K extends keyof KernelExports>(
  names: readonly K[],
): { readonly calls: Record<K, number>; reset(): void; restore(): void } {
  const arena = wasmArena();
  if (arena === null) throw new Error("the wasm backend is not active");
  const real = arena.kernels;
  const calls = Object.fromEntries(names.map((name) => [name, 0])) as Record<K, number>;
  const counting: Record<string, unknown> = { ...real };
  for (const name of names) {
    const kernel = real[name] as unknown as (...args: unknown[]) => unknown;
    counting[name] = (...args: unknown[]) => {
      calls[name]++;
      return kernel(...args);
    };
  }
  (arena as { kernels: KernelExports }).kernels = counting as unknown as KernelExports;
  return {
    calls,
    reset(): void {
      for (const name of names) calls[name] = 0;
    },
    restore(): void {
      (arena as { kernels: KernelExports }).kernels = real;
    },
  };
}

/** G V = U (S^2 (U^T V)) with ordinary arrays: the products the Gram operator replaces. */
export function gramByMultiply(U: Matrix, Ut: Matrix, s2: Float64Array, V: Matrix): Matrix {
  const T = multiply(Ut, V);
  const b = T.cols;
  for (let j = 0; j < T.rows; j++) {
    for (let t = 0; t < b; t++) T.data[j * b + t] *= s2[j];
  }
  return multiply(U, T);
}

/**
 * A random n x n sparse matrix with `entries(i)` stored entries in row i (normal values
 * at uniform random columns; a column drawn twice is summed by fromTriplets).
 */
export function randomSparseRows(
  n: number,
  entries: (i: number) => number,
  seed: number,
): CsrMatrix {
  const rng = new Random(seed);
  const rows: number[] = [];
  const cols: number[] = [];
  const vals: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let e = 0; e < entries(i); e++) {
      rows.push(i);
      cols.push(Math.floor(rng.uniform() * n));
      vals.push(rng.normal());
    }
  }
  return CsrMatrix.fromTriplets(n, n, rows, cols, vals);
}

const fmaView = new DataView(new ArrayBuffer(8));

/** x = m 2^e exactly, m a signed integer (BigInt). */
function exactParts(x: number): { m: bigint; e: number } {
  fmaView.setFloat64(0, x);
  const hi = fmaView.getUint32(0);
  const lo = fmaView.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased !== 0) m |= 1n << 52n;
  return { m: hi >>> 31 ? -m : m, e: (biased === 0 ? 1 : biased) - 1075 };
}

/**
 * fma(a, b, c): a b + c rounded once to the nearest double (ties to even), computed
 * exactly in BigInt arithmetic, for finite operands whose result is a normal number
 * (what the tests feed it); a zero result takes the sign a b + c would give.
 */
export function fusedMultiplyAdd(a: number, b: number, c: number): number {
  const x = exactParts(a);
  const y = exactParts(b);
  const z = exactParts(c);
  const pm = x.m * y.m;
  const pe = x.e + y.e;
  const e = Math.min(pe, z.e);
  const sum = (pm << BigInt(pe - e)) + (z.m << BigInt(z.e - e));
  if (sum === 0n) return a * b + c;
  let q = sum < 0n ? -sum : sum;
  let exponent = e;
  const shift = q.toString(2).length - 53;
  if (shift > 0) {
    const rest = q & ((1n << BigInt(shift)) - 1n);
    q >>= BigInt(shift);
    const half = 1n << BigInt(shift - 1);
    if (rest > half || (rest === half && (q & 1n) === 1n)) q += 1n;
    exponent += shift;
  }
  const v = Number(q) * 2 ** exponent;
  return sum < 0n ? -v : v;
}
