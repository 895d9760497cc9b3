/**
 * Size limits shared by the readers. A corrupt or hostile header can declare any
 * size; nothing is allocated before the declared size has been checked against
 * the bytes actually present and against these caps.
 */
import { ValidationError } from "../core/errors.js";
import { describeValue } from "../core/validate.js";

/** Default cap on any single buffer a reader allocates (decompressed data, decoded float64). */
export const DEFAULT_MAX_BYTES = 2 ** 31;

/**
 * Deflate cannot expand data by more than about 1032:1 (a 258-byte match costs at
 * least 2 bits), so a compressed stream claiming more than this is corrupt.
 */
export const MAX_DEFLATE_RATIO = 1032;

/**
 * The most `compressedBytes` of a zlib or gzip stream can inflate to: deflate's ratio,
 * and a kilobyte for the headers and the first blocks of a small stream.
 */
export function deflateBound(compressedBytes: number): number {
  return compressedBytes * MAX_DEFLATE_RATIO + 1024;
}

/** Options every binary reader accepts. */
export interface ReadLimits {
  /** Cap in bytes on any single buffer the reader allocates; default 2 GiB. */
  maxBytes?: number;
}

/**
 * The cap of `limits`, or the default when it names none. Every reader and loader
 * takes its cap from here, so this is the one check of the option: a value that is
 * not a positive finite number would otherwise switch the limit off without a word.
 * Infinity is refused too: past the cap a reader would ask for a buffer no engine
 * can allocate, and fail with a RangeError instead of a message naming the file.
 */
export function maxBytesOf(limits: ReadLimits | undefined): number {
  const m: unknown = limits?.maxBytes;
  if (m === undefined) return DEFAULT_MAX_BYTES;
  if (typeof m !== "number" || !Number.isFinite(m) || m <= 0) {
    throw new ValidationError(
      "maxBytes",
      `maxBytes must be a positive finite number of bytes (the largest buffer a reader may allocate; default ${DEFAULT_MAX_BYTES}, 2 GiB). Got ${describeValue(m)} instead.`,
    );
  }
  return m;
}

/** "12.3 MiB" for messages. */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (n < 1024) return `${n} bytes`;
  const units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
  let v = n / 1024;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

/**
 * The number of values `dims` declare, exactly: a corrupt header's sizes can
 * multiply past 2^53, where a double would round (or overflow to Infinity) and a
 * message would quote a number the file never held.
 */
export function exactCount(dims: readonly (number | string)[]): bigint {
  let n = 1n;
  for (const d of dims) n *= BigInt(d);
  return n;
}

/**
 * Throws `fail`'s error when `count` values (declared by a header) exceed what
 * maxBytes allows as float64, the form every reader returns; `what` quotes the
 * declaration as the file wrote it.
 */
export function checkFloat64Size(
  count: bigint,
  maxBytes: number,
  what: string,
  fail: (problem: string) => never,
): void {
  if (count * 8n > BigInt(Math.floor(maxBytes))) {
    const need = Number(count) * 8;
    fail(
      `${what} declares ${count} values and needs ${Number.isFinite(need) ? formatBytes(need) : "more than any memory"} as float64, more than the ${formatBytes(maxBytes)} limit (maxBytes)`,
    );
  }
}
