/**
 * Vega-Lite spec -> SVG (vega, headless) -> PNG (resvg). Node-only.
 */
import { dirname } from "node:path";
import { Resvg, type ResvgRenderOptions } from "@resvg/resvg-js";
import { SdspcaanError, ValidationError } from "sdspcaan";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { writeAtomically } from "../io/atomicWrite.js";
import { makeFolders } from "../io/fileErrors.js";
import { type FigureFont, figureFont } from "./fonts.js";

/** A Vega-Lite specification, as produced by the figure builders. */
export type VegaLiteSpec = TopLevelSpec;

/** What Vega hands to a text-width function: the text mark item. */
interface TextItem {
  fontSize?: number | string;
  fontWeight?: string | number;
  limit?: number;
}

/** Vega's text measurement hook; exported at runtime but missing from its typings. */
interface TextMetrics {
  width: (item: TextItem, text: unknown) => number;
}

const textMetrics = (vega as unknown as { textMetrics: TextMetrics }).textMetrics;

function isBold(weight: string | number | undefined): boolean {
  if (weight === undefined) return false;
  if (typeof weight === "number") return weight >= 600;
  return weight === "bold" || weight === "bolder" || Number(weight) >= 600;
}

function fontWidth(font: FigureFont): (item: TextItem, text: unknown) => number {
  return (item, text) => {
    const line = text == null ? "" : String(text).trim();
    const size = item.fontSize == null ? 11 : Number(item.fontSize) || 0;
    if (size <= 0 || line.length === 0) return 0;
    const bold = isBold(item.fontWeight);
    // Without a bold face, DejaVu-like bold runs about 10 % wider than regular.
    const width = bold
      ? font.bold
        ? font.bold.width(line, size)
        : 1.1 * font.regular.width(line, size)
      : font.regular.width(line, size);
    // Vega truncates such text to `limit` with an ellipsis before drawing it.
    return item.limit != null && item.limit > 0 ? Math.min(width, item.limit) : width;
  };
}

/** The CSS font-family list written into the SVG. */
export function figureFontFamily(): string {
  const font = figureFont();
  return font ? `"${font.family}", sans-serif` : "sans-serif";
}

/** Messages Vega-Lite and Vega reported while compiling and rendering. */
export interface RenderDiagnostics {
  readonly warnings: string[];
}

type Logger = NonNullable<vega.ViewOptions["logger"]>;

function collectingLogger(sink: string[]): Logger {
  let current = 0;
  const text = (args: readonly unknown[]) => args.map((a) => String(a)).join(" ");
  const logger: Logger = {
    level(value?: number) {
      if (value === undefined) return current;
      current = value;
      return logger;
    },
    error(...args: unknown[]) {
      sink.push(`error: ${text(args)}`);
      return this;
    },
    warn(...args: unknown[]) {
      sink.push(text(args));
      return this;
    },
    info() {
      return this;
    },
    debug() {
      return this;
    },
  };
  return logger;
}

function checkSpec(spec: unknown): asserts spec is VegaLiteSpec {
  if (spec === null || typeof spec !== "object" || Array.isArray(spec)) {
    throw new ValidationError(
      "spec",
      `The 'spec' argument must be a Vega-Lite specification object. Got ${spec === null ? "null" : Array.isArray(spec) ? "an array" : typeof spec} instead.`,
    );
  }
}

/**
 * Warnings go to `diagnostics` when the caller collects them, else to
 * `process.emitWarning`: a Vega-Lite warning means part of a spec was dropped or changed,
 * which should not pass unnoticed.
 */
function reportWarnings(diagnostics: RenderDiagnostics | undefined, warnings: string[]): void {
  if (diagnostics !== undefined) diagnostics.warnings.push(...warnings);
  else for (const w of warnings) process.emitWarning(w, "VegaWarning");
}

function compileInto(spec: VegaLiteSpec, warnings: string[]): vega.Spec {
  checkSpec(spec);
  return compile(spec, {
    config: { font: figureFontFamily() },
    logger: collectingLogger(warnings),
  }).spec;
}

/**
 * Compiles a Vega-Lite spec to a Vega spec with the figure font. Compiler warnings are
 * appended to `diagnostics.warnings` when given, else emitted as process warnings.
 */
export function compileFigure(spec: VegaLiteSpec, diagnostics?: RenderDiagnostics): vega.Spec {
  const warnings: string[] = [];
  const vgSpec = compileInto(spec, warnings);
  reportWarnings(diagnostics, warnings);
  return vgSpec;
}

// Vega keeps global counters for gradient/clip ids and a global text-width hook, so
// renders run one at a time: concurrent renders would interleave ids and the SVG of
// the same spec would depend on what else was being drawn.
let queue: Promise<unknown> = Promise.resolve();

