/**
 * Input files of every command (data, labels, models, split files): regular files
 * only, their size checked against the limit before a byte is read. A FIFO, a
 * character device (/dev/zero), a socket or a directory is refused at once: a FIFO
 * without a writer would keep the command waiting forever, and a device has no size
 * to check, so it could be read without end. Files are opened non-blocking and
 * checked again through the open descriptor, so a path swapped for a FIFO between
 * the two checks cannot block the open either.
 */
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { type FileHandle, open, stat } from "node:fs/promises";
import { DataFormatError, ValidationError } from "../core/errors.js";
import { formatBytes, maxBytesOf, type ReadLimits } from "../formats/limits.js";

/** The largest JSON file read (V8's longest string, 2^29 - 24 characters). */
export const MAX_JSON_BYTES = 2 ** 29 - 24;

/** Never blocks on a FIFO's open (0 where the platform has no such flag). */
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/** What a path that is not a regular file is, for messages; null for a regular file. */
function kindOf(st: Stats): string | null {
  if (st.isFile()) return null;
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "a character device";
  if (st.isBlockDevice()) return "a block device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/**
 * Refuses anything but a regular file of at most `maxBytes`; returns its size. A
 * directory is a ValidationError naming `argument`, the caller's name for the file
 * (e.g. "labelsFile"), as the file's other refusals by argument do.
 */
export function checkInputStats(
  st: Stats,
  path: string,
  what: string,
  maxBytes: number,
  limit = "maxBytes",
  argument = "path",
): number {
  const kind = kindOf(st);
  if (kind === "a directory") {
    throw new ValidationError(argument, `${path} is a directory, not a ${what}.`);
  }
  if (kind !== null) {
    throw new DataFormatError(
      path,
      `is ${kind}, not a regular file: a ${what} is read from a regular file only, whose size is checked against the ${formatBytes(maxBytes)} limit before reading (save the data to a file first)`,
    );
  }
  if (st.size > maxBytes) {
    throw new DataFormatError(
      path,
      `is ${formatBytes(st.size)}, more than the ${formatBytes(maxBytes)} limit (${limit})`,
    );
  }
  return st.size;
}

function statError(err: unknown, path: string, what: string, argument: string): never {
  if (err instanceof ValidationError) throw err;
  const code = (err as NodeJS.ErrnoException).code;
  throw new ValidationError(
    argument,
    code === "ENOENT"
      ? `The ${what} ${path} does not exist.`
      : `Cannot read ${path}: ${(err as Error).message}`,
  );
}

/** `checkInputStats` on a path, synchronously (model and split files, labels files). */
export function checkInputFileSync(
  path: string,
  what: string,
  maxBytes: number,
  argument = "path",
  limit = "maxBytes",
): number {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (err) {
    statError(err, path, what, argument);
  }
  return checkInputStats(st, path, what, maxBytes, limit, argument);
}

/** An input file opened for reading, checked as `checkInputStats` checks it. */
export interface OpenedInput {
  readonly handle: FileHandle;
  readonly size: number;
}

/** Opens an input file (a regular file within the limit), without blocking on a FIFO. */
export async function openInputFile(
  path: string,
  what: string,
  limits: ReadLimits,
  argument = "path",
): Promise<OpenedInput> {
  const maxBytes = maxBytesOf(limits);
  let handle: FileHandle;
  try {
    checkInputStats(await stat(path), path, what, maxBytes, "maxBytes", argument);
    handle = await open(path, OPEN_FLAGS);
  } catch (err) {
    if (err instanceof DataFormatError) throw err;
    statError(err, path, what, argument);
  }
  try {
    const size = checkInputStats(await handle.stat(), path, what, maxBytes, "maxBytes", argument);
    return { handle, size };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Reads up to `length` bytes at `position` (fewer only at the end of the file). */
export async function readAt(
  handle: FileHandle,
  buffer: Uint8Array,
  length: number,
  position: number,
): Promise<number> {
  let got = 0;
  while (got < length) {
    const { bytesRead } = await handle.read(buffer, got, length - got, position + got);
    if (bytesRead === 0) break;
    got += bytesRead;
  }
  return got;
}

/** The whole of an input file (a regular file within the limit). */
export async function readInputFile(
  path: string,
  what: string,
  limits: ReadLimits,
  argument = "path",
): Promise<Uint8Array> {
  const { handle, size } = await openInputFile(path, what, limits, argument);
  try {
    const bytes = new Uint8Array(size);
    const got = await readAt(handle, bytes, size, 0);
    return got === size ? bytes : bytes.subarray(0, got);
  } catch (err) {
    throw new ValidationError(argument, `Cannot read ${path}: ${(err as Error).message}`);
  } finally {
    await handle.close();
  }
}

/** `readInputFile`, synchronously. */
export function readInputFileSync(
  path: string,
  what: string,
  limits: ReadLimits,
  argument = "path",
): Uint8Array {
  const maxBytes = maxBytesOf(limits);
  checkInputFileSync(path, what, maxBytes, argument);
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (err) {
    statError(err, path, what, argument);
  }
  try {
    const size = checkInputStats(fstatSync(fd), path, what, maxBytes, "maxBytes", argument);
    const bytes = new Uint8Array(size);
    let got = 0;
    while (got < size) {
      const n = readSync(fd, bytes, got, size - got, got);
      if (n === 0) break;
      got += n;
    }
    return got === size ? bytes : bytes.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
