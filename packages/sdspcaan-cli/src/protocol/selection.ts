/**
 * Model selection of the protocol (SPEC 5): for each k, the hyperparameters with
 * the best validation BCA (ties: first in grid order); then the k with the best
 * validation BCA (ties: smallest k); the test BCA reported is the one of that fit.
 * Pure functions over fit records, which may arrive in any order.
 */
import { methodNames, ValidationError } from "sdspcaan";
import { plural } from "../plural.js";
import { type GridSpec, hyperparameterGrid, type Params, tunableParams } from "./grids.js";
import { type FitRecord, fitKey, paramsKey } from "./records.js";
import { groupBy } from "./stats.js";

/** Where the grid order (the tie rule among hyperparameters) comes from. */
export type GridOrder = GridSpec | ((method: string) => readonly Params[] | undefined);

export interface SelectionOptions {
  /**
   * The grid each method was run with, as a preset/custom spec or a function of
   * the method name. Ties between hyperparameters go to the earlier grid point.
   * Without it (or for a method the spec does not know), the order is the
   * canonical one of the presets: params compared in the order alpha, beta,
   * delta, eta, each ascending.
   */
  readonly grid?: GridOrder;
}

/** The best fit at one k. */
export interface KChoice {
  readonly k: number;
  readonly params: Params;
  readonly valBCA: number;
  readonly testBCA: number;
  readonly record: FitRecord;
}

/** The selected fit of one (dataset, repeat, method). */
export interface Selection extends KChoice {
  readonly dataset: string;
  readonly repeat: number;
  readonly method: string;
  /** The best fit at every k tried, ascending k. */
  readonly perK: readonly KChoice[];
}

function canonicalCompare(a: Params, b: Params): number {
  for (const p of tunableParams()) {
    const x = a[p];
    const y = b[p];
    if (x === y) continue;
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    return x - y;
  }
  return 0;
}

/** Grid order for one method: a comparator, and a check that params are on the grid. */
export interface GridRanking {
  /** Negative when `a` comes before `b` in the grid. */
  readonly compare: (a: Params, b: Params) => number;
  /** Throws when `p` is not a point of the grid (never, for the canonical order). */
  readonly check: (p: Params) => void;
}

/** The grid order of `method` (see SelectionOptions.grid). */
export function gridRanking(method: string, grid: GridOrder | undefined): GridRanking {
  let points: readonly Params[] | undefined;
  if (typeof grid === "function") points = grid(method);
  else if (grid !== undefined && methodNames().includes(method)) {
    points = hyperparameterGrid(method, grid);
  }
  if (points === undefined) return { compare: canonicalCompare, check: () => {} };
  const index = new Map<string, number>();
  points.forEach((p, i) => {
    if (!index.has(paramsKey(p))) index.set(paramsKey(p), i);
  });
  const size = points.length;
  const position = (p: Params): number => {
    const i = index.get(paramsKey(p));
    if (i === undefined) {
      throw new ValidationError(
        "records",
        `A ${method} record has params {${paramsKey(p)}}, which are not in the grid used for ordering (${plural(size, "point")}); pass the grid the records were made with.`,
      );
    }
    return i;
  };
  return { compare: (a, b) => position(a) - position(b), check: (p) => void position(p) };
}

/** Drops later records with the same fitKey (a resumed run that redid a fit). */
export function dedupeRecords(records: readonly FitRecord[]): FitRecord[] {
  const seen = new Set<string>();
  const out: FitRecord[] = [];
  for (const r of records) {
    const key = fitKey(r);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(r);
    }
  }
  return out;
}

/**
 * Best hyperparameters at each k, for the records of one (dataset, repeat,
 * method): highest validation BCA, ties to the earlier grid point. Ascending k.
 */
export function bestPerK(records: readonly FitRecord[], options: SelectionOptions = {}): KChoice[] {
  if (records.length === 0) return [];
  const { compare, check } = gridRanking(records[0].method, options.grid);
  const best = new Map<number, FitRecord>();
  for (const r of dedupeRecords(records)) {
    check(r.params);
    const cur = best.get(r.k);
    if (
      cur === undefined ||
      r.valBCA > cur.valBCA ||
      (r.valBCA === cur.valBCA && compare(r.params, cur.params) < 0)
    ) {
      best.set(r.k, r);
    }
  }
  return [...best.values()]
    .sort((a, b) => a.k - b.k)
    .map((r) => ({ k: r.k, params: r.params, valBCA: r.valBCA, testBCA: r.testBCA, record: r }));
}

/** The group key of a record: (dataset, repeat, method). */
function groupKey(r: FitRecord): string {
  return JSON.stringify([r.dataset, r.repeat, r.method]);
}

/**
 * The selected fit of one (dataset, repeat, method) from its records: the best
 * hyperparameters per k, then the k with the best validation BCA, ties to the
 * smallest k. Throws if the records are empty or belong to several groups.
 */
export function selectModel(
  records: readonly FitRecord[],
  options: SelectionOptions = {},
): Selection {
  if (records.length === 0) {
    throw new ValidationError("records", "selectModel needs at least one fit record.");
  }
  const key = groupKey(records[0]);
  for (const r of records) {
    if (groupKey(r) !== key) {
      throw new ValidationError(
        "records",
        `selectModel works on one (dataset, repeat, method) at a time; got records of ${key} and ${groupKey(r)} (use selectAll).`,
      );
    }
  }
  const perK = bestPerK(records, options);
  let chosen = perK[0];
  // perK is ascending in k, so keeping the first maximum gives the smallest k on ties.
  for (const c of perK) if (c.valBCA > chosen.valBCA) chosen = c;
  const { dataset, repeat, method } = records[0];
  return { dataset, repeat, method, ...chosen, perK };
}

/**
 * `selectModel` for every (dataset, repeat, method) present in the records,
 * ordered by dataset and method (in order of first appearance) and then repeat.
 */
export function selectAll(
  records: readonly FitRecord[],
  options: SelectionOptions = {},
): Selection[] {
  const datasetOrder = new Map<string, number>();
  const methodOrder = new Map<string, number>();
  for (const r of records) {
    if (!datasetOrder.has(r.dataset)) datasetOrder.set(r.dataset, datasetOrder.size);
    if (!methodOrder.has(r.method)) methodOrder.set(r.method, methodOrder.size);
  }
  const out = [...groupBy(records, groupKey).values()].map((g) => selectModel(g, options));
  out.sort(
    (a, b) =>
      (datasetOrder.get(a.dataset) as number) - (datasetOrder.get(b.dataset) as number) ||
      (methodOrder.get(a.method) as number) - (methodOrder.get(b.method) as number) ||
      a.repeat - b.repeat,
  );
  return out;
}
