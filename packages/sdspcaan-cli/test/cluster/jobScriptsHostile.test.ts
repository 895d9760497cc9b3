/**
 * No string of a job plan runs as code or changes the structure of the script, job
 * list or manifest it goes into. Generated hostile strings (quotes, $(), backticks,
 * ;, #, YAML indicators, "packjob", Unicode line separators, control characters) in
 * every field: either a one-line refusal naming the field, or
 * - the Slurm script passes `bash -n`; its #SBATCH lines, read as sbatch reads them
 *   (Slurm's get_argument, old and current), give exactly the intended options; run
 *   under bash with stand-ins for sbatch, scontrol and the CLI that only log their
 *   arguments (one NUL-separated record per call), it makes exactly the expected
 *   calls with the original strings and creates no file;
 * - the GNU parallel list, run one job per line (and by GNU parallel itself when it
 *   is installed: .ci/run installs it), runs exactly one command per shard, with the
 *   original strings, in the working directory;
 * - the Kubernetes manifest is one YAML document that parses (YAML 1.2 and 1.1) to
 *   exactly the intended object.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { ValidationError } from "sdspcaan";
import { afterAll, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import {
  CONTAINER_COMMAND,
  type JobPlan,
  kubernetesJob,
  parallelJobs,
  reportMemoryMiB,
  reportSeconds,
  SIGNAL_LEAD_SECONDS,
  slurmScript,
  slurmTime,
  taskMemoryMiB,
  taskSeconds,
} from "#internal/cluster/jobScripts.js";
import { slurmDirectiveValue, yamlString } from "#internal/cluster/quoting.js";
import { kubernetesExpand } from "../helpers/kubernetesExpansion.js";
import { removeDir, tempDir } from "../helpers/runs.js";

/** Characters no job script can hold as they are: refused wherever they appear. */
const REFUSED = [
  "\n",
  "\r",
  "\0",
  "\t",
  "\u000b",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u009b",
  "\u2028",
  "\u2029",
];
/** What shells, Slurm, GNU parallel and YAML treat specially, and plain text around it. */
const SPECIAL = [
  "'",
  '"',
  "$(",
  ")",
  "`",
  ";",
  "#",
  ": ",
  "- ",
  "{",
  "}",
  "{}",
  "{1}",
  "&",
  "*",
  "!",
  "|",
  ">",
  "<",
  "%",
  "%A",
  "@",
  "\\",
  " ",
  "  ",
  "$x",
  "$" + "{x}",
  "~",
  "?",
  "[",
  "]",
  ",",
  "=",
  "x=1",
  "--",
  "-",
  ":",
  "packjob",
  "PackJob",
  "hetjob",
  "é",
  "𝄞",
  "\u00a0",
  "\u202e",
  "\ufeff",
  "a",
  "b1",
  ".",
  "/",
];
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters refused
const isRefused = (s: string) => /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s);
/** One character of any kind except the refused ones, or one of SPECIAL. */
const safeUnit = fc.oneof(
  fc.constantFrom(...SPECIAL),
  fc.string({ unit: "binary", minLength: 1, maxLength: 1 }).filter((c) => !isRefused(c)),
);
const safeText = (minLength = 1) => fc.string({ unit: safeUnit, minLength, maxLength: 6 });
const refusedText = fc
  .tuple(safeText(0), fc.constantFrom(...REFUSED), safeText(0))
  .map(([a, c, b]) => a + c + b);
const jobName = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,8}[a-z0-9])?$/);

