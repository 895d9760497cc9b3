/**
 * The guards around h5wasm: corrupt HDF5 files end in DataFormatErrors whose message
 * is HDF5's outermost call and innermost cause, errors HDF5 only prints are not lost,
 * corrupt sizes cannot grow the wasm heap (and the heap's `grow` is given back), and
 * many failures in a row leave the reader working.
 */
import { readFileSync } from "node:fs";
import h5wasm from "h5wasm";
import { DataFormatError } from "sdspcaan";
import { withHdf5Variables } from "sdspcaan-hdf5";
import { dataFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";

const musk = new Uint8Array(readFileSync(dataFile("Musk1.mat")));

function flipped(at: number, bit: number): Uint8Array {
  const b = musk.slice();
  b[at] ^= 1 << bit;
  return b;
}

/** Every variable's values, read while the file is open. */
function readAll(bytes: Uint8Array, name: string) {
  return withHdf5Variables(bytes, name, ({ variables }) =>
    variables.map((v) => [v.name, v.values().data] as const),
  );
}

async function refusal(bytes: Uint8Array, name: string): Promise<string> {
  const err = await readAll(bytes, name).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DataFormatError);
  expect((err as DataFormatError).file).toBe(name);
  return (err as DataFormatError).message;
}

const grow = (
  globalThis as unknown as { WebAssembly: { Memory: { prototype: { grow: unknown } } } }
).WebAssembly.Memory.prototype;

describe("HDF5 / MAT v7.3 guards", () => {
  it("refuses a corrupt compressed chunk instead of returning zeros", async () => {
    // h5wasm returns the dataset (zero-filled) when a chunk fails to inflate; HDF5
    // only prints the error. The captured diagnostics turn that into a refusal.
    for (const at of [20_000, 80_000, 150_000]) {
      expect(await refusal(flipped(at, 4), "chunk.mat")).toBe(
        "chunk.mat: variable 'data': HDF5 reported an error: can't synchronously read data (filter returned failure during read)",
      );
    }
  });

  it("does not let a corrupt chunk size grow the wasm heap, and gives the heap's grow back", async () => {
    const M = await h5wasm.ready;
    const before = M.HEAPU8.length;
    const original = grow.grow;
    // This bit makes HDF5 try to allocate a chunk buffer of hundreds of MB.
    expect(await refusal(flipped(2139, 5), "chunksize.mat")).toBe(
      "chunksize.mat: variable 'data': HDF5 reported an error: can't synchronously read data: it declares more memory than the file can hold (corrupt sizes)",
    );
    expect(M.HEAPU8.length - before).toBeLessThan(80 * 1024 * 1024);
    expect(grow.grow).toBe(original);
    expect((await readAll(musk, "Musk1.mat")).map(([name, data]) => [name, data.length])).toEqual([
      ["data", 476 * 167],
    ]);
    expect(grow.grow).toBe(original);
  });

  it("lets the wasm heap grow within the budget of a large read", async () => {
    const M = await h5wasm.ready;
    // More values than the heap now holds bytes: reading them must grow it. Written
    // as one chunk of noise (so that deflate's ratio allows the rest) and chunks of
    // zeros, a chunk a write, so that writing the file does not grow the heap.
    const count = Math.max(2 ** 22, M.HEAPU8.length / 8 + 2 ** 20);
    const written = Float64Array.from(
      { length: 2 ** 14 },
      (_, i) => Math.sin(i * 12.9898) * 43758.5453,
    );
    const path = "/matV73Guards-large.h5";
    const f = new h5wasm.File(path, "w");
    const ds = f.create_dataset({
      name: "x",
      data: written,
      shape: [written.length],
      dtype: "<d",
      maxshape: [null],
      chunks: [written.length],
      compression: 1,
    });
    ds.resize([count]);
    const zeros = new Float64Array(written.length);
    for (let start = written.length; start < count; start += zeros.length) {
      const end = Math.min(count, start + zeros.length);
      ds.write_slice([[start, end]], zeros.subarray(0, end - start));
    }
    f.close();
    const bytes = (M.FS.readFile(path) as Uint8Array).slice();
    M.FS.unlink(path);
    const before = M.HEAPU8.length;
    const [[, data]] = await readAll(bytes, "large.h5");
    expect(data.length).toBe(count);
    expect(data.subarray(0, written.length)).toEqual(written);
    expect(data.subarray(written.length).every((x) => x === 0)).toBe(true);
    expect(M.HEAPU8.length).toBeGreaterThan(before);
  });

  it("refuses truncated files, a MATLAB 7.3 header without HDF5, and a bad superblock", async () => {
    for (const cut of [600, 2000, 40_000, musk.length - 100]) {
      expect(await refusal(musk.subarray(0, cut), "cut.mat")).toBe(
        `cut.mat: opening the HDF5 file: HDF5 reported an error: unable to synchronously open file (truncated file: eof = ${cut - 512}, sblock->base_addr = 512, stored_eof = ${musk.length})`,
      );
    }
    const headerOnly = musk.slice(0, 1024);
    headerOnly.fill(0, 512);
    expect(await refusal(headerOnly, "nohdf.mat")).toBe(
      "nohdf.mat: not an HDF5 file (no HDF5 signature at byte 0, 512, 1024, ...); a MAT v7.3 file may be truncated",
    );
    const badVersion = musk.slice();
    badVersion[512 + 8] = 9;
    expect(await refusal(badVersion, "super.mat")).toBe(
      "super.mat: unknown HDF5 superblock version 9",
    );
  });

  it("closes each file it opened, read or refused", async () => {
    const M = await h5wasm.ready;
    // HDF5 opens a file through the wasm module's file system: an open file keeps a stream.
    const streams = () =>
      (M.FS as unknown as { streams: unknown[] }).streams.filter((x) => x != null).length;
    const before = streams();
    expect((await readAll(musk, "Musk1.mat")).length).toBe(1);
    expect(streams()).toBe(before);
    await refusal(flipped(20_000, 4), "chunk.mat");
    expect(streams()).toBe(before);
  });

  it("keeps working after hundreds of failed reads and leaves no files behind", async () => {
    const M = await h5wasm.ready;
    const path = "/matV73Guards-small.h5";
    const f = new h5wasm.File(path, "w");
    f.create_dataset({ name: "x", data: Float64Array.of(1, 2, 3, 4, 5, 6), shape: [2, 3] });
    f.close();
    const small = (M.FS.readFile(path) as Uint8Array).slice();
    M.FS.unlink(path);
    for (let k = 0; k < 300; k++) {
      const cut = 8 + ((k * 7919) % (small.length - 16));
      const err = await readAll(small.subarray(0, cut), "many.h5").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataFormatError);
    }
    const read = await readAll(musk, "Musk1.mat");
    expect(read[0][1].length).toBe(476 * 167);
    expect(M.FS.readdir("/").filter((name: string) => name.startsWith("sdspcaan-"))).toEqual([]);
  });
});
