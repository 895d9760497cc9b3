/**
 * The flags that say which data to read and how (--data, --x-var, --y-var,
 * --label-col, the CSV/TSV flags, --data-dir), and the loader options they make.
 */
import { type Command, Option } from "commander";
import { ValidationError } from "sdspcaan";
import type { LoadOptions } from "../../io/load.js";
import { addDelimitedOptions, parseDropColumns, parseHeaderFlag } from "./delimitedFlags.js";

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
  /** `--labels-file`: the labels in a file of their own (addLabelsFileOption). */
  readonly labelsFile?: string;
}

/** `--label-col`: an index from 0 (negative from the end), "first", "last" or a header name. */
export function parseLabelColumn(value: string | undefined): number | string | undefined {
  if (value === undefined) return undefined;
  return /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value.trim();
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
  addDataFormatOptions(cmd);
  return addLabelsFileOption(cmd);
}

/** --labels-file: the labels of --data in a file of their own. */
export function addLabelsFileOption(cmd: Command): Command {
  return cmd.option(
    "--labels-file <path>",
    "the labels in a file of their own, one per sample (text with one per line, a 1-D .npy, an idx1 file); --data then holds the features only",
  );
}

/**
 * Whether the command reads labels-free data: `--label-col none` without a
 * `--labels-file` (with one, the data file holds the features and the file the labels).
 */
export function withoutLabels(flags: DataFlags): boolean {
  return labelColumnFlag(flags) === "none" && flags.labelsFile === undefined;
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
    ...(flags.labelsFile !== undefined ? { labelsFile: flags.labelsFile } : {}),
  };
}
