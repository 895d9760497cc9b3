/**
 * `sdspcaan experiment`: the paper's protocol over data sets, methods, k and
 * hyperparameter grids, in worker threads, resumable, with the table printed at
 * the end and the report files and figures written into --out.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { AbortError, ValidationError } from "sdspcaan";
import { setNativeKernels } from "sdspcaan/node";
import { JOB_SCRIPT_KINDS } from "../../cluster/jobScripts.js";
import { shellQuote } from "../../cluster/quoting.js";
import { checkJsonInput } from "../../io/inputFiles.js";
import { peekHeader } from "../../io/streamText.js";
import { plural } from "../../plural.js";
import { GRID_PRESETS } from "../../protocol/grids.js";
import { PAPER_K_GRID } from "../../protocol/kGrid.js";
import {
  parseShard,
  type ShardSpec,
  shardFileName,
  shardFromEnvironment,
} from "../../protocol/shards.js";
import { describeStored, RESULTS_FILE } from "../../runner/resultsFile.node.js";
import {
  type ExperimentDataset,
  type ExperimentOptions,
  type ExperimentResult,
  runExperiment,
} from "../../runner/runner.node.js";
import { checkOutputDirectory } from "../outputs.js";
import { abortOnInterrupt, exitQuietly, inFlagWords, oneLineErrors } from "./commandErrors.js";
import { addDataFormatOptions, labelColumnFlag, loadOptionsFrom } from "./dataFlags.js";
import { columnNumbersNote } from "./delimitedFlags.js";
import { emitJobScript } from "./experimentJobs.js";
import {
  flagGiven,
  type ListValue,
  parseFileList,
  parseInteger,
  parseIntegerList,
  parseList,
  parseNumber,
  parsePreprocess,
  preprocessOption,
  refuseSeedWithSplits,
} from "./flags.js";
import { checkDataDir } from "./folders.js";
import { formatDuration, note, out } from "./output.js";
import { addPluginOption } from "./pluginFlag.js";
import { ProgressDisplay } from "./progress.js";

export interface ExperimentFlags {
  dataset?: ListValue;
  data?: ListValue;
  xVar?: string;
  yVar?: string;
  labelCol?: string;
  labelColumn?: string;
  dataDir?: string;
  header?: string;
  dropColumns?: string;
  decimalComma?: boolean;
  methods?: ListValue;
  grid?: string;
  kGrid?: ListValue;
  repeats?: string;
  seed?: string;
  splits?: string;
  preprocess?: string;
  stratify?: boolean;
  workers?: string;
  maxIter?: string;
  tol?: string;
  m?: string;
  stopRule?: string;
  out: string;
  force?: boolean;
  repair?: boolean;
  figures?: boolean;
  comparePaper?: boolean;
  progress?: boolean;
  shard?: string;
  shardCount?: string;
  emit?: string;
  throttle?: string;
  taskHours?: string;
  plugin?: string[];
}

/** The run's options that experiment's (and demo's) flags give. */
const RUN_FLAGS = {
  methods: "--methods",
  kGrid: "--k-grid",
  seed: "--seed",
  repeats: "--repeats",
  grid: "--grid",
} as const;

/** What `runAndReport` needs besides the experiment options. */
/**
 * The error classes of the fits the runner records because the configuration is not
 * possible (runner/units.node.ts, `isRefusal`); any other recorded error is a plug-in's.
 */
const REFUSALS = new Set([
  "ValidationError",
  "RowValueError",
  "ModelFormatError",
  "ConvergenceError",
  "ContractError",
]);

export interface RunAndReportOptions {
  readonly out: string;
  readonly showProgress: boolean;
  readonly figures: boolean;
  readonly comparePaper: boolean;
}

/**
 * Runs an experiment with a progress display and Ctrl-C handling, then writes the
 * reports and prints the table. Exits 130 (after saying how to resume) when
 * interrupted.
 */
