/**
 * File-system errors in the user's words: one table from Node's error codes to
 * what happened, and one error that names the file the user knows (the output,
 * not the temporary file beside it that the failing call was about) and the
 * action that failed. Every writer of the CLI (outputs, results files, reports,
 * figures, model files, downloads, run locks) goes through it, so a full disk
 * says "Cannot write out/table.md: no space left on the device (ENOSPC)." rather
 * than a bare "no space left on the device".
 */
import { mkdirSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { SdspcaanError, ValidationError } from "sdspcaan";

/** What a Node file-system error code means, in the user's words. */
const REASONS: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  EISDIR: "it is a directory",
  ENOTDIR: "a part of the path is not a directory",
  EEXIST: "it already exists",
  ENOENT: "no such file or directory",
  ENOSPC: "no space left on the device",
  EDQUOT: "the disk quota is used up",
  EFBIG: "the file is larger than the file system allows",
  EROFS: "the file system is read-only",
  EMFILE: "too many open files",
  ENFILE: "too many open files in the system",
  ENAMETOOLONG: "the name is too long",
  ELOOP: "too many symbolic links (a loop?)",
  EIO: "an input/output error of the device",
  EBUSY: "the file or device is busy",
  ETXTBSY: "the file is a running program",
  EXDEV: "it is on another file system",
  ENXIO: "no such device (a FIFO without a reader?)",
};

/** The user-facing reason of a Node file-system error (its code), or null when it is not one. */
export function fileSystemReason(err: unknown): string | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return null;
  return REASONS[code] ?? code;
}

/** The path a Node file-system error is about (its `path`), when it has one. */
export function fileSystemPath(err: unknown): string | null {
  const p = (err as NodeJS.ErrnoException | null)?.path;
  return typeof p === "string" ? p : null;
}

/** "the file system is read-only (EROFS)": the reason with its code, for messages. */
export function describeFileSystemError(err: unknown): string | null {
  const reason = fileSystemReason(err);
  if (reason === null) return null;
  const code = (err as NodeJS.ErrnoException).code as string;
  return reason === code ? code : `${reason} (${code})`;
}

/**
 * A file the command had to write (or read, create, remove) could not be: names
 * the file the user knows and says why in plain words, with Node's code kept.
 */
export class FileAccessError extends SdspcaanError {
  override name = "FileAccessError";
  /** The file named in the message. */
  readonly path: string;
  /** Node's error code ("EROFS", "ENOSPC", ...). */
  readonly code: string;
  constructor(action: string, path: string, err: NodeJS.ErrnoException) {
    super(`Cannot ${action} ${path}: ${describeFileSystemError(err)}.`);
    this.path = path;
    this.code = err.code as string;
  }
}

/**
 * `err` as a FileAccessError naming `path` when it is a file-system error (else
 * unchanged, e.g. a ValidationError that already names what it refuses).
 */
export function fileError(err: unknown, action: string, path: string): unknown {
  if (err instanceof FileAccessError || fileSystemReason(err) === null) return err;
  return new FileAccessError(action, path, err as NodeJS.ErrnoException);
}

/**
 * A refusal as the command line names it: a ValidationError whose argument is a key
 * of `flags` (a reader's name for a file, e.g. "labelsFile") becomes one naming the
 * option the user typed, in its argument and at the end of its message ("x is a
 * directory, not a labels file (--labels-file)."). Anything else is returned as is.
 */
export function namingFlags(err: unknown, flags: Readonly<Record<string, string>>): unknown {
  if (!(err instanceof ValidationError) || !Object.hasOwn(flags, err.argument)) return err;
  const flag = flags[err.argument];
  return new ValidationError(
    flag.replace(/^--/, ""),
    `${err.message.replace(/\.$/, "")} (${flag}).`,
  );
}

/**
 * A reader's advice in the command line's words: the library names its options
 * ("leave it out with dropColumns: [0]", "name the label column with labelColumn"),
 * which a user of the command sets with flags, so the flag comes first and the
 * option stays beside it ("--drop-columns 0 (dropColumns: [0])").
 */
export function inCommandLineTerms(message: string): string {
  return message
    .replace(
      /leave (it|them) out with dropColumns: \[([^\]]*)\]/g,
      (_, pronoun: string, list: string) =>
        `leave ${pronoun} out with --drop-columns ${list.replace(/, /g, ",")} (dropColumns: [${list}])`,
    )
    .replace(
      "name the label column with labelColumn",
      "name the label column with --label-col (labelColumn)",
    );
}

/**
 * Creates the folder `dir` and the missing folders above it, one at a time.
 * `mkdirSync(dir, { recursive: true })` reports a folder it cannot make on a
 * read-only file system (or without permission) as ENOENT, "no such file or
 * directory"; made one by one, the failing folder gives its real error (EROFS,
 * EACCES, ENOTDIR), which is rethrown as a FileAccessError naming it.
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  for (let p = resolve(dir); ; p = dirname(p)) {
    let isDir: boolean;
    try {
      isDir = statSync(p).isDirectory();
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" && dirname(p) !== p) {
        missing.push(p);
        continue;
      }
      throw fileError(err, "create the folder", p);
    }
    if (!isDir) {
      const e = Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
      throw new FileAccessError("create the folder", missing.at(-1) ?? p, e);
    }
    break;
  }
  for (const p of missing.reverse()) {
    try {
      mkdirSync(p);
    } catch (err) {
      // Made meanwhile by another process: fine.
      if ((err as NodeJS.ErrnoException).code === "EEXIST" && statSync(p).isDirectory()) continue;
      throw fileError(err, "create the folder", p);
    }
  }
}
