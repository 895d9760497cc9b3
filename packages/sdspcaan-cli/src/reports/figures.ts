/**
 * What the paper's figures plot, as pure aggregations of fit records.
 *
 * Fig. 1 (Section III-E, "we varied k in [10, 100] while keeping other parameters
 * (alpha, beta and delta) at their best value, and recorded the averaged test BCA
 * of all nine datasets"): for each method and k, the test BCA at the
 * hyperparameters with the best validation BCA at that k (ties: first in grid
 * order), averaged over repeats per dataset. Averaged over the datasets that have
 * that k (`KCurve.points`), a curve changes its datasets from one k to the next (a
 * small dataset such as Yale allows only k = 20, 30), so its dips and jumps show
 * which datasets are in the mean, not the effect of k; `commonCurves` averages every
 * point over one common set of datasets instead, and says what it left out.
 *
 * Fig. 2 (Section III-F, "we changed beta and delta, while keeping other
 * parameters (k and alpha) at their best value"): SDSPCAAN's test BCA over a pair
 * of its parameters, the remaining parameter and k held "at their best value",
 * averaged over repeats per dataset, then over datasets. Two readings:
 * - "selected" (default): k and the third parameter fixed at the values the
 *   protocol selected for that (dataset, repeat), so the cell of the selected pair
 *   is exactly the Table IV value;
 * - "best": for each pair value, k and the third parameter chosen again by
 *   validation BCA (selection restricted to the records with that pair).
 *
 * When a grid varies only one parameter (the authors' grid varies only delta), a
 * surface over two parameters would show constant rows; `sensitivityProfile` gives
 * the one-dimensional version: the BCA over the values of that parameter, k and the
 * other parameters held the same two ways, per dataset.
 */
import { ValidationError } from "sdspcaan";
import { type ParamName, tunableParams } from "../protocol/grids.js";
import type { FitRecord } from "../protocol/records.js";
import {
  bestPerK,
  dedupeRecords,
  type SelectionOptions,
  selectModel,
} from "../protocol/selection.js";
import { groupBy, mean, sampleStd } from "../protocol/stats.js";

export interface CurveOptions extends SelectionOptions {
  /** Methods to include (default: all in the records, in order of first appearance). */
  readonly methods?: readonly string[];
  /** Datasets to include (default: all in the records). */
  readonly datasets?: readonly string[];
}

/**
 * Mean test BCA at one k over the datasets that have it. Those datasets differ from
 * one k to the next, so points of one curve need not be comparable (see `commonCurves`).
 */
export interface KPoint {
  readonly k: number;
  /** Mean over datasets of the per-dataset mean over repeats. */
  readonly mean: number;
  /** Standard deviation (n - 1) of the per-dataset means (0 for one dataset). */
  readonly std: number;
  /** The datasets that contribute (those where this k was valid). */
  readonly datasets: readonly string[];
}

/** One dataset's curve: mean and std over repeats at each k. */
export interface DatasetKPoint {
  readonly k: number;
  readonly mean: number;
  readonly std: number;
  readonly n: number;
}

export interface KCurve {
  readonly method: string;
  /** Ascending k. */
  readonly points: readonly KPoint[];
  /** perDataset[dataset]: that dataset's curve, ascending k. */
  readonly perDataset: Readonly<Record<string, readonly DatasetKPoint[]>>;
}

function filterRecords(records: readonly FitRecord[], options: CurveOptions): FitRecord[] {
  const ds = options.datasets ? new Set(options.datasets) : null;
  const ms = options.methods ? new Set(options.methods) : null;
  return dedupeRecords(records).filter(
    (r) => (ds === null || ds.has(r.dataset)) && (ms === null || ms.has(r.method)),
  );
}

