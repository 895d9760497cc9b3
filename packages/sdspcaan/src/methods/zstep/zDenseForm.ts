/**
 * The dense path's Z = Z0 + beta D + delta M (M = G L G), written straight into the
 * eigen-solver's scaled triangle.
 *
 * The general entry (`trailingEigenpairs` on a formed Z) costs three passes over n^2
 * entries besides the solve: forming Z, the solver's finiteness-and-maximum scan, and
 * its scaled copy of the stored triangle, which reads the other triangle column-wise
 * to symmetrise. Z is symmetric to the bit by construction (Z0, D and M are), so one
 * pass over the stored triangle forms it and finds its largest entry, and a second
 * pass over that triangle scales it by the same power of two with the same arithmetic
 * as the solver's copy: the eigen-solver then sees the same bits, and the fit stays
 * the same to the last bit (tested against the general entry on Z formed whole, which
 * a zero or non-finite Z still takes). At n = 483 this saved about 2 ms of a 25-35 ms
 * solve, and an n x n allocation per outer iteration.
 */
import type { Matrix } from "../../core/matrix.js";
import { type Eigenpairs, trailingEigenpairsOfScaled } from "../../linalg/eigen/symmetricEigen.js";

/**
 * The k smallest eigenpairs of Z = Z0 + diag(beta Dd) + delta M (M null: no graph
 * term), with `work` (n^2 entries) as the solver's workspace. Null when Z is zero or
 * not finite: the caller then takes the general entry, which handles the one and
 * reports the other.
 */
export function trailingEigenpairsOfZ(
  work: Float64Array,
  Z0: Matrix,
  beta: number,
  Dd: Float64Array,
  delta: number,
  M: Matrix | null,
  k: number,
): Eigenpairs | null {
  const n = Z0.rows;
  const z0 = Z0.data;
  const md = M === null || delta === 0 ? null : M.data;
  let anrm = 0;
  // The entries in the order of operations of the general path (Z0, then the diagonal
  // term, then delta M), so that each is the same double.
  for (let j = 0; j < n; j++) {
    const row = j * n;
    for (let i = j; i < n; i++) {
      const p = row + i;
      let v = z0[p];
      if (i === j) v += beta * Dd[j];
      if (md !== null) v += delta * md[p];
      work[p] = v;
      const a = Math.abs(v);
      // NaN fails both tests; the general path reports it.
      if (!(a <= anrm)) {
        if (!(a > anrm) || a === Number.POSITIVE_INFINITY) return null;
        anrm = a;
      }
    }
  }
  if (anrm === 0) return null;
  // symmetricEigen's scaling (max |z_ij| in [1/2, 1), by 2^exponent in two exact
  // steps) with its symmetrising average, which is the identity on equal entries.
  const exponent = -(Math.floor(Math.log2(anrm)) + 1);
  const half = Math.trunc(exponent / 2);
  const f1 = 2 ** half;
  const f2 = 2 ** (exponent - half);
  for (let j = 0; j < n; j++) {
    const row = j * n;
    for (let i = j; i < n; i++) {
      const v = work[row + i];
      work[row + i] = (0.5 * v + 0.5 * v) * f1 * f2;
    }
  }
  return trailingEigenpairsOfScaled(work, n, exponent, k);
}
