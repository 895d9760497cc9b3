/**
 * Demšar's critical-difference diagram (Demšar 2006, Fig. 1): an axis of average
 * ranks (1 = best, on the left), each method hanging off it by a line to its name on
 * the left (better half) or the right, thick bars joining the groups of methods whose
 * average ranks differ by less than the critical difference, and the CD itself drawn
 * as an interval above the axis.
 *
 * The layout is computed here in pixels (Vega-Lite with `scale: null`), because the
 * figure is a drawing, not a chart of data on scales: label widths decide the margins.
 */
import { ValidationError } from "sdspcaan";
import { criticalDifferenceGroups } from "../stats/rankTests.js";
import {
  checkFinite,
  checkName,
  checkRecord,
  checkUnique,
  figureInputs,
  refuse,
  show,
} from "./check.js";
import { figureFont } from "./fonts.js";
import type { VegaLiteSpec } from "./render.js";
import { baseConfig, titleBlock, VEGA_LITE_SCHEMA } from "./style.js";

/** One method and its average rank (1 = best). */
export interface RankedMethod {
  method: string;
  averageRank: number;
}

export interface CriticalDifferenceOptions {
  title?: string;
  subtitle?: string;
  /** Number of ranked positions on the axis; default: the number of methods. */
  positions?: number;
}

const LABEL_SIZE = 12;
const TICK_LABEL_SIZE = 11;
const LINE_GAP = 21;
const GROUP_GAP = 7;
const INK = "#222";
const GROUP_INK = "#000";

function textWidth(text: string, size: number): number {
  const font = figureFont();
  // Without a font file the SVG still renders; 0.62 em per character over-estimates
  // DejaVu-like faces slightly, which only widens the margin.
  return font ? font.regular.width(text, size) : 0.62 * size * text.length;
}

interface Segment {
  x: number;
  x2: number;
  y: number;
  y2: number;
}

interface Label {
  x: number;
  y: number;
  text: string;
}

/**
 * Vega-Lite spec of the critical-difference diagram for `methods` with critical
 * difference `cd` (same units as the ranks). The groups are computed here with
 * `criticalDifferenceGroups`, so the figure always agrees with the test. `cd` null
 * means no difference in average rank can be significant (an exact test with too few
 * data sets): one bar joins all methods, and the label above the axis says so in
 * place of a CD bar.
 */
