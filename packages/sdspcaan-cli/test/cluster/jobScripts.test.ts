/**
 * Job scripts: shell quoting that survives any argument, Slurm's time format,
 * requests sized from the estimate with a floor and without assuming perfect scaling,
 * and the Slurm script's behaviour as bash runs it (with stand-ins for sbatch,
 * scontrol and sdspcaan on the PATH): it submits the array and a report job that
 * depends on it, and a task told of its time limit stops its run and requeues itself.
 */

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  type JobPlan,
  kubernetesJob,
  parallelJobs,
  reportMemoryMiB,
  reportSeconds,
  SIGNAL_LEAD_SECONDS,
  shellQuote,
  slurmScript,
  slurmTime,
  taskMemoryMiB,
  taskSeconds,
  unexpandedByKubernetes,
} from "#internal/cluster/jobScripts.js";
import { effectiveCores, PARALLEL_EFFICIENCY } from "#internal/protocol/cost.js";
import { kubernetesExpand } from "../helpers/kubernetesExpansion.js";
import { removeDir, tempDir } from "../helpers/runs.js";

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
  out: "runs/it's",
  reportFlags: ["--no-figures"],
  image: "sdspcaan:0.1.0",
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
    // The worst shard, 1 h on one core, over 2 workers counted as 1.5 cores, times 2,
    // plus startup and the signal's lead.
    expect(taskSeconds(plan)).toBe(2 * 2400 + 120 + SIGNAL_LEAD_SECONDS);
    expect(taskSeconds({ ...plan, shardCostMs: [1], longestTaskMs: 1 })).toBe(600);
    expect(taskMemoryMiB(plan)).toBe(6144);
    expect(taskMemoryMiB({ ...plan, memoryBytes: 1 })).toBe(1024);
  });

  it("does not assume that workers scale perfectly", () => {
    expect(PARALLEL_EFFICIENCY).toBeLessThan(1);
    expect(effectiveCores(1)).toBe(1);
    for (const workers of [2, 4, 8, 16, 64]) {
      const p = { ...plan, workers, shardCostMs: [8 * 3_600_000], longestTaskMs: 60_000 };
      // Perfect scaling would ask for SAFETY x 8 h / workers.
      expect(taskSeconds(p)).toBeGreaterThan((2 * 8 * 3600) / workers + 240);
      expect(effectiveCores(workers)).toBeLessThan(workers);
      expect(taskSeconds(p)).toBe(
        Math.ceil((2 * 8 * 3600) / effectiveCores(workers)) + 120 + SIGNAL_LEAD_SECONDS,
      );
    }
    // More workers never ask for more time, and never less than the longest task.
    const times = [1, 2, 4, 8].map((workers) => taskSeconds({ ...plan, workers }));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(taskSeconds({ ...plan, workers: 256, longestTaskMs: 3_600_000 })).toBeGreaterThan(
      2 * 3600,
    );
  });

  it("asks Slurm for a signal before the limit and to requeue, and appends to the log", () => {
    const script = slurmScript(plan);
    expect(script).toContain(`#SBATCH --signal=B:USR1@${SIGNAL_LEAD_SECONDS}\n`);
    expect(script).toContain("#SBATCH --requeue\n");
    expect(script).toContain("#SBATCH --open-mode=append\n");
    // The report job's requests grow with the run and have the same floors.
    expect(reportSeconds({ fits: 400 })).toBe(600);
    expect(reportMemoryMiB({ fits: 400 })).toBe(1024);
    expect(reportMemoryMiB({ fits: 170_400 })).toBeGreaterThan(2048);
  });

  it("runs the same quoted command in every task, the shard from the array or given per line", () => {
    const script = slurmScript(plan);
    expect(script).toContain("#SBATCH --array=0-3%2");
    expect(script).toContain(
      "\n/usr/bin/node /opt/sdspcaan/dist/cli/bin.js experiment --data 'my data.csv' --out 'runs/it'\\''s' --shard-count 4 --workers 2 --no-progress &\n",
    );
    const lines = parallelJobs(plan).trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toContain("--shard 3/4");
    expect(lines[0].startsWith("cd /home/me/work && ")).toBe(true);
  });
});

describe("the Kubernetes manifest's command and args", () => {
  const env = { JOB_COMPLETION_INDEX: "3", HOME: "/root" };

  it("escape $(NAME), so that the container gets the argument as written", () => {
    const out = "r$(JOB_COMPLETION_INDEX)x";
    const manifest = kubernetesJob({ ...plan, args: ["experiment", "--out", out], out });
    const args = manifest.split("\n").filter((l) => l.startsWith("            - "));
    expect(args).toContain('            - "r$$(JOB_COMPLETION_INDEX)x"');
    expect(kubernetesExpand("r$$(JOB_COMPLETION_INDEX)x", env)).toBe(out);
    expect(kubernetesExpand(out, env)).toBe("r3x");
  });

  it("give back any string through Kubernetes' expansion", () => {
    const dollars = fc.constantFrom(
      "$",
      "$$",
      "$(",
      ")",
      "$(HOME)",
      "$(JOB_COMPLETION_INDEX)",
      "a",
      " ",
    );
    fc.assert(
      fc.property(
        fc.array(dollars, { maxLength: 8 }),
        fc.string({ maxLength: 6 }),
        (parts, tail) => {
          const text = parts.join("") + tail;
          expect(kubernetesExpand(unexpandedByKubernetes(text), env)).toBe(text);
        },
      ),
      { numRuns: 500 },
    );
  });
});

/** How long a step may take before the test calls it a hang (a loaded machine is slow). */
const HANG_MS = 60_000;

