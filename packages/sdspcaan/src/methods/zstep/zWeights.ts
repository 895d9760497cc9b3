/**
 * The weights of the terms of SDSPCAAN's Z (Eq. SDSPCAAN-Q)
 *
 *   Z = -G - alpha Y Y^T + beta D + delta G L G,     G = X X^T,
 *
 * computed and checked in one place. With weighting "scaled" (the paper's) the user's
 * multipliers a, b, c are scaled by traces (SPEC section 1): alpha = a Tr(G)/Tr(YY^T)
 * (Tr(YY^T) = n for one-hot Y) once per fit, beta = b Tr(G)/Tr(D) for the current D and
 * delta = c Tr(G)/Tr(G L G) for the current graph, once per outer iteration; with
 * "absolute" they are the weights. Tr(G L G) comes with the graph's term from the Z
 * solver (`ZGraph.trM`), which computes it its own way (zSolvers.ts).
 */
import { ValidationError } from "../../core/errors.js";
import type { ZGraph } from "./zSolvers.js";

/**
 * Largest trace a term of Z may have. Every term of Z is positive semidefinite, so
 * its entries are bounded by its trace; keeping the traces below 1e150 keeps Z and
 * the squares the eigen-solver forms of it finite.
 */
const Z_TERM_LIMIT = 1e150;

/** What the weights are made from: the method's multipliers and how they are read. */
export interface ZWeightSettings {
  /** The method, for messages. */
  readonly owner: string;
  readonly alpha: number;
  readonly beta: number;
  readonly delta: number;
  readonly weighting: "scaled" | "absolute";
}

/** beta and delta for one outer iteration. */
export interface IterationWeights {
  readonly beta: number;
  readonly delta: number;
}

/** Z's weights over a fit: alpha fixed, beta and delta per outer iteration (`at`). */
export class ZWeights {
  /** The label term's weight alpha. */
  readonly alpha: number;
  private readonly s: ZWeightSettings;
  /** Tr(G) = Tr(X X^T) of the centred training data. */
  private readonly trG: number;
  private readonly n: number;

  /** For n training samples whose centred Gram matrix has trace `trG`. */
  constructor(s: ZWeightSettings, trG: number, n: number) {
    this.s = s;
    this.trG = trG;
    this.n = n;
    this.alpha = s.weighting === "scaled" ? (s.alpha * trG) / n : s.alpha;
  }

  /**
   * beta for the diagonal Dd of D, and delta for the graph term `graph` (0 without
   * one), after checking that no term of Z overflows: a clear error naming the user's
   * option (or X when the data's own terms are too large) rather than the eigen-solver's
   * report of a non-finite matrix.
   */
  at(Dd: Float64Array, graph: ZGraph | null): IterationWeights {
    const { s, trG } = this;
    const scaled = s.weighting === "scaled";
    let sumD = 0;
    for (let i = 0; i < Dd.length; i++) sumD += Dd[i];
    const beta = scaled ? (s.beta * trG) / sumD : s.beta;
    const trM = graph === null ? 0 : graph.trM;
    const delta = graph === null ? 0 : scaled ? (trM > 0 ? (s.delta * trG) / trM : 0) : s.delta;
    this.check(beta, sumD, delta, trM);
    return { beta, delta };
  }

  private check(beta: number, sumD: number, delta: number, trM: number): void {
    const { s, trG } = this;
    const ok = (v: number) => Number.isFinite(v) && Math.abs(v) <= Z_TERM_LIMIT;
    if (!ok(trG) || !ok(trM)) {
      throw new ValidationError(
        "X",
        `${s.owner} cannot form Z for this X: Tr(XX^T) = ${trG.toExponential(2)}${trM > 0 ? ` and Tr(XX^T L XX^T) = ${trM.toExponential(2)}` : ""} exceed ${Z_TERM_LIMIT} in double precision. Rescale X, for example standardise its columns (preprocessing "train-zscore").`,
      );
    }
    const how = s.weighting === "scaled";
    const terms: Array<[string, number, number, string]> = [
      ["alpha", s.alpha, this.alpha * this.n, how ? "alpha = a Tr(XX^T)/Tr(YY^T)" : "alpha"],
      ["beta", s.beta, beta * sumD, how ? "beta = b Tr(XX^T)/Tr(D)" : "beta"],
      ["delta", s.delta, delta * trM, how ? "delta = c Tr(XX^T)/Tr(XX^T L XX^T)" : "delta"],
    ];
    for (const [name, given, term, what] of terms) {
      if (!ok(term)) {
        throw new ValidationError(
          name,
          `The '${name}' parameter of ${s.owner} is too large for this data: with ${name} = ${given} the weighted term of Z (${what}) reaches ${term.toExponential(2)}, beyond ${Z_TERM_LIMIT}, and the eigen-problem overflows double precision. Use a smaller '${name}' (the paper's grid is 0.01 to 100).`,
        );
      }
    }
  }
}
