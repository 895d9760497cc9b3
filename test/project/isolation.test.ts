/**
 * Most test files share one module graph per vitest worker (each package's "shared"
 * project, vitest.shared.ts), and a file that changes process-wide state must set it
 * back: the shared projects' setup file (guardProcessState in sdspcaan-test-support)
 * fails the file that does not. What the guard cannot read makes a file run isolated
 * instead; this keeps those lists right and short, and checks the guard itself.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { type KernelBackendRequest, setKernelBackend } from "sdspcaan";
import { kernelThreads, setKernelThreads } from "sdspcaan/node";
import {
  type ProcessProbe,
  processStateSnapshot,
  repoRoot,
  restoreProcessState,
} from "sdspcaan-test-support";
import { describe, expect, it, vi } from "vitest";
import { libraryProbes } from "../../packages/sdspcaan/test/setup/libraryState.js";
import config, { ISOLATED_TEST_FILES } from "../../vitest.config.js";
import { PROCESS_STATE_GUARD } from "../../vitest.shared.js";

/**
 * What a test file can change that the guard cannot read or set back: module mocks and
 * a fresh module registry (two instances of a module in one graph), helper factories
 * registered directly.
 */
const UNGUARDED =
  /\bvi\.(mock|doMock|unmock|doUnmock|resetModules)\b|\b(setKernelHelpers|setSideHelper|setThreadedProducts)\(/;

/** The most files that may run isolated, in the whole repository. */
const MAX_ISOLATED = 5;

/** This file, whose examples of the pattern are not uses. */
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

describe("the test files that run isolated", () => {
  const files = [
    "packages/sdspcaan/test",
    "packages/sdspcaan-cli/test",
    "packages/sdspcaan-hdf5/test",
    "test",
  ].flatMap((dir) => testFiles(join(repoRoot, dir)));
  const unguarded = files.filter(
    (f) => f !== SELF && UNGUARDED.test(readFileSync(join(repoRoot, f), "utf8")),
  );

  it("are the files that change what the guard cannot read", () => {
    expect(unguarded.length).toBeGreaterThan(0);
    expect([...ISOLATED_TEST_FILES].sort()).toEqual([...unguarded].sort());
  });

  it(`are at most ${MAX_ISOLATED}`, () => {
    expect(ISOLATED_TEST_FILES.length).toBeLessThanOrEqual(MAX_ISOLATED);
  });

  it("are listed by paths that exist", () => {
    expect(ISOLATED_TEST_FILES.filter((f) => !files.includes(f))).toEqual([]);
  });

  it("are recognised by the pattern", () => {
    for (const text of ['vi.mock("node:fs");', "vi.resetModules();", "setKernelHelpers(() => []);"])
      expect(UNGUARDED.test(text)).toBe(true);
    for (const text of ["setKernelThreads(2);", 'vi.spyOn(console, "log");', "sideHelper()"])
      expect(UNGUARDED.test(text)).toBe(false);
  });
});

describe("the process-state guard", () => {
  it("runs after every file of every shared project", () => {
    const projects = (config.test?.projects ?? []) as Array<{
      test: { name: string; isolate?: boolean; setupFiles?: string[] };
    }>;
    const shared = projects.filter((p) => p.test.isolate === false);
    expect(shared.map((p) => p.test.name).sort()).toEqual([
      "project:shared",
      "sdspcaan-cli:shared",
      "sdspcaan-hdf5:shared",
      "sdspcaan:shared",
    ]);
    // Last, so that it reads the state the other setup files leave (the default kernels).
    for (const p of shared) expect(p.test.setupFiles?.at(-1)).toBe(PROCESS_STATE_GUARD);
  });

  it("names what a file left changed and sets it back", () => {
    let value = "default";
    const probe: ProcessProbe = {
      name: "the probe's value",
      read: () => value,
      restore: (v) => {
        value = v as string;
      },
    };
    const before = processStateSnapshot([probe]);
    const saved = process.env.SDSPCAAN_GUARD_CHECK;
    const exitCode = process.exitCode;
    try {
      process.env.SDSPCAAN_GUARD_CHECK = "changed";
      process.exitCode = 3;
      value = "changed";
      vi.spyOn(console, "warn").mockImplementation(() => undefined);
      const changed = restoreProcessState(before, [probe]);
      expect(changed).toEqual([
        `process.env.SDSPCAAN_GUARD_CHECK (${JSON.stringify(saved)} -> "changed")`,
        "process.exitCode (3)",
        "vi spies on console.warn",
        `the probe's value ("default" -> "changed")`,
      ]);
      expect(process.env.SDSPCAAN_GUARD_CHECK).toBe(saved);
      expect(process.exitCode).toBe(exitCode);
      expect(vi.isMockFunction(console.warn)).toBe(false);
      expect(value).toBe("default");
      expect(restoreProcessState(before, [probe])).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.SDSPCAAN_GUARD_CHECK;
      else process.env.SDSPCAAN_GUARD_CHECK = saved;
      process.exitCode = exitCode;
      vi.restoreAllMocks();
    }
  });

  it("reads the library's state: a kernel backend or thread count left changed is named and set back", () => {
    const before = processStateSnapshot(libraryProbes);
    const backendProbe = libraryProbes.find((p) => p.name.startsWith("the kernel backend"));
    const requested = () => backendProbe?.read() as KernelBackendRequest;
    const backend = requested();
    const threads = kernelThreads();
    try {
      setKernelBackend(backend === "ts" ? "portable" : "ts");
      setKernelThreads(threads + 1);
      const changed = restoreProcessState(before, libraryProbes);
      expect(changed).toHaveLength(2);
      expect(changed[0]).toBe(
        `the kernel backend (setKernelBackend) (${JSON.stringify(backend)} -> ${JSON.stringify(backend === "ts" ? "portable" : "ts")})`,
      );
      expect(changed[1]).toMatch(
        new RegExp(
          `^the kernel threads \\(setKernelThreads\\) \\(\\{"threads":${threads},.* -> \\{"threads":${threads + 1},`,
        ),
      );
      expect(requested()).toBe(backend);
      expect(kernelThreads()).toBe(threads);
      expect(restoreProcessState(before, libraryProbes)).toEqual([]);
    } finally {
      setKernelBackend(backend);
      setKernelThreads(threads);
    }
  });
});
