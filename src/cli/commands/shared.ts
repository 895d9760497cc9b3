/**
 * Pieces shared by the sub-commands: one-line usage errors, option parsing with
 * library-style messages, data-file options, method options, and the model file
 * with its preprocessing.
 */
import { type Command, CommanderError } from "commander";
import { ValidationError } from "../../core/errors.js";
import type { Label } from "../../core/validate.js";
import { checkPreprocessing, type Preprocessing } from "../../experiment/preprocess.js";
import { readJsonFile } from "../../experiment/resultsFile.node.js";
import type { LoadOptions } from "../../io/load.js";
import { openDataset } from "../../io/load.js";
import { Matrix } from "../../linalg/matrix.js";
import type { Estimator, InputPreprocessing } from "../../methods/estimator.js";
import { loadModel, methodDescriptor, normalizeMethodName } from "../../methods/registry.js";

/** Writes a line (or lines) to standard output. */
export function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Writes a line to standard error (notes, progress, warnings). */
export function note(text: string): void {
  process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}

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

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c !== null; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Exits with `code` after the command printed its own message (e.g. 130 after Ctrl-C). */
export function exitQuietly(code: number, why: string): never {
  throw new CommanderError(code, "sdspcaan.exit", why);
}

/** An integer option: undefined when absent, else checked against [min, max]. */
export function parseInteger(
  flag: string,
  value: string | undefined,
  min = 1,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  const v = Number(value);
  if (value.trim() === "" || !Number.isInteger(v) || v < min || v > max) {
    const hi = max === Number.MAX_SAFE_INTEGER ? "inf)" : `${max}]`;
    throw new ValidationError(
      flag.replace(/^--/, ""),
      `The '${flag}' option must be an integer in [${min}, ${hi}. Got ${JSON.stringify(value)} instead.`,
    );
  }
  return v;
}

