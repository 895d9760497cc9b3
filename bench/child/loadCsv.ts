/**
 * Child process of the `memory` bench suite: in a fresh process, loads FILE with
 * loadDataset (the commands' reader: CSV streamed into the matrix, .gz through
 * node:zlib's streaming gunzip) and prints JSON with the matrix's shape, the load's
 * milliseconds and the process's peak resident memory (VmHWM, else maxRSS), in KiB.
 * Usage: node --import tsx bench/child/loadCsv.ts FILE
 */
import { readFileSync } from "node:fs";
import { loadDataset } from "../../packages/sdspcaan-cli/src/io/load.js";

/** The peak resident set of this process so far, in KiB. */
function peakKiB(): number {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    if (m) return Number(m[1]);
  } catch {
    // Not Linux: the kernel's maxrss below.
  }
  return process.resourceUsage().maxRSS;
}

const file = process.argv[2];
const before = peakKiB();
const t0 = performance.now();
const ds = await loadDataset(file);
const ms = performance.now() - t0;
console.log(
  JSON.stringify({
    rows: ds.X.rows,
    cols: ds.X.cols,
    labels: ds.y.length,
    ms,
    startKiB: before,
    peakKiB: peakKiB(),
  }),
);
