/**
 * The paper's Fig. 2: BCA of SDSPCAAN over pairs of its multipliers, (a) β and δ,
 * (b) α and δ, (c) α and β, each with the remaining parameter (and k) at its best value;
 * any subset of the panels (a grid that varies only two multipliers has one pair); and,
 * for a grid that varies one parameter, its one-dimensional profile per data set.
 */
import { ValidationError } from "sdspcaan";
import {
  bcaBand,
  checkBca,
  checkDomain,
  checkFinite,
  checkInRange,
  checkName,
  checkNonEmptyArray,
  checkOptionalText,
  checkPositive,
  checkRecord,
  checkSize,
  checkUnique,
  figureInputs,
  figureTexts,
  refuse,
  show,
} from "./check.js";
import type { VegaLiteSpec } from "./render.js";
import {
  baseConfig,
  categoricalPalette,
  cyclingScale,
  fillEmptyPanels,
  gridLabel,
  panelFacet,
  titleBlock,
  VEGA_LITE_SCHEMA,
} from "./style.js";

/**
 * One grid point of SDSPCAAN's parameters: `a`, `b`, `c` are the α, β, δ multipliers
 * (the factors in {0.01, ..., 100} the paper scales by trace ratios), `bca` a fraction.
 */
export interface ParameterGridCell {
  a: number;
  b: number;
  c: number;
  bca: number;
}

/** One cell of one panel: `x` and `y` are the panel's two multipliers. */
export interface PairCell {
  x: number;
  y: number;
  bca: number;
}

/** The three panels: (a) x = β, y = δ; (b) x = α, y = δ; (c) x = α, y = β. */
export interface SensitivityPanels {
  betaDelta: readonly PairCell[];
  alphaDelta: readonly PairCell[];
  alphaBeta: readonly PairCell[];
}

/**
 * How `sensitivityHeatmaps` collapses the third parameter:
 * - "best" (default, the paper's protocol): fix it at its value in the best cell of the
 *   whole grid (highest BCA; ties go to the cell listed first), and show the slice.
 *   Each (a, b, c) may then appear only once.
 * - "max": for each pair, the highest BCA over the third parameter (a profile).
 * - "mean": for each pair, the mean BCA over the third parameter.
 */
export type ThirdParameterReduction = "best" | "max" | "mean";

export interface SensitivityHeatmapOptions {
  title?: string;
  subtitle?: string;
  /** Decimals printed in each cell: 1 (default) or 2. */
  decimals?: 1 | 2;
  /** Side of one cell in pixels (default 46). */
  cellSize?: number;
  /** Colour range in percent; default: the smallest and largest BCA over all panels. */
  colorDomain?: readonly [number, number];
}

export interface SensitivityGridOptions extends SensitivityHeatmapOptions {
  reduce?: ThirdParameterReduction;
}

type PanelKey = keyof SensitivityPanels;

interface PanelInfo {
  readonly key: PanelKey;
  readonly title: string;
  readonly xTitle: string;
  readonly yTitle: string;
  /** Which ParameterGridCell fields are x, y and the third parameter. */
  readonly x: "a" | "b";
  readonly y: "b" | "c";
  readonly third: "a" | "b" | "c";
  readonly thirdSymbol: string;
}

const PANELS: readonly PanelInfo[] = [
  {
    key: "betaDelta",
    title: "β and δ",
    xTitle: "β multiplier",
    yTitle: "δ multiplier",
    x: "b",
    y: "c",
    third: "a",
    thirdSymbol: "α",
  },
  {
    key: "alphaDelta",
    title: "α and δ",
    xTitle: "α multiplier",
    yTitle: "δ multiplier",
    x: "a",
    y: "c",
    third: "b",
    thirdSymbol: "β",
  },
  {
    key: "alphaBeta",
    title: "α and β",
    xTitle: "α multiplier",
    yTitle: "β multiplier",
    x: "a",
    y: "b",
    third: "c",
    thirdSymbol: "δ",
  },
];

