/**
 * Job scripts for running the shards of a run on a cluster: a Slurm array batch
 * script, a Kubernetes Indexed Job manifest, and a GNU parallel job list. Each
 * runs the same `experiment` command in every task; the task's shard comes from
 * the scheduler's environment (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX) or, for
 * GNU parallel, from an explicit --shard. The count is always pinned with
 * --shard-count, so that a single task resubmitted later (sbatch --array=3) still
 * takes shard 3 of the whole run. Time and memory requests come from the cost
 * model (cost.ts), with a safety factor: it is a model, not a measurement.
 */

/** What the scripts need to know about the run. */
export interface JobPlan {
  /** How to start sdspcaan where the tasks run, e.g. ["node", "/opt/sdspcaan/dist/cli/bin.js"]. */
  readonly launcher: readonly string[];
  /** The command's arguments without shard and worker flags, from "experiment" on (unquoted). */
  readonly args: readonly string[];
  /** Directory the command's relative paths are relative to. */
  readonly cwd: string;
  /** Number of shards (array tasks). */
  readonly shards: number;
  /** How many tasks may run at once. */
  readonly throttle: number;
  /** Worker threads (cores) per task. */
  readonly workers: number;
  /** Estimated cost of each shard in milliseconds on one core. */
  readonly shardCostMs: readonly number[];
  /** Estimated peak memory of one task, in bytes. */
  readonly memoryBytes: number;
  /** Fits of the run, and the largest single task's estimated milliseconds. */
  readonly fits: number;
  readonly longestTaskMs: number;
  /** Job name. */
  readonly name: string;
}

/** Quotes a word for a POSIX shell (left bare when it is safe). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const SAFETY = 2;
const MIN_SECONDS = 10 * 60;

/**
 * Wall seconds to ask for one task: its estimated cost spread over its workers,
 * but no less than the longest task (which runs on one worker), times a safety
 * factor, plus startup; at least 10 minutes.
 */
export function taskSeconds(plan: JobPlan): number {
  const worst = Math.max(0, ...plan.shardCostMs);
  const wall = Math.max(worst / Math.max(1, plan.workers), plan.longestTaskMs);
  return Math.max(MIN_SECONDS, Math.ceil((SAFETY * wall) / 1000) + 120);
}

/** Slurm's D-HH:MM:SS. */
export function slurmTime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const two = (v: number) => String(v).padStart(2, "0");
  return `${d}-${two(h)}:${two(m)}:${two(s)}`;
}

/** Memory to ask for one task, in MiB: the estimate times the safety factor, at least 1 GiB. */
export function taskMemoryMiB(plan: JobPlan): number {
  return Math.max(1024, Math.ceil((SAFETY * plan.memoryBytes) / 2 ** 20 / 256) * 256);
}

function hours(ms: number): string {
  if (ms < 60_000) return `${Math.max(1, Math.round(ms / 1000))} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

function commandText(plan: JobPlan, extra: readonly string[]): string {
  return [...plan.launcher, ...plan.args, ...extra].map(shellQuote).join(" ");
}

/** What the scripts say about the run's cost, also printed as notes by the CLI. */
export function estimateLines(plan: JobPlan): string[] {
  const total = plan.shardCostMs.reduce((a, b) => a + b, 0);
  const worst = Math.max(0, ...plan.shardCostMs);
  return [
    `${plan.fits} fits in ${plan.shards} shard${plan.shards === 1 ? "" : "s"} of ${plan.workers} worker${plan.workers === 1 ? "" : "s"}; estimated ${hours(total)} of CPU in all (cost model, see docs/cluster.md),`,
    `the largest shard ${hours(worst)} on one core, the longest single task ${hours(plan.longestTaskMs)}.`,
  ];
}

/** An sbatch script running the shards as a job array. */
export function slurmScript(plan: JobPlan): string {
  const lines = [
    "#!/bin/bash",
    `#SBATCH --job-name=${plan.name}`,
    `#SBATCH --array=0-${plan.shards - 1}%${plan.throttle}`,
    "#SBATCH --ntasks=1",
    `#SBATCH --cpus-per-task=${plan.workers}`,
    `#SBATCH --mem=${taskMemoryMiB(plan)}M`,
    `#SBATCH --time=${slurmTime(taskSeconds(plan))}`,
    `#SBATCH --chdir=${plan.cwd}`,
    `#SBATCH --output=${plan.name}-%A_%a.log`,
    "#",
    ...estimateLines(plan).map((l) => `# ${l}`),
    "# Every task runs the same command: its shard is SLURM_ARRAY_TASK_ID of --shard-count.",
    "# A task stopped early is resumed by submitting it again, e.g. sbatch --array=3 this-script;",
    "# when all are done: sdspcaan report --out DIR merges the shards' results.",
    "set -euo pipefail",
    `exec ${commandText(plan, ["--shard-count", String(plan.shards), "--workers", String(plan.workers), "--no-progress"])}`,
    "",
  ];
  return lines.join("\n");
}

