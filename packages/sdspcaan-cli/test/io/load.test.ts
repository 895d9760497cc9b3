/**
 * The file loader's own decisions: the format is told once from the bytes read, and
 * what follows from it (an IDX file's labels companion, the reader) uses that one
 * answer, so a forced format means for a gzip-compressed file what it means to
 * `parseBytes`: the format of what the gzip holds.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { float64Bytes, npyBytes, removeDir, tempDir } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import { loadDataset, loadFeatures } from "#internal/io/load.js";

const dir = tempDir("load");
afterAll(() => removeDir(dir));

const rows = [
  [1.5, 2, 0],
  [3, 4.25, 1],
  [5, 6, 0],
  [7, 8.5, 1],
];
const npy = npyBytes(
  "{'descr': '<f8', 'fortran_order': False, 'shape': (4, 3), }",
  float64Bytes(rows),
);

describe("loadDataset on a gzip-compressed file with a forced format", () => {
  it("reads X.npy.gz with format npy as the .npy it holds", async () => {
    const path = join(dir, "X.npy.gz");
    writeFileSync(path, gzipSync(npy));
    const ds = await loadDataset(path, { format: "npy" });
    expect(ds.info.format).toBe("npy");
    expect(ds.X.rows).toBe(4);
    expect(Array.from(ds.X.data)).toEqual(rows.flatMap((r) => r.slice(0, 2)));
    expect(ds.y).toEqual([0, 1, 0, 1]);
  });

  it("reads it without labels as loadFeatures does, every column a feature", async () => {
    const path = join(dir, "features.npy.gz");
    writeFileSync(path, gzipSync(npy));
    const { X, y } = await loadFeatures(path, { format: "npy" });
    expect(Array.from(X.data)).toEqual(rows.flat());
    expect(y).toBeNull();
  });
});
