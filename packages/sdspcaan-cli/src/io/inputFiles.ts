/** Input files of every command: the library's checks and readers (`sdspcaan/node`). */
import { checkInputFileSync, MAX_JSON_BYTES } from "sdspcaan/node";
import { namingFlags } from "./fileErrors.js";

export {
  checkInputFileSync,
  checkInputStats,
  MAX_JSON_BYTES,
  type OpenedInput,
  openInputFile,
  readAt,
  readInputFile,
  readInputFileSync,
} from "sdspcaan/node";

/**
 * Refuses a JSON input (model, split file) that is not a regular file, or larger than
 * a JavaScript string can hold, before reading it; `flag` is the option that named it
 * (e.g. "--model"), which the refusal names.
 */
export function checkJsonInput(path: string, what: string, flag: string): void {
  const argument = flag.replace(/^--/, "");
  try {
    checkInputFileSync(path, what, MAX_JSON_BYTES, argument, "the longest string JavaScript holds");
  } catch (err) {
    throw namingFlags(err, { [argument]: flag });
  }
}
