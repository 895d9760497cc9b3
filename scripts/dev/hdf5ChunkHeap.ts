/**
 * The wasm heap h5wasm's `ds.value` grows by, per chunk of the dataset read, which
 * sdspcaan-hdf5's HEAP_PER_CHUNK (packages/sdspcaan-hdf5/src/matV73.ts) is set from.
 * Each configuration runs in a process of its own (wasm memory never shrinks): a float64
 * dataset of `chunks` chunks of `per` values, deflated or not, indexed by the v1 B-tree
 * h5py and MATLAB write (h5wasm's default) or by HDF5's newer indexes (libver "latest"),
 * its chunks all written or only the first. The heap's free space is taken before the
 * read, so that all the read needs comes from growing it; emscripten grows the heap by
 * at least 5 % at a time, so the figures are high by up to that much.
 *
 * Usage: npx tsx scripts/dev/hdf5ChunkHeap.ts [--max-chunks 100000]
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import h5wasm from "h5wasm";

interface Config {
  chunks: number;
  per: number;
  deflate: boolean;
  libver: "default" | "latest";
  rank: 1 | 3;
  allWritten: boolean;
}

const { values: args } = parseArgs({
  options: { "max-chunks": { type: "string", default: "100000" }, one: { type: "string" } },
});

/** The dataset's shape and chunk shape: 1-D, or 3-D with chunks of [1, 1, per]. */
function layout({ chunks, per, rank }: Config): { shape: number[]; chunk: number[] } {
  if (rank === 1) return { shape: [chunks * per], chunk: [per] };
  return { shape: [chunks / 100, 100, per], chunk: [1, 1, per] };
}

async function measureOne(c: Config): Promise<string> {
  const M = await h5wasm.ready;
  const { shape, chunk } = layout(c);
  const n = shape.reduce((a, b) => a * b, 1);
  const values = Float64Array.from({ length: n }, (_, i) => Math.sin(i) * 1000);
  const f = new h5wasm.File("/measure.h5", "w", c.libver === "latest" ? { libver: "latest" } : {});
  const per = chunk.reduce((a, b) => a * b, 1);
  const first = chunk.map(() => 1);
  first[first.length - 1] = c.per;
  const ds = f.create_dataset({
    name: "x",
    data: values.slice(0, per),
    shape: first,
    maxshape: shape.map(() => null),
    dtype: "<d",
    chunks: chunk,
    ...(c.deflate ? { compression: 1 } : {}),
  });
  ds.resize(shape);
  if (c.allWritten) {
    // A slab of rows at a time keeps the writes from growing the heap.
    const rows = shape[0];
    const rowValues = n / rows;
    const step = Math.max(1, Math.floor(4000 / rowValues));
    for (let r = 0; r < rows; r += step) {
      const end = Math.min(rows, r + step);
      const ranges = shape.map((d, i): [number, number] => (i === 0 ? [r, end] : [0, d]));
      ds.write_slice(ranges, values.slice(r * rowValues, end * rowValues));
    }
  }
  f.close();
  const fileBytes = (M.FS.readFile("/measure.h5") as Uint8Array).length;
  const read = new h5wasm.File("/measure.h5", "r").get("x") as InstanceType<typeof h5wasm.Dataset>;
  const memory = (
    globalThis as unknown as {
      WebAssembly: {
        Memory: { prototype: { grow(this: { buffer: ArrayBuffer }, delta: number): number } };
      };
    }
  ).WebAssembly.Memory.prototype;
  const grow = memory.grow;
  let refuse = true;
  let tries = 0;
  memory.grow = function (delta) {
    if (this.buffer !== M.HEAPU8.buffer) return grow.call(this, delta);
    if (refuse) throw new RangeError("filling");
    // emscripten asks for 20 %, then 10 %, then 5 % more than the heap holds: take the last.
    if (++tries < 3) throw new RangeError("smaller, please");
    tries = 0;
    return grow.call(this, delta);
  };
  for (let size = 2 ** 20; size >= 16; size /= 2) {
    while (M._malloc(size) !== 0) {}
  }
  refuse = false;
  const before = M.HEAPU8.length;
  const got = read.value as Float64Array;
  const growth = M.HEAPU8.length - before;
  memory.grow = grow;
  if (got.length !== n) throw new Error(`read ${got.length} values of ${n}`);
  const mib = (growth / 2 ** 20).toFixed(1);
  const perChunk = (growth / c.chunks / 1000).toFixed(2);
  return `${c.libver.padEnd(7)} rank ${c.rank} ${c.deflate ? "deflate" : "raw    "} ${c.allWritten ? "all  " : "first"} ${String(c.chunks).padStart(6)} chunks of ${String(c.per).padStart(2)}: file ${String(fileBytes).padStart(8)} B, heap +${mib.padStart(6)} MiB, ${perChunk} KB a chunk`;
}

if (args.one !== undefined) {
  console.log(await measureOne(JSON.parse(args.one) as Config));
} else {
  const maxChunks = Number(args["max-chunks"]);
  const configs: Config[] = [];
  for (const libver of ["default", "latest"] as const)
    for (const deflate of [false, true])
      for (const per of [1, 4, 16])
        for (const chunks of [1000, 10_000, 25_000, 100_000])
          if (chunks <= maxChunks)
            configs.push({ chunks, per, deflate, libver, rank: 1, allWritten: true });
  for (const chunks of [10_000, 25_000])
    if (chunks <= maxChunks) {
      configs.push({
        chunks,
        per: 4,
        deflate: false,
        libver: "default",
        rank: 3,
        allWritten: true,
      });
      configs.push({
        chunks,
        per: 4,
        deflate: true,
        libver: "default",
        rank: 1,
        allWritten: false,
      });
    }
  const self = fileURLToPath(import.meta.url);
  for (const c of configs) {
    const run = spawnSync(
      process.execPath,
      [...process.execArgv, self, "--one", JSON.stringify(c)],
      { encoding: "utf8" },
    );
    process.stdout.write(run.status === 0 ? run.stdout : `${JSON.stringify(c)}: ${run.stderr}\n`);
  }
}
