/**
 * settings.json of a results directory: reading and checking it, and how the
 * settings of a resumed run differ from the recorded ones.
 */
import { existsSync } from "node:fs";
import { DataFormatError } from "sdspcaan";
import { PREPROCESSINGS } from "sdspcaan/methods";
import type { DatasetSettings, PluginSettings, RunSettings } from "../protocol/plan.js";
import { checkRunPlugins } from "./plugins.node.js";
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
  out.push(...pluginDifferences(previous, current));
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

/** The plug-in of a method under some settings (undefined: none recorded, a built-in). */
function pluginOf(settings: RunSettings, method: string): PluginSettings | undefined {
  return settings.plugins?.find((p) => p.methods.includes(method));
}

/**
 * The methods of both runs whose plug-in content differs (its SHA-256, or a plug-in
 * on one side only), each naming the plug-in and the method. A fit of such a method
 * is not a result of this run's code: none of them is kept (--force redoes them).
 */
export function pluginDifferences(
  previous: RunSettings,
  current: RunSettings,
): SettingsDifference[] {
  const out: SettingsDifference[] = [];
  const both = current.methods.filter((m) => (previous.methods ?? []).includes(m));
  for (const method of both) {
    const before = pluginOf(previous, method);
    const now = pluginOf(current, method);
    if (before?.sha256 === now?.sha256) continue;
    const side = (p: PluginSettings | undefined) =>
      p === undefined ? "no plug-in" : `SHA-256 ${p.sha256.slice(0, 12)}...`;
    out.push({
      setting: "plugins",
      message: `the plug-in ${(now ?? before)?.path} of method ${method} changed: ${side(before)} before, ${side(now)} now`,
      keepsResults: false,
    });
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
 * settings.json as a report reads it: `readRunSettings`, and the plug-ins it records
 * loaded, each with the content the run was made with (a report of another plug-in's
 * fits, or of a method it cannot load, is refused naming the plug-in and the method).
 */
export function readReportSettings(dir: string): RunSettings | null {
  const settings = readRunSettings(dir);
  if (settings !== null) checkRunPlugins(settings, resultsPaths(dir).settings);
  return settings;
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
  if (value.plugins !== undefined) {
    if (!Array.isArray(value.plugins)) bad("plugins", "a list of plug-ins", value.plugins);
    value.plugins.forEach((p, i) => {
      if (p === null || typeof p !== "object") bad(`plugins[${i}]`, "an object", p);
      if (typeof p.path !== "string" || p.path === "") bad(`plugins[${i}].path`, "a path", p.path);
      if (typeof p.sha256 !== "string" || !/^[0-9a-f]{64}$/.test(p.sha256)) {
        bad(`plugins[${i}].sha256`, "a SHA-256 in hex", p.sha256);
      }
      if (
        !Array.isArray(p.methods) ||
        (p.methods as unknown[]).some((m) => typeof m !== "string")
      ) {
        bad(`plugins[${i}].methods`, "a list of method names", p.methods);
      }
    });
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
