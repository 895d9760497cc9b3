/**
 * One chunk's part of U^T L U on operands that live in a WebAssembly arena.
 *
 * U^T L U (r x r, for the n x r factor U of a large fit and its graph Laplacian L) is
 * summed over chunks of LAPLACIAN_CHUNK_ROWS rows of L: the chunk's (L_c U)^T by the
 * sparse kernel, then the lower blocks of U_c^T (L_c U) by the GEMM kernel
 * (methods/zstep/zPreconditioner.ts, laplacianProjection). Done with ordinary arrays, every
 * chunk copies both r x chunk operands into the module and, for a helper thread's
 * strip, into the helper's memory as well: at 60,000 x 784 that moved about 1.3 GB
 * per U^T L U. Here a thread that holds all of U in its own memory computes a whole
 * chunk's part there (methods/zstep/gramOperator.ts, laplacianGram; the helper's
 * "laplacianChunk" request), and only the CSR rows and the r x r part move. The kernel
 * calls are laplacianProjection's, on the same operands (a transpose is exact), so
 * each part has the same bits, and the caller adds the parts in chunk order.
 */

import { csrColumnsTransposedWasm } from "./sparseWasm.js";
import { lowerBlockRowsInArena } from "./symmetricProducts.js";
import type { WasmArena } from "./wasm/backend.js";

/** Rows of L per chunk of U^T L U (bounded temporaries: chunk x r doubles). */
export const LAPLACIAN_CHUNK_ROWS = 4096;

/** The block size of the lower-block GEMM (gemmABtLowerBlocks' default). */
const LOWER_BLOCK = 64;

/**
 * The chunk's part of U^T L U: the blocks on and below the block diagonal of
 * U_c^T (L_c U) (r x r, the blocks above hold zeros), for the rows first to
 * first + count - 1 of L (CSR, row pointers from 0, all n columns) and U (n x r,
 * compact, r even) at byte offset `u` of `arena`. Returns a view of the arena's
 * memory, valid until the caller releases the arena to a mark taken before this call,
 * or null when the arena has no room.
 */
export function laplacianChunkPart(
  arena: WasmArena,
  u: number,
  r: number,
  first: number,
  count: number,
  rowPtr: Int32Array,
  colIdx: Int32Array,
  values: Float64Array,
): Float64Array | null {
  // (L_c U)^T, r x count.
  const LUt = csrColumnsTransposedWasm(arena, rowPtr, colIdx, values, count, u, r * 8, r);
  if (LUt === null) return null;
  const pb = LUt.byteOffset;
  const ptrs = arena.allocAll([r * count, r * r]);
  if (ptrs === null) return null;
  const [pa, pc] = ptrs;
  // U_c^T, r x count: the rows of the chunk, transposed by the module.
  arena.kernels.transpose(u + first * r * 8, count, r, pa);
  const f = arena.f64;
  f.fill(0, pc >> 3, (pc >> 3) + r * r);
  lowerBlockRowsInArena(arena, r, count, pa, pb, pc, 0, r, LOWER_BLOCK);
  return f.subarray(pc >> 3, (pc >> 3) + r * r);
}
