/**
 * Where tests find the paper's datasets: $SDSPCAAN_DATA, else ../shared/data
 * relative to the repository root. A missing file is a loud failure, never a skip.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

export function dataDir(): string {
  return process.env.SDSPCAAN_DATA
    ? resolve(process.env.SDSPCAAN_DATA)
    : resolve(repoRoot, "..", "shared", "data");
}

/** Absolute path of a dataset file; throws (failing the test) when it is missing. */
export function dataFile(name: string): string {
  const p = join(dataDir(), name);
  if (!existsSync(p)) {
    throw new Error(
      `Test data file ${p} is missing. Set SDSPCAAN_DATA to the folder holding the paper's datasets (default ../shared/data).`,
    );
  }
  return p;
}

/** Absolute path of a committed fixture under test/fixtures. */
export function fixtureFile(name: string): string {
  const p = join(repoRoot, "test", "fixtures", name);
  if (!existsSync(p)) throw new Error(`Fixture ${p} is missing (see scripts/fixtures/).`);
  return p;
}
