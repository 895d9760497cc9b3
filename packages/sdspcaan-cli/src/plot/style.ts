/**
 * Look shared by all figures: sizes chosen so the PNG at scale 2 reads well when placed
 * at column width in a paper, and palettes that stay distinguishable in print.
 */
import type { Config } from "vega-lite";
import { TABLEAU10 } from "../palette.js";

export const VEGA_LITE_SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json";

export const baseConfig: Config = {
  background: "white",
  padding: 8,
  view: { stroke: "#888" },
  axis: {
    labelFontSize: 11,
    titleFontSize: 12,
    titleFontWeight: "normal",
    titlePadding: 8,
    labelColor: "#222",
    titleColor: "#111",
    tickColor: "#888",
    domainColor: "#888",
    gridColor: "#e4e4e4",
  },
  legend: {
    labelFontSize: 11,
    titleFontSize: 12,
    titleFontWeight: "normal",
    labelColor: "#222",
    titleColor: "#111",
    labelLimit: 220,
  },
  title: {
    fontSize: 14,
    fontWeight: "bold",
    subtitleFontSize: 11,
    subtitleColor: "#555",
    anchor: "middle",
    offset: 8,
  },
};

/** Tableau 20: ten hues, each in a dark and a light tone. */
export const TABLEAU20: readonly string[] = [
  "#4e79a7",
  "#a0cbe8",
  "#f28e2b",
  "#ffbe7d",
  "#59a14f",
  "#8cd17d",
  "#b6992d",
  "#f1ce63",
  "#499894",
  "#86bcb6",
  "#e15759",
  "#ff9d9a",
  "#79706e",
  "#bab0ac",
  "#d37295",
  "#fabfd2",
  "#b07aa1",
  "#d4a6c8",
  "#9d7660",
  "#d7b5a6",
];

/** Marker shapes that stay distinct at small sizes, in the order they are handed out. */
export const SHAPES: readonly string[] = [
  "circle",
  "square",
  "triangle-up",
  "diamond",
  "triangle-down",
  "cross",
  "triangle-right",
  "triangle-left",
];

/** The categorical palette with at least `n` colours, or Tableau 20 when none has enough. */
export function categoricalPalette(n: number): readonly string[] {
  return n <= TABLEAU10.length ? TABLEAU10 : TABLEAU20;
}

/** A vega-lite scale giving the values of `domain` the entries of `range` in turn, cycling. */
export function cyclingScale(
  domain: readonly string[],
  range: readonly string[],
): { domain: readonly string[]; range: string[] } {
  return { domain, range: domain.map((_, i) => range[i % range.length]!) };
}

/** The facet of a figure with one panel per value of its rows' `panel`, in `panels` order. */
export function panelFacet(panels: readonly (string | undefined)[]): object {
  return {
    field: "panel",
    type: "nominal",
    title: null,
    sort: panels,
    header: { labelFontSize: 12, labelFontWeight: "bold" },
  };
}

/**
 * Gives every panel of `rows` without a row that `has` one such row (its first, through
 * `fill`, which must make it draw nothing: a bar of no length). A layer filtered to some
 * rows (the std bars) would otherwise be empty in that panel, and Vega, computing the
 * panel's own BCA axis from every layer's fields, warns of an infinite extent
 * ("Infinite extent for field \"lower\": [Infinity, -Infinity]"). The filled row's bar
 * lies on its point, inside the axis the other rows give.
 */
export function fillEmptyPanels<R extends { readonly panel?: string }>(
  rows: readonly R[],
  has: (row: R) => boolean,
  fill: (row: R) => void,
): void {
  const covered = new Set(rows.filter(has).map((r) => r.panel));
  for (const row of rows) {
    if (covered.has(row.panel)) continue;
    fill(row);
    covered.add(row.panel);
  }
}

/**
 * `n` colours around the sinebow hue circle, visited with a stride coprime to `n` so
 * consecutive classes get far-apart hues, and every other colour darkened so neighbours
 * on the circle also differ in lightness. Used when a palette has too few colours.
 */
export function spreadPalette(n: number): string[] {
  let stride = Math.max(1, Math.round(n / 3));
  while (gcd(stride, n) !== 1) stride++;
  const hex = (v: number) =>
    Math.round(Math.max(0, Math.min(1, v)) * 255)
      .toString(16)
      .padStart(2, "0");
  const colours: string[] = [];
  for (let i = 0; i < n; i++) {
    const t = ((i * stride) % n) / n;
    const shade = i % 2 === 0 ? 0.95 : 0.62;
    const channel = (shift: number) => shade * Math.sin(Math.PI * (0.5 - t + shift)) ** 2;
    colours.push(`#${hex(channel(0))}${hex(channel(1 / 3))}${hex(channel(2 / 3))}`);
  }
  return colours;
}

function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Multipliers and similar grid values as short labels: 0.01, 0.1, 1, 10, 100. */
export function gridLabel(value: number): string {
  return String(Number(value.toPrecision(6)));
}

/**
 * The `title` property of a figure. Vega drops a title whose text is empty together with
 * its subtitle, so a subtitle on its own is drawn as the title in the subtitle's style.
 */
export function titleBlock(
  title: string | undefined,
  subtitle: string | undefined,
): { title?: object } {
  if (title !== undefined && title.length > 0) {
    // A subtitle with line breaks is drawn as that many lines (Vega-Lite takes an array).
    const lines = subtitle?.includes("\n") ? subtitle.split("\n") : subtitle;
    return { title: lines === undefined ? { text: title } : { text: title, subtitle: lines } };
  }
  if (subtitle !== undefined && subtitle.length > 0) {
    return { title: { text: subtitle, fontSize: 11, fontWeight: "normal", color: "#555" } };
  }
  return {};
}
