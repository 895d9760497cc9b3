/** Small seeded data and method lists for the runner and CLI tests. */
import { methodNames } from "sdspcaan";
import { smallData } from "sdspcaan-test-support";
import type { FitRecord } from "#internal/protocol/records.js";
import { fitKey } from "#internal/protocol/records.js";
import type { ResultLine } from "#internal/runner/resultsFile.node.js";
import type { ExperimentOptions } from "#internal/runner/runner.node.js";
import { readRunResults } from "#internal/runner/runResults.node.js";

export { removeDir, smallData, tempDir } from "sdspcaan-test-support";

/**
 * The run the runner tests share: `smallData()` as the data set "Small", k in {4, 8},
 * 2 repeats, seed 5. `overrides` sets the methods and whatever else a test varies.
 */
export function smallRun(overrides: Partial<ExperimentOptions> = {}): ExperimentOptions {
  const data = smallData();
  return {
    datasets: [{ name: "Small", X: data.X, y: data.y }],
    kGrid: [4, 8],
    repeats: 2,
    seed: 5,
    ...overrides,
  };
}

/**
 * `smallRun` with `testMethods()` and short iterative fits: one (alpha, beta), two
 * delta values, at most 30 outer iterations.
 */
export function iterativeRun(overrides: Partial<ExperimentOptions> = {}): ExperimentOptions {
  return smallRun({
    methods: testMethods(),
    grid: { alpha: [1], beta: [1], delta: [0.1, 10] },
    commonMethodOptions: { maxIter: 30 },
    ...overrides,
  });
}

/**
 * The methods the runner tests use: the closed-form ones plus, when registered,
 * one method per family (an SDSPCA-type fit with a graph and a PCAN-type fit),
 * so the tests cover iterative fits without running every method.
 */
export function testMethods(): string[] {
  const wanted = ["baseline", "pca", "sdspcaan", "pcan"];
  return wanted.filter((m) => methodNames().includes(m));
}

/** Registered methods that take the adaptive-neighbour count m (refused when m > n - 2). */
export function methodsWithNeighbours(): string[] {
  return testMethods().filter((m) => m === "sdspcaan" || m === "pcan");
}

/** Result lines without timings, sorted by fit identity: what must not depend on how a run went. */
export function comparable(lines: readonly ResultLine[]): Array<Record<string, unknown>> {
  return lines
    .map((line) => {
      const { fitMs: _t, ...rest } = line as FitRecord & { fitMs?: number };
      return { key: fitKey(line), ...rest };
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/** What the run in `dir` holds, read as `report` reads it, without timings. */
export function runResultsOf(dir: string): ReturnType<typeof comparable> {
  const parsed = readRunResults(dir);
  return comparable([...parsed.records, ...parsed.skipped]);
}
