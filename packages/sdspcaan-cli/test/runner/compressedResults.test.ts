/**
 * Results files stored gzip-compressed (results.jsonl.gz, a shard's .jsonl.gz):
 * read exactly as the plain file they compress, with the same checks and messages
 * naming the .gz; read before a plain results.jsonl beside them, which a resumed
 * run appends to; and, when --force or --repair must take lines out of the .gz
 * (or write fingerprints into them), folded into a rewritten results.jsonl before
 * the .gz is removed. Small synthetic runs only.
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
import { gzipSync } from "node:zlib";
import { DataFormatError } from "sdspcaan";
import { makeSyntheticDataset, type SyntheticOptions } from "sdspcaan/methods";
import { fixtureFile } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FitRecord } from "#internal/protocol/records.js";
import { writeRunReports } from "#internal/reports/reportFiles.node.js";
import { readResultsFile, scanResultsFile } from "#internal/runner/resultsFile.node.js";
import { RunLock } from "#internal/runner/runLock.node.js";
import {
  type ExperimentOptions,
  type RunSettings,
  runExperiment,
} from "#internal/runner/runner.node.js";
import { readRunResults, runResultsFiles } from "#internal/runner/runResults.node.js";
import { argv, cli, lines, writeCsv } from "../helpers/cli.js";
import {
  comparable,
  removeDir,
  runResultsOf,
  smallData,
  smallRun,
  tempDir,
} from "../helpers/runs.js";

const base: ExperimentOptions = smallRun({ methods: ["baseline", "pca"], workers: 1 });
/** Fits of `base`: 2 methods x 2 repeats x 2 k. */
const FITS = 8;
const REPORT_FILES = ["table.md", "table.csv", "summary.json", "statistics.md"];

let root: string;
let referenceDir: string;
let reference: ReturnType<typeof comparable>;
/** The reference run's lines of results.jsonl, without their "\n". */
let referenceLines: string[];

beforeAll(async () => {
  root = tempDir("gz-results");
  referenceDir = join(root, "reference");
  const res = await runExperiment({ ...base, out: referenceDir });
  reference = comparable([...res.records, ...res.skipped]);
  referenceLines = textLines(readFileSync(join(referenceDir, "results.jsonl"), "utf8"));
  await writeRunReports(referenceDir, { figures: false });
});
afterAll(() => removeDir(root));

function textLines(text: string): string[] {
  return text.split("\n").filter((l) => l !== "");
}

function text(list: readonly string[]): string {
  return list.map((l) => `${l}\n`).join("");
}

/** What `gzip -9 -n` makes of `text` (the same lines; zlib's own deflate bytes). */
function gzipText(content: string): Uint8Array {
  return gzipSync(content, { level: 9 });
}

let dirCount = 0;
/**
 * A copy of the reference run whose results are the given lines: `gz` in
 * results.jsonl.gz, `plain` (when given) in results.jsonl.
 */
function runWith(gz: readonly string[], plain?: readonly string[]): string {
  const dir = join(root, `run-${++dirCount}`);
  cpSync(referenceDir, dir, { recursive: true });
  unlinkSync(join(dir, "results.jsonl"));
  writeFileSync(join(dir, "results.jsonl.gz"), gzipText(text(gz)));
  if (plain !== undefined) writeFileSync(join(dir, "results.jsonl"), text(plain));
  return dir;
}

/** The reference line `i` with other values (a conflicting result, another fingerprint). */
function changed(i: number, fields: Partial<FitRecord>): string {
  return JSON.stringify({ ...JSON.parse(referenceLines[i]), ...fields });
}

function otherBCA(i: number): Partial<FitRecord> {
  return { testBCA: JSON.parse(referenceLines[i]).testBCA === 1 ? 0 : 1 };
}

