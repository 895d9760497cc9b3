/**
 * HDF5 files built in memory with h5wasm for the reader's tests, behind MATLAB's
 * 512-byte MAT v7.3 header when asked.
 */
import h5wasm from "h5wasm";

export type H5File = InstanceType<typeof h5wasm.File>;

let seq = 0;

/**
 * An HDF5 file built by `build`; behind MATLAB's 512-byte header when `matlab`;
 * `libver` chooses the file format's versions (h5wasm's default: v108 to v200).
 */
export async function h5File(
  build: (f: H5File) => void,
  matlab = false,
  libver?: "earliest" | "latest",
): Promise<Uint8Array> {
  const M = await h5wasm.ready;
  const path = `/h5File-${process.pid}-${++seq}.h5`;
  const f = new h5wasm.File(
    path,
    "w",
    libver === undefined ? {} : { libver: libver === "latest" ? "latest" : ["earliest", "latest"] },
  );
  build(f);
  f.close();
  const body = M.FS.readFile(path) as Uint8Array;
  M.FS.unlink(path);
  if (!matlab) return body;
  const out = new Uint8Array(512 + body.length);
  out.fill(0x20, 0, 124);
  out.set(new TextEncoder().encode("MATLAB 7.3 MAT-file, Platform: GLNXA64, HDF5 schema 1.00 ."));
  out.set([0x00, 0x02, 0x49, 0x4d], 124);
  out.set(body, 512);
  return out;
}
