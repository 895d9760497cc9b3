/**
 * How a command stops: commander's usage errors as one line naming the command, a
 * quiet exit after the command's own message, and Ctrl-C / SIGTERM turned into an abort.
 */
import { type Command, CommanderError } from "commander";
import { ValidationError } from "sdspcaan";
import { note } from "./output.js";

/**
 * Makes commander's usage errors (unknown option, missing value, ...) one line:
 * "sdspcaan fit: unknown option '--bogus' (see 'sdspcaan fit --help')".
 */
export function oneLineErrors(cmd: Command): Command {
  const path = commandPath(cmd);
  cmd.showHelpAfterError(false);
  cmd.configureOutput({
    outputError: (str, write) => {
      const text = str
        .replace(/^error:\s*/i, "")
        .replace(/\s+/g, " ")
        .trim();
      write(`${path}: ${text} (see '${path} --help')\n`);
    },
  });
  return cmd;
}

/**
 * A refusal of the runner or the reports (whose messages name their API options, "The
 * 'methods' option ...") in the words of the command line: "The '--methods' option ...",
 * for each option of `flags` (option name -> the flag that gives it).
 */
export function inFlagWords(err: unknown, flags: Readonly<Record<string, string>>): unknown {
  if (!(err instanceof ValidationError)) return err;
  let message = err.message;
  for (const [name, flag] of Object.entries(flags)) {
    message = message.replaceAll(`'${name}' option`, `'${flag}' option`);
  }
  if (message === err.message && !Object.hasOwn(flags, err.argument)) return err;
  const flag = Object.hasOwn(flags, err.argument) ? flags[err.argument] : err.argument;
  return new ValidationError(flag.replace(/^--/, ""), message);
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Exits with `code` after the command printed its own message (e.g. 130 after Ctrl-C). */
export function exitQuietly(code: number, why: string): never {
  throw new CommanderError(code, "sdspcaan.exit", why);
}

/** What an interrupt handler reports: how to release it and which signal stopped the work. */
export interface InterruptHandle {
  /** Removes the handlers. */
  release(): void;
  /** The conventional exit code of the signal received: 130 for SIGINT, 143 for SIGTERM. */
  readonly exitCode: number;
}

/**
 * Installs Ctrl-C (SIGINT) and SIGTERM handlers that abort `controller`; a second
 * signal exits at once. The exit code follows the shell's 128 + signal number.
 */
export function abortOnInterrupt(controller: AbortController): InterruptHandle {
  let count = 0;
  let exitCode = 130;
  const handlerFor = (code: number) => () => {
    count++;
    exitCode = code;
    if (count === 1) {
      note("\nInterrupted: stopping (work in flight is dropped; press Ctrl-C again to quit now).");
      controller.abort();
    } else {
      process.exit(code);
    }
  };
  const onInt = handlerFor(130);
  const onTerm = handlerFor(143);
  process.on("SIGINT", onInt);
  process.on("SIGTERM", onTerm);
  return {
    release: () => {
      process.off("SIGINT", onInt);
      process.off("SIGTERM", onTerm);
    },
    get exitCode() {
      return exitCode;
    },
  };
}
