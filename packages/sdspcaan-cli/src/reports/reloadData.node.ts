/**
 * A run's data sets and splits made again from what settings.json recorded (a file, a
 * registry data set or synthetic options; the seeded or explicit splits), checked
 * against the run's checksum, for the plan of a report and its embedding figure.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Label } from "sdspcaan";
import { ValidationError } from "sdspcaan";
import {
  makeSplit,
  makeSyntheticDataset,
  parseSplitFile,
  type Split,
  type SyntheticOptions,
} from "sdspcaan/methods";
import { type LoadOptions, openDataset } from "../io/load.js";
import { datasetAtPath } from "../io/registry.js";
import { readJsonFile } from "../runner/resultsFile.node.js";
import { type DatasetSettings, datasetChecksum, type RunSettings } from "../runner/runner.node.js";
import type { UnitDataset } from "../runner/units.node.js";

/**
 * What to reopen a data file of a run by: the absolute path it recorded; else, for
 * a results directory moved or cloned elsewhere (a committed run in another
 * clone), the file at the recorded path relative to the results directory, or a
 * registry data set by name, found in this machine's data directories. The
 * checksum the caller compares makes sure that it is the same data either way.
 */
function reopenTarget(name: string, path: string, relative: unknown, dir: string | undefined) {
  if (existsSync(path)) return path;
  const moved = typeof relative === "string" && dir !== undefined ? resolve(dir, relative) : null;
  if (moved !== null && existsSync(moved)) return moved;
  const registered = datasetAtPath(path);
  if (registered !== null) return registered.name;
  throw new ValidationError(
    "data",
    `settings.json records ${path} as the file of ${name}, and it is not there${moved === null ? "" : ` nor at ${moved}`}.`,
  );
}

/**
 * Loads a data set of a run again from what settings.json recorded, or null.
 * `dir` is the results directory, where a path relative to it is looked for.
 */
export async function reloadDataset(
  entry: DatasetSettings,
  dir?: string,
): Promise<UnitDataset | null> {
  const origin = entry.origin;
  if (origin === null || origin === undefined) return null;
  let X: UnitDataset["X"];
  let y: Label[];
  if (origin.kind === "file" && typeof origin.path === "string") {
    // openDataset, as the run did: a registry file gets its entry's variables.
    const target = reopenTarget(entry.name, origin.path, origin.relative, dir);
    const opened = await openDataset(target, (origin.load ?? {}) as LoadOptions);
    X = opened.dataset.X;
    y = [...opened.dataset.y];
  } else if (origin.kind === "synthetic" && origin.options && typeof origin.options === "object") {
    const ds = makeSyntheticDataset(origin.options as Partial<SyntheticOptions>);
    X = ds.X;
    y = ds.y;
  } else {
    return null;
  }
  if (datasetChecksum(X, y) !== entry.checksum) {
    throw new ValidationError(
      "data",
      `${entry.name} reloaded from its recorded origin differs from the data of the run (checksum).`,
    );
  }
  return { name: entry.name, X, y };
}

/** The split of one repeat as the run made it, or null when it cannot be recreated. */
export function recreateSplit(
  settings: RunSettings,
  entry: DatasetSettings,
  data: UnitDataset,
  repeat: number,
): Split | null {
  if (entry.splitsChecksum !== null) {
    if (entry.splitsFile === null) return null;
    return parseSplitFile(readJsonFile(entry.splitsFile), data.X.rows)[repeat] ?? null;
  }
  return makeSplit(data.X.rows, {
    seed: settings.seed,
    dataset: entry.name,
    repeat,
    stratify: settings.stratify,
    fractions: settings.fractions,
    ...(settings.stratify ? { y: data.y } : {}),
  });
}
