/**
 * Helpers for the bad-input cases: small data files written on the spot, and the
 * one assertion every refused CLI command must pass (exit code 1, one line on
 * standard error naming what is wrong, no stack trace, no output file).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Random } from "sdspcaan/methods";
import { expect } from "vitest";
import { cli, lines } from "../helpers/cli.js";

/** Three classes of 8 samples in 4 features, well separated; labels 1, 2, 3. */
export function smallRows(seed = 5): { X: number[][]; y: number[] } {
  const rng = new Random(seed);
  const X: number[][] = [];
  const y: number[] = [];
  for (let c = 1; c <= 3; c++) {
    for (let i = 0; i < 8; i++) {
      X.push(Array.from({ length: 4 }, (_, j) => (j === c ? 4 * c : 0) + rng.normal()));
      y.push(c);
    }
  }
  return { X, y };
}

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

/** A NumPy .npy file (format 1.0) with the given header dict and raw data bytes. */
export function npyBytes(header: string, body: Uint8Array): Uint8Array {
  let h = header;
  const total = 10 + h.length + 1;
  h += " ".repeat((64 - (total % 64)) % 64);
  h += "\n";
  const head = new Uint8Array(10);
  head.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0);
  new DataView(head.buffer).setUint16(8, h.length, true);
  const out = new Uint8Array(10 + h.length + body.length);
  out.set(head, 0);
  out.set(new TextEncoder().encode(h), 10);
  out.set(body, 10 + h.length);
  return out;
}

/** Little-endian float64 bytes of rows, C order. */
export function float64Bytes(rows: number[][]): Uint8Array {
  const flat = rows.flat();
  const out = new Uint8Array(8 * flat.length);
  const dv = new DataView(out.buffer);
  for (let i = 0; i < flat.length; i++) dv.setFloat64(8 * i, flat[i], true);
  return out;
}

/** The error a function throws (fails the test when it does not throw). */
export function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error, but none was thrown");
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function rejectionOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a rejection, but the promise resolved");
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
