/**
 * `sdspcaan compress` killed (SIGKILL, in a child process) after each of its steps,
 * and the states a kill inside a write leaves, built on disk: the next compress
 * finishes the job with every line once (it once appended the plain lines again
 * after a kill between the .gz's rename and the plain file's removal), and nothing
 * a dead process left (temporary files, its lock, a lock it moved aside) stays.
 * On a full disk (a 64 KiB tmpfs; mounting needs root, as CI has, and the case says
 * so loudly and skips where it cannot) it names the file, and leaves the files as
 * they were with no temporary file and no lock.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { repoRoot } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import type { FitRecord } from "#internal/protocol/records.js";
import {
  type CompressStep,
  compressRunResults,
  gzipResults,
} from "#internal/runner/compress.node.js";
import { resultLineText } from "#internal/runner/resultsFile.node.js";
import { readRunResults } from "#internal/runner/runResults.node.js";
import { removeDir, tempDir } from "../helpers/runs.js";

const root = tempDir("compress-crash");
const mounted: string[] = [];
afterAll(() => {
  for (const m of mounted) spawnSync("umount", ["-l", m]);
  removeDir(root);
});

function line(k: number): string {
  const r: FitRecord = {
    dataset: "D",
    repeat: k % 3,
    method: "pca",
    k,
    params: {},
    valBCA: (k % 7) / 7,
    testBCA: (k % 5) / 5,
    iterations: 1,
    converged: true,
    fitMs: k * 1.5,
  };
  return resultLineText(r);
}

const OLD = Array.from({ length: 30 }, (_, i) => line(i + 1));
const NEW = Array.from({ length: 20 }, (_, i) => line(i + 100));

let count = 0;
/** A run folder: a .gz holding `gz`'s lines and a plain file holding `plain`'s. */
function runFolder(gz: readonly string[], plain: readonly string[]): string {
  const dir = join(root, `run-${++count}`);
  mkdirSync(dir);
  if (gz.length > 0) writeFileSync(join(dir, "results.jsonl.gz"), gzipResults(gz.join("")));
  writeFileSync(join(dir, "results.jsonl"), plain.join(""));
  return dir;
}

/** What a finished compression leaves: the .gz alone, each line once, in order. */
function expectCompressed(dir: string, lines: readonly string[]): void {
  expect(readdirSync(dir)).toEqual(["results.jsonl.gz"]);
  expect(gunzipSync(readFileSync(join(dir, "results.jsonl.gz"))).toString("utf8")).toBe(
    lines.join(""),
  );
}