/** Fig. 1: test BCA versus k per method (see the file comment for the definition). */
export function bcaVersusK(records: readonly FitRecord[], options: CurveOptions = {}): KCurve[] {
  const used = filterRecords(records, options);
  const byMethod = groupBy(used, (r) => r.method);
  const methods = options.methods ?? [...byMethod.keys()];
  const out: KCurve[] = [];
  for (const method of methods) {
    const list = byMethod.get(method);
    if (!list) continue;
    const perDataset: Record<string, DatasetKPoint[]> = {};
    for (const [dataset, dsRecords] of groupBy(list, (r) => r.dataset)) {
      const atK = new Map<number, number[]>();
      for (const group of groupBy(dsRecords, (r) => String(r.repeat)).values()) {
        for (const c of bestPerK(group, options)) {
          const arr = atK.get(c.k);
          if (arr) arr.push(c.testBCA);
          else atK.set(c.k, [c.testBCA]);
        }
      }
      perDataset[dataset] = [...atK.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([k, v]) => ({ k, mean: mean(v), std: sampleStd(v), n: v.length }));
    }
    const ks = new Map<number, Array<{ dataset: string; mean: number }>>();
    for (const [dataset, curve] of Object.entries(perDataset)) {
      for (const p of curve) {
        const arr = ks.get(p.k);
        if (arr) arr.push({ dataset, mean: p.mean });
        else ks.set(p.k, [{ dataset, mean: p.mean }]);
      }
    }
    const points = [...ks.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([k, v]) => ({
        k,
        mean: mean(v.map((x) => x.mean)),
        std: sampleStd(v.map((x) => x.mean)),
        datasets: v.map((x) => x.dataset),
      }));
    out.push({ method, points, perDataset });
  }
  return out;
}

/** Fig. 1 averaged over one set of datasets, the same for every point of every curve. */
export interface CommonCurves {
  /** The datasets every point averages over, in the order given. */
  readonly datasets: readonly string[];
  /** One curve per method drawn: its points at the k valid on all of `datasets`. */
  readonly curves: ReadonlyArray<{ readonly method: string; readonly points: readonly KPoint[] }>;
  /** Methods not drawn, with the datasets where they have no result at all. */
  readonly leftOutMethods: ReadonlyArray<{
    readonly method: string;
    readonly missing: readonly string[];
  }>;
  /**
   * Datasets not averaged, and why: some drawn method has no result there
   * (`missingMethods`), or it shares too few k with the others (`ks`: the k it has).
   */
  readonly leftOutDatasets: ReadonlyArray<{
    readonly dataset: string;
    readonly missingMethods: readonly string[];
    readonly ks: readonly number[];
  }>;
  /** k that some averaged dataset has but not all (so no curve shows them). */
  readonly leftOutKs: readonly number[];
}

/** Above this many datasets the common set is found greedily instead of by trying every subset. */
const COMMON_SUBSET_SEARCH_MAX = 12;

/**
 * The curves of Fig. 1 with every point averaged over the same datasets: among the
 * subsets D of `datasets` (all of them, up to 12 datasets; greedily above), the one
 * that keeps the most points, where a method is drawn when it has results on every
 * dataset of D and its points are the k at which it has a result on every dataset of
 * D. Ties go to more methods, then more datasets, then the earlier datasets. So a
 * method without results on some datasets either drops out or takes those datasets
 * out of the mean, whichever keeps more of the figure, and each curve's shape comes
 * from k alone. Returns null when no method has a result on any dataset.
 */
