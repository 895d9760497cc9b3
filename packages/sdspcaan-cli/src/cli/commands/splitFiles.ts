/** Split files (`--splits`): read, checked against the data, one split chosen by --repeat. */
import { DataFormatError, ValidationError } from "sdspcaan";
import { parseSplitFile, type Split } from "sdspcaan/methods";
import { checkJsonInput } from "../../io/inputFiles.js";
import { plural } from "../../plural.js";
import { readJsonFile } from "../../runner/resultsFile.node.js";

/** Reads a split file, naming it in every error. */
export function readSplitFile(path: string, n: number): Split[] {
  checkJsonInput(path, "split file", "--splits");
  const json = readJsonFile(path);
  try {
    return parseSplitFile(json, n);
  } catch (err) {
    if (err instanceof ValidationError) throw new DataFormatError(path, err.message);
    throw err;
  }
}

/** Split `repeat` (the --repeat flag, from 0) of the split file `path`, for data of `n` rows. */
export function splitOfFile(path: string, repeat: number, n: number): Split {
  const splits = readSplitFile(path, n);
  if (repeat >= splits.length) {
    throw new ValidationError(
      "repeat",
      `The '--repeat' option must be an integer in [0, ${splits.length - 1}] for the ${plural(splits.length, "split")} of ${path}. Got ${repeat} instead.`,
    );
  }
  return splits[repeat];
}
