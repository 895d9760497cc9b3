/**
 * A small instance of SDSPCAAN's Z formed densely from its definition, with the Woodbury
 * structure the matrix-free solver works with (src/methods/zPreconditioner.ts), for the
 * tests of the preconditioner and of the Krylov start.
 */

import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { centerColumns } from "#internal/linalg/basic.js";
import { symmetricEigen } from "#internal/linalg/eigen/symmetricEigen.js";
import { multiply } from "#internal/linalg/kernels/gemm.js";
import { CsrMatrix } from "#internal/linalg/sparse.js";
import { thinSvd } from "#internal/linalg/svd.js";
import { ZWoodbury } from "#internal/methods/zstep/zPreconditioner.js";

export interface Problem {
  Z: Matrix;
  woodbury: ZWoodbury;
  betaD: Float64Array;
  delta: number;
  L: CsrMatrix;
  /** The eigenvalues of Z, ascending. */
  lambda: Float64Array;
  /** The centred X and the class codes Z was built from. */
  X: Matrix;
  codes: Int32Array;
}

/**
 * Z = diag(betaD) - rec G - alpha Y Y^T + delta G L G formed densely from X (n x d),
 * a random symmetric graph and betaD uniform in [dLow, dLow + spread], and its Woodbury structure.
 */
export function problem(
  seed: number,
  n: number,
  d: number,
  c: number,
  recon: number,
  dLow = 0.5,
  spread = 20,
  delta = 0.01,
): Problem {
  const rng = new Random(seed);
  const X = new Matrix(n, d);
  for (let t = 0; t < X.data.length; t++) X.data[t] = rng.normal();
  const Xc = centerColumns(X).centered;
  const G = multiply(Xc, Xc.transpose());
  const codes = Int32Array.from({ length: n }, (_, i) => i % c);
  const Ld = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let t = 0; t < 3; t++) {
      const j = Math.floor(rng.uniform() * n);
      if (j === i) continue;
      const w = rng.uniform();
      Ld.data[i * n + j] -= w;
      Ld.data[j * n + i] -= w;
      Ld.data[i * n + i] += w;
      Ld.data[j * n + j] += w;
    }
  }
  const betaD = Float64Array.from({ length: n }, () => dLow + spread * rng.uniform());
  const alpha = 3;
  const GLG = multiply(multiply(G, Ld), G);
  const Z = new Matrix(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const p = i * n + j;
      Z.data[p] = -recon * G.data[p] - (codes[i] === codes[j] ? alpha : 0) + delta * GLG.data[p];
    }
    Z.data[i * n + i] += betaD[i];
  }
  const svd = thinSvd(Xc);
  const s2 = Float64Array.from(svd.s, (v) => v * v);
  const woodbury = new ZWoodbury(svd.U, svd.U.transpose(), s2, codes, c, alpha, recon);
  const L = CsrMatrix.fromDense(Ld);
  return {
    Z,
    woodbury,
    betaD,
    delta,
    L,
    lambda: symmetricEigen(Z, { vectors: false }).values,
    X: Xc,
    codes,
  };
}