export function commonCurves(
  curves: readonly KCurve[],
  datasets: readonly string[],
): CommonCurves | null {
  const ksOf = (c: KCurve, d: string): Set<number> =>
    new Set((c.perDataset[d] ?? []).map((p) => p.k));
  const table = curves.map((c) => datasets.map((d) => ksOf(c, d)));
  const evaluate = (chosen: readonly number[]) => {
    let points = 0;
    let methods = 0;
    const perMethod: Array<number[] | null> = curves.map((_, m) => {
      if (chosen.length === 0 || chosen.some((d) => table[m][d].size === 0)) return null;
      const ks = [...table[m][chosen[0]]].filter((k) => chosen.every((d) => table[m][d].has(k)));
      if (ks.length === 0) return null;
      points += ks.length * chosen.length;
      methods++;
      return ks.sort((a, b) => a - b);
    });
    return { chosen, points, methods, perMethod };
  };
  type Choice = ReturnType<typeof evaluate>;
  const better = (a: Choice, b: Choice | null): boolean =>
    b === null ||
    a.points > b.points ||
    (a.points === b.points &&
      (a.methods > b.methods || (a.methods === b.methods && a.chosen.length > b.chosen.length)));
  let best: Choice | null = null;
  const n = datasets.length;
  if (n <= COMMON_SUBSET_SEARCH_MAX) {
    // Masks in decreasing order: at equal scores the earlier datasets stay.
    for (let mask = (1 << n) - 1; mask > 0; mask--) {
      const chosen: number[] = [];
      for (let d = 0; d < n; d++) if (mask & (1 << (n - 1 - d))) chosen.push(d);
      const c = evaluate(chosen);
      if (better(c, best)) best = c;
    }
  } else {
    let current = evaluate(datasets.map((_, d) => d));
    for (;;) {
      let step: Choice | null = null;
      for (const drop of current.chosen) {
        const c = evaluate(current.chosen.filter((d) => d !== drop));
        if (better(c, step)) step = c;
      }
      if (step === null || !better(step, current) || step.points === current.points) break;
      current = step;
    }
    best = current;
  }
  if (best === null || best.points === 0) return null;
  const chosen = best.chosen;
  const names = chosen.map((d) => datasets[d]);
  const drawn: CommonCurves["curves"][number][] = [];
  const leftOutMethods: Array<{ method: string; missing: string[] }> = [];
  const shownKs = new Set<number>();
  curves.forEach((c, m) => {
    const ks = best.perMethod[m];
    if (ks === null) {
      const lacking = datasets.filter((_, d) => table[m][d].size === 0);
      leftOutMethods.push({ method: c.method, missing: lacking });
      return;
    }
    const points = ks.map((k) => {
      const means = names.map(
        (d) => (c.perDataset[d] as DatasetKPoint[]).find((p) => p.k === k)?.mean as number,
      );
      shownKs.add(k);
      return { k, mean: mean(means), std: sampleStd(means), datasets: names };
    });
    drawn.push({ method: c.method, points });
  });
  const drawnIndex = curves.map((_, m) => best.perMethod[m] !== null);
  const leftOutDatasets = datasets
    .map((dataset, d) => ({ dataset, d }))
    .filter(({ d }) => !chosen.includes(d))
    .map(({ dataset, d }) => ({
      dataset,
      missingMethods: curves
        .filter((_, m) => drawnIndex[m] && table[m][d].size === 0)
        .map((c) => c.method),
      ks: [...new Set(curves.flatMap((_, m) => (drawnIndex[m] ? [...table[m][d]] : [])))].sort(
        (a, b) => a - b,
      ),
    }));
  const averagedKs = new Set(
    curves.flatMap((_, m) => (drawnIndex[m] ? chosen.flatMap((d) => [...table[m][d]]) : [])),
  );
  const leftOutKs = [...averagedKs].filter((k) => !shownKs.has(k)).sort((a, b) => a - b);
  return { datasets: names, curves: drawn, leftOutMethods, leftOutDatasets, leftOutKs };
}

/** What the sensitivity surfaces and profiles share. */
export interface HeldOptions extends SelectionOptions {
  /** Default "sdspcaan". */
  readonly method?: string;
  /** How k and the parameters not shown are held (see the file comment). Default "selected". */
  readonly others?: "selected" | "best";
  /** Datasets to include (default: all with records of the method). */
  readonly datasets?: readonly string[];
}

export interface SensitivityOptions extends HeldOptions {
  /** Parameter on the horizontal axis. */
  readonly x: ParamName;
  /** Parameter on the vertical axis. */
  readonly y: ParamName;
}

/** One cell of a sensitivity surface. */
export interface SurfaceCell {
  readonly x: number;
  readonly y: number;
  /** Mean over datasets of the per-dataset mean over repeats of the test BCA. */
  readonly mean: number;
  /** The same for the validation BCA. */
  readonly valMean: number;
  /** The datasets that contribute to this cell. */
  readonly datasets: readonly string[];
}

export interface SensitivitySurface {
  readonly method: string;
  readonly x: ParamName;
  readonly y: ParamName;
  readonly others: "selected" | "best";
  /** The values of x and y that occur, ascending. */
  readonly xValues: readonly number[];
  readonly yValues: readonly number[];
  /** Cells with data, x slowest then y, both ascending; all average the same datasets. */
  readonly cells: readonly SurfaceCell[];
  /** The datasets every cell averages over. */
  readonly datasets: readonly string[];
  /** Datasets left out because they lack some cell the others have. */
  readonly leftOutDatasets: readonly string[];
  /** Cells left out because some dataset lacks them (when that keeps more than dropping datasets). */
  readonly leftOutCells: number;
}