export async function runAndReport(
  options: ExperimentOptions,
  how: RunAndReportOptions,
): Promise<ExperimentResult> {
  checkOutputDirectory("--out", how.out);
  const controller = new AbortController();
  const interrupt = abortOnInterrupt(controller);
  const display = how.showProgress ? new ProgressDisplay() : null;
  let result: ExperimentResult;
  try {
    // The native GEMM where it runs (the same bits; SDSPCAAN_NATIVE=0 keeps WebAssembly).
    setNativeKernels("auto");
    result = await runExperiment(options, {
      signal: controller.signal,
      // Notes and warnings come while the run is prepared, before the progress display starts.
      onMessage: (m) => note(`${m.level}: ${m.text}`),
      ...(display ? { onProgress: (p) => display.update(p) } : {}),
    });
  } catch (err) {
    display?.stop();
    if (!(err instanceof AbortError)) throw inFlagWords(err, RUN_FLAGS);
    note(
      `Stopped. Every finished fit is in ${describeStored(join(how.out, options.shard ? shardFileName(options.shard) : RESULTS_FILE))}; run the same command again to resume.`,
    );
    exitQuietly(interrupt.exitCode, "interrupted");
  } finally {
    interrupt.release();
  }
  display?.stop();
  // The reports (and the figures' renderer behind them) load only when a run ends, so
  // that every other command starts without them.
  const { summariseSkipped, writeRunReports } = await import("../../reports/reportFiles.node.js");
  const fresh = result.total - result.resumed;
  note(
    `${result.total} fits${result.shard ? ` of shard ${result.shard.index}/${result.shard.count}` : ""} (${result.resumed} resumed, ${fresh} run) in ${formatDuration(result.elapsedMs)}.`,
  );
  for (const s of summariseSkipped(result.skipped)) {
    // A plug-in's own error (a TypeError of its code) says its class; a refusal's
    // message says enough.
    const first = result.skipped.find((f) => f.dataset === s.dataset && f.method === s.method);
    const why =
      first !== undefined && !REFUSALS.has(first.error) ? `${first.error}: ${s.reason}` : s.reason;
    note(
      `note: ${s.method} on ${s.dataset}: ${plural(s.count, "configuration")} refused, e.g. ${why}`,
    );
  }
  // The results file only when this run wrote to it: not when every fit was resumed
  // (e.g. all from results.jsonl.gz, beside which no plain file is then made).
  const written = result.resultsFile !== null ? [result.resultsFile] : [];
  if (result.shard !== undefined) {
    // The other shards may still be running: the report is made once, from all of them.
    // The report command in words a shell takes as they are, with the flags given here
    // that only the report uses (a shard writes no tables or figures).
    const report = [
      "sdspcaan report --out",
      shellQuote(how.out),
      ...(result.settings.plugins ?? []).map((p) => `--plugin ${shellQuote(p.path)}`),
      ...(how.figures ? [] : ["--no-figures"]),
      ...(how.comparePaper ? ["--compare-paper"] : []),
    ].join(" ");
    note(
      `${written.length > 0 ? `Wrote ${written[0]}. ` : ""}When every shard is done, merge them into the tables and figures with: ${report}`,
    );
    return result;
  }
  const report = await writeRunReports(how.out, {
    comparePaper: how.comparePaper,
    figures: how.figures,
    data: result.data,
  });
  for (const n of report.notes) note(`note: ${n}`);
  for (const w of report.warnings) note(`warning: no figure for ${w}`);
  out(report.tableMd);
  note(`Wrote ${[...written, ...report.files].join(", ")}.`);
  return result;
}

