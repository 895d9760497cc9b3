/**
 * node:zlib as the format readers' `Inflater` (inflate.ts): zlib streams for MAT v5,
 * gzip files for IDX; synchronous, with the output bounded by zlib itself, and its error
 * codes mapped to the reasons the readers report. Node only: exported from
 * `sdspcaan/node`, never from the browser-safe entries.
 */
import { gunzipSync, inflateSync, constants as zlibConstants } from "node:zlib";
import { InflateError, type Inflater } from "./inflate.js";

/** A whole stream through node:zlib, its failures as InflateErrors. */
function bounded(
  run: (payload: Uint8Array, options: { maxOutputLength: number }) => Uint8Array,
  payload: Uint8Array,
  maxOutput: number,
): Uint8Array {
  try {
    return run(payload, { maxOutputLength: maxOutput });
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === "ERR_BUFFER_TOO_LARGE") {
      throw new InflateError("too-large", `more than ${maxOutput} bytes`);
    }
    throw new InflateError(e.code === "Z_BUF_ERROR" ? "truncated" : "corrupt", e.message);
  }
}

/**
 * What the start of a stream gives (a sync flush), at most `maxOutput` bytes, or null
 * when zlib refuses it. zlib stops at the bound with an error rather than the output so
 * far, so past it the longest start of the input whose output fits is found by
 * bisection (as a browser's inflater, read as far as the bound, gives that much).
 */
function prefix(
  run: typeof inflateSync,
  payload: Uint8Array,
  maxOutput: number,
): Uint8Array | null {
  const options = { finishFlush: zlibConstants.Z_SYNC_FLUSH, maxOutputLength: maxOutput };
  const attempt = (n: number): Uint8Array | "too-large" | null => {
    try {
      return run(payload.subarray(0, n), options);
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" ? "too-large" : null;
    }
  };
  const whole = attempt(payload.length);
  if (whole !== "too-large") return whole;
  let best: Uint8Array | null = null;
  for (let lo = 1, hi = payload.length - 1; lo <= hi; ) {
    const mid = (lo + hi) >>> 1;
    const out = attempt(mid);
    if (out === "too-large" || out === null) hi = mid - 1;
    else {
      best = out;
      lo = mid + 1;
    }
  }
  return best;
}

/** The readers' inflater on node:zlib: pass it to `parseBytes` and the MAT and IDX readers in Node. */
export const nodeInflater: Inflater = {
  inflate: (payload, maxOutput) => bounded(inflateSync, payload, maxOutput),
  gunzip: (payload, maxOutput) => bounded(gunzipSync, payload, maxOutput),
  inflatePrefix: (payload, maxOutput) => prefix(inflateSync, payload, maxOutput),
  gunzipPrefix: (payload, maxOutput) => prefix(gunzipSync, payload, maxOutput),
};
