/** The bca-vs-k figure of a report: like with like, and a subtitle that says what it averages. */
import { describe, expect, it } from "vitest";
import { bcaVersusKIsAverage, bcaVersusKSpec } from "#internal/reports/figureSpecs.node.js";
import { flatInK } from "../helpers/flatInK.js";

interface Row {
  method: string;
  k: number;
  bcaPercent: number;
}

function rowsOf(spec: object): Row[] {
  return (spec as { data: { values: Row[] } }).data.values;
}

function subtitleOf(spec: object): string[] {
  const s = (spec as { title: { subtitle: string | string[] } }).title.subtitle;
  return Array.isArray(s) ? s : [s];
}

describe("bcaVersusKSpec (averaged over data sets)", () => {
  it("draws flat lines for a BCA that does not depend on k, over one common set of data sets", () => {
    const spec = bcaVersusKSpec(flatInK(["Musk1", "Big"]), null);
    const rows = rowsOf(spec);
    const methods = [...new Set(rows.map((r) => r.method))];
    expect(methods).toEqual(["SDSPCAAN", "PCA", "SLNP"]);
    for (const m of methods) {
      const own = rows.filter((r) => r.method === m);
      expect(own.map((r) => r.k)).toEqual([20, 30, 40]);
      const values = own.map((r) => r.bcaPercent);
      expect(Math.max(...values) - Math.min(...values)).toBeLessThan(1e-9);
    }
    const subtitle = subtitleOf(spec);
    expect(subtitle[0]).toContain("Mean over the same 2 data sets at every point (Musk1, Big;");
    expect(subtitle[1]).toBe(
      "Left out: Yale (no SLNP); ORL (no SLNP); k = 10, 50 (not valid on all of them)",
    );
  });

  it("names a method it leaves out and the data sets it has no results on", () => {
    const subtitle = subtitleOf(bcaVersusKSpec(flatInK(["Musk1"], [20, 30, 40]), null));
    expect(subtitle[1]).toBe(
      "Left out: SLNP (no results on Big, Yale, ORL); ORL (only k = 40, 50); k = 40 (not valid on all of them)",
    );
  });

  it("one panel per data set when no k is shared by two data sets", () => {
    const records = flatInK([]).filter((r) => r.dataset === "Yale" || r.dataset === "ORL");
    const spec = bcaVersusKSpec(records, null) as { facet?: unknown };
    expect(spec.facet).toBeDefined();
    expect(subtitleOf(spec)[0]).toMatch(/no common average/);
  });

  it("is an average (so a panel per data set says something beside it) only where data sets share a k", () => {
    expect(bcaVersusKIsAverage(flatInK(["Musk1", "Big"]), null)).toBe(true);
    const yaleAndOrl = flatInK([]).filter((r) => r.dataset === "Yale" || r.dataset === "ORL");
    expect(bcaVersusKIsAverage(yaleAndOrl, null)).toBe(false);
    const one = flatInK([]).filter((r) => r.dataset === "Yale");
    expect(bcaVersusKIsAverage(one, null)).toBe(false);
  });
});
