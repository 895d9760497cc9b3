/** The `sdspcaan` command in a child process, for what only a real process shows (signals, serving). */
import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { join } from "node:path";
import { repoRoot } from "sdspcaan-test-support";

export interface CliChild {
  readonly child: ChildProcess;
  /** What it has written to standard output so far. */
  stdout(): string;
  /** What it has written to standard error so far. */
  stderr(): string;
}

/** Starts `sdspcaan <args>` from the sources (through tsx) in the repository's folder. */
export function startCli(args: readonly string[], options: SpawnOptions = {}): CliChild {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", join(repoRoot, "packages/sdspcaan-cli/src/cli/bin.ts"), ...args],
    { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"], ...options },
  );
  let out = "";
  let err = "";
  child.stdout?.on("data", (b: Buffer) => {
    out += b.toString("utf8");
  });
  child.stderr?.on("data", (b: Buffer) => {
    err += b.toString("utf8");
  });
  return { child, stdout: () => out, stderr: () => err };
}