interface HeatRow {
  panel: string;
  x: string;
  y: string;
  bcaPercent: number;
}

/** The multipliers `fields` of a grid cell, each positive, in that order. */
function checkMultipliers<K extends string>(
  at: string,
  cell: Record<K, unknown>,
  fields: readonly K[],
): number[] {
  return fields.map((field) => checkPositive(`${at}.${field}`, cell[field]));
}

function checkPairCells(argument: string, cells: unknown): PairCell[] {
  checkNonEmptyArray<PairCell>(argument, cells);
  const seen = new Set<string>();
  return cells.map((cell, i) => {
    const at = `${argument}[${i}]`;
    checkRecord(at, cell);
    const [x, y] = checkMultipliers(at, cell, ["x", "y"]);
    const bca = checkBca(`${at}.bca`, cell.bca);
    checkUnique(seen, `${x},${y}`, at, () => {
      return `the cell (${x}, ${y}); '${argument}' must have one BCA per pair.`;
    });
    return { x, y, bca };
  });
}

function checkDecimals(value: unknown): 1 | 2 {
  if (value === undefined) return 1;
  if (value !== 1 && value !== 2) {
    refuse("options.decimals", "1 or 2", value);
  }
  return value;
}

function colorDomainOf(rows: readonly HeatRow[], given: unknown): [number, number] {
  if (given !== undefined) {
    return checkDomain("options.colorDomain", given, (a, v) => checkInRange(a, v, 0, 100));
  }
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    lo = Math.min(lo, r.bcaPercent);
    hi = Math.max(hi, r.bcaPercent);
  }
  // A flat surface still needs a non-empty colour range.
  if (hi - lo < 0.1) return [lo - 0.5, hi + 0.5];
  return [lo, hi];
}

function sortedLabels(values: Iterable<number>): string[] {
  return [...new Set(values)].sort((p, q) => p - q).map(gridLabel);
}

function heatmapSpec(
  panels: Partial<Record<PanelKey, PairCell[]>>,
  notes: Partial<Record<PanelKey, string>>,
  options: SensitivityHeatmapOptions,
): VegaLiteSpec {
  const { title, subtitle } = figureTexts(options);
  const decimals = checkDecimals(options.decimals);
  const cellSize = checkSize("options.cellSize", options.cellSize, 46);

  // The panels given, in the paper's order, lettered (a), (b), ... when there are several.
  const shown = PANELS.filter((info) => panels[info.key] !== undefined);
  const cellsOf = (info: PanelInfo) => panels[info.key] as PairCell[];
  const rowsByPanel = shown.map((info) =>
    cellsOf(info).map(
      (c): HeatRow => ({
        panel: info.key,
        x: gridLabel(c.x),
        y: gridLabel(c.y),
        bcaPercent: 100 * c.bca,
      }),
    ),
  );
  const domain = colorDomainOf(rowsByPanel.flat(), options.colorDomain);
  // Viridis is dark at the low end: white text there, black on the light upper half.
  const textFlip = domain[0] + 0.5 * (domain[1] - domain[0]);

  // One shared legend: every panel must ask for the same length, or vega warns.
  const tallest = Math.max(...shown.map((info) => new Set(cellsOf(info).map((c) => c.y)).size));
  const legendLength = Math.max(120, cellSize * tallest);
  const hconcat = shown.map((info, p) => {
    const cells = cellsOf(info);
    const xLabels = sortedLabels(cells.map((c) => c.x));
    // Band scales run top to bottom; reverse so the smallest multiplier sits at the bottom.
    const yLabels = sortedLabels(cells.map((c) => c.y)).reverse();
    const note = notes[info.key];
    return {
      title: {
        text: shown.length > 1 ? `(${"abc"[p]}) ${info.title}` : info.title,
        ...(note === undefined ? {} : { subtitle: note }),
        fontSize: 13,
        fontWeight: "normal",
      },
      width: { step: cellSize },
      height: { step: cellSize },
      data: { values: rowsByPanel[p] },
      encoding: {
        x: {
          field: "x",
          type: "ordinal",
          title: info.xTitle,
          sort: xLabels,
          axis: { labelAngle: 0, ticks: false, domain: false },
        },
        y: {
          field: "y",
          type: "ordinal",
          title: info.yTitle,
          sort: yLabels,
          axis: { ticks: false, domain: false },
        },
      },
      layer: [
        {
          mark: { type: "rect", stroke: "white", strokeWidth: 1 },
          encoding: {
            color: {
              field: "bcaPercent",
              type: "quantitative",
              title: "BCA (%)",
              scale: { scheme: "viridis", domain, clamp: true },
              legend: { gradientLength: legendLength, format: ".0f" },
            },
          },
        },
        {
          mark: { type: "text", fontSize: decimals === 2 ? 10 : 11 },
          encoding: {
            text: { field: "bcaPercent", type: "quantitative", format: `.${decimals}f` },
            color: {
              condition: { test: `datum.bcaPercent < ${textFlip}`, value: "white" },
              value: "black",
            },
          },
        },
      ],
    };
  });

  const spec = {
    $schema: VEGA_LITE_SCHEMA,
    ...titleBlock(title, subtitle),
    hconcat,
    spacing: 28,
    resolve: { scale: { color: "shared" }, legend: { color: "shared" } },
    config: {
      ...baseConfig,
      view: { stroke: null },
    },
  };
  return spec as VegaLiteSpec;
}

