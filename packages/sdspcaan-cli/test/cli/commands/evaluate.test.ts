/** `sdspcaan evaluate`: a flag that has no effect with the others given is refused, naming it. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { argv, cli, lines, writeCsv } from "../../helpers/cli.js";
import { removeDir, smallData, tempDir } from "../../helpers/runs.js";

let dir: string;
let csv: string;
let splits: string;

beforeAll(() => {
  dir = tempDir("cli-evaluate");
  csv = join(dir, "small.csv");
  const data = smallData();
  writeCsv(csv, data.X, data.y);
  splits = join(dir, "splits.json");
  const rows = Array.from({ length: data.X.rows }, (_, i) => i);
  const split = { train: rows.slice(0, 20), val: rows.slice(20, 40), test: rows.slice(40) };
  writeFileSync(splits, JSON.stringify({ index_base: 0, splits: [split] }));
});
afterAll(() => removeDir(dir));

describe("evaluate refuses flags it would ignore", () => {
  it("--stratify with --splits, as --seed with --splits", async () => {
    const base = argv`evaluate --data ${csv} --method pca --k 3 --splits ${splits}`;
    const stratify = await cli([...base, "--stratify"]);
    expect(stratify.code).toBe(1);
    expect(stratify.stderr).toBe(
      "sdspcaan: Give --splits (a split file) or --stratify (a stratified seeded split), not both.\n",
    );
    const seed = await cli([...base, "--seed", "7"]);
    expect(seed.stderr).toBe(
      "sdspcaan: Give --splits (a split file) or --seed (a seeded split), not both.\n",
    );
    const ok = await cli([...base, "--json", "--no-progress"]);
    expect(ok.code).toBe(0);
    expect(lines(ok.stderr)).toEqual([]);
    expect(JSON.parse(ok.stdout).sizes).toEqual({ train: 20, val: 20, test: 20 });
  });
});
