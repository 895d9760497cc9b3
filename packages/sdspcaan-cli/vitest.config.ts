/** The command's suite alone: `npx vitest run` here (the root configuration runs every package's). */
import { defineConfig } from "vitest/config";
import { packageProjects } from "../../vitest.shared.js";

/** Test files that change process-wide state (see packageProjects). */
export const ISOLATED_TEST_FILES = [
  "test/cli/commands/demo.test.ts",
  "test/cli/commands/experimentJobs.test.ts",
  "test/cli/main.test.ts",
  "test/io/cli.test.ts",
  "test/plot/render.test.ts",
];

export default defineConfig({
  test: { projects: packageProjects("sdspcaan-cli", ".", ISOLATED_TEST_FILES) },
});
