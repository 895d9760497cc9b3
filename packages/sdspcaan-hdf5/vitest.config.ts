/** The HDF5 reader's suite alone: `npx vitest run` here (the root configuration runs every package's). */
import { defineConfig } from "vitest/config";
import { packageProjects } from "../../vitest.shared.js";

/**
 * Test files that change process-wide state the shared project's guard cannot read
 * (see packageProjects): none.
 */
export const ISOLATED_TEST_FILES: string[] = [];

export default defineConfig({
  test: { projects: packageProjects("sdspcaan-hdf5", ".", ISOLATED_TEST_FILES) },
});
