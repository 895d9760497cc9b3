/**
 * Yale at the paper's first split (seed 0, repeat 0: 20 % training), z-scored with the
 * training rows' statistics: the real-data check of the methods' tests.
 */
import { readDataFile } from "sdspcaan-test-support";
import { balancedAccuracy } from "#internal/classify/metrics.js";
import { nearestNeighbourPredict } from "#internal/classify/nearestNeighbour.js";
import type { Matrix } from "#internal/core/matrix.js";
import { preprocessSplit } from "#internal/data/preprocess.js";
import { makeSplit } from "#internal/data/splits.js";

export interface YaleSplit {
  train: Matrix;
  test: Matrix;
  ytrain: number[];
  ytest: number[];
}

export async function yaleSplit(): Promise<YaleSplit> {
  const ds = await readDataFile("Yale_32x32.mat");
  const split = makeSplit(ds.X.rows, { seed: 0, dataset: "Yale", repeat: 0 });
  const pp = preprocessSplit(ds.X, split);
  const y = ds.y as number[];
  return {
    train: pp.train,
    test: pp.test,
    ytrain: Array.from(split.train, (i) => y[i]),
    ytest: Array.from(split.test, (i) => y[i]),
  };
}

/** The BCA of 1-NN on the test rows, both sides projected by `model`. */
export function projectedTestBca(model: { transform(X: Matrix): Matrix }, s: YaleSplit): number {
  const predicted = nearestNeighbourPredict(
    model.transform(s.train),
    s.ytrain,
    model.transform(s.test),
  );
  return balancedAccuracy(s.ytest, predicted);
}
