/**
 * The guards around h5wasm: corrupt HDF5 files end in DataFormatErrors, errors
 * HDF5 only prints are not lost, corrupt sizes cannot grow the wasm heap, and
 * many failures in a row leave the reader working.
 */
import { readFileSync } from "node:fs";
import h5wasm from "h5wasm";
import { DataFormatError } from "sdspcaan";
import { dataFile, fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { parseDataset } from "#internal/io/load.js";

const musk = new Uint8Array(readFileSync(dataFile("Musk1.mat")));

function flipped(at: number, bit: number): Uint8Array {
  const b = musk.slice();
  b[at] ^= 1 << bit;
  return b;
}

async function refusal(bytes: Uint8Array, name: string): Promise<DataFormatError> {
  const err = await parseDataset(bytes, name).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DataFormatError);
  expect((err as DataFormatError).file).toBe(name);
  return err as DataFormatError;
}

describe("HDF5 / MAT v7.3 guards", () => {
  it("refuses a corrupt compressed chunk instead of returning zeros", async () => {
    // h5wasm returns the dataset (zero-filled) when a chunk fails to inflate; HDF5
    // only prints the error. The captured diagnostics turn that into a refusal.
    for (const at of [20_000, 80_000, 150_000]) {
      const err = await refusal(flipped(at, 4), "chunk.mat");
      expect(err.message).toContain("variable 'data'");
      expect(err.message).toContain("HDF5 reported an error");
    }
  });

  it("does not let a corrupt chunk size grow the wasm heap", async () => {
    const M = await h5wasm.ready;
    const before = M.HEAPU8.length;
    // This bit makes HDF5 try to allocate a chunk buffer of hundreds of MB.
    const err = await refusal(flipped(2139, 5), "chunksize.mat");
    expect(err.message).toContain("variable 'data'");
    expect(M.HEAPU8.length - before).toBeLessThan(80 * 1024 * 1024);
  });

  it("refuses truncated files, a MATLAB 7.3 header without HDF5, and a bad superblock", async () => {
    for (const cut of [600, 2000, 40_000, musk.length - 100]) {
      await refusal(musk.subarray(0, cut), "cut.mat");
    }
    const headerOnly = musk.slice(0, 1024);
    headerOnly.fill(0, 512);
    expect((await refusal(headerOnly, "nohdf.mat")).message).toContain("v7.3");
    const badVersion = musk.slice();
    badVersion[512 + 8] = 9;
    expect((await refusal(badVersion, "super.mat")).message).toContain("superblock version 9");
  });

  it("keeps working after hundreds of failed reads and leaves no files behind", async () => {
    const small = new Uint8Array(readFileSync(fixtureFile("io/rt_v73.mat")));
    for (let k = 0; k < 300; k++) {
      const cut = 520 + ((k * 7919) % (small.length - 600));
      await parseDataset(small.subarray(0, cut), "many.mat").catch((e: unknown) => {
        expect(e).toBeInstanceOf(DataFormatError);
      });
    }
    const ds = await parseDataset(musk, "Musk1.mat");
    expect([ds.X.rows, ds.X.cols]).toEqual([476, 166]);
    const M = await h5wasm.ready;
    expect(M.FS.readdir("/").filter((f: string) => f.startsWith("sdspcaan-"))).toEqual([]);
  });
});