const dir = tempDir("hostile");
afterAll(() => removeDir(dir));
const bin = join(dir, "bin");
mkdirSync(bin);
const log = join(dir, "calls.log");
const counter = join(dir, "count");
// Stand-ins: each appends one record, its name, working directory, argument count and
// arguments, each ended by NUL; sbatch also prints a job id as `sbatch --parsable` does.
const record = `{ printf '%s\\0' "$(basename "$0")" "$PWD" "$#"; for a in "$@"; do printf '%s\\0' "$a"; done; } >>"$CALLS"`;
const tool = (name: string, body: string[]) => {
  writeFileSync(join(bin, name), `#!/bin/sh\n${[record, ...body].join("\n")}\n`);
  chmodSync(join(bin, name), 0o755);
};
tool("sbatch", [
  'n=$(( $(cat "$COUNT" 2>/dev/null || echo 100) + 1 ))',
  'echo "$n" >"$COUNT"',
  'echo "$n;cluster"',
]);
for (const name of ["scontrol", "srun", "sdspcaan-stub"]) tool(name, []);
const launcherPath = join(bin, "sdspcaan-stub");
const hasParallel = spawnSync("parallel", ["--version"], { stdio: "ignore" }).status === 0;

interface Call {
  readonly tool: string;
  readonly cwd: string;
  readonly args: string[];
}

