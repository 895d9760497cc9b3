/**
 * Job scripts: shell quoting that survives any argument, Slurm's time format, and
 * requests sized from the estimate with a floor.
 */

import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type JobPlan,
  parallelJobs,
  shellQuote,
  slurmScript,
  slurmTime,
  taskMemoryMiB,
  taskSeconds,
} from "../../packages/sdspcaan-cli/src/experiment/jobScripts.js";

const plan: JobPlan = {
  launcher: ["/usr/bin/node", "/opt/sdspcaan/dist/cli/bin.js"],
  args: ["experiment", "--data", "my data.csv", "--out", "runs/it's"],
  cwd: "/home/me/work",
  shards: 4,
  throttle: 2,
  workers: 2,
  shardCostMs: [3_600_000, 3_000_000, 3_200_000, 3_500_000],
  memoryBytes: 3 * 2 ** 30,
  fits: 400,
  longestTaskMs: 60_000,
  name: "sdspcaan",
};

describe("job scripts", () => {
  it("quotes any word so that the shell gives it back unchanged", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !s.includes("\0")),
        (word) => {
          const echoed = execFileSync("sh", ["-c", `printf %s ${shellQuote(word)}`], {
            encoding: "utf8",
          });
          expect(echoed).toBe(word);
        },
      ),
      { numRuns: 30 },
    );
    expect(shellQuote("--k-grid")).toBe("--k-grid");
  });

  it("writes Slurm times as D-HH:MM:SS and sizes requests from the estimate with a floor", () => {
    expect(slurmTime(90_061)).toBe("1-01:01:01");
    expect(slurmTime(600)).toBe("0-00:10:00");
    // The worst shard, 1 h on one core, over 2 workers, times 2, plus startup.
    expect(taskSeconds(plan)).toBe(2 * 1800 + 120);
    expect(taskSeconds({ ...plan, shardCostMs: [1], longestTaskMs: 1 })).toBe(600);
    expect(taskMemoryMiB(plan)).toBe(6144);
    expect(taskMemoryMiB({ ...plan, memoryBytes: 1 })).toBe(1024);
  });

  it("runs the same quoted command in every task, the shard from the array or given per line", () => {
    const script = slurmScript(plan);
    expect(script).toContain("#SBATCH --array=0-3%2");
    expect(script).toContain(
      "exec /usr/bin/node /opt/sdspcaan/dist/cli/bin.js experiment --data 'my data.csv' --out 'runs/it'\\''s' --shard-count 4 --workers 2 --no-progress",
    );
    const lines = parallelJobs(plan).trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toContain("--shard 3/4");
    expect(lines[0].startsWith("cd /home/me/work && ")).toBe(true);
  });
});
