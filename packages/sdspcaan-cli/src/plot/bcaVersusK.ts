/**
 * The paper's Fig. 1: test BCA (averaged over datasets) against the subspace
 * dimension k, one line per method; or one panel per dataset, when each has its
 * own range of valid k and an average would change datasets from one k to the next.
 */
import { ValidationError } from "sdspcaan";
import {
  bcaBand,
  checkBca,
  checkDomain,
  checkName,
  checkPositive,
  checkRecord,
  checkSize,
  checkUnique,
  figureInputs,
  refuse,
  show,
} from "./check.js";
import type { VegaLiteSpec } from "./render.js";
import {
  baseConfig,
  categoricalPalette,
  cyclingScale,
  fillEmptyPanels,
  panelFacet,
  SHAPES,
  spreadPalette,
  titleBlock,
  VEGA_LITE_SCHEMA,
} from "./style.js";

/** One point of one method's curve. `bca` and `std` are fractions (0.8 means 80 %). */
export interface BcaAtK {
  method: string;
  k: number;
  bca: number;
  /**
   * The panel (dataset) the point belongs to. When points carry it (all or none), the
   * figure has one panel per value, each with its own BCA axis.
   */
  panel?: string;
  /** Standard deviation of the BCA (same units as `bca`); drawn as a band around the line. */
  std?: number;
}

export interface BcaVersusKOptions {
  title?: string;
  subtitle?: string;
  /** Plot width and height in pixels (defaults 440 x 300). */
  width?: number;
  height?: number;
  /** Draw mean ± std bands for points that carry `std` (default true). */
  errorBands?: boolean;
  /**
   * Order of methods in the legend and palette; default: order of first appearance.
   * Must list every method in `series` exactly once when given.
   */
  methodOrder?: readonly string[];
  /** Y-axis range in percent; default: the data's range padded a little, not forced to 0. */
  yDomain?: readonly [number, number];
}

interface Row {
  panel?: string;
  method: string;
  k: number;
  bcaPercent: number;
  lower?: number;
  upper?: number;
  /**
   * The bar of the std, where the band has no width: at the only k of its method (in its
   * panel); else a bar of no length in a panel with no such k (fillEmptyPanels).
   */
  barLower?: number;
  barUpper?: number;
}

function methodOrderOf(series: readonly BcaAtK[], given: readonly string[] | undefined): string[] {
  const seen = [...new Set(series.map((p) => p.method))];
  if (given === undefined) return seen;
  if (!Array.isArray(given)) {
    refuse("options.methodOrder", "an array of method names", given);
  }
  const order = [...given];
  const missing = seen.filter((m) => !order.includes(m));
  const extra = order.filter((m) => !seen.includes(m));
  if (missing.length > 0 || extra.length > 0 || new Set(order).size !== order.length) {
    throw new ValidationError(
      "options.methodOrder",
      `'options.methodOrder' must list each method of 'series' exactly once (${seen.map(show).join(", ")}). Got ${order.map(show).join(", ")} instead.`,
    );
  }
  return order;
}

function yDomainOf(rows: readonly Row[], given: readonly [number, number] | undefined): number[] {
  if (given !== undefined) return checkDomain("options.yDomain", given);
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const r of rows) {
    lo = Math.min(lo, r.lower ?? r.bcaPercent);
    hi = Math.max(hi, r.upper ?? r.bcaPercent);
  }
  // Differences of a point or two between methods are the story of the figure, so the
  // axis hugs the data instead of starting at zero.
  const pad = Math.max(1, 0.06 * (hi - lo));
  return [Math.max(0, Math.floor(lo - pad)), Math.min(100, Math.ceil(hi + pad))];
}

/**
 * Vega-Lite spec of BCA (%) versus k: one coloured line with markers per method (colour
 * and marker shape both identify the method, so the figure survives grey-scale
 * printing), optional ±std bands, legend "Method". Duplicate (method, k) pairs are an
 * error: they would draw a zig-zag.
 */