/** A number option: undefined when absent, else a finite number >= min. */
export function parseNumber(
  flag: string,
  value: string | undefined,
  min = Number.NEGATIVE_INFINITY,
): number | undefined {
  if (value === undefined) return undefined;
  const v = Number(value);
  if (value.trim() === "" || !Number.isFinite(v) || v < min) {
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

/** `--label-col`: an index from 0 (negative from the end), "first", "last" or a header name. */
export function parseLabelColumn(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value.trim();
}

/** `--preprocess`, checked. */
export function parsePreprocess(value: string | undefined): Preprocessing {
  return checkPreprocessing(value ?? "train-zscore", "preprocess");
}

/** The data-file flags every command that reads data shares. */
export interface DataFlags {
  readonly data?: string;
  readonly xVar?: string;
  readonly yVar?: string;
  readonly labelCol?: string;
  readonly dataDir?: string;
}

/** Adds --x-var, --y-var, --label-col and --data-dir. */
export function addDataFormatOptions(cmd: Command): Command {
  return cmd
    .option("--x-var <name>", "MAT/HDF5 variable holding X (default: found, e.g. fea, X, data)")
    .option("--y-var <name>", "MAT/HDF5 variable holding the labels (default: found, e.g. gnd, y)")
    .option(
      "--label-col <col>",
      "column holding the labels in CSV or in the data matrix: index from 0 (negative from the end), first, last or a header name (default last)",
    )
    .option(
      "--data-dir <dir>",
      "folder searched first for registry data sets (then $SDSPCAAN_DATA, ../shared/data, the cache)",
    );
}

/** The loader options the data flags describe. */
export function loadOptionsFrom(flags: DataFlags): LoadOptions {
  const labelColumn = parseLabelColumn(flags.labelCol);
  return {
    ...(flags.xVar !== undefined ? { xVar: flags.xVar } : {}),
    ...(flags.yVar !== undefined ? { yVar: flags.yVar } : {}),
    ...(labelColumn !== undefined ? { labelColumn } : {}),
  };
}

/** A data set read from a file or the registry: X (samples as rows), labels, name, path. */
export interface LoadedData {
  readonly X: Matrix;
  readonly y: Label[];
  readonly name: string;
  readonly path: string;
  /** Rows of the data set's own test set (Fashion-MNIST), when it comes with one. */
  readonly predefinedTest?: Int32Array;
}

/** Opens `--data` (a file path or a registry name). */
export async function loadData(flags: DataFlags): Promise<LoadedData> {
  if (flags.data === undefined) {
    throw new ValidationError("data", "The '--data' option (a MAT, NPY or CSV file) is required.");
  }
  const opened = await openDataset(flags.data, {
    ...loadOptionsFrom(flags),
    ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
  });
  const base = opened.path.split(/[\\/]/).pop() ?? opened.path;
  const name = opened.entry?.name ?? base.replace(/\.[^.]+$/, "");
  const test = opened.dataset.predefinedTest;
  return {
    X: opened.dataset.X,
    y: [...opened.dataset.y],
    name,
    path: opened.path,
    ...(test ? { predefinedTest: test } : {}),
  };
}

/** Method flags; each goes to the method only when given (the method rejects options it lacks). */
export interface MethodFlags {
  readonly method?: string;
  readonly k?: string;
  readonly alpha?: string;
  readonly beta?: string;
  readonly delta?: string;
  readonly eta?: string;
  readonly m?: string;
  readonly clusters?: string;
  readonly stopRule?: string;
  readonly tol?: string;
  readonly maxIter?: string;
  readonly eps?: string;
  readonly seed?: string;
  readonly set?: readonly string[];
}

/** Adds --method, --k and the method options. */
export function addMethodOptions(cmd: Command, { seedHelp }: { seedHelp: string }): Command {
  return cmd
    .requiredOption(
      "--method <name>",
      "baseline, pca, sdspca, pcan, spcan, sdspca-lpp, sdspcaan, jpcda, slnp, lda, lpp (case-insensitive, _ for -)",
    )
    .requiredOption("--k <k>", "subspace dimension k")
    .option("--alpha <a>", "multiplier a of alpha = a Tr(XX^T)/Tr(YY^T) (SDSPCA family)")
    .option("--beta <b>", "multiplier b of beta = b Tr(XX^T)/Tr(D) (SDSPCA family)")
    .option(
      "--delta <c>",
      "multiplier c of delta = c Tr(XX^T)/Tr(XX^T L XX^T) (SDSPCA-LPP, SDSPCAAN)",
    )
    .option("--eta <eta>", "JPCDA's ridge weight")
    .option("--m <m>", "number of adaptive neighbours (default min(15, n - 2))")
    .option("--clusters <c>", "PCAN's number of clusters")
    .option("--stop-rule <rule>", "stop test: aligned, paper or subspace")
    .option("--tol <tol>", "tolerance of the stop test")
    .option("--max-iter <T>", "maximum outer iterations")
    .option("--eps <eps>", "small constant against division by zero")
    .option("--seed <s>", seedHelp)
    .option("--set <name=value...>", "any other option of the method, e.g. --set weight=binary");
}

/** Method options that have a flag of their own; `--set` must not give them a second time. */
const DEDICATED_FLAGS: Readonly<Record<string, string>> = {
  k: "--k",
  alpha: "--alpha",
  beta: "--beta",
  delta: "--delta",
  eta: "--eta",
  m: "--m",
  clusters: "--clusters",
  stopRule: "--stop-rule",
  tol: "--tol",
  maxIter: "--max-iter",
  eps: "--eps",
  seed: "--seed",
};

function parseSetValue(raw: string): unknown {
  const v = raw.trim();
  if (v === "true") return true;
  if (v === "false") return false;
  if (v === "null") return null;
  if (v === "Infinity" || v === "inf") return Number.POSITIVE_INFINITY;
  if (v !== "" && Number.isFinite(Number(v))) return Number(v);
  return v;
}

/** The method's name (normalised, registered) and its constructor options from the flags. */
export function methodFromFlags(flags: MethodFlags): {
  method: string;
  options: Record<string, unknown>;
} {
  if (flags.method === undefined) {
    throw new ValidationError("method", "The '--method' option is required.");
  }
  const method = normalizeMethodName(flags.method);
  const schema = methodDescriptor(flags.method).options;
  const options: Record<string, unknown> = { k: parseInteger("--k", flags.k) };
  const numbers: Array<[keyof MethodFlags, string, string]> = [
    ["alpha", "alpha", "--alpha"],
    ["beta", "beta", "--beta"],
    ["delta", "delta", "--delta"],
    ["eta", "eta", "--eta"],
    ["tol", "tol", "--tol"],
    ["eps", "eps", "--eps"],
  ];
  for (const [flag, name, text] of numbers) {
    const v = parseNumber(text, flags[flag] as string | undefined);
    if (v !== undefined) options[name] = v;
  }
  const m = parseInteger("--m", flags.m);
  if (m !== undefined) options.m = m;
  const clusters = parseInteger("--clusters", flags.clusters);
  if (clusters !== undefined) options.clusters = clusters;
  const maxIter = parseInteger("--max-iter", flags.maxIter);
  if (maxIter !== undefined) options.maxIter = maxIter;
  if (flags.stopRule !== undefined) options.stopRule = flags.stopRule;
  // The seed also seeds splits in `evaluate`; deterministic methods have no seed option.
  const seed = parseInteger("--seed", flags.seed, 0, 2 ** 32 - 1);
  if (seed !== undefined && Object.hasOwn(schema, "seed")) options.seed = seed;
  for (const item of flags.set ?? []) {
    const eq = item.indexOf("=");
    if (eq <= 0) {
      throw new ValidationError(
        "set",
        `--set takes name=value. Got ${JSON.stringify(item)} instead.`,
      );
    }
    const name = item.slice(0, eq).trim();
    const own = DEDICATED_FLAGS[name];
    if (own !== undefined) {
      // A value given twice is ambiguous: refuse rather than let one silently win.
      throw new ValidationError(
        "set",
        `Give '${name}' with ${own}, not with --set (got --set ${item}).`,
      );
    }
    options[name] = parseSetValue(item.slice(eq + 1));
  }
  return { method, options };
}

/** The feature preprocessing saved beside a model: x -> (x - center) / scale. */
/** Reads a model file written by `fit` (its preprocessing, if any, travels inside the model). */
export function readModelFile(path: string): Estimator {
  return loadModel(readJsonFile(path));
}

/** Applies a standardisation to data (a new matrix). */
export function applyPreprocessing(X: Matrix, p: InputPreprocessing | null): Matrix {
  if (p === null) return X;
  if (X.cols !== p.center.length) {
    throw new ValidationError(
      "X",
      `The data has ${X.cols} features, but the model was fitted on ${p.center.length} features.`,
    );
  }
  const out = new Matrix(X.rows, X.cols);
  const d = X.cols;
  for (let i = 0; i < X.rows; i++) {
    for (let j = 0; j < d; j++)
      out.data[i * d + j] = (X.data[i * d + j] - p.center[j]) / p.scale[j];
  }
  return out;
}

/** Formats milliseconds as "850 ms", "12.3 s", "4m 05s" or "1h 02m". */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "?";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const total = Math.round(s);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const sec = total % 60;
  return h > 0 ? `${h}h ${String(m).padStart(2, "0")}m` : `${m}m ${String(sec).padStart(2, "0")}s`;
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
