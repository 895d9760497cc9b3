/**
 * Data set names in table.md and statistics.md: a name comes from a file's name and
 * may hold anything one may. Read back by a CommonMark parser with GitHub's tables
 * (markdown-it), every table keeps its rows and columns and every name shows as
 * plain text, as it is (control and line-break characters as their code points).
 */
import fc from "fast-check";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import type { FitRecord } from "#internal/protocol/records.js";
import { markdownText } from "#internal/reports/markdown.js";
import { summariseResults, tableMarkdown } from "#internal/reports/report.js";
import { methodStatistics } from "#internal/reports/statistics.js";
import { statisticsMarkdown } from "#internal/reports/statisticsMarkdown.js";
import { rec } from "../helpers/makeRecord.js";

type Token = ReturnType<MarkdownIt["parse"]>[number];
const markdown = new MarkdownIt();

/** The tables of a Markdown text: rows of cells, each cell's inline tokens. */
function tables(text: string): Token[][][][] {
  const out: Token[][][][] = [];
  let row: Token[][] | null = null;
  for (const t of markdown.parse(text, {})) {
    if (t.type === "table_open") out.push([]);
    else if (t.type === "tr_open") row = [];
    else if (t.type === "tr_close" && row !== null) {
      out[out.length - 1].push(row);
      row = null;
    } else if (t.type === "inline" && row !== null) row.push(t.children ?? []);
  }
  return out;
}

/** A cell's text, or null when it holds anything but plain text (HTML, emphasis, a link, code). */
function plainText(cell: Token[]): string | null {
  return cell.every((t) => t.type === "text") ? cell.map((t) => t.content).join("") : null;
}

/** How a name shows: itself, control and line-break characters as their code points. */
function shown(name: string): string {
  return [...name]
    .map((ch) => {
      const c = ch.codePointAt(0) ?? 0;
      const breaking = c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x2028 || c === 0x2029;
      return breaking ? `U+${c.toString(16).toUpperCase().padStart(4, "0")}` : ch;
    })
    .join("")
    .trim();
}

const SPECIAL = [
  "|",
  "\\",
  "\n",
  "\r",
  "\u2028",
  "\t",
  "`",
  "*",
  "_",
  "[",
  "]",
  "(",
  ")",
  "<",
  ">",
  "<b>",
  "<script>",
  "&lt;",
  "&#124;",
  "#",
  "- ",
  "1. ",
  "+",
  "=",
  "~~",
  "!",
  "a",
  "B",
  " ",
  "é",
  "_x_",
];
const name = fc
  .string({
    unit: fc.oneof(fc.constantFrom(...SPECIAL), fc.string({ unit: "binary", maxLength: 1 })),
    minLength: 1,
    maxLength: 6,
  })
  .filter((s) => shown(s) !== "" && !/[\ud800-\udfff]/u.test(s));

function records(datasets: readonly string[]): FitRecord[] {
  return datasets.flatMap((dataset, i) =>
    ["pca", "sdspcaan"].flatMap((method, j) =>
      [0, 1].map((repeat) =>
        rec({ dataset, method, repeat, k: 4, valBCA: 0.5, testBCA: 0.5 + 0.1 * j + 0.01 * i }),
      ),
    ),
  );
}

describe("names in the Markdown reports", () => {
  it("leave plain names as they are and escape what Markdown would read", () => {
    for (const plain of ["Yale_32x32", "COIL20", "my data", "R&D", "p < 0.05", "a-b", "2x"]) {
      expect(markdownText(plain)).toBe(plain);
    }
    expect(markdownText("a|b")).toBe("a\\|b");
    expect(markdownText("two\nlines")).toBe("twoU+000Alines");
    expect(markdownText("# x")).toBe("\\# x");
    expect(markdownText("1. x")).toBe("1\\. x");
    expect(markdownText("<img src=x>")).toBe("\\<img src=x>");
  });

  it("keep table.md's and statistics.md's tables whole, each name as plain text", () => {
    fc.assert(
      fc.property(fc.uniqueArray(name, { minLength: 2, maxLength: 3 }), (datasets) => {
        fc.pre(new Set(datasets.map(shown)).size === datasets.length);
        const summary = summariseResults(records(datasets));
        const [table] = tables(tableMarkdown(summary));
        // A header, one row per data set and the Average, three cells each.
        expect(table.map((r) => r.length)).toEqual(Array(datasets.length + 2).fill(3));
        const names = table.slice(1, -1).map((r) => plainText(r[0]));
        expect([...names].sort()).toEqual(summary.datasets.map(shown).sort());
        const statistics = tables(statisticsMarkdown(methodStatistics(summary)));
        expect(statistics).toHaveLength(2);
        for (const t of statistics) {
          expect(new Set(t.map((r) => r.length)).size).toBe(1);
          const rows = t.slice(1).map((r) => plainText(r[0]));
          expect(rows.filter((r) => r !== "Average rank").sort()).toEqual(
            summary.datasets.map(shown).sort(),
          );
        }
      }),
      { numRuns: 60 },
    );
  });
});