export function bcaVersusKFigure(
  series: readonly BcaAtK[],
  options: BcaVersusKOptions = {},
): VegaLiteSpec {
  const { title, subtitle } = figureInputs("series", series, options);
  const paneledSeries = series[0]?.panel !== undefined;
  // Sizes are per panel; several panels side by side each get a smaller plot.
  const width = checkSize("options.width", options.width, paneledSeries ? 260 : 440);
  const height = checkSize("options.height", options.height, paneledSeries ? 200 : 300);
  const bands = options.errorBands ?? true;
  if (typeof bands !== "boolean") {
    refuse("options.errorBands", "a boolean", bands);
  }

  const rows: Row[] = [];
  const seenPairs = new Set<string>();
  const paneled = paneledSeries;
  series.forEach((point, i) => {
    const at = `series[${i}]`;
    checkRecord(at, point);
    checkName(`${at}.method`, point.method);
    if (paneled !== (point.panel !== undefined)) {
      refuse(`${at}.panel`, "given on every point of 'series' or on none", point.panel);
    }
    if (paneled) checkName(`${at}.panel`, point.panel);
    const k = checkPositive(`${at}.k`, point.k);
    const bca = checkBca(`${at}.bca`, point.bca);
    checkUnique(seenPairs, JSON.stringify([point.panel ?? null, point.method, k]), at, () => {
      const where = paneled ? ` in panel ${show(point.panel)}` : "";
      return `method ${show(point.method)} at k = ${k}${where}; 'series' must have one point per (${paneled ? "panel, " : ""}method, k).`;
    });
    const row: Row = {
      ...(paneled ? { panel: point.panel as string } : {}),
      method: point.method,
      k,
      bcaPercent: 100 * bca,
    };
    if (point.std !== undefined) {
      const band = bcaBand(`${at}.std`, bca, point.std);
      if (bands) Object.assign(row, band);
    }
    rows.push(row);
  });

  // Panels in order of first appearance in 'series' (rows are re-sorted below).
  const panels = [...new Set(rows.map((r) => r.panel))];
  const methods = methodOrderOf(series, options.methodOrder);
  const rank = new Map(methods.map((m, i) => [m, i]));
  rows.sort((p, q) => rank.get(p.method)! - rank.get(q.method)! || p.k - q.k);
  // Panels (datasets) differ by tens of points, so each gets its own axis fitted to its
  // data, unless the caller fixes one range for all.
  const yScale =
    paneled && options.yDomain === undefined
      ? { zero: false, nice: true }
      : { domain: yDomainOf(rows, options.yDomain), zero: false, nice: false };

  const ks = [...new Set(rows.map((r) => r.k))].sort((p, q) => p - q);
  const allIntegers = ks.every((k) => Number.isInteger(k));
  const kMin = ks[0]!;
  const kMax = ks[ks.length - 1]!;
  const kPad = kMax > kMin ? 0.03 * (kMax - kMin) : 1;

  const palette =
    methods.length <= 20 ? categoricalPalette(methods.length) : spreadPalette(methods.length);
  const color = {
    field: "method",
    type: "nominal" as const,
    title: "Method",
    scale: cyclingScale(methods, palette),
  };
  const shape = {
    field: "method",
    type: "nominal" as const,
    title: "Method",
    scale: cyclingScale(methods, SHAPES),
  };
  const y = {
    field: "bcaPercent",
    type: "quantitative" as const,
    title: "BCA (%)",
    scale: yScale,
    axis: { tickCount: paneled ? 6 : 8 },
  };

  const pointsOf = new Map<string, number>();
  const curveOf = (r: Row) => JSON.stringify([r.panel ?? null, r.method]);
  for (const r of rows) pointsOf.set(curveOf(r), (pointsOf.get(curveOf(r)) ?? 0) + 1);
  for (const r of rows) {
    if (r.lower !== undefined && pointsOf.get(curveOf(r)) === 1) {
      r.barLower = r.lower;
      r.barUpper = r.upper;
    }
  }
  const hasBands = rows.some((r) => r.lower !== undefined);
  const hasBars = rows.some((r) => r.barLower !== undefined);
  // Panels with an axis each: no layer may be empty in any of them.
  const onPoint = (lower: "lower" | "barLower", upper: "upper" | "barUpper") => (r: Row) => {
    r[lower] = r.bcaPercent;
    r[upper] = r.bcaPercent;
  };
  if (hasBands) fillEmptyPanels(rows, (r) => r.lower !== undefined, onPoint("lower", "upper"));
  if (hasBars) {
    fillEmptyPanels(rows, (r) => r.barLower !== undefined, onPoint("barLower", "barUpper"));
  }

  const layers: object[] = [];
  if (hasBands) {
    layers.push({
      transform: [{ filter: "isValid(datum.lower)" }],
      mark: { type: "area", opacity: 0.1, interpolate: "linear" },
      encoding: {
        y: { field: "lower", type: "quantitative", title: "BCA (%)", scale: y.scale },
        y2: { field: "upper" },
        color,
      },
    });
  }
  if (hasBars) {
    layers.push({
      transform: [{ filter: "isValid(datum.barLower)" }],
      mark: { type: "rule", strokeWidth: 1.8 },
      encoding: {
        y: { field: "barLower", type: "quantitative", title: "BCA (%)", scale: y.scale },
        y2: { field: "barUpper" },
        color,
      },
    });
  }
  layers.push(
    {
      mark: { type: "line", strokeWidth: 1.8, interpolate: "linear" },
      encoding: { y, color },
    },
    {
      mark: {
        type: "point",
        filled: true,
        size: 48,
        opacity: 1,
        stroke: "white",
        strokeWidth: 0.6,
      },
      encoding: { y, color, shape },
    },
  );

  const legendColumns = methods.length > 24 ? 2 : 1;
  const encoding = {
    x: {
      field: "k",
      type: "quantitative",
      title: "Subspace dimension k",
      scale: { domain: [kMin - kPad, kMax + kPad], nice: false, zero: false },
      axis: {
        ...(ks.length <= 15 ? { values: ks } : {}),
        ...(allIntegers ? { format: "d" } : {}),
        grid: true,
      },
    },
  };
  const view = paneled
    ? {
        facet: panelFacet(panels),
        columns: panels.length <= 3 ? panels.length : panels.length === 4 ? 2 : 3,
        spec: { width, height, encoding, layer: layers },
        resolve: { scale: { y: options.yDomain === undefined ? "independent" : "shared" } },
      }
    : { width, height, encoding, layer: layers };
  const spec = {
    $schema: VEGA_LITE_SCHEMA,
    ...titleBlock(title, subtitle),
    data: { values: rows },
    ...view,
    config: {
      ...baseConfig,
      legend: {
        ...baseConfig.legend,
        columns: legendColumns,
        symbolSize: 70,
        symbolOpacity: 1,
        rowPadding: 3,
      },
    },
  };
  return spec as VegaLiteSpec;
}
