/**
 * The paper's base classifier (SPEC section 4): 1-nearest neighbour on the
 * standardised Euclidean distance. Each projected feature is z-scored with the
 * TRAINING projection's mean and standard deviation (divisor n - 1, as MATLAB's
 * `fitcknn(..., 'Standardize', 1)`), queries get the same affine map, and the
 * nearest training row wins, ties going to the lowest training index.
 *
 * Distances are computed block-wise: a block of queries against all training rows
 * through the GEMM kernel in the ||q||^2 + ||t||^2 - 2 q.t form, so memory stays
 * O(blockSize x nTrain) however many samples there are.
 */
import { NotFittedError } from "../core/errors.js";
import type { Matrix, MatrixLike } from "../core/matrix.js";
import { type OptionSchema, resolveOptions } from "../core/options.js";
import { asMatrix, checkWidth, encodeLabels, type Label } from "../core/validate.js";
import { gemmABtRaw } from "../linalg/kernels/gemm.js";
import { Standardizer } from "../linalg/standardizer.js";

/** Options of {@link NearestNeighbour1}. */
export interface NearestNeighbourOptions {
  /** Queries per distance block; memory is about 8 * blockSize * nTrain bytes. */
  blockSize: number;
  /**
   * A feature whose training std is <= stdFloor * (largest std) is treated as
   * constant when the projections are standardised.
   */
  stdFloor: number;
}

const SCHEMA: OptionSchema = {
  blockSize: {
    type: "integer",
    min: 1,
    default: 64,
    doc: "Queries per distance block (memory ~ 8 * blockSize * nTrain bytes).",
  },
  stdFloor: {
    type: "number",
    min: 0,
    max: 1,
    exclusiveMin: false,
    default: 1e-10,
    doc: "Relative std below which a projected feature counts as constant.",
  },
};

/** The affine map applied to training and query rows before measuring distance. */
export type Standardisation = Standardizer;

/**
 * Training statistics of the projected features and which features enter the
 * distance (linalg/standardizer.ts, with a relative floor). SPEC 4 says a zero std
 * counts as 1. For a feature that is exactly constant over the training rows that
 * is the same as leaving it out: every training row then has the same value, so the
 * feature adds the same amount to the distance from a query to every training row
 * and never changes the nearest one. Leaving it out avoids adding that offset,
 * which would only cost precision. A std that is tiny relative to the largest one
 * (<= stdFloor * max) is round-off left by the projection (e.g. a direction in the
 * null space of the training data): dividing by it would blow that noise up to unit
 * variance and let it decide the neighbours, so such features are left out too
 * (the price: a genuine feature 1e10 times narrower than the widest one is dropped
 * as well). The NumPy reference drops exactly the same features, so both give the
 * same neighbours.
 */
export function standardisation(P: Matrix, stdFloor = 1e-10): Standardisation {
  return Standardizer.fit(P, { method: "1-NN", floor: stdFloor });
}

/** The kept features of P, z-scored: (P[:, kept] - center) / scale. */
export function applyStandardisation(P: Matrix, s: Standardisation): Matrix {
  return s.transform(P, { keptOnly: true });
}

function squaredNorms(A: Matrix): Float64Array {
  const { rows, cols, data } = A;
  const out = new Float64Array(rows);
  for (let i = 0; i < rows; i++) {
    let s = 0;
    const off = i * cols;
    for (let l = 0; l < cols; l++) s += data[off + l] * data[off + l];
    out[i] = s;
  }
  return out;
}

/**
 * Index of the nearest row of T (n x p) for each row of Q (m x p), ties to the
 * lowest index, in plain Euclidean distance.
 *
 * Exactness. The Gram form ||q||^2 + ||t||^2 - 2 q.t is fast but cancels: for
 * near-ties it can order two training rows differently from the direct sum
 * sum_l (q_l - t_l)^2. The result here is defined by the direct sum (the reference
 * brute force, summed in feature order). The Gram value g_j of row j is within
 * e_j = (8p + 32) u (||q||^2 + ||t_j||^2) of the true distance, and that margin
 * also covers the rounding of the direct sum (relative error p u, and
 * d <= 2 (||q||^2 + ||t_j||^2)). So every row with g_j - e_j <= min_l (g_l + e_l)
 * is a candidate, the direct sum is computed for those few only, and the smallest
 * direct sum wins (lowest index on exact ties). Rows outside the candidate set
 * are provably farther, so the answer equals the brute-force one bit for bit.
 */
