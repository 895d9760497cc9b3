/**
 * Most test files share one module graph per vitest worker (vitest.config.ts, project
 * "shared" of each package); a file that changes process-wide state must run isolated, or the files
 * after it in the same worker would see its kernel backend, helper threads or test
 * settings. This keeps vitest.config.ts's list of isolated files complete.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { ISOLATED_TEST_FILES } from "../../vitest.config.js";

/** What a test file writes that outlives it: setters of module state, mocks, the environment. */
const PROCESS_WIDE =
  /\b(setKernelThreads|setNativeKernels|setKernelHelpers|setSideHelper|setExternalKernels|setKernelBackend|setHdf5Reader|setFigureFont|qLoopTestHooks|withQLoopSettings)\b|\bvi\.(mock|doMock|spyOn|stubGlobal|stubEnv)\b|process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|\bdelete process\.env|process\.chdir|globalThis\.\w+\s*=[^=]/;

/** This file, whose examples of the pattern are not writes. */
const SELF = "test/project/isolation.test.ts";

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== "slow" && name !== "e2e") out.push(...testFiles(path));
    } else if (name.endsWith(".test.ts")) {
      out.push(relative(repoRoot, path).split("\\").join("/"));
    }
  }
  return out;
}

describe("the test files that change process-wide state", () => {
  const files = ["packages/sdspcaan/test", "packages/sdspcaan-cli/test", "test"].flatMap((dir) =>
    testFiles(join(repoRoot, dir)),
  );

  it("all run isolated", () => {
    const writers = files.filter(
      (f) => f !== SELF && PROCESS_WIDE.test(readFileSync(join(repoRoot, f), "utf8")),
    );
    expect(writers.length).toBeGreaterThan(5);
    expect(writers.filter((f) => !ISOLATED_TEST_FILES.includes(f))).toEqual([]);
  });

  it("are listed by paths that exist", () => {
    expect(ISOLATED_TEST_FILES.filter((f) => !files.includes(f))).toEqual([]);
  });

  it("are recognised by the pattern", () => {
    for (const text of [
      "setKernelThreads(2);",
      'process.env.SDSPCAAN_DATA = "x";',
      "delete process.env.CI;",
      'vi.spyOn(console, "log");',
      "withQLoopSettings({ largeScale: true }, fit);",
    ])
      expect(PROCESS_WIDE.test(text)).toBe(true);
    for (const text of ["expect(process.env.CI === undefined)", "kernelThreads()"])
      expect(PROCESS_WIDE.test(text)).toBe(false);
  });
});
