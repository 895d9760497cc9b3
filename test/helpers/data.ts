/**
 * Where tests find the paper's datasets: the repository's own data/ folder, always.
 * There is no override on purpose: an SDSPCAAN_DATA exported in a developer's shell
 * must not make the suite read files outside the checkout, and data/ is what a fresh
 * clone and CI test. A missing file is a loud failure, never a skip.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The repository's data/ folder. */
export function dataDir(): string {
  return join(repoRoot, "data");
}

/** Absolute path of a dataset file in data/; throws (failing the test) when it is missing. */
export function dataFile(name: string): string {
  const p = join(dataDir(), name);
  if (!existsSync(p)) {
    throw new Error(
      `Test data file ${p} is missing. The paper's datasets are committed under data/ (see data/README.md); restore it with 'git checkout -- data'.`,
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
