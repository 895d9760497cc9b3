/**
 * The delimited reader's pieces on the cases the generated files rarely hit, each
 * checked by the values read or the exact message: blanks around fields, quotes and
 * what may follow them, line breaks of every kind, a trailing delimiter, whitespace
 * separation, long fields, a matrix of more than one block and the limit on it, the
 * columns named to drop, and the first rows the delimiter and header are told from.
 */
import { errorOf } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { DataFormatError, ValidationError } from "#internal/core/errors.js";
import { DelimitedReader, parseDelimited } from "#internal/formats/csv.js";
import { asciiString, isAscii, numberAt } from "#internal/formats/csvCells.js";
import { columnsPhrase } from "#internal/formats/csvColumns.js";
import { detectHeader, sniffDelimiter } from "#internal/formats/csvSniff.js";

const read = (text: string, options = {}) => parseDelimited(text, "t.csv", options);

describe("fields", () => {
  it("drops spaces, tabs and form feeds around unquoted fields, and vertical tabs after them", () => {
    const ds = read(" 1 ,\t2\t, \f3\v\f ,0\n4,5,6,1\n", { delimiter: "," });
    expect(ds.X.toRows()).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    // A vertical tab before a field is not dropped (csv-parse's rule): the field is text.
    expect(errorOf(() => read("\v1,2,0\n4,5,1\n")).message).toContain("'\v1' is not a number");
  });

  it("keeps what is inside quotes, unescapes doubled quotes, and allows blanks after them", () => {
    const ds = read('"1" , "2"\t,"a ""b"""\n3,4,"c\r\nd"\n', { labelColumn: 2 });
    expect(ds.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(ds.y).toEqual(['a "b"', "c\r\nd"]);
    // A quoted number with spaces inside is text, as csv-parse gave it.
    expect(errorOf(() => read('" 1",2,0\n3,4,1\n')).message).toContain("' 1' is not a number");
  });

  it("refuses broken quoting, naming the row and the column", () => {
    expect(errorOf(() => read('1,2,0\n3,"4"x,1\n')).message).toBe(
      `t.csv: not valid delimited text: row 2, column 1 (counting from 0): 'x' after the closing quote of a quoted field (a quote inside a field is written "")`,
    );
    expect(errorOf(() => read('1,2,0\n3,4x"y,1\n')).message).toBe(
      't.csv: not valid delimited text: row 2, column 1 (counting from 0): a quote inside an unquoted field; quote the whole field ("...") and write a quote inside it as ""',
    );
    expect(errorOf(() => read('1,2,0\n3,4,"1\n\n')).message).toBe(
      "t.csv: not valid delimited text: row 2, column 2 (counting from 0): a quoted field is not closed by the end of the file",
    );
  });

  it("reads \\n, \\r\\n and \\r line ends, counting the lines as an editor does", () => {
    for (const eol of ["\n", "\r\n", "\r"]) {
      const text = ["a,b,label", "1,2,0", "", '3,4,"x', 'y"', "5,NA,1", ""].join(eol);
      expect(errorOf(() => read(text)).message).toBe(
        "t.csv: row 6 (data row 2), column 1 (counting from 0, 'b'): missing or non-finite value 'NA'; missing values are not accepted: remove or impute them first",
      );
    }
  });

  it("reads an empty last field after a delimiter that ends the file or a line", () => {
    expect(errorOf(() => read("1,2,0\n3,4,")).message).toBe(
      "t.csv: row 2 (data row 1), column 2 (counting from 0): the label is empty; every sample needs its class label (remove the sample or fill in its label)",
    );
    expect(errorOf(() => read("1,2,\n3,4,1\n")).message).toContain("row 1 (data row 0)");
    const chunked = new DelimitedReader("t.csv", { labels: "optional" });
    for (const part of ["1,2,3\n4,5,", "6"]) chunked.push(new TextEncoder().encode(part));
    expect(chunked.finish().X.toRows()).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
  });

  it("separates fields by runs of whitespace, tabs and vertical tabs included", () => {
    const ds = read("  1 \t 2\v\f0  \n\n3\t\t4 1\n", { delimiter: " " });
    expect(ds.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(ds.info.delimiter).toBe(" ");
    expect(errorOf(() => read("1 2 0\n3 4\n", { delimiter: " " })).message).toBe(
      "t.csv: row 2 has 2 fields but row 1 has 3; every row needs the same number of columns",
    );
    expect(errorOf(() => read("1 2 0\n3\n", { delimiter: " " })).message).toBe(
      "t.csv: row 2 has 1 field but row 1 has 3; every row needs the same number of columns",
    );
  });

  it("reads long text fields, ASCII or not, whole", () => {
    const long = "a".repeat(20_000);
    const wide = `é${"b".repeat(9000)} `;
    const ds = read(`1,${long}\n2,${long}\n3,${wide}\n4,${wide}\n`);
    expect(ds.y).toEqual([long, long, wide.trimEnd(), wide.trimEnd()]);
  });
});

describe("the matrix", () => {
  it("fills more than one block (2^20 values) in order", () => {
    // 8 one-digit features a row, (i + j) % 10: little text for 2^20 + 8 values.
    const rows = 2 ** 17 + 1;
    const lines: string[] = [];
    for (let i = 0; i < rows; i++) {
      lines.push(`${Array.from({ length: 8 }, (_, j) => (i + j) % 10).join(",")},${i % 2}`);
    }
    const ds = read(`${lines.join("\n")}\n`);
    expect([ds.X.rows, ds.X.cols]).toEqual([rows, 8]);
    for (const i of [0, 1, rows - 2, rows - 1]) {
      expect(ds.X.row(i)).toEqual(Float64Array.from({ length: 8 }, (_, j) => (i + j) % 10));
    }
    expect(ds.y[rows - 1]).toBe((rows - 1) % 2);
  });

  it("holds exactly maxBytes of values, and refuses one more", () => {
    const text = (n: number) =>
      Array.from({ length: n }, (_, i) => `${i},${i + 1},${i % 2}`).join("\n");
    expect(read(text(2000), { maxBytes: 2000 * 2 * 8 }).X.rows).toBe(2000);
    expect(errorOf(() => read(text(2001), { maxBytes: 2000 * 2 * 8 })).message).toBe(
      "t.csv: its numbers take more than 31.3 KiB as float64, the limit on one buffer (maxBytes)",
    );
    expect(errorOf(() => read(text(3), { maxBytes: 7 })).message).toContain("more than 7 bytes");
  });
});

describe("columns to drop", () => {
  const text = "id,a,a,b,label\nx,1,2,3,0\ny,4,5,6,1\nz,7,8,9,0\n";

  it("takes indices, negative indices, index strings and names, once each", () => {
    const ds = read(text, { dropColumns: ["id", -2, "0", 1] });
    expect(ds.info.droppedColumns).toEqual([0, 1, 3]);
    expect(ds.X.toRows()).toEqual([[2], [5], [8]]);
  });

  it("refuses a repeated name, a fraction, a column past either end", () => {
    const twice = errorOf(() => read(text, { dropColumns: ["a"] }));
    expect(twice).toBeInstanceOf(ValidationError);
    expect(twice.message).toBe(
      "The column to drop 'a' of t.csv is ambiguous: columns 1 and 2 (counting from 0) are both named 'a' in the header; give the column's index instead.",
    );
    expect(errorOf(() => read(text, { dropColumns: [1.5] })).message).toBe(
      "The column to drop of t.csv must be an integer in [-5, 4] (the data has 5 columns). Got 1.5 instead.",
    );
    expect(errorOf(() => read(text, { dropColumns: [-6] })).message).toContain("Got -6 instead.");
    expect(errorOf(() => read(text, { dropColumns: [5] })).message).toContain("Got 5 instead.");
    expect(errorOf(() => read("1,2,0\n3,4,1\n", { dropColumns: ["x"] })).message).toBe(
      "The column to drop 'x' of t.csv is not a header name (the file has no header) or a column index.",
    );
  });

  it("names columns with their header names where they have one", () => {
    expect(columnsPhrase([0], ["id"])).toBe("column 0 ('id') (counting from 0)");
    expect(columnsPhrase([0, 2], ["", "b", "c"])).toBe("columns 0, 2 ('c') (counting from 0)");
    expect(columnsPhrase([1], undefined)).toBe("column 1 (counting from 0)");
  });

  it("leaves no feature: refused as before", () => {
    expect(errorOf(() => read("1,2,0\n3,4,1\n", { dropColumns: [0, 1] })).message).toBe(
      "t.csv: has no numeric feature columns",
    );
    expect(errorOf(() => read("a,b,c\n", { header: false })).message).toBe(
      "t.csv: holds a single row, of text only ('a', 'b', 'c'): a header without data rows?",
    );
  });
});

describe("the first lines", () => {
  it("sniff the delimiter that splits them alike, the one with most fields on a tie", () => {
    expect(sniffDelimiter(["1,2,3", "4,5,6"])).toBe(",");
    expect(sniffDelimiter(["1\t2", "3\t4"])).toBe("\t");
    expect(sniffDelimiter(["1,5;2;1", "2,25;3;1"])).toBe(";");
    expect(sniffDelimiter(["1;2,5", "3;4,5"])).toBe(",");
    expect(sniffDelimiter(["1  2 3", " 4 5\t6"])).toBe(" ");
    // Ragged lines: the commonest delimiter; none at all: whitespace.
    expect(sniffDelimiter(['"a,b";1;2', "3;4;5"])).toBe(";");
    expect(sniffDelimiter(['"a,b,c",1', "2,3"])).toBe(",");
    expect(sniffDelimiter(["1", "2"])).toBe(" ");
    expect(sniffDelimiter(["a b", "c"])).toBe(" ");
    // Ragged lines with as many commas as tabs: the comma, the first in the order tried.
    expect(sniffDelimiter(["a,b\tc", "a\tb,c,d\te"])).toBe(",");
  });

  it("tell a header by names above numbers, or by pandas' column numbers", () => {
    expect(
      detectHeader(
        [
          ["a", "b"],
          ["1", "2"],
        ],
        ".",
      ),
    ).toBe("names");
    expect(detectHeader([["a", "b"]], ".")).toBeNull();
    expect(
      detectHeader(
        [
          ["a", "b"],
          ["x", "2"],
        ],
        ".",
      ),
    ).toBe("names");
    expect(
      detectHeader(
        [
          ["a", "b"],
          ["x", "y"],
        ],
        ".",
      ),
    ).toBeNull();
    expect(
      detectHeader(
        [
          ["NaN", "b"],
          ["1", "y"],
        ],
        ".",
      ),
    ).toBeNull();
    expect(
      detectHeader(
        [
          ["a", "3", "4"],
          ["1", "2", "3"],
        ],
        ".",
      ),
    ).toBe("names");
    expect(
      detectHeader(
        [
          ["a", "3", "5"],
          ["1", "2", "3"],
        ],
        ".",
      ),
    ).toBeNull();
    expect(
      detectHeader(
        [
          ["2", "a", "4"],
          ["1", "2", "3"],
        ],
        ".",
      ),
    ).toBe("names");
    expect(
      detectHeader(
        [
          ["a", "1,5"],
          ["1", "2,5"],
        ],
        ",",
      ),
    ).toBeNull();
    expect(
      detectHeader(
        [
          ["a", "1"],
          ["1,5", "2,5"],
        ],
        ",",
      ),
    ).toBe("names");
    expect(
      detectHeader(
        [
          ["0", "1", "2"],
          ["5", "6", "7"],
        ],
        ".",
      ),
    ).toBe("column-numbers");
    expect(
      detectHeader(
        [
          ["", "0", "1"],
          ["0", "6", "7"],
        ],
        ".",
      ),
    ).toBe("column-numbers");
    expect(
      detectHeader(
        [
          ["", "1", "2"],
          ["0", "6", "7"],
        ],
        ".",
      ),
    ).toBeNull();
    expect(
      detectHeader(
        [
          ["0", "1"],
          ["5", "6"],
        ],
        ".",
      ),
    ).toBeNull();
    expect(
      detectHeader(
        [
          ["00", "1", "2"],
          ["5", "6", "7"],
        ],
        ".",
      ),
    ).toBeNull();
    expect(
      detectHeader(
        [
          ["0", "1", "2"],
          ["0", "1", "2"],
        ],
        ".",
      ),
    ).toBeNull();
  });

  it("are the first 64 lines, blank ones included", () => {
    // 64 blank lines and then data: as before, the first lines hold nothing.
    expect(errorOf(() => read(`${"\n".repeat(64)}1,2,0\n3,4,1\n`)).message).toBe("t.csv: is empty");
    expect(read(`${"\n".repeat(63)}1,2,0\n3,4,1\n`).X.rows).toBe(2);
    expect(read(`${"\r\n".repeat(63)}1;2;0\r\n3;4;1\r\n`).info.delimiter).toBe(";");
  });

  it("sniff the delimiter from the first 20 lines that are not blank", () => {
    // With the blank line, ',' would not split every line alike and ';' is commonest.
    const blank = read("1,a;b;c;d\n\n2,e\n", { labels: "optional", dropColumns: [1] });
    expect([blank.info.delimiter, blank.X.toRows()]).toEqual([",", [[1], [2]]]);
    // The 21st line would make ';' the commonest.
    const lines = Array.from({ length: 20 }, (_, i) => `${i},a`);
    const text = `${lines.join("\n")}\n20,"x,${";".repeat(30)}"\n`;
    const ds = read(text, { labels: "optional", labelColumn: 1 });
    expect([ds.info.delimiter, ds.X.rows, ds.y[20]]).toEqual([",", 21, `x,${";".repeat(30)}`]);
  });

  it("leave out a last line the bytes cut, and keep one the file ends with", () => {
    // Both lines: ';' splits them alike; the first alone: ',' (and the second is ragged).
    expect(read("x,y;z\n1;2", { labels: "optional" }).X.toRows()).toEqual([[1, 2]]);
    // Past 8 MiB the first line's commas would make ',' the commonest delimiter.
    const long = "a,".repeat(2 ** 22);
    const cut = read(`x;y;z\n"${long}";1;2\n`, { dropColumns: [0], labels: "optional" });
    expect([cut.info.delimiter, cut.X.toRows()]).toEqual([";", [[1, 2]]]);
    // A line longer than 8 MiB is all there is to sniff.
    const only = read(`1;"${"a".repeat(2 ** 23)}"\n2;b\n`, {
      dropColumns: [1],
      labels: "optional",
    });
    expect([only.info.delimiter, only.X.toRows()]).toEqual([";", [[1], [2]]]);
  });

  it("skip one or two byte order marks, as the previous reader did", () => {
    expect(read("\ufeff\ufeff1,2,0\n3,4,1\n").X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(errorOf(() => read("\ufeff\ufeff\ufeff1,2,0\n3,4,1\n")).message).toContain(
      "'\ufeff1' is not a number",
    );
  });

  it("refuses NUL bytes and invalid UTF-8 wherever they are", () => {
    const reader = new DelimitedReader("t.csv");
    reader.push(new TextEncoder().encode("1,2,0\n".repeat(100)));
    expect(errorOf(() => reader.push(Uint8Array.of(0x31, 0x00)))).toBeInstanceOf(DataFormatError);
    const cut = new DelimitedReader("t.csv");
    cut.push(Uint8Array.of(0x31, 0x2c, 0x32, 0x2c, 0xc3));
    expect(errorOf(() => cut.finish()).message).toBe("t.csv: is not valid UTF-8 text");
    const bad = new DelimitedReader("t.csv");
    expect(errorOf(() => bad.push(Uint8Array.of(0x31, 0xff))).message).toBe(
      "t.csv: is not valid UTF-8 text",
    );
  });
});

describe("numbers read from the bytes", () => {
  const fast = (s: string, mark = 0x2e) => {
    const b = new TextEncoder().encode(`x${s}x`);
    return numberAt(b, 1, b.length - 1, mark);
  };

  it("take the exact path up to 15 significant digits and a scale of 10^+-22", () => {
    expect(fast("123456789012345")).toBe(123456789012345);
    expect(fast("1234567890123456")).toBeNaN();
    expect(fast("0.00000000000000000000123456789012345")).toBeNaN();
    expect(fast("000000000000000000001.5")).toBe(1.5);
    expect(fast("-12345678901234.5")).toBe(-12345678901234.5);
    expect(fast("1e22")).toBe(1e22);
    expect(fast("1e23")).toBeNaN();
    expect(fast("1e-22")).toBe(1e-22);
    expect(fast("1e-23")).toBeNaN();
    expect(fast("12.5e-21")).toBe(12.5e-21);
    expect(fast("12.5e-22")).toBeNaN();
    expect(fast("1E+0022")).toBe(1e22);
    expect(fast("1e00022")).toBeNaN();
    expect(fast("0e400")).toBe(0);
    expect(Object.is(fast("-0.0"), -0)).toBe(true);
    expect(Object.is(fast("+7"), 7)).toBe(true);
    expect(fast(".5")).toBe(0.5);
    expect(fast("5.")).toBe(5);
    expect(fast("1,5", 0x2c)).toBe(1.5);
    expect(fast("1.5", 0x2c)).toBeNaN();
  });

  it("leave what is not a plain number to the text path", () => {
    for (const s of [
      "",
      "+",
      "-",
      ".",
      "e5",
      "1e",
      "1e+",
      "1.2.3",
      "1x",
      "0x1",
      " 1",
      "1 ",
      "1e5.0",
      "--1",
    ]) {
      expect(fast(s)).toBeNaN();
    }
    expect(isAscii(new TextEncoder().encode("aé"), 0, 1)).toBe(true);
    expect(isAscii(new TextEncoder().encode("aé"), 0, 2)).toBe(false);
    const long = "q".repeat(20_000);
    expect(asciiString(new TextEncoder().encode(`-${long}-`), 1, 20_001)).toBe(long);
  });
});

describe("the column checks, in their order", () => {
  it("name the first bad value by row, then by column", () => {
    expect(errorOf(() => read("1,2,3,0\n4,5,NA,1\nNA,7,8,0\n")).message).toContain(
      "row 2 (data row 1), column 2 (counting from 0): missing or non-finite value 'NA'",
    );
    expect(errorOf(() => read("1,2,3,0\n4,?,1e999,1\n9,9,9,0\n")).message).toContain(
      "row 2 (data row 1), column 1 (counting from 0): missing or non-finite value '?'",
    );
    expect(errorOf(() => read("1,2,3,0\n4,5,-1e999,1\n9,9,9,0\n")).message).toBe(
      "t.csv: row 2 (data row 1), column 2 (counting from 0): value '-1e999' overflows float64",
    );
  });

  it("report a column that mixes numbers and text before any column of text", () => {
    expect(errorOf(() => read("1,a,x,0\nb,c,y,1\n3,d,z,0\n")).message).toBe(
      "t.csv: row 2 (data row 1), column 0 (counting from 0): 'b' is not a number, but the column holds numbers elsewhere",
    );
    expect(errorOf(() => read("a,1,x,0\nc,b,y,1\nd,3,z,0\n")).message).toBe(
      "t.csv: row 2 (data row 1), column 1 (counting from 0): 'b' is not a number, but the column holds numbers elsewhere",
    );
    expect(errorOf(() => read("a,1,x,0\nc,2,y,1\nd,3,z,0\n")).message).toContain(
      "columns 0, 2 (counting from 0) hold text, not numbers ('a' in row 1); features must be numbers: leave them out with dropColumns: [0, 2]",
    );
  });

  it("name a decimal comma in a column of numbers rather than call it text", () => {
    expect(errorOf(() => read("1;2;0\n3;4,5;1\n5;6;0\n")).message).toBe(
      "t.csv: row 2 (data row 1), column 1 (counting from 0): '4,5' is a number written with a decimal comma; read the file with --decimal-comma (decimal: \",\"), or write numbers with a decimal point (and separate fields with ',', ';' or tabs)",
    );
  });

  it("suggest labelColumn alike with labels needed or not, when the text column is named", () => {
    const text = "a,b,species,c\n1,2,x,0\n3,4,y,1\n";
    const hint =
      "t.csv: column 2 ('species') (counting from 0) holds text, not numbers ('x' in row 2); features must be numbers: leave it out with dropColumns: [2], or name the label column with labelColumn";
    expect(errorOf(() => read(text)).message).toBe(hint);
    expect(errorOf(() => read(text, { labels: "optional" })).message).toBe(hint);
    // Any named column of several will do; an unnamed one with labels needed is not the labels.
    expect(errorOf(() => read(",b,species,c\nu,2,x,0\nv,4,y,1\n")).message).toMatch(
      /dropColumns: \[0, 2\], or name the label column with labelColumn$/,
    );
    expect(errorOf(() => read("1,x,0\n3,y,1\n")).message).toMatch(/dropColumns: \[1\]$/);
    expect(errorOf(() => read(",b,c\nu,2,0\nv,4,1\n")).message).toMatch(/dropColumns: \[0\]$/);
    // A label column the user named is not suggested again.
    expect(errorOf(() => read(text, { labelColumn: "c" })).message).toMatch(/dropColumns: \[2\]$/);
  });

  it("name a trailing delimiter when the last column is empty in every row", () => {
    const cause = (row: number, d: string) =>
      `t.csv: row ${row} (data row 0), column 3 (counting from 0): the label is empty, in every row: each row ends with a delimiter (${d}), the likely cause; remove the trailing delimiters, or name the label column with --label-col (labelColumn)`;
    expect(errorOf(() => read("1,2,0,\n3,4,1,\n5,6,0,\n")).message).toBe(cause(1, "','"));
    expect(errorOf(() => read("a,b,c,\n1,2,0,\n3,4,1,\n")).message).toBe(cause(2, "','"));
    expect(errorOf(() => read("1\t2\t0\t\n3\t4\t1\t\n")).message).toBe(cause(1, "tabs"));
    // One label missing, or an empty column that is not the last: a missing label.
    const missing = (col: number) =>
      `t.csv: row 1 (data row 0), column ${col} (counting from 0): the label is empty; every sample needs its class label (remove the sample or fill in its label)`;
    expect(errorOf(() => read("1,2,0,\n3,4,1,x\n")).message).toBe(missing(3));
    expect(errorOf(() => read("1,2,,3\n3,4,,1\n", { labelColumn: 2 })).message).toBe(missing(2));
    expect(errorOf(() => read("1,2,?\n3,4,?\n")).message).toBe(
      "t.csv: row 1 (data row 0), column 2 (counting from 0): the label '?' marks a missing value; every sample needs its class label (remove the sample or fill in its label)",
    );
  });

  it("do not suggest labelColumn when the labels are elsewhere", () => {
    const err = errorOf(() => read("a,1\nb,2\n", { labelColumn: "none", labels: "optional" }));
    expect(err.message).toMatch(/with dropColumns: \[0\]$/);
  });

  it("take a single data row under a header for what it is", () => {
    expect(errorOf(() => read("a,b,c\nx,y,z\n", { header: true })).message).toBe(
      "t.csv: holds a single row, of text only ('x', 'y', 'z'): a header without data rows?",
    );
    // One row holds no row numbers to tell an index column by.
    expect(
      read(",a,label\n0,5,1\n", { labels: "optional", labelColumn: "label" }).X.toRows(),
    ).toEqual([[0, 5]]);
  });

  it("say where the labels came from, or that there are none", () => {
    const named = read("a,b,label\n1,2,x\n3,4,y\n5,6,x\n");
    expect(named.info).toMatchObject({ yVar: "label", labelColumn: 2, delimiter: "," });
    const bare = read("1,2,7\n3,4,8\n5,6,7\n");
    expect(bare.info).toMatchObject({ yVar: "column 2", labelColumn: 2 });
    const none = read("1,2\n3,4\n", { labels: "optional" });
    expect(none.info.yVar).toBeNull();
    expect(none.info).not.toHaveProperty("labelColumn");
    expect(none.y).toEqual([]);
    expect(none.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it("split a .tsv at tabs whatever the sniffing would say", () => {
    const ds = parseDelimited("1,5\t2\t0\n3,5\t4\t1\n", "t.tsv", { decimal: "," }, "tsv");
    expect(ds.info).toMatchObject({ format: "tsv", delimiter: "\t" });
    expect(ds.X.toRows()).toEqual([
      [1.5, 2],
      [3.5, 4],
    ]);
    expect(read("1|2|0\n3|4|1\n", { delimiter: "|" }).X.toRows()).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });
});
