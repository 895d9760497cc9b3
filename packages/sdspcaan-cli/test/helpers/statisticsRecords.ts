/** Fit records of the synthetic results in test/fixtures/experiment/statistics.json. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { removeDir, tempDir } from "sdspcaan-test-support";
import { afterAll, beforeAll } from "vitest";
import type { FitRecord } from "#internal/protocol/records.js";
import { fitRecordToLine } from "#internal/protocol/records.js";
import { statisticsFixture } from "../stats/fixture.js";
import { rec } from "./makeRecord.js";

/**
 * One record per (dataset, repeat, method) with the fixture's test BCA, plus a
 * record at another k with a worse validation BCA (selection must skip it).
 * `repeats` keeps the first repeats only; `drop` leaves methods out.
 */
export function fixtureRecords(
  options: { repeats?: number; drop?: readonly string[]; datasets?: readonly string[] } = {},
): FitRecord[] {
  const { bca } = statisticsFixture.results;
  const out: FitRecord[] = [];
  for (const [dataset, row] of Object.entries(bca)) {
    if (options.datasets && !options.datasets.includes(dataset)) continue;
    for (const [method, values] of Object.entries(row)) {
      if (options.drop?.includes(method)) continue;
      values.slice(0, options.repeats ?? values.length).forEach((testBCA, repeat) => {
        out.push(
          rec({ dataset, method, repeat, k: 4, valBCA: 0.6, testBCA }),
          rec({ dataset, method, repeat, k: 8, valBCA: 0.5, testBCA: 1 }),
        );
      });
    }
  }
  return out;
}

/**
 * A temporary folder holding `run/`, a finished run of `fixtureRecords()` (its
 * results.jsonl), made before the calling file's tests and removed after them.
 */
export function fixtureRunFolder(prefix: string): Readonly<{ root: string; run: string }> {
  const folder = { root: "", run: "" };
  beforeAll(() => {
    folder.root = tempDir(prefix);
    folder.run = join(folder.root, "run");
    mkdirSync(folder.run);
    writeFileSync(
      join(folder.run, "results.jsonl"),
      fixtureRecords().map(fitRecordToLine).join(""),
    );
  });
  afterAll(() => removeDir(folder.root));
  return folder;
}
