/**
 * What every vitest configuration of the repository shares: the packages' names
 * resolved to their sources (as tsconfig.json's `paths` say), and the two projects each
 * package's suite runs as.
 */
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { configDefaults, type TestProjectInlineConfiguration } from "vitest/config";

/** The packages' own names resolve to their sources, so tests and tsx need no build. */
export const sourceAliases = [
  ["sdspcaan/formats", "packages/sdspcaan/src/formats/index.ts"],
  ["sdspcaan/methods", "packages/sdspcaan/src/methods/index.ts"],
  ["sdspcaan/node", "packages/sdspcaan/src/node.ts"],
  ["sdspcaan/worker", "packages/sdspcaan/src/worker/index.ts"],
  ["sdspcaan-hdf5", "packages/sdspcaan-hdf5/src/index.ts"],
  ["sdspcaan-test-support", "packages/test-support/src/index.ts"],
  ["sdspcaan", "packages/sdspcaan/src/index.ts"],
].map(([name, path]) => ({
  find: new RegExp(`^${name}$`),
  replacement: fileURLToPath(new URL(path, import.meta.url)),
}));

/**
 * Every test file starts on the kernels a Node user of the library gets by default
 * (the native GEMM where it was built; see the file).
 */
export const defaultKernelsSetup = fileURLToPath(
  new URL("packages/test-support/src/defaultKernels.ts", import.meta.url),
);

/** Options of every run: long numerical tests, the default kernels, one worker per core. */
export const testOptions = {
  setupFiles: [defaultKernelsSetup],
  testTimeout: 120_000,
  hookTimeout: 120_000,
  pool: "forks" as const,
  // vitest's default, one core less than the machine has, is a single worker on two
  // cores, which leaves one core idle while the worker runs the tests.
  maxWorkers: Math.max(2, availableParallelism() - 1),
};

/** The slow checks and the browser tests run by their own configurations. */
export const excludedFromSuite = [...configDefaults.exclude, "test/e2e/**", "test/slow/**"];

/** Each suite's setup file of its shared project, relative to the suite's root. */
export const PROCESS_STATE_GUARD = "test/setup/processState.ts";

/**
 * A package's suite as two projects. Most files share one module graph per worker
 * process (`isolate: false`), which saves loading the library once per file; a file may
 * change process-wide state (kernel backend, helper threads, the native GEMM, the HDF5
 * reader, the figure font, spies, the environment) if it restores it, which the shared
 * project's setup file (PROCESS_STATE_GUARD, calling sdspcaan-test-support's
 * guardProcessState) checks after every file, failing the file that did not. The few
 * files that change what the guard cannot read (module mocks, the WebAssembly loader's
 * test state, registered helper factories) run `isolated`, each in a fresh module graph.
 * `root` is the package's folder (relative to the configuration's); `isolated` lists
 * files relative to it. test/project/isolation.test.ts keeps the lists right.
 */
export function packageProjects(
  name: string,
  root: string,
  isolated: readonly string[],
): TestProjectInlineConfiguration[] {
  const common = { root, resolve: { alias: sourceAliases } };
  const shared: TestProjectInlineConfiguration = {
    ...common,
    test: {
      ...testOptions,
      name: `${name}:shared`,
      include: ["test/**/*.test.ts"],
      exclude: [...excludedFromSuite, ...isolated],
      isolate: false,
      setupFiles: [defaultKernelsSetup, PROCESS_STATE_GUARD],
    },
  };
  // An empty `include` would mean vitest's default, every test file.
  if (isolated.length === 0) return [shared];
  return [
    {
      ...common,
      test: {
        ...testOptions,
        name: `${name}:isolated`,
        include: [...isolated],
        exclude: excludedFromSuite,
      },
    },
    shared,
  ];
}
