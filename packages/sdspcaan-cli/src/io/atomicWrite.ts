/**
 * Writing an output file so that nothing half-written is ever seen and nothing
 * that is not an output is ever destroyed.
 *
 * A regular file (or a missing one) is written to a temporary file beside it and
 * renamed over it: a crash leaves the old file or the new one. Renaming is wrong
 * for everything else, so the kind of the path decides:
 * - a symbolic link is written through: its final target is the file written (and
 *   renamed over), the link itself stays;
 * - a FIFO or a character device (`/dev/stdout`, `/dev/null`, `/dev/full`) is opened
 *   and written in place, so its reader gets the bytes and its errors (ENOSPC on
 *   `/dev/full`) reach the caller;
 * - a directory, a block device or a socket is refused;
 * - a file that is one of the command's inputs (the same device and inode, however
 *   it is named) is refused before anything is written.
 *
 * A failure of the file system is a FileAccessError naming the file written (never
 * the temporary one) and what happened ("the file system is read-only (EROFS)"),
 * and the temporary file is gone. Temporary files left beside it by a process of
 * this host that no longer exists (killed mid-write) are removed on the next write.
 */
import {
  closeSync,
  existsSync,
  fchmodSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  rmSync,
  type Stats,
  statSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { ValidationError } from "sdspcaan";
import { fileError, makeFolders } from "./fileErrors.js";

function hostTag(): string {
  return hostname().replace(/[^A-Za-z0-9.-]/g, "_");
}

/** The temporary name a file is written under before its rename. */
export function temporaryName(path: string): string {
  return `${path}.tmp-${hostTag()}-${process.pid}`;
}

/** Whether the process `pid` of this host still exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes what processes of this host that no longer exist left beside `path`
 * under a name of theirs (`path` + each of `infixes` + "-HOST-PID", as
 * `temporaryName` makes with ".tmp"): a process killed between creating such a
 * file and renaming or removing it. Those of other hosts, whose processes cannot
 * be checked, and those of living processes stay; readers never read them, as no
 * results file, report or output has such a name. Failing to look or remove is not
 * an error: the write that follows says what is wrong with the folder.
 */
export function removeDeadTemporaries(path: string, infixes: readonly string[] = [".tmp"]): void {
  const dir = dirname(path);
  const prefix = `${basename(path)}`;
  const host = hostTag();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    for (const infix of infixes) {
      const head = `${prefix}${infix}-${host}-`;
      if (!name.startsWith(head)) continue;
      const pid = name.slice(head.length);
      if (!/^[1-9]\d*$/.test(pid) || Number(pid) === process.pid || processExists(Number(pid))) {
        continue;
      }
      try {
        rmSync(join(dir, name), { force: true });
      } catch {
        // Not ours to insist on.
      }
    }
  }
}

/** An input of the command that no output may replace: its path and what names it. */
export interface ProtectedInput {
  readonly path: string;
  /** The option or role that named it ("--data", "results file"). */
  readonly what: string;
}

/** How an output path is written. */
export type OutputWay =
  /** Temporary file beside `target`, then a rename over it (missing or regular file). */
  | "replace"
  /** Opened and written in place (FIFO, character device). */
  | "in-place";

/** Where and how an output goes once links are followed. */
export interface OutputTarget {
  /** The path actually written: the link's final target for a link. */
  readonly target: string;
  readonly way: OutputWay;
  /** The permission bits of the regular file replaced, kept on its replacement. */
  readonly mode: number | null;
}

/** Symbolic links followed before giving up, as the kernel's ELOOP limit. */
const MAX_LINKS = 40;

function lstatOrNull(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch (err) {
    // ENOTDIR: a part of the path is a file; the caller's folder check names it.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw fileError(err, "write", path);
  }
}

function refuse(path: string, why: string): ValidationError {
  return new ValidationError("path", `Refusing to write ${path}: ${why}.`);
}

/**
 * Follows `path` through its links and says how it may be written; throws a
 * `ValidationError` naming the path when it must not be (a directory, a block
 * device, a socket, one of `inputs`, a loop of links).
 */
