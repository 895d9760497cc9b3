/**
 * Messages about options and split files in the user's words: a "did you mean" only
 * for a plausible typo of the method's own options, and no internal names.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createMethod, ValidationError } from "sdspcaan";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "../helpers/runs.js";
import { csvText, errorOf, expectRefused, smallRows, writeText } from "./helpers.js";

let dir: string;
const { X, y } = smallRows();

beforeAll(() => {
  dir = tempDir("bad-options");
});
afterAll(() => removeDir(dir));

describe("did you mean", () => {
  it("does not offer LPP's 'k' for the 'm' it lacks, and lists its own options", async () => {
    // @ts-expect-error: LPP has no option m, which the types say before the run does
    const err = errorOf(() => createMethod("lpp", { k: 2, m: 5 }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).not.toContain("did you mean");
    expect(err.message).toContain("Valid options: k, neighbours, weight, bandwidth");
    const file = writeText(dir, "lpp.csv", csvText(X, y));
    const out = join(dir, "lpp.json");
    const line = await expectRefused(
      ["fit", "--data", file, "--method", "lpp", "--k", "2", "--m", "5", "--out", out],
      ["LPP has no option 'm'", "neighbours"],
      out,
    );
    expect(line).not.toContain("did you mean");
  });
});

describe("split files", () => {
  it("names the split file and says what a split must hold, without internal names", async () => {
    const file = writeText(dir, "data.csv", csvText(X, y));
    const splits = join(dir, "splits.json");
    const idx = (a: number, b: number) => Array.from({ length: b - a }, (_, i) => a + i);
    writeFileSync(
      splits,
      JSON.stringify({
        index_base: 0,
        splits: [{ train: idx(0, 8), val: idx(8, 16), test: idx(16, 23) }],
      }),
    );
    const out = join(dir, "split-model.json");
    const line = await expectRefused(
      ["fit", "--data", file, "--splits", splits, "--method", "pca", "--k", "2", "--out", out],
      [`${splits}: splits[0] does not use sample index 23`, "exactly one of train, val and test"],
      out,
    );
    expect(line).not.toContain("allowSubset");
  });
});