/** The experiment options described by the flags. */
export function experimentOptionsFrom(flags: ExperimentFlags): ExperimentOptions {
  const names = parseList(flags.dataset) ?? [];
  const files = parseFileList(flags.data) ?? [];
  if (names.length + files.length === 0) {
    throw new ValidationError(
      "dataset",
      "Name at least one data set: --dataset NAME... (from the registry, see 'sdspcaan datasets list') or --data FILE....",
    );
  }
  if (flags.splits !== undefined && names.length + files.length !== 1) {
    throw new ValidationError(
      "splits",
      "--splits holds the splits of one data set; give exactly one --dataset or --data with it.",
    );
  }
  if (flags.splits !== undefined) checkJsonInput(flags.splits, "split file", "--splits");
  if (labelColumnFlag(flags) === "none") {
    throw new ValidationError(
      "label-col",
      "experiment needs the class labels; '--label-col none' (data without labels) is for transform, and for fit with a method that needs no labels.",
    );
  }
  const load = {
    ...loadOptionsFrom({
      xVar: flags.xVar,
      yVar: flags.yVar,
      labelCol: flags.labelCol,
      labelColumn: flags.labelColumn,
      header: flags.header,
      dropColumns: flags.dropColumns,
      decimalComma: flags.decimalComma,
    }),
    ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
  };
  const datasets: ExperimentDataset[] = [...names, ...files].map((source) => ({
    source,
    load,
    ...(flags.splits !== undefined ? { splits: flags.splits } : {}),
  }));
  const methods = parseList(flags.methods);
  const common: Record<string, unknown> = {};
  const maxIter = parseInteger("--max-iter", flags.maxIter);
  if (maxIter !== undefined) common.maxIter = maxIter;
  const tol = parseNumber("--tol", flags.tol, 0);
  if (tol !== undefined) common.tol = tol;
  const m = parseInteger("--m", flags.m);
  if (m !== undefined) common.m = m;
  if (flags.stopRule !== undefined) common.stopRule = flags.stopRule;
  const repeats = parseInteger("--repeats", flags.repeats);
  const seed = parseInteger("--seed", flags.seed, 0, 2 ** 32 - 1);
  const workers = parseInteger("--workers", flags.workers, 1, 256);
  const kGrid = parseIntegerList("--k-grid", flags.kGrid);
  const shard = shardFrom(flags);
  return {
    datasets,
    ...(flags.plugin !== undefined && flags.plugin.length > 0 ? { plugins: flags.plugin } : {}),
    methods: methods === undefined || methods.length === 0 ? "all" : methods,
    grid: flags.grid ?? "paper",
    ...(kGrid ? { kGrid } : {}),
    ...(repeats !== undefined ? { repeats } : {}),
    ...(seed !== undefined ? { seed } : {}),
    preprocess: parsePreprocess(flags.preprocess),
    stratify: flags.stratify === true,
    commonMethodOptions: common,
    ...(workers !== undefined ? { workers } : {}),
    // Worker threads even for one worker: a fit in the main thread would keep Ctrl-C waiting.
    inProcess: false,
    out: flags.out,
    force: flags.force === true,
    repair: flags.repair === true,
    ...(shard !== null ? { shard } : {}),
  };
}

/**
 * This process's shard: --shard i/N, else the job array's environment
 * (SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX) with --shard-count; null for the
 * whole run.
 */
function shardFrom(flags: ExperimentFlags): ShardSpec | null {
  const count = parseInteger("--shard-count", flags.shardCount, 1, 100_000);
  if (flags.shard !== undefined) {
    const shard = parseShard(flags.shard);
    if (count !== undefined && count !== shard.count) {
      throw new ValidationError(
        "shard-count",
        `--shard ${flags.shard} and --shard-count ${count} disagree on the number of shards.`,
      );
    }
    return shard;
  }
  const fromEnv = shardFromEnvironment(process.env, count);
  if (fromEnv === null && count !== undefined) {
    throw new ValidationError(
      "shard-count",
      "--shard-count needs the task's index: --shard i/N, or SLURM_ARRAY_TASK_ID (Slurm job arrays) or JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs) in the environment. To print a job script, add --emit slurm|k8s|parallel.",
    );
  }
  return fromEnv;
}

