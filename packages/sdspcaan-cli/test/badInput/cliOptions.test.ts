/**
 * Bad command-line options and output paths: each ends in one line on standard
 * error that names the option (and the path), exit code 1, no stack trace, and
 * nothing written or left half-written.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cli, lines, writeCsv } from "../helpers/cli.js";
import { removeDir, smallData, tempDir } from "../helpers/runs.js";

const dir = tempDir("bad-options");
afterAll(() => removeDir(dir));

const data = smallData(5);
const csv = join(dir, "small.csv");
writeCsv(csv, data.X, data.y);

/** The shape every refusal must have: exit 1, one line naming `needle`, no stack trace. */
function expectRefusal(r: { code: number; stdout: string; stderr: string }, needle: RegExp): void {
  expect(r.code).toBe(1);
  expect(lines(r.stderr)).toHaveLength(1);
  expect(r.stderr).toMatch(needle);
  expect(r.stderr).not.toMatch(/\n\s+at |unexpected error/);
}

/** Files in `folder` whose names mark a temporary file. */
function leftovers(folder: string): string[] {
  return readdirSync(folder).filter((f) => f.includes(".tmp-"));
}

describe("--out that cannot be written", () => {
  it("fit --out naming a directory is refused before the fit, with nothing left behind", async () => {
    const target = join(dir, "a-folder");
    mkdirSync(target);
    const r = await cli(["fit", "--data", csv, "--method", "pca", "--k", "3", "--out", target]);
    expectRefusal(r, /'--out' option must name a file, but .*a-folder is a directory/);
    expect(r.stdout).toBe(""); // refused before fitting: no "Fitted ..." line
    expect(leftovers(dir)).toEqual([]);
    expect(readdirSync(target)).toEqual([]);
  });

  it("fit --out below a path that is a file is refused", async () => {
    const file = join(dir, "plain-file");
    writeFileSync(file, "x");
    const r = await cli([
      "fit",
      ...["--data", csv, "--method", "pca", "--k", "3"],
      ...["--out", join(file, "model.json")],
    ]);
    expectRefusal(r, /'--out' option names .*plain-file.*is a file, not a folder/);
    expect(readFileSync(file, "utf8")).toBe("x");
  });

  it("transform --out naming a directory is refused before reading the data", async () => {
    const model = join(dir, "pca-for-transform.json");
    expect(
      (await cli(["fit", "--data", csv, "--method", "pca", "--k", "3", "--out", model])).code,
    ).toBe(0);
    const target = join(dir, "embedding-folder");
    mkdirSync(target);
    const r = await cli([
      ...["transform", "--model", model, "--data", csv, "--label-col", "last"],
      ...["--out", target],
    ]);
    expectRefusal(r, /'--out' option must name a file, but .*embedding-folder is a directory/);
    expect(readdirSync(target)).toEqual([]);
    expect(leftovers(dir)).toEqual([]);
  });

  it("experiment --out naming a file is refused and the file is untouched", async () => {
    const file = join(dir, "not-a-run");
    writeFileSync(file, "keep me");
    const r = await cli([
      "experiment",
      ...["--data", csv, "--methods", "pca", "--grid", "quick", "--repeats", "1"],
      ...["--no-progress", "--out", file],
    ]);
    expectRefusal(r, /'--out' option must name a folder .*not-a-run is a file/);
    expect(readFileSync(file, "utf8")).toBe("keep me");
    expect(leftovers(dir)).toEqual([]);
  });

  it("plot --out whose .svg is a directory is refused before rendering", async () => {
    const base = join(dir, "figure");
    mkdirSync(`${base}.svg`);
    const model = join(dir, "pca.json");
    expect(
      (await cli(["fit", "--data", csv, "--method", "pca", "--k", "3", "--out", model])).code,
    ).toBe(0);
    const r = await cli(["plot", "embedding", "--model", model, "--data", csv, "--out", base]);
    expectRefusal(r, /'--out' option must name a file, but .*figure\.svg is a directory/);
    expect(existsSync(`${base}.png`)).toBe(false);
  });
});

describe("an option given twice", () => {
  it("--set k=7 with --k 5 is refused instead of silently using 7", async () => {
    const r = await cli([
      "evaluate",
      ...["--data", csv, "--method", "sdspca", "--k", "5", "--set", "k=7"],
    ]);
    expectRefusal(r, /Give 'k' with --k, not with --set \(got --set k=7\)/);
  });

  it("--set alpha=2 is refused: alpha has its own flag", async () => {
    const r = await cli([
      "evaluate",
      ...["--data", csv, "--method", "sdspca", "--k", "5", "--alpha", "1", "--set", "alpha=2"],
    ]);
    expectRefusal(r, /Give 'alpha' with --alpha, not with --set/);
  });
});

describe("multipliers too large for double precision", () => {
  for (const [flag, name] of [
    ["--alpha", "alpha"],
    ["--beta", "beta"],
    ["--delta", "delta"],
  ] as const) {
    it(`${flag} 1e305 names '${name}', not the eigen-solver's argument`, async () => {
      const r = await cli([
        "evaluate",
        ...["--data", csv, "--method", "sdspcaan", "--k", "5", "--m", "3", flag, "1e305"],
      ]);
      expectRefusal(
        r,
        new RegExp(`The '${name}' parameter of SDSPCAAN is too large for this data`),
      );
      expect(r.stderr).not.toMatch(/symmetricEigen|'A'/);
    });
  }

  it("--alpha Infinity is refused by the option parser", async () => {
    const r = await cli([
      "evaluate",
      ...["--data", csv, "--method", "sdspca", "--k", "5", "--alpha", "Infinity"],
    ]);
    expectRefusal(r, /'--alpha' option must be a finite number/);
  });
});
