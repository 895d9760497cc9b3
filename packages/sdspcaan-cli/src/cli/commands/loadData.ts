/**
 * `--data` opened for a command: X, the labels where the command needs them or they
 * are named, the data set's name and its column names, with the notes a header earns.
 */
import type { Label, Matrix } from "sdspcaan";
import { DataFormatError, ValidationError } from "sdspcaan";
import { featureNamesOf } from "sdspcaan/formats";
import { namingFlags } from "../../io/fileErrors.js";
import { openDataset } from "../../io/load.js";
import { plural } from "../../plural.js";
import { type DataFlags, labelColumnFlag, loadOptionsFrom } from "./dataFlags.js";
import { columnNumbersNote } from "./delimitedFlags.js";
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
  const opened = await openDataset(flags.data, {
    ...loadOptionsFrom(flags),
    labels,
    ...(flags.dataDir !== undefined ? { dataDir: flags.dataDir } : {}),
  }).catch((err: unknown) => {
    throw namingFlags(err, { path: "--data" });
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
