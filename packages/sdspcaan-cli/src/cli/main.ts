/**
 * The `sdspcaan` command-line tool. Each sub-command lives in ./commands and
 * registers itself on the program; errors print one line and exit non-zero.
 */
import { CommanderError } from "commander";
import { SdspcaanError } from "sdspcaan";
import { describeFileSystemError, fileSystemPath, inCommandLineTerms } from "../io/fileErrors.js";
import { baseProgram } from "./base.js";
import { COMMAND_LOADERS } from "./commands/loaders.js";
import { pluginArguments } from "./commands/pluginFlag.js";

/**
 * The program for `argv`: with only the named sub-command registered when argv starts
 * with one (its module loads, the others' do not), else every one (`--help`, a typo).
 */
async function programFor(argv: string[]) {
  const loader = Object.hasOwn(COMMAND_LOADERS, argv[0] ?? "") ? COMMAND_LOADERS[argv[0]] : null;
  if (loader === null) return (await import("./program.js")).buildProgram();
  const program = baseProgram();
  (await loader())(program);
  return program;
}

/** Runs the CLI; resolves to the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  try {
    const plugins = pluginArguments(argv);
    if (plugins.length > 0) {
      // Before the program is built: a plug-in's methods and their options are flags.
      const { loadPlugins } = await import("../runner/plugins.node.js");
      await loadPlugins(plugins);
    }
    const program = await programFor(argv);
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit with code 0; usage errors were already printed by commander.
      return err.exitCode;
    }
    if (err instanceof SdspcaanError) {
      process.stderr.write(`sdspcaan: ${inCommandLineTerms(err.message)}\n`);
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
