/**
 * Model files written by `fit` read back, and a model applied to a data file's rows
 * with the file named in a bad row's error.
 */
import type { Estimator, Label, Matrix, Pipeline } from "sdspcaan";
import { DataFormatError, RowValueError } from "sdspcaan";
import { loadModelFile } from "sdspcaan/methods";
import { checkJsonInput } from "../../io/inputFiles.js";
import { readModelText } from "../../io/modelFile.js";

/**
 * Reads a model file written by `fit`: a method's model or, from `fit --pipeline`, a
 * pipeline (the preprocessing travels inside either).
 */
export function readModelFile(path: string): Estimator | Pipeline {
  checkJsonInput(path, "model file", "model");
  return loadModelFile(readModelText(path), path);
}

/** Data as a model reads it: the matrix, the file it came from, its column names. */
interface ModelInput {
  readonly X: Matrix;
  readonly path: string;
  readonly featureNames?: string[] | null;
}

/** Runs `use` on the data, a bad row named by the data file it came from (the library only knows the matrix). */
function namingTheFile<T>(data: ModelInput, use: () => T): T {
  try {
    return use();
  } catch (err) {
    if (err instanceof RowValueError && err.argument === "X") {
      throw new DataFormatError(data.path, `data row ${err.row} (counting from 0): ${err.problem}`);
    }
    throw err;
  }
}

/** `model.transform(data.X)` with the data's column names, a bad row named with its file. */
export function transformData(model: Estimator | Pipeline, data: ModelInput): Matrix {
  // A header's names are matched with the model's (reordered, or refused by name).
  return namingTheFile(data, () =>
    model.transform(data.X, { featureNames: data.featureNames ?? null }),
  );
}

/** `pipeline.predict(data.X)` with the data's column names, a bad row named with its file. */
export function predictData(pipeline: Pipeline, data: ModelInput): Label[] {
  return namingTheFile(data, () =>
    pipeline.predict(data.X, { featureNames: data.featureNames ?? null }),
  );
}
