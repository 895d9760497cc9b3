/**
 * All eigenvalues, and optionally eigenvectors, of a symmetric tridiagonal T by
 * implicit QL with Wilkinson shifts, in the form of EISPACK's tql2.
 *
 * LAPACK counterparts: dsteqr with compz = 'I' (with vectors) and dsterf (values
 * only, which LAPACK does with a root-free variant; here the same iteration runs
 * without vectors). Used for values-only problems and for the leaves of divide and
 * conquer.
 *
 * Deliberate differences from dsteqr: always QL (dsteqr picks QL or QR per block from
 * the sizes of its end entries); tql2's convergence test |e_m| <= ulp max_l (|d_l| +
 * |e_l|) over the rows processed so far (dsteqr: e_m^2 <= eps^2 |d_m d_{m+1}| + safmin);
 * no scaling of blocks near overflow or underflow (the driver scales A by a power of
 * two instead); the eigenvalues are returned unsorted; after 30 n sweeps in all (as
 * dsteqr's limit) a ConvergenceError is thrown instead of info > 0. Eigenvectors are
 * held as rows of z, and each rotation touches only the columns its two rows can be
 * non-zero in.
 */
import { ConvergenceError } from "../../core/errors.js";
import { ULP } from "./constants.js";

/**
 * All eigenvalues of T, and optionally its eigenvectors as rows of z (n x n, which
 * must hold the identity on entry), by implicit QL with Wilkinson shifts (EISPACK
 * tql2). Returns the eigenvalues unsorted; the caller sorts and permutes.
 * Rows of z only ever mix with their neighbours inside an unreduced block, so each
 * rotation touches the column range those rows can be non-zero in.
 */
export function tridiagonalQL(d: Float64Array, eIn: Float64Array, z: Float64Array | null): void {
  const n = d.length;
  if (n <= 1) return;
  const e = new Float64Array(n);
  e.set(eIn.subarray(0, n - 1));
  e[n - 1] = 0;
  const lo = new Int32Array(n);
  const hi = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    lo[i] = i;
    hi[i] = i + 1;
  }
  let f = 0;
  let tst1 = 0;
  let iterations = 0;
  const maxIterations = 30 * n;
  for (let l = 0; l < n; l++) {
    tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
    let m = l;
    while (m < n - 1) {
      if (Math.abs(e[m]) <= ULP * tst1) break;
      m++;
    }
    if (m > l) {
      do {
        if (++iterations > maxIterations) {
          throw new ConvergenceError(
            `The implicit QL iteration did not converge within ${maxIterations} sweeps (a non-finite entry in the matrix?).`,
          );
        }
        let g = d[l];
        let p = (d[l + 1] - g) / (2 * e[l]);
        let r = Math.hypot(p, 1);
        if (p < 0) r = -r;
        d[l] = e[l] / (p + r);
        d[l + 1] = e[l] * (p + r);
        const dl1 = d[l + 1];
        let h = g - d[l];
        for (let i = l + 2; i < n; i++) d[i] -= h;
        f += h;
        p = d[m];
        let c = 1;
        let c2 = c;
        let c3 = c;
        const el1 = e[l + 1];
        let s = 0;
        let s2 = 0;
        for (let i = m - 1; i >= l; i--) {
          c3 = c2;
          c2 = c;
          s2 = s;
          g = c * e[i];
          h = c * p;
          r = Math.hypot(p, e[i]);
          e[i + 1] = s * r;
          s = e[i] / r;
          c = p / r;
          p = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          if (z !== null) {
            const r0 = i * n;
            const r1 = r0 + n;
            const from = Math.min(lo[i], lo[i + 1]);
            const to = Math.max(hi[i], hi[i + 1]);
            lo[i] = lo[i + 1] = from;
            hi[i] = hi[i + 1] = to;
            for (let q = from; q < to; q++) {
              const zi = z[r0 + q];
              const zi1 = z[r1 + q];
              z[r1 + q] = s * zi + c * zi1;
              z[r0 + q] = c * zi - s * zi1;
            }
          }
        }
        p = (-s * s2 * c3 * el1 * e[l]) / dl1;
        e[l] = s * p;
        d[l] = c * p;
      } while (Math.abs(e[l]) > ULP * tst1);
    }
    d[l] += f;
    e[l] = 0;
  }
}
