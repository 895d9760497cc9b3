/**
 * Back-transformation of eigenvectors of the tridiagonal T = Q^T A Q into eigenvectors
 * of A: Z <- Q Z, with Q = H_0 H_1 ... H_{n-2} from the Householder reduction
 * (householder.ts).
 *
 * LAPACK counterpart: dormtr with side = 'L', uplo = 'L', trans = 'N': blocks of
 * BACK_PANEL reflectors, last block first as in dormqr, each applied in the compact-WY
 * form I - V S V^T built by dlarft (forward, columnwise) and applied as dlarfb does,
 * through the GEMM kernel. Deliberate difference: the vectors are held as rows (a k x n
 * row-major array whose row j is the j-th vector, so that every update of a vector
 * streams through contiguous memory), so the update is applied to Z^T from the right.
 *
 * Kernels. On the WebAssembly backend (../kernels/wasm/backend.ts) the vectors, a copy of
 * the reflectors and every work array live in the module's memory, and the module's
 * `applyReflectorBlocks` runs the whole loop over the blocks in one call: the explicit
 * V^T, dlarft's recurrence for S, the transposition and the four GEMMs per block, with
 * the operations of the TypeScript loop below on that backend (its GEMMs are the same
 * kernel), so the same bits. `householderLoops` false (EigenStageSettings) runs that
 * TypeScript loop on the wasm backend instead; the TS backend always runs
 * it, with the TypeScript GEMM, and so does any backend whose GEMM is not the module's
 * own (the native kernel, the "fast" backend's), so that the GEMMs run there.
 */
import { gemmABtRaw } from "../kernels/gemm.js";
import { moduleGemmInUse, wasmArena } from "../kernels/wasm/backend.js";
import { type EigenStageSettings, RESIDENT_MIN } from "./constants.js";

/**
 * Block size of the back-transformation (measured: 64 and 96 are not faster). The
 * module's applyReflectorBlocks has the same 32 written in.
 */
const BACK_PANEL = 32;

/**
 * Below this order the module's loop runs even where the arena's GEMM is another (the
 * "fast" backend's): its GEMMs are a small part of the work there, and the module's
 * loop is compiled ahead where the TypeScript loop is interpreted until the JIT has
 * warmed up (a fresh process's first fits).
 */
const MODULE_LOOP_MAX_ORDER = 256;

/** The symmetric tridiagonal T = Q^T A Q and the reflectors defining Q. */
export interface Tridiagonal {
  readonly n: number;
  /** Diagonal of T (length n). */
  readonly diagonal: Float64Array;
  /** Off-diagonal of T (length max(n - 1, 0)): T[i][i+1] = T[i+1][i] = offDiagonal[i]. */
  readonly offDiagonal: Float64Array;
  /** Scalar factors of the reflectors H_i = I - tau_i v_i v_i^T (length max(n - 1, 0)). */
  readonly tau: Float64Array;
  /**
   * The reduced matrix storage: v_i is zero in entries 0..i, one in entry i + 1, and
   * reflectors[i * ld + r] in entries r >= i + 2.
   */
  readonly reflectors: Float64Array;
  readonly ld: number;
}

/**
 * Applies Q = H_0 ... H_{n-2} to k vectors held as rows of `z` (k x n, row-major):
 * z_j <- Q z_j. Reflectors are applied in blocks of BACK_PANEL in the compact-WY form
 * H_b ... H_{b+nb-1} = I - V S V^T (S upper triangular, dlarft forward/columnwise), so
 * each block costs two GEMM calls: M = Z^T V, then Z^T -= (M S^T) V^T.
 */
