/**
 * settings.json of a results directory: reading and checking it, and how the
 * settings of a resumed run differ from the recorded ones.
 */
import { existsSync } from "node:fs";
import { DataFormatError } from "sdspcaan";
import { PREPROCESSINGS } from "sdspcaan/methods";
import type { DatasetSettings, RunSettings } from "../protocol/plan.js";
import { readJsonFile, resultsPaths } from "./resultsFile.node.js";

/** One way in which the settings of a resumed run differ from the recorded ones. */
export interface SettingsDifference {
  readonly setting: string;
  readonly message: string;
  /**
   * True when the change alone leaves the fits already made valid in general (more
   * or fewer methods, grid points, k values or repeats). A forced resume decides
   * fit by fit from the settings fingerprints, so a fit this change does affect
   * (e.g. SLNP under the "authors" preset, whose PCA dimension is the largest k)
   * is redone all the same.
   */
  readonly keepsResults: boolean;
}

const EXTENDING_SETTINGS = new Set(["methods", "grid", "kGrid", "repeats"]);

/** How two run settings differ (empty when a resumed run may reuse every finished fit). */
export function settingsDifferences(
  previous: RunSettings,
  current: RunSettings,
): SettingsDifference[] {
  const out: SettingsDifference[] = [];
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  const strip = (list: readonly DatasetSettings[]) =>
    list.map(({ origin: _o, splitsFile: _f, ...rest }) => rest);
  if (!same(strip(previous.datasets ?? []), strip(current.datasets))) {
    const describe = (list: readonly DatasetSettings[]) =>
      list.map((d) => `${d.name} (${d.n} x ${d.d}, checksum ${d.checksum})`).join(", ");
    out.push({
      setting: "datasets",
      message: `datasets: ${describe(previous.datasets ?? [])} before, ${describe(current.datasets)} now`,
      keepsResults: false,
    });
  }
  for (const key of [
    "methods",
    "grid",
    "kGrid",
    "repeats",
    "seed",
    "preprocess",
    "stratify",
    "fractions",
    "methodOptions",
  ] as const) {
    if (!same(previous[key], current[key])) {
      out.push({
        setting: key,
        message: `${key}: ${JSON.stringify(previous[key])} before, ${JSON.stringify(current[key])} now`,
        keepsResults: EXTENDING_SETTINGS.has(key),
      });
    }
  }
  return out;
}

/** Reads settings.json of a results directory (null when there is none). */
export function readRunSettings(dir: string): RunSettings | null {
  const { settings } = resultsPaths(dir);
  if (!existsSync(settings)) return null;
  const value = readJsonFile(settings) as RunSettings;
  if (value === null || typeof value !== "object" || value.format !== "sdspcaan-experiment") {
    throw new DataFormatError(
      settings,
      `not the settings of an sdspcaan experiment (no "format": "sdspcaan-experiment")`,
    );
  }
  checkRunSettings(value, settings);
  return value;
}

/**
 * Checks the fields of settings.json that resuming and reporting rely on, so that
 * a damaged file is named rather than failing somewhere inside the plan.
 */
function checkRunSettings(value: RunSettings, file: string): void {
  const bad = (field: string, what: string, got: unknown) => {
    throw new DataFormatError(file, `"${field}" must be ${what}. Got ${JSON.stringify(got)}.`);
  };
  const isCount = (v: unknown) => typeof v === "number" && Number.isInteger(v) && v >= 1;
  if (!Array.isArray(value.datasets) || value.datasets.length === 0) {
    bad("datasets", "a non-empty list", value.datasets);
  }
  value.datasets.forEach((d, i) => {
    if (d === null || typeof d !== "object") bad(`datasets[${i}]`, "an object", d);
    if (typeof d.name !== "string" || d.name === "") bad(`datasets[${i}].name`, "a name", d.name);
    for (const key of ["n", "d", "classes"] as const) {
      if (!isCount(d[key])) bad(`datasets[${i}].${key}`, "an integer >= 1", d[key]);
    }
    if (typeof d.checksum !== "string") bad(`datasets[${i}].checksum`, "a string", d.checksum);
    if (d.splitsChecksum !== null && typeof d.splitsChecksum !== "string") {
      bad(`datasets[${i}].splitsChecksum`, "a string or null", d.splitsChecksum);
    }
  });
  if (!Array.isArray(value.methods) || value.methods.some((m) => typeof m !== "string")) {
    bad("methods", "a list of method names", value.methods);
  }
  if (!Array.isArray(value.kGrid) || value.kGrid.length === 0 || !value.kGrid.every(isCount)) {
    bad("kGrid", "a non-empty list of integers >= 1", value.kGrid);
  }
  if (!isCount(value.repeats)) bad("repeats", "an integer >= 1", value.repeats);
  if (typeof value.seed !== "number" || !Number.isInteger(value.seed) || value.seed < 0) {
    bad("seed", "an integer >= 0", value.seed);
  }
  if (typeof value.stratify !== "boolean") bad("stratify", "true or false", value.stratify);
  const f = value.fractions as unknown as Record<string, unknown> | null;
  if (
    f === null ||
    typeof f !== "object" ||
    typeof f.train !== "number" ||
    typeof f.val !== "number"
  ) {
    bad("fractions", "{train, val}", value.fractions);
  }
  if (value.methodOptions === null || typeof value.methodOptions !== "object") {
    bad("methodOptions", "an object", value.methodOptions);
  }
  if (value.grid === undefined || value.grid === null) bad("grid", "a grid", value.grid);
  if (!(PREPROCESSINGS as readonly unknown[]).includes(value.preprocess)) {
    bad("preprocess", `one of ${PREPROCESSINGS.join(", ")}`, value.preprocess);
  }
}
