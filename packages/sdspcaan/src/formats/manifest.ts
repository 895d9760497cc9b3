/**
 * The names of a data set, and the playground's list of the registry's data sets
 * (datasets.json): the CLI's server (src/cli/playgroundServer.ts) writes it from
 * src/io/registry.ts and the page (src/playground/) reads it. Browser-safe and
 * outside both, so each imports it without pulling in the other.
 */

/** What a data set is known by: its name, its file name and other names. */
export interface DatasetNames {
  /** Registry name, e.g. "Yale": also the name that seeds the split, as in the CLI. */
  readonly name: string;
  /** File name, e.g. "Yale_32x32.mat". */
  readonly file: string;
  /** Other file names and names it is known by. */
  readonly aliases: readonly string[];
}

/** The entry whose name, file name or alias is `nameOrFile` (case-insensitive), or null. */
export function findByName<T extends DatasetNames>(
  entries: readonly T[],
  nameOrFile: string,
): T | null {
  const key = nameOrFile.trim().toLowerCase();
  return (
    entries.find(
      (d) =>
        d.name.toLowerCase() === key ||
        d.file.toLowerCase() === key ||
        d.aliases.some((a) => a.toLowerCase() === key),
    ) ?? null
  );
}

/** A registry data set the page can offer, as datasets.json lists it. */
export interface ManifestEntry extends DatasetNames {
  readonly xVar: string | null;
  readonly yVar: string | null;
  readonly labelColumn: number | string | null;
  /** Where the page fetches it, relative to the page; null when not served. */
  readonly url: string | null;
  /** Size in bytes of the served file, when served. */
  readonly bytes: number | null;
}
