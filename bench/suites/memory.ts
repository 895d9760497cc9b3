/**
 * Peak memory of reading a numeric CSV: generated files of 10, 100 and 500 MB (and a
 * .csv.gz whose text is 1.2 GB, when the temporary folder has room), each read by
 * loadDataset in a fresh child process (bench/child/loadCsv.ts) that reports its peak
 * resident set. The target: at most 2.5 times the parsed matrix plus 300 MB (the
 * reader holds the matrix in blocks, then copies it once into X; the text is never
 * held). Files are written into os.tmpdir() and deleted. --quick: 10 MB only.
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statfsSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGzip } from "node:zlib";
import { type BenchContext, type BenchSuite, benchDir, record, repoRoot } from "../harness.js";

const MB = 1e6;
/** Feature columns of the generated files, and classes of their last column. */
const FEATURES = 32;
const CLASSES = 10;

/** Lines of a numeric CSV (about `bytes` of text): seeded values with six decimals, a class label. */
function* csvLines(bytes: number): Generator<string> {
  let seed = 12345;
  let written = 0;
  let row = 0;
  while (written < bytes) {
    const lines: string[] = [];
    for (let r = 0; r < 1000; r++, row++) {
      const cells: string[] = [];
      for (let j = 0; j < FEATURES; j++) {
        seed = (seed * 48271) % 2147483647;
        cells.push(((seed / 2147483647) * 200 - 100).toFixed(6));
      }
      cells.push(String(row % CLASSES));
      lines.push(cells.join(","));
    }
    const text = `${lines.join("\n")}\n`;
    written += text.length;
    yield text;
  }
}

async function writeCsv(path: string, bytes: number, gzip: boolean): Promise<void> {
  const out = createWriteStream(path);
  if (gzip) await pipeline(csvLines(bytes), createGzip({ level: 1 }), out);
  else await pipeline(csvLines(bytes), out);
}

interface Case {
  name: string;
  textBytes: number;
  gzip: boolean;
}

export const memorySuite: BenchSuite = {
  name: "memory",
  description:
    "peak RSS of loading generated numeric CSVs (10, 100, 500 MB; 1.2 GB of text as .csv.gz)",
  async run(ctx: BenchContext) {
    const dir = mkdtempSync(join(tmpdir(), "sdspcaan-bench-memory-"));
    const free = (() => {
      const s = statfsSync(dir);
      return s.bavail * s.bsize;
    })();
    const cases: Case[] = [
      { name: "10MB", textBytes: 10 * MB, gzip: false },
      ...(ctx.quick
        ? []
        : [
            { name: "100MB", textBytes: 100 * MB, gzip: false },
            { name: "500MB", textBytes: 500 * MB, gzip: false },
            { name: "1200MB_gz", textBytes: 1200 * MB, gzip: true },
          ]),
    ];
    try {
      for (const c of cases) {
        // Room for the file (a gzip file is smaller than its text) and some to spare.
        if (c.textBytes + 1e9 > free) {
          ctx.log(`memory: ${c.name} skipped: ${Math.round(free / MB)} MB free in ${dir}`);
          continue;
        }
        const path = join(dir, `numeric-${c.name}.csv${c.gzip ? ".gz" : ""}`);
        ctx.log(`memory: writing ${path}`);
        await writeCsv(path, c.textBytes, c.gzip);
        const fileBytes = statSync(path).size;
        ctx.log(`memory: loading ${c.name} (${Math.round(fileBytes / MB)} MB) in a child process`);
        const res = spawnSync(
          process.execPath,
          ["--import", "tsx", join(benchDir, "child", "loadCsv.ts"), path],
          { cwd: repoRoot, encoding: "utf8", env: process.env, maxBuffer: 1 << 20 },
        );
        rmSync(path, { force: true });
        if (res.status !== 0) {
          ctx.log(`memory: ${c.name} failed: ${res.stderr.trim().split("\n").pop()}`);
          continue;
        }
        const out = JSON.parse(res.stdout) as {
          rows: number;
          cols: number;
          ms: number;
          startKiB: number;
          peakKiB: number;
        };
        const matrixMB = (out.rows * out.cols * 8) / MB;
        const peakMB = (out.peakKiB * 1024) / MB;
        const boundMB = 2.5 * matrixMB + 300;
        ctx.emit({
          ...record(`csv_memory_${c.name}`, out.ms, null, { n: out.rows, d: out.cols }),
          file_mb: Math.round(fileBytes / MB),
          text_mb: Math.round(c.textBytes / MB),
          matrix_mb: Math.round(matrixMB),
          start_mb: Math.round((out.startKiB * 1024) / MB),
          peak_mb: Math.round(peakMB),
          bound_mb: Math.round(boundMB),
          within: peakMB <= boundMB,
        });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