/**
 * Heatmaps side by side from per-panel cells, already reduced to two parameters
 * (normally at the best value of the third): all three panels, or the ones given (a
 * grid that varies two multipliers has a single pair worth drawing). Multipliers are
 * categorical, log-spaced axes; colour and the printed number are BCA (%) on one colour
 * scale shared by the panels, so the panels compare directly.
 */
export function sensitivityHeatmapPanels(
  panels: Partial<SensitivityPanels>,
  options: SensitivityHeatmapOptions = {},
): VegaLiteSpec {
  checkRecord("panels", panels);
  const keys = PANELS.map((info) => info.key as string);
  for (const key of Object.keys(panels)) {
    if (!keys.includes(key)) {
      throw new ValidationError(
        `panels.${key}`,
        `'panels.${key}' is not a panel; the panels are ${keys.join(", ")}.`,
      );
    }
  }
  const checked: Partial<Record<PanelKey, PairCell[]>> = {};
  for (const info of PANELS) {
    const cells = panels[info.key];
    if (cells !== undefined) checked[info.key] = checkPairCells(`panels.${info.key}`, cells);
  }
  if (Object.keys(checked).length === 0) {
    throw new ValidationError("panels", `'panels' must give at least one of ${keys.join(", ")}.`);
  }
  return heatmapSpec(checked, {}, options);
}

function checkReduction(
  argument: string,
  value: unknown,
): asserts value is ThirdParameterReduction {
  if (value !== "best" && value !== "max" && value !== "mean") {
    refuse(argument, 'one of "best", "max", "mean"', value);
  }
}

