/**
 * The level 5 MAT-file reader (src/formats/matV5.ts) with node:zlib for its
 * compressed variables: the Node API's `readMatV5(bytes, file, limits)`.
 */

import type { ReadLimits } from "../formats/limits.js";
import { type MatV5Contents, readMatV5 as readMatV5With } from "../formats/matV5.js";
import { nodeInflater } from "./zlib.js";

/** Reads the variables of a level 5 MAT-file (values decoded on demand). */
export function readMatV5(bytes: Uint8Array, file: string, limits?: ReadLimits): MatV5Contents {
  return readMatV5With(bytes, file, limits, nodeInflater);
}
