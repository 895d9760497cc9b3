/** The protocol's classifier and metrics (browser-safe). */
export * from "./metrics.js";
export * from "./nearestNeighbour.js";
