/**
 * Constants shared by the routines of the tridiagonal stage (householder.ts,
 * backTransform.ts, bisection.ts, inverseIteration.ts, ql.ts, divideAndConquer.ts):
 * LAPACK's dlamch values for IEEE double precision, the matrix order below which that
 * stage keeps its work arrays in plain TypeScript memory even on the WebAssembly
 * backend, and the settings that choose between its loops in the module and in
 * TypeScript.
 */

/** dlamch('E'): relative machine precision, the unit roundoff 2^-53. */
export const EPS = 2 ** -53;
/** dlamch('P'): eps * base, the spacing of doubles in [1, 2). */
export const ULP = 2 ** -52;
/** dlamch('S'): the smallest normal double, so that 1 / SAFMIN does not overflow. */
export const SAFMIN = 2 ** -1022;

/**
 * Below this order the reduction, the back-transformation and inverse iteration stay
 * in TypeScript even on the wasm backend.
 */
export const RESIDENT_MIN = 8;

/**
 * Internal settings of the dense eigen-solver's stages, passed down explicitly from the
 * driver (symmetricEigen's `stages` option) to the routines that read them. Not
 * options a user sets: they choose between two forms of the same computation.
 */
export interface EigenStageSettings {
  /**
   * On the wasm backend the unblocked Householder reduction and the back-transformation
   * run in the module (kernels `tridiagonalizeUnblocked` and `applyReflectorBlocks`),
   * which perform the same IEEE operations as the TypeScript loops they replace; false
   * runs those TypeScript loops instead (still with the module's symv, combine2 and
   * GEMM, as before the loops moved), so that a test can compare the two bit for bit.
   * Default true.
   */
  readonly householderLoops?: boolean;
  /**
   * On the wasm backend the loops of bisection and inverse iteration run in the module
   * (kernels `bisect` and `inverseIteration`), with the TypeScript loops' operations;
   * false runs those TypeScript loops (still with the module's Sturm counts and
   * Gram-Schmidt products), for the same comparison. Default true.
   */
  readonly tridiagonalLoops?: boolean;
  /**
   * On the "fast" backend with the native kernels, each panel of the blocked reduction
   * runs in one native call (the arena's `latrd`) with the TypeScript loop's operations
   * around the same native kernels, so the same bits; false runs that TypeScript loop,
   * for a test to compare. Default true.
   */
  readonly nativePanels?: boolean;
}