export function registerExperimentCommand(program: Command): void {
  const cmd = program
    .command("experiment")
    .description(
      "Run the paper's protocol (seeded 20/40/40 splits, grid search on validation BCA, test BCA at the chosen k and parameters) and write results.jsonl, table.md, table.csv, summary.json and figures into --out. Re-running the same command resumes.",
    )
    .option(
      "--dataset <names...>",
      "registry data sets, e.g. Yale ORL COIL20 or Yale,ORL,COIL20 (see 'sdspcaan datasets list')",
    )
    .option(
      "--data <files...>",
      "data files (MAT, NPY or CSV with the label in the last column), separated by spaces or commas",
    );
  addDataFormatOptions(cmd);
  cmd
    .option("--methods <names...>", "method names (separated by commas or spaces), or all", "all")
    .option(
      "--grid <grid>",
      `hyperparameter grid: ${GRID_PRESETS.join(", ")}, or custom such as "alpha=1;beta=1;delta=0.1,1,10"`,
      "paper",
    )
    .option(
      "--k-grid <k...>",
      `candidate k values (default ${PAPER_K_GRID.join(",")}, filtered to c <= k <= min(n_train, d); values dropped from a given list are warned about, and a list with no valid k for a data set is an error)`,
    )
    .option(
      "--repeats <n>",
      "splits per data set (default 10, or the number of splits in --splits)",
    )
    .option("--seed <s>", "base seed of the splits", "0")
    .option(
      "--splits <file>",
      "explicit splits (JSON {index_base, splits: [{train, val, test}]}) of the one data set",
    )
    .addOption(preprocessOption())
    .option("--stratify", "stratified splits (the paper's are not)")
    .option("--workers <n>", "worker threads (default: one per core); results do not depend on it")
    .option("--max-iter <T>", "maximum outer iterations of every iterative method")
    .option("--tol <tol>", "stop-test tolerance of every iterative method")
    .option("--m <m>", "number of adaptive neighbours of every graph method")
    .option("--stop-rule <rule>", "stop test of the SDSPCA family: aligned, paper or subspace")
    .requiredOption("--out <dir>", "results directory (created; an existing one is resumed)")
    .option(
      "--force",
      "go on although --out holds a run with other settings: reuse every fit whose settings fingerprint matches, set the other lines aside (results.jsonl.old-N) and redo those fits",
    )
    .option(
      "--repair",
      "move bad lines of results.jsonl (not JSON, not a result, or two lines of one fit with different results) to results.rejected.jsonl and redo those fits",
    )
    .option("--no-figures", "write the tables only")
    .option("--compare-paper", "show the paper's Table IV values beside ours")
    .option("--no-progress", "no progress display")
    .option(
      "--shard <i/N>",
      "run shard i of N (0 <= i < N): a deterministic, cost-balanced share of the fits, written to results.shard-i-of-N.jsonl; without it, SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX picks the shard (see docs/cluster.md)",
    )
    .option(
      "--shard-count <N>",
      "the number of shards, with the task index from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX; with --emit, how many array tasks (default: from the cost estimate)",
    )
    .option(
      "--emit <kind>",
      `print a job script for this run instead of running it: ${JOB_SCRIPT_KINDS.join(", ")} (an sbatch array script, a Kubernetes Indexed Job, a GNU parallel job list)`,
    )
    .option("--throttle <n>", "with --emit: array tasks running at once (default: up to 32)")
    .option(
      "--task-hours <h>",
      "with --emit and no --shard-count: the estimated wall hours of each array task, which sets their number (default 1)",
    )
    .action(async (flags: ExperimentFlags, command: Command) => {
      refuseIdleFlags(flags, command);
      if (flags.emit !== undefined) {
        const { shard: _s, shardCount: _c, ...rest } = flags;
        await emitJobScript(
          experimentOptionsFrom(rest),
          { ...flags, emit: flags.emit },
          rawArguments(command),
        );
        return;
      }
      const options = experimentOptionsFrom(flags);
      // The runner reads the files; a header guessed from column numbers is said here.
      for (const file of parseFileList(flags.data) ?? []) {
        const decision = await peekHeader(
          file,
          loadOptionsFrom({
            labelCol: flags.labelCol,
            labelColumn: flags.labelColumn,
            header: flags.header,
            dropColumns: flags.dropColumns,
            decimalComma: flags.decimalComma,
          }),
        );
        if (decision?.detected === "column-numbers" && decision.header !== undefined) {
          note(columnNumbersNote(file, decision.header));
        }
      }
      await runAndReport(options, {
        out: flags.out,
        showProgress: flags.progress !== false,
        figures: flags.figures !== false,
        comparePaper: flags.comparePaper === true,
      });
    });
  addPluginOption(cmd);
  oneLineErrors(cmd);
}

/** Refuses a flag that has no effect with the others given (each only matters with another). */
function refuseIdleFlags(flags: ExperimentFlags, cmd: Command): void {
  checkDataDir(flags.dataDir);
  if (flags.emit === undefined) {
    for (const [key, flag, why] of [
      ["taskHours", "--task-hours", "sizes the tasks of a job script"],
      ["throttle", "--throttle", "limits the array tasks of a job script running at once"],
    ] as const) {
      if (flags[key] !== undefined) {
        throw new ValidationError(
          flag.slice(2),
          `${flag} ${why}: use it with --emit slurm|k8s|parallel.`,
        );
      }
    }
  }
  refuseSeedWithSplits(flags.splits, flagGiven(cmd, "seed"), flags.stratify, false);
  const files = parseFileList(flags.data) ?? [];
  if (
    flags.dataDir !== undefined &&
    (parseList(flags.dataset) ?? []).length === 0 &&
    files.length > 0 &&
    files.every((f) => existsSync(f))
  ) {
    throw new ValidationError(
      "data-dir",
      "--data-dir is where registry data sets are looked for, and --data names files, not registry names: drop --data-dir.",
    );
  }
}

/** The arguments the program was called with (for the job scripts' command line). */
function rawArguments(command: Command): string[] {
  let root = command;
  while (root.parent) root = root.parent;
  // commander keeps the arguments it parsed as `rawArgs` (not in its type declarations).
  const raw = (root as unknown as { rawArgs?: unknown }).rawArgs;
  return Array.isArray(raw) ? raw.map(String) : process.argv.slice(2);
}
