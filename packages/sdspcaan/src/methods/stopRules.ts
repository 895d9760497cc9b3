/**
 * The stop tests of the Q-iterations (SPEC section 2, "Stop tests").
 *
 * - "aligned" (default): each column of Q may come out of the eigen-solver with either
 *   sign, so each is compared with the previous column or its negation, whichever is
 *   nearer in L1, then the L1,1 change is compared with tol.
 * - "paper": the raw ||Q - Q0||_{1,1} < tol of Algorithms 1 and 3, as written (a sign
 *   flip of an eigenvector can keep it from ever firing).
 * - "subspace": the chordal distance sqrt(max(0, 2k - 2 ||Q0^T Q||_F^2)) between the
 *   spans, insensitive to signs and to rotations inside clusters.
 */

import type { Matrix } from "../core/matrix.js";
import { multiplyAtB } from "../linalg/kernels/gemm.js";

export type StopRule = "aligned" | "paper" | "subspace";
export const STOP_RULES: readonly StopRule[] = ["aligned", "paper", "subspace"];

/** The change between consecutive iterates under the chosen rule (compare with tol). */
export function iterateChange(Q: Matrix, Q0: Matrix, rule: StopRule): number {
  const n = Q.rows;
  const k = Q.cols;
  const q = Q.data;
  const q0 = Q0.data;
  if (rule === "paper") {
    let s = 0;
    for (let t = 0; t < q.length; t++) s += Math.abs(q[t] - q0[t]);
    return s;
  }
  if (rule === "aligned") {
    let total = 0;
    for (let j = 0; j < k; j++) {
      let minus = 0;
      let plus = 0;
      for (let i = 0; i < n; i++) {
        const a = q[i * k + j];
        const b = q0[i * k + j];
        minus += Math.abs(a - b);
        plus += Math.abs(a + b);
      }
      total += Math.min(minus, plus);
    }
    return total;
  }
  const C = multiplyAtB(Q0, Q);
  let f = 0;
  for (let t = 0; t < C.data.length; t++) f += C.data[t] * C.data[t];
  return Math.sqrt(Math.max(0, 2 * k - 2 * f));
}
