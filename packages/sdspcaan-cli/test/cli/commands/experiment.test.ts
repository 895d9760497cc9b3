/**
 * `sdspcaan experiment`'s flags: one that has no effect with the others given is
 * refused naming it, and the list flags take commas, spaces or both.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type ExperimentFlags, experimentOptionsFrom } from "#internal/cli/commands/experiment.js";
import { argv, cli, lines, smallCsvFolder } from "../../helpers/cli.js";

const small = smallCsvFolder("cli-experiment");

/** The one line a refused experiment prints; its --out is not made. */
async function refusal(args: string[]): Promise<string> {
  const out = join(small.dir, "refused");
  const r = await cli([...args, "--methods", "pca", "--out", out, "--no-progress"]);
  expect(r.code).toBe(1);
  expect(lines(r.stderr)).toHaveLength(1);
  expect(r.stdout).toBe("");
  expect(existsSync(out)).toBe(false);
  return r.stderr;
}

describe("experiment refuses flags it would ignore", () => {
  it("--seed and --stratify with --splits", async () => {
    expect(
      await refusal(argv`experiment --data ${small.csv} --splits ${small.splits} --seed 5`),
    ).toBe("sdspcaan: Give --splits (a split file) or --seed (seeded splits), not both.\n");
    expect(
      await refusal(argv`experiment --data ${small.csv} --splits ${small.splits} --stratify`),
    ).toBe(
      "sdspcaan: Give --splits (a split file) or --stratify (stratified seeded splits), not both.\n",
    );
  });

  it("--throttle and --task-hours without --emit", async () => {
    expect(await refusal(argv`experiment --data ${small.csv} --throttle 4`)).toBe(
      "sdspcaan: --throttle limits the array tasks of a job script running at once: use it with --emit slurm|k8s|parallel.\n",
    );
    expect(await refusal(argv`experiment --data ${small.csv} --task-hours 2`)).toBe(
      "sdspcaan: --task-hours sizes the tasks of a job script: use it with --emit slurm|k8s|parallel.\n",
    );
  });

  it("--data-dir with data files only, and a --data-dir that does not exist", async () => {
    expect(await refusal(argv`experiment --data ${small.csv} --data-dir ${small.dir}`)).toBe(
      "sdspcaan: --data-dir is where registry data sets are looked for, and --data names files, not registry names: drop --data-dir.\n",
    );
    const nowhere = join(small.dir, "nowhere");
    expect(await refusal(argv`experiment --dataset Yale --data-dir ${nowhere}`)).toBe(
      `sdspcaan: The '--data-dir' option names ${nowhere}, which does not exist; give the folder that holds the data files.\n`,
    );
  });
});

/** The data sets' sources (names or files) of a run's options. */
function sources(options: ReturnType<typeof experimentOptionsFrom>): unknown[] {
  return options.datasets.map((d) => ("source" in d ? d.source : null));
}

describe("experiment's list flags", () => {
  const flags = (extra: Partial<ExperimentFlags>): ExperimentFlags => ({
    out: small.dir,
    ...extra,
  });

  it("take commas, several words, or both", () => {
    for (const dataset of ["Yale,ORL", ["Yale", "ORL"], ["Yale,", "ORL"]]) {
      const options = experimentOptionsFrom(flags({ dataset }));
      expect(sources(options)).toEqual(["Yale", "ORL"]);
    }
    for (const methods of ["pca,lda", ["pca", "lda"], ["pca,lda"]]) {
      expect(experimentOptionsFrom(flags({ dataset: "Yale", methods })).methods).toEqual([
        "pca",
        "lda",
      ]);
    }
    for (const kGrid of ["4,8", ["4", "8"], ["4,", "8.0"]]) {
      expect(experimentOptionsFrom(flags({ dataset: "Yale", kGrid })).kGrid).toEqual([4, 8]);
    }
  });

  it("--data small.splits at commas, but not a file whose name has one", () => {
    const comma = join(small.dir, "a,b.csv");
    writeFileSync(comma, "");
    const options = experimentOptionsFrom(flags({ data: [comma, `${small.csv},${small.csv}x`] }));
    expect(sources(options)).toEqual([comma, small.csv, `${small.csv}x`]);
  });

  it("the command line's words and commas reach the run", async () => {
    const r = await cli(
      argv`experiment --dataset Yale ORL,Nope --methods pca --out ${join(small.dir, "x")} --no-progress`,
    );
    // Yale and ORL are read; the third name is refused alone, not as "ORL,Nope".
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/^sdspcaan: 'Nope' is neither a file nor a data set of the registry/);
  });
});
