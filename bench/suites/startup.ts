/**
 * The first fit in a fresh process against the fits after it: Node process start-up,
 * module loading and data loading are not timed, only the fits; the difference is
 * what the first fit pays for compiling (the WebAssembly module, JIT warm-up of the
 * TypeScript numerics) and for one-off allocations. Each case runs in `runs` fresh
 * child processes (bench/child/firstFit.ts); the ratio is the median first fit over
 * the median warm fit. No reference: the target is first <= 2 x warm.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import {
  type BenchContext,
  type BenchSuite,
  benchDir,
  median,
  record,
  repoRoot,
} from "../harness.js";

const CASES = [
  { file: "Yale_32x32.mat", name: "Yale", method: "sdspca", k: 20 },
  { file: "Yale_32x32.mat", name: "Yale", method: "sdspcaan", k: 20 },
  { file: "ORL_32x32.mat", name: "ORL", method: "sdspcaan", k: 40 },
];
const WARM = 5;

export const startupSuite: BenchSuite = {
  name: "startup",
  description: "first fit in a fresh process vs the warm fits after it (Yale, ORL)",
  run(ctx: BenchContext) {
    for (const c of CASES) {
      const first: number[] = [];
      const warm: number[] = [];
      for (let r = 0; r < ctx.runs; r++) {
        ctx.log(`startup: ${c.method} on ${c.name}, process ${r + 1}/${ctx.runs}`);
        const res = spawnSync(
          process.execPath,
          [
            "--import",
            "tsx",
            join(benchDir, "child", "firstFit.ts"),
            c.file,
            c.name,
            c.method,
            String(c.k),
            String(WARM),
          ],
          { cwd: repoRoot, encoding: "utf8", env: process.env },
        );
        if (res.status !== 0) {
          ctx.log(`startup: child failed: ${res.stderr.trim().split("\n").pop()}`);
          return;
        }
        const out = JSON.parse(res.stdout) as { first: number; warm: number[] };
        first.push(out.first);
        warm.push(median(out.warm));
      }
      const f = median(first);
      const w = median(warm);
      ctx.emit({
        ...record(`first_fit_${c.name}_${c.method}`, f, null, { k: c.k }),
        warm_ms: Math.round(w * 10) / 10,
        first_over_warm: Math.round((100 * f) / w) / 100,
      });
    }
  },
};
