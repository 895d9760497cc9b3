import { describe, expect, it } from "vitest";
import {
  bcaVersusKFigure,
  compileFigure,
  embeddingScatter,
  reduceSensitivityGrid,
  renderSvg,
  sensitivityHeatmapPanels,
  sensitivityHeatmaps,
  sensitivityProfiles,
  type VegaLiteSpec,
} from "#internal/plot/index.js";
import { bcaSeries, clusters, GRID, METHODS, sensitivityGrid } from "../helpers/plotSamples.js";
import { svgTexts } from "../helpers/svg.js";

async function render(spec: VegaLiteSpec): Promise<{ svg: string; texts: string[] }> {
  const diagnostics = { warnings: [] as string[] };
  const svg = await renderSvg(spec, diagnostics);
  // A warning from Vega-Lite means part of the spec was ignored or altered.
  expect(diagnostics.warnings).toEqual([]);
  return { svg, texts: svgTexts(svg) };
}

describe("bcaVersusKFigure (paper Fig. 1)", () => {
  it("compiles to a Vega spec without warnings", () => {
    const diagnostics = { warnings: [] as string[] };
    const vg = compileFigure(bcaVersusKFigure(bcaSeries()), diagnostics);
    expect(Array.isArray(vg.marks)).toBe(true);
    expect(diagnostics.warnings).toEqual([]);
  });

  it("draws axis titles, the legend title, every method and the title", async () => {
    const { texts } = await render(
      bcaVersusKFigure(bcaSeries(), { title: "BCA versus the subspace dimensionality k" }),
    );
    expect(texts).toContain("Subspace dimension k");
    expect(texts).toContain("BCA (%)");
    expect(texts).toContain("Method");
    expect(texts).toContain("BCA versus the subspace dimensionality k");
    for (const method of METHODS) expect(texts).toContain(method);
    for (let k = 10; k <= 100; k += 10) expect(texts).toContain(String(k));
  });

  it("fits the y axis to the data instead of starting at zero", async () => {
    const series = METHODS.flatMap((method, m) =>
      [10, 20, 30].map((k) => ({ method, k, bca: 0.9 + 0.005 * m + 0.001 * k })),
    );
    const spec = bcaVersusKFigure(series) as { layer: { encoding: { y: { scale: object } } }[] };
    const domain = (spec.layer.at(-1)!.encoding.y.scale as { domain: number[] }).domain;
    expect(domain[0]).toBeGreaterThan(80);
    expect(domain[0]).toBeLessThanOrEqual(90);
    expect(domain[1]).toBeGreaterThanOrEqual(96.5);
    expect(domain[1]).toBeLessThanOrEqual(100);
  });

  it("adds a band layer only when std is given", () => {
    const withStd = bcaVersusKFigure(bcaSeries(true)) as { layer: unknown[] };
    const without = bcaVersusKFigure(bcaSeries(false)) as { layer: unknown[] };
    const noBands = bcaVersusKFigure(bcaSeries(true), { errorBands: false }) as {
      layer: unknown[];
    };
    expect(withStd.layer).toHaveLength(3);
    expect(without.layer).toHaveLength(2);
    expect(noBands.layer).toHaveLength(2);
  });

  it("draws the std of a method's only k as a bar, where the band would have no width", async () => {
    const single = [
      { method: "PCA", k: 20, bca: 0.625, std: 0.0625 },
      { method: "LDA", k: 20, bca: 0.75, std: 0.03125 },
    ];
    const spec = bcaVersusKFigure(single) as unknown as {
      layer: { mark: { type: string }; transform?: object[] }[];
      data: { values: { method: string; barLower?: number; barUpper?: number }[] };
    };
    expect(spec.layer.map((l) => l.mark.type)).toEqual(["area", "rule", "line", "point"]);
    expect(spec.layer[1].transform).toEqual([{ filter: "isValid(datum.barLower)" }]);
    expect(spec.data.values.map((r) => [r.method, r.barLower, r.barUpper])).toEqual([
      ["PCA", 56.25, 68.75],
      ["LDA", 71.875, 78.125],
    ]);
    const { svg } = await render(bcaVersusKFigure(single));
    expect(svg.match(/<g class="mark-rule role-mark[^"]*"[^>]*>(.*?)<\/g>/s)?.[1]).toMatch(
      /(<line[^>]*>.*){2}/s,
    );
    // A method with several k, beside one with a single k: the bar only for the latter.
    const mixed = bcaVersusKFigure([
      ...single.slice(0, 1),
      { method: "LDA", k: 10, bca: 0.7, std: 0.03125 },
      { method: "LDA", k: 20, bca: 0.75, std: 0.03125 },
    ]) as unknown as typeof spec;
    expect(mixed.data.values.map((r) => r.barLower)).toEqual([56.25, undefined, undefined]);
    // Without std, or without bands, there is no bar.
    const bare = bcaVersusKFigure(single.map(({ method, k, bca }) => ({ method, k, bca })));
    expect((bare as unknown as typeof spec).layer).toHaveLength(2);
    const noBands = bcaVersusKFigure(single, { errorBands: false }) as unknown as typeof spec;
    expect(noBands.layer.map((l) => l.mark.type)).toEqual(["line", "point"]);
  });

  it("leaves no panel without a bar or a band, so Vega warns of no empty axis", async () => {
    // LDA's only k in panel A is a bar; B has no such k, C no std at all.
    const spec = bcaVersusKFigure([
      { panel: "A", method: "PCA", k: 10, bca: 0.5, std: 0.0625 },
      { panel: "A", method: "PCA", k: 20, bca: 0.625, std: 0.0625 },
      { panel: "A", method: "LDA", k: 10, bca: 0.75, std: 0.03125 },
      { panel: "B", method: "PCA", k: 30, bca: 0.5, std: 0.0625 },
      { panel: "B", method: "PCA", k: 40, bca: 0.625, std: 0.0625 },
      { panel: "C", method: "PCA", k: 50, bca: 0.25 },
      { panel: "C", method: "PCA", k: 60, bca: 0.375 },
    ]) as unknown as {
      data: { values: { panel: string; k: number; lower?: number; barLower?: number }[] };
    };
    // The rows that fill a panel give a band or bar of no length, on their point.
    expect(spec.data.values.map((r) => [r.panel, r.k, r.lower, r.barLower])).toEqual([
      ["A", 10, 43.75, undefined],
      ["A", 20, 56.25, undefined],
      ["B", 30, 43.75, 50],
      ["B", 40, 56.25, undefined],
      ["C", 50, 25, 25],
      ["C", 60, undefined, undefined],
      ["A", 10, 71.875, 71.875],
    ]);
    const { svg } = await render(spec as unknown as VegaLiteSpec);
    const bars = [...svg.matchAll(/<g class="mark-rule role-mark[^"]*"[^>]*>(.*?)<\/g>/gs)]
      .flatMap((g) => [...g[1].matchAll(/aria-label="([^"]*)"[^>]*y2="(-?[\d.]+)"/g)])
      .map((m) => [m[1].replace(/;.*Method: /, " "), Number(m[2])]);
    // LDA's bar has a length (its std, 2 x 3.125 points); the filling ones are on their point.
    expect(bars).toEqual([
      ["Subspace dimension k: 10 LDA", expect.closeTo(-31.25, 9)],
      ["Subspace dimension k: 30 PCA", 0],
      ["Subspace dimension k: 50 PCA", 0],
    ]);
  });

  it("orders the legend as methodOrder says", async () => {
    const order = [...METHODS].reverse();
    const { texts } = await render(bcaVersusKFigure(bcaSeries(), { methodOrder: order }));
    const positions = order.map((m) => texts.indexOf(m));
    expect([...positions].sort((p, q) => p - q)).toEqual(positions);
  });
});

describe("sensitivity heatmaps (paper Fig. 2)", () => {
  it("draws the three panels with Greek axis titles, legend and cell values", async () => {
    const { svg, texts } = await render(sensitivityHeatmaps(sensitivityGrid(), { decimals: 2 }));
    for (const title of ["(a) β and δ", "(b) α and δ", "(c) α and β"]) {
      expect(texts).toContain(title);
    }
    for (const axis of ["α multiplier", "β multiplier", "δ multiplier"]) {
      expect(texts).toContain(axis);
    }
    expect(texts).toContain("BCA (%)");
    for (const g of GRID) expect(texts).toContain(String(g));
    // The best cell of the grid (α = β = 1, δ = 0.1) is printed in all three panels.
    expect(texts.filter((t) => t === "82.60")).toHaveLength(3);
    // One shared colour scale, hence one colour legend.
    expect(svg.match(/<linearGradient/g)).toHaveLength(1);
  });

  it("slices the grid through its best cell by default and names the fixed value", async () => {
    const { panels, fixed } = reduceSensitivityGrid(sensitivityGrid());
    expect(fixed).toEqual({ a: 1, b: 1, c: 0.1 });
    expect(panels.betaDelta).toHaveLength(25);
    // Panel (a) is β (x) by δ (y) at α = 1: the cell (β = 100, δ = 100).
    const corner = panels.betaDelta.find((cell) => cell.x === 100 && cell.y === 100)!;
    expect(corner.bca).toBeCloseTo(0.826 - 0.006 - 0.04 * 3 ** 1.5, 12);
    const { texts } = await render(sensitivityHeatmaps(sensitivityGrid()));
    expect(texts).toContain("α multiplier = 1");
    expect(texts).toContain("δ multiplier = 0.1");
  });

  it("takes the maximum or the mean over the third parameter when asked", () => {
    const cells = [
      { a: 1, b: 1, c: 1, bca: 0.5 },
      { a: 1, b: 1, c: 10, bca: 0.7 },
      { a: 10, b: 1, c: 1, bca: 0.9 },
    ];
    const max = reduceSensitivityGrid(cells, "max").panels;
    const mean = reduceSensitivityGrid(cells, "mean").panels;
    // Panel (c) is α by β, collapsing δ.
    expect(max.alphaBeta.find((c) => c.x === 1 && c.y === 1)!.bca).toBe(0.7);
    expect(mean.alphaBeta.find((c) => c.x === 1 && c.y === 1)!.bca).toBeCloseTo(0.6, 15);
    expect(max.alphaBeta.find((c) => c.x === 10 && c.y === 1)!.bca).toBe(0.9);
    // Panel (a) is β by δ, collapsing α.
    expect(mean.betaDelta.find((c) => c.x === 1 && c.y === 1)!.bca).toBeCloseTo(0.7, 15);
  });

  it("accepts per-panel cells", async () => {
    const panel = GRID.flatMap((x) => GRID.map((y) => ({ x, y, bca: 0.7 + 0.001 * x })));
    const { texts } = await render(
      sensitivityHeatmapPanels({ betaDelta: panel, alphaDelta: panel, alphaBeta: panel }),
    );
    expect(texts).toContain("(b) α and δ");
    expect(texts).toContain("80.0");
  });
});

describe("bcaVersusKFigure with panels", () => {
  it("draws one panel per data set in the order given, each with its own BCA axis", async () => {
    const series = ["Yale", "ORL"].flatMap((panel, p) =>
      bcaSeries()
        .filter((s) => (p === 0 ? s.k <= 30 : s.k >= 40))
        .map((s) => ({ ...s, panel, bca: s.bca - 0.3 * p })),
    );
    const { texts } = await render(bcaVersusKFigure(series, { title: "Per data set" }));
    expect(texts.indexOf("Yale")).toBeLessThan(texts.indexOf("ORL"));
    expect(texts.filter((t) => t === "BCA (%)")).toHaveLength(2);
    expect(texts.filter((t) => t === "Subspace dimension k")).toHaveLength(2);
    for (const method of METHODS) expect(texts).toContain(method);
  });
});

describe("sensitivity over fewer parameters", () => {
  it("draws only the heatmap panels given, unlettered when there is one", async () => {
    const panel = GRID.flatMap((x) => GRID.map((y) => ({ x, y, bca: 0.7 + 0.001 * x })));
    const { texts } = await render(sensitivityHeatmapPanels({ alphaBeta: panel }));
    expect(texts).toContain("α and β");
    expect(texts.some((t) => t.includes("δ"))).toBe(false);
    const two = await render(sensitivityHeatmapPanels({ betaDelta: panel, alphaBeta: panel }));
    expect(two.texts).toContain("(a) β and δ");
    expect(two.texts).toContain("(b) α and β");
  });

  it("draws a one-parameter profile per panel, with lines, error bars and the axis title", async () => {
    const points = ["Yale", "ORL"].flatMap((panel, p) =>
      GRID.flatMap((value, i) => [
        { panel, line: "test", value, bca: 0.5 + 0.1 * p + 0.01 * i, std: 0.02 },
        { panel, line: "validation", value, bca: 0.52 + 0.1 * p + 0.005 * i },
      ]),
    );
    const spec = sensitivityProfiles(points, {
      title: "SDSPCAAN: BCA over δ",
      subtitle: "k at its selected value",
      xTitle: "δ multiplier",
    });
    const { svg, texts } = await render(spec);
    for (const t of ["SDSPCAAN: BCA over δ", "Yale", "ORL", "test", "validation"]) {
      expect(texts).toContain(t);
    }
    // One axis title per panel: each data set has its own BCA scale.
    expect(texts.filter((t) => t === "δ multiplier")).toHaveLength(2);
    expect(texts.filter((t) => t === "BCA (%)")).toHaveLength(2);
    for (const g of GRID) expect(texts).toContain(String(g));
    // The multipliers are evenly spaced categories in ascending order.
    const ticks = GRID.map((g) => svg.indexOf(`>${g}<`));
    expect([...ticks].sort((a, b) => a - b)).toEqual(ticks);
  });

  it("renders without a warning a panel with no std beside one with", async () => {
    const points = GRID.flatMap((value, i) => [
      { panel: "Yale", line: "test", value, bca: 0.5 + 0.01 * i, std: 0.02 },
      { panel: "ORL", line: "test", value, bca: 0.6 + 0.01 * i },
    ]);
    // render checks that Vega said nothing (no "Infinite extent" of ORL's empty bars).
    const { svg } = await render(sensitivityProfiles(points));
    const bars = [...svg.matchAll(/<g class="mark-rule role-mark[^"]*"[^>]*>(.*?)<\/g>/gs)]
      .flatMap((g) => [...g[1].matchAll(/y2="(-?[\d.]+)"/g)])
      .map((m) => Number(m[1]));
    expect(bars.filter((y2) => y2 !== 0)).toHaveLength(GRID.length);
    expect(bars.filter((y2) => y2 === 0)).toHaveLength(1);
  });
});

describe("embeddingScatter", () => {
  it("colours three named classes and shows the train/test split as shapes", async () => {
    const names = ["setosa", "versicolor", "virginica"];
    const data = clusters(3, 400, names);
    const { texts } = await render(
      embeddingScatter(data, { title: "Embedding", split: data.split, xTitle: "w1", yTitle: "w2" }),
    );
    for (const t of ["Class", "Split", "train", "test", "w1", "w2", "Embedding", ...names]) {
      expect(texts).toContain(t);
    }
  });

  it("lists all 40 classes in a multi-column legend, colour and shape telling them apart", async () => {
    const data = clusters(40, 400);
    const spec = embeddingScatter(data);
    const { encoding } = spec as unknown as {
      encoding: { shape: { scale: { range: string[] } }; color: { scale: { range: string[] } } };
    };
    const pairs = new Set(
      encoding.color.scale.range.map((c, i) => `${c} ${encoding.shape.scale.range[i]}`),
    );
    expect(pairs.size).toBe(40);
    const { texts } = await render(spec);
    for (let c = 1; c <= 40; c++) expect(texts).toContain(String(c));
    expect(texts.some((t) => t.includes("entries"))).toBe(false);
  });

  it("gives 40 classes 40 distinct colours when shape shows the split", () => {
    const data = clusters(40, 400);
    const spec = embeddingScatter(data, { split: data.split }) as {
      encoding: { color: { scale: { range: string[] } } };
    };
    expect(new Set(spec.encoding.color.scale.range).size).toBe(40);
  });

  it("replaces an oversized legend by a note", async () => {
    const { texts } = await render(embeddingScatter(clusters(40, 400), { maxLegendEntries: 30 }));
    expect(texts).toContain("40 classes (legend omitted)");
    expect(texts).not.toContain("Class");
  });

  it("orders class names naturally", async () => {
    const data = clusters(
      12,
      120,
      Array.from({ length: 12 }, (_, i) => `s${i + 1}`),
    );
    const { texts } = await render(embeddingScatter(data));
    const positions = ["s1", "s2", "s9", "s10", "s12"].map((s) => texts.indexOf(s));
    expect([...positions].sort((p, q) => p - q)).toEqual(positions);
  });
});
