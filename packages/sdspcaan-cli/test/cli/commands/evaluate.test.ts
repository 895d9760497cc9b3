import { describe, expect, it } from "vitest";
import { argv, cli, lines, smallCsvFolder } from "../../helpers/cli.js";

const small = smallCsvFolder("cli-evaluate");

describe("evaluate refuses flags it would ignore", () => {
  it("--stratify with --splits, as --seed with --splits", async () => {
    const base = argv`evaluate --data ${small.csv} --method pca --k 3 --splits ${small.splits}`;
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
