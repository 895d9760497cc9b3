/**
 * SVQB (the orthonormalisation of Stathopoulos & Wu 2002 through the eigen-
 * decomposition of the Gram matrix, as used in the robust LOBPCG of Duersch, Shao,
 * Yang & Gu 2018), which survives rank-deficient blocks, and the "ortho" procedure
 * built on it. They need the dense symmetric eigensolver, so they sit in eigen/ beside
 * the solvers that use them, above the block kernels of orthogonalize.ts.
 */
import { Matrix } from "../../core/matrix.js";
import { multiply } from "../kernels/gemm.js";
import { gram, innerProducts } from "../orthogonalize.js";
import { symmetricEigen } from "./symmetricEigen.js";

/**
 * SVQB (Stathopoulos & Wu): orthonormalises the columns of V through the eigen-
 * decomposition of the scaled Gram matrix D^-1/2 V^T V D^-1/2 = Z Theta Z^T, giving
 * V D^-1/2 Z Theta^-1/2. Directions with Theta < dropTolerance * max(Theta) are
 * dropped (the result may have fewer columns). Returns the new block and the k x k'
 * transform T with result = V T, so that images A V can be updated alike.
 */
export function svqb(V: Matrix, dropTolerance = 1e-14): { Q: Matrix; T: Matrix } {
  const k = V.cols;
  if (k === 0) return { Q: V.clone(), T: new Matrix(0, 0) };
  const G = gram(V);
  const dinv = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    const gii = G.data[i * k + i];
    dinv[i] = gii > 0 ? 1 / Math.sqrt(gii) : 0;
  }
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) G.data[i * k + j] *= dinv[i] * dinv[j];
  }
  const { values, vectors } = symmetricEigen(G);
  const Z = vectors as Matrix;
  const top = values[k - 1];
  const keep: number[] = [];
  for (let j = k - 1; j >= 0; j--) if (top > 0 && values[j] > dropTolerance * top) keep.push(j);
  const T = new Matrix(k, keep.length);
  for (let c = 0; c < keep.length; c++) {
    const j = keep[c];
    const f = 1 / Math.sqrt(values[j]);
    for (let i = 0; i < k; i++) T.data[i * keep.length + c] = dinv[i] * Z.data[i * k + j] * f;
  }
  return { Q: multiply(V, T), T };
}

function maxDeviation(G: Matrix, identity: boolean): number {
  let e = 0;
  const { rows, cols, data } = G;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      e = Math.max(e, Math.abs(data[i * cols + j] - (identity && i === j ? 1 : 0)));
    }
  }
  return e;
}

/**
 * Orthonormal basis of the part of span(V) orthogonal to the (orthonormal, mutually
 * orthogonal) blocks in `bases`: the "ortho" procedure of Duersch et al. 2018. Each
 * round measures C = bases^T V, stops when C and V^T V - I are below `tolerance`,
 * else projects (V <- V - bases C, with a second pass in the first round: "twice is
 * enough") and orthonormalises with SVQB, whose Gram-based orthogonality degrades like
 * eps cond(V)^2 and so may need another round. Directions that vanish in the
 * projection are dropped: the result may have fewer columns than V.
 */
export function orthonormalizeAgainst(
  V: Matrix,
  bases: Matrix[],
  { dropTolerance = 1e-14, tolerance = 1e-13, rounds = 4 } = {},
): Matrix {
  const used = bases.filter((Q) => Q.cols > 0);
  let W = V.clone();
  let checked = false;
  for (let round = 0; round < rounds; round++) {
    if (W.cols === 0) return W;
    const coefficients = used.map((Q) => innerProducts(Q, W));
    if (checked) {
      let err = maxDeviation(gram(W), true);
      for (const C of coefficients) err = Math.max(err, maxDeviation(C, false));
      if (err <= tolerance) return W;
    }
    for (let pass = 0; pass < (round === 0 ? 2 : 1); pass++) {
      used.forEach((Q, q) => {
        const C = pass === 0 ? coefficients[q] : innerProducts(Q, W);
        const QC = multiply(Q, C);
        for (let i = 0; i < W.data.length; i++) W.data[i] -= QC.data[i];
      });
    }
    W = svqb(W, dropTolerance).Q;
    checked = true;
  }
  return W;
}
