/** The `sdspcaan` program without its sub-commands: name, description, version, one-line errors. */
import { Command } from "commander";
import { oneLineErrors } from "./commands/commandErrors.js";
import { VERSION } from "./version.js";

export function baseProgram(): Command {
  const program = new Command();
  program
    .name("sdspcaan")
    .description(
      "Supervised linear dimensionality reduction: SDSPCAAN and the methods it is compared with.",
    )
    .version(VERSION)
    .exitOverride();
  oneLineErrors(program);
  return program;
}
