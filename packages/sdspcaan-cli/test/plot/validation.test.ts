import { ValidationError } from "sdspcaan";
import { describe, expect, it } from "vitest";
import {
  bcaVersusKFigure,
  embeddingScatter,
  reduceSensitivityGrid,
  sensitivityHeatmapPanels,
  sensitivityHeatmaps,
  sensitivityProfiles,
} from "#internal/plot/index.js";
import { bcaSeries, clusters, GRID, sensitivityGrid } from "../helpers/plotSamples.js";

/** Runs `build` and checks it throws a ValidationError naming `argument`. */
function expectInvalid(build: () => unknown, argument: string): void {
  let caught: unknown;
  try {
    build();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ValidationError);
  expect((caught as ValidationError).argument).toBe(argument);
  expect((caught as ValidationError).message).toContain(argument);
}

describe("bcaVersusKFigure rejects bad input", () => {
  const good = { method: "PCA", k: 10, bca: 0.8 };

  it("wants a panel on every point or on none, and one point per (panel, method, k)", () => {
    const a = { method: "PCA", k: 10, bca: 0.8, panel: "Yale" };
    expectInvalid(
      () => bcaVersusKFigure([a, { method: "PCA", k: 20, bca: 0.8 }]),
      "series[1].panel",
    );
    expectInvalid(() => bcaVersusKFigure([{ ...a, panel: "" }]), "series[0].panel");
    expectInvalid(() => bcaVersusKFigure([a, { ...a }]), "series[1]");
    // The same (method, k) in two panels is two points.
    expect(() => bcaVersusKFigure([a, { ...a, panel: "ORL" }])).not.toThrow();
  });

  it("names the series or the point at fault", () => {
    expectInvalid(() => bcaVersusKFigure([]), "series");
    expectInvalid(() => bcaVersusKFigure({} as never), "series");
    expectInvalid(
      () => bcaVersusKFigure([good, { ...good, k: 20, bca: Number.NaN }]),
      "series[1].bca",
    );
    expectInvalid(() => bcaVersusKFigure([{ ...good, bca: 82.5 }]), "series[0].bca");
    expectInvalid(() => bcaVersusKFigure([{ ...good, k: 0 }]), "series[0].k");
    expectInvalid(() => bcaVersusKFigure([{ ...good, method: "" }]), "series[0].method");
    expectInvalid(() => bcaVersusKFigure([{ ...good, std: -0.1 }]), "series[0].std");
    expectInvalid(() => bcaVersusKFigure([good, { ...good, bca: 0.9 }]), "series[1]");
    expectInvalid(() => bcaVersusKFigure([good, null as never]), "series[1]");
  });

  it("names the option at fault", () => {
    const series = bcaSeries(false);
    expectInvalid(() => bcaVersusKFigure(series, { methodOrder: ["PCA"] }), "options.methodOrder");
    expectInvalid(() => bcaVersusKFigure(series, { yDomain: [90, 60] }), "options.yDomain");
    expectInvalid(
      () => bcaVersusKFigure(series, { yDomain: [Number.NaN, 60] }),
      "options.yDomain[0]",
    );
    expectInvalid(() => bcaVersusKFigure(series, { width: 5 }), "options.width");
    expectInvalid(() => bcaVersusKFigure(series, { title: 3 as never }), "options.title");
    expectInvalid(
      () => bcaVersusKFigure(series, { errorBands: "yes" as never }),
      "options.errorBands",
    );
  });
});

