/**
 * Pieces shared by the sub-commands: one-line usage errors, option parsing with
 * library-style messages, data-file options, method options, and the model file
 * with its preprocessing.
 */
import { availableParallelism } from "node:os";
import { type Command, CommanderError, Option } from "commander";
import type { Estimator, Label, Matrix, Pipeline } from "sdspcaan";
import { DataFormatError, methodNames, ValidationError } from "sdspcaan";
import { featureNamesOf } from "sdspcaan/formats";
import type { OptionSchema, OptionSpec } from "sdspcaan/methods";
import {
  checkPreprocessing,
  loadModelFile,
  methodDescriptor,
  methodDescriptors,
  normalizeMethodName,
  PREPROCESSINGS,
  type Preprocessing,
  parseSplitFile,
  type Split,
} from "sdspcaan/methods";
import { setKernelThreads, setNativeKernels } from "sdspcaan/node";
import { checkInputFileSync, MAX_JSON_BYTES } from "../../io/inputFiles.js";
import type { LoadOptions } from "../../io/load.js";
import { openDataset } from "../../io/load.js";
import { readModelText } from "../../io/modelFile.js";
import { readJsonFile } from "../../runner/resultsFile.node.js";
import {
  addDelimitedOptions,
  columnNumbersNote,
  parseDropColumns,
  parseHeaderFlag,
} from "./delimitedFlags.js";

/** Writes a line (or lines) to standard output. */
export function out(text: string): void {
  process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
}

/** Writes a line to standard error (notes, progress, warnings). */
export function note(text: string): void {
  process.stderr.write(text.endsWith("\n") ? text : `${text}\n`);
}

/**
 * Writes each warning of a fit to standard error as one line "warning: ..." (standard
 * output stays the command's result, e.g. evaluate's JSON).
 */
export function noteWarnings(warnings: readonly { readonly message: string }[]): void {
  for (const w of warnings) note(`warning: ${w.message.replace(/\s*\n\s*/g, " ")}`);
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
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

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
  /** `--label-column`, the other spelling of `--label-col`. */
  readonly labelColumn?: string;
  readonly dataDir?: string;
  /** `--header yes|no|auto` (CSV/TSV). */
  readonly header?: string;
  /** `--drop-columns a,b,3` (CSV/TSV). */
  readonly dropColumns?: string;
  /** `--decimal-comma` (CSV/TSV). */
  readonly decimalComma?: boolean;
}

/**
 * Adds `--label-col` and its other spelling `--label-column` (hidden from the help,
 * which mentions it), as `main` the one shown. Commander has no aliases for long
 * options, so the two are merged by {@link labelColumnFlag}.
 */
export function addLabelColumnOption(
  cmd: Command,
  description: string,
  main: "--label-col" | "--label-column" = "--label-col",
): Command {
  const other = main === "--label-col" ? "--label-column" : "--label-col";
  return cmd
    .option(`${main} <col>`, `${description} (also ${other})`)
    .addOption(new Option(`${other} <col>`).hideHelp());
}

/** The label column given with --label-col or --label-column (refusing two different ones). */
export function labelColumnFlag(flags: {
  readonly labelCol?: string;
  readonly labelColumn?: string;
}): string | undefined {
  const { labelCol, labelColumn } = flags;
  if (labelCol !== undefined && labelColumn !== undefined && labelCol !== labelColumn) {
    throw new ValidationError(
      "label-col",
      `--label-col and --label-column are the same option; got two different columns ('${labelCol}' and '${labelColumn}').`,
    );
  }
  return labelCol ?? labelColumn;
}

/** Adds --x-var, --y-var, --label-col (or --label-column) and --data-dir. */
export function addDataFormatOptions(cmd: Command): Command {
  cmd
    .option("--x-var <name>", "MAT/HDF5 variable holding X (default: found, e.g. fea, X, data)")
    .option("--y-var <name>", "MAT/HDF5 variable holding the labels (default: found, e.g. gnd, y)");
  addLabelColumnOption(
    cmd,
    "column holding the labels in CSV/NPY or in the data matrix: index from 0 (negative from the end), first, last, a header name, or none (default: last where labels are needed; transform reads every column as a feature unless told)",
  );
  addDelimitedOptions(cmd);
  return cmd.option(
    "--data-dir <dir>",
    "folder searched first for registry data sets (then $SDSPCAAN_DATA, the repository's data/, ../shared/data, the cache)",
  );
}

