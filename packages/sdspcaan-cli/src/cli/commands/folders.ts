/**
 * Folders the user names that must be there already: a run's results directory
 * (report --out, plot --results) and --data-dir. A missing one is said as missing,
 * naming the flag, rather than read as an empty run or skipped in the search.
 */
import { statSync } from "node:fs";
import { ValidationError } from "sdspcaan";

/** "missing", "file" or "folder": what `path` is. */
function kindOf(path: string): "missing" | "file" | "folder" {
  try {
    return statSync(path).isDirectory() ? "folder" : "file";
  } catch {
    return "missing";
  }
}

/** Refuses `dir` given with `flag` unless it is an existing folder; `what` says what it should hold. */
export function checkExistingFolder(flag: string, dir: string, what: string): void {
  const kind = kindOf(dir);
  if (kind === "folder") return;
  throw new ValidationError(
    flag.replace(/^--/, ""),
    `The '${flag}' option names ${dir}, which ${kind === "missing" ? "does not exist" : "is a file, not a folder"}; give ${what}.`,
  );
}

/** `report --out`, `plot --results`: the results directory of an experiment. */
export function checkRunFolder(flag: string, dir: string): void {
  checkExistingFolder(flag, dir, "the results directory of an experiment (its --out)");
}

/** `--data-dir`, when given: a folder to search for the registry's data files. */
export function checkDataDir(dir: string | undefined): void {
  if (dir !== undefined) {
    checkExistingFolder("--data-dir", dir, "the folder that holds the data files");
  }
}
