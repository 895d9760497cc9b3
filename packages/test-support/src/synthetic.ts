/** The small seeded data set the library's, the runner's and the command's tests share. */
import { makeSyntheticDataset } from "sdspcaan/methods";

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