/** Reduces a full (a, b, c) grid to the three panels; see `ThirdParameterReduction`. */
export function reduceSensitivityGrid(
  cells: readonly ParameterGridCell[],
  reduce: ThirdParameterReduction = "best",
): { panels: SensitivityPanels; fixed?: { a: number; b: number; c: number } } {
  checkNonEmptyArray<ParameterGridCell>("cells", cells);
  checkReduction("reduce", reduce);
  const seen = new Set<string>();
  const checked = cells.map((cell, i) => {
    const at = `cells[${i}]`;
    checkRecord(at, cell);
    const [a, b, c] = checkMultipliers(at, cell, ["a", "b", "c"]);
    const bca = checkBca(`${at}.bca`, cell.bca);
    // Only the slice through the best cell needs one BCA per grid point.
    if (reduce === "best") {
      checkUnique(seen, `${a},${b},${c}`, at, () => {
        return `the grid point (a, b, c) = (${a}, ${b}, ${c}); with reduce "best" pass one BCA per grid point, or use "max" or "mean".`;
      });
    }
    return { a, b, c, bca };
  });

  if (reduce === "best") {
    let best = checked[0]!;
    for (const cell of checked) if (cell.bca > best.bca) best = cell;
    const panels = {} as Record<PanelKey, PairCell[]>;
    for (const info of PANELS) {
      panels[info.key] = checked
        .filter((cell) => cell[info.third] === best[info.third])
        .map((cell) => ({ x: cell[info.x], y: cell[info.y], bca: cell.bca }));
    }
    return { panels, fixed: { a: best.a, b: best.b, c: best.c } };
  }

  const panels = {} as Record<PanelKey, PairCell[]>;
  for (const info of PANELS) {
    const groups = new Map<string, { x: number; y: number; sum: number; max: number; n: number }>();
    for (const cell of checked) {
      const key = `${cell[info.x]},${cell[info.y]}`;
      const group = groups.get(key);
      if (group === undefined) {
        groups.set(key, { x: cell[info.x], y: cell[info.y], sum: cell.bca, max: cell.bca, n: 1 });
      } else {
        group.sum += cell.bca;
        group.max = Math.max(group.max, cell.bca);
        group.n += 1;
      }
    }
    panels[info.key] = [...groups.values()].map((g) => ({
      x: g.x,
      y: g.y,
      bca: reduce === "max" ? g.max : g.sum / g.n,
    }));
  }
  return { panels };
}

/**
 * Fig. 2 from a full grid of (α, β, δ) multipliers with their BCA (normally the test BCA
 * averaged over datasets, at the best k). The third parameter of each panel is collapsed
 * as `options.reduce` says (default "best": the paper's slice through the best cell,
 * whose value is shown under each panel title).
 */
export function sensitivityHeatmaps(
  cells: readonly ParameterGridCell[],
  options: SensitivityGridOptions = {},
): VegaLiteSpec {
  checkRecord("options", options);
  const reduce = options.reduce ?? "best";
  checkReduction("options.reduce", reduce);
  const { panels, fixed } = reduceSensitivityGrid(cells, reduce);
  const notes: Partial<Record<PanelKey, string>> = {};
  for (const info of PANELS) {
    notes[info.key] =
      fixed !== undefined
        ? `${info.thirdSymbol} multiplier = ${gridLabel(fixed[info.third])}`
        : `${reduce === "max" ? "best" : "mean"} over ${info.thirdSymbol}`;
  }
  return heatmapSpec(
    {
      betaDelta: [...panels.betaDelta],
      alphaDelta: [...panels.alphaDelta],
      alphaBeta: [...panels.alphaBeta],
    },
    notes,
    options,
  );
}

/**
 * One point of a one-parameter sensitivity profile: in panel `panel` (a data set), the
 * BCA (a fraction) of line `line` ("test", "validation", ...) at parameter value `value`,
 * with an optional standard deviation drawn as an error bar.
 */
export interface ProfilePlotPoint {
  panel: string;
  line: string;
  value: number;
  bca: number;
  std?: number;
}

export interface SensitivityProfileOptions {
  title?: string;
  subtitle?: string;
  /** Title of the horizontal axis, e.g. "δ multiplier" (default "parameter value"). */
  xTitle?: string;
  /** Width and height of one panel in pixels (defaults 200 x 160). */
  width?: number;
  height?: number;
  /** Panels per row (default: all in one row up to 4, else 3). */
  columns?: number;
}

interface ProfileRow {
  panel: string;
  line: string;
  x: string;
  bcaPercent: number;
  lower?: number;
  upper?: number;
}

