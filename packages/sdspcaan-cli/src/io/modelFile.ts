/**
 * A model file's text, read within the model size limit: a regular file larger than
 * MAX_MODEL_BYTES is refused before it is read, and anything else (a pipe) is read
 * only up to the limit. The library (loadModelFile) checks the text itself.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { DataFormatError, ValidationError } from "sdspcaan";
import { formatBytes } from "sdspcaan/formats";
import { MAX_MODEL_BYTES } from "sdspcaan/methods";

function tooLarge(path: string, size: string, limit: number): DataFormatError {
  return new DataFormatError(path, `is ${size}; a model file holds at most ${formatBytes(limit)}`);
}

/** The text of the model file at `path` (UTF-8), refused naming the file when it is too large. */
export function readModelText(path: string, limit = MAX_MODEL_BYTES): string {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ValidationError(
      "path",
      code === "ENOENT"
        ? `${path} does not exist.`
        : `Cannot read ${path}: ${(err as Error).message}`,
    );
  }
  try {
    const size = fstatSync(fd).size;
    if (size > limit) throw tooLarge(path, formatBytes(size), limit);
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1 << 20, limit + 1 - total) || 1);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      chunks.push(chunk.subarray(0, n));
      total += n;
      if (total > limit) throw tooLarge(path, `more than ${formatBytes(limit)}`, limit);
    }
    return Buffer.concat(chunks, total).toString("utf8");
  } catch (err) {
    if (err instanceof DataFormatError) throw err;
    throw new ValidationError("path", `Cannot read ${path}: ${(err as Error).message}`);
  } finally {
    closeSync(fd);
  }
}
