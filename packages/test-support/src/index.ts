/**
 * sdspcaan-test-support: what the packages' tests share (private, never published):
 * the repository's data sets and committed fixtures, MAT v5 files written byte by byte,
 * temporary folders, the small seeded data set, and the guard of the process-wide
 * state the shared test projects run after every file. It reaches the library only
 * through its public entries.
 */

export { float64Bytes, npyBytes } from "./bytes.js";
export { dataDir, dataFile, fixtureFile, readDataFile, repoRoot } from "./data.js";
export { errorOf, rejectionOf } from "./errors.js";
export { removeDir, tempDir } from "./files.js";
export {
  CLASS,
  cellColumn,
  chars,
  concatBytes,
  emptyDouble,
  encodeValues,
  MI,
  matElements,
  matrixPayload,
  numeric,
  type WriteArray,
  writeMatV5,
} from "./matWriter.js";
export { once } from "./once.js";
export {
  guardProcessState,
  type ProcessProbe,
  processStateSnapshot,
  restoreProcessState,
  type Snapshot,
} from "./processState.js";
export { smallData, smallRows } from "./synthetic.js";
