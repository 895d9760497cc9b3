/**
 * A plug-in: Fisherfaces (Belhumeur, Hespanha and Kriegman, 1997), a supervised method
 * the paper does not compare. PCA first keeps a share of the n - c dimensions in which
 * the within-class scatter of n samples in c classes can be non-singular, then LDA
 * finds k <= c - 1 discriminant directions among the PCA scores; W = W_pca W_lda.
 *
 * Plain JavaScript, no build step: `sdspcaan experiment --plugin fisherfaces.mjs
 * --methods sdspcaan,fisherfaces ...` (docs/plugins.md). Importing it registers the
 * method; the module also exports the class and the descriptor for tests.
 */
import { Estimator, LDA, Matrix, PCA } from "sdspcaan";
import { defineMethod, registerMethod } from "sdspcaan/methods";

/** Its options: each with type, range, default and doc; the CLI makes flags of them. */
const OPTIONS = {
  k: {
    type: "integer",
    min: 1,
    default: 2,
    doc: "Number of discriminant directions, k <= c - 1.",
  },
  pcaShare: {
    type: "number",
    min: 0,
    exclusiveMin: true,
    max: 1,
    default: 1,
    doc: "Share of the n - c PCA dimensions kept before LDA (1: Fisherfaces as published).",
  },
};

/** A B, entry by entry in a fixed order (so the same bits on every run). */
function multiply(A, B) {
  const C = new Matrix(A.rows, B.cols);
  for (let i = 0; i < A.rows; i++) {
    for (let l = 0; l < A.cols; l++) {
      const a = A.data[i * A.cols + l];
      for (let j = 0; j < B.cols; j++) C.data[i * B.cols + j] += a * B.data[l * B.cols + j];
    }
  }
  return C;
}

export class Fisherfaces extends Estimator {
  constructor(options = {}) {
    super(FISHERFACES, options);
  }

  /** `data` is prepared training data (centred X, encoded labels); returns W, d x k. */
  fitCore(data, ctx) {
    const { classes, codes } = data.requireLabels(this.displayName);
    const { k, pcaShare } = this.params;
    const p = Math.max(k, Math.min(data.d, Math.round(pcaShare * (data.n - classes.length))));
    // fitPrepared shares the data's cached SVD with every other fit on the same split.
    const pca = new PCA({ k: p }).fitPrepared(data, { signal: ctx.signal });
    const scores = multiply(data.X, pca.components);
    const lda = new LDA({ k }).fit(scores, codes, { signal: ctx.signal });
    ctx.checkAborted();
    return {
      components: multiply(pca.components, lda.components),
      iterations: 0,
      converged: true,
      stopReason: "closed-form",
      solver: "pca+lda",
      warnings: [...pca.fitInfo.warnings, ...lda.fitInfo.warnings],
      details: { pcaDimensions: p },
    };
  }
}

/** The declaration: name, options, the grids that tune pcaShare, and k's bounds. */
export const FISHERFACES = defineMethod({
  name: "fisherfaces",
  displayName: "Fisherfaces",
  summary: "PCA to a share of n - c dimensions, then LDA (Belhumeur et al. 1997); k <= c - 1.",
  supervised: true,
  options: OPTIONS,
  tuned: { pcaShare: { paper: [0.25, 0.5, 0.75, 1], authors: [1], quick: [0.5, 1] } },
  // LDA finds at most c - 1 directions, so the paper's c <= k would leave it no k.
  kBounds: ({ classes }) => ({ minK: 1, maxK: Math.max(1, classes - 1) }),
  create: (options) => new Fisherfaces(options),
});

registerMethod(FISHERFACES);
