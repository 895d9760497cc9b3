/**
 * `npm test`'s vitest: every package's suite (each package's tests sit in its own
 * test/ folder, mirroring its src/) and the project checks under test/project. A
 * package's own vitest.config.ts runs its suite alone.
 */
import { defineConfig } from "vitest/config";
import { ISOLATED_TEST_FILES as LIBRARY_ISOLATED } from "./packages/sdspcaan/vitest.config.js";
import { ISOLATED_TEST_FILES as CLI_ISOLATED } from "./packages/sdspcaan-cli/vitest.config.js";
import { ISOLATED_TEST_FILES as HDF5_ISOLATED } from "./packages/sdspcaan-hdf5/vitest.config.js";
import { packageProjects, sourceAliases, testOptions } from "./vitest.shared.js";

/** The project checks that change process-wide state the guard cannot read: none. */
export const ISOLATED_PROJECT_FILES: string[] = [];

/** Each package's isolated files, from the repository's root, for the isolation check. */
export const ISOLATED_TEST_FILES = [
  ...LIBRARY_ISOLATED.map((f) => `packages/sdspcaan/${f}`),
  ...CLI_ISOLATED.map((f) => `packages/sdspcaan-cli/${f}`),
  ...HDF5_ISOLATED.map((f) => `packages/sdspcaan-hdf5/${f}`),
  ...ISOLATED_PROJECT_FILES,
];

export default defineConfig({
  resolve: { alias: sourceAliases },
  test: {
    ...testOptions,
    projects: [
      ...packageProjects("sdspcaan", "packages/sdspcaan", LIBRARY_ISOLATED),
      ...packageProjects("sdspcaan-cli", "packages/sdspcaan-cli", CLI_ISOLATED),
      ...packageProjects("sdspcaan-hdf5", "packages/sdspcaan-hdf5", HDF5_ISOLATED),
      // the root's own test/ holds only the project checks (test/e2e and test/slow are excluded)
      ...packageProjects("project", ".", ISOLATED_PROJECT_FILES),
    ],
  },
});
