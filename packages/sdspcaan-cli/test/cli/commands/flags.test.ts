/**
 * Number and list flags: an integer flag takes whole numbers, also written with a zero
 * fraction (10.0), and refuses others with its own range; list flags take words,
 * commas or both.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { integerOf, parseInteger, parseList } from "#internal/cli/commands/flags.js";
import { argv, cli, smallCsvFolder } from "../../helpers/cli.js";

const small = smallCsvFolder("cli-flags");

describe("integer flags", () => {
  it("read a whole number with or without a zero fraction, and nothing else", () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.nat(3), (n, zeros) => {
        expect(integerOf(String(n))).toBe(n);
        expect(integerOf(`${n}.${"0".repeat(zeros)}`)).toBe(n);
      }),
    );
    fc.assert(
      fc.property(
        fc.double({ noNaN: true }).filter((x) => !Number.isInteger(x)),
        (x) => {
          expect(integerOf(String(x))).toBeNull();
        },
      ),
    );
    for (const text of ["1e1", "0x10", "", " ", "1.5", "1.01", "one", "9007199254740993"]) {
      expect(integerOf(text)).toBeNull();
    }
    expect(parseInteger("--repeats", "3.00")).toBe(3);
  });

  it("--k 1.0 is k = 1, as --k 1", async () => {
    const one = join(small.dir, "k1.json");
    const oneZero = join(small.dir, "k1.0.json");
    const r = await cli(argv`fit --data ${small.csv} --method lda --k 1.0 --out ${oneZero}`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Fitted LDA \(k = 1\) on 60 samples/);
    await cli(argv`fit --data ${small.csv} --method lda --k 1 --out ${one}`);
    const model = (p: string) => JSON.parse(readFileSync(p, "utf8")).components;
    expect(model(oneZero)).toEqual(model(one));
  });

  it("a method option's flag names the option's own range", async () => {
    const out = join(small.dir, "refused.json");
    const fit = (extra: string[]) =>
      cli(argv`fit --data ${small.csv} --method sdspcaan --k 3 ${extra} --out ${out}`);
    expect((await fit(["--max-iter", "2.5"])).stderr).toBe(
      `sdspcaan: The '--max-iter' option must be an integer in [1, inf). Got "2.5" instead.\n`,
    );
    expect((await fit(["--max-iter", "0"])).stderr).toBe(
      "sdspcaan: The 'maxIter' parameter of SDSPCAAN must be an integer in [1, inf). Got 0 instead (--max-iter).\n",
    );
  });

  it("--k says that PCA also takes a fraction in (0, 1), and the others do not", async () => {
    const out = join(small.dir, "k.json");
    expect(
      (await cli(argv`fit --data ${small.csv} --method pca --k 1.5 --out ${out}`)).stderr,
    ).toBe(
      `sdspcaan: The '--k' option must be an integer in [1, inf) or a fraction in (0, 1). Got "1.5" instead.\n`,
    );
    expect(
      (await cli(argv`fit --data ${small.csv} --method lda --k 1.5 --out ${out}`)).stderr,
    ).toBe(`sdspcaan: The '--k' option must be an integer in [1, inf). Got "1.5" instead.\n`);
  });
});

describe("--threads", () => {
  it("says it takes auto beside an integer in [1, 64]", async () => {
    const commands = {
      fit: ["--out", join(small.dir, "threads.json")],
      evaluate: ["--splits", small.splits],
    };
    for (const value of ["0", "65", "2.5", "many"]) {
      for (const [command, extra] of Object.entries(commands)) {
        const r = await cli(
          argv`${command} --data ${small.csv} --method pca --k 3 --threads ${value} ${extra}`,
        );
        expect(r).toEqual({
          code: 1,
          stdout: "",
          stderr: `sdspcaan: The '--threads' option must be an integer in [1, 64] or auto. Got ${JSON.stringify(value)} instead.\n`,
        });
      }
    }
  });
});

describe("list flags", () => {
  it("split words at commas and drop empty items", () => {
    expect(parseList("a,b, c")).toEqual(["a", "b", "c"]);
    expect(parseList(["a", "b,c", ","])).toEqual(["a", "b", "c"]);
    expect(parseList(undefined)).toBeUndefined();
  });

  it("demo --datasets takes several words as it takes commas", async () => {
    // The second word is read as a data set name: not "too many arguments".
    const r = await cli(argv`demo --datasets Yale Nope --out ${join(small.dir, "demo")}`);
    expect(r.stderr).toBe(
      "sdspcaan: --datasets: 'Nope' is not a data set of the registry (see 'sdspcaan datasets list').\n",
    );
  });
});
