/**
 * `sdspcaan compress` (runner/compress.node.ts): the plain results files of a run
 * go into their .gz, after the lines a .gz there already holds; what report and
 * resume read is unchanged; it refuses bad lines, a run holding the lock, and
 * files that are not regular files, leaving everything as it was.
 */
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeRunReports } from "#internal/reports/reportFiles.node.js";
import { compressRunResults, gzipResults } from "#internal/runner/compress.node.js";
import { RunLock } from "#internal/runner/runLock.node.js";
import { type ExperimentOptions, runExperiment } from "#internal/runner/runner.node.js";
import { cli, lines } from "../helpers/cli.js";
import { type comparable, removeDir, runResultsOf, smallRun, tempDir } from "../helpers/runs.js";

const base: ExperimentOptions = smallRun({ methods: ["baseline", "pca"], workers: 1 });

let root: string;
let referenceDir: string;
let referenceText: string;
let reference: ReturnType<typeof comparable>;

beforeAll(async () => {
  root = tempDir("compress");
  referenceDir = join(root, "reference");
  await runExperiment({ ...base, out: referenceDir });
  await writeRunReports(referenceDir, { figures: false });
  referenceText = readFileSync(join(referenceDir, "results.jsonl"), "utf8");
  reference = runResultsOf(referenceDir);
});
afterAll(() => removeDir(root));

let dirCount = 0;
function copyRun(): string {
  const dir = join(root, `run-${++dirCount}`);
  cpSync(referenceDir, dir, { recursive: true });
  return dir;
}

function gunzipped(path: string): string {
  return gunzipSync(readFileSync(path)).toString("utf8");
}

