/** The library's suite alone: `npx vitest run` here (the root configuration runs every package's). */
import { defineConfig } from "vitest/config";
import { packageProjects } from "../../vitest.shared.js";

/**
 * Test files that change process-wide state the shared project's guard cannot read
 * (see packageProjects): each runs in a fresh module graph.
 */
export const ISOLATED_TEST_FILES = [
  // helper factories of its own (setKernelHelpers, setSideHelper)
  "test/threads/helperThread.test.ts",
];

export default defineConfig({
  test: { projects: packageProjects("sdspcaan", ".", ISOLATED_TEST_FILES) },
});
