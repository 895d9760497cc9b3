/**
 * The paper's experiment protocol, browser-safe: seeded splits, preprocessing, the k
 * grid, hyperparameter grids and presets, selection, fit records, the paper's Table IV,
 * synthetic data and the plan of a run's fits.
 */
export * from "./grids.js";
export * from "./kGrid.js";
export * from "./paperTable.js";
export * from "./preprocess.js";
export * from "./records.js";
export * from "./selection.js";
export * from "./splits.js";
export * from "./synthetic.js";
