/**
 * The lines of a results file, read as a stream: memory holds one chunk of the file
 * and the line being assembled, never the file as one string or an array of its
 * lines. A results file of 300 MB of newlines once made `report`, `compress` and
 * `experiment` die with V8's "invalid size error" (the whole text split into 300
 * million strings); now blank lines cost a counter. A line longer than
 * MAX_LINE_BYTES (no results line comes near it: the longest of the committed runs
 * are under 1 KB) is refused with its file and line number rather than assembled.
 *
 * A .gz results file is inflated first, whole (node:zlib has no synchronous
 * streaming inflater, and every reader of results files is synchronous), bounded by
 * MAX_INFLATED with a message naming the file; its lines are then walked as those
 * of a plain file.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { DataFormatError } from "sdspcaan";
import { InflateError } from "sdspcaan/formats";
import { nodeInflater } from "sdspcaan/node";
import { fileError } from "../io/fileErrors.js";

/** The longest line read, in bytes: 1 MiB. */
export const MAX_LINE_BYTES = 1 << 20;

/** Bytes a compressed results file may inflate to: 512 MiB. */
export const MAX_INFLATED = 1 << 29;

/** Bytes read from a plain file at a time. */
const CHUNK_BYTES = 1 << 16;

/** Receives each line that is not blank, without its "\n", with its 1-based number. */
export type LineVisitor = (text: string, lineNo: number) => void;

function tooLong(file: string, lineNo: number): DataFormatError {
  return new DataFormatError(
    file,
    `line ${lineNo} is longer than ${MAX_LINE_BYTES} bytes, which no results line is: this is not a results file, or that line is damaged (remove it).`,
  );
}

/** Splits chunks of bytes into lines as they come; blank lines are only counted. */
class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private lineNo = 0;

  constructor(
    private readonly file: string,
    private readonly visit: LineVisitor,
  ) {}

  /** Lines in `chunk`; its bytes are copied where a line goes on into the next chunk. */
  push(chunk: Buffer): void {
    let start = 0;
    const n = chunk.length;
    while (start < n) {
      if (this.partBytes === 0) {
        // Runs of blank lines without a call per line.
        while (start < n && chunk[start] === 0x0a) {
          this.lineNo++;
          start++;
        }
        if (start === n) return;
      }
      const nl = chunk.indexOf(0x0a, start);
      const end = nl < 0 ? n : nl;
      if (this.partBytes + (end - start) > MAX_LINE_BYTES)
        throw tooLong(this.file, this.lineNo + 1);
      if (nl < 0) {
        this.parts.push(Buffer.from(chunk.subarray(start, n)));
        this.partBytes += n - start;
        return;
      }
      const piece = chunk.subarray(start, nl);
      const bytes = this.parts.length === 0 ? piece : Buffer.concat([...this.parts, piece]);
      this.parts = [];
      this.partBytes = 0;
      this.lineNo++;
      const text = bytes.toString("utf8");
      if (text.trim() !== "") this.visit(text, this.lineNo);
      start = nl + 1;
    }
  }

  /** The text after the last "\n" (a write cut short by a crash). */
  end(): string {
    const tail = Buffer.concat(this.parts).toString("utf8");
    this.parts = [];
    this.partBytes = 0;
    return tail;
  }
}

/**
 * Calls `visit` for each line of `text` that is not blank (1-based numbers), without
 * splitting it into an array; returns the text after the last "\n".
 */
export function forEachLineOfText(text: string, file: string, visit: LineVisitor): string {
  let start = 0;
  let lineNo = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    if (nl < 0) break;
    lineNo++;
    if (nl - start > MAX_LINE_BYTES) throw tooLong(file, lineNo);
    if (nl > start) {
      const line = text.slice(start, nl);
      if (line.trim() !== "") visit(line, lineNo);
    }
    start = nl + 1;
  }
  if (text.length - start > MAX_LINE_BYTES) throw tooLong(file, lineNo + 1);
  return text.slice(start);
}

/**
 * Reads the results file at `path` (gunzipped when its name ends in .gz) line by
 * line, calling `visit` for each line that is not blank; returns the text after
 * its last "\n", or null when there is no such file. Anything but a regular file
 * (after links) is refused rather than read: a FIFO would keep the reader waiting
 * for a writer. A .gz file that is not gzip, or is cut short or corrupt, is a
 * DataFormatError naming it: none of its lines is used, as which of them are whole
 * is unknown.
 */
export function forEachResultsLine(path: string, visit: LineVisitor): { tail: string } | null {
  let isFile: boolean;
  try {
    isFile = statSync(path).isFile();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw fileError(err, "read", path);
  }
  if (!isFile) {
    throw new DataFormatError(path, "not a regular file (a folder, a FIFO or a device).");
  }
  const splitter = new LineSplitter(path, visit);
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (err) {
    throw fileError(err, "read", path);
  }
  try {
    if (path.endsWith(".gz")) {
      splitter.push(gunzipResults(readAll(fd, path), path));
    } else {
      const chunk = Buffer.alloc(CHUNK_BYTES);
      for (;;) {
        const n = readChunk(fd, chunk, path);
        if (n === 0) break;
        splitter.push(chunk.subarray(0, n));
      }
    }
  } finally {
    closeSync(fd);
  }
  return { tail: splitter.end() };
}

function readChunk(fd: number, chunk: Buffer, path: string): number {
  try {
    return readSync(fd, chunk, 0, chunk.length, null);
  } catch (err) {
    throw fileError(err, "read", path);
  }
}

function readAll(fd: number, path: string): Buffer {
  const parts: Buffer[] = [];
  for (;;) {
    const chunk = Buffer.alloc(CHUNK_BYTES);
    const n = readChunk(fd, chunk, path);
    if (n === 0) break;
    parts.push(n === chunk.length ? chunk : chunk.subarray(0, n));
  }
  return Buffer.concat(parts);
}

/** The inflated bytes of a .gz results file, or a DataFormatError naming it. */
export function gunzipResults(bytes: Uint8Array, file: string): Buffer {
  if (bytes.length < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    throw new DataFormatError(
      file,
      "not a gzip file (it does not start with the gzip signature 1f 8b), although its name ends in .gz.",
    );
  }
  let inflated: Uint8Array;
  try {
    inflated = nodeInflater.gunzip(bytes, MAX_INFLATED);
  } catch (err) {
    if (!(err instanceof InflateError)) throw err;
    const why =
      err.reason === "truncated"
        ? "its gzip data ends early (the file is cut short)"
        : err.reason === "too-large"
          ? `it inflates to more than ${MAX_INFLATED} bytes, more than a results file holds`
          : `its gzip data is corrupt (${err.message})`;
    throw new DataFormatError(file, `${why}; none of its lines was read.`);
  }
  return Buffer.from(inflated.buffer, inflated.byteOffset, inflated.byteLength);
}
