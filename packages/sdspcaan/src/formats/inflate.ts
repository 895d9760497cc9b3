/**
 * zlib inflation as the MAT v5 reader needs it (and gunzipping, for IDX files),
 * without depending on where it runs.
 * Node passes node:zlib (src/io/zlib.ts); browsers have no synchronous inflate, only
 * the asynchronous `DecompressionStream`, so there the compressed elements of a file
 * are inflated up front (`inflatedAhead`) and the synchronous reader is served from
 * the results. Both report failures the same way, so a corrupt file gets the same
 * message in the CLI and in the browser.
 */
import { DataFormatError } from "../core/errors.js";

/** Why an inflation failed. */
export type InflateFailure = "too-large" | "truncated" | "corrupt";

/** A failed inflation: the reason, and the inflater's own words for "corrupt". */
export class InflateError extends Error {
  constructor(
    readonly reason: InflateFailure,
    message: string,
  ) {
    super(message);
    this.name = "InflateError";
  }
}

/** A synchronous zlib inflater. */
export interface Inflater {
  /**
   * Inflates a whole zlib stream into at most `maxOutput` bytes; throws an
   * InflateError when the stream is corrupt or truncated or expands further.
   */
  inflate(payload: Uint8Array, maxOutput: number): Uint8Array;
  /**
   * Inflates what the first bytes of a stream give (a sync flush), at most
   * `maxOutput` bytes, to read a header without inflating everything; null when
   * nothing can be had.
   */
  inflatePrefix(payload: Uint8Array, maxOutput: number): Uint8Array | null;
  /** `inflate` for a gzip file (RFC 1952: header, deflate data, CRC-32 and length). */
  gunzip(payload: Uint8Array, maxOutput: number): Uint8Array;
  /**
   * `inflatePrefix` for a gzip file: what its first bytes give, to read the header
   * of the file inside (its declared size) before inflating all of it. Without it a
   * gzip file is inflated up to the maxBytes limit before its header is read.
   */
  gunzipPrefix?(payload: Uint8Array, maxOutput: number): Uint8Array | null;
}

/** What an asynchronous inflation produced: all of it, or what came before a failure. */
export interface InflateResult {
  readonly output: Uint8Array;
  /** Null when the stream inflated completely within the bound. */
  readonly failure: InflateError | null;
}

/** The two stream formats read: zlib (MAT v5's "deflate" in the streams API) and gzip (IDX). */
export type StreamFormat = "deflate" | "gzip";

/** An asynchronous inflater such as `DecompressionStream`; a zlib stream unless `format` says gzip. */
export type AsyncInflate = (
  payload: Uint8Array,
  maxOutput: number,
  format?: StreamFormat,
) => Promise<InflateResult>;

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * Chromium says "truncated"; Node's stream "unexpected end of file" with code
 * Z_BUF_ERROR. Chromium wraps zlib's own words ("The compressed data was not valid:
 * invalid distance too far back."): unwrapped, a corrupt stream reads as in the CLI.
 */
function classify(err: unknown): InflateError {
  // Node >= 22 throws a TypeError with an empty message and zlib's own error as its
  // `cause` (Node 20 throws zlib's error itself): read the words where they are.
  const cause = (err as { cause?: unknown }).cause;
  const source = err instanceof Error && err.message === "" && cause instanceof Error ? cause : err;
  const raw = source instanceof Error ? source.message : String(source);
  const code = (err as { code?: unknown }).code ?? (source as { code?: unknown }).code;
  const truncated =
    code === "Z_BUF_ERROR" || /truncat|unexpected end|end of (file|input|stream)/i.test(raw);
  const wrapped = /^The compressed data was not valid:\s*(.*?)\.?$/i.exec(raw);
  return new InflateError(truncated ? "truncated" : "corrupt", wrapped ? wrapped[1] : raw);
}

/** The parts of the streams API used here (the DOM typings are not loaded). */
interface StreamCtor {
  new (
    format: StreamFormat,
  ): {
    readable: {
      getReader(): {
        read(): Promise<{ done: boolean; value?: Uint8Array }>;
        cancel(): Promise<void>;
      };
    };
    writable: {
      getWriter(): { write(chunk: Uint8Array): Promise<void>; close(): Promise<void> };
    };
  };
}

/** True where the platform offers `DecompressionStream` (browsers, Node >= 18). */
export function hasDecompressionStream(): boolean {
  return (
    typeof (globalThis as { DecompressionStream?: unknown }).DecompressionStream === "function"
  );
}

/**
 * Inflates a zlib stream with the platform's `DecompressionStream`, reading its output
 * as it comes and stopping once it passes `maxOutput` bytes (so a hostile stream
 * cannot fill the memory).
 */
