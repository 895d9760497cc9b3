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
import { ValidationError } from "sdspcaan";
import { effectiveCores } from "../protocol/cost.js";
import { refusedCharacter, shellQuote, slurmDirectiveValue, yamlString } from "./quoting.js";

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
  /** The results directory (`--out`, as given: relative to `cwd`). */
  readonly out: string;
  /** Flags of `report` that the run's own report would have had (--no-figures, --compare-paper). */
  readonly reportFlags: readonly string[];
  /** The container image the Kubernetes Job runs (built from deploy/Containerfile). */
  readonly image: string;
  /** The plug-ins' absolute paths (also in `args` and `reportFlags` as --plugin). */
  readonly plugins?: readonly string[];
}

export { shellQuote, slurmDirectiveValue, yamlString } from "./quoting.js";

/**
 * Refuses a plan any of whose strings cannot be written into every kind of script
 * as itself (quoting.ts says what goes where): a control or line-break character in
 * any of them, a job name that is not a Kubernetes name (DNS-1123 label: it is also
 * bare in the #SBATCH lines and the sbatch command), a relative working directory.
 * The message names the flag that gave the string.
 */
export function checkPlan(plan: JobPlan): void {
  checkPlanText(plan);
  for (const [what, v] of [
    ["shards", plan.shards],
    ["throttle", plan.throttle],
    ["workers", plan.workers],
  ] as const) {
    if (!Number.isSafeInteger(v) || v < 1) {
      throw new ValidationError(what, `The ${what} must be a positive integer. Got ${v}.`);
    }
  }
}

/** The strings of a plan, which checkPlanText checks before the run is estimated. */
export type JobPlanText = Pick<
  JobPlan,
  "launcher" | "args" | "cwd" | "out" | "reportFlags" | "image" | "name" | "plugins"
>;

/** checkPlan's checks of the plan's strings. */
export function checkPlanText(plan: JobPlanText): void {
  const refuse = (argument: string, what: string, value: string, problem: string) => {
    throw new ValidationError(
      argument,
      `${what} ${yamlString(value)} ${problem}, which a job script cannot hold as it is; job scripts take paths and names without control characters (see docs/cluster.md).`,
    );
  };
  const check = (argument: string, what: string, value: string) => {
    const bad = refusedCharacter(value);
    if (bad !== null) refuse(argument, what, value, `holds ${bad}`);
  };
  check("out", "--out", plan.out);
  plan.args.forEach((a, i) => {
    const flag = flagOf(plan.args, i);
    check(flag?.replace(/^-+/, "") ?? "args", flag ?? `The argument ${i + 1}`, a);
  });
  check("cwd", "The working directory", plan.cwd);
  plan.launcher.forEach((a) => {
    check("launcher", "The command that starts sdspcaan", a);
  });
  plan.reportFlags.forEach((a) => {
    check("reportFlags", "The report's flag", a);
  });
  check("image", "The image", plan.image);
  for (const p of plan.plugins ?? []) check("plugin", "The plug-in", p);
  if (!/^[a-z0-9]([-a-z0-9]{0,53}[a-z0-9])?$/.test(plan.name)) {
    throw new ValidationError(
      "name",
      `The job name must be lowercase letters, digits and '-' (a Kubernetes name, at most 55 characters so that "-report" fits). Got ${yamlString(plan.name)}.`,
    );
  }
  if (!plan.cwd.startsWith("/")) {
    throw new ValidationError(
      "cwd",
      `The working directory must be an absolute path. Got ${yamlString(plan.cwd)}.`,
    );
  }
  if (plan.launcher.length === 0) {
    throw new ValidationError("launcher", "The command that starts sdspcaan is empty.");
  }
}

/** " --plugin PATH" for each plug-in, quoted for a shell: the report command of a note. */
function pluginFlagsText(plan: JobPlan): string {
  return (plan.plugins ?? []).map((p) => ` --plugin ${shellQuote(p)}`).join("");
}

