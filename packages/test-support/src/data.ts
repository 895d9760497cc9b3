/**
 * Where tests find the paper's datasets: the repository's own data/ folder, always.
 * There is no override on purpose: an SDSPCAAN_DATA exported in a developer's shell
 * must not make the suite read files outside the checkout, and data/ is what a fresh
 * clone and CI test. A missing file is a loud failure, never a skip.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseBytes } from "sdspcaan/formats";
import { nodeInflater } from "sdspcaan/node";
// MAT v7.3 files (Musk1.mat) are HDF5: the reader is installed as the command installs it.
import "sdspcaan-hdf5";

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");

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

/**
 * Where committed fixtures live: each package's test/fixtures/, then the root's (the
 * project checks'). Their first folders differ (linalg/, methods/, graph/ are the
 * library's; cli/, experiment/, io/, stats/, paper/ the command's), so a name says
 * which package's fixture it is (hdf5/ is sdspcaan-hdf5's).
 */
const FIXTURE_DIRS = [
  join(repoRoot, "packages", "sdspcaan", "test", "fixtures"),
  join(repoRoot, "packages", "sdspcaan-cli", "test", "fixtures"),
  join(repoRoot, "packages", "sdspcaan-hdf5", "test", "fixtures"),
  join(repoRoot, "test", "fixtures"),
];

/** Absolute path of a committed fixture, e.g. "linalg/eigh.json" (see scripts/fixtures/). */
export function fixtureFile(name: string): string {
  for (const dir of FIXTURE_DIRS) {
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  throw new Error(
    `Fixture ${name} is missing from ${FIXTURE_DIRS.join(", ")} (see scripts/fixtures/).`,
  );
}

/**
 * A data file of data/ parsed by the library alone (`parseBytes` with node:zlib), as
 * the library's tests read the paper's data sets without the command's loader.
 */
export async function readDataFile(
  name: string,
  options: Parameters<typeof parseBytes>[2] = {},
): Promise<Awaited<ReturnType<typeof parseBytes>>> {
  return parseBytes(new Uint8Array(readFileSync(dataFile(name))), name, options, nodeInflater);
}