describe("sensitivity heatmaps reject bad input", () => {
  it("names the grid cell at fault", () => {
    const cells = sensitivityGrid();
    expectInvalid(() => sensitivityHeatmaps([]), "cells");
    const nan = cells.map((c, i) => (i === 3 ? { ...c, bca: Number.NaN } : c));
    expectInvalid(() => sensitivityHeatmaps(nan), "cells[3].bca");
    expectInvalid(() => sensitivityHeatmaps([{ a: -1, b: 1, c: 1, bca: 0.5 }]), "cells[0].a");
    expectInvalid(() => sensitivityHeatmaps([cells[0]!, cells[0]!]), "cells[1]");
    // Repeated grid points are fine when they are meant to be aggregated.
    expect(reduceSensitivityGrid([cells[0]!, cells[0]!], "mean").panels.alphaBeta).toHaveLength(1);
  });

  it("names the option at fault", () => {
    const cells = sensitivityGrid();
    expectInvalid(
      () => sensitivityHeatmaps(cells, { reduce: "median" as never }),
      "options.reduce",
    );
    expectInvalid(() => reduceSensitivityGrid(cells, "median" as never), "reduce");
    expectInvalid(() => sensitivityHeatmaps(cells, { decimals: 3 as never }), "options.decimals");
    expectInvalid(
      () => sensitivityHeatmaps(cells, { colorDomain: [80, 70] }),
      "options.colorDomain",
    );
    expectInvalid(() => sensitivityHeatmaps(cells, { cellSize: 1 }), "options.cellSize");
  });

  it("checks each panel of the per-panel form", () => {
    const panel = GRID.flatMap((x) => GRID.map((y) => ({ x, y, bca: 0.7 })));
    expectInvalid(() => sensitivityHeatmapPanels({}), "panels");
    expectInvalid(
      () => sensitivityHeatmapPanels({ betaDelta: panel, alphaGamma: panel } as never),
      "panels.alphaGamma",
    );
    expectInvalid(
      () =>
        sensitivityHeatmapPanels({
          betaDelta: [panel[0]!, panel[0]!],
          alphaDelta: panel,
          alphaBeta: panel,
        }),
      "panels.betaDelta[1]",
    );
    expectInvalid(
      () =>
        sensitivityHeatmapPanels({
          betaDelta: panel,
          alphaDelta: [{ x: 1, y: 1, bca: Number.POSITIVE_INFINITY }],
          alphaBeta: panel,
        }),
      "panels.alphaDelta[0].bca",
    );
  });
});

describe("sensitivity profiles reject bad input", () => {
  const good = { panel: "Yale", line: "test", value: 1, bca: 0.5 };
  it("names the point or the option at fault", () => {
    expectInvalid(() => sensitivityProfiles([]), "points");
    expectInvalid(() => sensitivityProfiles([{ ...good, panel: "" }]), "points[0].panel");
    expectInvalid(
      () => sensitivityProfiles([good, { ...good, line: 3 as never }]),
      "points[1].line",
    );
    expectInvalid(() => sensitivityProfiles([{ ...good, value: Number.NaN }]), "points[0].value");
    expectInvalid(() => sensitivityProfiles([{ ...good, bca: 50 }]), "points[0].bca");
    expectInvalid(() => sensitivityProfiles([{ ...good, std: -0.1 }]), "points[0].std");
    expectInvalid(() => sensitivityProfiles([good, { ...good }]), "points[1]");
    expectInvalid(() => sensitivityProfiles([good], { columns: 0 }), "options.columns");
    expectInvalid(() => sensitivityProfiles([good], { width: 5 }), "options.width");
  });
});

describe("embeddingScatter rejects bad input", () => {
  const data = clusters(3, 30);

  it("names the mismatched or invalid coordinate array", () => {
    expectInvalid(() => embeddingScatter({ ...data, y: Array.from(data.y).slice(1) }), "points.y");
    expectInvalid(() => embeddingScatter({ ...data, label: data.label.slice(2) }), "points.label");
    const x = Float64Array.from(data.x);
    x[2] = Number.NaN;
    expectInvalid(() => embeddingScatter({ ...data, x }), "points.x[2]");
    expectInvalid(() => embeddingScatter({ x: [], y: [], label: [] }), "points.x");
    expectInvalid(() => embeddingScatter({ ...data, x: "1,2" as never }), "points.x");
    const label = [...data.label];
    label[1] = null as never;
    expectInvalid(() => embeddingScatter({ ...data, label }), "points.label[1]");
  });

  it("names the option at fault", () => {
    expectInvalid(() => embeddingScatter(data, { split: data.split.slice(1) }), "options.split");
    const split = [...data.split];
    split[0] = "validation" as never;
    expectInvalid(() => embeddingScatter(data, { split }), "options.split[0]");
    expectInvalid(
      () => embeddingScatter(data, { maxLegendEntries: 0 }),
      "options.maxLegendEntries",
    );
    expectInvalid(() => embeddingScatter(data, { pointSize: -3 }), "options.pointSize");
  });
});
