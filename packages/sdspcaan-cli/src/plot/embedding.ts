/**
 * A 2-D embedding (the first two projected components) as a scatter plot coloured by
 * class, optionally with marker shape telling training from test points.
 */
import { ValidationError } from "sdspcaan";
import { checkFinite, checkOptionalText, checkRecord, checkSize, refuse } from "./check.js";
import type { VegaLiteSpec } from "./render.js";
import {
  baseConfig,
  categoricalPalette,
  cyclingScale,
  SHAPES,
  spreadPalette,
  TABLEAU20,
  titleBlock,
  VEGA_LITE_SCHEMA,
} from "./style.js";

export interface EmbeddingPoints {
  x: Float64Array | readonly number[];
  y: Float64Array | readonly number[];
  /** Class of each point; numbers and strings are both shown as text. */
  label: ReadonlyArray<string | number>;
}

export type SplitName = "train" | "test";

export interface EmbeddingScatterOptions {
  title?: string;
  subtitle?: string;
  /** Axis titles (defaults "Component 1" and "Component 2"). */
  xTitle?: string;
  yTitle?: string;
  /** Whether each point was used for training or testing; shown as marker shape. */
  split?: ReadonlyArray<SplitName>;
  /** Plot width and height in pixels (default 380 each). */
  width?: number;
  height?: number;
  /** Marker area in square pixels (default: 36, smaller for many points). */
  pointSize?: number;
  /** More classes than this and the legend is left out, with a note instead (default 60). */
  maxLegendEntries?: number;
}

/** Above this many classes a single palette has too few colours to tell classes apart. */
const COLOURS_PER_CYCLE = TABLEAU20.length;
/** Legend rows per column; more classes flow into further columns. */
const LEGEND_ROWS = 20;

const collator = new Intl.Collator("en", { numeric: true });

function checkCoordinates(argument: string, value: unknown): Float64Array | readonly number[] {
  if (!(value instanceof Float64Array) && !Array.isArray(value)) {
    refuse(argument, "a Float64Array or an array of numbers", value);
  }
  for (let i = 0; i < value.length; i++) checkFinite(`${argument}[${i}]`, value[i]);
  return value;
}

function classOrder(labels: readonly (string | number)[]): string[] {
  const distinct = [...new Set(labels)];
  if (distinct.every((l) => typeof l === "number")) {
    return (distinct as number[]).sort((p, q) => p - q).map(String);
  }
  // Class names such as "s2" and "s10" read best in natural order.
  return [...new Set(distinct.map(String))].sort(collator.compare);
}

/**
 * Vega-Lite spec of a 2-D scatter coloured by class. Up to 10 classes use Tableau 10,
 * up to 20 Tableau 20. Beyond that, without `split`, each class gets a unique
 * colour x shape pair (20 colours, then the next marker shape); with `split` (which
 * takes the shape channel) colours are spread around the hue circle. The legend flows
 * into columns of 20 rows and is replaced by a note above `maxLegendEntries` classes.
 */
