/**
 * A golden run of `sdspcaan demo --synthetic` on a reduced size with a fixed seed: every fit's
 * validation and test BCA and the selected k and parameters must match the
 * committed golden file. When a method changes (or one is registered), regenerate:
 *
 *     SDSPCAAN_UPDATE_GOLDEN=1 npx vitest run test/cli/demo.test.ts
 *
 * and review the diff of test/fixtures/cli/demo_golden.json. The golden file is itself
 * checked against the NumPy reference by test/cli/demoOracle.test.ts (baseline, PCA,
 * SDSPCA, PCAN, SDSPCA-LPP, SDSPCAAN): run it after regenerating.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { methodNames } from "sdspcaan";
import { repoRoot } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import { readResultsFile } from "#internal/runner/resultsFile.node.js";
import { argv, cli } from "../../helpers/cli.js";
import { removeDir, tempDir } from "../../helpers/runs.js";

const GOLDEN = join(
  repoRoot,
  "packages",
  "sdspcaan-cli",
  "test",
  "fixtures",
  "cli",
  "demo_golden.json",
);
const ARGS = [
  "demo",
  "--synthetic",
  "--seed",
  "0",
  "--samples",
  "120",
  "--features",
  "48",
  "--classes",
  "4",
  "--repeats",
  "2",
  "--workers",
  "1",
  "--no-figures",
  "--no-progress",
];

interface GoldenFit {
  method: string;
  repeat: number;
  k: number;
  params: Record<string, number>;
  valBCA?: number;
  testBCA?: number;
  skipped?: string;
}

interface Golden {
  command: string;
  regenerate: string;
  methods: string[];
  table: string;
  selected: Record<string, Array<{ repeat: number; k: number; params: Record<string, number> }>>;
  fits: GoldenFit[];
}

const dir = tempDir("demo");
afterAll(() => removeDir(dir));

function fitOrder(a: GoldenFit, b: GoldenFit): number {
  const ka = JSON.stringify([a.method, a.repeat, a.k, a.params]);
  const kb = JSON.stringify([b.method, b.repeat, b.k, b.params]);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

describe("sdspcaan demo --synthetic (golden)", () => {
  it("reproduces the committed results of a fixed seed", async () => {
    const out = join(dir, "demo");
    const r = await cli([...ARGS, "--out", out]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Demo data: 120 samples x 48 features, 4 classes/);
    const parsed = readResultsFile(join(out, "results.jsonl"));
    const fit = (x: { method: string; repeat: number; k: number; params: object }) => ({
      method: x.method,
      repeat: x.repeat,
      k: x.k,
      params: { ...x.params } as Record<string, number>,
    });
    const fits: GoldenFit[] = [
      ...parsed.records.map((x) => ({ ...fit(x), valBCA: x.valBCA, testBCA: x.testBCA })),
      ...parsed.skipped.map((x) => ({ ...fit(x), skipped: x.error })),
    ].sort(fitOrder);
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    const selected: Golden["selected"] = {};
    for (const [method, cell] of Object.entries(
      summary.results.Synthetic as Record<string, { chosen: Golden["selected"][string] } | null>,
    )) {
      selected[method] = (cell?.chosen ?? []).map(({ repeat, k, params }) => ({
        repeat,
        k,
        params,
      }));
    }
    const current: Golden = {
      command: `sdspcaan ${ARGS.join(" ")} --out <dir>`,
      regenerate: "SDSPCAAN_UPDATE_GOLDEN=1 npx vitest run test/cli/demo.test.ts",
      methods: methodNames(),
      table: r.stdout,
      selected,
      fits,
    };
    if (process.env.SDSPCAAN_UPDATE_GOLDEN === "1" || !existsSync(GOLDEN)) {
      writeFileSync(GOLDEN, `${JSON.stringify(current, null, 1)}\n`);
      if (process.env.SDSPCAAN_UPDATE_GOLDEN !== "1") {
        throw new Error(`${GOLDEN} was missing and has been written; review and commit it.`);
      }
    }
    const golden = JSON.parse(readFileSync(GOLDEN, "utf8")) as Golden;
    expect(current.methods, `registered methods changed: ${golden.regenerate}`).toEqual(
      golden.methods,
    );
    expect(current.selected).toEqual(golden.selected);
    expect(current.fits.map(({ valBCA: _v, testBCA: _t, ...id }) => id)).toEqual(
      golden.fits.map(({ valBCA: _v, testBCA: _t, ...id }) => id),
    );
    current.fits.forEach((f, i) => {
      const g = golden.fits[i];
      if (g.valBCA === undefined) return;
      expect(f.valBCA).toBeCloseTo(g.valBCA, 12);
      expect(f.testBCA).toBeCloseTo(g.testBCA as number, 12);
    });
    expect(current.table).toBe(golden.table);
  });
});

describe("sdspcaan demo on the shipped datasets", () => {
  it("runs the protocol on a registry data set from data/ and compares with the paper", async () => {
    const out = join(dir, "real");
    const r = await cli(argv`demo --datasets yale --methods pca,sdspcaan --repeats 1
      --workers 1 --no-progress --out ${out}`);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/Demo: the paper's protocol on Yale \(165 x 1024, 15 classes\)/);
    expect(r.stdout).toMatch(/In parentheses: the paper's Table IV value/);
    expect(r.stdout).toMatch(/^\| Yale \| .*\(.*\) \| .*\(.*\) \|$/m);
    const settings = JSON.parse(readFileSync(join(out, "settings.json"), "utf8"));
    expect(settings).toMatchObject({ preprocess: "dataset-zscore", grid: "authors", repeats: 1 });
    expect(settings.datasets[0].origin.path).toBe(join(repoRoot, "data", "Yale_32x32.mat"));
    // The authors' grid varies only delta: the sensitivity figure is its profile, not heatmaps.
    const sensitivity = readFileSync(join(out, "figures", "sensitivity.svg"), "utf8");
    expect(sensitivity).toContain("δ multiplier");
    expect(sensitivity).toContain("validation");
    expect(sensitivity).not.toContain("α and β");
    for (const f of ["bca-vs-k", "embedding"]) {
      expect(existsSync(join(out, "figures", `${f}.png`))).toBe(true);
    }
    // One data set: its own curve already, no per-data-set panels.
    expect(existsSync(join(out, "figures", "bca-vs-k-per-dataset.svg"))).toBe(false);
  });

  it.each([
    [["--samples", "50"], /--samples sizes the generated data of 'demo --synthetic'/],
    [["--synthetic", "--datasets", "Yale"], /--datasets names registry data sets/],
    [["--datasets", "Yale,mnist"], /'mnist' is not a data set of the registry/],
    [["--repeats", "0"], /'--repeats' option must be an integer in \[1, inf\)/],
  ])("refuses %j with a one-line error", async (args, pattern) => {
    const r = await cli(["demo", ...args, "--out", join(dir, "refused"), "--no-progress"]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(pattern);
    expect(existsSync(join(dir, "refused"))).toBe(false);
  });
});
