/**
 * `--data` opened for a command: X, the labels where the command needs them or they
 * are named, the data set's name and its column names, with the notes a header earns.
 */
import type { Label, Matrix } from "sdspcaan";
import { DataFormatError, ValidationError } from "sdspcaan";
import { type DataFormat, featureNamesOf } from "sdspcaan/formats";
import { namingFlags } from "../../io/fileErrors.js";
import { openDataset } from "../../io/load.js";
import { plural } from "../../plural.js";
import { type DataFlags, labelColumnFlag, loadOptionsFrom, withoutLabels } from "./dataFlags.js";
import { columnNumbersNote } from "./delimitedFlags.js";
import { checkDataDir } from "./folders.js";
import { note } from "./output.js";

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
  if (withoutLabels(flags)) {
    throw new ValidationError(
      "label-col",
      "This command needs the class labels; '--label-col none' (data without labels) is for transform, and for fit with a method that needs no labels; give the labels with --labels-file FILE.",
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
      `has ${plural(data.X.rows, "sample")}; ${why} needs at least ${min}`,
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
  checkDataDir(flags.dataDir);
  const column = labelColumnFlag(flags);
  if (
    flags.labelsFile !== undefined &&
    (flags.yVar !== undefined || (column ?? "none") !== "none")
  ) {
    throw new ValidationError(
      "labels-file",
      `--labels-file gives the labels, so ${flags.yVar !== undefined ? "--y-var" : "--label-col"} cannot: give one of them.`,
    );
  }
  const opened = await openDataset(flags.data, {
    ...loadOptionsFrom(flags),
    labels,
    ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
  }).catch((err: unknown) => {
    throw namingFlags(err, { path: "--data", labelsFile: "--labels-file" });
  });
  refuseIdleDataFlags(flags, opened.dataset.info.format, opened.path, opened.source !== null);
  const base = opened.path.split(/[\\/]/).pop() ?? opened.path;
  const name = opened.entry?.name ?? base.replace(/\.[^.]+$/, "");
  const { info, predefinedTest } = opened.dataset;
  const featureNames = featureNamesOf(info, opened.dataset.X.cols);
  if (info.headerDetected === "column-numbers" && info.header !== undefined) {
    note(columnNumbersNote(opened.path, info.header));
  }
  if (info.header !== undefined && featureNames === null) {
    note(
      `note: ${opened.path}: its header repeats a column name or leaves one empty, so its columns are taken by position, not matched by name.`,
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

/** "a MAT-file", "a CSV file": a format as messages name it. */
function formatName(format: DataFormat): string {
  if (format.startsWith("mat-")) return "a MAT-file";
  return `${format === "hdf5" || format === "npy" ? "an" : "a"} ${format.toUpperCase()} file`;
}

/**
 * Refuses a data flag that the file read does not use: the CSV/TSV flags for a
 * binary file, --x-var / --y-var for a text file (which has columns, not variables),
 * --data-dir when --data named the file itself (not a registry name found in a folder).
 */
export function refuseIdleDataFlags(
  flags: DataFlags,
  format: DataFormat,
  path: string,
  searched: boolean,
): void {
  const delimited = format === "csv" || format === "tsv";
  const idle: [unknown, string][] = [
    [flags.header, "--header"],
    [flags.dropColumns, "--drop-columns"],
    [flags.decimalComma, "--decimal-comma"],
  ];
  for (const [value, flag] of delimited ? [] : idle) {
    if (value !== undefined) {
      throw new ValidationError(
        flag.slice(2),
        `${flag} applies to CSV/TSV files, and ${path} is ${formatName(format)}: drop ${flag}.`,
      );
    }
  }
  for (const [value, flag] of [
    [flags.xVar, "--x-var"],
    [flags.yVar, "--y-var"],
  ] as const) {
    if (value !== undefined && delimited) {
      throw new ValidationError(
        flag.slice(2),
        `${flag} names a variable of a MAT, HDF5 or NPY file, and ${path} is ${formatName(format)} (columns, not variables): use --label-col for its labels, or drop ${flag}.`,
      );
    }
  }
  if (flags.dataDir !== undefined && !searched) {
    throw new ValidationError(
      "data-dir",
      `--data-dir is where registry data sets are looked for, and --data names the file ${path} itself: drop --data-dir.`,
    );
  }
}
