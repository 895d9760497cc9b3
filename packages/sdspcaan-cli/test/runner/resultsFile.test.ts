import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DataFormatError, ValidationError } from "sdspcaan";
import { afterEach, describe, expect, it } from "vitest";
import type { FitRecord } from "#internal/protocol/records.js";
import {
  appendSetAside,
  badLinesError,
  dedupeEntries,
  finishedKeys,
  parseResultLines,
  ResultsWriter,
  readResultsFile,
  resultLineText,
  rewriteResultsFile,
  type SkippedFit,
  scanResultLines,
} from "#internal/runner/resultsFile.node.js";
import { removeDir, tempDir } from "../helpers/runs.js";

const fit: FitRecord = {
  dataset: "D",
  repeat: 0,
  method: "sdspcaan",
  k: 10,
  params: { delta: 0.1, alpha: 1, beta: 1 },
  valBCA: 0.5,
  testBCA: 0.25,
  iterations: 7,
  converged: true,
  fitMs: 3,
};
const skipped: SkippedFit = {
  status: "skipped",
  dataset: "D",
  repeat: 1,
  method: "slnp",
  k: 20,
  params: {},
  reason: "class 3 has 2 training samples",
  error: "ValidationError",
};

let dir: string | null = null;
afterEach(() => {
  if (dir) removeDir(dir);
  dir = null;
});

describe("results lines", () => {
  it("write params in canonical order and read back fits and skipped configurations", () => {
    const text = resultLineText(fit) + resultLineText(skipped);
    expect(text.split("\n")[0]).toContain('"params":{"alpha":1,"beta":1,"delta":0.1}');
    const parsed = parseResultLines(text);
    expect(parsed.records).toHaveLength(1);
    expect(parsed.records[0].testBCA).toBe(0.25);
    expect(parsed.skipped).toEqual([skipped]);
    expect(finishedKeys(parsed).size).toBe(2);
  });

  it("ignore a partial last line (a write cut short) but reject a bad line inside", () => {
    const full = resultLineText(fit) + resultLineText(skipped);
    const cut = full.slice(0, full.length - 10);
    const parsed = parseResultLines(cut);
    expect(parsed.records).toHaveLength(1);
    expect(parsed.skipped).toHaveLength(0);
    expect(parsed.ignoredTail.length).toBeGreaterThan(0);
    expect(() => parseResultLines(`{"oops"\n${full}`, "r.jsonl")).toThrow(DataFormatError);
    expect(() => parseResultLines(`{"oops"\n${full}`, "r.jsonl")).toThrow(/r\.jsonl: line 1/);
  });

  it("refuse a record with a BCA outside [0, 1], naming the line", () => {
    const bad = resultLineText(fit).replace('"testBCA":0.25', '"testBCA":2.5');
    expect(() => parseResultLines(resultLineText(fit) + bad)).toThrow(/line 2.*testBCA/);
  });

  it("refuse a skipped line without a reason", () => {
    expect(() => resultLineText({ ...skipped, reason: undefined as unknown as string })).toThrow(
      ValidationError,
    );
  });
});

describe("ResultsWriter", () => {
  it("cuts off a partial last line before appending, so every line parses", () => {
    dir = tempDir("writer");
    const path = join(dir, "sub", "results.jsonl");
    const w1 = ResultsWriter.open(path);
    w1.append(fit);
    w1.close();
    writeFileSync(path, `${readFileSync(path, "utf8")}{"dataset":"D","rep`);
    const w2 = ResultsWriter.open(path);
    w2.append(skipped);
    w2.close();
    const text = readFileSync(path, "utf8");
    expect(text.endsWith("\n")).toBe(true);
    expect(text.split("\n").filter((l) => l !== "")).toHaveLength(2);
    const parsed = readResultsFile(path);
    expect(parsed.records).toHaveLength(1);
    expect(parsed.skipped).toHaveLength(1);
    expect(parsed.ignoredTail).toBe("");
  });

  it("reads a missing results file as empty", () => {
    dir = tempDir("writer");
    expect(readResultsFile(join(dir, "none.jsonl")).records).toEqual([]);
  });
});

