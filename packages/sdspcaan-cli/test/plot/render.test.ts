import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { ValidationError } from "sdspcaan";
import { removeDir, tempDir } from "sdspcaan-test-support";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  bcaVersusKFigure,
  embeddingScatter,
  figureFont,
  figureFontFamily,
  readFontMetrics,
  renderSvg,
  sensitivityHeatmaps,
  setFigureFont,
  svgToPng,
  type VegaLiteSpec,
  writeFigure,
} from "#internal/plot/index.js";
import { bcaSeries, clusters, sensitivityGrid } from "../helpers/plotSamples.js";
import { PNG_SIGNATURE, pngSize, svgSize } from "../helpers/svg.js";

const scratch = tempDir("plot");
afterAll(() => removeDir(scratch));

describe("svgToPng", () => {
  it("writes a PNG whose size is the SVG size times the scale", async () => {
    const svg = await renderSvg(bcaVersusKFigure(bcaSeries()));
    const { width, height } = svgSize(svg);
    expect(width).toBeGreaterThan(300);
    for (const scale of [1, 1.5, 2]) {
      const png = svgToPng(svg, { scale });
      expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      const size = pngSize(png);
      expect(Math.abs(size.width - width * scale)).toBeLessThanOrEqual(1);
      expect(Math.abs(size.height - height * scale)).toBeLessThanOrEqual(1);
    }
    expect(pngSize(svgToPng(svg)).width).toBe(2 * width);
  });

  it("draws the text (a font is found and used)", async () => {
    const svg = await renderSvg(bcaVersusKFigure(bcaSeries(false)));
    const withoutText = svg.replace(/<text\b[^>]*>[^<]*<\/text>/g, "");
    expect(withoutText.length).toBeLessThan(svg.length);
    expect(svgToPng(svg, { scale: 1 }).equals(svgToPng(withoutText, { scale: 1 }))).toBe(false);
  });

  it("rejects a bad scale or a non-SVG input", () => {
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>';
    for (const scale of [0, -1, Number.NaN, 11]) {
      expect(() => svgToPng(svg, { scale })).toThrow(ValidationError);
    }
    expect(() => svgToPng("not an svg")).toThrow(expect.objectContaining({ argument: "svg" }));
  });
});

describe("renderSvg", () => {
  it("is deterministic, also when renders overlap", async () => {
    const heat = sensitivityHeatmaps(sensitivityGrid());
    const line = bcaVersusKFigure(bcaSeries());
    const first = await renderSvg(heat);
    const [second, , third] = await Promise.all([
      renderSvg(heat),
      renderSvg(line),
      renderSvg(heat),
    ]);
    expect(second).toBe(first);
    expect(third).toBe(first);
    const scatter = embeddingScatter(clusters(5, 100));
    expect(await renderSvg(scatter)).toBe(await renderSvg(scatter));
  });

  it("names the figure font in the SVG", async () => {
    const svg = await renderSvg(bcaVersusKFigure(bcaSeries(false)));
    const family = figureFontFamily().replace(/"/g, "&quot;");
    expect(svg).toContain(`font-family="${family}"`);
  });

  it("reports Vega-Lite warnings about a user's spec", async () => {
    const spec = {
      data: { values: [{ a: 1, b: "x" }] },
      mark: "bar",
      encoding: {
        x: { field: "a", type: "quantitative" },
        shape: { field: "b", type: "nominal" },
      },
    } as VegaLiteSpec;
    const diagnostics = { warnings: [] as string[] };
    await renderSvg(spec, diagnostics);
    expect(diagnostics.warnings.some((w) => w.includes("shape"))).toBe(true);
    const emit = vi.spyOn(process, "emitWarning").mockImplementation(() => undefined);
    try {
      await renderSvg(spec);
      expect(emit).toHaveBeenCalledWith(expect.stringContaining("shape"), "VegaWarning");
    } finally {
      emit.mockRestore();
    }
  });

  it("rejects something that is not a spec", async () => {
    await expect(renderSvg(null as never)).rejects.toThrow(
      expect.objectContaining({ argument: "spec" }),
    );
  });
});

describe("writeFigure", () => {
  it("writes basePath.svg and basePath.png, creating folders", async () => {
    const base = join(scratch, "nested", "deeper", "fig1");
    const paths = await writeFigure(bcaVersusKFigure(bcaSeries()), base, { scale: 1 });
    expect(paths).toEqual({ svg: `${base}.svg`, png: `${base}.png` });
    const svg = readFileSync(paths.svg, "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    const png = readFileSync(paths.png);
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(pngSize(png)).toEqual(svgSize(svg));
  });

  it("returns the paths as basePath names them, so a relative --out is listed relative", async () => {
    const base = relative(process.cwd(), join(scratch, "relative", "fig2"));
    const paths = await writeFigure(bcaVersusKFigure(bcaSeries()), base, { scale: 1 });
    expect(paths).toEqual({ svg: `${base}.svg`, png: `${base}.png` });
    expect(existsSync(join(scratch, "relative", "fig2.svg"))).toBe(true);
    expect(existsSync(join(scratch, "relative", "fig2.png"))).toBe(true);
  });

  it("drops a .svg or .png extension from basePath", async () => {
    const paths = await writeFigure(
      embeddingScatter(clusters(3, 60)),
      join(scratch, "scatter.png"),
      { scale: 1 },
    );
    expect(paths.svg).toBe(join(scratch, "scatter.svg"));
    expect(existsSync(paths.png)).toBe(true);
  });

  it("rejects an empty basePath", async () => {
    await expect(writeFigure(bcaVersusKFigure(bcaSeries()), " ")).rejects.toThrow(
      expect.objectContaining({ argument: "basePath" }),
    );
  });
});

describe("figure font", () => {
  it("is found on this machine and has sensible advance widths", () => {
    const font = figureFont();
    expect(font).not.toBeNull();
    const metrics = readFontMetrics(font!.regularFile);
    expect(metrics.family).toBe(font!.family);
    expect(metrics.width("W", 10)).toBeGreaterThan(metrics.width("i", 10));
    expect(metrics.width("BCA (%)", 22)).toBeCloseTo(2 * metrics.width("BCA (%)", 11), 10);
    // Greek letters are in the font, not the zero-width or .notdef fallback.
    expect(metrics.width("α", 12)).toBeGreaterThan(3);
    expect(metrics.width("α", 12)).not.toBeCloseTo(metrics.width("\u{10FFFD}", 12), 6);
    if (font!.bold) {
      expect(font!.bold.width("Method", 12)).toBeGreaterThan(font!.regular.width("Method", 12));
    }
  });

  it("can be set explicitly, and unreadable files are rejected", () => {
    const font = figureFont()!;
    try {
      expect(setFigureFont({ regular: font.regularFile })!.bold).toBeUndefined();
      expect(() => setFigureFont({ regular: join(scratch, "missing.ttf") })).toThrow(
        expect.objectContaining({ argument: "files.regular" }),
      );
      const notAFont = join(scratch, "not-a-font.ttf");
      writeFileSync(notAFont, "<svg>this is not a font file at all</svg>");
      expect(() => readFontMetrics(notAFont, "file")).toThrow(ValidationError);
    } finally {
      setFigureFont(null);
    }
    expect(figureFont()!.regularFile).toBe(font.regularFile);
  });
});
