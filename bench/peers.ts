/**
 * The JavaScript peers a user would try for PCA and LDA, run as their documentation
 * shows, each returning its components as our Matrix (d x k) for the principal angles:
 * ml-pca (its default, the SVD of the centred data, and its covariance-matrix method;
 * either computes every component, so one fit serves k = 10 and 50) and DruidJS
 * (`@saehrimnir/druidjs`: PCA by simultaneous power iteration on the covariance with
 * its default tolerance, and LDA, whose projection matrix it keeps local: it is read
 * from the one product X V it makes).
 */
import * as druid from "@saehrimnir/druidjs";
import { PCA as MlPca } from "ml-pca";
import { Matrix } from "../packages/sdspcaan/src/core/matrix.js";

/** One peer's fit on prepared input (conversion to its input format is not timed). */
export interface Peer {
  name: string;
  /** Cases it runs: "pca" (all k from one fit, `ks` columns each) or "pca10", "pca50", "lda". */
  cases: readonly string[];
  prepare(X: Matrix, y: Int32Array): unknown;
  /** The components for each of its cases, from one call. */
  fit(input: unknown, y: Int32Array, k: number): Matrix;
}

function rowsOf(X: Matrix): number[][] {
  return Array.from({ length: X.rows }, (_, i) =>
    Array.from(X.data.subarray(i * X.cols, (i + 1) * X.cols)),
  );
}

function fromDruid(M: druid.Matrix): Matrix {
  const [rows, cols] = M.shape;
  return new Matrix(rows, cols, Float64Array.from(M.values));
}

function mlPca(method: "SVD" | "covarianceMatrix"): Peer {
  return {
    name: method === "SVD" ? "ml-pca" : "ml-pca (covarianceMatrix)",
    cases: ["pca"],
    prepare: (X) => rowsOf(X),
    fit(input, _y, k) {
      const pca = new MlPca(input as number[][], { method });
      // Loadings: one component per row, all d of them (descending).
      const L = pca.getLoadings();
      const d = L.columns;
      const W = new Matrix(d, k);
      for (let j = 0; j < k; j++) for (let i = 0; i < d; i++) W.data[i * k + j] = L.get(j, i);
      return W;
    },
  };
}

const druidPca: Peer = {
  name: "DruidJS",
  cases: ["pca10", "pca50"],
  prepare: (X) => druid.Matrix.from(rowsOf(X)),
  fit(input, _y, k) {
    const pca = new druid.PCA(input as druid.Matrix, { d: k });
    return fromDruid(pca.principal_components());
  },
};

const druidLda: Peer = {
  name: "DruidJS",
  cases: ["lda"],
  prepare: (X) => druid.Matrix.from(rowsOf(X)),
  fit(input, y, k) {
    const X = input as druid.Matrix;
    const d = X.shape[1];
    let V: druid.Matrix | null = null;
    const proto = druid.Matrix.prototype as unknown as { dot(B: druid.Matrix): druid.Matrix };
    const dot = proto.dot;
    proto.dot = function (this: druid.Matrix, B: druid.Matrix) {
      if (B instanceof druid.Matrix && B.shape[0] === d && B.shape[1] === k) V = B;
      return dot.call(this, B);
    };
    try {
      new druid.LDA(X, { labels: Array.from(y), d: k }).transform();
    } finally {
      proto.dot = dot;
    }
    if (V === null) throw new Error("DruidJS LDA: its projection matrix was not seen");
    return fromDruid(V);
  },
};

export const peers: readonly Peer[] = [mlPca("SVD"), mlPca("covarianceMatrix"), druidPca, druidLda];
