/**
 * The delimiter told from the first lines when the numbers have decimal commas, and
 * the message when a column of "text" is numbers joined by a delimiter the sniffing
 * did not take: a file with decimal commas read without them, with or without a
 * header, separated by ';' or tabs, named .csv or .txt.
 */
import fc from "fast-check";
import { errorOf } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { parseDelimited } from "#internal/formats/csv.js";
import { delimiterInText, sniffDelimiter } from "#internal/formats/csvSniff.js";
import { parseBytesSync } from "#internal/formats/parse.js";
import { inputs } from "../helpers/properties.js";

const semicolons = "1,5;2,25;3,0;1\n0,5;1,25;2,0;2\n1,0;2,5;3,5;1\n0,1;2,0;1,0;2\n";
const tabs = semicolons.replaceAll(";", "\t");
const rows = [
  [1.5, 2.25, 3],
  [0.5, 1.25, 2],
  [1, 2.5, 3.5],
  [0.1, 2, 1],
];

describe("the delimiter with decimal commas", () => {
  it("is never the comma, which is inside the numbers", () => {
    expect(sniffDelimiter(["1,5;2,25;3,0;1", "0,5;1,25;2,0;2"], ",")).toBe(";");
    expect(sniffDelimiter(["1,5\t2,25\t1", "0,5\t1,25\t2"], ",")).toBe("\t");
    // Both split alike: the one giving more fields, on a tie the tab (tried first).
    expect(sniffDelimiter(["1;2,5;7\t3", "4;5;8\t6,5"], ",")).toBe(";");
    expect(sniffDelimiter(["1;2,5\t3", "4;5\t6,5"], ",")).toBe("\t");
    expect(sniffDelimiter(["1,5 2,25 1", "0,5 1,25  2"], ",")).toBe(" ");
    // Ragged lines: the commonest of ';' and tabs, never the comma however many.
    expect(sniffDelimiter(["a;b;1,5,5,5", "1,5;2,5"], ",")).toBe(";");
    expect(sniffDelimiter(["1,5,5,5", "2,5"], ",")).toBe(" ");
    // Quoted fields keep the numbers whole: the comma may then be the delimiter, after the others.
    expect(sniffDelimiter(['"1,5","2,25",1', '"0,5","1,25",2'], ",")).toBe(",");
    expect(sniffDelimiter(['"1,5";"2";1', '"0,5";"3";2'], ",")).toBe(";");
    expect(sniffDelimiter(['"a;b",1,5,5', '"c",2,5,5'], ",")).toBe(",");
    // The same lines with decimal points: the comma splits them into the most fields.
    expect(sniffDelimiter(["1,5;2,25;3,0;1", "0,5;1,25;2,0;2"], ".")).toBe(",");
    expect(sniffDelimiter(["1,5;2,25;3,0;1", "0,5;1,25;2,0;2"])).toBe(",");
  });

  it("reads a headerless file separated by ';' or tabs, as .csv or .txt", () => {
    for (const [text, d] of [
      [semicolons, ";"],
      [tabs, "\t"],
    ]) {
      for (const file of ["semi.csv", "semi.txt"]) {
        const ds = parseBytesSync(new TextEncoder().encode(text), file, { decimal: "," });
        expect(ds.X.toRows()).toEqual(rows);
        expect(ds.y).toEqual([1, 2, 1, 2]);
        expect(ds.info).toMatchObject({ format: "csv", delimiter: d });
      }
    }
  });

  it("reads a file separated by commas when its numbers are quoted", () => {
    const quoted = '"1,5","2,25",1\n"0,5","1,25",2\n';
    const ds = parseDelimited(quoted, "q.csv", { decimal: "," });
    expect([ds.X.toRows(), ds.y, ds.info.delimiter]).toEqual([
      [
        [1.5, 2.25],
        [0.5, 1.25],
      ],
      [1, 2],
      ",",
    ]);
  });

  it("reads back any matrix written with ';' or tabs and decimal commas, with or without a header", () => {
    const value = fc.double({ min: -1e6, max: 1e6, noNaN: true }).filter((v) => !Object.is(v, -0));
    const spec = inputs({
      n: [1, 6],
      p: [1, 5],
      header: fc.boolean(),
      delimiter: fc.constantFrom(";", "\t"),
      file: fc.constantFrom("m.csv", "m.txt"),
      seed: fc.array(value, { minLength: 30, maxLength: 30 }),
    });
    fc.assert(
      fc.property(spec, ({ n, p, header, delimiter, file, seed }) => {
        const X = Array.from({ length: n }, (_, i) =>
          Array.from({ length: p }, (_, j) => seed[i * p + j]),
        );
        const y = X.map((_, i) => i % 2);
        const lines = X.map((r, i) =>
          [...r.map((v) => String(v).replace(".", ",")), String(y[i])].join(delimiter),
        );
        if (header) lines.unshift([...X[0].map((_, j) => `f${j}`), "label"].join(delimiter));
        const bytes = new TextEncoder().encode(`${lines.join("\n")}\n`);
        const ds = parseBytesSync(bytes, file, { decimal: ",", header });
        expect(ds.X.toRows()).toEqual(X);
        expect(ds.y).toEqual(y);
        expect(ds.info.delimiter).toBe(delimiter);
        // The header is also told from the rows when there are data rows under it.
        if (header) {
          const auto = parseBytesSync(bytes, file, { decimal: "," });
          expect(auto.X.toRows()).toEqual(X);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("text that is numbers joined by another delimiter", () => {
  it("names that delimiter, or nothing for text of its own", () => {
    expect(delimiterInText("5;2", ",", ".")).toBe(";");
    expect(delimiterInText(" 5 ; 2 ", ",", ".")).toBe(";");
    expect(delimiterInText("5\t2", ",", ".")).toBe("\t");
    expect(delimiterInText("5,2,1", ";", ".")).toBe(",");
    // With decimal commas a comma is inside the numbers; ';' between them is not.
    expect(delimiterInText("5,2;1,5", "\t", ",")).toBe(";");
    expect(delimiterInText("5,2,1", "\t", ",")).toBeNull();
    // The sniffed delimiter itself, an empty part or a word is not a guess gone wrong.
    expect(delimiterInText("5;2", ";", ".")).toBeNull();
    expect(delimiterInText("5;", ",", ".")).toBeNull();
    expect(delimiterInText("a;2", ",", ".")).toBeNull();
    expect(delimiterInText("a", ",", ".")).toBeNull();
  });

  it("is refused as a likely wrong delimiter, with --decimal-comma as the cure after ','", () => {
    const cure =
      "is likely wrong; if the numbers have decimal commas, read the file with --decimal-comma (decimal: \",\"), whose fields are separated by ';' or tabs";
    expect(errorOf(() => parseDelimited(semicolons, "semi3.csv")).message).toBe(
      `semi3.csv: columns 1, 2 (counting from 0) hold text, not numbers ('5;2' in row 1): numbers separated by ';', so the delimiter taken from the first lines (',') ${cure}`,
    );
    expect(errorOf(() => parseDelimited(tabs, "tabs.txt")).message).toBe(
      `tabs.txt: columns 1, 2 (counting from 0) hold text, not numbers ('5\t2' in row 1): numbers separated by tabs, so the delimiter taken from the first lines (',') ${cure}`,
    );
  });

  it("names the delimiter to give after any other guess", () => {
    expect(errorOf(() => parseDelimited("1 2;3 0\n1 2;3;4 1\n", "ws.csv")).message).toBe(
      "ws.csv: column 1 (counting from 0) holds text, not numbers ('2;3' in row 1): numbers separated by ';', so the delimiter taken from the first lines (whitespace) is likely wrong; give the delimiter (delimiter: \";\")",
    );
    const afterTabs = errorOf(() =>
      parseDelimited("1\t2,5;3\t0\n2\t3,5;4\t1\n", "c.csv", { decimal: "," }),
    );
    expect(afterTabs.message).toBe(
      "c.csv: column 1 (counting from 0) holds text, not numbers ('2,5;3' in row 1): numbers separated by ';', so the delimiter taken from the first lines (tabs) is likely wrong; give the delimiter (delimiter: \";\")",
    );
  });

  it("is left to the usual advice when the delimiter was given, or the file is .tsv", () => {
    const given = errorOf(() => parseDelimited(semicolons, "g.csv", { delimiter: "," }));
    expect(given.message).toBe(
      "g.csv: columns 1, 2 (counting from 0) hold text, not numbers ('5;2' in row 1); features must be numbers: leave them out with dropColumns: [1, 2]",
    );
    const tsv = errorOf(() => parseDelimited("1\t5,2\t0\n2\t6,3\t1\n", "t.tsv", {}, "tsv"));
    expect(tsv.message).toBe(
      "t.tsv: row 1 (data row 0), column 1 (counting from 0): '5,2' is a number written with a decimal comma; read the file with --decimal-comma (decimal: \",\"), or write numbers with a decimal point (and separate fields with ',', ';' or tabs)",
    );
    const tsvText = errorOf(() => parseDelimited("1\t5;2\t0\n2\t6;3\t1\n", "t.tsv", {}, "tsv"));
    expect(tsvText.message).toBe(
      "t.tsv: column 1 (counting from 0) holds text, not numbers ('5;2' in row 1); features must be numbers: leave it out with dropColumns: [1]",
    );
  });
});
