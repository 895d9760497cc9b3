/**
 * Benchmark harness: suites time our code and the NumPy/SciPy reference in the same
 * run (the reference pinned to one BLAS thread), take medians of several runs, and
 * report ratios. Output: a readable table, or one JSON object per line with --json.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const benchDir = dirname(fileURLToPath(import.meta.url));
export const repoRoot = resolve(benchDir, "..");

/** One measured line. `ratio` = ts_ms / ref_ms (lower is better for us). */
export interface BenchRecord {
  bench: string;
  n?: number;
  k?: number;
  d?: number;
  ts_ms: number;
  ref_ms: number | null;
  ratio: number | null;
  [extra: string]: unknown;
}

export interface BenchContext {
  /** Runs per measurement (medians are reported); at least 3. */
  runs: number;
  /** Quick mode: the smaller sizes only. */
  quick: boolean;
  /** Emits a record as soon as it is measured. */
  emit(record: BenchRecord): void;
  /** Prints a progress line to stderr. */
  log(message: string): void;
}

export interface BenchSuite {
  /** Short name used by `npm run bench -- --only NAME`. */
  name: string;
  description: string;
  /** Runs only when named in --only (long suites: the 60,000-image fits). */
  optIn?: boolean;
  run(ctx: BenchContext): Promise<void> | void;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

/** Median wall time in ms of `runs` calls of fn (after one untimed warm-up unless warmup = false). */
export function timeMedian(fn: () => unknown, runs: number, warmup = true): number {
  if (warmup) fn();
  const times: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

export function record(
  bench: string,
  tsMs: number,
  refMs: number | null,
  extra: Omit<Partial<BenchRecord>, "bench" | "ts_ms" | "ref_ms" | "ratio"> = {},
): BenchRecord {
  return {
    bench,
    ...extra,
    ts_ms: round(tsMs),
    ref_ms: refMs === null ? null : round(refMs),
    ratio: refMs === null || refMs <= 0 ? null : round(tsMs / refMs, 3),
  };
}

function round(v: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** Path of the NumPy/SciPy reference implementation (never used by tests). */
export function referenceScript(): string {
  return resolve(repoRoot, "..", "shared", "reference", "sdspcaan_ref.py");
}

/** The datasets: $SDSPCAAN_DATA, else the repository's data/. */
export function dataDir(): string {
  return process.env.SDSPCAAN_DATA ? resolve(process.env.SDSPCAAN_DATA) : resolve(repoRoot, "data");
}

/**
 * Runs a Python timing script from bench/ref with one BLAS thread and returns its
 * parsed JSON stdout, or null (with a logged reason) when Python or numpy is missing.
 */
export function runPython(
  script: string,
  args: string[],
  log: (m: string) => void,
): Record<string, unknown> | null {
  const path = join(benchDir, "ref", script);
  if (!existsSync(path)) throw new Error(`missing reference script ${path}`);
  const env = {
    ...process.env,
    OPENBLAS_NUM_THREADS: "1",
    OMP_NUM_THREADS: "1",
    MKL_NUM_THREADS: "1",
  };
  const res = spawnSync("python3", [path, ...args], {
    env,
    encoding: "utf8",
    maxBuffer: 1 << 28,
  });
  if (res.error || res.status !== 0) {
    log(`reference ${script} failed: ${res.error?.message ?? res.stderr.trim().split("\n").pop()}`);
    return null;
  }
  return JSON.parse(res.stdout) as Record<string, unknown>;
}
