/**
 * Where the labels are, decided once from the options: every combination of a y
 * variable, a label column (named, "none") and a labels file gets one answer, and
 * the readers act on it (a labels file or "none" leaves the data file all X).
 */
import fc from "fast-check";
import { labelSource, labelsInDataFile, parseBytes } from "sdspcaan/formats";
import { describe, expect, it } from "vitest";

describe("labelSource", () => {
  it("places the labels as each option says, a labels file first, then 'none'", () => {
    expect(labelSource({})).toEqual({ where: "unnamed" });
    expect(labelSource({ yVar: "gnd" })).toEqual({ where: "named", yVar: "gnd" });
    expect(labelSource({ labelColumn: 0 })).toEqual({ where: "named", labelColumn: 0 });
    expect(labelSource({ labelColumn: "none" })).toEqual({ where: "none" });
    expect(labelSource({ yVar: "gnd", labelColumn: "none" })).toEqual({ where: "none" });
    expect(labelSource({ labelsFile: "y.txt", labelColumn: "none" })).toEqual({
      where: "labels-file",
      file: "y.txt",
    });
  });

  it("keeps both names when a column is given beside a variable (the reader refuses the pair)", () => {
    expect(labelSource({ yVar: "gnd", labelColumn: "last" })).toEqual({
      where: "named",
      yVar: "gnd",
      labelColumn: "last",
    });
  });

  it("says the data file holds labels exactly when no labels file and no 'none' was given", () => {
    const column = fc.option(fc.oneof(fc.integer(), fc.constantFrom("none", "last", "label")), {
      nil: undefined,
    });
    const name = fc.option(fc.string({ minLength: 1 }), { nil: undefined });
    fc.assert(
      fc.property(name, column, name, (yVar, labelColumn, labelsFile) => {
        const source = labelSource({ yVar, labelColumn, labelsFile });
        expect(labelsInDataFile(source)).toBe(labelsFile === undefined && labelColumn !== "none");
      }),
    );
  });
});

describe("the readers act on it", () => {
  const csv = new TextEncoder().encode("a,b,y\n1,2,0\n3,4,1\n5,6,0\n");

  it("reads every column as X when the labels are in a labels file", async () => {
    const ds = await parseBytes(csv, "d.csv", { labelColumn: "none", labels: "optional" });
    expect(ds.X.cols).toBe(3);
    expect(ds.info.yVar).toBeNull();
  });

  it("ignores a y variable in a text file, which names no column", async () => {
    const ds = await parseBytes(csv, "d.csv", { yVar: "gnd", labels: "optional" });
    expect(ds.X.cols).toBe(3);
    const required = await parseBytes(csv, "d.csv", { yVar: "gnd" });
    expect(required.y).toEqual([0, 1, 0]);
  });
});
