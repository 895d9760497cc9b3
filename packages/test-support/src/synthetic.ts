/** The small seeded data set the library's, the runner's and the command's tests share. */
import { makeSyntheticDataset, Random } from "sdspcaan/methods";

/** A small data set: 60 samples x 24 features, 4 classes (12 training samples per split). */
export function smallData(seed = 3) {
  return makeSyntheticDataset({
    samples: 60,
    features: 24,
    classes: 4,
    signalDim: 4,
    nuisanceDim: 4,
    seed,
  });
}

/** Three classes of 8 samples in 4 features, well separated; labels 1, 2, 3. */
export function smallRows(seed = 5): { X: number[][]; y: number[] } {
  const rng = new Random(seed);
  const X: number[][] = [];
  const y: number[] = [];
  for (let c = 1; c <= 3; c++) {
    for (let i = 0; i < 8; i++) {
      X.push(Array.from({ length: 4 }, (_, j) => (j === c ? 4 * c : 0) + rng.normal()));
      y.push(c);
    }
  }
  return { X, y };
}
