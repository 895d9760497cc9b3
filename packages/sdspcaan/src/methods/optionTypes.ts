/**
 * The built-in methods' options as TypeScript types, generated from their declarations
 * (the option specs in each method's file) by scripts/docs/optionTypes.ts (`npm run
 * docs`); do not edit by hand. `XOptions` is what the constructor and
 * `createMethod(name, options)` take (every field optional: its default otherwise);
 * `ResolvedXOptions` is a model's `params`, every default filled in.
 */

/**
 * Options of {@link Baseline} (Baseline, `createMethod("baseline", options)`): every field
 * optional; the method's default otherwise. Out-of-range values throw a ValidationError
 * naming the option.
 */
export interface BaselineOptions {
  /**
   * Subspace dimensionality k (columns of W).
   *
   * Integer in [1, inf); default `10`.
   */
  k?: number;
}

/** {@link BaselineOptions} with every default filled in: a fitted Baseline's `params`. */
export interface ResolvedBaselineOptions extends Required<BaselineOptions> {}

/**
 * Options of {@link PCA} (PCA, `createMethod("pca", options)`): every field optional; the
 * method's default otherwise. Out-of-range values throw a ValidationError naming the
 * option.
 */
export interface PCAOptions {
  /**
   * Subspace dimensionality k (columns of W), or a fraction 0 < k < 1: the fewest
   * components whose explained variance ratios sum to at least k (scikit-learn's
   * n_components=0.95).
   *
   * Integer in [1, inf) or fraction in (0, 1); default `10`.
   */
  k?: number;
  /**
   * Divide each component's scores by its standard deviation (the square root of its
   * explained variance), so that the projected training data have unit variance per column
   * (scikit-learn's whiten).
   *
   * Boolean; default `false`.
   */
  whiten?: boolean;
}

/** {@link PCAOptions} with every default filled in: a fitted PCA's `params`. */
export interface ResolvedPCAOptions extends Required<PCAOptions> {}

/**
 * Options of {@link SDSPCA} (SDSPCA, `createMethod("sdspca", options)`): every field
 * optional; the method's default otherwise. Out-of-range values throw a ValidationError
 * naming the option.
 */
export interface SDSPCAOptions {
  /**
   * Subspace dimensionality k (columns of W).
   *
   * Integer in [1, inf); default `10`.
   */
  k?: number;
  /**
   * Weight of the label term alpha (a multiplier of the paper's trace scale unless
   * weighting is "absolute").
   *
   * Number in [0, inf); default `1`.
   */
  alpha?: number;
  /**
   * Weight of the L2,1 sparsity term beta (a multiplier of the paper's trace scale unless
   * weighting is "absolute").
   *
   * Number in [0, inf); default `1`.
   */
  beta?: number;
  /**
   * Absolute tolerance of the stop test (the paper's tol).
   *
   * Number in (0, inf); default `0.001`.
   */
  tol?: number;
  /**
   * Maximum number of outer iterations (the paper's T).
   *
   * Integer in [1, inf); default `500`.
   */
  maxIter?: number;
  /**
   * Small positive constant against division by zero (the paper's epsilon).
   *
   * Number in (0, inf); default 2^-52 (expert).
   */
  eps?: number;
  /**
   * Stop test: "aligned" (sign-aligned ||Q - Q0||_1,1 < tol), "paper" (raw, as written),
   * "subspace" (chordal distance).
   *
   * `aligned` / `paper` / `subspace`; default `aligned` (expert).
   */
  stopRule?: "aligned" | "paper" | "subspace";
  /**
   * How alpha, beta, delta are read: "scaled" (the paper) multiplies them by
   * Tr(XX^T)/Tr(YY^T), Tr(XX^T)/Tr(D) and Tr(XX^T)/Tr(XX^T L XX^T) with the current D and
   * L; "absolute" uses them as the weights.
   *
   * `scaled` / `absolute`; default `scaled` (expert).
   */
  weighting?: "scaled" | "absolute";
  /**
   * Eigen-solver for Z: "dense" forms the n x n matrix; "lobpcg" applies Z matrix-free with
   * warm-started block LOBPCG (no n x n matrix); "auto" is dense up to 2000 training
   * samples (3000 when k > 20).
   *
   * `auto` / `dense` / `lobpcg`; default `auto` (expert).
   */
  solver?: "auto" | "dense" | "lobpcg";
  /**
   * Seed of the random start vectors of LOBPCG (used only by the lobpcg solver).
   *
   * Integer in [0, inf); default `0` (expert).
   */
  seed?: number;
}

/** {@link SDSPCAOptions} with every default filled in: a fitted SDSPCA's `params`. */
export interface ResolvedSDSPCAOptions extends Required<SDSPCAOptions> {}

/**
 * Options of {@link PCAN} (PCAN, `createMethod("pcan", options)`): every field optional;
 * the method's default otherwise. Out-of-range values throw a ValidationError naming the
 * option.
 */
