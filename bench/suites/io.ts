/**
 * Loading the paper's data files with loadDataset (read, decompress, decode, cast to
 * float64, samples as rows) against scipy.io.loadmat of the same file (which keeps
 * MATLAB's column-major layout). YaleB_32x32.mat, the largest image set, is the
 * headline; --quick measures only it. scipy cannot read Musk1.mat (MAT v7.3), so
 * its ref_ms is null.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadDataset } from "../../packages/sdspcaan-cli/src/io/load.js";
import {
  type BenchContext,
  type BenchSuite,
  dataDir,
  median,
  record,
  runPython,
} from "../harness.js";

async function timeLoad(path: string, runs: number): Promise<number> {
  await loadDataset(path);
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    await loadDataset(path);
    times.push(performance.now() - t0);
  }
  return median(times);
}

export const ioSuite: BenchSuite = {
  name: "io",
  description: "loadDataset of the paper's MAT files vs scipy.io.loadmat",
  async run(ctx: BenchContext) {
    const names = ctx.quick
      ? ["YaleB_32x32.mat"]
      : ["YaleB_32x32.mat", "COIL20.mat", "uspst.mat", "Musk1.mat"];
    const paths = names.map((n) => join(dataDir(), n));
    const missing = paths.filter((p) => !existsSync(p));
    if (missing.length > 0) {
      ctx.log(`io: data files missing (${missing.join(", ")}); set SDSPCAAN_DATA`);
      return;
    }
    const ref = runPython("io_ref.py", [String(ctx.runs), ...paths], ctx.log);
    const refMs = (ref?.results ?? {}) as Record<string, number | null>;
    for (let k = 0; k < names.length; k++) {
      const ds = await loadDataset(paths[k]);
      const ms = await timeLoad(paths[k], ctx.runs);
      ctx.emit(
        record(`load ${names[k]}`, ms, refMs[paths[k]] ?? null, {
          n: ds.X.rows,
          d: ds.X.cols,
          format: ds.info.format,
        }),
      );
    }
  },
};