/** Resolves once `condition` holds, checking every 10 ms; fails after HANG_MS naming `what`. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + HANG_MS;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * Whether process `pid` sleeps (Linux's state S). Once the run is ready, bash has no
 * sleep left but its `wait` for the run, so the run's pid is known to its USR1 trap.
 * Without /proc there is nothing to read, and the run being ready has to do.
 */
function asleep(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return !existsSync("/proc/self/stat");
  }
  // "pid (comm) state ...": comm may hold spaces and parentheses, the state follows the last ")".
  return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) === "S";
}

describe("the Slurm script under bash", () => {
  const dir = tempDir("jobscript");
  afterAll(() => removeDir(dir));
  const bin = join(dir, "bin");
  mkdirSync(bin);
  const out = join(dir, "out");
  const calls = join(dir, "calls.txt");
  const ready = join(dir, "ready");
  // Stand-ins: sbatch and scontrol log their arguments; the run logs its arguments and,
  // as FAKE_RUN says, appends a result line and runs until SIGTERM (exiting 143, as
  // sdspcaan does), runs without finishing a fit, or ends at once. It makes `ready` once
  // its TERM trap is set and its result line written: a signal before that would kill
  // it untrapped, or find no finished fit.
  const tool = (name: string, body: string[]) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body.join("\n")}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  tool("sbatch", [
    `echo "sbatch $*" >>'${calls}'`,
    `echo "$((100 + $(wc -l <'${calls}')));cluster"`,
  ]);
  tool("scontrol", [`echo "scontrol $*" >>'${calls}'`]);
  tool("fake-sdspcaan", [
    `echo "run $*" >>'${calls}'`,
    'if [ "$1" = report ] || [ "$FAKE_RUN" = done ]; then exit 0; fi',
    `trap 'echo stopped >>"${calls}"; exit 143' TERM`,
    `mkdir -p '${out}'`,
    `if [ "$FAKE_RUN" = fits ]; then echo '{}' >>'${join(out, "results.shard-2-of-4.jsonl")}'; fi`,
    `: >'${ready}'`,
    "while :; do sleep 0.05; done",
  ]);
  const script = join(dir, "job.sh");
  writeFileSync(
    script,
    slurmScript({
      ...plan,
      launcher: [join(bin, "fake-sdspcaan")],
      args: ["experiment", "--out", out],
      cwd: dir,
      out,
    }),
  );
  const env = (extra: Record<string, string>) => ({
    PATH: `${bin}:${process.env.PATH ?? ""}`,
    ...extra,
  });
  const called = () => (existsSync(calls) ? readFileSync(calls, "utf8").trim().split("\n") : []);
  const runCommand = `run experiment --out ${out} --shard-count 4 --workers 2 --no-progress`;

  /**
   * Runs the script as array task 2 and sends it USR1 once the run is ready for it (see
   * `ready`) and the script is waiting for the run, which it then knows by its pid: its
   * exit code.
   */
  async function taskToldOfLimit(fakeRun: string, jobId: string): Promise<number | null> {
    writeFileSync(calls, "");
    rmSync(ready, { force: true });
    const child: ChildProcess = spawn("bash", [script], {
      env: env({ SLURM_ARRAY_TASK_ID: "2", SLURM_JOB_ID: jobId, FAKE_RUN: fakeRun }),
      cwd: dir,
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
    await until(
      () => existsSync(ready) && asleep(child.pid as number),
      "the task to start its run and wait for it",
    );
    child.kill("SIGUSR1");
    // Only against a hang: a script that does not pass the signal on leaves the run going.
    const timer = setTimeout(() => child.kill("SIGKILL"), HANG_MS);
    const code = await exited;
    clearTimeout(timer);
    return code;
  }

  it("run with bash, submits the array and then the report job that waits for it", () => {
    writeFileSync(calls, "");
    const said = execFileSync("bash", [script], {
      env: env({}),
      cwd: dir,
      encoding: "utf8",
      timeout: HANG_MS,
    });
    const [array, report] = called();
    expect(array).toBe(`sbatch --parsable ${script}`);
    expect(report).toMatch(
      /^sbatch --parsable --dependency=afterok:101 --kill-on-invalid-dep=yes /,
    );
    expect(report).toContain("--array=0 --job-name=sdspcaan-report --cpus-per-task=1");
    expect(report.endsWith(`${script} report`)).toBe(true);
    expect(said).toContain("array job 101, and report job 102");
    // The report job runs `report` on the run's directory with the run's report flags.
    writeFileSync(calls, "");
    execFileSync("bash", [script, "report"], {
      env: env({ SLURM_ARRAY_TASK_ID: "0", SLURM_JOB_ID: "102" }),
      cwd: dir,
      timeout: HANG_MS,
    });
    expect(called()).toEqual([`run report --out ${out} --no-figures`]);
  });

  it("as an array task, passes USR1 on to the run as SIGTERM and requeues itself", async () => {
    expect(await taskToldOfLimit("fits", "4242")).toBe(0);
    expect(called()).toEqual([runCommand, "stopped", "scontrol requeue 4242"]);
  });

  it("does not requeue a task that finished no fit in its attempt, nor one that ended by itself", async () => {
    expect(await taskToldOfLimit("none", "4243")).toBe(1);
    expect(called()).toEqual([runCommand, "stopped"]);
    writeFileSync(calls, "");
    execFileSync("bash", [script], {
      env: env({ SLURM_ARRAY_TASK_ID: "2", SLURM_JOB_ID: "4244", FAKE_RUN: "done" }),
      cwd: dir,
      timeout: HANG_MS,
    });
    expect(called()).toEqual([runCommand]);
  });
});
