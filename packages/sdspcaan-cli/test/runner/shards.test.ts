/**
 * A run cut into shards: the shards' records together are the single-process
 * run's records (timings aside), each shard resumes from its own file, `report`
 * merges the files into the same table, and two different results for one fit in
 * two files are an error naming both.
 */
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DataFormatError } from "sdspcaan";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeRunReports } from "#internal/reports/reportFiles.node.js";
import { readResultsFile } from "#internal/runner/resultsFile.node.js";
import { type ExperimentOptions, runExperiment } from "#internal/runner/runner.node.js";
import { comparable, iterativeRun, removeDir, tempDir } from "../helpers/runs.js";

const base: ExperimentOptions = iterativeRun({ inProcess: true });
const COUNT = 3;

let root: string;
let single: ReturnType<typeof comparable>;
let singleTable: string;

beforeAll(async () => {
  root = tempDir("shards");
  const res = await runExperiment({ ...base, out: join(root, "single") });
  single = comparable([...res.records, ...res.skipped]);
  singleTable = (await writeRunReports(join(root, "single"), { figures: false })).tableMd;
});
afterAll(() => removeDir(root));

function shardLines(dir: string, index: number) {
  const parsed = readResultsFile(join(dir, `results.shard-${index}-of-${COUNT}.jsonl`));
  return [...parsed.records, ...parsed.skipped];
}

describe("sharded runs", () => {
  it("run disjoint shares whose union is the single run, and report the same table", async () => {
    const dir = join(root, "sharded");
    let planned = 0;
    for (let index = 0; index < COUNT; index++) {
      const res = await runExperiment({ ...base, out: dir, shard: { index, count: COUNT } });
      expect(res.shard).toEqual({ index, count: COUNT });
      expect(res.total).toBeGreaterThan(0);
      planned += res.total;
    }
    const lines = [0, 1, 2].flatMap((i) => shardLines(dir, i));
    expect(planned).toBe(single.length);
    expect(comparable(lines)).toEqual(single);
    const report = await writeRunReports(dir, { figures: false });
    expect(report.tableMd).toBe(singleTable);
    expect(report.notes).toContain("Merged 3 shard files.");
  });

  it("resumes a shard from its own file without redoing its finished fits", async () => {
    const dir = join(root, "resumed");
    const first = await runExperiment({ ...base, out: dir, shard: { index: 1, count: COUNT } });
    const again = await runExperiment({ ...base, out: dir, shard: { index: 1, count: COUNT } });
    expect(again.resumed).toBe(first.total);
    expect(comparable([...again.records, ...again.skipped])).toEqual(
      comparable([...first.records, ...first.skipped]),
    );
    // The other shards are missing: the report says the run is incomplete, and which.
    const report = await writeRunReports(dir, { figures: false });
    expect(report.notes.find((n) => n.startsWith("Incomplete run:"))).toMatch(
      /; cells marked † are not final\. No results files of shards 0\/3 and 2\/3 \(results\.shard-0-of-3\.jsonl, results\.shard-2-of-3\.jsonl\)\.$/,
    );
    expect(typeof report.completeness).not.toBe("string");
    if (typeof report.completeness !== "string") {
      expect(report.completeness.done).toBe(first.total);
      expect(report.completeness.planned).toBe(single.length);
    }
  });

  it("refuses two different results for one fit in two files, naming both", async () => {
    const dir = join(root, "conflict");
    await runExperiment({ ...base, out: dir, shard: { index: 0, count: COUNT } });
    await runExperiment({ ...base, out: dir, shard: { index: 2, count: COUNT } });
    const file0 = join(dir, `results.shard-0-of-${COUNT}.jsonl`);
    const first = JSON.parse(readFileSync(file0, "utf8").split("\n")[0]);
    const file2 = join(dir, `results.shard-2-of-${COUNT}.jsonl`);
    const lineNo = readFileSync(file2, "utf8").split("\n").filter(Boolean).length + 1;
    appendFileSync(
      file2,
      `${JSON.stringify({ ...first, testBCA: first.testBCA === 1 ? 0 : 1 })}\n`,
    );
    const err = await writeRunReports(dir, { figures: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DataFormatError);
    const message = (err as Error).message;
    expect(message).toContain(file2);
    expect(message).toContain(file0);
    expect(message).toContain(`line ${lineNo} `);
    expect(message).toContain("line 1 of");
    // The same line again, agreeing, is read once.
    const dup = join(root, "duplicate");
    await runExperiment({ ...base, out: dup, shard: { index: 0, count: COUNT } });
    const text = readFileSync(join(dup, `results.shard-0-of-${COUNT}.jsonl`), "utf8");
    appendFileSync(join(dup, "results.jsonl"), text.split("\n")[0].concat("\n"));
    const report = await writeRunReports(dup, { figures: false });
    expect(report.notes).toContain("Merged results.jsonl and 1 shard file.");
  });

  it("a whole run on a folder of finished shards resumes every fit and writes no results.jsonl", async () => {
    const dir = join(root, "whole-after-shards");
    for (let index = 0; index < COUNT; index++) {
      await runExperiment({ ...base, out: dir, shard: { index, count: COUNT } });
    }
    const notes: string[] = [];
    const res = await runExperiment(
      { ...base, out: dir },
      { onMessage: (m) => notes.push(m.text) },
    );
    expect(res.resumed).toBe(single.length);
    expect(res.total).toBe(single.length);
    expect(res.resultsFile).toBeNull();
    expect(existsSync(join(dir, "results.jsonl"))).toBe(false);
    expect(comparable([...res.records, ...res.skipped])).toEqual(single);
    expect(notes).toContain(
      `Resuming: reusing ${single.length} finished fits of ${single.length} from 3 shard files (their settings fingerprint matches this run); 0 fits to run.`,
    );
  });

  it("a whole run on a folder of some shards runs the other fits into results.jsonl", async () => {
    const dir = join(root, "whole-after-some-shards");
    const done = await runExperiment({ ...base, out: dir, shard: { index: 0, count: COUNT } });
    const res = await runExperiment({ ...base, out: dir });
    expect(res.resumed).toBe(done.total);
    const ran = readResultsFile(join(dir, "results.jsonl"));
    expect(ran.records.length + ran.skipped.length).toBe(single.length - done.total);
    expect(comparable([...res.records, ...res.skipped])).toEqual(single);
    const report = await writeRunReports(dir, { figures: false });
    expect(report.tableMd).toBe(singleTable);
  });

  it("refuses a shard outside the count", async () => {
    await expect(runExperiment({ ...base, shard: { index: 3, count: 3 } })).rejects.toThrow(
      /\[0, 2\]/,
    );
  });
});
