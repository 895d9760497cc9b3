/**
 * sdspcaan/node: the Node.js-only entry. Everything in the browser-safe core plus
 * file reading (MAT, HDF5, CSV, NPY), plotting, the experiment runner and the CLI.
 */
export * from "./index.js";
export { buildProgram, runCli } from "./cli/main.js";
export * from "./plot/index.js";