/** The flag a command-line argument belongs to: itself, or the nearest one before it. */
function flagOf(args: readonly string[], i: number): string | null {
  for (let j = i; j >= 0; j--) {
    const flag = /^--?[A-Za-z][A-Za-z0-9-]*(?==|$)/.exec(args[j]);
    if (flag !== null) return flag[0];
  }
  return null;
}

/** Requests are the estimate times this: the cost model is within a factor of about 3. */
const SAFETY = 2;
const MIN_SECONDS = 10 * 60;
/** Node's start, loading the data sets and preparing the first splits. */
const STARTUP_SECONDS = 120;
/**
 * Seconds before its time limit a Slurm task is told to stop (USR1 to the batch
 * shell). Stopping takes well under a second (measured: 24-31 ms from SIGTERM to exit
 * with 1 and 2 workers; in-flight fits are dropped, finished ones are on disk), but
 * Slurm checks time limits about once a minute and may signal up to 60 s early or
 * late, and the requeue is one more call to slurmctld.
 */
export const SIGNAL_LEAD_SECONDS = 120;

/**
 * Estimated wall milliseconds of one task: its shard's one-core cost over the
 * workers counted at PARALLEL_EFFICIENCY (cost.ts), but no less than the longest
 * task, which one worker runs alone.
 */
export function taskWallMs(
  plan: Pick<JobPlan, "shardCostMs" | "workers" | "longestTaskMs">,
): number {
  const worst = Math.max(0, ...plan.shardCostMs);
  return Math.max(worst / effectiveCores(plan.workers), plan.longestTaskMs);
}

/**
 * Wall seconds to ask for one task: the estimated wall time times the safety factor,
 * plus startup and the signal's lead (the task stops that early); at least 10
 * minutes. A task the estimate falls short for is not lost: it stops at the signal
 * and requeues itself (slurmScript).
 */
