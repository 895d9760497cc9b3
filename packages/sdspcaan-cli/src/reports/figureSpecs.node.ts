/**
 * The report's figures of the results, as vega-lite specifications: BCA versus k
 * (Fig. 1: the mean over data sets, and one panel per data set) and the sensitivity
 * to the grid's parameters (Fig. 2).
 */
import { type BcaAtK, bcaVersusKFigure } from "../plot/bcaVersusK.js";
import type { VegaLiteSpec } from "../plot/render.js";
import {
  type ProfilePlotPoint,
  type SensitivityPanels,
  sensitivityHeatmapPanels,
  sensitivityProfiles,
} from "../plot/sensitivity.js";
import { type ParamName, tunedParams } from "../protocol/grids.js";
import { gridPoints, type RunSettings } from "../protocol/plan.js";
import type { FitRecord } from "../protocol/records.js";
import {
  bcaVersusK,
  type CommonCurves,
  commonCurves,
  sensitivityProfile,
  sensitivitySurface,
  variedParams,
} from "./figures.js";
import { methodTitle } from "./report.js";

/** The curves of Fig. 1, the data sets in the run's order, and their common average if any. */
function bcaVersusKLayout(
  records: readonly FitRecord[],
  settings: RunSettings | null,
  methods: readonly string[] | undefined,
) {
  const grid = settings ? (m: string) => gridPoints(m, settings.grid) : undefined;
  const curves = bcaVersusK(records, {
    ...(grid ? { grid } : {}),
    ...(methods ? { methods } : {}),
  });
  const present = new Set(records.map((r) => r.dataset));
  // The run's order of data sets (and so of the panels), else the order of the records.
  const datasets = settings
    ? settings.datasets.map((d) => d.name).filter((d) => present.has(d))
    : [...present];
  const single = datasets.length === 1;
  const found = single ? null : commonCurves(curves, datasets);
  // A "mean" over one of several data sets would be that data set under another name.
  const common = found !== null && found.datasets.length >= 2 ? found : null;
  return { curves, datasets, single, common };
}

/**
 * Whether Fig. 1 of these records is the mean over data sets, so that a figure with a
 * panel per data set says something beside it; without a common average Fig. 1 is
 * already that figure.
 */
export function bcaVersusKIsAverage(
  records: readonly FitRecord[],
  settings: RunSettings | null,
  methods?: readonly string[],
): boolean {
  return bcaVersusKLayout(records, settings, methods).common !== null;
}

/**
 * Fig. 1 from records: one line per method, ± std over data sets (or over repeats for
 * one). Every point of every line averages the same data sets (`commonCurves`): the
 * paper's average changes the data sets it averages from one k to the next (Yale
 * allows only k = 20, 30, ORL only 40..80), so its dips and jumps would show which
 * data sets are in the mean. The subtitle names the data sets averaged and what was
 * left out and why. When no two data sets share a k for the methods, or with
 * `perDataset`, one panel per data set, ± std over repeats.
 */
export function bcaVersusKSpec(
  records: readonly FitRecord[],
  settings: RunSettings | null,
  methods?: readonly string[],
  how: { readonly perDataset?: boolean } = {},
): ReturnType<typeof bcaVersusKFigure> {
  const {
    curves,
    datasets,
    single,
    common: averaged,
  } = bcaVersusKLayout(records, settings, methods);
  const common = how.perDataset === true ? null : averaged;
  const series: BcaAtK[] = [];
  if (how.perDataset === true || (!single && common === null)) {
    for (const dataset of datasets) {
      for (const curve of curves) {
        for (const p of curve.perDataset[dataset] ?? []) {
          const method = methodTitle(curve.method);
          series.push({ panel: dataset, method, k: p.k, bca: p.mean, std: p.std });
        }
      }
    }
    return bcaVersusKFigure(series, {
      // The legend in the table's order, whichever panel comes first.
      methodOrder: curves
        .map((c) => methodTitle(c.method))
        .filter((m) => series.some((p) => p.method === m)),
      title: "Test BCA versus subspace dimension k, per data set",
      subtitle:
        how.perDataset === true
          ? "Mean ± std over repeats at each valid k, hyperparameters chosen on validation at each k"
          : "Mean ± std over repeats at each valid k; no two data sets share a k for the methods, so there is no common average over data sets",
    });
  }
  if (single) {
    for (const curve of curves) {
      for (const p of curve.perDataset[datasets[0]] ?? []) {
        series.push({ method: methodTitle(curve.method), k: p.k, bca: p.mean, std: p.std });
      }
    }
    return bcaVersusKFigure(series, {
      title: "Test BCA versus subspace dimension k",
      subtitle: `${datasets[0]}: mean ± std over repeats, hyperparameters chosen on validation at each k`,
    });
  }
  const shown = common as NonNullable<typeof common>;
  for (const curve of shown.curves) {
    for (const p of curve.points) {
      series.push({ method: methodTitle(curve.method), k: p.k, bca: p.mean, std: p.std });
    }
  }
  return bcaVersusKFigure(series, {
    title: "Test BCA versus subspace dimension k",
    subtitle: commonCurvesSubtitle(shown),
  });
}

function kList(ks: readonly number[]): string {
  return ks.length === 1 ? `k = ${ks[0]}` : `k = ${ks.join(", ")}`;
}

