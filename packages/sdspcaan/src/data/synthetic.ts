/**
 * A seeded, labelled, high-dimensional data set on which the methods of the paper
 * behave differently (the `demo` command runs the protocol on it). It mixes four
 * ingredients, each aimed at one part of SDSPCAAN's objective:
 *
 * - Class structure lives in a low-dimensional "signal" subspace, and each class
 *   is a union of curved, elongated modes (arcs), so the class means alone
 *   separate the classes poorly while local neighbourhoods do: the adaptive
 *   neighbour graph has something to find that the label term YY^T cannot.
 * - A few "nuisance" directions carry much more variance than the signal and have
 *   nothing to do with the classes, so PCA spends its first components on them.
 * - Signal and nuisance are rotated into all features by a random orthonormal map
 *   and isotropic noise is added, so no single feature is informative on its own
 *   (the Baseline's first k features see a little of everything).
 * - A small fraction of samples are gross outliers (large values on a few
 *   features), which the L2,1 reweighting of SDSPCA/SDSPCAAN down-weights.
 *
 * Browser-safe and deterministic: all randomness comes from `Random(seed)`.
 */
import { ValidationError } from "../core/errors.js";
import { Matrix } from "../core/matrix.js";
import { type OptionSchema, resolveOptions } from "../core/options.js";
import { Random } from "../core/rng.js";
import { orthogonalizeTwice } from "../linalg/orthogonalize.js";

/** Options of {@link makeSyntheticDataset}; every field has a default. */
export interface SyntheticOptions {
  /** Number of samples n. */
  samples: number;
  /** Number of features d. */
  features: number;
  /** Number of classes c (labels 1..c, as balanced as n allows). */
  classes: number;
  /** Curved modes (arcs) per class. */
  modesPerClass: number;
  /** Dimension of the subspace holding the class structure. */
  signalDim: number;
  /** Spread of the mode centres in the signal subspace (std per direction). */
  separation: number;
  /** Length of each arc, in the units of `separation`. */
  arcLength: number;
  /** Number of high-variance directions unrelated to the classes. */
  nuisanceDim: number;
  /** Standard deviation along each nuisance direction. */
  nuisanceScale: number;
  /** Standard deviation of the isotropic noise on every feature (and around each arc). */
  noise: number;
  /** Fraction of samples turned into gross outliers. */
  outlierFraction: number;
  /** Standard deviation of the corruption added to an outlier's corrupted features. */
  outlierScale: number;
  /** Fraction of an outlier's features that are corrupted. */
  outlierFeatures: number;
  /** Seed of every random draw. */
  seed: number;
}

const SCHEMA: OptionSchema = {
  samples: { type: "integer", min: 6, max: 1_000_000, default: 300, doc: "Number of samples n." },
  features: { type: "integer", min: 2, max: 100_000, default: 128, doc: "Number of features d." },
  classes: { type: "integer", min: 2, max: 1000, default: 6, doc: "Number of classes c." },
  modesPerClass: {
    type: "integer",
    min: 1,
    max: 100,
    default: 2,
    doc: "Curved modes (arcs) per class.",
  },
  signalDim: {
    type: "integer",
    min: 1,
    default: 8,
    doc: "Dimension of the subspace holding the class structure.",
  },
  separation: {
    type: "number",
    min: 0,
    default: 4,
    doc: "Spread (std) of the mode centres in the signal subspace.",
  },
  arcLength: {
    type: "number",
    min: 0,
    default: 1.5,
    doc: "Length of each arc in units of the separation.",
  },
  nuisanceDim: {
    type: "integer",
    min: 0,
    default: 12,
    doc: "Number of high-variance directions unrelated to the classes.",
  },
  nuisanceScale: {
    type: "number",
    min: 0,
    default: 8,
    doc: "Standard deviation along each nuisance direction.",
  },
  noise: {
    type: "number",
    min: 0,
    default: 1,
    doc: "Standard deviation of the isotropic noise on every feature.",
  },
  outlierFraction: {
    type: "number",
    min: 0,
    max: 0.5,
    default: 0.03,
    doc: "Fraction of samples turned into gross outliers.",
  },
  outlierScale: {
    type: "number",
    min: 0,
    default: 25,
    doc: "Std of the corruption added to an outlier's corrupted features.",
  },
  outlierFeatures: {
    type: "number",
    min: 0,
    max: 1,
    default: 0.05,
    doc: "Fraction of an outlier's features that are corrupted.",
  },
  seed: { type: "integer", min: 0, max: 2 ** 32 - 1, default: 0, doc: "Seed of every draw." },
};

/** The options schema (for documentation and CLI help). */
export const SYNTHETIC_SCHEMA: OptionSchema = SCHEMA;

/** A generated data set and how it was made. */
export interface SyntheticDataset {
  /** n x d, samples as rows. */
  readonly X: Matrix;
  /** Class labels 1..c, one per row. */
  readonly y: number[];
  /** The options used, defaults filled in (enough to regenerate the data exactly). */
  readonly options: Readonly<SyntheticOptions>;
  /** Rows that were turned into outliers, ascending. */
  readonly outliers: readonly number[];
}