function checkParam(name: string, value: unknown): ParamName {
  const known = tunableParams();
  if (typeof value !== "string" || !known.includes(value)) {
    throw new ValidationError(
      name,
      `The '${name}' axis must be one of ${known.join(", ")}. Got ${JSON.stringify(value)} instead.`,
    );
  }
  return value as ParamName;
}

function checkOthers(value: unknown): "selected" | "best" {
  const others = value ?? "selected";
  if (others !== "selected" && others !== "best") {
    throw new ValidationError(
      "others",
      `The 'others' option must be "selected" or "best". Got ${JSON.stringify(others)} instead.`,
    );
  }
  return others;
}

/**
 * The records of `options.method` a sensitivity figure averages over the parameters
 * `varied` (`used`: all that have them), and of those, per (dataset, repeat), the
 * ones at the selected k and selected other parameters ("selected"), or the one
 * validation picks at each point of `varied` ("best").
 */
function heldRecords(
  records: readonly FitRecord[],
  options: HeldOptions,
  varied: readonly ParamName[],
): { method: string; others: "selected" | "best"; used: FitRecord[]; held: FitRecord[] } {
  const method = options.method ?? "sdspcaan";
  const others = checkOthers(options.others);
  const used = filterRecords(records, { ...options, methods: [method] }).filter((r) =>
    varied.every((p) => r.params[p] !== undefined),
  );
  const held: FitRecord[] = [];
  for (const group of groupBy(used, (r) => JSON.stringify([r.dataset, r.repeat])).values()) {
    if (others === "selected") {
      const sel = selectModel(group, options);
      const rest = tunableParams().filter((p) => !varied.includes(p));
      for (const r of group) {
        if (r.k === sel.k && rest.every((p) => r.params[p] === sel.params[p])) held.push(r);
      }
    } else {
      const byPoint = groupBy(group, (r) => varied.map((p) => String(r.params[p])).join("|"));
      for (const atPoint of byPoint.values()) held.push(selectModel(atPoint, options).record);
    }
  }
  return { method, others, used, held };
}

/** buckets[dataset][point]: the test and validation BCA of the records at that point. */
type Buckets<K> = Map<string, Map<K, { test: number[]; val: number[] }>>;

function addToBucket<K>(buckets: Buckets<K>, key: K, r: FitRecord): void {
  let m = buckets.get(r.dataset);
  if (!m) {
    m = new Map();
    buckets.set(r.dataset, m);
  }
  let b = m.get(key);
  if (!b) {
    b = { test: [], val: [] };
    m.set(key, b);
  }
  b.test.push(r.testBCA);
  b.val.push(r.valBCA);
}

/**
 * Fig. 2: mean test BCA of a method over a pair of its parameters, with k and the
 * remaining parameters held at their best value (see the file comment).
 */
export function sensitivitySurface(
  records: readonly FitRecord[],
  options: SensitivityOptions,
): SensitivitySurface {
  const x = checkParam("x", options.x);
  const y = checkParam("y", options.y);
  if (x === y) {
    throw new ValidationError("y", `The two axes must be different parameters. Got '${x}' twice.`);
  }
  const { method, others, used, held } = heldRecords(records, options, [x, y]);
  const cellKey = (xv: number, yv: number) => `${xv}|${yv}`;
  // perDataset[dataset][cell]: the test and validation BCA over repeats.
  const perDataset: Buckets<string> = new Map();
  for (const r of held) {
    addToBucket(perDataset, cellKey(r.params[x] as number, r.params[y] as number), r);
  }
  const xValues = [...new Set(used.map((r) => r.params[x] as number))].sort((a, b) => a - b);
  const yValues = [...new Set(used.map((r) => r.params[y] as number))].sort((a, b) => a - b);
  // Every cell must average the same datasets, or its colour would show which
  // datasets are in it: drop the datasets that lack a cell, or the cells some dataset
  // lacks, whichever keeps more (dataset, cell) values.
  const allKeys = new Set<string>();
  for (const m of perDataset.values()) for (const key of m.keys()) allKeys.add(key);
  const names = [...perDataset.keys()];
  const complete = names.filter(
    (d) => (perDataset.get(d) as Map<string, unknown>).size === allKeys.size,
  );
  const sharedKeys = [...allKeys].filter((key) => names.every((d) => perDataset.get(d)?.has(key)));
  const dropDatasets = complete.length * allKeys.size >= names.length * sharedKeys.length;
  const datasets = dropDatasets ? complete : names;
  const keys = new Set(dropDatasets ? allKeys : sharedKeys);
  const cells: SurfaceCell[] = [];
  for (const xv of xValues) {
    for (const yv of yValues) {
      const key = cellKey(xv, yv);
      if (!keys.has(key) || datasets.length === 0) continue;
      const tests: number[] = [];
      const vals: number[] = [];
      for (const dataset of datasets) {
        const c = perDataset.get(dataset)?.get(key) as { test: number[]; val: number[] };
        tests.push(mean(c.test));
        vals.push(mean(c.val));
      }
      cells.push({ x: xv, y: yv, mean: mean(tests), valMean: mean(vals), datasets });
    }
  }
  return {
    method,
    x,
    y,
    others,
    xValues,
    yValues,
    cells,
    datasets,
    leftOutDatasets: names.filter((d) => !datasets.includes(d)),
    leftOutCells: allKeys.size - keys.size,
  };
}