function calls(): Call[] {
  let fields: string[];
  try {
    fields = readFileSync(log, "utf8").split("\0");
  } catch {
    return [];
  }
  const out: Call[] = [];
  let i = 0;
  while (i < fields.length - 1) {
    const n = Number(fields[i + 2]);
    out.push({ tool: fields[i], cwd: fields[i + 1], args: fields.slice(i + 3, i + 3 + n) });
    i += 3 + n;
  }
  return out;
}

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  rmSync(log, { force: true });
  rmSync(counter, { force: true });
  const r = spawnSync(command, args, {
    cwd,
    env: { PATH: `${bin}:/usr/bin:/bin`, CALLS: log, COUNT: counter, HOME: dir, ...env },
    encoding: "utf8",
    timeout: 20_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return calls();
}

/**
 * The arguments sbatch reads from one #SBATCH line (the text after "#SBATCH"), as
 * Slurm's get_argument does: `current` as in Slurm 17.11 on (src/common/proc_args.c
 * since 20.02), else as before (only " quotes, and # ends the line even inside it).
 */
function slurmArguments(text: string, current: boolean): string[] {
  const args: string[] = [];
  let line = text;
  const space = (c: string) => /[ \t\n\v\f\r]/.test(c);
  for (;;) {
    if (current) {
      const at = line.toLowerCase().indexOf("packjob");
      if (at >= 0) line = `${line.slice(0, at)}       ${line.slice(at + 7)}`;
    }
    let p = 0;
    while (p < line.length && space(line[p])) p++;
    if (p >= line.length) return args;
    if (current && line[p] === ":") throw new Error(`Unexpected ':' in ${text}`);
    let arg = "";
    let quote = "";
    let escaped = false;
    while (p < line.length && (quote !== "" || !space(line[p])) && line[p] !== "\n") {
      const c = line[p];
      if (escaped) {
        escaped = false;
      } else if (c === "\\") {
        escaped = true;
        p++;
        continue;
      } else if (quote !== "" && c === quote) {
        quote = "";
        p++;
        continue;
      } else if (quote === "" && (c === '"' || (current && c === "'"))) {
        quote = c;
        p++;
        continue;
      } else if (c === "#" && (quote === "" || !current)) {
        break;
      }
      arg += c;
      p++;
    }
    if (current && quote !== "") throw new Error(`Unmatched ${quote} in ${text}`);
    if (arg !== "") args.push(arg);
    if (p >= line.length || line[p] === "#") return args;
    line = line.slice(p);
  }
}

/** The options of a script's #SBATCH lines, up to its first command, as sbatch reads them. */
function sbatchOptions(script: string, current: boolean): string[] {
  const options: string[] = [];
  for (const line of script.split("\n").slice(1)) {
    if (line.trim() !== "" && !line.startsWith("#")) break;
    if (line.startsWith("#SBATCH")) options.push(...slurmArguments(line.slice(7), current));
  }
  return options;
}

let serial = 0;
function planWith(fields: {
  launcherWord: string;
  args: string[];
  cwdName: string;
  out: string;
  name: string;
  reportFlags: string[];
  image: string;
  plugins?: string[];
}): JobPlan {
  // Plug-ins go into the tasks' and the report's command lines, and the manifest's notes.
  const plugins = (fields.plugins ?? []).flatMap((p) => ["--plugin", p]);
  return {
    launcher: [launcherPath, fields.launcherWord],
    args: ["experiment", ...plugins, ...fields.args, "--out", fields.out],
    cwd: join(dir, "work", `${serial++}-${fields.cwdName}`),
    shards: 3,
    throttle: 2,
    workers: 2,
    shardCostMs: [3_600_000, 3_000_000, 3_200_000],
    memoryBytes: 2 ** 30,
    fits: 300,
    longestTaskMs: 60_000,
    name: fields.name,
    out: fields.out,
    reportFlags: [...plugins, ...fields.reportFlags],
    image: fields.image,
    plugins: fields.plugins ?? [],
  };
}

const acceptedPlan = fc
  .record({
    launcherWord: safeText(0),
    args: fc.array(safeText(0), { maxLength: 3 }),
    // One path component: its own folder under dir/work.
    cwdName: safeText().filter((s) => !s.includes("/") && s !== "." && s !== ".."),
    out: safeText(),
    name: jobName,
    reportFlags: fc.array(safeText(0), { maxLength: 2 }),
    image: safeText(),
    plugins: fc.array(safeText(), { maxLength: 2 }),
  })
  .map(planWith);

/** A parsed manifest with its container's command and args as Kubernetes expands them. */
function asTheContainerGetsIt(manifest: {
  spec: { template: { spec: { containers: { command: string[]; args: string[] }[] } } };
}): unknown {
  const env = { JOB_COMPLETION_INDEX: "0", HOSTNAME: "pod-0" };
  for (const c of manifest.spec.template.spec.containers) {
    c.command = c.command.map((a) => kubernetesExpand(a, env));
    c.args = c.args.map((a) => kubernetesExpand(a, env));
  }
  return manifest;
}

/** The manifest kubernetesJob should describe, as an object. */
function intendedManifest(plan: JobPlan): unknown {
  const memory = `${taskMemoryMiB(plan)}Mi`;
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: plan.name },
    spec: {
      completionMode: "Indexed",
      completions: plan.shards,
      parallelism: plan.throttle,
      backoffLimitPerIndex: 2,
      maxFailedIndexes: plan.shards,
      activeDeadlineSeconds: taskSeconds(plan) * Math.ceil(plan.shards / plan.throttle),
      template: {
        spec: {
          restartPolicy: "Never",
          containers: [
            {
              name: "sdspcaan",
              image: plan.image,
              workingDir: plan.cwd,
              command: [...CONTAINER_COMMAND],
              args: [
                ...plan.args,
                "--shard-count",
                String(plan.shards),
                "--workers",
                String(plan.workers),
                "--no-progress",
              ],
              resources: {
                requests: { cpu: String(plan.workers), memory },
                limits: { memory },
              },
              volumeMounts: [{ name: "work", mountPath: plan.cwd }],
            },
          ],
          volumes: [{ name: "work", persistentVolumeClaim: { claimName: "sdspcaan-work" } }],
        },
      },
    },
  };
}