export function applyReflectors(
  tri: Tridiagonal,
  z: Float64Array,
  k: number,
  settings: EigenStageSettings = {},
): void {
  const n = tri.n;
  if (n - 1 <= 0 || k === 0) return;
  const sizes = [
    k * n,
    BACK_PANEL * n,
    n * BACK_PANEL,
    BACK_PANEL * BACK_PANEL,
    BACK_PANEL * BACK_PANEL,
    k * BACK_PANEL,
    k * BACK_PANEL,
  ];
  const arena = n >= RESIDENT_MIN ? wasmArena() : null;
  const mark = arena?.mark() ?? 0;
  // The module's loop also needs the reflectors and tau in its memory; should that not
  // fit, the TypeScript loop runs on the resident vectors as before (the same bits).
  // Where the arena's GEMM is not the module's own (the native kernel in Node, the
  // "fast" backend's) the TypeScript loop runs too from MODULE_LOOP_MAX_ORDER on: its
  // four GEMMs per block go to that kernel, the module's loop calls the module's own
  // (n = 483, k = 100, AVX-512: 3.6 -> 2.4 ms with the native kernel and the module's
  // bits). With the module's bits either loop gives the same result.
  let inModule =
    arena !== null &&
    (settings.householderLoops ?? true) &&
    (moduleGemmInUse() || n < MODULE_LOOP_MAX_ORDER);
  let ptrs = inModule ? (arena?.allocAll([...sizes, n * n, n - 1]) ?? null) : null;
  if (ptrs === null) {
    inModule = false;
    ptrs = arena?.allocAll(sizes) ?? null;
  }
  if (arena && ptrs) {
    // WebAssembly backend: the vectors and the work arrays live in the module's memory
    // so that every GEMM runs in place.
    arena.pin();
    try {
      const [zw, vt, vrow, vtv, s, m1, m2] = sizes.map((size, i) => arena.view(ptrs[i], size));
      zw.set(z.subarray(0, k * n));
      if (inModule) {
        // The reflectors v_i (entries i + 2 .. n - 1 of row i; the rest is implicit)
        // and tau, compactly with leading dimension n.
        const { reflectors, ld, tau } = tri;
        const refl = arena.view(ptrs[7], n * n);
        for (let i = 0; i + 2 < n; i++) {
          refl.set(reflectors.subarray(i * ld + i + 2, i * ld + n), i * n + i + 2);
        }
        arena.view(ptrs[8], n - 1).set(tau.subarray(0, n - 1));
        arena.kernels.applyReflectorBlocks(
          ptrs[7],
          n,
          n,
          ptrs[8],
          zw.byteOffset,
          k,
          vt.byteOffset,
          vrow.byteOffset,
          vtv.byteOffset,
          s.byteOffset,
          m1.byteOffset,
          m2.byteOffset,
        );
      } else {
        applyReflectorBlocks(tri, zw, k, vt, vrow, vtv, s, m1, m2);
      }
      z.set(zw);
    } finally {
      arena.unpin();
      arena.release(mark);
    }
    return;
  }
  applyReflectorBlocks(
    tri,
    z,
    k,
    new Float64Array(sizes[1]),
    new Float64Array(sizes[2]),
    new Float64Array(sizes[3]),
    new Float64Array(sizes[4]),
    new Float64Array(sizes[5]),
    new Float64Array(sizes[6]),
  );
}

/**
 * The loop over the blocks, last first, in TypeScript: what the module's
 * applyReflectorBlocks does in one call (see the file comment).
 */
function applyReflectorBlocks(
  tri: Tridiagonal,
  z: Float64Array,
  k: number,
  vt: Float64Array,
  vrow: Float64Array,
  vtv: Float64Array,
  s: Float64Array,
  m1: Float64Array,
  m2: Float64Array,
): void {
  const { n, tau, reflectors: a, ld } = tri;
  const nr = n - 1;
  const lastStart = Math.floor((nr - 1) / BACK_PANEL) * BACK_PANEL;
  for (let b0 = lastStart; b0 >= 0; b0 -= BACK_PANEL) {
    const nb = Math.min(BACK_PANEL, nr - b0);
    const off = b0 + 1;
    const len = n - off;
    // V^T of the block, rows explicit (zeros above the unit entry).
    for (let l = 0; l < nb; l++) {
      const row = l * len;
      const i = b0 + l;
      for (let r = 0; r < l; r++) vt[row + r] = 0;
      vt[row + l] = 1;
      const src = i * ld;
      for (let r = l + 1; r < len; r++) vt[row + r] = a[src + off + r];
    }
    // S from tau and V^T V (dlarft): S[0:l, l] = -tau_l S[0:l, 0:l] (V^T v_l).
    gemmABtRaw(nb, nb, len, vt, len, vt, len, vtv, nb);
    s.fill(0);
    for (let l = 0; l < nb; l++) {
      const tl = tau[b0 + l];
      s[l * nb + l] = tl;
      for (let i = 0; i < l; i++) {
        let acc = 0;
        for (let j = i; j < l; j++) acc += s[i * nb + j] * vtv[j * nb + l];
        s[i * nb + l] = -tl * acc;
      }
    }
    // -S, so that the next products accumulate with the right sign.
    for (let i = 0; i < nb * nb; i++) s[i] = -s[i];
    // M1 = Z^T V (k x nb), contraction over the rows the block touches.
    gemmABtRaw(k, nb, len, z.subarray(off), n, vt, len, m1, nb);
    // M2 = M1 (-S)^T, so that Z^T += M2 V^T, i.e. Z -= V S (V^T Z).
    gemmABtRaw(k, nb, nb, m1, nb, s, nb, m2, nb);
    for (let r = 0; r < len; r++) {
      for (let l = 0; l < nb; l++) vrow[r * nb + l] = vt[l * len + r];
    }
    gemmABtRaw(k, len, nb, m2, nb, vrow, nb, z.subarray(off), n, true);
  }
}
