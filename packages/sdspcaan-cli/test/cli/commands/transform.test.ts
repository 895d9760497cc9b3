/** `sdspcaan transform`: --out defaults to standard output, as predict's does. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { argv, cli, smallCsvFolder } from "../../helpers/cli.js";

const small = smallCsvFolder("cli-transform");

describe("transform --out", () => {
  it("writes the embedding on standard output when not given, as --out - does", async () => {
    const model = join(small.dir, "pca.json");
    expect((await cli(argv`fit --data ${small.csv} --method pca --k 2 --out ${model}`)).code).toBe(
      0,
    );
    const plain = await cli(argv`transform --model ${model} --data ${small.csv} --label-col last`);
    expect(plain.code).toBe(0);
    const dash = await cli(
      argv`transform --model ${model} --data ${small.csv} --label-col last --out -`,
    );
    expect(plain.stdout).toBe(dash.stdout);
    const rows = plain.stdout.trimEnd().split("\n");
    expect(rows[0]).toBe("c1,c2,label");
    expect(rows).toHaveLength(61);
    expect(plain.stderr).toBe("");
  });
});
