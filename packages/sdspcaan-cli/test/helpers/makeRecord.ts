import type { Params } from "#internal/protocol/grids.js";
import type { FitRecord } from "#internal/protocol/records.js";

/** A fit record with defaults for the fields a test does not care about. */
export function rec(
  fields: Partial<FitRecord> & { k: number; valBCA: number; testBCA: number; params?: Params },
): FitRecord {
  return {
    dataset: "D",
    repeat: 0,
    method: "sdspcaan",
    params: {},
    iterations: 3,
    converged: true,
    fitMs: 10,
    ...fields,
  };
}

/** A PCA fit record at k (the one the results-file tests write line after line). */
export function pcaRecord(k: number, extra: Partial<FitRecord> = {}): FitRecord {
  return {
    dataset: "D",
    repeat: 0,
    method: "pca",
    k,
    params: {},
    valBCA: 0.5,
    testBCA: 0.25,
    iterations: 1,
    converged: true,
    fitMs: 3,
    ...extra,
  };
}