async function renderNow(spec: VegaLiteSpec, warnings: string[]): Promise<string> {
  const vgSpec = compileInto(spec, warnings);
  const font = figureFont();
  const previousWidth = textMetrics.width;
  try {
    if (font) textMetrics.width = fontWidth(font);
    vega.resetSVGDefIds();
    const view = new vega.View(vega.parse(vgSpec), {
      renderer: "none",
      logger: collectingLogger(warnings),
    });
    try {
      return await view.toSVG();
    } finally {
      view.finalize();
    }
  } finally {
    textMetrics.width = previousWidth;
  }
}

/**
 * Renders a Vega-Lite spec to an SVG document (headless Vega, no canvas needed). Text is
 * laid out with the metrics of `figureFont()`, which the SVG also names. The same spec
 * always yields the same string. Compiler and runtime warnings are appended to
 * `diagnostics.warnings` when given, else emitted as process warnings.
 */
export function renderSvg(spec: VegaLiteSpec, diagnostics?: RenderDiagnostics): Promise<string> {
  const run = queue.then(async () => {
    const warnings: string[] = [];
    const svg = await renderNow(spec, warnings);
    reportWarnings(diagnostics, warnings);
    return svg;
  });
  queue = run.catch(() => undefined);
  return run;
}

export interface PngOptions {
  /** Pixels per SVG unit (default 2, i.e. about 192 dpi for a 96-dpi SVG); in (0, 10]. */
  scale?: number;
}

function fontOptions(): ResvgRenderOptions["font"] {
  const font = figureFont();
  if (font === null) return { loadSystemFonts: true };
  const files = font.boldFile ? [font.regularFile, font.boldFile] : [font.regularFile];
  return {
    loadSystemFonts: false,
    fontFiles: files,
    defaultFontFamily: font.family,
    sansSerifFamily: font.family,
  };
}

/** Whether text drew ink with the font last probed (the font can change via setFigureFont). */
let textProbe: { font: FigureFont | null; draws: boolean } | undefined;

/** Whether resvg, with the fonts it is given, puts any ink on the page for text. */
function canRenderText(): boolean {
  const font = figureFont();
  if (textProbe === undefined || textProbe.font !== font) {
    const probe =
      '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20">' +
      '<text x="2" y="16" font-family="sans-serif" font-size="16">Ag</text></svg>';
    const pixels = new Resvg(probe, { font: fontOptions() }).render().pixels;
    let draws = false;
    for (let i = 3; i < pixels.length; i += 4) {
      if (pixels[i] !== 0) {
        draws = true;
        break;
      }
    }
    textProbe = { font, draws };
  }
  return textProbe.draws;
}

/**
 * Rasterises an SVG document to PNG with resvg. The PNG is `scale` times the SVG's width
 * and height (rounded). Throws when the SVG has text but no font can draw it, rather than
 * writing a figure without labels.
 */
export function svgToPng(svg: string, options: PngOptions = {}): Buffer {
  if (typeof svg !== "string" || !/<svg[\s>]/.test(svg)) {
    throw new ValidationError("svg", "The 'svg' argument must be an SVG document string.");
  }
  const scale = options.scale ?? 2;
  if (typeof scale !== "number" || !Number.isFinite(scale) || scale <= 0 || scale > 10) {
    throw new ValidationError(
      "scale",
      `The 'scale' option must be a number in (0, 10]. Got ${String(scale)} instead.`,
    );
  }
  if (svg.includes("<text") && !canRenderText()) {
    throw new SdspcaanError(
      "No font is available to draw the figure's text in the PNG. Install a sans-serif " +
        "TrueType font (e.g. the Debian package fonts-dejavu-core), set SDSPCAAN_FONT to a " +
        ".ttf file, or call setFigureFont({ regular: '/path/to/font.ttf' }). The SVG is unaffected.",
    );
  }
  const resvg = new Resvg(svg, {
    fitTo: { mode: "zoom", value: scale },
    font: fontOptions(),
    shapeRendering: 2,
    textRendering: 1,
  });
  return resvg.render().asPng();
}

export interface WrittenFigure {
  readonly svg: string;
  readonly png: string;
}

/**
 * Renders `spec` and writes `<basePath>.svg` and `<basePath>.png` (a trailing ".svg" or
 * ".png" on `basePath` is dropped), creating folders as needed. Returns the two paths
 * as `basePath` names them (relative where it is), so that a command lists them as the
 * user wrote --out, beside its other files.
 */
export async function writeFigure(
  spec: VegaLiteSpec,
  basePath: string,
  options: PngOptions = {},
): Promise<WrittenFigure> {
  if (typeof basePath !== "string" || basePath.trim().length === 0) {
    throw new ValidationError("basePath", "The 'basePath' argument must be a non-empty path.");
  }
  const base = basePath.replace(/\.(svg|png)$/i, "");
  const svg = await renderSvg(spec);
  const png = svgToPng(svg, options);
  makeFolders(dirname(base));
  const paths = { svg: `${base}.svg`, png: `${base}.png` };
  // Links written through, devices in place, directories refused (io/atomicWrite.ts).
  writeAtomically(paths.svg, svg);
  writeAtomically(paths.png, png);
  return paths;
}
