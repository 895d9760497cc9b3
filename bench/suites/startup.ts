/**
 * The first fit in a fresh process against the fits after it: Node process start-up,
 * module loading and data loading are not timed, only the fits; the difference is
 * what the first fit pays for compiling (the WebAssembly module, JIT warm-up of the
 * TypeScript numerics) and for one-off allocations. Each case runs in `runs` fresh
 * child processes (bench/child/firstFit.ts); the ratio is the median first fit over
 * the median warm fit, in wall time and in CPU time (the child's whole process, V8's
 * compiler threads included). No reference: the target is first <= 1.5 x warm.
 *
 * Then the CLI from process start: `sdspcaan fit` of a generated 100 x 20 CSV (the built
 * command, packages/sdspcaan-cli/dist: `npm run build` first), whole process under
 * `/usr/bin/time`, alternating with `node -e 0`; the target is 0.25 s of wall time.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Random } from "../../packages/sdspcaan/src/core/rng.js";
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
const CLI_TARGET_MS = 250;

/** Wall and CPU milliseconds of one whole process under `/usr/bin/time`, or null. */
function timedProcess(command: string[]): { wall: number; cpu: number } | null {
  const res = spawnSync("/usr/bin/time", ["-f", "@@ %e %U %S", ...command], {
    cwd: repoRoot,
    encoding: "utf8",
  });
  const m = /@@ ([\d.]+) ([\d.]+) ([\d.]+)/.exec(res.stderr);
  if (res.status !== 0 || m === null) return null;
  return { wall: 1000 * Number(m[1]), cpu: 1000 * (Number(m[2]) + Number(m[3])) };
}

/** The CLI's fit of a 100 x 20 CSV from process start, against Node alone. */
function cliStartup(ctx: BenchContext): void {
  const bin = join(repoRoot, "packages", "sdspcaan-cli", "dist", "cli", "bin.js");
  if (!existsSync(bin) || !existsSync("/usr/bin/time")) {
    ctx.log("startup: no built CLI (npm run build) or no /usr/bin/time; the CLI row is skipped");
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), "sdspcaan-startup-"));
  try {
    const rng = new Random(5);
    const lines = [`${Array.from({ length: 20 }, (_, j) => `f${j}`).join(",")},label`];
    for (let i = 0; i < 100; i++) {
      const row = Array.from({ length: 20 }, (_, j) =>
        (rng.normal() + (j % 4 === i % 4 ? 1 : 0)).toFixed(6),
      );
      lines.push(`${row.join(",")},${i % 4}`);
    }
    const csv = join(dir, "small.csv");
    writeFileSync(csv, `${lines.join("\n")}\n`);
    const fit = [
      process.execPath,
      bin,
      "fit",
      "--data",
      csv,
      "--method",
      "sdspca",
      "--k",
      "3",
      "--out",
      join(dir, "model.json"),
      "--no-progress",
    ];
    const node = [process.execPath, "-e", "0"];
    const ours: { wall: number; cpu: number }[] = [];
    const bare: { wall: number; cpu: number }[] = [];
    const runs = Math.max(ctx.runs, 7);
    for (let r = 0; r <= runs; r++) {
      const a = timedProcess(fit);
      const b = timedProcess(node);
      if (a === null || b === null) {
        ctx.log("startup: the CLI's fit failed");
        return;
      }
      // The first pair warms the file system cache.
      if (r > 0) {
        ours.push(a);
        bare.push(b);
      }
    }
    const wall = median(ours.map((t) => t.wall));
    ctx.emit({
      ...record("cli_fit_100x20", wall, CLI_TARGET_MS),
      cpu_ms: Math.round(median(ours.map((t) => t.cpu))),
      node_alone_wall_ms: Math.round(median(bare.map((t) => t.wall))),
      node_alone_cpu_ms: Math.round(median(bare.map((t) => t.cpu))),
      target_ms: CLI_TARGET_MS,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const startupSuite: BenchSuite = {
  name: "startup",
  description:
    "first fit in a fresh process vs the warm fits after it (Yale, ORL); the CLI's fit of a 100 x 20 CSV from process start",
  run(ctx: BenchContext) {
    for (const c of CASES) {
      const first: number[] = [];
      const warm: number[] = [];
      const firstCpu: number[] = [];
      const warmCpu: number[] = [];
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
        const out = JSON.parse(res.stdout) as {
          first: number;
          warm: number[];
          firstCpu: number;
          warmCpu: number[];
        };
        first.push(out.first);
        warm.push(median(out.warm));
        firstCpu.push(out.firstCpu);
        warmCpu.push(median(out.warmCpu));
      }
      const f = median(first);
      const w = median(warm);
      const fc = median(firstCpu);
      const wc = median(warmCpu);
      ctx.emit({
        ...record(`first_fit_${c.name}_${c.method}`, f, null, { k: c.k }),
        warm_ms: Math.round(w * 10) / 10,
        first_over_warm: Math.round((100 * f) / w) / 100,
        first_cpu_ms: Math.round(fc * 10) / 10,
        warm_cpu_ms: Math.round(wc * 10) / 10,
        first_over_warm_cpu: Math.round((100 * fc) / wc) / 100,
        target: 1.5,
      });
    }
    cliStartup(ctx);
  },
};