/**
 * A grid of small panels, one per data set, each showing BCA (%) against the values of
 * one parameter (categorical, in ascending order, so log-spaced multipliers are evenly
 * spaced), one coloured line per `line`. Each panel has its own BCA axis: the data sets
 * differ by tens of points, and the figure is about the change within each. For grids
 * that vary a single parameter, where a two-parameter heatmap would be constant along
 * one axis.
 */
export function sensitivityProfiles(
  points: readonly ProfilePlotPoint[],
  options: SensitivityProfileOptions = {},
): VegaLiteSpec {
  const { title, subtitle } = figureInputs("points", points, options);
  const xTitle = checkOptionalText("options.xTitle", options.xTitle) ?? "parameter value";
  const width = checkSize("options.width", options.width, 200);
  const height = checkSize("options.height", options.height, 160);

  const rows: ProfileRow[] = [];
  const seen = new Set<string>();
  const values: number[] = [];
  points.forEach((point, i) => {
    const at = `points[${i}]`;
    checkRecord(at, point);
    const panel = checkName(`${at}.panel`, point.panel);
    const line = checkName(`${at}.line`, point.line);
    const value = checkFinite(`${at}.value`, point.value);
    const bca = checkBca(`${at}.bca`, point.bca);
    checkUnique(seen, JSON.stringify([panel, line, value]), at, () => {
      return `(${show(panel)}, ${show(line)}, ${value}); 'points' must have one BCA per panel, line and value.`;
    });
    values.push(value);
    const row: ProfileRow = { panel, line, x: gridLabel(value), bcaPercent: 100 * bca };
    if (point.std !== undefined) Object.assign(row, bcaBand(`${at}.std`, bca, point.std));
    rows.push(row);
  });
  const panels = [...new Set(rows.map((r) => r.panel))];
  const lines = [...new Set(rows.map((r) => r.line))];
  let columns = panels.length <= 4 ? panels.length : 3;
  if (options.columns !== undefined) {
    const c = checkFinite("options.columns", options.columns);
    if (!Number.isInteger(c) || c < 1) {
      refuse("options.columns", "a positive integer", c);
    }
    columns = c;
  }
  const xLabels = sortedLabels(values);
  const palette = categoricalPalette(lines.length);
  const color = {
    field: "line",
    type: "nominal" as const,
    title: null,
    scale: cyclingScale(lines, palette),
  };
  const x = {
    field: "x",
    type: "ordinal" as const,
    title: xTitle,
    sort: xLabels,
    scale: { domain: xLabels },
    axis: { labelAngle: 0 },
  };
  const y = {
    field: "bcaPercent",
    type: "quantitative" as const,
    title: "BCA (%)",
    scale: { zero: false, nice: true },
  };
  const layers: object[] = [];
  if (rows.some((r) => r.lower !== undefined)) {
    // Each panel has its own axis: the bars' layer may be empty in none of them.
    fillEmptyPanels(
      rows,
      (r) => r.lower !== undefined,
      (r) => {
        r.lower = r.bcaPercent;
        r.upper = r.bcaPercent;
      },
    );
    layers.push({
      transform: [{ filter: "isValid(datum.lower)" }],
      mark: { type: "rule", strokeWidth: 1.2, opacity: 0.7 },
      encoding: {
        x,
        y: { field: "lower", type: "quantitative", title: "BCA (%)" },
        y2: { field: "upper" },
        color,
      },
    });
  }
  layers.push(
    { mark: { type: "line", strokeWidth: 1.8 }, encoding: { x, y, color } },
    {
      mark: { type: "point", filled: true, size: 40, opacity: 1 },
      encoding: { x, y, color },
    },
  );
  const spec = {
    $schema: VEGA_LITE_SCHEMA,
    ...titleBlock(title, subtitle),
    data: { values: rows },
    facet: panelFacet(panels),
    columns,
    spec: { width, height, layer: layers },
    resolve: { scale: { y: "independent" } },
    config: { ...baseConfig, legend: { ...baseConfig.legend, orient: "bottom" } },
  };
  return spec as VegaLiteSpec;
}
