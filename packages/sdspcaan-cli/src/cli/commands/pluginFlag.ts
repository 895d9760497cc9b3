/**
 * `--plugin FILE` (repeatable) on fit, evaluate, experiment, report, transform,
 * predict and plot (bca-vs-k, sensitivity, embedding): an ES module that registers methods of its own (runner/plugins.node.ts).
 * The plug-ins load before the command's flags are declared, since every method's
 * options become flags (`--help` lists a plug-in's too): main.ts finds them in the
 * arguments first (`pluginArguments`) and loads them; the commands declare the flag
 * so that commander accepts it and `--help` says it.
 */
import { isAbsolute, resolve as resolvePath } from "node:path";
import type { Command } from "commander";

/** The commands that take --plugin, as typed (a sub-command after its command). */
export const PLUGIN_COMMANDS: readonly string[] = [
  "fit",
  "evaluate",
  "experiment",
  "report",
  "transform",
  "predict",
  "plot bca-vs-k",
  "plot sensitivity",
  "plot embedding",
];

/** How many leading words of `argv` name a command that takes --plugin (0: none does). */
function pluginCommandWords(argv: readonly string[]): number {
  for (const command of PLUGIN_COMMANDS) {
    const words = command.split(" ");
    if (words.every((w, i) => argv[i] === w)) return words.length;
  }
  return 0;
}

/** Declares --plugin on a command (its values collect into `flags.plugin`). */
export function addPluginOption(cmd: Command): Command {
  return cmd.option(
    "--plugin <file>",
    "load an ES module that registers methods of its own, before anything else (repeatable; see docs/plugins.md)",
    (value: string, previous: string[] = []) => [...previous, value],
  );
}

/**
 * The --plugin values of a command line (`--plugin F` or `--plugin=F`, before any
 * `--`), when its command takes them; else none.
 */
export function pluginArguments(argv: readonly string[]): string[] {
  const start = pluginCommandWords(argv);
  if (start === 0) return [];
  const out: string[] = [];
  for (let i = start; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") break;
    if (a === "--plugin" && i + 1 < argv.length) out.push(argv[++i]);
    else if (a.startsWith("--plugin=")) out.push(a.slice("--plugin=".length));
  }
  return out;
}

/**
 * The arguments with every --plugin value made absolute (against `cwd`), for a job
 * script's tasks and report step, which load the plug-ins by that path.
 */
export function absolutePluginArguments(args: readonly string[], cwd: string): string[] {
  const abs = (p: string) => (isAbsolute(p) ? p : resolvePath(cwd, p));
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--plugin" && i + 1 < args.length) {
      out.push(a, abs(args[++i]));
    } else if (a.startsWith("--plugin=")) {
      out.push("--plugin", abs(a.slice("--plugin=".length)));
    } else {
      out.push(a);
    }
  }
  return out;
}