describe("job scripts with hostile strings", () => {
  it("quote a Slurm directive value so that old and current sbatch read it back", () => {
    fc.assert(
      fc.property(safeText(), (value) => {
        const line = ` --chdir=${slurmDirectiveValue(value)}`;
        expect(slurmArguments(line, true)).toEqual([`--chdir=${value}`]);
        expect(slurmArguments(line, false)).toEqual([`--chdir=${value}`]);
      }),
      { numRuns: 300 },
    );
    expect(slurmDirectiveValue("/home/me/runs")).toBe("/home/me/runs");
    expect(slurmDirectiveValue("/x/my packjob #1")).toBe('"/x/my pack\\job \\#1"');
  });

  it("write YAML strings that read back exactly, with no raw line separator", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 12 }), (text) => {
        // Lone surrogates are not text (and are refused before a manifest is written).
        fc.pre(!/[\ud800-\udfff]/u.test(text));
        const written = yamlString(text);
        expect(written).not.toMatch(/[\u0085\u2028\u2029\u007f-\u009f]/);
        for (const version of ["1.1", "1.2"] as const) {
          const docs = parseAllDocuments(`value: ${written}\n`, { version });
          expect(docs).toHaveLength(1);
          expect(docs[0].errors).toEqual([]);
          expect(docs[0].toJS()).toEqual({ value: text });
        }
      }),
      { numRuns: 200 },
    );
  });

  it("refuse a control or line-break character in any field, in one line naming it", () => {
    const fields = [
      ["out", "--out", (p: JobPlan, v: string) => ({ ...p, out: v })],
      [
        "data",
        "--data",
        (p: JobPlan, v: string) => ({ ...p, args: [...p.args, "--data", "a.csv", v] }),
      ],
      ["grid", "--grid", (p: JobPlan, v: string) => ({ ...p, args: [...p.args, `--grid=${v}`] })],
      ["cwd", "working directory", (p: JobPlan, v: string) => ({ ...p, cwd: `/w/${v}` })],
      ["launcher", "starts sdspcaan", (p: JobPlan, v: string) => ({ ...p, launcher: [v] })],
      ["reportFlags", "report's flag", (p: JobPlan, v: string) => ({ ...p, reportFlags: [v] })],
      ["image", "image", (p: JobPlan, v: string) => ({ ...p, image: v })],
      ["plugin", "plug-in", (p: JobPlan, v: string) => ({ ...p, plugins: [v] })],
      ["name", "job name", (p: JobPlan, v: string) => ({ ...p, name: v })],
    ] as const;
    const base = planWith({
      launcherWord: "x",
      args: [],
      cwdName: "w",
      out: "runs/a",
      name: "sdspcaan",
      reportFlags: [],
      image: "sdspcaan:1",
    });
    fc.assert(
      fc.property(fc.constantFrom(...fields), refusedText, ([argument, words, set], value) => {
        const plan = set(base, value);
        for (const write of [slurmScript, kubernetesJob, parallelJobs]) {
          let error: unknown;
          try {
            write(plan);
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(ValidationError);
          const { message, argument: named } = error as ValidationError;
          expect(named).toBe(argument);
          expect(message).toContain(words);
          // biome-ignore lint/suspicious/noControlCharactersInRegex: a one-line message has none
          expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
          if (argument !== "name")
            expect(message).toMatch(/holds an? [A-Za-z -]+ \(U\+[0-9A-F]{4}\)/);
        }
      }),
      { numRuns: 60 },
    );
    expect(() => slurmScript({ ...base, out: "runs/x\n$(touch pwned)" })).toThrow(
      '--out "runs/x\\n$(touch pwned)" holds a line feed (U+000A), which a job script cannot hold as it is',
    );
    expect(() => kubernetesJob({ ...base, cwd: "relative/dir" })).toThrow(
      "The working directory must be an absolute path.",
    );
    expect(() => kubernetesJob({ ...base, name: "Sdspcaan" })).toThrow(/The job name must be/);
  });

  it("give bash, sbatch, GNU parallel and a YAML reader exactly the original strings", () => {
    // One shell per generated plan: `bash -n`, the script as submitted, as the report
    // job and as array task 1, then the job list one line at a time (what GNU parallel
    // does with its input lines). GNU parallel itself runs all the lists at the end.
    const driver = join(dir, "driver.sh");
    writeFileSync(
      driver,
      [
        "set -e",
        'bash -n "$1"',
        'bash "$1"',
        'bash "$1" report',
        'SLURM_ARRAY_TASK_ID=1 SLURM_JOB_ID=7 bash "$1"',
        'while IFS= read -r job; do sh -c "$job"; done <"$2"',
      ].join("\n"),
    );
    const allJobs: string[] = [];
    const allExpected: Call[] = [];
    fc.assert(
      fc.property(acceptedPlan, (plan) => {
        const runDir = join(dir, `run-${serial}`);
        mkdirSync(runDir);
        mkdirSync(plan.cwd, { recursive: true });
        const launcherWord = plan.launcher[1];
        const n = String(plan.shards);
        const w = String(plan.workers);
        const script = slurmScript(plan);
        const scriptPath = join(dir, `job-${serial}.sh`);
        writeFileSync(scriptPath, script);
        const jobs = parallelJobs(plan);
        const jobsPath = join(dir, `jobs-${serial}.txt`);
        writeFileSync(jobsPath, jobs);
        allJobs.push(jobs);

        // The #SBATCH options, as sbatch reads them.
        const directives = [
          `--job-name=${plan.name}`,
          `--array=0-${plan.shards - 1}%${plan.throttle}`,
          "--ntasks=1",
          `--cpus-per-task=${w}`,
          `--mem=${taskMemoryMiB(plan)}M`,
          `--time=${slurmTime(taskSeconds(plan))}`,
          `--signal=B:USR1@${SIGNAL_LEAD_SECONDS}`,
          "--requeue",
          "--open-mode=append",
          `--chdir=${plan.cwd}`,
          `--output=${plan.name}-%A_%a.log`,
        ];
        expect(sbatchOptions(script, true)).toEqual(directives);
        expect(sbatchOptions(script, false)).toEqual(directives);

        const sbatch = (args: string[]): Call => ({ tool: "sbatch", cwd: runDir, args });
        const cli = (cwd: string, args: string[]): Call => ({
          tool: "sdspcaan-stub",
          cwd,
          args: [launcherWord, ...args],
        });
        const perShard = Array.from({ length: plan.shards }, (_, i) =>
          cli(plan.cwd, [...plan.args, "--shard", `${i}/${n}`, "--workers", w, "--no-progress"]),
        );
        allExpected.push(...perShard);
        expect(run("sh", [driver, scriptPath, jobsPath], runDir)).toEqual([
          sbatch(["--parsable", scriptPath]),
          sbatch([
            "--parsable",
            "--dependency=afterok:101",
            "--kill-on-invalid-dep=yes",
            "--array=0",
            `--job-name=${plan.name}-report`,
            "--cpus-per-task=1",
            `--mem=${reportMemoryMiB(plan)}M`,
            `--time=${slurmTime(reportSeconds(plan))}`,
            `--output=${plan.name}-report-%A.log`,
            scriptPath,
            "report",
          ]),
          cli(runDir, ["report", "--out", plan.out, ...plan.reportFlags]),
          cli(runDir, [...plan.args, "--shard-count", n, "--workers", w, "--no-progress"]),
          ...perShard,
        ]);
        expect(readdirSync(runDir)).toEqual([]);
        expect(readdirSync(plan.cwd)).toEqual([]);

        // Kubernetes: one document, exactly the intended object once Kubernetes has
        // expanded $(NAME) in the container's command and args.
        const manifest = kubernetesJob(plan);
        for (const version of ["1.1", "1.2"] as const) {
          const docs = parseAllDocuments(manifest, { version });
          expect(docs).toHaveLength(1);
          expect(docs[0].errors).toEqual([]);
          expect(asTheContainerGetsIt(docs[0].toJS())).toEqual(intendedManifest(plan));
        }
      }),
      { numRuns: 12 },
    );
    if (hasParallel) {
      const jobsPath = join(dir, "all-jobs.txt");
      writeFileSync(jobsPath, allJobs.join(""));
      const runDir = join(dir, "run-parallel");
      mkdirSync(runDir);
      expect(run("parallel", ["-j", "1", "--arg-file", jobsPath], runDir)).toEqual(allExpected);
      expect(readdirSync(runDir)).toEqual([]);
    }
  });
});
