/**
 * What a run's records become: the tables, the statistics across data sets and the
 * data behind the figures (browser-safe); writing them as files is reportFiles.node.ts.
 */
export * from "./figures.js";
export * from "./report.js";
export * from "./statistics.js";