/** The three panels of Fig. 2: (beta, delta), (alpha, delta), (alpha, beta). */
export function sensitivitySurfaces(
  records: readonly FitRecord[],
  options: Omit<SensitivityOptions, "x" | "y"> = {},
): SensitivitySurface[] {
  const pairs: Array<[ParamName, ParamName]> = [
    ["beta", "delta"],
    ["alpha", "delta"],
    ["alpha", "beta"],
  ];
  return pairs.map(([x, y]) => sensitivitySurface(records, { ...options, x, y }));
}

export interface ProfileOptions extends HeldOptions {
  /** The parameter varied along the profile. */
  readonly param: ParamName;
}

/** One dataset's BCA at one value of the profiled parameter, over repeats. */
export interface ProfilePoint {
  readonly value: number;
  /** Mean and sample standard deviation (0 for one repeat) of the test BCA. */
  readonly testMean: number;
  readonly testStd: number;
  /** Mean of the validation BCA (what selection looked at). */
  readonly valMean: number;
  /** Repeats that contribute. */
  readonly n: number;
}

export interface SensitivityProfile {
  readonly method: string;
  readonly param: ParamName;
  readonly others: "selected" | "best";
  /** The values of the parameter that occur, ascending. */
  readonly values: readonly number[];
  /** perDataset[dataset]: ascending values, only those with data. */
  readonly perDataset: Readonly<Record<string, readonly ProfilePoint[]>>;
}

/**
 * The BCA of a method over the values of one of its parameters, per dataset, with
 * k and the other parameters held at their selected values ("selected": so the
 * point at the selected value is that repeat's Table IV fit) or chosen again by
 * validation BCA among the records with each value ("best").
 */
export function sensitivityProfile(
  records: readonly FitRecord[],
  options: ProfileOptions,
): SensitivityProfile {
  const param = checkParam("param", options.param);
  const { method, others, used, held } = heldRecords(records, options, [param]);
  // buckets[dataset][value]: the test and validation BCA, one entry per repeat.
  const buckets: Buckets<number> = new Map();
  for (const r of held) {
    addToBucket(buckets, r.params[param] as number, r);
  }
  const perDataset: Record<string, ProfilePoint[]> = {};
  for (const [dataset, m] of buckets) {
    perDataset[dataset] = [...m.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([value, b]) => ({
        value,
        testMean: mean(b.test),
        testStd: sampleStd(b.test),
        valMean: mean(b.val),
        n: b.test.length,
      }));
  }
  const values = [...new Set(used.map((r) => r.params[param] as number))].sort((a, b) => a - b);
  return { method, param, others, values, perDataset };
}

/** The parameters of a method that take more than one value in its records. */
export function variedParams(records: readonly FitRecord[], method: string): ParamName[] {
  const own = records.filter((r) => r.method === method);
  return tunableParams().filter(
    (p) => new Set(own.map((r) => r.params[p]).filter((v) => v !== undefined)).size > 1,
  );
}
