/** Model files written by `fit` read back (the data given to them: modelData.ts). */
import type { Estimator, Pipeline } from "sdspcaan";
import { loadModelFile } from "sdspcaan/methods";
import { namingFlags } from "../../io/fileErrors.js";
import { checkJsonInput } from "../../io/inputFiles.js";
import { readModelText } from "../../io/modelFile.js";

/**
 * Reads a model file written by `fit`: a method's model or, from `fit --pipeline`, a
 * pipeline (the preprocessing travels inside either).
 */
export function readModelFile(path: string): Estimator | Pipeline {
  checkJsonInput(path, "model file", "--model");
  let text: string;
  try {
    text = readModelText(path);
  } catch (err) {
    throw namingFlags(err, { path: "--model" });
  }
  return loadModelFile(text, path);
}
