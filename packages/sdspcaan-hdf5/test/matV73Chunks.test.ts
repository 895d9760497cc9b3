/**
 * Chunked datasets and the reader's heap budget. HDF5 maps every chunk of a dataset it
 * reads whole before reading one, about 4 KB of wasm heap a chunk, so a variable stored
 * in many tiny chunks (as appending tools write them) needs far more heap than its
 * values; the budget grows with the chunks the file declares, and a file declaring more
 * chunks than it can hold is refused before HDF5 maps them. Files are built here with
 * h5wasm, written a slice at a time so that writing them does not grow the heap.
 */
import h5wasm from "h5wasm";
import { DataFormatError } from "sdspcaan";
import { formatBytes } from "sdspcaan/formats";
import { withHdf5Variables } from "sdspcaan-hdf5";
import { describe, expect, it } from "vitest";
import { chunkIndexOf } from "#internal/chunkIndex.js";
import { h5File } from "./helpers/h5File.js";

type H5Module = Awaited<typeof h5wasm.ready>;

interface ChunkedColumn {
  /** The MATLAB column's values; only the first `written` are written, the rest read as 0. */
  values: Float64Array;
  /** Values a chunk. */
  chunk: number;
  deflate: boolean;
  written?: number;
  /** Bytes of a second, unchunked dataset `pad`, to make the file that much larger. */
  pad?: number;
}

/** A MAT v7.3 file holding `values` as the column `x` (an HDF5 dataset [1, n]) in chunks of `chunk`. */
async function chunkedColumn({
  values,
  chunk,
  deflate,
  written = values.length,
  pad = 0,
}: ChunkedColumn): Promise<Uint8Array> {
  return h5File((f) => {
    const ds = f.create_dataset({
      name: "x",
      data: values.slice(0, chunk),
      shape: [1, chunk],
      maxshape: [1, null],
      dtype: "<d",
      chunks: [1, chunk],
      ...(deflate ? { compression: 1 } : {}),
    });
    ds.create_attribute("MATLAB_class", "double");
    ds.resize([1, values.length]);
    // A thousand chunks a write: one write of them all would map every chunk, as a read does.
    const step = 1000 * chunk;
    for (let start = chunk; start < written; start += step) {
      const end = Math.min(written, start + step);
      ds.write_slice(
        [
          [0, 1],
          [start, end],
        ],
        values.slice(start, end),
      );
    }
    if (pad > 0) f.create_dataset({ name: "pad", data: new Uint8Array(pad), dtype: "<B" });
  }, true);
}

const memory = (
  globalThis as unknown as {
    WebAssembly: { Memory: { prototype: { grow(delta: number): number } } };
  }
).WebAssembly.Memory.prototype;

/**
 * Runs `read` with the wasm heap's free space taken, so that all the heap the read needs
 * comes from growing it, within the reader's budget. Free space left by earlier reads is
 * not counted in that budget, and how much there is depends on which tests ran before.
 */
async function withFullHeap<T>(M: H5Module, read: () => Promise<T>): Promise<T> {
  const grow = memory.grow;
  const held: number[] = [];
  memory.grow = () => {
    throw new RangeError("the test keeps the heap at its size");
  };
  try {
    for (let size = 2 ** 20; size >= 16; size /= 2) {
      for (let p = M._malloc(size); p !== 0; p = M._malloc(size)) held.push(p);
    }
  } finally {
    memory.grow = grow;
  }
  try {
    return await read();
  } finally {
    for (const p of held) M._free(p);
  }
}

/** Variable `x`'s dims and values. */
function readX(bytes: Uint8Array, file: string) {
  return withHdf5Variables(bytes, file, ({ variables }) => {
    const x = variables.find((v) => v.name === "x");
    if (x === undefined) throw new Error("no variable x");
    return { dims: x.dims, data: x.values().data };
  });
}

async function refusal(bytes: Uint8Array, file: string): Promise<string> {
  const err = await readX(bytes, file).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DataFormatError);
  return (err as DataFormatError).message;
}

/** Where the file's (only) version 1 B-tree node of chunks starts. */
function treeNode(bytes: Uint8Array): number {
  const at = Buffer.from(bytes).indexOf("TREE\x01");
  expect(at).toBeGreaterThan(0);
  expect(Buffer.from(bytes).indexOf("TREE", at + 1)).toBe(-1);
  return at;
}