export function embeddingScatter(
  points: EmbeddingPoints,
  options: EmbeddingScatterOptions = {},
): VegaLiteSpec {
  checkRecord("points", points);
  checkRecord("options", options);
  const x = checkCoordinates("points.x", points.x);
  const y = checkCoordinates("points.y", points.y);
  const labels = points.label;
  if (!Array.isArray(labels)) {
    refuse("points.label", "an array of class labels", labels);
  }
  const n = x.length;
  if (n === 0) throw new ValidationError("points.x", "'points.x' must not be empty.");
  if (y.length !== n || labels.length !== n) {
    throw new ValidationError(
      y.length !== n ? "points.y" : "points.label",
      `'points.x', 'points.y' and 'points.label' must have the same length. Got ${n}, ${y.length} and ${labels.length} instead.`,
    );
  }
  labels.forEach((l, i) => {
    const ok =
      (typeof l === "string" && l.length > 0) || (typeof l === "number" && Number.isFinite(l));
    if (!ok) {
      refuse(`points.label[${i}]`, "a non-empty string or a finite number", l);
    }
  });
  const split = options.split;
  if (split !== undefined) {
    if (!Array.isArray(split) || split.length !== n) {
      refuse("options.split", `an array of "train"/"test" with one entry per point (${n})`, split);
    }
    split.forEach((s, i) => {
      if (s !== "train" && s !== "test") {
        refuse(`options.split[${i}]`, '"train" or "test"', s);
      }
    });
  }
  const title = checkOptionalText("options.title", options.title);
  const subtitle = checkOptionalText("options.subtitle", options.subtitle);
  const xTitle = checkOptionalText("options.xTitle", options.xTitle) ?? "Component 1";
  const yTitle = checkOptionalText("options.yTitle", options.yTitle) ?? "Component 2";
  const width = checkSize("options.width", options.width, 380);
  const height = checkSize("options.height", options.height, 380);
  const pointSize =
    options.pointSize === undefined
      ? n > 2000
        ? 12
        : n > 500
          ? 22
          : 36
      : checkFinite("options.pointSize", options.pointSize);
  if (pointSize <= 0) {
    refuse("options.pointSize", "positive", pointSize);
  }
  const maxLegend = options.maxLegendEntries ?? 60;
  if (!Number.isInteger(maxLegend) || maxLegend < 1) {
    refuse("options.maxLegendEntries", "a positive integer", maxLegend);
  }

  const classes = classOrder(labels);
  const c = classes.length;
  const rows = Array.from({ length: n }, (_, i) => ({
    x: x[i]!,
    y: y[i]!,
    cls: String(labels[i]),
    ...(split !== undefined ? { split: split[i]! } : {}),
  }));

  const showLegend = c <= maxLegend;
  const legend = showLegend
    ? {
        columns: Math.ceil(c / LEGEND_ROWS),
        // Vega-Lite shows only 30 symbols by default, silently eliding the rest.
        symbolLimit: c,
        symbolSize: 60,
        rowPadding: c > LEGEND_ROWS ? 1 : 3,
        columnPadding: 10,
        labelFontSize: c > LEGEND_ROWS ? 10 : 11,
        symbolOpacity: 1,
      }
    : null;

  const colourPairs = split === undefined && c > COLOURS_PER_CYCLE;
  const palette = c <= COLOURS_PER_CYCLE || colourPairs ? categoricalPalette(c) : spreadPalette(c);
  const color = {
    field: "cls",
    type: "nominal" as const,
    title: "Class",
    sort: classes,
    scale: cyclingScale(classes, palette),
    legend,
  };
  const encoding: Record<string, unknown> = {
    x: { field: "x", type: "quantitative", title: xTitle, scale: { zero: false, nice: true } },
    y: { field: "y", type: "quantitative", title: yTitle, scale: { zero: false, nice: true } },
    color,
  };
  if (colourPairs) {
    encoding.shape = {
      field: "cls",
      type: "nominal",
      title: "Class",
      sort: classes,
      scale: {
        domain: classes,
        range: classes.map((_, i) => SHAPES[Math.floor(i / COLOURS_PER_CYCLE) % SHAPES.length]!),
      },
      legend,
    };
  } else if (split !== undefined) {
    encoding.shape = {
      field: "split",
      type: "nominal",
      title: "Split",
      scale: { domain: ["train", "test"], range: ["circle", "triangle-up"] },
      legend: {
        symbolFillColor: "#666",
        symbolStrokeColor: "#666",
        symbolOpacity: 1,
        symbolSize: 60,
      },
    };
  }

  const notes: string[] = [];
  if (subtitle !== undefined) notes.push(subtitle);
  if (!showLegend) notes.push(`${c} classes (legend omitted)`);
  const spec = {
    $schema: VEGA_LITE_SCHEMA,
    ...titleBlock(title, notes.length > 0 ? notes.join(" · ") : undefined),
    width,
    height,
    data: { values: rows },
    mark: {
      type: "point",
      filled: true,
      size: pointSize,
      opacity: 0.85,
      stroke: "white",
      strokeWidth: 0.4,
    },
    encoding,
    config: baseConfig,
  };
  return spec as VegaLiteSpec;
}
