/**
 * `sdspcaan datasets`: a --data-dir that does not exist is refused naming the flag, and
 * each sub-command's usage errors point to its own help.
 */
import { join } from "node:path";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { argv, cli, smallCsvFolder } from "../../helpers/cli.js";

const small = smallCsvFolder("cli-datasets");

describe("datasets --data-dir", () => {
  it("list, info and splits refuse a folder that does not exist, or a file", async () => {
    const nowhere = join(small.dir, "nowhere");
    const missing = `sdspcaan: The '--data-dir' option names ${nowhere}, which does not exist; give the folder that holds the data files.\n`;
    for (const args of [
      argv`datasets list --data-dir ${nowhere}`,
      argv`datasets info Yale --data-dir ${nowhere}`,
      argv`datasets splits FashionMNIST --out ${join(small.dir, "s.json")} --data-dir ${nowhere}`,
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(missing);
    }
    const r = await cli(argv`datasets list --data-dir ${small.csv}`);
    expect(r.stderr).toBe(
      `sdspcaan: The '--data-dir' option names ${small.csv}, which is a file, not a folder; give the folder that holds the data files.\n`,
    );
  });

  it("info refuses --data-dir with a file and --x-var for a CSV file", async () => {
    expect((await cli(argv`datasets info ${small.csv} --data-dir ${small.dir}`)).stderr).toBe(
      `sdspcaan: --data-dir is where registry data sets are looked for, and --data names the file ${small.csv} itself: drop --data-dir.\n`,
    );
    expect((await cli(argv`datasets info ${small.csv} --x-var fea`)).stderr).toBe(
      `sdspcaan: --x-var names a variable of a MAT, HDF5 or NPY file, and ${small.csv} is a CSV file (columns, not variables): use --label-col for its labels, or drop --x-var.\n`,
    );
  });
});

describe("datasets sub-commands' usage errors", () => {
  it("name the sub-command and its help", async () => {
    const r = await cli(["datasets", "splits", "FashionMNIST"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "sdspcaan datasets splits: required option '--out <file>' not specified (see 'sdspcaan datasets splits --help')\n",
    );
    const info = await cli(["datasets", "info", "Yale", "--bogus"]);
    expect(info.stderr).toBe(
      "sdspcaan datasets info: unknown option '--bogus' (see 'sdspcaan datasets info --help')\n",
    );
  });
});

describe("datasets info --label-col none", () => {
  it("describes every column as a feature, as fit reads such data", async () => {
    const r = await cli(argv`datasets info ${small.csv} --label-col none --json`);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout);
    expect([info.samples, info.features, info.classes, info.yVar]).toEqual([60, 25, 0, null]);
    const text = await cli(argv`datasets info ${small.csv} --label-col none`);
    expect(text.stdout).toMatch(/\ny +none \(--label-col none: every column is a feature\)\n/);
    expect(text.stdout).not.toContain("class sizes");
  });
});

describe("datasets info --transpose", () => {
  it("reads a stored matrix with samples as columns, and is refused for CSV", async () => {
    const npy = fixtureFile("io/rt_X_only.npy");
    const shape = async (extra: string[]) => {
      const r = await cli(argv`datasets info ${npy} --label-col none --json ${extra}`);
      expect(r.code).toBe(0);
      const info = JSON.parse(r.stdout);
      return [info.samples, info.features, info.transposed];
    };
    expect(await shape([])).toEqual([6, 4, false]);
    expect(await shape(["--transpose"])).toEqual([4, 6, true]);
    const csv = await cli(argv`datasets info ${small.csv} --transpose`);
    expect(csv).toEqual({
      code: 1,
      stdout: "",
      stderr: `sdspcaan: --transpose turns a stored matrix (MAT, HDF5, NPY, IDX) with samples as columns, and ${small.csv} is a CSV file, one sample per row: drop --transpose.\n`,
    });
  });
});
