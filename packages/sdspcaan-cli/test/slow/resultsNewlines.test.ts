/**
 * The file of the report: results.jsonl with 300 MB of newlines around a few real
 * lines once made `report`, `compress` and `experiment` die with V8's "Fatal
 * JavaScript invalid size error" (its text split into 300 million strings). Read
 * as a stream (runner/resultLines.node.ts) it gives its lines; compress keeps them
 * and drops the blank lines. test/runner/resultLines.test.ts shows the bounded
 * memory on a smaller file within the quick suite.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { compressRunResults } from "#internal/runner/compress.node.js";
import { resultLineText } from "#internal/runner/resultsFile.node.js";
import { readRunResults } from "#internal/runner/runResults.node.js";
import { pcaRecord } from "../helpers/makeRecord.js";
import { removeDir, tempDir } from "../helpers/runs.js";

const root = tempDir("newlines-300mb");
afterAll(() => removeDir(root));

describe("a results file of 300 MB of newlines", () => {
  it("is read and compressed with its lines kept", () => {
    const dir = join(root, "run");
    mkdirSync(dir);
    const file = join(dir, "results.jsonl");
    const fd = openSync(file, "w");
    const blank = Buffer.alloc(100 << 20, 0x0a);
    const lines = [1, 2, 3].map((k) => resultLineText(pcaRecord(k)));
    try {
      for (const l of lines) {
        writeSync(fd, blank);
        writeSync(fd, l);
      }
    } finally {
      closeSync(fd);
    }
    const read = readRunResults(dir);
    expect(read.records.map((r) => r.k)).toEqual([1, 2, 3]);
    const result = compressRunResults(dir);
    expect(result.files[0]).toMatchObject({ linesAdded: 3, linesRepeated: 0 });
    expect(readdirSync(dir)).toEqual(["results.jsonl.gz"]);
    expect(gunzipSync(readFileSync(join(dir, "results.jsonl.gz"))).toString("utf8")).toBe(
      lines.join(""),
    );
  });
});
