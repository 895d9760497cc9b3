/**
 * M = G L G for a dense symmetric G (n x n) and a sparse symmetric L: the graph
 * term X X^T L X X^T of SDSPCAAN's Z (Eq. SDSPCAAN-Q) with G = X X^T.
 *
 * L G costs nnz(L) n (cheap, L has ~2m + 1 non-zeros per row); the dense product
 * G (L G) is the n^3 part, and since M is symmetric only the blocks on and below the
 * diagonal are computed (half the flops) and then mirrored, which also makes M
 * exactly symmetric.
 */
import { Matrix, transposeInto } from "../core/matrix.js";
import { gemmABtLowerBlocks } from "./kernels/symmetricProducts.js";
import type { CsrMatrix } from "./sparse.js";

const BLOCK = 64;

/**
 * Scratch for sandwichProduct's two n x n temporaries (L G and its transpose), for a
 * caller that forms G L G once per iteration of a loop: 3.7 MB less to allocate and
 * collect per call at n = 483. Sized on first use; any n is accepted.
 */
export interface SandwichScratch {
  lg: Matrix | null;
  gl: Matrix | null;
}

/** A scratch holder for sandwichProduct (empty until its first call). */
export function sandwichScratch(): SandwichScratch {
  return { lg: null, gl: null };
}

export function sandwichProduct(G: Matrix, L: CsrMatrix, scratch?: SandwichScratch): Matrix {
  const n = G.rows;
  if (G.cols !== n || L.rows !== n || L.cols !== n) {
    throw new RangeError(
      `sandwichProduct: G is ${G.rows} x ${G.cols} and L is ${L.rows} x ${L.cols}; both must be ${n} x ${n}.`,
    );
  }
  // (G L)^T = L G because both are symmetric; row j of GL is needed as the second
  // operand of the A B^T kernel, so form LG and transpose it once.
  let GL: Matrix;
  if (scratch === undefined) {
    GL = L.multiplyMatrix(G).transpose();
  } else {
    if (scratch.lg?.rows !== n) {
      scratch.lg = new Matrix(n, n);
      scratch.gl = new Matrix(n, n);
    }
    const LG = L.multiplyMatrix(G, scratch.lg as Matrix);
    GL = scratch.gl as Matrix;
    transposeInto(LG.data, n, n, GL.data);
  }
  const M = new Matrix(n, n);
  const m = M.data;
  gemmABtLowerBlocks(n, n, G.data, n, GL.data, n, m, n, BLOCK);
  // Average the two computed triangles of each diagonal block, then mirror the lower
  // triangle: M is symmetric to the last bit.
  for (let i = 0; i < n; i++) {
    const blockStart = i - (i % BLOCK);
    for (let j = blockStart; j < i; j++) {
      const v = 0.5 * (m[i * n + j] + m[j * n + i]);
      m[i * n + j] = v;
    }
    for (let j = 0; j < i; j++) m[j * n + i] = m[i * n + j];
  }
  return M;
}
