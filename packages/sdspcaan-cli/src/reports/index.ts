/**
 * What a run's records become: the tables, the statistics across data sets and the
 * data behind the figures (browser-safe); writing them as files is reportFiles.node.ts.
 */
export * from "./figures.js";
// Named, not `export *`: report.ts also exports helpers shared with the scripts of the
// repository (scripts/reproduction/tables.ts), which are not part of the package's API.
export {
  type AverageSummary,
  buildReports,
  type CellCompleteness,
  type CellSummary,
  type ChosenFit,
  type Completeness,
  completenessOf,
  completenessText,
  isIncompleteRun,
  methodTitle,
  type ReportOptions,
  type ResultsSummary,
  type SummaryCompleteness,
  type SummaryJSON,
  summariseResults,
  summaryJSON,
  tableCsv,
  tableMarkdown,
} from "./report.js";
export * from "./statistics.js";
export * from "./statisticsMarkdown.js";
export { type WarnedCells, type WarningCounts, warningLines } from "./warningCounts.js";