export interface PCANOptions {
  /**
   * Subspace dimensionality k (columns of W).
   *
   * Integer in [1, inf); default `10`.
   */
  k?: number;
  /**
   * Number of clusters c the graph is driven to; null = the number of classes in y.
   *
   * Integer in [1, inf); default from the data.
   */
  clusters?: number | null;
  /**
   * Number of adaptive neighbours m; null means min(15, n - 2).
   *
   * Integer in [1, inf); default from the data.
   */
  m?: number | null;
  /**
   * Absolute tolerance of the stop test (the paper's tol).
   *
   * Number in (0, inf); default `0.001`.
   */
  tol?: number;
  /**
   * Maximum number of outer iterations (the paper's T).
   *
   * Integer in [1, inf); default `500`.
   */
  maxIter?: number;
  /**
   * Small positive constant against division by zero (the paper's epsilon).
   *
   * Number in (0, inf); default 2^-52 (expert).
   */
  eps?: number;
  /**
   * Upper bound of the rank-control weight lambda (a singleton class can never be split
   * off, so lambda would grow without bound).
   *
   * Number in [1, inf); default 2^100 (expert).
   */
  lambdaCap?: number;
}

/** {@link PCANOptions} with every default filled in: a fitted PCAN's `params`. */
export interface ResolvedPCANOptions extends Required<PCANOptions> {}

/**
 * Options of {@link SPCAN} (SPCAN, `createMethod("spcan", options)`): every field optional;
 * the method's default otherwise. Out-of-range values throw a ValidationError naming the
 * option.
 */
export interface SPCANOptions {
  /**
   * Subspace dimensionality k (columns of W).
   *
   * Integer in [1, inf); default `10`.
   */
  k?: number;
  /**
   * Supervised PCAN ("pcan") or the paper's literal SDSPCAAN-without-its-first-three-terms
   * ("literal").
   *
   * `pcan` / `literal`; default `pcan`.
   */
  formulation?: "pcan" | "literal";
  /**
   * Number of adaptive neighbours m; null means min(15, n - 2).
   *
   * Integer in [1, inf); default from the data.
   */
  m?: number | null;
  /**
   * Absolute tolerance of the stop test (the paper's tol).
   *
   * Number in (0, inf); default `0.001`.
   */
  tol?: number;
  /**
   * Maximum number of outer iterations (the paper's T).
   *
   * Integer in [1, inf); default `500`.
   */
  maxIter?: number;
  /**
   * Small positive constant against division by zero (the paper's epsilon).
   *
   * Number in (0, inf); default 2^-52 (expert).
   */
  eps?: number;
  /**
   * Upper bound of the rank-control weight lambda (a singleton class can never be split
   * off, so lambda would grow without bound).
   *
   * Number in [1, inf); default 2^100 (expert).
   */
  lambdaCap?: number;
  /**
   * Stop test: "aligned" (sign-aligned ||Q - Q0||_1,1 < tol), "paper" (raw, as written),
   * "subspace" (chordal distance).
   *
   * `aligned` / `paper` / `subspace`; default `aligned` (expert).
   */
  stopRule?: "aligned" | "paper" | "subspace";
  /**
   * Eigen-solver for Z: "dense" forms the n x n matrix; "lobpcg" applies Z matrix-free with
   * warm-started block LOBPCG (no n x n matrix); "auto" is dense up to 2000 training
   * samples (3000 when k > 20).
   *
   * `auto` / `dense` / `lobpcg`; default `auto` (expert).
   */
  solver?: "auto" | "dense" | "lobpcg";
  /**
   * Seed of the random start vectors of LOBPCG (used only by the lobpcg solver).
   *
   * Integer in [0, inf); default `0` (expert).
   */
  seed?: number;
}

/** {@link SPCANOptions} with every default filled in: a fitted SPCAN's `params`. */
export interface ResolvedSPCANOptions extends Required<SPCANOptions> {}

/**
 * Options of {@link SDSPCALPP} (SDSPCA-LPP, `createMethod("sdspca-lpp", options)`): every
 * field optional; the method's default otherwise. Out-of-range values throw a
 * ValidationError naming the option.
 *
 * Every option of {@link SDSPCAOptions}, plus `delta` and `m`.
 */
export interface SDSPCALPPOptions extends SDSPCAOptions {
  /**
   * Weight of the graph term delta (a multiplier of the paper's trace scale unless
   * weighting is "absolute").
   *
   * Number in [0, inf); default `1`.
   */
  delta?: number;
  /**
   * Number of adaptive neighbours m; null means min(15, n - 2).
   *
   * Integer in [1, inf); default from the data.
   */
  m?: number | null;
}

/** {@link SDSPCALPPOptions} with every default filled in: a fitted SDSPCALPP's `params`. */
export interface ResolvedSDSPCALPPOptions extends Required<SDSPCALPPOptions> {}

/**
 * Options of {@link SDSPCAAN} (SDSPCAAN, `createMethod("sdspcaan", options)`): every field
 * optional; the method's default otherwise. Out-of-range values throw a ValidationError
 * naming the option.
 *
 * Every option of {@link SDSPCALPPOptions}, plus `lambdaCap`.
 */