export function nearestRowIndices(T: Matrix, Q: Matrix, blockSize = 64): Int32Array {
  const n = T.rows;
  const m = Q.rows;
  const p = T.cols;
  if (Q.cols !== p) {
    throw new RangeError(`nearestRowIndices: T has ${p} columns but Q has ${Q.cols}.`);
  }
  const out = new Int32Array(m);
  // No feature left: every training row is at distance 0, so the lowest index wins.
  if (p === 0 || n === 0 || m === 0) return out;
  const tNorm = squaredNorms(T);
  const u = 2 ** -53;
  const gamma = (8 * p + 32) * u;
  const bs = Math.min(blockSize, m);
  const G = new Float64Array(bs * n);
  const t = T.data;
  const q = Q.data;
  for (let q0 = 0; q0 < m; q0 += bs) {
    const b = Math.min(bs, m - q0);
    gemmABtRaw(b, n, p, q.subarray(q0 * p), p, t, p, G, n);
    for (let r = 0; r < b; r++) {
      const qi = (q0 + r) * p;
      let qn = 0;
      for (let l = 0; l < p; l++) qn += q[qi + l] * q[qi + l];
      const g = r * n;
      let upper = Number.POSITIVE_INFINITY;
      for (let j = 0; j < n; j++) {
        const s = qn + tNorm[j];
        const v = s - 2 * G[g + j] + gamma * s;
        if (v < upper) upper = v;
      }
      let best = -1;
      let bestD = Number.POSITIVE_INFINITY;
      for (let j = 0; j < n; j++) {
        const s = qn + tNorm[j];
        if (s - 2 * G[g + j] - gamma * s > upper) continue;
        const tj = j * p;
        let d = 0;
        for (let l = 0; l < p; l++) {
          const diff = q[qi + l] - t[tj + l];
          d += diff * diff;
        }
        // best < 0: distances that overflow to +inf still pick the lowest candidate.
        if (d < bestD || best < 0) {
          bestD = d;
          best = j;
        }
      }
      out[q0 + r] = best;
    }
  }
  return out;
}

interface FittedNN<L extends Label> {
  standardisation: Standardisation;
  train: Matrix;
  labels: L[];
  classes: readonly Label[];
}

/**
 * 1-NN on standardised Euclidean distance, as a fitted classifier:
 * `new NearestNeighbour1().fit(Ptrain, ytrain).predict(Pquery)`.
 * Fitting copies what it needs; inputs are never modified.
 */
export class NearestNeighbour1<L extends Label = Label> {
  /** The validated options (defaults filled in). */
  readonly params: Readonly<NearestNeighbourOptions>;
  private state: FittedNN<L> | null = null;

  constructor(options: Partial<NearestNeighbourOptions> = {}) {
    this.params = Object.freeze(
      resolveOptions<NearestNeighbourOptions>("NearestNeighbour1", SCHEMA, options),
    );
  }

  /** Learns the standardisation from the training projection and stores the rows. */
  fit(Ptrain: MatrixLike, ytrain: ArrayLike<L>): this {
    const P = asMatrix(Ptrain, "Ptrain", { minRows: 1 });
    const { classes } = encodeLabels(ytrain, P.rows, "ytrain");
    const s = standardisation(P, this.params.stdFloor);
    this.state = {
      standardisation: s,
      train: applyStandardisation(P, s),
      labels: Array.from(ytrain),
      classes,
    };
    return this;
  }

  private fitted(): FittedNN<L> {
    if (this.state === null) {
      throw new NotFittedError("NearestNeighbour1");
    }
    return this.state;
  }

  /** Index (into the training rows) of the nearest training row of each query. */
  nearestIndices(Pquery: MatrixLike): Int32Array {
    const s = this.fitted();
    const Q = asMatrix(Pquery, "Pquery", { minRows: 0 });
    const d = s.standardisation.dimension;
    checkWidth(Q, "Pquery", d, "features", `NearestNeighbour1 was fitted on ${d} features`);
    return nearestRowIndices(
      s.train,
      applyStandardisation(Q, s.standardisation),
      this.params.blockSize,
    );
  }

  /** The label of the nearest training row of each query. */
  predict(Pquery: MatrixLike): L[] {
    const idx = this.nearestIndices(Pquery);
    const labels = this.fitted().labels;
    return Array.from(idx, (i) => labels[i]);
  }

  /** The training classes in sorted order. */
  get classes(): readonly Label[] {
    return this.fitted().classes;
  }

  /** The training statistics and the features that enter the distance. */
  get standardisation(): Standardisation {
    return this.fitted().standardisation;
  }
}

/** Function form: fit on (Ptrain, ytrain) and predict the labels of Pquery. */
export function nearestNeighbourPredict<L extends Label>(
  Ptrain: MatrixLike,
  ytrain: ArrayLike<L>,
  Pquery: MatrixLike,
  options: Partial<NearestNeighbourOptions> = {},
): L[] {
  return new NearestNeighbour1<L>(options).fit(Ptrain, ytrain).predict(Pquery);
}