export function taskSeconds(
  plan: Pick<JobPlan, "shardCostMs" | "workers" | "longestTaskMs">,
): number {
  const wall = taskWallMs(plan);
  return Math.max(
    MIN_SECONDS,
    Math.ceil((SAFETY * wall) / 1000) + STARTUP_SECONDS + SIGNAL_LEAD_SECONDS,
  );
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
export function taskMemoryMiB(plan: Pick<JobPlan, "memoryBytes">): number {
  return Math.max(1024, Math.ceil((SAFETY * plan.memoryBytes) / 2 ** 20 / 256) * 256);
}

/**
 * What `report` needs per fit of the run: measured with figures on the development
 * machine, 256-321 MiB peak and 2.5-7.2 s for 13,750-24,750 fits (ORL, YaleB, COIL20
 * paper runs), i.e. about 180 MiB plus 6 KiB, and under 0.4 ms, per fit.
 */
const REPORT_BASE_BYTES = 200 * 2 ** 20;
const REPORT_BYTES_PER_FIT = 8 * 2 ** 10;
const REPORT_MS_PER_FIT = 0.5;

/** Memory to ask for the report job, in MiB (safety factor, at least 1 GiB). */
export function reportMemoryMiB(plan: Pick<JobPlan, "fits">): number {
  return taskMemoryMiB({ memoryBytes: REPORT_BASE_BYTES + plan.fits * REPORT_BYTES_PER_FIT });
}

/** Wall seconds to ask for the report job (safety factor, at least 10 minutes). */
export function reportSeconds(plan: Pick<JobPlan, "fits">): number {
  return Math.max(
    MIN_SECONDS,
    Math.ceil((SAFETY * plan.fits * REPORT_MS_PER_FIT) / 1000) + STARTUP_SECONDS,
  );
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
  const w = plan.workers;
  return [
    `${plan.fits} fits in ${plan.shards} shard${plan.shards === 1 ? "" : "s"} of ${w} worker${w === 1 ? "" : "s"}; estimated ${hours(total)} of CPU in all (cost model, see docs/cluster.md),`,
    `the largest shard ${hours(worst)} on one core, the longest single task ${hours(plan.longestTaskMs)};`,
    `each task about ${hours(taskWallMs(plan))} of wall time${w > 1 ? ` (${w} workers counted as ${effectiveCores(w)} cores)` : ""}, ${hours(taskSeconds(plan) * 1000)} requested.`,
  ];
}

/**
 * An sbatch script running the shards as a job array, which also submits itself:
 * run with bash, it submits the array and a report job that depends on it.
 *
 * A task runs the command in the background and waits, so that the shell can take
 * Slurm's USR1 (SIGNAL_LEAD_SECONDS before the limit) and pass it on as SIGTERM, on
 * which the run stops cleanly; a task that finished at least one fit in this attempt
 * then requeues itself and resumes from its results file. One that finished none is
 * not requeued (it would loop): its time request is too short for a single task.
 */
export function slurmScript(plan: JobPlan): string {
  checkPlan(plan);
  const n = plan.shards;
  const results = `${shellQuote(plan.out)}/results.shard-\${SLURM_ARRAY_TASK_ID}-of-${n}.jsonl`;
  const report = [...plan.launcher, "report", "--out", plan.out, ...plan.reportFlags]
    .map(shellQuote)
    .join(" ");
  const lines = [
    "#!/bin/bash",
    `#SBATCH --job-name=${plan.name}`,
    `#SBATCH --array=0-${n - 1}%${plan.throttle}`,
    "#SBATCH --ntasks=1",
    `#SBATCH --cpus-per-task=${plan.workers}`,
    `#SBATCH --mem=${taskMemoryMiB(plan)}M`,
    `#SBATCH --time=${slurmTime(taskSeconds(plan))}`,
    `#SBATCH --signal=B:USR1@${SIGNAL_LEAD_SECONDS}`,
    "#SBATCH --requeue",
    "#SBATCH --open-mode=append",
    `#SBATCH --chdir=${slurmDirectiveValue(plan.cwd)}`,
    `#SBATCH --output=${plan.name}-%A_%a.log`,
    "#",
    ...estimateLines(plan).map((l) => `# ${l}`),
    "#",
    "# Submit with `bash THIS-SCRIPT`: it submits itself as the job array (sbatch --parsable),",
    `# then \`sdspcaan report\` as a job (${plan.name}-report) that starts once every array task`,
    "# has succeeded (--dependency=afterok) and merges the shards into the tables and figures;",
    "# if a task fails, the report job is cancelled. `sbatch THIS-SCRIPT` submits the array",
    `# alone; then run \`sdspcaan report --out ${shellQuote(plan.out)}${pluginFlagsText(plan)}\` when it is done.`,
    "# Every task runs the same command: its shard is SLURM_ARRAY_TASK_ID of --shard-count.",
    `# ${SIGNAL_LEAD_SECONDS} s before its time limit a task is sent USR1: the run stops cleanly (finished`,
    "# fits are kept in its results file) and the task requeues itself, to resume where it",
    "# stopped. A task that failed is resumed by submitting it again: sbatch --array=3 THIS-SCRIPT.",
    "set -euo pipefail",
    "",
    'if [ "$#" -gt 0 ] && [ "$1" = report ]; then',
    `  exec ${report}`,
    "fi",
    "",
    'if [ -z "$(printenv SLURM_ARRAY_TASK_ID)" ]; then',
    `  array="$(sbatch --parsable "$0" | cut -d';' -f1)"`,
    `  report="$(sbatch --parsable --dependency=afterok:"$array" --kill-on-invalid-dep=yes --array=0 ${shellQuote(`--job-name=${plan.name}-report`)} --cpus-per-task=1 --mem=${reportMemoryMiB(plan)}M --time=${slurmTime(reportSeconds(plan))} ${shellQuote(`--output=${plan.name}-report-%A.log`)} "$0" report | cut -d';' -f1)"`,
    '  echo "Submitted array job $array, and report job $report to run when all its tasks have succeeded."',
    "  exit 0",
    "fi",
    "",
    `results=${results}`,
    'finished() { if [ -f "$results" ]; then wc -l <"$results"; else echo 0; fi; }',
    'before="$(finished)"',
    "stopping=0",
    'run=""',
    `trap 'stopping=1; kill -TERM "$run" 2>/dev/null || true' USR1`,
    `${commandText(plan, ["--shard-count", String(n), "--workers", String(plan.workers), "--no-progress"])} &`,
    "run=$!",
    "status=0",
    'wait "$run" || status=$?',
    'if [ "$stopping" = 1 ]; then',
    "  # wait returned for the signal: now wait for the run itself to stop.",
    "  status=0",
    '  wait "$run" || status=$?',
    "fi",
    'if [ "$stopping" = 1 ] && [ "$status" = 143 ]; then',
    '  if [ "$(finished)" -gt "$before" ]; then',
    '    echo "Near the time limit: stopped with every finished fit kept; requeueing to resume." >&2',
    '    scontrol requeue "$SLURM_JOB_ID"',
    "    exit 0",
    "  fi",
    '  echo "Near the time limit and no fit finished in this attempt: not requeued. Ask for more --time." >&2',
    "  exit 1",
    "fi",
    'exit "$status"',
    "",
  ];
  return lines.join("\n");
}

/** The image's entry point (deploy/Containerfile's ENTRYPOINT): the CLI as built in the image. */
export const CONTAINER_COMMAND = [
  "node",
  "/opt/sdspcaan/packages/sdspcaan-cli/bin/sdspcaan.js",
] as const;

/**
 * A container's command or argument that Kubernetes passes on as `text`: it expands
 * `$(NAME)` from the container's environment (an Indexed Job sets JOB_COMPLETION_INDEX)
 * and reads `$$` as `$`, so every `$` is doubled. Kubernetes expands a container's
 * command, args, env values and subPathExpr; this manifest has only the first two.
 */
export function unexpandedByKubernetes(text: string): string {
  return text.split("$").join("$$");
}

/** A Kubernetes Indexed Job running the shards (the results directory on a shared volume). */
export function kubernetesJob(plan: JobPlan): string {
  checkPlan(plan);
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
    `# The image is built from the repository by deploy/Containerfile (the data sets of the`,
    `# registry included): docker build -f deploy/Containerfile -t ${shellQuote(plan.image)} .`,
    "# (or podman build), then pushed where the cluster pulls from (and `image:` renamed to",
    "# match). The results directory must be on the shared volume mounted at workingDir.",
    ...(plan.plugins !== undefined && plan.plugins.length > 0
      ? [
          "# The plug-ins (--plugin) load from the same paths in every pod: keep them on the shared",
          "# volume under workingDir, or in the image, at:",
          ...plan.plugins.map((p) => `#   ${p}`),
        ]
      : []),
    "# Each pod's shard is its JOB_COMPLETION_INDEX. When every pod has succeeded:",
    `# sdspcaan report --out ${shellQuote(plan.out)}${pluginFlagsText(plan)} merges the shards.`,
    "apiVersion: batch/v1",
    "kind: Job",
    "metadata:",
    `  name: ${yamlString(plan.name)}`,
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
    `          image: ${yamlString(plan.image)}`,
    `          workingDir: ${yamlString(plan.cwd)}`,
    "          command:",
    ...CONTAINER_COMMAND.map((a) => `            - ${yamlString(unexpandedByKubernetes(a))}`),
    "          args:",
    ...args.map((a) => `            - ${yamlString(unexpandedByKubernetes(a))}`),
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
  checkPlan(plan);
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
