/**
 * `sdspcaan experiment ... --emit slurm|k8s|parallel`: prints the job script that
 * runs the run the other flags describe as shards of a job array, instead of
 * running it. The tasks run the same command line, less the flags that only
 * concern the emission, plus the shard count and the workers per task.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ValidationError } from "sdspcaan";
import { estimateRun } from "../../cluster/jobPlan.node.js";
import {
  checkPlan,
  checkPlanText,
  estimateLines,
  JOB_SCRIPT_KINDS,
  type JobPlan,
  type JobPlanText,
  type JobScriptKind,
  jobScript,
} from "../../cluster/jobScripts.js";
import type { ExperimentOptions } from "../../runner/runner.node.js";
import { VERSION } from "../version.js";
import { parseInteger, parseNumber } from "./flags.js";
import { note, out } from "./output.js";
import { absolutePluginArguments, pluginArguments } from "./pluginFlag.js";

/** Flags that concern the emission or the task's place in the array, not the run. */
const DROPPED_WITH_VALUE = new Set([
  "--emit",
  "--shard",
  "--shard-count",
  "--throttle",
  "--task-hours",
  "--workers",
]);
const DROPPED_BARE = new Set(["--progress", "--no-progress"]);

/**
 * The arguments of the tasks' command: the user's `experiment` arguments less the
 * dropped flags (as `--flag value` or `--flag=value`).
 */
export function taskArguments(raw: readonly string[]): string[] {
  const at = raw.indexOf("experiment");
  const args = at >= 0 ? raw.slice(at) : ["experiment", ...raw];
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    const name = a.includes("=") ? a.slice(0, a.indexOf("=")) : a;
    if (DROPPED_WITH_VALUE.has(name)) {
      if (!a.includes("=")) i++;
      continue;
    }
    if (DROPPED_BARE.has(a)) continue;
    kept.push(a);
  }
  return kept;
}

/** How tasks start sdspcaan: this very build with this Node, else `sdspcaan` on the PATH. */
function launcher(): string[] {
  const bin = fileURLToPath(new URL("../bin.js", import.meta.url));
  return existsSync(bin) ? [process.execPath, bin] : ["sdspcaan"];
}

export function parseJobKind(text: string): JobScriptKind {
  if (!(JOB_SCRIPT_KINDS as readonly string[]).includes(text)) {
    throw new ValidationError(
      "emit",
      `--emit must be one of ${JOB_SCRIPT_KINDS.join(", ")}. Got ${JSON.stringify(text)}.`,
    );
  }
  return text as JobScriptKind;
}

export interface EmitFlags {
  readonly emit: string;
  readonly shard?: string;
  readonly shardCount?: string;
  readonly throttle?: string;
  readonly taskHours?: string;
  readonly workers?: string;
  /** The run's results directory and report flags, for the report step. */
  readonly out: string;
  readonly figures?: boolean;
  readonly comparePaper?: boolean;
}

/** Prints the job script for the run `options` describes. */
export async function emitJobScript(
  options: ExperimentOptions,
  flags: EmitFlags,
  rawArgs: readonly string[],
): Promise<void> {
  const kind = parseJobKind(flags.emit);
  if (flags.shard !== undefined) {
    throw new ValidationError(
      "shard",
      "--shard picks one task's share; with --emit give the number of shards as --shard-count N.",
    );
  }
  const workers = parseInteger("--workers", flags.workers, 1, 256) ?? 1;
  const count = parseInteger("--shard-count", flags.shardCount, 1, 100_000);
  const taskHours = parseNumber("--task-hours", flags.taskHours, 0);
  if (count !== undefined && taskHours !== undefined) {
    throw new ValidationError(
      "task-hours",
      "--task-hours and --shard-count both set the number of tasks; give one of them.",
    );
  }
  // The tasks and the report step load each plug-in by its absolute path.
  const args = absolutePluginArguments(taskArguments(rawArgs), process.cwd());
  const plugins = pluginArguments(args);
  const text: JobPlanText = {
    launcher: launcher(),
    args,
    cwd: process.cwd(),
    name: "sdspcaan",
    out: flags.out,
    reportFlags: [
      ...plugins.flatMap((p) => ["--plugin", p]),
      ...(flags.figures === false ? ["--no-figures"] : []),
      ...(flags.comparePaper === true ? ["--compare-paper"] : []),
    ],
    plugins,
    image: `sdspcaan:${VERSION}`,
  };
  // Before the data sets are loaded: a string no script can hold is refused at once.
  checkPlanText(text);
  const estimate = await estimateRun(options, {
    workers,
    ...(count !== undefined ? { count } : {}),
    ...(taskHours !== undefined ? { taskHours } : {}),
  });
  const throttle =
    parseInteger("--throttle", flags.throttle, 1, 100_000) ?? Math.min(estimate.shards, 32);
  const plan: JobPlan = {
    ...text,
    shards: estimate.shards,
    throttle: Math.min(throttle, estimate.shards),
    workers,
    shardCostMs: estimate.shardCostMs,
    memoryBytes: estimate.memoryBytes,
    fits: estimate.fits,
    longestTaskMs: estimate.longestTaskMs,
  };
  checkPlan(plan);
  for (const line of estimateLines(plan)) note(line);
  out(jobScript(kind, plan).trimEnd());
}
