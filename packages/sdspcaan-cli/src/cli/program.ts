/** The whole `sdspcaan` program, every sub-command registered (for `--help` and for library users). */
import type { Command } from "commander";
import { baseProgram } from "./base.js";
import { registerCommands } from "./commands/index.js";

export function buildProgram(): Command {
  const program = baseProgram();
  registerCommands(program);
  return program;
}
