/**
 * The products that split over the kernel helpers (helper.ts): a large GEMM by rows of
 * A (gemm.ts, gemmABtRaw) and the lower blocks of a symmetric product by strips of
 * block rows (symmetricProducts.ts, gemmABtLowerBlocks). Each entry is computed by the
 * same kernel in the same order as on one thread, so the bits are one thread's.
 * setKernelThreads (threads/helperThread.node.ts) registers them with the helpers
 * (helper.ts, setThreadedProducts); the kernels reach them only through that
 * registration, so a bundle without threads (a browser's) does not carry them.
 */
import { gemmABtWasm, THREADS_MIN_WORK } from "./gemm.js";
import {
  type ArenaGemm,
  evenRowBounds,
  type KernelHelper,
  kernelHelpers,
  type ThreadedProducts,
} from "./helper.js";
import { lowerBlockRowsInArena, lowerStripBounds } from "./symmetricProducts.js";
import { ARENA_LIMIT } from "./wasm/backend.js";

type LowerBlocks = ThreadedProducts["lowerBlocks"];

/**
 * The wasm path of gemmABtRaw with the rows of A (and C) split over this thread and
 * the kernel helpers, at even rows (helper.ts, evenRowBounds): every entry is computed
 * by the same kernel in the same order as on one thread, so the bits are those of
 * gemmABtWasm. Only where one thread would run the kernel, i.e. when the whole product
 * fits the arena as gemmABtWasm allocates it; false (nothing done) otherwise or when
 * no helper is registered. A helper that fails has its rows computed here.
 */
const gemmOnThreads: ArenaGemm = (
  arena,
  m,
  n,
  p,
  A,
  lda,
  B,
  ldb,
  C,
  ldc,
  accumulate,
  exact = false,
) => {
  // gemmABtWasm's allocation, rounded up (each block to 16 bytes).
  if (arena.mark() + (m * p + n * p + m * n) * 8 + 48 > ARENA_LIMIT) return false;
  const helpers = kernelHelpers();
  if (helpers.length === 0) return false;
  const bounds = evenRowBounds(m, 1 + helpers.length);
  const parts = bounds.length - 1;
  if (parts < 2) return false;
  splitOverHelpers(
    helpers,
    parts,
    (helper, part) => {
      const r0 = bounds[part];
      helper.startProduct(
        bounds[part + 1] - r0,
        n,
        p,
        A.subarray(r0 * lda),
        lda,
        B,
        ldb,
        accumulate ? C.subarray(r0 * ldc) : null,
        ldc,
        exact,
      );
    },
    (helper, part) => helper.finishProduct(C.subarray(bounds[part] * ldc), ldc),
    (part) => {
      const r0 = bounds[part];
      const rows = bounds[part + 1] - r0;
      const Cr = C.subarray(r0 * ldc);
      const Ar = A.subarray(r0 * lda);
      if (!gemmABtWasm(arena, rows, n, p, Ar, lda, B, ldb, Cr, ldc, accumulate, exact)) {
        throw new Error(
          "gemmOnThreads: no room in the arena for a part of a product that fits whole.",
        );
      }
    },
  );
  return true;
};

/**
 * Parts 1.. of a product on the kernel helpers (helper h - 1 takes part h) while this
 * thread computes part 0 (`local(0)`); a part whose helper fails to start or to answer
 * is computed here too. Every started helper is waited for and all are released before
 * an error of this thread's parts is thrown, so that no helper is left busy.
 */
export function splitOverHelpers(
  helpers: readonly KernelHelper[],
  parts: number,
  start: (helper: KernelHelper, part: number) => void,
  finish: (helper: KernelHelper, part: number) => void,
  local: (part: number) => void,
): void {
  const started: boolean[] = [];
  for (let part = 1; part < parts; part++) {
    try {
      start(helpers[part - 1], part);
      started.push(true);
    } catch {
      started.push(false);
    }
  }
  let failure: unknown = null;
  const here = (part: number) => {
    if (failure !== null) return;
    try {
      local(part);
    } catch (error) {
      failure = error;
    }
  };
  here(0);
  for (let part = 1; part < parts; part++) {
    let done = false;
    if (started[part - 1]) {
      try {
        finish(helpers[part - 1], part);
        done = true;
      } catch {
        // Computed here below.
      }
    }
    if (!done) here(part);
  }
  for (const h of helpers) h.release();
  if (failure !== null) throw failure;
}

/**
 * gemmABtLowerBlocks' block rows split over this thread and the kernel helpers, for
 * A and B (n x p, leading dimensions lda and ldb) already copied into `arena` at byte
 * offsets pa and pb and C (n x n, compact, zeroed) at pc: strip h >= 1 on a helper,
 * rows [bounds[h], bounds[h + 1]) of C's columns [0, bounds[h + 1]) in one product
 * (lowerStripBounds), strip 0 here block by block. False (nothing done) when the
 * product is not worth splitting (lowerStripsWorthIt) or no helper is registered.
 */
const lowerBlocksOnThreads: LowerBlocks = (arena, n, p, A, lda, B, ldb, pa, pb, pc, block) => {
  if (!lowerStripsWorthIt(n, p, block)) return false;
  const helpers = kernelHelpers();
  if (helpers.length === 0) return false;
  const bounds = lowerStripBounds(n, 1 + helpers.length, block);
  const f = arena.f64;
  const oc = pc >> 3;
  splitOverHelpers(
    helpers,
    bounds.length - 1,
    (helper, h) => {
      const r0 = bounds[h];
      const r1 = bounds[h + 1];
      helper.startProduct(r1 - r0, r1, p, A.subarray(r0 * lda), lda, B, ldb, null, r1);
    },
    (helper, h) => {
      const r0 = bounds[h];
      const r1 = bounds[h + 1];
      const strip = new Float64Array((r1 - r0) * r1);
      helper.finishProduct(strip, r1);
      for (let i = r0; i < r1; i++) {
        f.set(strip.subarray((i - r0) * r1, (i - r0 + 1) * r1), oc + i * n);
      }
    },
    (h) => lowerBlockRowsInArena(arena, n, p, pa, pb, pc, bounds[h], bounds[h + 1], block),
  );
  return true;
};

/**
 * Whether gemmABtLowerBlocks splits its block rows over the kernel helpers: enough
 * work (half of n x n x p) to hide the requests, at least two block rows, and operands
 * small enough that a helper's copy of B's rows (up to n x p) stays modest, since a
 * WebAssembly memory never shrinks (the n-long Gram matrix of a thin SVD, d x d from
 * n x d, stays on one thread: its copy would be the whole data).
 */
function lowerStripsWorthIt(n: number, p: number, block: number): boolean {
  return (
    block % 4 === 0 &&
    n >= 2 * block &&
    (n * n * p) / 2 >= THREADS_MIN_WORK &&
    n * p <= LOWER_STRIPS_MAX_COPY
  );
}

/** At most this many elements of B (64 MiB) copied for a helper's strip. */
const LOWER_STRIPS_MAX_COPY = 2 ** 23;

/** What setKernelThreads registers (helper.ts, setThreadedProducts). */
export const threadedProducts: ThreadedProducts = {
  gemm: gemmOnThreads,
  lowerBlocks: lowerBlocksOnThreads,
};
