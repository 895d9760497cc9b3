import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { DataFormatError, ValidationError } from "../../src/core/errors.js";
import type { FitRecord } from "../../src/experiment/records.js";
import {
  finishedKeys,
  parseResultLines,
  ResultsWriter,
  readResultsFile,
  resultLineText,
  type SkippedFit,
} from "../../src/experiment/resultsFile.node.js";
import { removeDir, tempDir } from "./helpers.js";

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