export function criticalDifferenceDiagram(
  methods: readonly RankedMethod[],
  cd: number | null,
  options: CriticalDifferenceOptions = {},
): VegaLiteSpec {
  const { title, subtitle } = figureInputs("methods", methods, options);
  if (methods.length < 2) {
    throw new ValidationError("methods", "'methods' must hold at least 2 methods to compare.");
  }
  const k = options.positions ?? methods.length;
  if (!Number.isInteger(k) || k < 2) {
    refuse("options.positions", "an integer of at least 2", k);
  }
  const names = new Set<string>();
  methods.forEach((m, i) => {
    checkRecord(`methods[${i}]`, m);
    checkName(`methods[${i}].method`, m.method);
    checkUnique(names, m.method, `methods[${i}]`, () => `method ${show(m.method)}.`);
    const r = checkFinite(`methods[${i}].averageRank`, m.averageRank);
    if (r < 1 || r > k) {
      refuse(`methods[${i}].averageRank`, `in [1, ${k}]`, r);
    }
  });
  const critical = cd === null ? null : checkFinite("cd", cd);
  if (critical !== null && critical <= 0) {
    refuse("cd", "positive", critical);
  }

  const sorted = [...methods].sort(
    (a, b) => a.averageRank - b.averageRank || methods.indexOf(a) - methods.indexOf(b),
  );
  const groups =
    critical === null
      ? [sorted.map((_, i) => i)]
      : criticalDifferenceGroups(
          sorted.map((m) => m.averageRank),
          critical,
        );
  const leftCount = Math.ceil(sorted.length / 2);
  const labelOf = (m: RankedMethod) => `${m.method} (${m.averageRank.toFixed(2)})`;
  const widest = (list: readonly RankedMethod[]) =>
    Math.max(0, ...list.map((m) => textWidth(labelOf(m), LABEL_SIZE)));

  // Horizontal layout: [left labels][lead-in][axis][lead-in][right labels].
  const leadIn = 18;
  const leftMargin = widest(sorted.slice(0, leftCount)) + leadIn + 8;
  const rightMargin = widest(sorted.slice(leftCount)) + leadIn + 8;
  const axisWidth = Math.min(520, Math.max(260, 70 * (k - 1)));
  const x0 = leftMargin;
  const xAt = (rank: number) => x0 + ((rank - 1) / (k - 1)) * axisWidth;
  // The CD bar starts at rank 1; a CD wider than the axis is cut at its end, with
  // the label saying so, rather than drawn across the labels.
  const cdEnd = critical === null ? 1 : Math.min(k, 1 + critical);
  const cdLabel =
    critical === null
      ? "No CD: no difference can be significant"
      : `CD = ${critical.toFixed(2)}${1 + critical > k ? " (wider than the axis)" : ""}`;

  // Vertical layout: CD label, CD bar, tick labels, axis, group bars, method lines.
  const cdLabelY = 12;
  const cdBarY = 22;
  const tickLabelY = 42;
  const axisY = 54;
  const firstGroupY = axisY + 12;
  const firstLineY = firstGroupY + Math.max(0, groups.length - 1) * GROUP_GAP + 18;
  const rightCount = sorted.length - leftCount;
  const height = firstLineY + (Math.max(leftCount, rightCount) - 1) * LINE_GAP + 10;
  const width = x0 + axisWidth + rightMargin;

  const thin: Segment[] = [];
  const thick: Segment[] = [];
  const tickLabels: Label[] = [];
  const leftLabels: Label[] = [];
  const rightLabels: Label[] = [];

  thin.push({ x: x0, x2: x0 + axisWidth, y: axisY, y2: axisY });
  for (let r = 1; r <= k; r++) {
    thin.push({ x: xAt(r), x2: xAt(r), y: axisY - 6, y2: axisY });
    tickLabels.push({ x: xAt(r), y: tickLabelY, text: String(r) });
    if (r < k) thin.push({ x: xAt(r + 0.5), x2: xAt(r + 0.5), y: axisY - 3, y2: axisY });
  }
  if (critical !== null) {
    thin.push(
      { x: xAt(1), x2: xAt(cdEnd), y: cdBarY, y2: cdBarY },
      { x: xAt(1), x2: xAt(1), y: cdBarY - 4, y2: cdBarY + 4 },
      ...(cdEnd === 1 + critical
        ? [{ x: xAt(cdEnd), x2: xAt(cdEnd), y: cdBarY - 4, y2: cdBarY + 4 }]
        : []),
    );
  }
  const cdLabels: Label[] = [
    critical === null
      ? { x: x0 + axisWidth / 2, y: cdLabelY, text: cdLabel }
      : { x: (xAt(1) + xAt(cdEnd)) / 2, y: cdLabelY, text: cdLabel },
  ];

  // Lines of the better half go left, the best highest; the others go right, the
  // worst highest, so that no line crosses another.
  sorted.forEach((m, i) => {
    const x = xAt(m.averageRank);
    const onLeft = i < leftCount;
    const row = onLeft ? i : sorted.length - 1 - i;
    const y = firstLineY + row * LINE_GAP;
    const end = onLeft ? x0 - leadIn : x0 + axisWidth + leadIn;
    thin.push(
      { x, x2: x, y: axisY, y2: y },
      { x: Math.min(x, end), x2: Math.max(x, end), y, y2: y },
    );
    (onLeft ? leftLabels : rightLabels).push({
      x: onLeft ? end - 4 : end + 4,
      y,
      text: labelOf(m),
    });
  });

  groups.forEach((g, i) => {
    const y = firstGroupY + i * GROUP_GAP;
    thick.push({
      x: xAt(sorted[g[0]].averageRank) - 4,
      x2: xAt(sorted[g[g.length - 1]].averageRank) + 4,
      y,
      y2: y,
    });
  });

  const position = {
    x: { field: "x", type: "quantitative", scale: null },
    y: { field: "y", type: "quantitative", scale: null },
  };
  const rule = (values: Segment[], strokeWidth: number, color: string) => ({
    data: { values },
    mark: { type: "rule", strokeWidth, color, strokeCap: "butt" },
    encoding: {
      ...position,
      x2: { field: "x2" },
      y2: { field: "y2" },
    },
  });
  const text = (
    values: Label[],
    align: "left" | "right" | "center",
    size: number,
    baseline: "middle" | "alphabetic",
  ) => ({
    data: { values },
    mark: { type: "text", align, baseline, fontSize: size, color: INK },
    encoding: { ...position, text: { field: "text", type: "nominal" } },
  });
  const layers = [
    rule(thin, 1, INK),
    ...(thick.length > 0 ? [rule(thick, 4, GROUP_INK)] : []),
    text(tickLabels, "center", TICK_LABEL_SIZE, "alphabetic"),
    text(cdLabels, "center", TICK_LABEL_SIZE, "alphabetic"),
    text(leftLabels, "right", LABEL_SIZE, "middle"),
    ...(rightLabels.length > 0 ? [text(rightLabels, "left", LABEL_SIZE, "middle")] : []),
  ];
  const spec = {
    $schema: VEGA_LITE_SCHEMA,
    ...titleBlock(title, subtitle),
    width: Math.ceil(width),
    height: Math.ceil(height),
    layer: layers,
    config: { ...baseConfig, view: { stroke: null } },
  };
  return spec as VegaLiteSpec;
}