/** --data (a data file or a registry name) and the options that say how to read it. */
export function addDataOptions(
  cmd: Command,
  help = "data file (MAT, NPY, CSV with the label in the last column) or registry name",
): Command {
  cmd.requiredOption("--data <file>", help);
  return addDataFormatOptions(cmd);
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

/** The loader options the data flags describe. */
export function loadOptionsFrom(flags: DataFlags): LoadOptions {
  const labelColumn = parseLabelColumn(labelColumnFlag(flags));
  const header = parseHeaderFlag(flags.header);
  const dropColumns = parseDropColumns(flags.dropColumns);
  return {
    ...(flags.xVar !== undefined ? { xVar: flags.xVar } : {}),
    ...(flags.yVar !== undefined ? { yVar: flags.yVar } : {}),
    ...(labelColumn !== undefined ? { labelColumn } : {}),
    ...(header !== undefined ? { header } : {}),
    ...(dropColumns !== undefined ? { dropColumns } : {}),
    ...(flags.decimalComma === true ? { decimal: "," as const } : {}),
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
  /** The names of X's columns from a CSV header (null without one: matched by position). */
  readonly featureNames: string[] | null;
}

/** Opens `--data` (a file path or a registry name); the labels must be there. */
export async function loadData(flags: DataFlags): Promise<LoadedData> {
  if (labelColumnFlag(flags) === "none") {
    throw new ValidationError(
      "label-col",
      "This command needs the class labels; '--label-col none' (data without labels) is for transform, and for fit with a method that needs no labels.",
    );
  }
  const data = await openData(flags, "required");
  return { ...data, y: data.y ?? [] };
}

/** Refuses data with fewer than `min` samples, naming the file and what needs them. */
export function requireSamples(
  data: { readonly X: Matrix; readonly path: string },
  min: number,
  why: string,
): void {
  if (data.X.rows < min) {
    throw new DataFormatError(
      data.path,
      `has ${data.X.rows} sample(s); ${why} needs at least ${min}`,
    );
  }
}

/** Data to embed with a model: X, and the labels only when they are named (or declared). */
export interface FeatureData {
  readonly X: Matrix;
  /** Null when the data has no labels, or none were named. */
  readonly y: Label[] | null;
  readonly name: string;
  readonly path: string;
  /** Rows of the data set's own test set (Fashion-MNIST), when it comes with one. */
  readonly predefinedTest?: Int32Array;
  /** The names of X's columns from a CSV header (null without one: matched by position). */
  readonly featureNames: string[] | null;
}

/**
 * Opens `--data` for `transform` (and `fit --label-col none`): every column of a
 * CSV/NPY (the whole data variable of a MAT-file) is a feature unless --label-col /
 * --y-var name the labels, which are then left out of the features.
 */
export async function loadFeatureData(flags: DataFlags): Promise<FeatureData> {
  return openData(flags, "optional");
}

async function openData(flags: DataFlags, labels: "required" | "optional"): Promise<FeatureData> {
  if (flags.data === undefined) {
    throw new ValidationError("data", "The '--data' option (a MAT, NPY or CSV file) is required.");
  }
  const opened = await openDataset(flags.data, {
    ...loadOptionsFrom(flags),
    labels,
    ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
  });
  const base = opened.path.split(/[\\/]/).pop() ?? opened.path;
  const name = opened.entry?.name ?? base.replace(/\.[^.]+$/, "");
  const { info, predefinedTest } = opened.dataset;
  const featureNames = featureNamesOf(info, opened.dataset.X.cols);
  if (info.headerDetected === "column-numbers" && info.header !== undefined) {
    note(columnNumbersNote(opened.path, info.header));
  }
  if (info.header !== undefined && featureNames === null) {
    note(
      `${opened.path}: its header repeats a column name or leaves one empty, so its columns are taken by position, not matched by name.`,
    );
  }
  return {
    X: opened.dataset.X,
    y: info.yVar === null ? null : [...opened.dataset.y],
    name,
    path: opened.path,
    ...(predefinedTest ? { predefinedTest } : {}),
    featureNames,
  };
}

/**
 * Refuses a JSON input (model, split file) that is not a regular file, or larger than
 * a JavaScript string can hold, before reading it.
 */
export function checkJsonInput(path: string, what: string, argument: string): void {
  checkInputFileSync(path, what, MAX_JSON_BYTES, argument, "the longest string JavaScript holds");
}

/** Reads a split file, naming it in every error. */
export function readSplitFile(path: string, n: number): Split[] {
  checkJsonInput(path, "split file", "splits");
  const json = readJsonFile(path);
  try {
    return parseSplitFile(json, n);
  } catch (err) {
    if (err instanceof ValidationError) throw new DataFormatError(path, err.message);
    throw err;
  }
}

/** Split `repeat` (the --repeat flag, from 0) of the split file `path`, for data of `n` rows. */
export function splitOfFile(path: string, repeat: number, n: number): Split {
  const splits = readSplitFile(path, n);
  if (repeat >= splits.length) {
    throw new ValidationError(
      "repeat",
      `The '--repeat' option must be an integer in [0, ${splits.length - 1}] for the ${splits.length} split(s) of ${path}. Got ${repeat} instead.`,
    );
  }
  return splits[repeat];
}

/**
 * Method flags: --method, --k, --set, and one flag per option of the registered
 * methods (generated from their descriptors, so a new method's options get flags
 * without touching this file). Commander stores `--max-iter` as `maxIter`, the
 * option's own name.
 */
export interface MethodFlags {
  readonly method?: string;
  readonly k?: string;
  readonly seed?: string;
  readonly set?: readonly string[];
  readonly [option: string]: unknown;
}

/** `maxIter` -> `max-iter`. */
function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** One generated flag: the option it sets, and which methods have it. */
interface MethodOptionFlag {
  readonly name: string;
  readonly flag: string;
  readonly spec: OptionSpec;
  readonly methods: string[];
}

/**
 * The flags of every option of the registered methods except k and seed (which
 * have flags of their own), in registration order, without the names the command
 * already uses for something else (those stay reachable through --set).
 */
function methodOptionFlags(cmd: Command): MethodOptionFlag[] {
  const taken = new Set(cmd.options.map((o) => o.long));
  const byName = new Map<string, MethodOptionFlag>();
  for (const d of methodDescriptors()) {
    for (const [name, spec] of Object.entries(d.options as OptionSchema)) {
      if (name === "k" || name === "seed") continue;
      const flag = `--${kebab(name)}`;
      if (taken.has(flag)) continue;
      const entry = byName.get(name) ?? { name, flag, spec, methods: [] };
      entry.methods.push(d.name);
      byName.set(name, entry);
    }
  }
  return [...byName.values()];
}

/** "<value>" placeholder and help text of a generated flag. */
function flagHelp(f: MethodOptionFlag): { usage: string; help: string } {
  const { spec } = f;
  const usage =
    spec.type === "enum"
      ? `<${spec.values.join("|")}>`
      : spec.type === "boolean"
        ? "<true|false>"
        : spec.type === "integer"
          ? "<n>"
          : "<x>";
  const all = f.methods.length === methodDescriptors().length;
  const who = all ? "" : ` [${f.methods.join(", ")}]`;
  return { usage, help: `${spec.doc}${who}` };
}

/** The method-option flags each command got from `addMethodOptions`. */
const GENERATED = new WeakMap<Command, MethodOptionFlag[]>();

/** --k's help: the methods whose k may be a fraction (their declarations say) are named. */
function kHelp(): string {
  const fraction = methodDescriptors().filter((d) => {
    const k = (d.options as OptionSchema).k;
    return k?.type === "integer" && k.fraction === true;
  });
  if (fraction.length === 0) return "subspace dimension k";
  const names = fraction.map((d) => d.name).join(", ");
  return `subspace dimension k (${names}: or a fraction in (0, 1), the share of the training variance to keep)`;
}

/** Adds --method, --k, a flag per method option (expert ones in their own help group), --seed, --set. */
export function addMethodOptions(cmd: Command, { seedHelp }: { seedHelp: string }): Command {
  cmd
    .requiredOption("--method <name>", `${methodNames().join(", ")} (case-insensitive, _ for -)`)
    .requiredOption("--k <k>", kHelp());
  const generated = methodOptionFlags(cmd);
  GENERATED.set(cmd, generated);
  for (const f of generated) {
    const { usage, help } = flagHelp(f);
    const option = new Option(`${f.flag} ${usage}`, help);
    if (f.spec.expert) option.helpGroup("Expert method options:");
    else option.helpGroup("Method options:");
    cmd.addOption(option);
  }
  return cmd
    .option("--seed <s>", seedHelp)
    .option("--set <name=value...>", "any option of the method by name, e.g. --set weight=binary");
}

function parseSetValue(raw: string): unknown {
  const v = raw.trim();
  if (v === "true") return true;
  if (v === "false") return false;
  if (v === "null") return null;
  if (v === "Infinity" || v === "inf") return Number.POSITIVE_INFINITY;
  if (DECIMAL.test(v)) return Number(v);
  return v;
}

/** A generated flag's value as its option's type (the method then checks its range). */
function parseFlagValue(flag: string, spec: OptionSpec, raw: string): unknown {
  switch (spec.type) {
    case "integer":
      return raw.trim() === "null" && spec.default === null
        ? null
        : parseInteger(flag, raw, Number.MIN_SAFE_INTEGER);
    case "number":
      return raw.trim() === "null" && spec.default === null ? null : parseNumber(flag, raw);
    case "boolean":
      if (raw === "true" || raw === "false") return raw === "true";
      throw new ValidationError(
        flag.replace(/^--/, ""),
        `The '${flag}' option must be true or false. Got ${JSON.stringify(raw)} instead.`,
      );
    case "enum":
      return raw;
  }
}

/**
 * `--k`: an integer, or for a method whose k takes one (PCA) a fraction in (0, 1), as
 * the option's declaration says; the method checks the range.
 */
function parseK(spec: OptionSpec | undefined, raw: string | undefined): number | undefined {
  if (raw !== undefined && spec?.type === "integer" && spec.fraction && DECIMAL.test(raw.trim())) {
    const v = Number(raw);
    if (v > 0 && v < 1) return v;
  }
  return parseInteger("--k", raw);
}

/** The method's name (normalised, registered) and its constructor options from the flags. */
export function methodFromFlags(
  flags: MethodFlags,
  cmd?: Command,
): {
  method: string;
  options: Record<string, unknown>;
} {
  if (flags.method === undefined) {
    throw new ValidationError("method", "The '--method' option is required.");
  }
  const method = normalizeMethodName(flags.method);
  const schema = methodDescriptor(flags.method).options as OptionSchema;
  const options: Record<string, unknown> = { k: parseK(schema.k, flags.k) };
  const given = new Map<string, string>(); // option name -> the flag that gave it
  given.set("k", "--k");
  for (const [name, spec] of Object.entries(schema)) {
    if (name === "k" || name === "seed") continue;
    const raw = flags[name];
    if (typeof raw !== "string") continue;
    const flag = `--${kebab(name)}`;
    options[name] = parseFlagValue(flag, spec, raw);
    given.set(name, flag);
  }
  // A flag of an option this method does not have is an error, not silently ignored.
  for (const f of (cmd && GENERATED.get(cmd)) || []) {
    if (typeof flags[f.name] === "string" && !Object.hasOwn(schema, f.name)) {
      throw new ValidationError(
        f.name,
        `${methodDescriptor(method).displayName} has no option '${f.name}' (${f.flag} is an option of ${f.methods.join(", ")}). Valid options: ${Object.keys(schema).join(", ")}.`,
      );
    }
  }
  // The seed also seeds splits in `evaluate`; deterministic methods have no seed option.
  const seed = parseInteger("--seed", flags.seed, 0, 2 ** 32 - 1);
  if (seed !== undefined && Object.hasOwn(schema, "seed")) {
    options.seed = seed;
    given.set("seed", "--seed");
  }
  for (const item of flags.set ?? []) {
    const eq = item.indexOf("=");
    if (eq <= 0) {
      throw new ValidationError(
        "set",
        `--set takes name=value. Got ${JSON.stringify(item)} instead.`,
      );
    }
    const name = item.slice(0, eq).trim();
    const own = given.get(name) ?? (name === "k" ? "--k" : undefined);
    if (own !== undefined) {
      // A value given twice is ambiguous: refuse rather than let one silently win.
      throw new ValidationError(
        "set",
        `Give '${name}' with ${own}, not with --set (got --set ${item}).`,
      );
    }
    options[name] = parseSetValue(item.slice(eq + 1));
    given.set(name, "--set");
  }
  return { method, options };
}

/**
 * Reads a model file written by `fit`: a method's model or, from `fit --pipeline`, a
 * pipeline (the preprocessing travels inside either).
 */
export function readModelFile(path: string): Estimator | Pipeline {
  checkJsonInput(path, "model file", "model");
  return loadModelFile(readModelText(path), path);
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

export { checkFeatureCount, predictData, transformData } from "./modelData.js";
