/**
 * Where data files are looked for, in order: the dataDir option (--data-dir), the
 * SDSPCAAN_DATA environment variable, the repository's own data/ folder (the
 * paper's datasets ship with a checkout; found from this module's location, so it
 * works from src/ under tsx or vitest and from dist/ after the build, whatever the
 * working directory), ../shared/data (relative to the working directory, where the
 * paper's copies sit next to a checkout), then the download cache that
 * `sdspcaan datasets fetch` fills; last, for some registry entries, where a system
 * package installs them (`systemDirs`, e.g. /usr/share/datasets).
 */
import { existsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { optionNames } from "../core/options.js";
import { checkCallOptions } from "../core/validate.js";

/** Which rule of the lookup order a directory comes from. */
export type DataSource = "data-dir" | "env" | "repository" | "shared" | "cache" | "system";

export interface DataDirectory {
  readonly dir: string;
  readonly source: DataSource;
}

export interface LocateOptions {
  /** The --data-dir option. */
  dataDir?: string;
  /** Environment to read SDSPCAAN_DATA and the cache location from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** Directory ../shared/data is relative to (default process.cwd()). */
  cwd?: string;
  /** The repository's data folder (default `repositoryDataDir()`). */
  repositoryDir?: string;
  /** Download cache (default `defaultCacheDir(env)`). */
  cacheDir?: string;
  /** Directories searched last (a registry entry's `systemDirs`). */
  systemDirs?: readonly string[];
}

/** A data file found on disk, and which rule found it. */
export interface DataLocation {
  readonly path: string;
  readonly source: DataSource;
}

/**
 * The data/ folder of the checkout this module belongs to: the package root
 * (packages/sdspcaan) is two levels above src/io/ and three above dist/esm/io/, and
 * the repository's root two above the package's (the command's dist/io/ sits at the
 * sources' depth). An installed package is not in a checkout, and the data/ found
 * from it is only used if it holds the registry's files.
 */
export function repositoryDataDir(moduleUrl: string = import.meta.url): string {
  const depth = /\/dist\/esm\/[^/]+\/[^/]+$/.test(moduleUrl) ? "../../../../../" : "../../../../";
  return fileURLToPath(new URL(`${depth}data`, moduleUrl));
}

/** `$XDG_CACHE_HOME/sdspcaan`, else `~/.cache/sdspcaan`. */
export function defaultCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CACHE_HOME;
  return xdg && xdg.trim() !== ""
    ? join(resolve(xdg), "sdspcaan")
    : join(homedir(), ".cache", "sdspcaan");
}

/** The names of {@link LocateOptions}. */
export const LOCATE_OPTION_NAMES = optionNames<LocateOptions>({
  dataDir: true,
  env: true,
  cwd: true,
  repositoryDir: true,
  cacheDir: true,
  systemDirs: true,
});

/** The directories searched, in order (duplicates removed). */
export function dataDirectories(options: LocateOptions = {}): DataDirectory[] {
  checkCallOptions(options, "dataDirectories", LOCATE_OPTION_NAMES);
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const out: DataDirectory[] = [];
  const add = (dir: string | undefined, source: DataSource) => {
    if (!dir || dir.trim() === "") return;
    const abs = resolve(cwd, dir);
    if (!out.some((d) => d.dir === abs)) out.push({ dir: abs, source });
  };
  add(options.dataDir, "data-dir");
  add(env.SDSPCAAN_DATA, "env");
  add(options.repositoryDir ?? repositoryDataDir(), "repository");
  add(join("..", "shared", "data"), "shared");
  add(options.cacheDir ?? defaultCacheDir(env), "cache");
  for (const dir of options.systemDirs ?? []) add(dir, "system");
  return out;
}

/** The first directory in the lookup order holding `fileName`, or null. */
export function locateDataFile(fileName: string, options: LocateOptions = {}): DataLocation | null {
  checkCallOptions(options, "locateDataFile", LOCATE_OPTION_NAMES);
  for (const { dir, source } of dataDirectories(options)) {
    const p = join(dir, fileName);
    if (existsSync(p) && statSync(p).isFile()) return { path: p, source };
  }
  return null;
}
