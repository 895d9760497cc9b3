/**
 * Delimited text read from a file as a stream: chunks of the file (or of node:zlib's
 * streaming gunzip for data.csv.gz) go straight into the library's DelimitedReader,
 * so neither the file nor its text is ever held whole; memory is the parsed matrix.
 * The format is told from the first bytes as `detectFormat` tells it from the whole
 * file (its signatures all sit within the first few KiB), and anything that is not
 * delimited text is left to the whole-file readers.
 */
import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { DataFormatError, SdspcaanError } from "../core/errors.js";
import { pickOptions } from "../core/options.js";
import { checkCallOptions } from "../core/validate.js";
import { DELIMITED_OPTION_NAMES, DelimitedReader } from "../formats/csv.js";
import { isGzip } from "../formats/idx.js";
import { formatBytes, MAX_DEFLATE_RATIO, maxBytesOf } from "../formats/limits.js";
import {
  detectFormat,
  formatToRead,
  PARSE_OPTION_NAMES,
  type ParseOptions,
} from "../formats/parse.js";
import type { LoadedDataset } from "../formats/variables.js";
import { openInputFile, readAt } from "./inputFiles.node.js";

/** Bytes read at a time, and the first bytes the format is told from. */
const CHUNK = 1 << 20;
const HEAD = 64 * 1024;

/** Thrown inside the gunzip pipeline when the inflated file is not delimited text. */
class NotText extends Error {}

/** The text format the first bytes show ("csv"/"tsv"), else null. */
function textFormat(head: Uint8Array, name: string, options: ParseOptions): "csv" | "tsv" | null {
  const format = detectFormat(head, name, options.format);
  return format === "csv" || format === "tsv" ? format : null;
}

/**
 * The data set of `path` when it is delimited text (plain or gzip-compressed), read
 * as a stream; null when it is another format. The file is checked as every input
 * is (a regular file within maxBytes); a .gz may inflate to maxBytes of text.
 */
export async function streamDataset(
  path: string,
  options: ParseOptions,
): Promise<LoadedDataset | null> {
  checkCallOptions(options, "streamDataset", PARSE_OPTION_NAMES);
  const { handle, size } = await openInputFile(path, "data file", options);
  try {
    const first = new Uint8Array(Math.min(HEAD, size));
    const got = await readAt(handle, first, first.length, 0);
    const head = first.subarray(0, got);
    const format = formatToRead(head, path, options);
    if (format === "gzip") return await streamGzipped(path, options, handle, size);
    if (format !== "csv" && format !== "tsv") return null;
    const reader = new DelimitedReader(path, pickOptions(options, DELIMITED_OPTION_NAMES), format);
    reader.push(head);
    const buffer = new Uint8Array(CHUNK);
    for (let position = got; ; ) {
      const n = await readAt(handle, buffer, CHUNK, position);
      if (n === 0) break;
      reader.push(buffer.subarray(0, n));
      position += n;
    }
    return reader.finish();
  } finally {
    await handle.close();
  }
}

/** A delimited file's header decision, as `DelimitedReader.headerDecision` gives it. */
export type HeaderDecision = NonNullable<DelimitedReader["headerDecision"]>;

/**
 * The header decision of a plain delimited file, from its first rows only (a command
 * that leaves the reading to others says it up front); null for another format, a
 * .gz, or a file the reader refuses before deciding (the load reports it).
 */
export async function peekHeader(
  path: string,
  options: ParseOptions,
): Promise<HeaderDecision | null> {
  checkCallOptions(options, "peekHeader", PARSE_OPTION_NAMES);
  let handle: FileHandle;
  try {
    handle = (await openInputFile(path, "data file", options)).handle;
  } catch (err) {
    if (err instanceof SdspcaanError) return null;
    throw err;
  }
  let reader: DelimitedReader | null = null;
  try {
    const buffer = new Uint8Array(HEAD);
    const got = await readAt(handle, buffer, HEAD, 0);
    const head = buffer.subarray(0, got);
    const format = isGzip(head) ? null : textFormat(head, path, options);
    if (format === null) return null;
    reader = new DelimitedReader(path, pickOptions(options, DELIMITED_OPTION_NAMES), format);
    reader.push(head);
    for (let position = got; reader.headerDecision === null; ) {
      const n = await readAt(handle, buffer, HEAD, position);
      if (n === 0) {
        // A short file: the first lines are all there is.
        reader.finish();
        break;
      }
      reader.push(buffer.subarray(0, n));
      position += n;
    }
    return reader.headerDecision;
  } catch (err) {
    if (err instanceof SdspcaanError) return reader?.headerDecision ?? null;
    throw err;
  } finally {
    await handle.close();
  }
}

async function streamGzipped(
  path: string,
  options: ParseOptions,
  handle: FileHandle,
  size: number,
): Promise<LoadedDataset | null> {
  const maxBytes = maxBytesOf(options);
  // As the whole-file reader bounds it: the limit, or what deflate can encode in this many bytes.
  const cap = Math.min(maxBytes, size * MAX_DEFLATE_RATIO + 1024);
  const inner = path.replace(/\.gz$/i, "");
  let reader: DelimitedReader | null = null;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let inflated = 0;
  /** The reader for the inflated head, or null when it is not delimited text. */
  const start = (): DelimitedReader | null => {
    const head = Buffer.concat(pending);
    pending = [];
    if (isGzip(head)) {
      throw new DataFormatError(
        path,
        "is gzip-compressed twice; decompress it once (gunzip) first",
      );
    }
    const format = textFormat(head, inner, options);
    if (format === null) return null;
    const r = new DelimitedReader(path, pickOptions(options, DELIMITED_OPTION_NAMES), format);
    r.push(head);
    return r;
  };
  async function* chunks() {
    const buffer = Buffer.alloc(CHUNK);
    for (let position = 0; ; ) {
      const n = await readAt(handle, buffer, CHUNK, position);
      if (n === 0) return;
      position += n;
      // zlib keeps no reference past the write, but the next read reuses the buffer.
      yield Buffer.from(buffer.subarray(0, n));
    }
  }
  // What the consumer threw: the pipeline may reject with its own abort error instead.
  let failure: unknown = null;
  const consume = async (source: AsyncIterable<Buffer>) => {
    try {
      for await (const chunk of source) {
        inflated += chunk.length;
        if (inflated > cap) {
          throw new DataFormatError(
            path,
            `the gzip stream inflates to more than ${formatBytes(cap)}${cap === maxBytes ? " (the maxBytes limit)" : " (beyond what deflate can encode in this many bytes: corrupt)"}`,
          );
        }
        if (reader !== null) {
          reader.push(chunk);
          continue;
        }
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes < HEAD) continue;
        reader = start();
        if (reader === null) throw new NotText();
      }
    } catch (err) {
      failure = err;
      throw err;
    }
  };
  try {
    await pipeline(Readable.from(chunks()), createGunzip(), consume);
  } catch (thrown) {
    const err = failure ?? thrown;
    if (err instanceof NotText) return null;
    if (err instanceof SdspcaanError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "Z_BUF_ERROR") throw new DataFormatError(path, "the gzip stream is truncated");
    throw new DataFormatError(path, `corrupt gzip stream (${(err as Error).message})`);
  }
  if (reader === null) reader = start();
  return reader === null ? null : reader.finish();
}
