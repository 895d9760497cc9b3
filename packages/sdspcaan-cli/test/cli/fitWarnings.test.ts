/**
 * The fits' warnings at the command line: `fit` and `evaluate` print each on standard
 * error as one line "warning: ..." (evaluate --json puts them in its JSON too, and
 * nothing else on standard output); `experiment` and `report` count the selected fits
 * with each warning under the table.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResultsFile } from "#internal/runner/resultsFile.node.js";
import { argv, cli, lines, writeCsv } from "../helpers/cli.js";
import { removeDir, smallData, tempDir } from "../helpers/runs.js";

let dir: string;
let csv: string;
const data = smallData(11);

beforeAll(() => {
  dir = tempDir("cli-fit-notes");
  csv = join(dir, "small.csv");
  writeCsv(csv, data.X, data.y);
});
afterAll(() => removeDir(dir));

const STOPPED =
  /^warning: SDSPCA stopped at maxIter = 2 without converging: the change of Q \(stopRule "aligned"\) was \S+ at the last iteration, against tol = 0\.001\. Raise maxIter, or loosen tol if a change of that size is small enough for your use\.$/;

describe("fit", () => {
  it("prints each warning on standard error, one line each, and saves it in the model", async () => {
    const model = join(dir, "sdspca.json");
    const r = await cli(
      argv`fit --data ${csv} --method sdspca --k 3 --max-iter 2 --out ${model} --no-progress`,
    );
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toHaveLength(1);
    expect(r.stdout).toMatch(/: 2 iterations, not converged \(max-iterations\)/);
    expect(r.stdout).not.toMatch(/warning/);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(lines(r.stderr)[0]).toMatch(STOPPED);
    const saved = JSON.parse(readFileSync(model, "utf8"));
    expect(saved.fitInfo.warnings.map((w: { code: string }) => w.code)).toEqual(["max-iterations"]);
    expect(lines(r.stderr)[0]).toBe(`warning: ${saved.fitInfo.warnings[0].message}`);
  });

  it("prints no warning for a fit that converged", async () => {
    const r = await cli(
      argv`fit --data ${csv} --method sdspca --k 3 --no-progress --out ${join(dir, "converged.json")}`,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/converged/);
    expect(r.stderr).toBe("");
  });
});

describe("a closed-form method (PCA, LDA)", () => {
  it("fit says 'closed form', not '0 iterations, converged'", async () => {
    const r = await cli(
      argv`fit --data ${csv} --method lda --k 2 --no-progress --out ${join(dir, "lda.json")}`,
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Fitted LDA \(k = 2\) on \d+ samples x \d+ features of small \([^)]*\): closed form, \S+ \S+\. Wrote /,
    );
    expect(r.stdout).not.toMatch(/iteration/);
  });

  it("evaluate says its iterations are none", async () => {
    const r = await cli(argv`evaluate --data ${csv} --method pca --k 2 --no-progress`);
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toContain("  iterations      none (closed form)");
  });
});

describe("evaluate's heading", () => {
  it("shows an option left to the method with the value the fit chose (m = 15 (auto))", async () => {
    const r = await cli(argv`evaluate --data ${csv} --method sdspcaan --k 3 --no-progress`);
    expect(r.code).toBe(0);
    const m = /, m = (\d+) \(auto\):$/m.exec(r.stdout);
    expect(m).not.toBeNull();
    const json = JSON.parse(
      (await cli(argv`evaluate --data ${csv} --method sdspcaan --k 3 --json --no-progress`)).stdout,
    );
    expect(json.params.m).toBeNull();
    expect(Number(m?.[1])).toBeGreaterThan(0);
  });

  it("shows a value the user gave as given", async () => {
    const r = await cli(argv`evaluate --data ${csv} --method sdspcaan --k 3 --m 4 --no-progress`);
    expect(r.stdout).toMatch(/, m = 4:$/m);
  });
});

describe("evaluate", () => {
  const args = () => [
    "evaluate",
    "--data",
    csv,
    "--method",
    "sdspca",
    "--k",
    "3",
    "--max-iter",
    "2",
  ];

  it("prints the warnings on standard error after the results", async () => {
    const r = await cli([...args(), "--no-progress"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/not converged: max-iterations/);
    expect(r.stdout).not.toMatch(/warning/);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(lines(r.stderr)[0]).toMatch(STOPPED);
  });

  it("with --json puts them in the JSON, whose standard output is nothing else", async () => {
    const r = await cli([...args(), "--json", "--no-progress"]);
    expect(r.code).toBe(0);
    const json = JSON.parse(r.stdout);
    expect(json.stopReason).toBe("max-iterations");
    expect(json.warnings).toHaveLength(1);
    expect(json.warnings[0]).toMatchObject({
      code: "max-iterations",
      values: { maxIter: 2, tol: 0.001 },
    });
    expect(lines(r.stderr)).toEqual([`warning: ${json.warnings[0].message}`]);
  });
});

describe("experiment and report", () => {
  it("count the selected fits with each warning under the table", async () => {
    const out = join(dir, "run");
    const r = await cli(argv`experiment --data ${csv} --methods pca,sdspca --k-grid 4,8
      --repeats 2 --grid authors --max-iter 2 --out ${out} --no-progress --no-figures`);
    expect(r.code).toBe(0);
    const expected =
      "- SDSPCA on small: 2 of 2 selected fits stopped at maxIter without converging.";
    expect(lines(r.stdout)).toContain(expected);
    expect(r.stdout).not.toMatch(/^- PCA on/m);
    const table = readFileSync(join(out, "table.md"), "utf8");
    expect(table).toBe(`${r.stdout.trimEnd()}\n`);
    // Every line holds its fit's warnings, [] when there were none.
    const { records } = readResultsFile(join(out, "results.jsonl"));
    for (const rec of records) {
      expect(rec.warnings?.map((w) => (typeof w === "string" ? w : w.code))).toEqual(
        rec.stopReason === "max-iterations" ? ["max-iterations"] : [],
      );
    }
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(summary.results.small.sdspca.warnings).toEqual({
      fits: 2,
      byCode: { "max-iterations": 2 },
      stoppedAtCap: 0,
      cycleUnknown: 0,
    });
    const again = await cli(["report", "--out", out, "--no-figures"]);
    expect(again.code).toBe(0);
    expect(lines(again.stdout)).toContain(expected);
  });
});