export const decompressionStreamInflate: AsyncInflate = async (
  payload,
  maxOutput,
  format = "deflate",
) => {
  const Ctor = (globalThis as unknown as { DecompressionStream?: StreamCtor }).DecompressionStream;
  if (Ctor === undefined) {
    throw new Error(
      format === "gzip"
        ? "This platform has no DecompressionStream, which reading gzip-compressed files needs: use a current browser, or decompress the file first (gunzip)."
        : "This platform has no DecompressionStream, which reading compressed MAT-files needs: use a current browser, or save the file without compression (MATLAB: save -v6; scipy: savemat(do_compression=False)) or as CSV.",
    );
  }
  const stream = new Ctor(format);
  const writer = stream.writable.getWriter();
  // Write errors surface on the readable side too; swallow them here.
  writer.write(payload).then(
    () => writer.close().catch(() => {}),
    () => {},
  );
  const reader = stream.readable.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done || value === undefined) break;
      chunks.push(value);
      total += value.length;
      if (total > maxOutput) {
        await reader.cancel().catch(() => {});
        return {
          output: concat(chunks, total).subarray(0, maxOutput),
          failure: new InflateError("too-large", `more than ${maxOutput} bytes`),
        };
      }
    }
  } catch (err) {
    return { output: concat(chunks, total), failure: classify(err) };
  }
  return { output: concat(chunks, total), failure: null };
};

/**
 * A synchronous inflater over streams inflated beforehand, keyed by where each
 * payload starts in the file (zlib or gzip, whichever the caller inflated there). A
 * payload that was not inflated ahead is a bug in the caller, not a property of the
 * file, so it throws a plain Error.
 */
export function inflatedAhead(results: ReadonlyMap<number, InflateResult>): Inflater {
  const find = (payload: Uint8Array): InflateResult => {
    const r = results.get(payload.byteOffset);
    if (r === undefined)
      throw new Error(`no inflated data for the stream at ${payload.byteOffset}`);
    return r;
  };
  const whole = (payload: Uint8Array, maxOutput: number): Uint8Array => {
    const r = find(payload);
    // zlib reports a broken stream before the size bound (it inflates small streams in one go).
    if (r.failure !== null && r.failure.reason !== "too-large") throw r.failure;
    if (r.output.length > maxOutput || r.failure !== null) {
      throw new InflateError("too-large", `more than ${maxOutput} bytes`);
    }
    return r.output;
  };
  return {
    inflate: whole,
    gunzip: whole,
    inflatePrefix(payload, maxOutput) {
      const r = find(payload);
      return r.output.length === 0 ? null : r.output.subarray(0, maxOutput);
    },
    gunzipPrefix(payload, maxOutput) {
      const r = find(payload);
      // As zlib's prefix: nothing from a stream that breaks there.
      const broken = r.failure !== null && r.failure.reason !== "too-large";
      return r.output.length === 0 || broken ? null : r.output.subarray(0, maxOutput);
    },
  };
}

/**
 * The inflater of a caller that passed none: reading anything compressed is refused
 * with a DataFormatError naming the file and saying what to pass. `asyncCall` names the
 * asynchronous reader a synchronous `call` has, which inflates by itself.
 */
export function noInflater(file: string, call: string, asyncCall?: string): Inflater {
  const what =
    asyncCall === undefined
      ? `and this platform has no DecompressionStream for ${call} to decompress it with: pass an inflater as its fourth argument (in Node, nodeInflater of "sdspcaan/node")`
      : `and ${call} was given no inflater to decompress it: pass one as its fourth argument (in Node, nodeInflater of "sdspcaan/node"), or read it with ${asyncCall}, which decompresses with the platform's DecompressionStream`;
  const refuse = (): never => {
    throw new DataFormatError(file, `is compressed (zlib or gzip), ${what}`);
  };
  return { inflate: refuse, gunzip: refuse, inflatePrefix: refuse, gunzipPrefix: refuse };
}

/**
 * The asynchronous readers' inflater when the caller passes none: the platform's
 * `DecompressionStream` (browsers, Node >= 18, Bun, Deno), else a refusal naming `call`.
 */
export function platformInflate(file: string, call: string): AsyncInflate | Inflater {
  return hasDecompressionStream() ? decompressionStreamInflate : noInflater(file, call);
}

/**
 * An inflater over streams inflated ahead with the asynchronous `inflate` (a browser's
 * DecompressionStream): `add` inflates one payload (within `maxOutput` bytes) and keeps
 * the result where `inflater` (inflatedAhead) finds it, so that a synchronous reader
 * can then run on the file with the same bounds and messages.
 */
export function inflaterAhead(inflate: AsyncInflate): {
  readonly inflater: Inflater;
  /** Inflates `payload` and keeps the result (replacing one kept before); returns it too. */
  add(payload: Uint8Array, maxOutput: number, format?: StreamFormat): Promise<InflateResult>;
} {
  const results = new Map<number, InflateResult>();
  return {
    inflater: inflatedAhead(results),
    async add(payload, maxOutput, format) {
      const result = await inflate(payload, maxOutput, format);
      results.set(payload.byteOffset, result);
      return result;
    },
  };
}
