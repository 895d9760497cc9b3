/**
 * Standard output or error that stops taking bytes while the command runs. Node
 * ignores SIGPIPE, so a reader that goes away (`sdspcaan transform ... | head -1`)
 * shows up as an EPIPE 'error' event on the stream, which, unhandled, prints Node's
 * stack trace. A closed pipe is how `head` says it has read enough: the rest of the
 * output is dropped and the command finishes what it was doing (a file it writes is
 * never left half-written, a run lock is released) with its usual exit status, as
 * when its whole output fitted in the pipe before the reader left. Any other failure
 * of standard output (`> /dev/full`: ENOSPC) is one line on standard error and exit
 * status 1: that output is lost, and a script must see it.
 */
import { describeFileSystemError } from "../io/fileErrors.js";

/** What became of the standard streams: the exit status their failures call for. */
export interface StandardStreamsGuard {
  /** 1 after a failure that lost output (other than a closed pipe), else 0. */
  readonly exitCode: number;
}

/**
 * Handles the 'error' events of `stdout` and `stderr` (the process's by default) as
 * the module's comment says; a failure of `stdout` is said on `stderr`.
 */
export function guardStandardStreams(
  stdout: NodeJS.WritableStream = process.stdout,
  stderr: NodeJS.WritableStream = process.stderr,
): StandardStreamsGuard {
  let exitCode = 0;
  const fail = () => {
    exitCode = 1;
    // The command may have ended already (a write's error comes a tick after it).
    process.exitCode = 1;
  };
  stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") return;
    fail();
    const reason = describeFileSystemError(err) ?? err.message;
    if (stderr.writable) stderr.write(`sdspcaan: cannot write to standard output: ${reason}.\n`);
  });
  stderr.on("error", (err: NodeJS.ErrnoException) => {
    // Nowhere left to say it: a closed pipe ends the notes, anything else the status.
    if (err.code !== "EPIPE") fail();
  });
  return {
    get exitCode() {
      return exitCode;
    },
  };
}
