/**
 * The issue tracker's 60,000-image rows (opt-in: `npm run bench -- --only fashion60k`;
 * an hour or more): SDSPCAAN at k = 10 and k = 50 on all 60,000 Fashion-MNIST training
 * images with the CLI's defaults (train-zscore, a = b = c = 1, m = 15, tol = 1e-3, the
 * available cores up to 8 as kernel threads, the native GEMM where built), each in its own
 * process (bench/fashionFit.ts) under `/usr/bin/time -v`: the whole process's wall and
 * CPU time and peak resident memory, against the targets (3 and 10 minutes, 6 GiB), the
 * test BCA of 1-NN on the 10,000 test images against the anchors the fits must keep
 * (78.14 % at k = 10, 82.30 % at k = 50, within 0.3 points), and the `w_hash` of W, which
 * is a backend's bits: with SDSPCAAN_KERNELS=portable it is the committed fits' (k = 50:
 * 9240fde6; docs/performance.md).
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { locateDataFile } from "../../packages/sdspcaan-cli/src/io/locate.js";
import { findDataset } from "../../packages/sdspcaan-cli/src/io/registry.js";
import {
  type BenchContext,
  type BenchSuite,
  benchDir,
  dataDir,
  record,
  repoRoot,
} from "../harness.js";
import { parseTimeReport } from "./scaling.js";

const CASES = [
  { k: 10, targetMinutes: 3, anchorBca: 0.7814 },
  { k: 50, targetMinutes: 10, anchorBca: 0.823 },
];
const TARGET_RSS_GIB = 6;

export const fashion60kSuite: BenchSuite = {
  name: "fashion60k",
  description:
    "opt-in: SDSPCAAN k = 10 / 50 on 60,000 Fashion-MNIST images, CLI defaults, whole process (time, peak RSS, test BCA, w_hash)",
  optIn: true,
  run(ctx: BenchContext) {
    const entry = findDataset("FashionMNIST");
    const found = entry
      ? locateDataFile(entry.file, { dataDir: dataDir(), systemDirs: entry.systemDirs })
      : null;
    if (!entry || !found) {
      ctx.log("fashion60k: Fashion-MNIST not found (see `sdspcaan datasets list`); skipped");
      return;
    }
    if (!existsSync("/usr/bin/time")) {
      ctx.log("fashion60k: /usr/bin/time is missing (Debian package `time`); skipped");
      return;
    }
    for (const c of CASES) {
      ctx.log(`fashion60k: sdspcaan k = ${c.k}, 60,000 images (minutes)`);
      const res = spawnSync(
        "/usr/bin/time",
        [
          "-v",
          process.execPath,
          "--import",
          "tsx",
          join(benchDir, "fashionFit.ts"),
          "sdspcaan",
          "60000",
          String(c.k),
        ],
        {
          cwd: repoRoot,
          encoding: "utf8",
          env: { ...process.env, SDSPCAAN_DATA: dataDir() },
          maxBuffer: 1 << 26,
        },
      );
      const line = res.stdout.trim().split("\n").pop() ?? "";
      const usage = parseTimeReport(res.stderr);
      if (res.status !== 0 || !line.startsWith("{") || usage === null) {
        ctx.log(`  failed: ${res.stderr.trim().split("\n").slice(-3).join(" | ")}`);
        continue;
      }
      const fit = JSON.parse(line) as Record<string, unknown>;
      const bca = fit.test_bca as number;
      ctx.emit({
        ...record(`fashion60k_sdspcaan_k${c.k}`, usage.wallS * 1000, c.targetMinutes * 60_000, {
          n: 60000,
          d: 784,
          k: c.k,
        }),
        cpu_s: Math.round(usage.cpuS),
        rss_gib: Math.round((usage.rssKb / 1024 ** 2) * 100) / 100,
        rss_target_gib: TARGET_RSS_GIB,
        fit_ms: fit.fit_ms,
        iterations: fit.iterations,
        threads: fit.threads,
        test_bca: bca,
        anchor_bca: c.anchorBca,
        bca_within_0_3: Math.abs(bca - c.anchorBca) <= 0.003,
        w_hash: fit.w_hash,
        kernels: process.env.SDSPCAAN_KERNELS ?? "auto",
      });
    }
  },
};