/** The id of a process of this host that has ended. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

const STEPS: CompressStep[] = ["locked", "checked", "written", "verified", "removed"];

describe("compress killed after each step", () => {
  for (const step of STEPS) {
    it(`after '${step}', the next compress gives each line once and leaves nothing behind`, () => {
      const dir = runFolder(OLD, NEW);
      const before = readRunResults(dir);
      const script = `import { compressRunResults } from ${JSON.stringify(join(repoRoot, "packages/sdspcaan-cli/src/runner/compress.node.ts"))};
compressRunResults(${JSON.stringify(dir)}, { onStep: (s) => { if (s === ${JSON.stringify(step)}) process.kill(process.pid, "SIGKILL"); } });`;
      const r = spawnSync(
        process.execPath,
        ["--import", "tsx", "--input-type=module", "-e", script],
        {
          cwd: repoRoot,
          encoding: "utf8",
        },
      );
      expect(r.signal, r.stderr).toBe("SIGKILL");
      // Whatever the kill left reads as the same results.
      expect(readRunResults(dir).records).toEqual(before.records);
      const again = compressRunResults(dir);
      expectCompressed(dir, [...OLD, ...NEW]);
      expect(readRunResults(dir).records).toEqual(before.records);
      if (step === "written" || step === "verified") {
        expect(again.files[0]).toMatchObject({ linesAdded: 0, linesRepeated: NEW.length });
        expect(again.notes.join("\n")).toContain(
          `${NEW.length} lines of results.jsonl or results.jsonl.gz were in results.jsonl.gz already`,
        );
      }
      // A kill after the lock leaves it; the next compress takes it over.
      expect(again.notes.join("\n")).toMatch(
        step === "removed"
          ? /Removed the lock an earlier run left on .*results\.jsonl \(process \d+ no longer exists\)/
          : /Took over the lock of an earlier run of .*results\.jsonl \(process \d+ no longer exists\)/,
      );
    });
  }

  it("a kill inside the writes: a dead process's temporary files and lock are removed", () => {
    const dir = runFolder(OLD, NEW);
    const pid = deadPid();
    const host = hostname().replace(/[^A-Za-z0-9.-]/g, "_");
    const plain = join(dir, "results.jsonl");
    writeFileSync(`${plain}.gz.tmp-${host}-${pid}`, gzipResults(OLD.join("")).subarray(0, 40));
    writeFileSync(`${plain}.lock.tmp-${host}-${pid}`, "");
    writeFileSync(`${plain}.lock.stale-${host}-${pid}`, "{}\n");
    writeFileSync(
      `${plain}.lock`,
      `${JSON.stringify({ host: hostname(), pid, started: "2020-01-01T00:00:00.000Z" })}\n`,
    );
    // Another host's files are not this host's to judge: they stay.
    writeFileSync(`${plain}.gz.tmp-elsewhere-${pid}`, "");
    compressRunResults(dir);
    expect(readdirSync(dir).sort()).toEqual([
      "results.jsonl.gz",
      `results.jsonl.gz.tmp-elsewhere-${pid}`,
    ]);
    rmSync(`${plain}.gz.tmp-elsewhere-${pid}`);
    expectCompressed(dir, [...OLD, ...NEW]);
  });

  it("lines a resumed run appended after a kill are added once, and a doubled .gz heals", () => {
    // Killed after the rename: the .gz holds OLD and NEW, the plain file NEW; a
    // resumed run then appended two more fits.
    const extra = [line(500), line(501)];
    const dir = runFolder([...OLD, ...NEW], [...NEW, ...extra]);
    const r = compressRunResults(dir);
    expectCompressed(dir, [...OLD, ...NEW, ...extra]);
    expect(r.files[0]).toMatchObject({ linesBefore: 50, linesAdded: 2, linesRepeated: 20 });
    // A .gz an earlier compress wrote with every line twice.
    const doubled = runFolder([...OLD, ...NEW, ...NEW], NEW);
    compressRunResults(doubled);
    expectCompressed(doubled, [...OLD, ...NEW]);
  });
});

describe("compress on a full disk", () => {
  it("names the file, keeps the files as they were, leaves no temporary file and no lock", ({
    skip,
  }) => {
    const disk = join(root, "disk");
    mkdirSync(disk);
    const m = spawnSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", disk], {
      encoding: "utf8",
    });
    if (m.status !== 0) {
      process.stderr.write(
        `\n${"#".repeat(78)}\n# SKIPPING compress on a full disk (test/runner/compressCrash.test.ts): mounting a\n# tmpfs failed (${m.stderr.trim()}). It needs root, as CI has.\n${"#".repeat(78)}\n`,
      );
      skip("cannot mount a tmpfs");
    }
    mounted.push(disk);
    const dir = join(disk, "run");
    mkdirSync(dir);
    // Lines that compress poorly, so that the .gz needs several pages.
    const noisy = Array.from({ length: 120 }, (_, i) =>
      line(1000 + i).replace(
        '"fitMs":',
        `"warnings":["${createHash("sha256").update(String(i)).digest("hex")}"],"fitMs":`,
      ),
    );
    writeFileSync(join(dir, "results.jsonl"), noisy.join(""));
    const filler = join(disk, "filler");
    try {
      for (;;) writeFileSync(filler, Buffer.alloc(4096, 1), { flag: "a" });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
    }
    const plainBefore = readFileSync(join(dir, "results.jsonl"));
    // Full to the last page: the lock itself cannot be made.
    expect(() => compressRunResults(dir)).toThrow(
      `Cannot create the lock ${join(dir, "results.jsonl.lock")}: no space left on the device (ENOSPC).`,
    );
    expect(readdirSync(dir)).toEqual(["results.jsonl"]);
    // One page free: the lock is made, the .gz is not.
    writeFileSync(filler, readFileSync(filler).subarray(0, -4096));
    expect(() => compressRunResults(dir)).toThrow(
      `Cannot write ${join(dir, "results.jsonl.gz")}: no space left on the device (ENOSPC).`,
    );
    expect(readdirSync(dir)).toEqual(["results.jsonl"]);
    expect(readFileSync(join(dir, "results.jsonl")).equals(plainBefore)).toBe(true);
    expect(existsSync(join(dir, "results.jsonl.lock"))).toBe(false);
  });
});