export interface SDSPCAANOptions extends SDSPCALPPOptions {
  /**
   * Upper bound of the rank-control weight lambda (a singleton class can never be split
   * off, so lambda would grow without bound).
   *
   * Number in [1, inf); default 2^100 (expert).
   */
  lambdaCap?: number;
}

/** {@link SDSPCAANOptions} with every default filled in: a fitted SDSPCAAN's `params`. */
export interface ResolvedSDSPCAANOptions extends Required<SDSPCAANOptions> {}

/**
 * Options of {@link JPCDA} (JPCDA, `createMethod("jpcda", options)`): every field optional;
 * the method's default otherwise. Out-of-range values throw a ValidationError naming the
 * option.
 */
export interface JPCDAOptions {
  /**
   * Dimension k of the intermediate PCA subspace (output dimension is c).
   *
   * Integer in [1, inf); default `10`.
   */
  k?: number;
  /**
   * Ridge weight eta of ||V||_F^2 (the paper tunes it over 0.01, 0.1, 1, 10, 100).
   *
   * Number in (0, inf); default `1`.
   */
  eta?: number;
  /**
   * Relative change of the objective that stops the outer loop (and of the surrogate for
   * GPI).
   *
   * Number in (0, inf); default `0.001`.
   */
  tol?: number;
  /**
   * Maximum number of outer iterations (the paper's T).
   *
   * Integer in [1, inf); default `500`.
   */
  maxIter?: number;
  /**
   * Maximum generalised-power-iteration steps per outer iteration (300 in the first
   * author's code).
   *
   * Integer in [1, inf); default `300`.
   */
  maxInnerIter?: number;
}

/** {@link JPCDAOptions} with every default filled in: a fitted JPCDA's `params`. */
export interface ResolvedJPCDAOptions extends Required<JPCDAOptions> {}

/**
 * Options of {@link SLNP} (SLNP, `createMethod("slnp", options)`): every field optional;
 * the method's default otherwise. Out-of-range values throw a ValidationError naming the
 * option.
 */
export interface SLNPOptions {
  /**
   * Subspace dimensionality k (columns of W).
   *
   * Integer in [1, inf); default `10`.
   */
  k?: number;
  /**
   * Same-class neighbours per sample m; null means min(15, smallest class count - 2).
   *
   * Integer in [2, inf); default from the data.
   */
  m?: number | null;
  /**
   * Absolute tolerance of the stop test (the paper's tol).
   *
   * Number in (0, inf); default `0.001`.
   */
  tol?: number;
  /**
   * Maximum number of outer iterations (the paper's T).
   *
   * Integer in [1, inf); default `500`.
   */
  maxIter?: number;
  /**
   * Stop test on the change of W: sign-aligned sum |W - W0|, the code's raw sum, or the
   * subspace distance.
   *
   * `aligned` / `paper` / `subspace`; default `aligned`.
   */
  stopRule?: "aligned" | "paper" | "subspace";
  /**
   * Run SLNP on the top-p principal components (the authors' 'SLNP (PCA)' variant, p = the
   * largest k of the grid); null runs it on the data.
   *
   * Integer in [1, inf); default from the data.
   */
  pcaDimensions?: number | null;
}

/** {@link SLNPOptions} with every default filled in: a fitted SLNP's `params`. */
export interface ResolvedSLNPOptions extends Required<SLNPOptions> {}

/**
 * Options of {@link LDA} (LDA, `createMethod("lda", options)`): every field optional; the
 * method's default otherwise. Out-of-range values throw a ValidationError naming the
 * option.
 */
export interface LDAOptions {
  /**
   * Number of discriminant directions k <= c - 1; null means min(c - 1, numerical rank of
   * X).
   *
   * Integer in [1, inf); default from the data.
   */
  k?: number | null;
}

/** {@link LDAOptions} with every default filled in: a fitted LDA's `params`. */
export interface ResolvedLDAOptions extends Required<LDAOptions> {}

/**
 * Options of {@link LPP} (LPP, `createMethod("lpp", options)`): every field optional; the
 * method's default otherwise. Out-of-range values throw a ValidationError naming the
 * option.
 */
export interface LPPOptions {
  /**
   * Subspace dimensionality k (columns of W).
   *
   * Integer in [1, inf); default `10`.
   */
  k?: number;
  /**
   * Nearest neighbours per sample in the graph (at most n - 1), before the union
   * symmetrisation.
   *
   * Integer in [1, inf); default `5`.
   */
  neighbours?: number;
  /**
   * Edge weights: heat kernel exp(-||x_i - x_j||^2 / t) or 0/1.
   *
   * `heat` / `binary`; default `heat`.
   */
  weight?: "heat" | "binary";
  /**
   * Heat-kernel bandwidth t; null means the mean squared distance to the neighbours.
   *
   * Number in (0, inf); default from the data.
   */
  bandwidth?: number | null;
}

/** {@link LPPOptions} with every default filled in: a fitted LPP's `params`. */
export interface ResolvedLPPOptions extends Required<LPPOptions> {}
