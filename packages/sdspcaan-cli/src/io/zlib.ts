/** The Node API's level 5 MAT reader: the library's, with node:zlib as its inflater. */
import type { MatV5Contents, ReadLimits } from "sdspcaan/formats";
import { readMatV5 as readMatV5With } from "sdspcaan/formats";
import { nodeInflater } from "sdspcaan/node";

/** Reads the variables of a level 5 MAT-file (values decoded on demand). */
export function readMatV5(bytes: Uint8Array, file: string, limits?: ReadLimits): MatV5Contents {
  return readMatV5With(bytes, file, limits, nodeInflater);
}
