import { describe, expect, it } from "vitest";
import { PAPER_DATASETS } from "#internal/protocol/paperTable.js";
import { type FitRecord, fitKey } from "#internal/protocol/records.js";
import {
  buildReports,
  completenessOf,
  summariseResults,
  summaryJSON,
  tableCsv,
  tableMarkdown,
} from "#internal/reports/report.js";
import { rec } from "../helpers/makeRecord.js";

/** One selected-looking fit per (dataset, method, repeat) with the given test BCAs. */
function fits(dataset: string, method: string, tests: number[]): FitRecord[] {
  return tests.flatMap((t, repeat) => [
    rec({ dataset, method, repeat, k: 10, valBCA: 0.5, testBCA: t, fitMs: 4, iterations: 2 }),
    // A worse fit at another k that selection must skip.
    rec({ dataset, method, repeat, k: 20, valBCA: 0.4, testBCA: 0.99, fitMs: 6, iterations: 4 }),
  ]);
}

const records: FitRecord[] = [
  ...fits("Palm", "sdspcaan", [0.95, 0.97]),
  ...fits("Musk1", "pca", [0.8, 0.7]),
  ...fits("Musk1", "slnp", [0.6, 0.62]),
  ...fits("Musk1", "sdspcaan", [0.78, 0.76]),
  ...fits("Palm", "pca", [0.9, 0.94]),
];

describe("tableMarkdown", () => {
  it("lays out Table IV: paper order, mean ± std in %, bold best, -- and Average", () => {
    const md = tableMarkdown(summariseResults(records));
    expect(md).toBe(
      [
        "Mean ± standard deviation of the test BCA (%) over 2 repeats; best per row in bold.",
        "",
        "| Dataset | PCA | SLNP | SDSPCAAN |",
        "|---|---|---|---|",
        "| Musk1 | 75.00 ± 7.07 | 61.00 ± 1.41 | **77.00 ± 1.41** |",
        "| Palm | 92.00 ± 2.83 | -- | **96.00 ± 1.41** |",
        "| Average | 83.50 ± 2.12 | -- | **86.50 ± 0.00** |",
        "",
      ].join("\n"),
    );
  });

  it("bolds every method that ties at the two decimals shown", () => {
    const tied = [
      ...fits("ORL", "pca", [0.5]),
      ...fits("ORL", "lda", [0.50001]),
      ...fits("ORL", "lpp", [0.4]),
    ];
    const md = tableMarkdown(summariseResults(tied));
    expect(md).toContain("| ORL | **50.00** | **50.00** | 40.00 |");
  });

  it("averages per repeat over the repeats every dataset has", () => {
    const uneven = [...fits("A", "pca", [0.5, 0.7, 0.9]), ...fits("B", "pca", [0.3, 0.5])];
    const s = summariseResults(uneven);
    expect(s.average.pca?.repeats).toEqual([0, 1]);
    expect(s.average.pca?.perRepeat[0]).toBeCloseTo(0.4, 15);
    expect(s.average.pca?.perRepeat[1]).toBeCloseTo(0.6, 15);
    expect(s.cells.A.pca.n).toBe(3);
    expect(tableMarkdown(s)).toContain("over the repeats run");
  });

  it("puts the paper's value and the difference beside each cell when asked", () => {
    const md = tableMarkdown(summariseResults(records), { comparePaper: true });
    expect(md).toContain("| Musk1 | 75.00 ± 7.07 (paper 76.03 ± 3.75, Δ -1.03) |");
    expect(md).toContain("**77.00 ± 1.41** (paper 77.31 ± 3.24, Δ -0.31) |");
    expect(md).toContain("| Palm | 92.00 ± 2.83 (paper 96.71 ± 0.80, Δ -4.71) | -- |");
    // Only two of the paper's nine datasets: no comparison of the Average row.
    expect(md).toContain("| Average | 83.50 ± 2.12 | -- | **86.50 ± 0.00** |");
  });

  it("compares the Average row when the rows are the paper's nine datasets", () => {
    const nine = PAPER_DATASETS.flatMap((d) => fits(d, "pca", [0.8, 0.8]));
    const md = tableMarkdown(summariseResults(nine), { comparePaper: true });
    expect(md).toContain("| Average | **80.00 ± 0.00** (paper 79.09 ± 0.67, Δ +0.91) |");
    expect(md.split("\n")[5]).toBe("| Musk1 | **80.00 ± 0.00** (paper 76.03 ± 3.75, Δ +3.97) |");
  });

  it("follows the given row and column order", () => {
    const md = tableMarkdown(
      summariseResults(records, { datasets: ["Palm", "Musk1"], methods: ["sdspcaan", "pca"] }),
    );
    expect(md).toContain("| Dataset | SDSPCAAN | PCA |");
    expect(md.indexOf("| Palm |")).toBeLessThan(md.indexOf("| Musk1 |"));
  });
});