describe("the chunk index, against the chunks the shape needs", () => {
  // 12 deflated chunks of 10 values: the B-tree's leaf lists them, each with a key
  // (size, filter mask, 3 offsets of 8 bytes) and an address, after a 24-byte header.
  const values = Float64Array.from({ length: 120 }, (_, i) => i + 1);
  const entry = (at: number, e: number) => at + 24 + e * 40;

  it("reads the undamaged file, the index walked", async () => {
    const bytes = await chunkedColumn({ values, chunk: 10, deflate: true });
    expect(Array.from((await readX(bytes, "ok.mat")).data)).toEqual(Array.from(values));
  });

  it("refuses an index listing fewer chunks than the shape needs, not reading zeros", async () => {
    const bytes = await chunkedColumn({ values, chunk: 10, deflate: true });
    const at = treeNode(bytes);
    expect(bytes[at + 6]).toBe(12);
    // HDF5 then finds 9 chunks and fills the other 30 values with 0, without an error.
    bytes[at + 6] = 9;
    expect(await refusal(bytes, "cut.mat")).toBe(
      "cut.mat: variable 'x': shape [1, 120] in chunks of [1, 10] is 12 chunks, but its chunk index lists 9 of them: the file is damaged (HDF5 would read the missing chunks as zeros)",
    );
  });

  it.each([
    ["onto another chunk's", 100],
    ["past the shape", 130],
  ])("refuses an index whose key moved a chunk %s", async (_where, offset) => {
    const moved = await chunkedColumn({ values, chunk: 10, deflate: true });
    // The second offset of the last chunk's key (110).
    const key = entry(treeNode(moved), 11) + 8 + 8;
    expect(moved[key]).toBe(110);
    moved[key] = offset;
    expect(await refusal(moved, "moved.mat")).toBe(
      "moved.mat: variable 'x': shape [1, 120] in chunks of [1, 10] is 12 chunks, but its chunk index lists 11 of them: the file is damaged (HDF5 would read the missing chunks as zeros)",
    );
  });

  it.each([
    ["version 1 (HDF5 1.8's, as MATLAB writes)", "earliest", true],
    ["version 2, continued in another block", undefined, true],
    ["version 2 with a version 4 layout, whose index is not read", "latest", false],
  ] as const)("reads an object header of %s", async (_what, libver, tree) => {
    const bytes = await h5File(
      (f) => {
        const ds = f.create_dataset({
          name: "x",
          data: Float64Array.of(1, 2, 3, 4, 5),
          shape: [1, 5],
          dtype: "<d",
          chunks: [1, 2],
          compression: 1,
        });
        f.create_dataset({ name: "after", data: Float64Array.of(1), shape: [1] });
        // Attributes too large for the header's first block: the rest continues elsewhere.
        for (let i = 0; i < 6; i++) ds.create_attribute(`a${i}`, "v".repeat(300));
      },
      false,
      libver,
    );
    expect(Buffer.from(bytes).includes("TREE\x01")).toBe(tree);
    expect(Array.from((await readX(bytes, "h.h5")).data)).toEqual([1, 2, 3, 4, 5]);
  });

  it("calls an index it cannot walk damaged", async () => {
    const a = { base: 0, offsetSize: 8, lengthSize: 8 };
    const noHeader = new Uint8Array(64);
    expect(chunkIndexOf(noHeader, a, 0, [1, 4], [1, 2])).toBe("damaged");
    expect(chunkIndexOf(noHeader, a, 60, [1, 4], [1, 2])).toBe("damaged");
  });
});

describe("chunked MAT v7.3 variables", () => {
  it("reads a variable of 20,000 chunks of 4 values, stored as is or deflated, with no free heap", async () => {
    const M = await h5wasm.ready;
    // About 80 MiB of heap: more than the fixed 64 MiB a read was given whatever its chunks.
    const values = Float64Array.from({ length: 80_000 }, (_, i) => Math.sin(i) * 1000);
    for (const deflate of [false, true]) {
      const bytes = await chunkedColumn({ values, chunk: 4, deflate });
      const read = await withFullHeap(M, () => readX(bytes, "tiny-chunks.mat"));
      expect(read.dims).toEqual([80_000, 1]);
      expect(read.data.length).toBe(values.length);
      // (toEqual on 80,000 values takes a fifth of a second.)
      expect(read.data.findIndex((v, i) => !Object.is(v, values[i]))).toBe(-1);
    }
  });

  it("refuses never-written chunks, which HDF5 reads as zeros, as MATLAB writes every chunk", async () => {
    const values = Float64Array.from({ length: 16_384 }, (_, i) => i + 1);
    const bytes = await chunkedColumn({ values, chunk: 1, deflate: true, written: 1 });
    expect(await refusal(bytes, "sparse.mat")).toBe(
      "sparse.mat: variable 'x': shape [1, 16384] in chunks of [1, 1] is 16384 chunks, but its chunk index lists 1 of them: the file is damaged (HDF5 would read the missing chunks as zeros)",
    );
  });

  it("refuses a file declaring more chunks than it can hold, naming the variable and the numbers", async () => {
    for (const n of [16_385, 500_000]) {
      const values = Float64Array.from({ length: n }, (_, i) => i + 1);
      // Deflated so that the declared values pass the check against the file's size.
      const bytes = await chunkedColumn({ values, chunk: 1, deflate: true, written: 1 });
      const err = await readX(bytes, "many.mat").catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataFormatError);
      expect((err as DataFormatError).message).toBe(
        `many.mat: variable 'x': shape [1, ${n}] in chunks of [1, 1] is ${n} chunks, more than a ${formatBytes(bytes.length)} file can hold (${Math.floor(bytes.length / 8)}) and more than the 16384 any file may declare`,
      );
    }
  });

  it("refuses a file whose chunks, held by the file, need more heap than WebAssembly can have", async () => {
    // 600,000 one-value deflated chunks, one written, in a file large enough to hold them
    // all (a 4.8 MB second dataset): at 3.8 KB a chunk at the least, 2.3 GB of heap.
    const n = 600_000;
    const values = Float64Array.from({ length: n }, (_, i) => i + 1);
    const bytes = await chunkedColumn({ values, chunk: 1, deflate: true, written: 1, pad: 8 * n });
    const err = await readX(bytes, "huge.mat").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataFormatError);
    expect((err as DataFormatError).message).toBe(
      `huge.mat: variable 'x': shape [1, ${n}] in chunks of [1, 1] is ${n} chunks, which take at least ${formatBytes(8 * n + 3800 * n)} of HDF5 memory to read, more than the ${formatBytes(2 ** 31)} its WebAssembly module can have; rewrite it in larger chunks (h5repack -l does)`,
    );
  });
});