/** No temporary file of an atomic write is left in `dir`. */
function expectNoTemporaries(dir: string): void {
  expect(readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([]);
}

describe("reading a compressed results file", () => {
  it("reads the same lines as the plain file, and the report is byte for byte the same", async () => {
    const dir = runWith(referenceLines);
    const plain = readResultsFile(join(referenceDir, "results.jsonl"));
    expect(readResultsFile(join(dir, "results.jsonl.gz"))).toEqual(plain);
    expect(runResultsFiles(dir)).toEqual([join(dir, "results.jsonl.gz")]);
    expect(runResultsOf(dir)).toEqual(reference);
    await writeRunReports(dir, { figures: false });
    for (const f of REPORT_FILES) {
      expect(readFileSync(join(dir, f), "utf8"), f).toBe(
        readFileSync(join(referenceDir, f), "utf8"),
      );
    }
    // Lines as `gzip -9 -n` or concatenated gzip members (`gzip -c >> results.jsonl.gz`) read the same.
    const members = Buffer.concat([
      gzipSync(text(referenceLines.slice(0, 3))),
      gzipSync(text(referenceLines.slice(3))),
    ]);
    writeFileSync(join(dir, "results.jsonl.gz"), members);
    expect(runResultsOf(dir)).toEqual(reference);
  });

  it("checks its lines as a plain file's, naming the .gz file and the line", async () => {
    const list = [...referenceLines];
    list[2] = "{not json";
    const dir = runWith(list);
    const gz = join(dir, "results.jsonl.gz");
    expect(scanResultsFile(gz).invalid.map((b) => [b.file, b.lineNo])).toEqual([[gz, 3]]);
    const pattern = /results\.jsonl\.gz: line 3 is not valid JSON .*--repair\.$/;
    expect(() => readRunResults(dir)).toThrow(DataFormatError);
    expect(() => readRunResults(dir)).toThrow(pattern);
    await expect(writeRunReports(dir, { figures: false })).rejects.toThrow(pattern);
    await expect(runExperiment({ ...base, out: dir })).rejects.toThrow(pattern);
    const r = await cli(["report", "--out", dir, "--no-figures"]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(/results\.jsonl\.gz: line 3 is not valid JSON/);
  });

  it("refuses a .gz that is cut short, is not gzip or is corrupt, naming it", async () => {
    const bytes = gzipText(text(referenceLines));
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ["truncated", bytes.subarray(0, bytes.length - 100), /its gzip data ends early/],
      ["plain text", Buffer.from(text(referenceLines)), /not a gzip file \(it does not start/],
      ["empty", new Uint8Array(0), /not a gzip file/],
      [
        "bad checksum",
        (() => {
          const b = Buffer.from(bytes);
          b[b.length - 6] ^= 1; // a byte of the CRC-32
          return b;
        })(),
        /its gzip data is corrupt/,
      ],
    ];
    for (const [what, content, pattern] of cases) {
      const dir = runWith([]);
      const gz = join(dir, "results.jsonl.gz");
      writeFileSync(gz, content);
      const err = (() => {
        try {
          readRunResults(dir);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err, what).toBeInstanceOf(DataFormatError);
      expect((err as DataFormatError).file, what).toBe(gz);
      expect((err as Error).message, what).toMatch(pattern);
      await expect(runExperiment({ ...base, out: dir }), what).rejects.toThrow(pattern);
      // Nothing was written beside it.
      expect(existsSync(join(dir, "results.jsonl")), what).toBe(false);
    }
  });

  it("reads the .gz before results.jsonl: lines of one fit in both agree, or are an error naming both", async () => {
    // The files after a fold cut short by a crash: the plain file repeats the .gz.
    const both = runWith(referenceLines.slice(0, 5), referenceLines);
    expect(runResultsFiles(both)).toEqual([
      join(both, "results.jsonl.gz"),
      join(both, "results.jsonl"),
    ]);
    expect(runResultsOf(both)).toEqual(reference);
    const report = await writeRunReports(both, { figures: false });
    expect(report.notes).toContain("Merged results.jsonl.gz and results.jsonl.");
    expect(readFileSync(join(both, "table.md"), "utf8")).toBe(
      readFileSync(join(referenceDir, "table.md"), "utf8"),
    );

    const clash = runWith(referenceLines.slice(0, 5), [
      ...referenceLines.slice(5),
      changed(1, otherBCA(1)),
    ]);
    const pattern = new RegExp(
      `${join(clash, "results.jsonl").replace(/[.]/g, "\\.")}: line 4 records the same fit as line 2 of .*results\\.jsonl\\.gz \\(Small, repeat .*\\) with a different result \\(testBCA .*\\)\\. .*--repair\\.$`,
    );
    expect(() => readRunResults(clash)).toThrow(pattern);
    await expect(writeRunReports(clash, { figures: false })).rejects.toThrow(pattern);
    await expect(runExperiment({ ...base, out: clash })).rejects.toThrow(pattern);
  });

  it("reads shards' .gz files, each before its plain file", () => {
    const dir = join(root, "shards");
    cpSync(referenceDir, dir, { recursive: true });
    unlinkSync(join(dir, "results.jsonl"));
    writeFileSync(join(dir, "results.shard-1-of-2.jsonl"), text(referenceLines.slice(6)));
    writeFileSync(
      join(dir, "results.shard-1-of-2.jsonl.gz"),
      gzipText(text(referenceLines.slice(3, 6))),
    );
    writeFileSync(
      join(dir, "results.shard-0-of-2.jsonl.gz"),
      gzipText(text(referenceLines.slice(0, 3))),
    );
    expect(runResultsFiles(dir).map((f) => f.slice(dir.length + 1))).toEqual([
      "results.shard-0-of-2.jsonl.gz",
      "results.shard-1-of-2.jsonl.gz",
      "results.shard-1-of-2.jsonl",
    ]);
    expect(runResultsOf(dir)).toEqual(reference);
  });

  it("is what plot draws from", async () => {
    const dir = runWith(referenceLines);
    const fig = join(dir, "fig");
    const r = await cli(["plot", "bca-vs-k", "--results", dir, "--out", fig]);
    expect(r.code).toBe(0);
    expect(readFileSync(`${fig}.svg`, "utf8")).toMatch(/<svg/);
  });

  it("makes a folder holding a compressed run one that a report's --to refuses", async () => {
    const other = runWith(referenceLines);
    unlinkSync(join(other, "settings.json"));
    await expect(writeRunReports(referenceDir, { figures: false, to: other })).rejects.toThrow(
      /holds another run \(.*results\.jsonl\.gz\)/,
    );
  });
});

describe("resuming from a compressed results file", () => {
  it("reuses every fit of a .gz-only folder and leaves it as it was", async () => {
    const dir = runWith(referenceLines);
    const before = readFileSync(join(dir, "results.jsonl.gz"));
    const res = await runExperiment({ ...base, out: dir });
    expect(res.resumed).toBe(FITS);
    expect(res.notes.join(" ")).toMatch(/reusing 8 finished fits of 8/);
    expect(readFileSync(join(dir, "results.jsonl.gz")).equals(before)).toBe(true);
    // Nothing to append: no empty results.jsonl beside the .gz.
    expect(existsSync(join(dir, "results.jsonl"))).toBe(false);
    expect(existsSync(RunLock.pathFor(join(dir, "results.jsonl")))).toBe(false);
  });

  it("appends the fits left to results.jsonl, and the two read as one finished run", async () => {
    const dir = runWith(referenceLines.slice(0, 5));
    const before = readFileSync(join(dir, "results.jsonl.gz"));
    const res = await runExperiment({ ...base, out: dir });
    expect(res.total).toBe(FITS);
    expect(res.resumed).toBe(5);
    expect(readFileSync(join(dir, "results.jsonl.gz")).equals(before)).toBe(true);
    expect(textLines(readFileSync(join(dir, "results.jsonl"), "utf8"))).toHaveLength(3);
    expect(runResultsOf(dir)).toEqual(reference);
    const again = await runExperiment({ ...base, out: dir });
    expect(again.resumed).toBe(FITS);
  });

  it("resumes a shard from its .gz, as from its plain file", async () => {
    const dir = join(root, "shard-resume");
    const shard = { index: 1, count: 2 };
    const first = await runExperiment({ ...base, out: dir, shard });
    const file = join(dir, "results.shard-1-of-2.jsonl");
    writeFileSync(`${file}.gz`, gzipText(readFileSync(file, "utf8")));
    unlinkSync(file);
    const again = await runExperiment({ ...base, out: dir, shard });
    expect(again.resumed).toBe(first.total);
    expect(existsSync(file)).toBe(false);
    expect(first.resultsFile).toBe(file);
    expect(again.resultsFile).toBeNull();
  });

  it("says it wrote a results file only when it did: not when every fit came from the .gz", async () => {
    const dir = join(root, "cli-wrote");
    const csv = join(root, "small.csv");
    const data = smallData();
    writeCsv(csv, data.X, data.y);
    const experiment = (extra: string[]) =>
      cli(argv`experiment --data ${csv} --methods baseline,pca --k-grid 4,8 --repeats 2
        --seed 5 --workers 1 --out ${dir} --no-figures --no-progress ${extra}`);
    const compress = (file: string) => {
      writeFileSync(`${file}.gz`, gzipText(readFileSync(file, "utf8")));
      unlinkSync(file);
    };
    const shardFile = join(dir, "results.shard-1-of-2.jsonl");
    const shard = await experiment(["--shard", "1/2"]);
    expect(shard.code).toBe(0);
    expect(shard.stderr).toContain(`Wrote ${shardFile}. When every shard is done`);
    compress(shardFile);
    const shardAgain = await experiment(["--shard", "1/2"]);
    expect(shardAgain.code).toBe(0);
    expect(shardAgain.stderr).toMatch(/\(\d+ resumed, 0 run\)/);
    expect(shardAgain.stderr).not.toMatch(/Wrote/);
    expect(shardAgain.stderr).toContain("When every shard is done");
    expect(existsSync(shardFile)).toBe(false);

    const results = join(dir, "results.jsonl");
    const whole = await experiment([]);
    expect(whole.code).toBe(0);
    expect(whole.stderr).toContain(`Wrote ${results}, ${join(dir, "table.md")}`);
    compress(results);
    const wholeAgain = await experiment([]);
    expect(wholeAgain.code).toBe(0);
    expect(wholeAgain.stderr).toMatch(/8 fits \(8 resumed, 0 run\)/);
    const wrote = lines(wholeAgain.stderr).filter((l) => l.startsWith("Wrote "));
    expect(wrote).toHaveLength(1);
    expect(wrote[0]).toContain(`Wrote ${join(dir, "table.md")}, `);
    expect(wrote[0]).not.toContain("results.jsonl");
    expect(existsSync(results)).toBe(false);
  });

  it("with both files, reuses the lines of each, and refuses a run while another holds the lock", async () => {
    const dir = runWith(referenceLines.slice(0, 4), referenceLines.slice(4, 6));
    const lock = RunLock.acquire(join(dir, "results.jsonl"));
    try {
      await expect(runExperiment({ ...base, out: dir })).rejects.toThrow(
        /Another experiment is writing .*results\.jsonl/,
      );
    } finally {
      lock.release();
    }
    const res = await runExperiment({ ...base, out: dir });
    expect(res.resumed).toBe(6);
    expect(runResultsOf(dir)).toEqual(reference);
  });
});

describe("rewriting a results file that has a compressed part", () => {
  it("--force with lines to set aside only in results.jsonl rewrites it and leaves the .gz as it was", async () => {
    const stale = changed(6, { fingerprint: "0123456789abcdef" });
    const dir = runWith(referenceLines.slice(0, 5), [referenceLines[5], stale, referenceLines[7]]);
    const before = readFileSync(join(dir, "results.jsonl.gz"));
    await expect(runExperiment({ ...base, out: dir })).rejects.toThrow(
      /results\.jsonl\.gz and .*results\.jsonl hold 1 line made with other settings than this run: .*e\.g\. line 2 of .*results\.jsonl \(Small/,
    );
    const forced = await runExperiment({ ...base, out: dir, force: true });
    expect(forced.resumed).toBe(FITS - 1);
    expect(readFileSync(join(dir, "results.jsonl.gz")).equals(before)).toBe(true);
    expect(readFileSync(join(dir, "results.jsonl.old-1"), "utf8")).toBe(`${stale}\n`);
    const plain = textLines(readFileSync(join(dir, "results.jsonl"), "utf8"));
    expect(plain.slice(0, 2)).toEqual([referenceLines[5], referenceLines[7]]);
    expect(plain).toHaveLength(3); // and the fit redone
    expect(runResultsOf(dir)).toEqual(reference);
    expectNoTemporaries(dir);
  });

  it("--force with a line to set aside in the .gz moves the lines kept into results.jsonl, then removes the .gz", async () => {
    const stale = changed(2, { fingerprint: "0123456789abcdef" });
    const gzLines = [...referenceLines.slice(0, 2), stale, ...referenceLines.slice(3, 6)];
    const dir = runWith(gzLines, referenceLines.slice(6));
    await expect(runExperiment({ ...base, out: dir })).rejects.toThrow(
      /e\.g\. line 3 of .*results\.jsonl\.gz \(Small/,
    );
    const forced = await runExperiment({ ...base, out: dir, force: true });
    expect(forced.resumed).toBe(FITS - 1);
    expect(forced.notes.join("\n")).toMatch(
      /Moved the remaining lines of .*results\.jsonl\.gz into .*results\.jsonl \(uncompressed; 'sdspcaan compress' compresses it again\) and removed .*results\.jsonl\.gz\./,
    );
    expect(existsSync(join(dir, "results.jsonl.gz"))).toBe(false);
    expect(readFileSync(join(dir, "results.jsonl.old-1"), "utf8")).toBe(`${stale}\n`);
    // The .gz's lines first, in their order, then the plain file's, then the fit redone.
    const plain = textLines(readFileSync(join(dir, "results.jsonl"), "utf8"));
    expect(plain.slice(0, 7)).toEqual([...referenceLines.slice(0, 2), ...referenceLines.slice(3)]);
    expect(plain).toHaveLength(FITS);
    expect(runResultsOf(dir)).toEqual(reference);
    expectNoTemporaries(dir);
  });

  it("--repair sets aside a conflict across the .gz and results.jsonl, naming the file of each line", async () => {
    const dir = runWith(referenceLines.slice(0, 5), [
      ...referenceLines.slice(5),
      changed(1, otherBCA(1)),
    ]);
    const repaired = await runExperiment({ ...base, out: dir, repair: true });
    expect(repaired.resumed).toBe(FITS - 1);
    expect(repaired.notes.join("\n")).toMatch(
      /--repair: moved 2 bad lines of .*results\.jsonl\.gz \(line 2\) and .*results\.jsonl \(line 4\) to .*results\.rejected\.jsonl; their fits are redone\./,
    );
    const rejected = textLines(readFileSync(join(dir, "results.rejected.jsonl"), "utf8")).map((l) =>
      JSON.parse(l),
    );
    expect(rejected.map((r) => [r.line, r.file])).toEqual([
      [2, "results.jsonl.gz"],
      [4, undefined],
    ]);
    expect(rejected[0].text).toBe(referenceLines[1]);
    expect(existsSync(join(dir, "results.jsonl.gz"))).toBe(false);
    expect(runResultsOf(dir)).toEqual(reference);
  });

  it("--repair moves a bad line out of the .gz", async () => {
    const list = [...referenceLines];
    list[4] = "{not json";
    const dir = runWith(list);
    const repaired = await runExperiment({ ...base, out: dir, repair: true });
    expect(repaired.resumed).toBe(FITS - 1);
    expect(JSON.parse(readFileSync(join(dir, "results.rejected.jsonl"), "utf8"))).toMatchObject({
      line: 5,
      text: "{not json",
      file: "results.jsonl.gz",
    });
    expect(existsSync(join(dir, "results.jsonl.gz"))).toBe(false);
    expect(runResultsOf(dir)).toEqual(reference);
  });

  it("refuses to fold a .gz that is a symbolic link, before writing anything", async () => {
    const stale = changed(2, { fingerprint: "0123456789abcdef" });
    const dir = runWith([...referenceLines.slice(0, 2), stale, ...referenceLines.slice(3)]);
    const real = join(root, `linked-${dirCount}.jsonl.gz`);
    renameSync(join(dir, "results.jsonl.gz"), real);
    symlinkSync(real, join(dir, "results.jsonl.gz"));
    const before = readdirSync(dir).sort();
    // Read through the link as any file is...
    await expect(runExperiment({ ...base, out: dir })).rejects.toThrow(/made with other settings/);
    // ...but not removed by a rewrite.
    await expect(runExperiment({ ...base, out: dir, force: true })).rejects.toThrow(
      /results\.jsonl\.gz is a symbolic link: this run would move its lines into the plain results file and remove it/,
    );
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it("writes fingerprints into old lines of a .gz (before settings.json changes) in results.jsonl", async () => {
    const legacy = fixtureFile("experiment/legacy-run");
    const dir = join(root, "legacy");
    cpSync(legacy, dir, { recursive: true });
    const oldLines = textLines(readFileSync(join(dir, "results.jsonl"), "utf8"));
    writeFileSync(join(dir, "results.jsonl.gz"), gzipText(text(oldLines)));
    unlinkSync(join(dir, "results.jsonl"));
    const settings: RunSettings = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8"));
    const origin = settings.datasets[0].origin as { kind: string; options: SyntheticOptions };
    const ds = makeSyntheticDataset(origin.options);
    const options: ExperimentOptions = {
      datasets: [{ name: "Legacy", X: ds.X, y: ds.y, origin }],
      methods: ["pca", "sdspcaan"],
      grid: { alpha: [1], beta: [1], delta: [0.1, 10] },
      kGrid: [4, 8],
      repeats: 2,
      seed: 5,
      commonMethodOptions: { maxIter: 30 },
      workers: 1,
      force: true,
      out: dir,
    };
    const forced = await runExperiment(options);
    expect(forced.resumed).toBe(12);
    expect(forced.notes.join("\n")).toMatch(/Wrote the settings fingerprint .* into 18 lines of/);
    expect(existsSync(join(dir, "results.jsonl.gz"))).toBe(false);
    const stamped = scanResultsFile(join(dir, "results.jsonl")).entries;
    expect(stamped).toHaveLength(18);
    for (const e of stamped) expect(e.line.fingerprint).toMatch(/^[0-9a-f]{16}$/);
  });
});
