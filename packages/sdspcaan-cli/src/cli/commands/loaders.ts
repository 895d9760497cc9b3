/**
 * Each sub-command's module by the command's name, imported only when that command
 * runs (main.ts, runCli): `sdspcaan fit` then loads fit's module and what it needs, not
 * the runner, the reports or the figures' renderer (vega) of the others. index.ts
 * registers them all at once, for buildProgram and for `--help`.
 */
import type { Command } from "commander";

type Register = (program: Command) => void;

export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<Register>>> = {
  fit: async () => (await import("./fit.js")).registerFitCommand,
  transform: async () => (await import("./transform.js")).registerTransformCommand,
  predict: async () => (await import("./predict.js")).registerPredictCommand,
  evaluate: async () => (await import("./evaluate.js")).registerEvaluateCommand,
  experiment: async () => (await import("./experiment.js")).registerExperimentCommand,
  report: async () => (await import("./report.js")).registerReportCommand,
  compress: async () => (await import("./compress.js")).registerCompressCommand,
  plot: async () => (await import("./plot.js")).registerPlotCommand,
  demo: async () => (await import("./demo.js")).registerDemoCommand,
  datasets: async () => (await import("./datasets.js")).registerDatasetsCommand,
  playground: async () => (await import("./playground.js")).registerPlaygroundCommand,
};