describe("scanning, duplicates and bad lines", () => {
  const other: FitRecord = { ...fit, k: 20, fingerprint: "00000000000000aa" };
  const text = resultLineText(fit) + resultLineText(skipped) + resultLineText(other);

  it("sorts lines into entries with their line numbers and invalid lines with the reason", () => {
    const broken = `${text}not json\n${resultLineText(fit).replace('"valBCA":0.5', '"valBCA":-1')}`;
    const scanned = scanResultLines(broken, "r.jsonl");
    expect(scanned.entries.map((e) => e.lineNo)).toEqual([1, 2, 3]);
    expect(scanned.entries[2].line.fingerprint).toBe("00000000000000aa");
    expect(scanned.invalid.map((b) => b.lineNo)).toEqual([4, 5]);
    expect(scanned.invalid[0].reason).toMatch(/^line 4 is not valid JSON/);
    expect(scanned.invalid[1].reason).toMatch(/line 5.*valBCA/);
    expect(() => parseResultLines(broken, "r.jsonl")).toThrow(
      /^r\.jsonl: line 4 is not valid JSON .*; 1 more bad line \(line 5\)\. To move the bad lines to results\.rejected\.jsonl and redo those fits, run the experiment command again with --repair\.$/,
    );
  });

  it("refuses a fingerprint that is not 16 hex digits", () => {
    expect(() => resultLineText({ ...fit, fingerprint: "xyz" })).toThrow(/"fingerprint"/);
    const bad = `${JSON.stringify({ ...fit, fingerprint: "xyz" })}\n`;
    expect(scanResultLines(bad).invalid[0].reason).toMatch(
      /"fingerprint" must be 16 lower-case hex/,
    );
  });

  it("reads agreeing repeats once and reports disagreeing ones with both line numbers", () => {
    const again = resultLineText({ ...fit, fitMs: 99 });
    const changed = resultLineText({ ...fit, testBCA: 0.75 });
    const d = dedupeEntries(scanResultLines(text + again + changed).entries);
    expect(d.entries).toHaveLength(3);
    expect(d.duplicates).toBe(1);
    expect(d.conflicts).toHaveLength(1);
    expect(d.conflicts[0].first.lineNo).toBe(1);
    expect(d.conflicts[0].second.lineNo).toBe(5);
    expect(d.conflicts[0].difference).toBe("testBCA 0.25 vs 0.75");
    expect(() => parseResultLines(text + again + changed, "r.jsonl")).toThrow(
      /r\.jsonl: lines 1 and 5 record the same fit \(D, repeat 0, sdspcaan, k = 10, alpha = 1, beta = 1, delta = 0\.1\) with different results \(testBCA 0\.25 vs 0\.75\)/,
    );
    expect(parseResultLines(text + again).records).toHaveLength(2);
    // Lines of one fit under different fingerprints are different fits, not duplicates.
    const otherSettings = resultLineText({
      ...other,
      testBCA: 0.9,
      fingerprint: "00000000000000bb",
    });
    expect(dedupeEntries(scanResultLines(text + otherSettings).entries).conflicts).toEqual([]);
    expect(badLinesError("f", [], d.conflicts).file).toBe("f");
  });

  it("rewrites a results file atomically and appends set-aside lines with their reason", () => {
    dir = tempDir("rewrite");
    const path = join(dir, "results.jsonl");
    writeFileSync(path, text);
    rewriteResultsFile(path, [resultLineText(other).trimEnd()]);
    expect(readFileSync(path, "utf8")).toBe(resultLineText(other));
    const rejected = join(dir, "results.rejected.jsonl");
    appendSetAside(rejected, [{ lineNo: 3, text: "oops", reason: "line 3 is not valid JSON" }]);
    appendSetAside(rejected, [{ lineNo: 7, text: "{}", reason: "r" }]);
    const got = readFileSync(rejected, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(got).toEqual([
      { line: 3, reason: "line 3 is not valid JSON", text: "oops" },
      { line: 7, reason: "r", text: "{}" },
    ]);
  });
});
