/** Runs the CLI in-process and writes small data files for it. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Matrix } from "sdspcaan";
import {
  kernelThreads,
  nativeKernelsActive,
  setKernelThreads,
  setNativeKernels,
} from "sdspcaan/node";
import { removeDir, smallData, tempDir } from "sdspcaan-test-support";
import { afterAll, beforeAll, onTestFinished, vi } from "vitest";
import { runCli } from "#internal/cli/main.js";

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `sdspcaan <args>` in this process, capturing standard output and error. The
 * kernel threads and native kernels the commands set (--threads, the native GEMM where
 * built) are set back when the calling test ends (at once when called outside a test),
 * as the suite's files share their process.
 */
export async function cli(args: string[]): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const capture = (sink: string[]) =>
    ((chunk: string | Uint8Array) => {
      sink.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return true;
    }) as typeof process.stdout.write;
  const threads = kernelThreads();
  const native = nativeKernelsActive();
  const restore = () => {
    setKernelThreads(threads);
    setNativeKernels(native);
  };
  let inTest = true;
  try {
    // Run in reverse order of registration: the first call's state is the last set.
    onTestFinished(restore);
  } catch {
    inTest = false;
  }
  const so = vi.spyOn(process.stdout, "write").mockImplementation(capture(out));
  const se = vi.spyOn(process.stderr, "write").mockImplementation(capture(err));
  try {
    const code = await runCli(args);
    return { code, stdout: out.join(""), stderr: err.join("") };
  } finally {
    so.mockRestore();
    se.mockRestore();
    if (!inTest) restore();
  }
}

/**
 * A command line written as a template, for `cli`: the literal text splits at white
 * space, and each `${value}` stays one argument however it is spelled (a path with
 * spaces, an empty string), or one argument per element of an array. So
 * argv`fit --data ${csv} --k 3` is ["fit", "--data", csv, "--k", "3"].
 */
export function argv(
  text: TemplateStringsArray,
  ...values: (string | readonly string[])[]
): string[] {
  const args: string[] = [];
  let current: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const words = text[i].split(/\s+/);
    for (let w = 0; w < words.length; w++) {
      if (w > 0 && current !== null) {
        args.push(current);
        current = null;
      }
      if (words[w] !== "") current = (current ?? "") + words[w];
    }
    if (i === values.length) break;
    const value = values[i];
    if (typeof value === "string") {
      current = (current ?? "") + value;
    } else {
      if (current !== null || /^\S/.test(text[i + 1])) {
        throw new Error("argv: an array stands as whole arguments, with white space around it");
      }
      args.push(...value);
    }
  }
  if (current !== null) args.push(current);
  return args;
}

/** The non-empty lines of a text. */
export function lines(text: string): string[] {
  return text.split("\n").filter((l) => l.trim() !== "");
}

/** Writes X with the label in the last column as CSV (a header row c1..cd,label). */
export function writeCsv(path: string, X: Matrix, y: readonly (number | string)[]): void {
  const rows = [
    Array.from({ length: X.cols }, (_, j) => `c${j + 1}`)
      .concat("label")
      .join(","),
  ];
  for (let i = 0; i < X.rows; i++) rows.push([...X.row(i), y[i]].join(","));
  writeFileSync(path, `${rows.join("\n")}\n`);
}

/** Writes X with numeric labels as its last column as a NumPy .npy file (little-endian float64). */
export function writeNpy(path: string, X: Matrix, y: readonly number[]): void {
  const cols = X.cols + 1;
  let header = `{'descr': '<f8', 'fortran_order': False, 'shape': (${X.rows}, ${cols}), }`;
  const total = 10 + header.length + 1;
  header += " ".repeat((64 - (total % 64)) % 64);
  header += "\n";
  const head = Buffer.alloc(10);
  head.write("\x93NUMPY", 0, "latin1");
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  const body = Buffer.alloc(8 * X.rows * cols);
  for (let i = 0; i < X.rows; i++) {
    for (let j = 0; j < X.cols; j++) body.writeDoubleLE(X.data[i * X.cols + j], 8 * (i * cols + j));
    body.writeDoubleLE(y[i], 8 * (i * cols + X.cols));
  }
  writeFileSync(path, Buffer.concat([head, Buffer.from(header, "latin1"), body]));
}

/** The files `smallCsvFolder` makes. */
export interface SmallCsvFolder {
  dir: string;
  /** `smallData()` with a header row and the label last (`writeCsv`). */
  csv: string;
  /** One split of its rows as a split file: train 0-19, validation 20-39, test the rest. */
  splits: string;
}

/**
 * A temporary folder with the CLI tests' small CSV and a split file for it, made before
 * the calling file's tests and removed after them (the fields are set by then).
 */
export function smallCsvFolder(prefix: string): Readonly<SmallCsvFolder> {
  const folder: SmallCsvFolder = { dir: "", csv: "", splits: "" };
  beforeAll(() => {
    folder.dir = tempDir(prefix);
    folder.csv = join(folder.dir, "small.csv");
    const data = smallData();
    writeCsv(folder.csv, data.X, data.y);
    folder.splits = join(folder.dir, "splits.json");
    const rows = Array.from({ length: data.X.rows }, (_, i) => i);
    const split = { train: rows.slice(0, 20), val: rows.slice(20, 40), test: rows.slice(40) };
    writeFileSync(folder.splits, JSON.stringify({ index_base: 0, splits: [split] }));
  });
  afterAll(() => removeDir(folder.dir));
  return folder;
}
