/**
 * The CLI's cluster flags: --emit prints a Slurm array script, a Kubernetes
 * Indexed Job or a GNU parallel list for the run the other flags describe; a job
 * array task takes its shard from the environment; report merges the shards.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { makeSyntheticDataset } from "sdspcaan/methods";
import { repoRoot } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ExperimentFlags, experimentOptionsFrom } from "#internal/cli/commands/experiment.js";
import { VERSION } from "#internal/cli/version.js";
import { estimateRun } from "#internal/cluster/jobPlan.node.js";
import { CONTAINER_COMMAND } from "#internal/cluster/jobScripts.js";
import { argv, cli, lines, writeCsv } from "../../helpers/cli.js";
import { removeDir, tempDir } from "../../helpers/runs.js";

let dir: string;
let csv: string;
const runFlags = () => [
  "--data",
  csv,
  "--methods",
  "baseline,pca,sdspcaan",
  "--grid",
  "quick",
  "--k-grid",
  "4,8",
  "--repeats",
  "2",
  "--max-iter",
  "20",
  "--no-figures",
  "--no-progress",
];

beforeAll(() => {
  dir = tempDir("cluster");
  csv = join(dir, "small.csv");
  const data = makeSyntheticDataset({ samples: 60, features: 24, classes: 4, seed: 3 });
  writeCsv(csv, data.X, data.y);
});
afterAll(() => removeDir(dir));

describe("experiment --emit", () => {
  it("prints an sbatch array script with a throttle, time and memory, running the same command", async () => {
    const out = join(dir, "emit");
    const r = await cli(argv`experiment ${runFlags()} --out ${out} --emit slurm --shard-count 3
      --throttle 2 --workers 2`);
    expect(r.code).toBe(0);
    const script = r.stdout;
    expect(script.startsWith("#!/bin/bash\n")).toBe(true);
    expect(script).toContain("#SBATCH --array=0-2%2");
    expect(script).toContain("#SBATCH --cpus-per-task=2");
    expect(script).toMatch(/#SBATCH --mem=\d+M/);
    expect(script).toMatch(/#SBATCH --time=\d-\d\d:\d\d:\d\d/);
    expect(script).toMatch(/#SBATCH --signal=B:USR1@\d+\n#SBATCH --requeue\n/);
    const command = script.split("\n").find((l) => l.includes(" experiment ")) ?? "";
    expect(command).toContain(`experiment --data ${csv}`);
    expect(command).toContain("--shard-count 3 --workers 2 --no-progress &");
    // Submitted with bash, the script also submits the report as a job depending on the array.
    expect(script).toContain('sbatch --parsable --dependency=afterok:"$array"');
    expect(script).toMatch(new RegExp(`\n  exec .+ report --out ${out} --no-figures\n`));
    expect(command).not.toContain("--emit");
    expect(command).not.toContain("--throttle");
    expect(r.stderr).toMatch(/fits in 3 shards of 2 workers/);
    expect(existsSync(out)).toBe(false); // printing a script runs nothing
  });

  it("prints a Kubernetes Indexed Job and a GNU parallel list", async () => {
    const out = join(dir, "emit2");
    const k8s = await cli(argv`experiment ${runFlags()} --out ${out} --emit k8s --shard-count 4`);
    expect(k8s.code).toBe(0);
    expect(k8s.stdout).toContain("completionMode: Indexed");
    expect(k8s.stdout).toContain("completions: 4");
    expect(k8s.stdout).toContain('- "--shard-count"\n            - "4"');
    const par = await cli(argv`experiment ${runFlags()} --out ${out} --emit parallel
      --shard-count 3`);
    expect(par.code).toBe(0);
    const jobs = par.stdout.trim().split("\n");
    expect(jobs).toHaveLength(3);
    jobs.forEach((line, i) => {
      expect(line).toContain(`--shard ${i}/3`);
    });
  });

  it("chooses the number of tasks from a target task length, counting extra workers as part of a core", async () => {
    const out = join(dir, "sized");
    const options = experimentOptionsFrom({
      data: [csv],
      methods: "baseline,pca,sdspcaan",
      grid: "quick",
      kGrid: "4,8",
      repeats: "2",
      maxIter: "20",
      seed: "0",
      out,
    } as ExperimentFlags);
    const { totalMs } = await estimateRun(options, { workers: 1, count: 1 });
    expect(totalMs).toBeGreaterThan(0);
    // Tasks of 1/3.5 of the run: 4 tasks with one worker; 3 workers count as 2 cores, so 2.
    const hours = totalMs / 3_600_000 / 3.5;
    const shardsWith = async (extra: string[]) => {
      const r = await cli(["experiment", ...runFlags(), "--out", out, "--emit", "slurm", ...extra]);
      expect(r.code).toBe(0);
      return Number(/fits in (\d+) shards? of/.exec(r.stderr)?.[1]);
    };
    expect(await shardsWith(["--task-hours", String(hours), "--workers", "1"])).toBe(4);
    expect(await shardsWith(["--task-hours", String(hours), "--workers", "3"])).toBe(2);
    // The default target is an hour: this small run is one task.
    expect(await shardsWith(["--workers", "1"])).toBe(1);
    const both = await cli(argv`experiment ${runFlags()} --out ${out} --emit slurm
      --task-hours 2 --shard-count 3`);
    expect(both.code).toBe(1);
    expect(both.stderr).toMatch(/--task-hours and --shard-count both set the number of tasks/);
    const zero = await cli(argv`experiment ${runFlags()} --out ${out} --emit slurm
      --task-hours 0`);
    expect(zero.code).toBe(1);
    expect(zero.stderr).toMatch(/target task length must be a positive number of hours/);
    const noEmit = await cli(["experiment", ...runFlags(), "--out", out, "--task-hours", "2"]);
    expect(noEmit.code).toBe(1);
    expect(noEmit.stderr).toMatch(/--task-hours sizes the tasks of a job script/);
    expect(existsSync(out)).toBe(false);
  });

  it("names in the Kubernetes Job the image deploy/Containerfile builds, with its entry point", async () => {
    const k8s = await cli(argv`experiment ${runFlags()} --out ${join(dir, "emit3")} --emit k8s
      --shard-count 2`);
    expect(k8s.code).toBe(0);
    const recipe = readFileSync(join(repoRoot, "deploy", "Containerfile"), "utf8");
    const image = `sdspcaan:${VERSION}`;
    expect(k8s.stdout).toContain(`\n          image: "${image}"\n`);
    expect(k8s.stdout).toContain(
      `# registry included): docker build -f deploy/Containerfile -t ${image} .`,
    );
    // The manifest's command is the recipe's ENTRYPOINT, the CLI as the recipe builds it.
    const entry = /^ENTRYPOINT (\[.*\])$/m.exec(recipe)?.[1];
    expect(JSON.parse(entry ?? "null")).toEqual(CONTAINER_COMMAND);
    expect(k8s.stdout).toContain(
      `          command:\n${CONTAINER_COMMAND.map((a) => `            - "${a}"\n`).join("")}          args:\n`,
    );
    const workdir = /^WORKDIR (\S+)$/m.exec(recipe)?.[1];
    const cliPackage = join("packages", "sdspcaan-cli");
    const pkg = JSON.parse(readFileSync(join(repoRoot, cliPackage, "package.json"), "utf8"));
    expect(CONTAINER_COMMAND[1]).toBe(
      `${workdir}/${cliPackage}/${pkg.bin.sdspcaan.replace(/^\.\//, "")}`,
    );
    expect(recipe).toMatch(/^RUN npm ci /m);
    expect(recipe).toMatch(/^COPY --from=build \S+\/packages \.\/packages$/m);
    expect(recipe).toContain(`-t sdspcaan:$(node -p "require('./package.json').version")`);
  });

  it("refuses an unknown kind, and --shard-count without a task index", async () => {
    const out = join(dir, "bad");
    const bad = await cli(["experiment", ...runFlags(), "--out", out, "--emit", "pbs"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--emit must be one of slurm, k8s, parallel/);
    const noIndex = await cli(["experiment", ...runFlags(), "--out", out, "--shard-count", "3"]);
    expect(noIndex.code).toBe(1);
    expect(noIndex.stderr).toMatch(/--shard-count needs the task's index/);
  });
});

describe("experiment --emit with a line break in a path", () => {
  it("refuses it in one line naming the flag, before loading anything, and prints no script", async () => {
    const out = join(dir, "runs\n$(touch pwned)");
    for (const kind of ["slurm", "k8s", "parallel"]) {
      const r = await cli(["experiment", ...runFlags(), "--out", out, "--emit", kind]);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(
        `sdspcaan: --out ${JSON.stringify(out)} holds a line feed (U+000A), which a job script cannot hold as it is; job scripts take paths and names without control characters (see docs/cluster.md).\n`,
      );
    }
    // Refused before the data are read: this file does not even exist.
    const data = join(dir, "two\rlines.csv");
    const emitted = await cli(argv`experiment --data ${data} --methods pca
      --out ${join(dir, "x")} --emit slurm`);
    expect(emitted.code).toBe(1);
    expect(emitted.stderr).toMatch(/^sdspcaan: --data ".*" holds a carriage return \(U\+000D\)/);
    expect(emitted.stderr.trimEnd().split("\n")).toHaveLength(1);
    expect(existsSync(join(dir, "x"))).toBe(false);
  });
});

describe("a job array task", () => {
  it("takes its shard from SLURM_ARRAY_TASK_ID with --shard-count, and report merges the shards", async () => {
    const out = join(dir, "array");
    const saved = process.env.SLURM_ARRAY_TASK_ID;
    try {
      for (const id of ["0", "1"]) {
        process.env.SLURM_ARRAY_TASK_ID = id;
        const r = await cli(argv`experiment ${runFlags()} --out ${out} --shard-count 2
          --workers 1`);
        expect(r.code).toBe(0);
        expect(r.stderr).toContain(`of shard ${id}/2`);
        expect(r.stdout).toBe(""); // no table until report merges the shards
      }
    } finally {
      if (saved === undefined) delete process.env.SLURM_ARRAY_TASK_ID;
      else process.env.SLURM_ARRAY_TASK_ID = saved;
    }
    expect(existsSync(join(out, "results.shard-0-of-2.jsonl"))).toBe(true);
    const merged = await cli(["report", "--out", out, "--no-figures"]);
    expect(merged.code).toBe(0);
    expect(lines(merged.stderr)).toContain("note: Merged 2 shard files.");
    expect(merged.stderr).toContain("Complete run");
    const single = await cli(argv`experiment ${runFlags()} --out ${join(dir, "one")}
      --workers 1`);
    expect(single.code).toBe(0);
    expect(merged.stdout).toBe(single.stdout);
    // plot reads the shards' files too.
    const fig = await cli(["plot", "bca-vs-k", "--results", out, "--out", join(dir, "fig")]);
    expect(fig.code).toBe(0);
    expect(existsSync(join(dir, "fig.svg"))).toBe(true);
    expect(readFileSync(join(out, "table.md"), "utf8")).toBe(
      readFileSync(join(dir, "one", "table.md"), "utf8"),
    );
  });
});

describe("a shard's closing note", () => {
  it("gives the report command as a shell takes it, with the report's flags given to the shard", async () => {
    const out = join(dir, "Jo's run");
    const shard = (i: number) =>
      cli(argv`experiment --data ${csv} --methods baseline --k-grid 4 --repeats 1 --workers 1
        --no-figures --compare-paper --no-progress --out ${out} --shard ${`${i}/2`}`);
    const first = await shard(0);
    expect(first.code).toBe(0);
    const quoted = `'${out.replace(/'/g, `'\\''`)}'`;
    expect(lines(first.stderr).at(-1)).toBe(
      `Wrote ${join(out, "results.shard-0-of-2.jsonl")}. When every shard is done, merge them into the tables and figures with: sdspcaan report --out ${quoted} --no-figures --compare-paper`,
    );
    expect((await shard(1)).code).toBe(0);
    const merged = await cli(["report", "--out", out, "--no-figures", "--compare-paper"]);
    expect(merged.code).toBe(0);
    expect(existsSync(join(out, "table.md"))).toBe(true);
  });
});
