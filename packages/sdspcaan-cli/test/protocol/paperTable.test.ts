import { readFileSync } from "node:fs";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { displayNameOf } from "#internal/protocol/grids.js";
import {
  PAPER_DATASETS,
  PAPER_METHODS,
  PAPER_TABLE_IV,
  PAPER_TABLE_IV_AVERAGE,
  paperCell,
  paperDatasetName,
} from "#internal/protocol/paperTable.js";

describe("the paper's Table IV", () => {
  it("matches the numbers in the paper's LaTeX source exactly", () => {
    // The table cut verbatim from the paper's LaTeX (the fixture's header says how).
    const tex = readFileSync(fixtureFile("paper/table4.tex"), "utf8");
    const start = tex.indexOf("\\label{tab:avgBCAs}");
    expect(start).toBeGreaterThan(0);
    const body = tex.slice(start, tex.indexOf("\\end{tabular}", start));
    // The columns are the paper's methods in PAPER_METHODS order.
    const header = body.split("\n").find((l) => l.trim().startsWith("Dataset"));
    expect(
      header
        ?.replace(/\\\\.*$/, "")
        .split("&")
        .map((c) => c.trim()),
    ).toEqual(["Dataset", ...PAPER_METHODS.map((m) => displayNameOf(m))]);
    const rows = body
      .split("\n")
      .filter((l) => l.includes("&") && !l.trim().startsWith("Dataset"))
      .map((l) =>
        l
          .replace(/\\(midrule|bottomrule)|\\\\/g, "")
          .split("&")
          .map((c) => c.trim()),
      );
    expect(rows.map((r) => r[0])).toEqual([...PAPER_DATASETS, "Average"]);
    for (const r of rows) {
      const ours = r[0] === "Average" ? PAPER_TABLE_IV_AVERAGE : PAPER_TABLE_IV[r[0] as "ORL"];
      r.slice(1).forEach((cell, i) => {
        const m = /([\d.]+)\$\\pm\$([\d.]+)/.exec(cell);
        const got = ours[PAPER_METHODS[i]];
        if (m === null) expect(got).toBeNull();
        else expect(got).toEqual({ mean: Number(m[1]), std: Number(m[2]) });
      });
    }
  });

  it("finds rows by dataset file names and aliases", () => {
    expect(paperDatasetName("ORL_32x32.mat")).toBe("ORL");
    expect(paperDatasetName("data/MSRA25_uni.mat")).toBe("MSRA25");
    expect(paperDatasetName("Isolet1")).toBe("Isolet");
    expect(paperDatasetName("palm")).toBe("Palm");
    expect(paperDatasetName("mnist")).toBeNull();
    expect(paperCell("Yale_32x32", "sdspcaan")).toEqual({ mean: 48.24, std: 4.4 });
    expect(paperCell("Yale", "slnp")).toBeNull();
    expect(paperCell("Yale", "lda")).toBeUndefined();
  });
});
