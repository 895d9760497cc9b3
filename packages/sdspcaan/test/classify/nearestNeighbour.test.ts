import { readFileSync } from "node:fs";
import fc from "fast-check";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { balancedAccuracy } from "#internal/classify/metrics.js";
import {
  applyStandardisation,
  NearestNeighbour1,
  nearestNeighbourPredict,
  nearestRowIndices,
  standardisation,
} from "#internal/classify/nearestNeighbour.js";
import { NotFittedError, ValidationError } from "#internal/core/errors.js";
import { Matrix } from "#internal/core/matrix.js";
import { Random } from "#internal/core/rng.js";
import { inputs } from "../helpers/properties.js";

function randomMatrix(rows: number, cols: number, seed: number): Matrix {
  const rng = new Random(seed);
  const m = new Matrix(rows, cols);
  for (let i = 0; i < m.data.length; i++) m.data[i] = rng.normal();
  return m;
}

/** Direct brute force: standardise like the classifier, then scan every training row. */
function bruteForceIndices(T: Matrix, Q: Matrix): Int32Array {
  const s = standardisation(T);
  const A = applyStandardisation(T, s);
  const B = applyStandardisation(Q, s);
  const p = A.cols;
  const out = new Int32Array(Q.rows);
  for (let i = 0; i < Q.rows; i++) {
    let best = 0;
    let bestD = Number.POSITIVE_INFINITY;
    for (let j = 0; j < A.rows; j++) {
      let d = 0;
      for (let l = 0; l < p; l++) {
        const diff = B.data[i * p + l] - A.data[j * p + l];
        d += diff * diff;
      }
      if (d < bestD) {
        bestD = d;
        best = j;
      }
    }
    out[i] = best;
  }
  return out;
}

