/**
 * Data given to a saved model (`transform`, `predict`, `plot embedding`): its column
 * count checked against the model's, its column names matched with the model's, and a
 * bad row or a warning named by the data file it came from (the library only knows the
 * matrix).
 */
import type { Estimator, Label, Matrix, Pipeline, TransformOptions } from "sdspcaan";
import { DataFormatError, RowValueError, ValidationError } from "sdspcaan";
import { plural } from "../../plural.js";
import { note } from "./output.js";
import { inPluginTerms } from "./pluginFailure.js";

/**
 * Refuses data whose feature count is not the model's, naming both numbers and, when
 * one column too many was read without labels, the likely fix. Data and a model that
 * both have column names are left to the model, which names the columns that differ
 * (an extra one with the same advice).
 */
export function checkFeatureCount(
  data: {
    readonly X: Matrix;
    readonly y: readonly Label[] | null;
    readonly path: string;
    readonly featureNames?: readonly string[] | null;
  },
  model: { readonly nFeaturesIn: number; readonly featureNamesIn?: readonly string[] | null },
  modelPath: string,
): void {
  const d = model.nFeaturesIn;
  if (data.X.cols === d) return;
  if (data.featureNames != null && model.featureNamesIn != null) return;
  const labelsRead = data.y === null && data.X.cols === d + 1;
  const hint = labelsRead
    ? "; if one of its columns holds labels, name it with --label-col (e.g. --label-col last) or --y-var"
    : "";
  throw new DataFormatError(
    data.path,
    `has ${plural(data.X.cols, "feature")} per sample, but the model ${modelPath} was fitted on ${d}${hint}`,
  );
}

/** Data as a model reads it: the matrix, the file it came from, its column names. */
interface ModelInput {
  readonly X: Matrix;
  readonly path: string;
  readonly featureNames?: string[] | null;
}

/**
 * Runs `use` on the data, a bad row or columns that do not match the model's named by
 * the data file they came from (the library only knows the matrix, X).
 */
function namingTheFile<T>(data: ModelInput, use: () => T): T {
  try {
    return use();
  } catch (err) {
    if (err instanceof RowValueError && err.argument === "X") {
      throw new DataFormatError(data.path, `data row ${err.row} (counting from 0): ${err.problem}`);
    }
    if (err instanceof ValidationError && err.argument === "featureNames") {
      const problem = err.message
        .replace(/^The columns of X /, "its columns ")
        .replace("(X has the ", "(it has the ");
      throw new DataFormatError(data.path, problem);
    }
    throw err;
  }
}

/**
 * The transform options for the data: its column names (matched with the model's:
 * reordered, or refused by name), and a warning on standard error, naming the file,
 * when it has none and the model has.
 */
function columnsOf(data: ModelInput): TransformOptions {
  return {
    featureNames: data.featureNames ?? null,
    onWarning: (w) => note(`warning: ${data.path}: ${w.message}`),
  };
}

/**
 * `model.transform(data.X)` with the data's column names, a bad row named with its file
 * (and an error a plug-in method's own code throws named as its failure).
 */
export function transformData(model: Estimator | Pipeline, data: ModelInput): Promise<Matrix> {
  return inPluginTerms(model.method, () =>
    namingTheFile(data, () => model.transform(data.X, columnsOf(data))),
  );
}

/** `pipeline.predict(data.X)` as transformData applies the model. */
export function predictData(pipeline: Pipeline, data: ModelInput): Promise<Label[]> {
  return inPluginTerms(pipeline.method, () =>
    namingTheFile(data, () => pipeline.predict(data.X, columnsOf(data))),
  );
}