/**
 * Columns of a d x r matrix with orthonormal columns, from Gaussian vectors
 * orthogonalised against the columns so far (orthogonalizeTwice).
 */
function randomOrthonormalColumns(rng: Random, d: number, r: number): Matrix {
  const B = new Matrix(d, r);
  const b = B.data;
  const v = new Float64Array(d);
  for (let j = 0; j < r; j++) {
    for (;;) {
      for (let i = 0; i < d; i++) v[i] = rng.normal();
      const norm = orthogonalizeTwice(v, B, j);
      // A draw almost inside the span so far would lose digits; draw again.
      if (norm > 1e-6) {
        for (let i = 0; i < d; i++) b[i * r + j] = v[i] / norm;
        break;
      }
    }
  }
  return B;
}

/** A random unit vector of length `dim`. */
function unitVector(rng: Random, dim: number): Float64Array {
  const u = new Float64Array(dim);
  for (;;) {
    let norm = 0;
    for (let i = 0; i < dim; i++) {
      u[i] = rng.normal();
      norm += u[i] * u[i];
    }
    norm = Math.sqrt(norm);
    if (norm > 1e-12) {
      for (let i = 0; i < dim; i++) u[i] /= norm;
      return u;
    }
  }
}

/**
 * Generates the demo data set (see the file comment). Unknown or out-of-range
 * options throw a ValidationError naming the option. Signal plus nuisance
 * directions must fit in the features: signalDim + nuisanceDim <= features.
 */
export function makeSyntheticDataset(options: Partial<SyntheticOptions> = {}): SyntheticDataset {
  const o = resolveOptions<SyntheticOptions>("makeSyntheticDataset", SCHEMA, options);
  const { samples: n, features: d, classes: c, modesPerClass, signalDim, nuisanceDim } = o;
  if (signalDim + nuisanceDim > d) {
    throw new ValidationError(
      "signalDim",
      `signalDim + nuisanceDim must be at most 'features' = ${d}. Got ${signalDim} + ${nuisanceDim} = ${signalDim + nuisanceDim} instead.`,
    );
  }
  if (n < c) {
    throw new ValidationError(
      "samples",
      `The 'samples' option must be at least the number of classes (${c}) so that every class has a sample. Got ${n} instead.`,
    );
  }
  const rng = new Random(o.seed);
  const r = signalDim + nuisanceDim;
  const basis = randomOrthonormalColumns(rng, d, r);

  // Each mode: a centre, the arc's direction u and its bending direction v.
  const modes = c * modesPerClass;
  const centres: Float64Array[] = [];
  const along: Float64Array[] = [];
  const bend: Float64Array[] = [];
  for (let q = 0; q < modes; q++) {
    const centre = new Float64Array(signalDim);
    for (let i = 0; i < signalDim; i++) centre[i] = o.separation * rng.normal();
    centres.push(centre);
    along.push(unitVector(rng, signalDim));
    bend.push(unitVector(rng, signalDim));
  }

  // Balanced classes in a random row order.
  const order = rng.permutation(n);
  const y = new Array<number>(n);
  const modeOf = new Int32Array(n);
  for (let t = 0; t < n; t++) {
    const row = order[t];
    const cls = t % c;
    y[row] = cls + 1;
    modeOf[row] = cls * modesPerClass + (Math.floor(t / c) % modesPerClass);
  }

  const X = new Matrix(n, d);
  const latent = new Float64Array(r);
  const half = 0.5 * o.arcLength * o.separation;
  for (let row = 0; row < n; row++) {
    const q = modeOf[row];
    const t = 2 * rng.uniform() - 1;
    const centre = centres[q];
    const u = along[q];
    const v = bend[q];
    for (let i = 0; i < signalDim; i++) {
      // A parabolic arc: position t along u, bent by t^2 towards v.
      latent[i] = centre[i] + half * (t * u[i] + t * t * v[i]) + o.noise * rng.normal();
    }
    for (let i = 0; i < nuisanceDim; i++) latent[signalDim + i] = o.nuisanceScale * rng.normal();
    const off = row * d;
    for (let f = 0; f < d; f++) {
      let s = 0;
      const bo = f * r;
      for (let i = 0; i < r; i++) s += basis.data[bo + i] * latent[i];
      X.data[off + f] = s + o.noise * rng.normal();
    }
  }

  const nOutliers = Math.round(o.outlierFraction * n);
  const outlierRows = Array.from(rng.permutation(n).subarray(0, nOutliers)).sort((a, b) => a - b);
  const corrupted = Math.max(1, Math.round(o.outlierFeatures * d));
  for (const row of outlierRows) {
    const feats = rng.permutation(d).subarray(0, corrupted);
    for (const f of feats) X.data[row * d + f] += o.outlierScale * rng.normal();
  }

  return { X, y, options: Object.freeze({ ...o }), outliers: outlierRows };
}
