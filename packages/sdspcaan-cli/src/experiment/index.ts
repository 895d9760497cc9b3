/**
 * The browser-safe pieces of the experiment protocol: splits, preprocessing, the k
 * grid, hyperparameter grids, selection, fit records, reports and figure data.
 * The runner that fits methods in worker threads lives in `*.node.ts` files.
 */
export * from "./figures.js";
export * from "./grids.js";
export * from "./kGrid.js";
export * from "./paperTable.js";
export * from "./preprocess.js";
export * from "./records.js";
export * from "./report.js";
export * from "./selection.js";
export * from "./splits.js";
export * from "./statistics.js";
export * from "./synthetic.js";