describe("tableCsv and summaryJSON", () => {
  it("writes one CSV line per cell and per Average, empty fields for --", () => {
    const csv = tableCsv(summariseResults(records)).trim().split("\n");
    expect(csv[0]).toBe("dataset,method,mean_pct,std_pct,n_repeats,paper_mean_pct,paper_std_pct");
    expect(csv).toContain("Musk1,pca,75.0000,7.0711,2,76.03,3.75");
    expect(csv).toContain("Palm,slnp,,,,,");
    expect(csv).toContain("Average,slnp,,,,,");
    expect(csv).toHaveLength(1 + 6 + 3);
  });

  it("summarises the chosen k and parameters per repeat, fit time and iterations", () => {
    const json = summaryJSON(summariseResults(records), { grid: "paper" });
    const cell = json.results.Musk1.pca;
    expect(cell?.chosen.map((c) => [c.repeat, c.k, c.testBCA])).toEqual([
      [0, 10, 0.8],
      [1, 10, 0.7],
    ]);
    expect(cell?.nFits).toBe(4);
    expect(cell?.meanFitMs).toBe(5);
    expect(cell?.meanIterations).toBe(3);
    expect(json.results.Palm.slnp).toBeNull();
    expect(json.average.slnp).toBeNull();
    expect(json.paper?.Palm.slnp).toBeNull();
    expect(json.settings).toEqual({ grid: "paper" });
    // Plain JSON: survives a round trip unchanged.
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("builds all three reports at once", () => {
    const r = buildReports(records);
    expect(r.tableMd).toContain("| Average |");
    expect(r.tableCsv.startsWith("dataset,method")).toBe(true);
    expect(r.summary.format).toBe("sdspcaan-summary");
  });
});

describe("completeness", () => {
  const planned = [
    ...records,
    // A third repeat of Palm/PCA that has not run yet.
    { dataset: "Palm", method: "pca", repeat: 2, k: 10, params: {} },
    { dataset: "Palm", method: "pca", repeat: 2, k: 20, params: {} },
  ];
  const done = new Set(records.map((r) => fitKey(r)));

  it("counts planned and done fits per cell and complete repeats", () => {
    const c = completenessOf(planned, done);
    expect(c).toMatchObject({ planned: 22, done: 20 });
    expect(c.cells.Palm.pca).toEqual({ planned: 6, done: 4, repeats: 3, repeatsComplete: 2 });
    expect(c.cells.Musk1.pca).toEqual({ planned: 4, done: 4, repeats: 2, repeatsComplete: 2 });
  });

  it("marks incomplete cells and their Average, and adds counts to the CSV and summary", () => {
    const s = summariseResults(records, { completeness: completenessOf(planned, done) });
    const md = tableMarkdown(s);
    expect(md.split("\n")[0]).toBe(
      "**Incomplete run: 20 of 22 planned fits done (90.9 %).** Cells marked † miss planned fits: their selection is over a partial grid and is not final.",
    );
    expect(md).toContain("| Palm | 92.00 ± 2.83 † | -- | **96.00 ± 1.41** |");
    expect(md).toContain("| Average | 83.50 ± 2.12 † | -- | **86.50 ± 0.00** |");
    expect(md).toContain("- Palm: PCA 4 / 6 (2 of 3 repeats complete)");
    const csv = tableCsv(s).trim().split("\n");
    expect(csv[0]).toBe(
      "dataset,method,mean_pct,std_pct,n_repeats,paper_mean_pct,paper_std_pct,fits_done,fits_planned",
    );
    expect(csv).toContain("Palm,pca,92.0000,2.8284,2,96.71,0.80,4,6");
    expect(csv).toContain("Average,pca,83.5000,2.1213,2,,,8,10");
    expect(summaryJSON(s).completeness).toEqual({
      status: "incomplete",
      fitsDone: 20,
      fitsPlanned: 22,
      incompleteCells: { Palm: { pca: { planned: 6, done: 4, repeats: 3, repeatsComplete: 2 } } },
    });
  });

  it("says when completeness is unknown, and leaves a complete run unmarked", () => {
    const unknown = tableMarkdown(summariseResults(records, { completeness: "no settings.json." }));
    expect(unknown.split("\n")[0]).toBe("Completeness unknown: no settings.json.");
    const complete = summariseResults(records, { completeness: completenessOf(records, done) });
    expect(tableMarkdown(complete)).toBe(tableMarkdown(summariseResults(records)));
    expect(summaryJSON(complete).completeness?.status).toBe("complete");
  });

  it("refuses two records of the same fit with different results", () => {
    const twin = { ...records[0], testBCA: 0.123 };
    expect(() => summariseResults([...records, twin])).toThrow(
      /Two records of the same fit \(Palm, repeat 0, sdspcaan, k = 10, params \{\}\) have different results/,
    );
    expect(summariseResults([...records, { ...records[0], fitMs: 1 }]).cells.Palm.sdspcaan.n).toBe(
      2,
    );
  });
});
