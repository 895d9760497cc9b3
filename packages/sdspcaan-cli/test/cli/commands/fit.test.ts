/** `sdspcaan fit`: a flag that has no effect with the others given is refused, naming it. */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { argv, cli, lines, smallCsvFolder, writeNpy } from "../../helpers/cli.js";
import { smallData } from "../../helpers/runs.js";

const small = smallCsvFolder("cli-fit");

/** The one line a refused command prints; nothing is written to `out`. */
async function refusal(args: string[], out: string): Promise<string> {
  const r = await cli(args);
  expect(r.code).toBe(1);
  expect(lines(r.stderr)).toHaveLength(1);
  expect(existsSync(out)).toBe(false);
  return r.stderr;
}

describe("fit refuses flags it would ignore", () => {
  it("--repeat without --splits", async () => {
    const out = join(small.dir, "repeat.json");
    expect(
      await refusal(argv`fit --data ${small.csv} --method pca --k 3 --repeat 2 --out ${out}`, out),
    ).toBe(
      "sdspcaan: --repeat picks a split of --splits; without --splits fit trains on every row: give --splits FILE or drop --repeat.\n",
    );
  });

  it("--seed for a method without randomness", async () => {
    const out = join(small.dir, "seed.json");
    expect(
      await refusal(argv`fit --data ${small.csv} --method lda --k 3 --seed 7 --out ${out}`, out),
    ).toBe("sdspcaan: LDA has no randomness, so --seed does not apply; drop it.\n");
  });

  it("a CSV/TSV flag for an NPY file, --x-var for a CSV file, --data-dir with a file", async () => {
    const out = join(small.dir, "format.json");
    const npy = join(small.dir, "small.npy");
    const fit = (extra: string[], data = small.csv) =>
      refusal(argv`fit --data ${data} --method pca --k 3 ${extra} --out ${out}`, out);
    expect(await fit(["--x-var", "fea"])).toBe(
      `sdspcaan: --x-var names a variable of a MAT, HDF5 or NPY file, and ${small.csv} is a CSV file (columns, not variables): use --label-col for its labels, or drop --x-var.\n`,
    );
    expect(await fit(["--data-dir", small.dir])).toBe(
      `sdspcaan: --data-dir is where registry data sets are looked for, and --data names the file ${small.csv} itself: drop --data-dir.\n`,
    );
    expect(await fit(["--data-dir", join(small.dir, "nowhere")], "Yale")).toBe(
      `sdspcaan: The '--data-dir' option names ${join(small.dir, "nowhere")}, which does not exist; give the folder that holds the data files.\n`,
    );
    writeNpy(npy, smallData().X, smallData().y as number[]);
    expect(await fit(["--decimal-comma"], npy)).toBe(
      `sdspcaan: --decimal-comma applies to CSV/TSV files, and ${npy} is an NPY file: drop --decimal-comma.\n`,
    );
  });
});
