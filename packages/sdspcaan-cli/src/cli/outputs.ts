/**
 * Where the CLI writes: `--out` paths are checked before any work starts (a fit
 * can take minutes; failing afterwards because `--out` names a directory wastes
 * them), files are written atomically (a temporary file in the same folder, then a
 * rename, removed again when anything fails; a link is written through, a FIFO or
 * a device in place, and a directory, a block device or one of the command's own
 * inputs is refused: io/atomicWrite.ts), and file-system errors become one line
 * naming the option and the path instead of a stack trace.
 */
import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ValidationError } from "sdspcaan";
import {
  checkReplaceable,
  outputTarget,
  type ProtectedInput,
  writeAtomically,
} from "../io/atomicWrite.js";
import { describeFileSystemError, namingFlags } from "../io/fileErrors.js";

/** The first existing ancestor of `path` (itself included). */
function existingAncestor(path: string): string {
  let p = resolve(path);
  while (!existsSync(p)) {
    const up = dirname(p);
    if (up === p) break;
    p = up;
  }
  return p;
}

/** A refusal of io/atomicWrite.ts (or a file-system error) as one line naming `flag`. */
function namingFlag(flag: string, path: string, err: unknown): unknown {
  if (err instanceof ValidationError) return namingFlags(err, { path: flag });
  // Node's error, or io/fileErrors.ts's FileAccessError (which keeps its code).
  const reason = describeFileSystemError(err);
  if (reason === null) return err;
  return new ValidationError(flag.replace(/^--/, ""), `Cannot write ${path} (${flag}): ${reason}.`);
}

/**
 * Checks that `path` can become a file: it is not a directory, a block device or
 * one of `inputs`, the nearest existing folder above it is a folder (missing
 * folders are created on write), and a file (or that folder) can be created where
 * the write puts it (io/atomicWrite.ts's checkReplaceable). `flag` is the option that
 * named it (e.g. "--out").
 */
export function checkOutputFile(
  flag: string,
  path: string,
  inputs: readonly ProtectedInput[] = [],
): void {
  const name = flag.replace(/^--/, "");
  if (path.trim() === "") {
    throw new ValidationError(name, `The '${flag}' option must name a file. Got "" instead.`);
  }
  if (existsSync(path) && statSync(path).isDirectory()) {
    throw new ValidationError(
      name,
      `The '${flag}' option must name a file, but ${path} is a directory.`,
    );
  }
  let target: string;
  let way: string;
  try {
    ({ target, way } = outputTarget(path, inputs));
  } catch (err) {
    throw namingFlag(flag, path, err);
  }
  const above = existingAncestor(dirname(target));
  if (!statSync(above).isDirectory()) {
    throw new ValidationError(
      name,
      `The '${flag}' option names ${path}, but ${above} is a file, not a folder.`,
    );
  }
  // The file is replaced through a new one in that folder (a FIFO or a device is
  // written in place, and never opened before): a folder that refuses it is said
  // now, not after the work.
  if (way === "replace") {
    try {
      checkReplaceable(target, path);
    } catch (err) {
      throw namingFlag(flag, path, err);
    }
  }
}

/**
 * Checks that `path` can be a results folder: it is a folder or does not exist yet
 * (with no file on the way to it).
 */
export function checkOutputDirectory(flag: string, path: string): void {
  const name = flag.replace(/^--/, "");
  if (path.trim() === "") {
    throw new ValidationError(name, `The '${flag}' option must name a folder. Got "" instead.`);
  }
  if (existsSync(path) && !statSync(path).isDirectory()) {
    throw new ValidationError(
      name,
      `The '${flag}' option must name a folder (created when missing), but ${path} is a file.`,
    );
  }
  const above = existingAncestor(resolve(path));
  if (!statSync(above).isDirectory()) {
    throw new ValidationError(
      name,
      `The '${flag}' option names ${path}, but ${above} is a file, not a folder.`,
    );
  }
}

/**
 * Writes `text` to `path` atomically (io/atomicWrite.ts: nothing half-written is
 * left behind); a failure names `flag` and the path.
 */
export function writeFileAtomic(
  flag: string,
  path: string,
  text: string | Uint8Array,
  inputs: readonly ProtectedInput[] = [],
): void {
  checkOutputFile(flag, path, inputs);
  try {
    writeAtomically(path, text, inputs);
  } catch (err) {
    throw namingFlag(flag, path, err);
  }
}
