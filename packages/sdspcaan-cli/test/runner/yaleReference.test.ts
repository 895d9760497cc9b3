/**
 * The paper's protocol on one Yale split with the `authors` grid, against the NumPy
 * reference's `protocol` on the same split and preprocessing (train-zscore): the
 * selected k and the test BCA must agree within 0.5 percentage points for PCA, SDSPCA,
 * SDSPCA-LPP and SDSPCAAN, and every single fit is compared too.
 * Fixture: test/fixtures/cli/yale_protocol.json (scripts/fixtures/cli_yale_protocol.py;
 * the split is the first seed without a singleton training class, see the script).
 */
import { readFileSync } from "node:fs";
import { parseSplitFile } from "sdspcaan/methods";
import { dataFile, fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { selectAll } from "#internal/protocol/selection.js";
import { runExperiment } from "#internal/runner/runner.node.js";

interface RefFit {
  method: string;
  k: number;
  params: Record<string, number>;
  valBCA: number;
  testBCA: number;
  iterations: number;
}
const fixture = JSON.parse(readFileSync(fixtureFile("cli/yale_protocol.json"), "utf8")) as {
  splits: unknown;
  selected: Record<
    string,
    { k: number; params: Record<string, number>; testBCA: number; valBCA: number }
  >;
  fits: RefFit[];
};
const METHODS = ["pca", "sdspca", "sdspca-lpp", "sdspcaan"];

describe("Yale, one split, authors grid: agreement with the NumPy reference", async () => {
  const splits = parseSplitFile(JSON.stringify(fixture.splits), 165);
  const result = await runExperiment({
    datasets: [{ name: "Yale", source: dataFile("Yale_32x32.mat"), splits }],
    methods: METHODS,
    grid: "authors",
    preprocess: "train-zscore",
    workers: 1,
  });
  const selections = selectAll(result.records);

  it.each(METHODS)("%s: same selected k, test BCA within 0.5 points", (method) => {
    const ours = selections.find((s) => s.method === method);
    const ref = fixture.selected[method];
    expect(ours).toBeDefined();
    expect(ours?.k).toBe(ref.k);
    expect(Math.abs((ours?.testBCA ?? Number.NaN) - ref.testBCA)).toBeLessThanOrEqual(0.005);
    expect(Math.abs((ours?.valBCA ?? Number.NaN) - ref.valBCA)).toBeLessThanOrEqual(0.005);
  });

  it("every grid-point fit has the reference's BCAs and iteration count", () => {
    expect(result.records.length).toBe(fixture.fits.length);
    for (const ref of fixture.fits) {
      const ours = result.records.find(
        (r) =>
          r.method === ref.method &&
          r.k === ref.k &&
          Object.entries(ref.params).every(
            ([p, v]) => (r.params as Record<string, number>)[p] === v,
          ),
      );
      expect(ours, `${ref.method} k=${ref.k} ${JSON.stringify(ref.params)}`).toBeDefined();
      expect(ours?.valBCA).toBeCloseTo(ref.valBCA, 10);
      expect(ours?.testBCA).toBeCloseTo(ref.testBCA, 10);
      expect(ours?.iterations).toBe(ref.iterations);
    }
  });
});
