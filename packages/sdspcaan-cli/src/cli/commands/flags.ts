/**
 * Flag values parsed with the library's messages (integers, numbers, lists), and the
 * flags several commands share: --preprocess and --threads.
 */
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { type Command, Option } from "commander";
import { ValidationError } from "sdspcaan";
import { checkPreprocessing, PREPROCESSINGS, type Preprocessing } from "sdspcaan/methods";
import { setKernelThreads, setNativeKernels } from "sdspcaan/node";

/**
 * An integer as people write it: decimal digits, also with a zero fraction ("10.0",
 * as spreadsheets and Python print whole numbers), else null. Number() would also read
 * "0x2", "0b10", "1e1" and " 2 ".
 */
export function integerOf(value: string): number | null {
  const v = value.trim();
  if (!/^[+-]?\d+(\.0*)?$/.test(v)) return null;
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : null;
}

/** "[1, inf)", "[0, 65535]", "(-inf, 5]": the integers from min to max (infinite ends open). */
export function integerRange(min: number, max: number): string {
  const lo = min <= Number.MIN_SAFE_INTEGER ? "(-inf" : `[${min}`;
  const hi = max >= Number.MAX_SAFE_INTEGER ? "inf)" : `${max}]`;
  return `${lo}, ${hi}`;
}

/**
 * The one-line refusal of an integer flag's value; `alternative`: what else the flag
 * takes ("a fraction in (0, 1)", "auto").
 */
export function integerFlagError(
  flag: string,
  value: string,
  min: number,
  max: number,
  alternative?: string,
): ValidationError {
  const unbounded = min <= Number.MIN_SAFE_INTEGER && max >= Number.MAX_SAFE_INTEGER;
  const what = unbounded ? "an integer" : `an integer in ${integerRange(min, max)}`;
  return new ValidationError(
    flag.replace(/^--/, ""),
    `The '${flag}' option must be ${what}${alternative !== undefined ? ` or ${alternative}` : ""}. Got ${JSON.stringify(value)} instead.`,
  );
}

/** What an integer flag that also takes a fraction says it takes besides integers. */
export const FRACTION = "a fraction in (0, 1)";

/** An integer option: undefined when absent, else checked against [min, max]. */
export function parseInteger(
  flag: string,
  value: string | undefined,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  const v = integerOf(value);
  if (v === null || v < min || v > max) throw integerFlagError(flag, value, min, max);
  return v;
}

/** A number as people write it in decimal: "0.5", "-2", "1e-3" (not "0x10", not ""). */
export const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** A number option: undefined when absent, else a finite number >= min. */
export function parseNumber(
  flag: string,
  value: string | undefined,
  min = Number.NEGATIVE_INFINITY,
): number | undefined {
  if (value === undefined) return undefined;
  // A decimal number ("0.5", "-2", "1e-3"); Number() would also read "0x10" and "".
  const v = DECIMAL.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isFinite(v) || v < min) {
    const range =
      min === Number.NEGATIVE_INFINITY ? "a finite number" : `a number in [${min}, inf)`;
    throw new ValidationError(
      flag.replace(/^--/, ""),
      `The '${flag}' option must be ${range}. Got ${JSON.stringify(value)} instead.`,
    );
  }
  return v;
}

/**
 * Whether the user gave the option `key` (commander's name, e.g. "repeat"), not
 * only its default: a flag that only matters with another is refused when given alone.
 */
export function flagGiven(cmd: Command, key: string): boolean {
  const source = cmd.getOptionValueSource(key);
  return source !== undefined && source !== "default" && source !== "implied";
}

/** A list flag's value: one word, or several (a variadic option, `--methods <names...>`). */
export type ListValue = string | readonly string[];

/** A list given as several words, with commas, or both ("a,b c"), without empty items. */
export function parseList(value: ListValue | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v: string) => v.split(","));
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

/** A list of integers, e.g. the k grid "10,20,30" or "10 20 30". */
export function parseIntegerList(flag: string, value: ListValue | undefined): number[] | undefined {
  const items = parseList(value);
  if (items === undefined) return undefined;
  if (items.length === 0) {
    throw new ValidationError(
      flag.replace(/^--/, ""),
      `The '${flag}' option needs at least one value.`,
    );
  }
  return items.map((v) => parseInteger(flag, v) as number);
}

/** `--preprocess`, checked. */
export function parsePreprocess(value: string | undefined): Preprocessing {
  return checkPreprocessing(value ?? "train-zscore", "preprocess");
}

/** --preprocess: the feature preprocessing of the protocol (default train-zscore). */
export function preprocessOption(): Option {
  return new Option(
    "--preprocess <how>",
    `feature preprocessing: ${PREPROCESSINGS.join(", ")}`,
  ).default("train-zscore");
}

/**
 * `--threads <n|auto>`: threads for the thin products of large fits (1 + kernel
 * helpers; the results are the same bits whatever the count). "auto" takes the cores
 * this process may run on (os.availableParallelism, which follows CPU affinity and
 * so a scheduler's allocation), at most 8.
 */
export function threadsOption(): Option {
  return new Option(
    "--threads <n|auto>",
    "threads for the large fits' products with the data's SVD factor (same results for any count; auto: the cores this process may use, at most 8)",
  ).default("auto");
}

/** Applies --threads (see threadsOption) and returns the count. */
export function applyThreads(flag: string | undefined): number {
  let threads: number;
  if (flag === undefined || flag === "auto") {
    threads = Math.min(8, availableParallelism());
  } else {
    const n = integerOf(flag);
    if (n === null || n < 1 || n > 64) throw integerFlagError("--threads", flag, 1, 64, "auto");
    threads = n;
  }
  setKernelThreads(threads);
  // The native GEMM where it was built and runs (SDSPCAAN_NATIVE=0 keeps WebAssembly).
  setNativeKernels("auto");
  return threads;
}

/**
 * The files of a list flag (`--data a.csv b.csv`, `--data a.csv,b.csv`): split at
 * commas, except an item that is itself an existing file (whose name has a comma).
 */
export function parseFileList(value: ListValue | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const items = Array.isArray(value) ? value : [value as string];
  return items.flatMap((v: string) => (existsSync(v) ? [v] : (parseList(v) ?? [])));
}

/**
 * Refuses --seed or --stratify beside --splits: a split file fixes the splits those
 * would draw (`one`: the command draws one split, else one per repeat).
 */
export function refuseSeedWithSplits(
  splits: string | undefined,
  seedGiven: boolean,
  stratify: boolean | undefined,
  one: boolean,
): void {
  if (splits === undefined) return;
  const drawn = one ? "a seeded split" : "seeded splits";
  if (seedGiven) {
    throw new ValidationError(
      "seed",
      `Give --splits (a split file) or --seed (${drawn}), not both.`,
    );
  }
  if (stratify) {
    const stratified = one ? "a stratified seeded split" : "stratified seeded splits";
    throw new ValidationError(
      "stratify",
      `Give --splits (a split file) or --stratify (${stratified}), not both.`,
    );
  }
}