describe("NearestNeighbour1", () => {
  it("returns the training label on the training points when they are distinct", () => {
    fc.assert(
      fc.property(inputs({ n: [2, 40], k: [1, 6], seed: [0, 1_000_000] }), ({ n, k, seed }) => {
        const P = randomMatrix(n, k, seed);
        const rng = new Random(seed + 1);
        const y = Array.from({ length: n }, () => rng.integer(3));
        const model = new NearestNeighbour1().fit(P, y);
        expect(model.predict(P)).toEqual(y);
        expect(Array.from(model.nearestIndices(P))).toEqual([...Array(n).keys()]);
      }),
      { numRuns: 50 },
    );
  });

  it("sends ties to the lowest training index", () => {
    // Rows 1 and 3 are the same point; row 0 and 2 are equidistant from the query.
    const P = [
      [1, 0],
      [5, 5],
      [-1, 0],
      [5, 5],
    ];
    const model = new NearestNeighbour1().fit(P, ["a", "b", "c", "d"]);
    expect(model.predict([[0, 0]])).toEqual(["a"]);
    expect(model.predict([[5, 5]])).toEqual(["b"]);
    expect(model.predict([[0.2, 0]])).toEqual(["a"]);
    expect(model.predict([[-0.2, 0]])).toEqual(["c"]);
  });

  it("decides near-ties by the direct distance, not by Gram-form round-off", () => {
    // Far from the origin ||q||^2 + ||t||^2 - 2 q.t loses every bit of these
    // distances (squares ~1e18, spacing 128); the direct recheck must not.
    const base = 1e9;
    const T = Matrix.fromRows([
      [base + 1, base],
      [base - 1, base],
      [base + 2, base],
      [base, base + 3],
    ]);
    const tie = nearestRowIndices(T, Matrix.fromRows([[base, base]]));
    expect(Array.from(tie)).toEqual([0]);
    const closer = nearestRowIndices(T, Matrix.fromRows([[base - 0.5, base]]));
    expect(Array.from(closer)).toEqual([1]);
    const far = nearestRowIndices(T, Matrix.fromRows([[base + 2, base + 2]]));
    expect(Array.from(far)).toEqual([2]);
  });

  it("gives the same answer whatever the block size", () => {
    fc.assert(
      fc.property(
        inputs({ n: [1, 60], m: [1, 50], k: [1, 8], blockSize: [1, 70], seed: [0, 1_000_000] }),
        ({ n, m, k, blockSize, seed }) => {
          const T = randomMatrix(n, k, seed);
          const Q = randomMatrix(m, k, seed + 7);
          const y = Array.from({ length: n }, (_, i) => i % 4);
          const a = new NearestNeighbour1({ blockSize }).fit(T, y).nearestIndices(Q);
          const b = new NearestNeighbour1({ blockSize: 1000 }).fit(T, y).nearestIndices(Q);
          expect(Array.from(a)).toEqual(Array.from(b));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("agrees with a brute-force scan on random data", () => {
    fc.assert(
      fc.property(
        inputs({ n: [1, 80], m: [1, 40], k: [1, 12], seed: [0, 1_000_000] }),
        ({ n, m, k, seed }) => {
          const T = randomMatrix(n, k, seed);
          const Q = randomMatrix(m, k, seed + 3);
          const y = Array.from({ length: n }, (_, i) => i);
          const got = new NearestNeighbour1({ blockSize: 7 }).fit(T, y).nearestIndices(Q);
          expect(Array.from(got)).toEqual(Array.from(bruteForceIndices(T, Q)));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("agrees with the brute force when the data has many exact and near ties", () => {
    // Small integer grids make many distances equal; the block kernel must still
    // return the brute force's lowest index on each tie.
    fc.assert(
      fc.property(
        inputs({ n: [2, 50], m: [1, 30], k: [1, 4], seed: [0, 1_000_000] }),
        ({ n, m, k, seed }) => {
          const rng = new Random(seed);
          const T = new Matrix(n, k);
          const Q = new Matrix(m, k);
          for (let i = 0; i < T.data.length; i++) T.data[i] = rng.integer(3);
          for (let i = 0; i < Q.data.length; i++) Q.data[i] = rng.integer(3);
          const got = nearestRowIndices(
            applyStandardisation(T, standardisation(T)),
            applyStandardisation(Q, standardisation(T)),
            5,
          );
          expect(Array.from(got)).toEqual(Array.from(bruteForceIndices(T, Q)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("z-scores with the training statistics, so feature scales do not matter", () => {
    const T = randomMatrix(30, 3, 11);
    const Q = randomMatrix(20, 3, 12);
    const scale = [1e3, 1, 1e-3];
    const shift = [5, -3, 100];
    const rescale = (M: Matrix) => {
      const out = M.clone();
      for (let i = 0; i < M.rows; i++)
        for (let j = 0; j < 3; j++) out.data[i * 3 + j] = M.data[i * 3 + j] * scale[j] + shift[j];
      return out;
    };
    const y = Array.from({ length: 30 }, (_, i) => i);
    expect(nearestNeighbourPredict(rescale(T), y, rescale(Q))).toEqual(
      nearestNeighbourPredict(T, y, Q),
    );
  });

  it("leaves out features that are constant over the training rows", () => {
    const T = randomMatrix(25, 2, 21);
    const Q = randomMatrix(15, 2, 22);
    const withConst = (M: Matrix, value: (i: number) => number) => {
      const out = new Matrix(M.rows, 4);
      for (let i = 0; i < M.rows; i++) {
        out.data[i * 4] = M.data[i * 2];
        out.data[i * 4 + 1] = value(i);
        out.data[i * 4 + 2] = M.data[i * 2 + 1];
        out.data[i * 4 + 3] = 3 + (i % 2) * 1e-15;
      }
      return out;
    };
    const y = Array.from({ length: 25 }, (_, i) => i);
    const model = new NearestNeighbour1().fit(
      withConst(T, () => 7),
      y,
    );
    expect(Array.from(model.standardisation.kept)).toEqual([0, 2]);
    // Queries that differ in the constant features get the same neighbours.
    expect(model.predict(withConst(Q, (i) => i * 100))).toEqual(nearestNeighbourPredict(T, y, Q));
  });

  it("predicts the first training label when no feature varies", () => {
    const model = new NearestNeighbour1().fit([[1], [1], [1]], ["x", "y", "z"]);
    expect(model.predict([[0], [5]])).toEqual(["x", "x"]);
  });

  it("validates its inputs and options, naming the argument", () => {
    const model = new NearestNeighbour1();
    expect(() => model.predict([[1]])).toThrow(NotFittedError);
    model.fit(
      [
        [1, 2],
        [3, 4],
      ],
      [0, 1],
    );
    try {
      model.predict([[1, 2, 3]]);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe("Pquery");
      expect((err as Error).message).toMatch(/3 features, but NearestNeighbour1 was fitted on 2/);
    }
    expect(() => model.fit([[1, 2]], [0, 1])).toThrow(/ytrain has 2 labels/);
    expect(() => model.fit([[1, Number.NaN]], [0])).toThrow(/Ptrain contains NaN/);
    expect(() => new NearestNeighbour1({ blockSize: 0 })).toThrow(
      /'blockSize' parameter of NearestNeighbour1 must be an integer in \[1, inf\)\. Got 0/,
    );
    expect(() => new NearestNeighbour1({ blokSize: 3 } as never)).toThrow(
      /did you mean 'blockSize'/,
    );
  });
});

interface KnnCase {
  Ptrain: number[][];
  ytrain: Array<number | string>;
  Pquery: number[][];
  yquery: Array<number | string>;
  predicted: Array<number | string>;
  bca: number;
  accuracy: number;
}
interface Fixture {
  command: string;
  knn: KnnCase[];
  bca: Array<{ yTrue: number[]; yPred: number[]; bca: number }>;
}

describe("agreement with the NumPy reference (knn1_predict, bca)", () => {
  const fixture = JSON.parse(
    readFileSync(fixtureFile("experiment/knn_bca.json"), "utf8"),
  ) as Fixture;

  it("records the command that made it", () => {
    expect(fixture.command).toMatch(/scripts\/fixtures\/experiment_knn_bca\.py/);
  });

  it.each(fixture.knn.map((c, i) => [i, c] as const))(
    "predicts as the reference (case %i)",
    (_, c) => {
      const predicted = nearestNeighbourPredict(c.Ptrain, c.ytrain, c.Pquery);
      expect(predicted).toEqual(c.predicted);
      expect(balancedAccuracy(c.yquery, predicted)).toBeCloseTo(c.bca, 14);
    },
  );

  it.each(fixture.bca.map((c, i) => [i, c] as const))(
    "scores BCA as the reference (case %i)",
    (_, c) => {
      expect(balancedAccuracy(c.yTrue, c.yPred)).toBeCloseTo(c.bca, 14);
    },
  );
});