/** The names in `dir` and the bytes of each file, to check that nothing changed. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((n) => {
        try {
          return [n, readFileSync(join(dir, n)).toString("base64")];
        } catch {
          return [n, "(not a file)"];
        }
      }),
  );
}

describe("compress", () => {
  it("replaces results.jsonl by results.jsonl.gz holding its lines, byte for byte, and the report is the same", async () => {
    const dir = copyRun();
    const r = await cli(["compress", "--out", dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /^Compressed .*results\.jsonl \(8 lines\) into results\.jsonl\.gz: \d+(\.\d)? kB -> \d+ bytes\.\n$/,
    );
    expect(existsSync(join(dir, "results.jsonl"))).toBe(false);
    expect(gunzipped(join(dir, "results.jsonl.gz"))).toBe(referenceText);
    // gzip level 9, no name, no time: the same lines give the same bytes.
    const header = readFileSync(join(dir, "results.jsonl.gz")).subarray(0, 10);
    expect([...header.subarray(3, 8)]).toEqual([0, 0, 0, 0, 0]); // FLG (no name), MTIME
    expect(readFileSync(join(dir, "results.jsonl.gz")).equals(gzipResults(referenceText))).toBe(
      true,
    );
    await writeRunReports(dir, { figures: false });
    for (const f of ["table.md", "table.csv", "summary.json", "statistics.md"]) {
      expect(readFileSync(join(dir, f), "utf8"), f).toBe(
        readFileSync(join(referenceDir, f), "utf8"),
      );
    }
    // Again: nothing left to compress, and nothing changes.
    const before = snapshot(dir);
    const again = await cli(["compress", "--out", dir]);
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/Nothing to compress: results\.jsonl\.gz is compressed already/);
    expect(snapshot(dir)).toEqual(before);
  });

  it("appends a resumed run's new lines after those of the .gz", async () => {
    const dir = copyRun();
    const all = referenceText.split("\n").filter(Boolean);
    writeFileSync(join(dir, "results.jsonl"), `${all.slice(0, 5).join("\n")}\n`);
    compressRunResults(dir);
    // A resumed run appends the three fits left to results.jsonl...
    const res = await runExperiment({ ...base, out: dir });
    expect(res.resumed).toBe(5);
    expect(
      readFileSync(join(dir, "results.jsonl"), "utf8").split("\n").filter(Boolean),
    ).toHaveLength(3);
    // ...and a line cut short by a crash is left behind by the next compression.
    writeFileSync(
      join(dir, "results.jsonl"),
      `${readFileSync(join(dir, "results.jsonl"), "utf8")}{"data`,
    );
    const done = compressRunResults(dir);
    expect(done.files).toHaveLength(1);
    expect(done.files[0]).toMatchObject({ linesBefore: 5, linesAdded: 3, droppedTail: 6 });
    expect(done.notes.join(" ")).toMatch(/Dropped 6 characters after the last line/);
    expect(existsSync(join(dir, "results.jsonl"))).toBe(false);
    const text = gunzipped(join(dir, "results.jsonl.gz"));
    expect(text.split("\n").filter(Boolean).slice(0, 5)).toEqual(all.slice(0, 5));
    expect(runResultsOf(dir)).toEqual(reference);
    expect((await runExperiment({ ...base, out: dir })).resumed).toBe(8);
  });

  it("compresses each shard's file into its own .gz", () => {
    const dir = copyRun();
    const all = referenceText.split("\n").filter(Boolean);
    unlinkSync(join(dir, "results.jsonl"));
    writeFileSync(join(dir, "results.shard-0-of-2.jsonl"), `${all.slice(0, 4).join("\n")}\n`);
    writeFileSync(join(dir, "results.shard-1-of-2.jsonl"), `${all.slice(4).join("\n")}\n`);
    const done = compressRunResults(dir);
    expect(done.files.map((f) => f.compressed.slice(dir.length + 1))).toEqual([
      "results.shard-0-of-2.jsonl.gz",
      "results.shard-1-of-2.jsonl.gz",
    ]);
    expect(readdirSync(dir).filter((n) => n.startsWith("results."))).toEqual([
      "results.shard-0-of-2.jsonl.gz",
      "results.shard-1-of-2.jsonl.gz",
    ]);
    expect(runResultsOf(dir)).toEqual(reference);
  });

  it("refuses bad lines, in either file or across the two, and changes nothing", async () => {
    const all = referenceText.split("\n").filter(Boolean);
    const other = JSON.stringify({
      ...JSON.parse(all[1]),
      testBCA: JSON.parse(all[1]).testBCA === 1 ? 0 : 1,
    });
    const cases: Array<[string, string, string | null, RegExp]> = [
      ["a bad line", `${all[0]}\n{oops\n`, null, /results\.jsonl: line 2 is not valid JSON/],
      [
        "a conflict across the files",
        `${other}\n`,
        `${all.join("\n")}\n`,
        /results\.jsonl: line 1 records the same fit as line 2 of .*results\.jsonl\.gz .*--repair/,
      ],
    ];
    for (const [what, plain, gz, pattern] of cases) {
      const dir = copyRun();
      writeFileSync(join(dir, "results.jsonl"), plain);
      if (gz !== null) writeFileSync(join(dir, "results.jsonl.gz"), gzipResults(gz));
      const before = snapshot(dir);
      const r = await cli(["compress", "--out", dir]);
      expect(r.code, what).toBe(1);
      expect(lines(r.stderr), what).toHaveLength(1);
      expect(r.stderr, what).toMatch(pattern);
      expect(snapshot(dir), what).toEqual(before);
    }
  });

  it("checks every shard's file before writing any", async () => {
    const dir = copyRun();
    const all = referenceText.split("\n").filter(Boolean);
    unlinkSync(join(dir, "results.jsonl"));
    writeFileSync(join(dir, "results.shard-0-of-2.jsonl"), `${all.slice(0, 4).join("\n")}\n`);
    writeFileSync(join(dir, "results.shard-1-of-2.jsonl"), `${all[4]}\n{oops\n`);
    const before = snapshot(dir);
    expect(() => compressRunResults(dir)).toThrow(
      /results\.shard-1-of-2\.jsonl: line 2 is not valid JSON/,
    );
    expect(snapshot(dir)).toEqual(before);
  });

  it("refuses while a run holds the lock, and a results file that is a symbolic link", async () => {
    const dir = copyRun();
    const before = snapshot(dir);
    const lock = RunLock.acquire(join(dir, "results.jsonl"));
    try {
      const r = await cli(["compress", "--out", dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/Another experiment is writing .*results\.jsonl/);
    } finally {
      lock.release();
    }
    expect(snapshot(dir)).toEqual(before);

    const real = join(root, `real-${dirCount}.jsonl`);
    renameSync(join(dir, "results.jsonl"), real);
    symlinkSync(real, join(dir, "results.jsonl"));
    const linked = snapshot(dir);
    const r = await cli(["compress", "--out", dir]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /results\.jsonl is a symbolic link: compressing would replace or remove the link, not the file it names/,
    );
    expect(snapshot(dir)).toEqual(linked);
    expect(readFileSync(real, "utf8")).toBe(referenceText);
  });

  it("refuses a folder that holds no results", async () => {
    const r = await cli(["compress", "--out", join(root, "none")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/is not a results directory/);
    const dir = copyRun();
    unlinkSync(join(dir, "results.jsonl"));
    expect(() => compressRunResults(dir)).toThrow(/holds no results file/);
  });
});
