/**
 * The `sdspcaan` command-line tool. Each sub-command lives in ./commands and
 * registers itself on the program; errors print one line and exit non-zero.
 */
import { Command, CommanderError } from "commander";
import { SdspcaanError } from "sdspcaan";
import { describeFileSystemError, fileSystemPath } from "../io/fileErrors.js";
import { registerCommands } from "./commands/index.js";
import { oneLineErrors } from "./commands/shared.js";
import { VERSION } from "./version.js";

export function buildProgram(): Command {
  const program = new Command();
  program
    .name("sdspcaan")
    .description(
      "Supervised linear dimensionality reduction: SDSPCAAN and the methods it is compared with.",
    )
    .version(VERSION)
    .exitOverride();
  oneLineErrors(program);
  registerCommands(program);
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit with code 0; usage errors were already printed by commander.
      return err.exitCode;
    }
    if (err instanceof SdspcaanError) {
      process.stderr.write(`sdspcaan: ${err.message}\n`);
      return 1;
    }
    const reason = describeFileSystemError(err);
    if (reason !== null) {
      // A file the user named could not be read or written: say which and why, no stack.
      const path = fileSystemPath(err);
      process.stderr.write(`sdspcaan: ${path === null ? "" : `${path}: `}${reason}.\n`);
      return 1;
    }
    const e = err as Error;
    process.stderr.write(`sdspcaan: unexpected error: ${e?.stack ?? String(err)}\n`);
    return 2;
  }
}
