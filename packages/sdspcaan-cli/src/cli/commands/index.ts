/** Registers every sub-command. Each command module exports one `register*` function. */
import type { Command } from "commander";
import { registerCompressCommand } from "./compress.js";
import { registerDatasetsCommand } from "./datasets.js";
import { registerDemoCommand } from "./demo.js";
import { registerEvaluateCommand } from "./evaluate.js";
import { registerExperimentCommand } from "./experiment.js";
import { registerFitCommand } from "./fit.js";
import { registerPlaygroundCommand } from "./playground.js";
import { registerPlotCommand } from "./plot.js";
import { registerPredictCommand } from "./predict.js";
import { registerReportCommand } from "./report.js";
import { registerTransformCommand } from "./transform.js";

export function registerCommands(program: Command): void {
  registerFitCommand(program);
  registerTransformCommand(program);
  registerPredictCommand(program);
  registerEvaluateCommand(program);
  registerExperimentCommand(program);
  registerReportCommand(program);
  registerCompressCommand(program);
  registerPlotCommand(program);
  registerDemoCommand(program);
  registerDatasetsCommand(program);
  registerPlaygroundCommand(program);
}
