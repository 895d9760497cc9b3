import { ValidationError } from "sdspcaan";
import { describe, expect, it } from "vitest";
import { criticalDifferenceDiagram, type RankedMethod } from "#internal/plot/criticalDifference.js";
import { compileFigure, renderSvg, svgToPng } from "#internal/plot/render.js";
import { pngSize, svgSize, svgTexts } from "../helpers/svg.js";

const METHODS: RankedMethod[] = [
  { method: "PCA", averageRank: 2.75 },
  { method: "SDSPCAAN", averageRank: 1.375 },
  { method: "Baseline", averageRank: 3.875 },
  { method: "LDA", averageRank: 2 },
];

interface Layer {
  mark: { type: string; align?: string; strokeWidth?: number };
  data: { values: Array<Record<string, number | string>> };
}

function layers(spec: unknown): Layer[] {
  return (spec as { layer: Layer[] }).layer;
}

async function render(methods: RankedMethod[], cd: number) {
  const diagnostics = { warnings: [] as string[] };
  const svg = await renderSvg(criticalDifferenceDiagram(methods, cd, { title: "CD" }), diagnostics);
  expect(diagnostics.warnings).toEqual([]);
  return svg;
}

describe("criticalDifferenceDiagram", () => {
  it("compiles without warnings", () => {
    const diagnostics = { warnings: [] as string[] };
    compileFigure(criticalDifferenceDiagram(METHODS, 2.35), diagnostics);
    expect(diagnostics.warnings).toEqual([]);
  });

  it("draws the rank axis 1..k, the CD and every method with its average rank", async () => {
    const svg = await render(METHODS, 2.35);
    const texts = svgTexts(svg);
    for (const t of ["1", "2", "3", "4", "CD = 2.35", "CD"]) expect(texts).toContain(t);
    for (const t of ["SDSPCAAN (1.38)", "LDA (2.00)", "PCA (2.75)", "Baseline (3.88)"]) {
      expect(texts).toContain(t);
    }
    const png = svgToPng(svg);
    expect(pngSize(png)).toEqual({
      width: Math.round(2 * svgSize(svg).width),
      height: Math.round(2 * svgSize(svg).height),
    });
  });

  it("hangs the better half on the left and the rest on the right, labels outside the axis", () => {
    const spec = layers(criticalDifferenceDiagram(METHODS, 2.35));
    const left = spec.find((l) => l.mark.type === "text" && l.mark.align === "right")!;
    const right = spec.find((l) => l.mark.type === "text" && l.mark.align === "left")!;
    expect(left.data.values.map((v) => v.text)).toEqual(["SDSPCAAN (1.38)", "LDA (2.00)"]);
    // The worst method's line is the highest on the right.
    expect(right.data.values.map((v) => v.text)).toEqual(["PCA (2.75)", "Baseline (3.88)"]);
    const [pca, baseline] = right.data.values;
    expect(Number(baseline.y)).toBeLessThan(Number(pca.y));
    const axis = spec[0].data.values[0];
    for (const v of left.data.values) expect(Number(v.x)).toBeLessThan(Number(axis.x));
    for (const v of right.data.values) expect(Number(v.x)).toBeGreaterThan(Number(axis.x2));
  });

  it("draws one thick bar per group of methods less than CD apart", () => {
    const bars = (cd: number) =>
      layers(criticalDifferenceDiagram(METHODS, cd)).find((l) => l.mark.strokeWidth === 4)?.data
        .values.length ?? 0;
    expect(bars(2.35)).toBe(2); // {SDSPCAAN, LDA, PCA} and {LDA, PCA, Baseline}
    expect(bars(3)).toBe(1); // everything
    expect(bars(0.5)).toBe(0); // every pair differs
  });

  it("says so when the CD is wider than the axis", async () => {
    const two = [
      { method: "A", averageRank: 1.2 },
      { method: "B", averageRank: 1.8 },
    ];
    const texts = svgTexts(await render(two, 1.5));
    expect(texts).toContain("CD = 1.50 (wider than the axis)");
  });

  it("refuses bad input, naming the argument", () => {
    expect(() => criticalDifferenceDiagram([], 1)).toThrow(ValidationError);
    expect(() => criticalDifferenceDiagram([METHODS[0]], 1)).toThrow(/at least 2 methods/);
    expect(() => criticalDifferenceDiagram(METHODS, 0)).toThrow(/'cd' must be positive/);
    expect(() => criticalDifferenceDiagram([METHODS[1], METHODS[1]], 1)).toThrow(
      /'methods\[1\]' repeats method "SDSPCAAN"/,
    );
    expect(() =>
      criticalDifferenceDiagram(
        [
          { method: "A", averageRank: 1 },
          { method: "B", averageRank: 3 },
        ],
        1,
      ),
    ).toThrow(/'methods\[1\]\.averageRank' must be in \[1, 2\]/);
  });
});

describe("criticalDifferenceDiagram without a critical difference", () => {
  it("joins all methods with one bar and says no difference can be significant", () => {
    const spec = criticalDifferenceDiagram(
      [
        { method: "A", averageRank: 1 },
        { method: "B", averageRank: 2 },
      ],
      null,
    ) as unknown as { layer: Array<{ data: { values: Array<{ text?: string }> } }> };
    const texts = spec.layer.flatMap((l) => l.data.values.map((v) => v.text)).filter(Boolean);
    expect(texts).toContain("No CD: no difference can be significant");
    expect(texts.some((t) => t?.startsWith("CD ="))).toBe(false);
    // Layers: thin rules, one thick group bar, then the texts.
    const thick = spec.layer[1].data.values;
    expect(thick).toHaveLength(1);
  });
});
