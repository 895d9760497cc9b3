/**
 * Results files read as a stream of lines (runner/resultLines.node.ts): memory
 * stays small whatever the file holds (a file of newlines once killed `report`,
 * `compress` and `experiment` with V8's "invalid size error"), a line too long to
 * be a results line and a file of mostly garbage are refused naming the file and
 * line, and the lines found are those of the text however the chunks fall.
 * The 300 MB file of the report is in test/slow/resultsNewlines.test.ts.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { DataFormatError } from "sdspcaan";
import { repoRoot } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import { MAX_LINE_BYTES } from "#internal/runner/resultLines.node.js";
import {
  MAX_BAD_LINES,
  parseResultLines,
  resultLineText,
  scanResultLines,
  scanResultsFile,
} from "#internal/runner/resultsFile.node.js";
import { pcaRecord } from "../helpers/makeRecord.js";
import { removeDir, tempDir } from "../helpers/runs.js";

const dir = tempDir("result-lines");
afterAll(() => removeDir(dir));

describe("a results file of newlines", () => {
  // 24 million blank lines: the old reader split them into an array of 24 million
  // strings, beyond a 48 MB heap; the stream holds one chunk at a time.
  const blank = Buffer.alloc(24 << 20, 0x0a);
  const lines = Buffer.from(resultLineText(pcaRecord(1)) + resultLineText(pcaRecord(2)), "utf8");
  const text = Buffer.concat([blank, lines, blank, Buffer.from("{cut", "utf8")]);
  const plain = join(dir, "newlines.jsonl");
  const gz = join(dir, "newlines.jsonl.gz");
  writeFileSync(plain, text);
  writeFileSync(gz, gzipSync(text));

  for (const file of [plain, gz]) {
    it(`is read in a small heap, its lines numbered as in the file (${file.slice(-9)})`, () => {
      const script = `import { scanResultsFile } from ${JSON.stringify(join(repoRoot, "packages/sdspcaan-cli/src/runner/resultsFile.node.ts"))};
const s = scanResultsFile(${JSON.stringify(file)});
console.log(JSON.stringify({ lines: s.entries.map((e) => [e.lineNo, e.line.k]), invalid: s.invalid.length, tail: s.ignoredTail }));`;
      const r = spawnSync(
        process.execPath,
        ["--max-old-space-size=48", "--import", "tsx", "--input-type=module", "-e", script],
        { cwd: repoRoot, encoding: "utf8" },
      );
      expect(r.status, r.stderr.slice(0, 2000)).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual({
        lines: [
          [blank.length + 1, 1],
          [blank.length + 2, 2],
        ],
        invalid: 0,
        tail: "{cut",
      });
    });
  }
});

describe("lines no results file has", () => {
  it("a line longer than MAX_LINE_BYTES is refused with its file and line", () => {
    const long = `{"x":"${"a".repeat(MAX_LINE_BYTES)}"}`;
    const message = (line: number) =>
      `line ${line} is longer than ${MAX_LINE_BYTES} bytes, which no results line is: this is not a results file, or that line is damaged (remove it).`;
    for (const [name, bytes] of [
      ["long.jsonl", Buffer.from(`${resultLineText(pcaRecord(1))}\n${long}\n`)],
      ["long.jsonl.gz", gzipSync(`${resultLineText(pcaRecord(1))}\n${long}\n`)],
      ["tail.jsonl", Buffer.from(`${resultLineText(pcaRecord(1))}${long}`)],
    ] as const) {
      const file = join(dir, name);
      writeFileSync(file, bytes);
      const line = name === "tail.jsonl" ? 2 : 3;
      expect(() => scanResultsFile(file), name).toThrow(DataFormatError);
      expect(() => scanResultsFile(file), name).toThrow(`${file}: ${message(line)}`);
    }
    expect(() => parseResultLines(`\n${long}\n`, "r.jsonl")).toThrow(`r.jsonl: ${message(2)}`);
  });

  it("more than MAX_BAD_LINES bad lines make it no results file, even for --repair", () => {
    const file = join(dir, "garbage.jsonl");
    writeFileSync(file, `${resultLineText(pcaRecord(1))}${"x\n".repeat(MAX_BAD_LINES + 1)}`);
    expect(() => scanResultsFile(file)).toThrow(
      `${file}: more than ${MAX_BAD_LINES} lines are not results lines (the first: line 2 is not valid JSON (`,
    );
    // Up to the limit, each is listed for --repair.
    writeFileSync(file, `${resultLineText(pcaRecord(1))}${"x\n".repeat(MAX_BAD_LINES)}`);
    const s = scanResultsFile(file);
    expect(s.invalid).toHaveLength(MAX_BAD_LINES);
    expect(s.invalid.at(-1)?.lineNo).toBe(MAX_BAD_LINES + 1);
    expect(s.entries).toHaveLength(1);
  });
});

describe("the lines of a file, however its chunks fall", () => {
  it("are those of its text, multi-byte characters and blank lines included", () => {
    const file = join(dir, "chunks.jsonl");
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200 }),
        fc.array(
          fc.oneof(
            fc.constant(""),
            fc.constant("  "),
            fc.integer({ min: 1, max: 99 }).map((k) => resultLineText(pcaRecord(k)).trimEnd()),
            fc
              .string({ unit: "grapheme", maxLength: 30 })
              .map((w) => resultLineText(pcaRecord(7, { warnings: [w] })).trimEnd()),
          ),
          { maxLength: 20 },
        ),
        fc.string({ unit: "grapheme", maxLength: 5 }),
        (shift, body, tail) => {
          // A first line that ends near the 64 KiB chunk boundary, so that the
          // following lines (and their multi-byte characters) straddle it.
          const pad = resultLineText(pcaRecord(100, { warnings: ["é".repeat(32_700 - shift)] }));
          const text = `${pad}${body.join("\n")}\n${tail.replace(/\n/g, "")}`;
          writeFileSync(file, text);
          const fromFile = scanResultsFile(file);
          const fromText = scanResultLines(text, file);
          const expected = text
            .split("\n")
            .slice(0, -1)
            .map((raw, i) => ({ raw, lineNo: i + 1 }))
            .filter((l) => l.raw.trim() !== "");
          expect(fromFile.entries.map((e) => [e.lineNo, e.text])).toEqual(
            expected.map((l) => [l.lineNo, l.raw]),
          );
          expect(fromText.entries).toEqual(fromFile.entries);
          expect(fromFile.ignoredTail).toBe(fromText.ignoredTail);
          expect(fromFile.ignoredTail).toBe(text.slice(text.lastIndexOf("\n") + 1));
        },
      ),
      { numRuns: 60 },
    );
  });
});
