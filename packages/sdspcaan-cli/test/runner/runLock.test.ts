/**
 * One writer per results file: a second run on the same folder (and shard) refuses
 * while the first runs, shards of one plan run side by side, and a lock left by a
 * crashed run is taken over.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { ValidationError } from "sdspcaan";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResultsFile } from "#internal/runner/resultsFile.node.js";
import { RunLock, STALE_AFTER_MS } from "#internal/runner/runLock.node.js";
import { type ExperimentOptions, runExperiment } from "#internal/runner/runner.node.js";
import { iterativeRun, removeDir, tempDir } from "../helpers/runs.js";

const base: ExperimentOptions = iterativeRun({ repeats: 1, inProcess: true });

let root: string;
beforeAll(() => {
  root = tempDir("run-lock");
});
afterAll(() => removeDir(root));

/** The id of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  return Number(r.stdout.trim());
}

function writeLock(results: string, owner: object, ageMs = 0): string {
  const path = RunLock.pathFor(results);
  writeFileSync(path, `${JSON.stringify(owner)}\n`);
  const t = new Date(Date.now() - ageMs);
  utimesSync(path, t, t);
  return path;
}

describe("RunLock", () => {
  it("refuses a second holder while the first lives, naming it; release frees it", () => {
    const results = join(root, "a.jsonl");
    const first = RunLock.acquire(results);
    expect(() => RunLock.acquire(results)).toThrow(ValidationError);
    expect(() => RunLock.acquire(results)).toThrow(
      new RegExp(`Another experiment is writing .*a\\.jsonl \\(process ${process.pid} on `),
    );
    first.release();
    expect(existsSync(RunLock.pathFor(results))).toBe(false);
    const again = RunLock.acquire(results);
    expect(again.tookOver).toBeNull();
    again.release();
  });

  it("takes over the lock of a process of this host that is gone", () => {
    const results = join(root, "b.jsonl");
    const pid = deadPid();
    writeLock(results, { host: hostname(), pid, started: "2026-01-01T00:00:00Z" });
    const lock = RunLock.acquire(results);
    expect(lock.tookOver).toBe(`process ${pid} no longer exists`);
    expect(JSON.parse(readFileSync(RunLock.pathFor(results), "utf8")).pid).toBe(process.pid);
    lock.release();
  });

  it("respects another host's fresh lock and takes over one left untouched", () => {
    const results = join(root, "c.jsonl");
    const owner = { host: "some-other-node", pid: 1, started: "2026-01-01T00:00:00Z" };
    writeLock(results, owner, 60_000);
    expect(() => RunLock.acquire(results)).toThrow(/process 1 on some-other-node/);
    writeLock(results, owner, STALE_AFTER_MS + 60_000);
    const lock = RunLock.acquire(results);
    expect(lock.tookOver).toMatch(/^untouched for \d+ min$/);
    lock.release();
  });

  it("a lock cut short by a crash is stale once old, respected while fresh", () => {
    const results = join(root, "d.jsonl");
    writeFileSync(RunLock.pathFor(results), '{"host":');
    expect(() => RunLock.acquire(results)).toThrow(/another process/);
    const old = new Date(Date.now() - STALE_AFTER_MS - 1000);
    utimesSync(RunLock.pathFor(results), old, old);
    RunLock.acquire(results).release();
  });

  it("release leaves alone a lock that another process holds now", () => {
    const results = join(root, "e.jsonl");
    const mine = RunLock.acquire(results);
    const theirs = writeLock(results, { host: "x", pid: 2, started: "now" });
    mine.release();
    expect(existsSync(theirs)).toBe(true);
  });
});

describe("experiments on one folder", () => {
  it("a second run of the same folder refuses while the first runs; each fit is written once", async () => {
    const out = join(root, "same");
    const first = runExperiment({ ...base, out });
    const second = runExperiment({ ...base, out });
    const [a, b] = await Promise.allSettled([first, second]);
    expect(a.status).toBe("fulfilled");
    expect(b.status).toBe("rejected");
    expect(String((b as PromiseRejectedResult).reason)).toMatch(/Another experiment is writing/);
    const parsed = readResultsFile(join(out, "results.jsonl"));
    const total = (a as PromiseFulfilledResult<{ total: number }>).value.total;
    expect(parsed.records.length + parsed.skipped.length).toBe(total);
    expect(existsSync(RunLock.pathFor(join(out, "results.jsonl")))).toBe(false);
    // Finished: the folder is free again, and a new run resumes everything.
    const again = await runExperiment({ ...base, out });
    expect(again.resumed).toBe(total);
  });

  it("shards of one plan run side by side", async () => {
    const out = join(root, "shards");
    const results = await Promise.all(
      [0, 1].map((index) => runExperiment({ ...base, out, shard: { index, count: 2 } })),
    );
    for (const r of results) expect(r.total).toBeGreaterThan(0);
  });

  it("a run whose earlier process was killed resumes after taking over its lock", async () => {
    const out = join(root, "crashed");
    const done = await runExperiment({ ...base, out });
    writeLock(join(out, "results.jsonl"), {
      host: hostname(),
      pid: deadPid(),
      started: "2026-01-01T00:00:00Z",
    });
    const notes: string[] = [];
    const again = await runExperiment({ ...base, out }, { onMessage: (m) => notes.push(m.text) });
    expect(again.resumed).toBe(done.total);
    expect(notes.some((n) => /Took over the lock .*no longer exists/.test(n))).toBe(true);
  });
});
