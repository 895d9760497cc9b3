/**
 * How long sdspcaan-hdf5 takes to read a MATLAB cell of n texts (labels saved with
 * -v7.3: each text its own char array in #refs#, the cell an array of references to
 * them), beside an n x 4 double X. The file is built in memory with h5wasm, then read
 * through withHdf5Variables as the loaders read it; the time is the texts() call.
 *
 * Usage: npx tsx scripts/dev/hdf5CellTexts.ts [n ...]   (default 2000 5000)
 */
import h5wasm from "h5wasm";
import { withHdf5Variables } from "sdspcaan-hdf5";

async function cellOfTexts(n: number): Promise<Uint8Array> {
  const M = await h5wasm.ready;
  const path = `/cellTexts-${n}.h5`;
  const f = new h5wasm.File(path, "w");
  const refs = f.create_group("#refs#");
  const items: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const s = `class${i % 10}`;
    const d = refs.create_dataset({
      name: `r${i}`,
      data: Uint16Array.from([...s].map((c) => c.charCodeAt(0))),
      shape: [s.length, 1],
      dtype: "<H",
    });
    d.create_attribute("MATLAB_class", "char");
    items.push(d.create_reference());
  }
  f.create_dataset({ name: "labels", data: items as never, shape: [1, n] }).create_attribute(
    "MATLAB_class",
    "cell",
  );
  f.create_dataset({
    name: "X",
    data: Float64Array.from({ length: 4 * n }, (_, i) => i % 7),
    shape: [n, 4],
    dtype: "<d",
  }).create_attribute("MATLAB_class", "double");
  f.close();
  // The HDF5 file itself: its MATLAB_class attributes make it read as MATLAB's, as it
  // would behind the 512-byte header of a .mat file.
  const bytes = M.FS.readFile(path) as Uint8Array;
  M.FS.unlink(path);
  return bytes;
}

const sizes = process.argv.slice(2).map(Number);
for (const n of sizes.length > 0 ? sizes : [2000, 5000]) {
  const bytes = await cellOfTexts(n);
  await withHdf5Variables(bytes, `cell-${n}.mat`, ({ variables }) => {
    const labels = variables.find((v) => v.name === "labels");
    const start = performance.now();
    const texts = labels?.texts() ?? null;
    const ms = performance.now() - start;
    console.log(
      `n = ${n}: ${texts?.length ?? 0} texts in ${(ms / 1000).toFixed(2)} s (file ${(bytes.length / 1e6).toFixed(1)} MB)`,
    );
  });
}
