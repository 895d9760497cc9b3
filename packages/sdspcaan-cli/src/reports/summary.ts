/**
 * The shapes of a run's summary: what `summariseResults` (report.ts) computes and the
 * tables and statistics (statistics.ts) read. Apart, so that the two need not import
 * each other.
 */
import type { FitRecord } from "../protocol/records.js";
import type { WarningCounts } from "./warningCounts.js";

/** Done and planned fits of one (dataset, method). */
export interface CellCompleteness {
  readonly planned: number;
  readonly done: number;
  /** Repeats with planned fits, and how many of them have every planned fit done. */
  readonly repeats: number;
  readonly repeatsComplete: number;
}

/** How much of a planned run is done. */
export interface Completeness {
  readonly planned: number;
  readonly done: number;
  /** cells[dataset][method], for every (dataset, method) with planned fits. */
  readonly cells: Readonly<Record<string, Readonly<Record<string, CellCompleteness>>>>;
  /**
   * The counts cover only some of the run's methods or data sets (`report --methods`
   * / `--datasets`), so the texts say so rather than speak of the whole run.
   */
  readonly subset?: boolean;
}

/** The selected fit of one repeat, as reported: these fields of its record. */
export type ChosenFit = Pick<
  FitRecord,
  "repeat" | "k" | "params" | "valBCA" | "testBCA" | "iterations" | "converged" | "fitMs"
>;

/** Results of one (dataset, method) over its repeats. BCA values are fractions. */
export interface CellSummary {
  readonly dataset: string;
  readonly method: string;
  /** Number of repeats with a selected fit. */
  readonly n: number;
  /** Mean of the selected test BCA over repeats. */
  readonly mean: number;
  /** Standard deviation (n - 1) of the selected test BCA over repeats. */
  readonly std: number;
  /** Mean of the selected validation BCA over repeats. */
  readonly valMean: number;
  /** The selected fit of each repeat, ascending repeat. */
  readonly chosen: readonly ChosenFit[];
  /** Number of fits run (all k and parameter points of all repeats). */
  readonly nFits: number;
  /** Mean and total wall time per fit, over all fits. */
  readonly meanFitMs: number;
  readonly totalFitMs: number;
  /** Mean iterations per fit and the fraction of fits that converged, over all fits. */
  readonly meanIterations: number;
  readonly convergedFraction: number;
  /** How many of the selected fits gave each warning (stopped at maxIter, at the lambda cap, ...). */
  readonly warnings: WarningCounts;
}

/** The Average row entry of one method. */
export interface AverageSummary {
  readonly method: string;
  /** The repeats every dataset has (the per-repeat averages are over these). */
  readonly repeats: readonly number[];
  /** Per-repeat mean over datasets of the selected test BCA. */
  readonly perRepeat: readonly number[];
  readonly mean: number;
  readonly std: number;
}

/** Everything the reports show. */
export interface ResultsSummary {
  readonly datasets: readonly string[];
  readonly methods: readonly string[];
  /** cells[dataset][method], absent where the method has no results on the dataset. */
  readonly cells: Readonly<Record<string, Readonly<Record<string, CellSummary>>>>;
  /** average[method], null where the method lacks a dataset of the table ("--"). */
  readonly average: Readonly<Record<string, AverageSummary | null>>;
  /** What the run planned and what is done; a string says why this is unknown; null: not given. */
  readonly completeness: Completeness | string | null;
}