/** What the averaged Fig. 1 averages, and what it leaves out and why, one line each. */
export function commonCurvesSubtitle(common: CommonCurves): string {
  const lines = [
    `Mean over the same ${common.datasets.length} data sets at every point (${common.datasets.join(", ")}; ± std across them), hyperparameters chosen on validation at each k`,
  ];
  const left: string[] = [];
  for (const m of common.leftOutMethods) {
    left.push(`${methodTitle(m.method)} (no results on ${m.missing.join(", ")})`);
  }
  for (const d of common.leftOutDatasets) {
    left.push(
      d.missingMethods.length > 0
        ? `${d.dataset} (no ${d.missingMethods.map(methodTitle).join(", ")})`
        : `${d.dataset} (only ${kList(d.ks)})`,
    );
  }
  if (common.leftOutKs.length > 0) {
    left.push(`${kList(common.leftOutKs)} (not valid on all of them)`);
  }
  if (left.length > 0) lines.push(`Left out: ${left.join("; ")}`);
  return lines.join("\n");
}

const SYMBOL: Readonly<Record<ParamName, string>> = {
  alpha: "α",
  beta: "β",
  delta: "δ",
  eta: "η",
};

function paramTitle(p: ParamName): string {
  return p === "eta" ? "η" : `${SYMBOL[p]} multiplier`;
}

/** The heatmap panels of Fig. 2, in the paper's order, by the pair of parameters they show. */
const PAIRS: ReadonlyArray<[keyof SensitivityPanels, ParamName, ParamName]> = [
  ["betaDelta", "beta", "delta"],
  ["alphaDelta", "alpha", "delta"],
  ["alphaBeta", "alpha", "beta"],
];

/**
 * Fig. 2 for a method (default SDSPCAAN) over the parameters its grid actually varied,
 * or null when it varied none. Three varied multipliers give the paper's three
 * heatmaps; two give the one heatmap of that pair; one (the authors' grid varies only
 * delta) gives its profile per data set, test and validation BCA, since a heatmap
 * with a constant axis would say nothing.
 */
export function sensitivitySpec(
  records: readonly FitRecord[],
  settings: RunSettings | null,
  method = "sdspcaan",
): VegaLiteSpec | null {
  const own = records.filter((r) => r.method === method);
  const varied = variedParams(own, method);
  if (varied.length === 0) return null;
  const grid = settings ? (m: string) => gridPoints(m, settings.grid) : undefined;
  const datasets = [...new Set(own.map((r) => r.dataset))];
  const title = methodTitle(method);
  if (varied.length === 1) {
    const param = varied[0];
    const profile = sensitivityProfile(own, { method, param, ...(grid ? { grid } : {}) });
    const points: ProfilePlotPoint[] = [];
    let repeats = 0;
    for (const dataset of datasets) {
      for (const p of profile.perDataset[dataset] ?? []) {
        repeats = Math.max(repeats, p.n);
        points.push({
          panel: dataset,
          line: "test",
          value: p.value,
          bca: p.testMean,
          std: p.testStd,
        });
        points.push({ panel: dataset, line: "validation", value: p.value, bca: p.valMean });
      }
    }
    const others = tunedParams(method).filter((p) => p !== param);
    return sensitivityProfiles(points, {
      title: `${title}: BCA over ${SYMBOL[param]}, the only parameter the grid varied`,
      subtitle: `k${others.length > 0 ? ` and ${others.map((p) => SYMBOL[p]).join(", ")}` : ""} at each repeat's selected values; mean over ${repeats} repeat${repeats === 1 ? "" : "s"}, test ± std`,
      xTitle: paramTitle(param),
    });
  }
  const panels: Partial<SensitivityPanels> = {};
  const averaged = new Set<string>();
  const leftOut = new Set<string>();
  let leftOutCells = 0;
  for (const [key, x, y] of PAIRS) {
    if (!varied.includes(x) || !varied.includes(y)) continue;
    const surface = sensitivitySurface(own, { method, x, y, ...(grid ? { grid } : {}) });
    panels[key] = surface.cells.map((c) => ({ x: c.x, y: c.y, bca: c.mean }));
    for (const d of surface.datasets) averaged.add(d);
    for (const d of surface.leftOutDatasets) leftOut.add(d);
    leftOutCells += surface.leftOutCells;
  }
  const used = datasets.filter((d) => averaged.has(d));
  const where =
    (used.length === 1
      ? used[0]
      : `mean over the same ${used.length} data sets in every cell${used.length <= 6 ? ` (${used.join(", ")})` : ""}`) +
    (leftOut.size > 0 ? `; left out: ${[...leftOut].join(", ")} (missing some cells)` : "") +
    (leftOutCells > 0
      ? `; ${leftOutCells} cell${leftOutCells === 1 ? "" : "s"} left out (missing on some data set)`
      : "");
  const count = Object.keys(panels).length;
  return sensitivityHeatmapPanels(panels, {
    title:
      count === 1
        ? `${title}: test BCA over the two multipliers the grid varied`
        : `${title}: test BCA over pairs of its multipliers`,
    subtitle:
      count === 1
        ? `${where}; k at its selected value`
        : `${where}; k and the third multiplier at their selected values`,
  });
}