function yamlString(text: string): string {
  return JSON.stringify(text);
}

/** A Kubernetes Indexed Job running the shards (the results directory on a shared volume). */
export function kubernetesJob(plan: JobPlan): string {
  const args = [
    ...plan.args,
    "--shard-count",
    String(plan.shards),
    "--workers",
    String(plan.workers),
    "--no-progress",
  ];
  const memory = `${taskMemoryMiB(plan)}Mi`;
  return [
    ...estimateLines(plan).map((l) => `# ${l}`),
    "# The image needs sdspcaan (and the data) installed; the results directory must be on",
    "# the shared volume mounted at workingDir. Each pod's shard is its JOB_COMPLETION_INDEX.",
    "apiVersion: batch/v1",
    "kind: Job",
    "metadata:",
    `  name: ${plan.name}`,
    "spec:",
    "  completionMode: Indexed",
    `  completions: ${plan.shards}`,
    `  parallelism: ${plan.throttle}`,
    `  backoffLimitPerIndex: 2`,
    `  maxFailedIndexes: ${plan.shards}`,
    `  activeDeadlineSeconds: ${taskSeconds(plan) * Math.ceil(plan.shards / plan.throttle)}`,
    "  template:",
    "    spec:",
    "      restartPolicy: Never",
    "      containers:",
    "        - name: sdspcaan",
    "          image: sdspcaan:latest",
    `          workingDir: ${yamlString(plan.cwd)}`,
    "          command:",
    '            - "sdspcaan"',
    "          args:",
    ...args.map((a) => `            - ${yamlString(a)}`),
    "          resources:",
    "            requests:",
    `              cpu: "${plan.workers}"`,
    `              memory: ${memory}`,
    "            limits:",
    `              memory: ${memory}`,
    "          volumeMounts:",
    "            - name: work",
    `              mountPath: ${yamlString(plan.cwd)}`,
    "      volumes:",
    "        - name: work",
    "          persistentVolumeClaim:",
    "            claimName: sdspcaan-work",
    "",
  ].join("\n");
}

/** One command per shard, for `parallel -j N < jobs.txt` (GNU parallel); run it again to resume. */
export function parallelJobs(plan: JobPlan): string {
  // GNU parallel runs every line, so the list holds commands only (the CLI prints the estimate).
  const lines: string[] = [];
  for (let i = 0; i < plan.shards; i++) {
    lines.push(
      `cd ${shellQuote(plan.cwd)} && ${commandText(plan, ["--shard", `${i}/${plan.shards}`, "--workers", String(plan.workers), "--no-progress"])}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The kinds of job script `--emit` prints. */
export const JOB_SCRIPT_KINDS = ["slurm", "k8s", "parallel"] as const;
export type JobScriptKind = (typeof JOB_SCRIPT_KINDS)[number];

export function jobScript(kind: JobScriptKind, plan: JobPlan): string {
  switch (kind) {
    case "slurm":
      return slurmScript(plan);
    case "k8s":
      return kubernetesJob(plan);
    case "parallel":
      return parallelJobs(plan);
  }
}
