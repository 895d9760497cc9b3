/**
 * Helpers for the bad-input cases: small data files written on the spot, and the
 * one assertion every refused CLI command must pass (exit code 1, one line on
 * standard error naming what is wrong, no stack trace, no output file).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { cli, lines } from "../helpers/cli.js";

export {
  errorOf,
  float64Bytes,
  npyBytes,
  rejectionOf,
  smallRows,
} from "sdspcaan-test-support";

/** CSV text of rows (no header); `label` appends the labels as the last column. */
export function csvText(X: number[][], labels?: readonly (number | string)[]): string {
  return `${X.map((r, i) => (labels ? [...r, labels[i]] : r).join(",")).join("\n")}\n`;
}

/** Writes `text` to `dir/name` and returns the path. */
export function writeText(dir: string, name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/**
 * Runs `sdspcaan <args>` and checks it was refused as a user error: exit code 1,
 * exactly one line on standard error starting "sdspcaan", containing every item
 * of `mentions`, without a stack trace, and (when given) no file at `out`.
 * Returns the line.
 */
export async function expectRefused(
  args: string[],
  mentions: ReadonlyArray<string | RegExp>,
  out?: string,
): Promise<string> {
  const r = await cli(args);
  expect(r.code).toBe(1);
  const errLines = lines(r.stderr);
  expect(errLines).toHaveLength(1);
  const line = errLines[0];
  expect(line).toMatch(/^sdspcaan/);
  expect(line).not.toMatch(/\n\s+at |unexpected error|\bat .*\.ts:\d+/);
  for (const m of mentions) {
    if (typeof m === "string") expect(line).toContain(m);
    else expect(line).toMatch(m);
  }
  if (out !== undefined) expect(existsSync(out)).toBe(false);
  return line;
}
