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

/** The readers' inflater on node:zlib: pass it to `parseBytes` and the MAT and IDX readers in Node. */
export const nodeInflater: Inflater = {
  inflate: (payload, maxOutput) => bounded(inflateSync, payload, maxOutput),
  gunzip: (payload, maxOutput) => bounded(gunzipSync, payload, maxOutput),
  inflatePrefix(payload, maxOutput) {
    try {
      return inflateSync(payload, {
        finishFlush: zlibConstants.Z_SYNC_FLUSH,
        maxOutputLength: maxOutput,
      });
    } catch {
      return null;
    }
  },
};