export function outputTarget(path: string, inputs: readonly ProtectedInput[] = []): OutputTarget {
  let target = resolve(path);
  let st = lstatOrNull(target);
  for (let hops = 0; st?.isSymbolicLink(); hops++) {
    if (hops === MAX_LINKS) throw refuse(path, "it is a loop of symbolic links");
    try {
      target = resolve(dirname(target), readlinkSync(target));
    } catch (err) {
      throw fileError(err, "write", path);
    }
    st = lstatOrNull(target);
  }
  if (st !== null) {
    for (const input of inputs) {
      const other = statOrNull(input.path);
      if (other !== null && other.dev === st.dev && other.ino === st.ino) {
        throw refuse(path, `it is this command's input ${input.path} (${input.what})`);
      }
    }
  }
  if (st === null) return { target, way: "replace", mode: null };
  if (st.isFile()) return { target, way: "replace", mode: st.mode & 0o7777 };
  if (st.isFIFO() || st.isCharacterDevice()) return { target, way: "in-place", mode: null };
  if (st.isDirectory()) throw refuse(path, "it is a directory");
  if (st.isBlockDevice()) throw refuse(path, "it is a block device");
  if (st.isSocket()) throw refuse(path, "it is a socket");
  throw refuse(path, "it is not a regular file");
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

/** Writes all of `bytes` at the file position of `fd`. */
export function writeAll(fd: number, bytes: Uint8Array): void {
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
}

/**
 * Flushes the entries of a folder (a rename in it) to the disk. Where a folder
 * cannot be opened or flushed so (Windows), the rename is as durable as the file
 * system makes it anyway.
 */
function syncFolder(dir: string): void {
  let fd: number;
  try {
    fd = openSync(dir, "r");
  } catch {
    return;
  }
  try {
    fsyncSync(fd);
  } catch {
    // EISDIR, EINVAL or EPERM: folders cannot be flushed here.
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes `bytes` to a fresh temporary file beside `target` (with `mode` when not
 * null) and renames it over `target`; on an error the temporary file is removed.
 * `durable` flushes the file before the rename and the folder after it. A failure
 * is a FileAccessError naming `shown`.
 */
function replaceThroughTemporary(
  target: string,
  bytes: Uint8Array,
  mode: number | null,
  durable: boolean,
  /** The name the caller gave (a link to `target`), for messages. */
  shown: string,
): void {
  makeFolders(dirname(target));
  removeDeadTemporaries(target);
  const tmp = temporaryName(target);
  try {
    // "wx": never follow or reuse whatever already sits at the temporary name.
    rmSync(tmp, { force: true });
    const fd = openSync(tmp, "wx");
    try {
      if (mode !== null) fchmodSync(fd, mode);
      writeAll(fd, bytes);
      if (durable) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  } catch (err) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // The write's own error says more.
    }
    throw fileError(err, "write", shown);
  }
  if (durable) syncFolder(dirname(target));
}

/**
 * Proves, before the work that makes its bytes, that `target` (a missing or regular
 * file: an OutputTarget's "replace") can be written as replaceThroughTemporary writes
 * it: the first thing that write creates is created and removed again, the temporary
 * file beside `target` or, when its folder is missing, the first folder it makes. A
 * folder that refuses new entries although its permissions allow them (root in
 * /sys, a read-only bind mount) is only found so. Nothing that exists is opened, and
 * a temporary file left by a kill in between goes with the next write's dead
 * temporaries. A refusal is a FileAccessError naming `shown`.
 */
export function checkReplaceable(target: string, shown: string): void {
  let missing: string | null = null;
  for (let dir = dirname(target); !existsSync(dir) && dirname(dir) !== dir; dir = dirname(dir)) {
    missing = dir;
  }
  try {
    if (missing !== null) {
      try {
        mkdirSync(missing);
      } catch (err) {
        // Made meanwhile by another process: the write will find it.
        if ((err as NodeJS.ErrnoException).code === "EEXIST") return;
        throw err;
      }
      try {
        rmdirSync(missing);
      } catch {
        // Written into meanwhile by another process: it is theirs now.
      }
      return;
    }
    const tmp = temporaryName(target);
    // As replaceThroughTemporary: the name is this process's, whatever sits there goes.
    rmSync(tmp, { force: true });
    closeSync(openSync(tmp, "wx"));
    rmSync(tmp, { force: true });
  } catch (err) {
    throw fileError(err, "write", shown);
  }
}

/**
 * Writes `text` to `path` as described above (creating missing folders for a new
 * file). Throws a FileAccessError naming `path` when the write fails, or a
 * `ValidationError` when the path must not be written.
 */
export function writeAtomically(
  path: string,
  text: string | Uint8Array,
  inputs: readonly ProtectedInput[] = [],
): void {
  const { target, way, mode } = outputTarget(path, inputs);
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  if (way === "in-place") {
    // "w" truncates nothing on a FIFO or a device; it only opens it for writing.
    try {
      const fd = openSync(target, "w");
      try {
        writeAll(fd, bytes);
      } finally {
        closeSync(fd);
      }
    } catch (err) {
      throw fileError(err, "write", path);
    }
    return;
  }
  replaceThroughTemporary(target, bytes, mode, false, path);
}

/**
 * Replaces the file at `path` (a regular file, or missing; a link is written
 * through) by `bytes`: written to a temporary file beside it and flushed, then
 * renamed over it, and the rename flushed with its folder. A crash leaves the old
 * file or the new one, never a part; once this returns, the new file stays, so a
 * file it takes the place of (a .gz it holds the lines of) may be removed.
 */
export function replaceFileDurably(path: string, bytes: Uint8Array): void {
  replaceThroughTemporary(regularOutputTarget(path), bytes, null, true, path);
}

/**
 * Where a file that must stay a regular file (a results file, a report inside a run
 * folder) is written: the final target of its links, refused when it is anything
 * but a regular file or missing.
 */
export function regularOutputTarget(path: string, inputs: readonly ProtectedInput[] = []): string {
  const { target, way } = outputTarget(path, inputs);
  if (way !== "replace") throw refuse(path, "it is not a regular file (a FIFO or a device)");
  return target;
}
