/**
 * Flag values parsed with the library's messages (integers, numbers, lists), and the
 * flags several commands share: --preprocess and --threads.
 */
import { availableParallelism } from "node:os";
import { Option } from "commander";
import { ValidationError } from "sdspcaan";
import { checkPreprocessing, PREPROCESSINGS, type Preprocessing } from "sdspcaan/methods";
import { setKernelThreads, setNativeKernels } from "sdspcaan/node";

/** An integer option: undefined when absent, else checked against [min, max]. */
export function parseInteger(
  flag: string,
  value: string | undefined,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  // Decimal digits only: Number() would also read "0x2", "0b10", "1e1" and " 2 ".
  const v = /^[+-]?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isInteger(v) || v < min || v > max) {
    const hi = max === Number.MAX_SAFE_INTEGER ? "inf)" : `${max}]`;
    throw new ValidationError(
      flag.replace(/^--/, ""),
      `The '${flag}' option must be an integer in [${min}, ${hi}. Got ${JSON.stringify(value)} instead.`,
    );
  }
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

/** A comma-separated list ("a,b, c"), without empty items. */
export function parseList(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((v: string) => v.split(","));
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

/** A comma-separated list of integers, e.g. the k grid "10,20,30". */
export function parseIntegerList(flag: string, value: string | undefined): number[] | undefined {
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
    "--threads <n>",
    "threads for the large fits' products with the data's SVD factor (same results for any count; auto: the cores this process may use, at most 8)",
  ).default("auto");
}

/** Applies --threads (see threadsOption) and returns the count. */
export function applyThreads(flag: string | undefined): number {
  const threads =
    flag === undefined || flag === "auto"
      ? Math.min(8, availableParallelism())
      : (parseInteger("--threads", flag, 1, 64) as number);
  setKernelThreads(threads);
  // The native GEMM where it was built and runs (SDSPCAAN_NATIVE=0 keeps WebAssembly).
  setNativeKernels("auto");
  return threads;
}
