/**
 * The delimited reader's options, decisions and refusals, each checked by what is read
 * or the exact message: options refused by name, the text decoded and validated, the
 * header decided and named, what the result says of the file, pandas' index column,
 * the first text or notation named in a column, and numbers that overflow.
 */
import { errorOf } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { ValidationError } from "#internal/core/errors.js";
import { DelimitedReader, decodeText, parseDelimited } from "#internal/formats/csv.js";

const read = (text: string, options = {}) => parseDelimited(text, "t.csv", options);

describe("options and bytes refused", () => {
  const delimiterMessage = (got: string) =>
    `The delimiter must be one ASCII character other than a quote or a line break, or " " for runs of whitespace. Got ${got} instead.`;

  it.each<[object, string, string]>([
    [{ delimiter: "" }, "delimiter", delimiterMessage('""')],
    [{ delimiter: ",;" }, "delimiter", delimiterMessage('",;"')],
    [{ delimiter: "\x7f" }, "delimiter", delimiterMessage('"\x7f"')],
    [{ delimiter: "é" }, "delimiter", delimiterMessage('"é"')],
    [{ delimiter: '"' }, "delimiter", delimiterMessage('"\\""')],
    [{ delimiter: "\n" }, "delimiter", delimiterMessage('"\\n"')],
    [{ delimiter: "\r" }, "delimiter", delimiterMessage('"\\r"')],
    [{ delimiter: 44 }, "delimiter", delimiterMessage("44")],
    [{ decimal: ";" }, "decimal", 'The decimal mark must be "." or ",". Got ";" instead.'],
    [{ header: "yes" }, "header", 'header must be true, false or "auto". Got "yes" instead.'],
  ])("%j", (options, argument, message) => {
    const err = errorOf(() => new DelimitedReader("t.csv", options));
    expect(err).toBeInstanceOf(ValidationError);
    expect([(err as ValidationError).argument, err.message]).toEqual([argument, message]);
  });

  it("takes the defaults when they are given", () => {
    const options = { decimal: ".", header: "auto", delimiter: "," } as const;
    expect(read("a,b\n1.5,2\n", { ...options, labels: "optional" }).X.toRows()).toEqual([[1.5, 2]]);
  });

  it("takes the last ASCII character and control characters as delimiters", () => {
    for (const delimiter of ["~", "\x01", "\t"]) {
      const text = `1${delimiter}2${delimiter}0\n3${delimiter}4${delimiter}1\n`;
      expect(read(text, { delimiter }).X.toRows()).toEqual([
        [1, 2],
        [3, 4],
      ]);
    }
  });

  it("decodes whole text as UTF-8, one or two byte order marks dropped, binary refused", () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    expect(decodeText(bytes("\ufeff\ufeffa,é"), "t.csv")).toBe("a,é");
    expect(decodeText(bytes("\ufeff\ufeff\ufeffa"), "t.csv")).toBe("\ufeffa");
    expect(decodeText(bytes("a\ufeff"), "t.csv")).toBe("a\ufeff");
    expect(errorOf(() => decodeText(Uint8Array.of(0x31, 0x00, 0x32), "t.csv")).message).toBe(
      "t.csv: contains NUL bytes: this is a binary file, not delimited text",
    );
    expect(errorOf(() => decodeText(Uint8Array.of(0x31, 0xc3), "t.csv")).message).toBe(
      "t.csv: is not valid UTF-8 text",
    );
  });

  it("validates a chunk of more than 1 MiB in slices, a character across their border included", () => {
    // 3 blank lines, then 5-byte lines: the é of line 209715 starts at byte 2^20 - 1.
    const lines = Array.from({ length: 209_720 }, (_, i) => (i % 2 === 0 ? "1,é" : "2,ü"));
    const text = `\n\n\n${lines.join("\n")}\n`;
    expect(new TextEncoder().encode(text).subarray(2 ** 20 - 1, 2 ** 20 + 1)).toEqual(
      new TextEncoder().encode("é"),
    );
    const ds = read(text);
    expect([ds.X.rows, ds.y[209_715], ds.y[209_719]]).toEqual([209_720, "ü", "ü"]);
  });
});

describe("the header", () => {
  it.each(["\n", "\r\n", "\r"])(
    "is decided once two rows are read, and says how (lines ending %j)",
    (eol) => {
      const reader = new DelimitedReader("t.csv");
      // The first 64 lines are kept to sniff the delimiter, then read: here the 64th is the header.
      reader.push(new TextEncoder().encode(`${eol.repeat(63)}a,b,label${eol}`));
      expect(reader.headerDecision).toBeNull();
      reader.push(new TextEncoder().encode(`1,2,0${eol}`));
      expect(reader.headerDecision).toEqual({ header: ["a", "b", "label"], detected: "names" });
      reader.push(new TextEncoder().encode(`3,4,1${eol}`));
      expect(reader.finish().info).toMatchObject({ format: "csv", header: ["a", "b", "label"] });
    },
  );

  it("is decided by the option when there is one", () => {
    const told = new DelimitedReader("t.csv", { header: true });
    told.push(new TextEncoder().encode(`${"\n".repeat(63)}a,b,label\n1,2,0\n`));
    expect(told.headerDecision).toEqual({ header: ["a", "b", "label"], detected: null });
  });

  it("keeps its names as written: trailing Unicode blanks dropped unless quoted, doubled quotes undone", () => {
    const ds = read('"é ""q""",b\u3000é\u3000,"c\u3000",d\n1,2,3,0\n4,5,6,1\n');
    expect(ds.info.header).toEqual(['é "q"', "b\u3000é", "c\u3000", "d"]);
    expect(ds.info.headerDetected).toBe("names");
  });

  it.each(["ỿ", "＿", "ﻀ"])(
    "keeps a first name %j whose bytes look like a byte order mark's",
    (name) => {
      // U+1EFF, U+FF3F and U+FEC0: e1 bb bf, ef bc bf and ef bb 80 (the mark is ef bb bf).
      expect(read(`${name},b\n1,2\n`, { labels: "optional" }).info.header).toEqual([name, "b"]);
    },
  );

  it("is not all there is", () => {
    expect(errorOf(() => read("a,b,label\n", { header: true })).message).toBe(
      "t.csv: has a header but no data rows",
    );
  });
});

describe("the label column", () => {
  it("needs a feature column beside it", () => {
    expect(errorOf(() => read("1\n2\n")).message).toBe(
      "t.csv: has 1 column; the data needs at least one feature column and a label column",
    );
    expect(read("1\n2\n", { labels: "optional" }).X.toRows()).toEqual([[1], [2]]);
  });

  it("holds class labels when they are needed, any text when they are not", () => {
    const text = "1,a\n2,a\n3,a\n";
    expect(read(text, { labels: "optional", labelColumn: 1 }).y).toEqual(["a", "a", "a"]);
    expect(errorOf(() => read(text)).message).toBe(
      't.csv: the labels in column 1 (counting from 0) are all "a": a single class, where classification needs at least two (a constant column?). Say which column holds the labels with --label-col (labelColumn), or none if the data has no labels.',
    );
  });

  it("is not suggested when it is the first column", () => {
    expect(errorOf(() => read("0,a,1\n1,b,2\n", { labelColumn: 0 })).message).toBe(
      "t.csv: column 1 (counting from 0) holds text, not numbers ('a' in row 1); features must be numbers: leave it out with dropColumns: [1]",
    );
  });
});

describe("what a read says about the file", () => {
  it("names the header, the label column, the dropped columns and the delimiter, and nothing else", () => {
    const text = { file: "t.csv", format: "csv", xVar: null, transposed: false, oneHot: false };
    const ids = "id;a;b;label\nx;1;2;u\ny;3;4;v\nz;5;6;u\nw;7;8;v\n";
    expect(read(ids, { dropColumns: ["id"] }).info).toEqual({
      ...text,
      yVar: "label",
      labelColumn: 3,
      header: ["id", "a", "b", "label"],
      headerDetected: "names",
      delimiter: ";",
      droppedColumns: [0],
    });
    const bare = read("1\t2\n3\t4\n", { labels: "optional", header: false });
    expect(bare.info).toEqual({ ...text, yVar: null, delimiter: "\t" });
    const named = read("a,b\n1,2\n3,4\n", { labels: "optional", header: true });
    expect(named.info).toEqual({ ...text, yVar: null, header: ["a", "b"], delimiter: "," });
  });

  it("names the first text in a column of numbers, and the first number in another notation", () => {
    expect(errorOf(() => read("a,0\n1,1\nc,0\n", { header: false })).message).toBe(
      "t.csv: row 1 (data row 0), column 0 (counting from 0): 'a' is not a number, but the column holds numbers elsewhere",
    );
    expect(errorOf(() => read("1;2,5;0\n3;4,5;1\n5;6;0\n")).message).toBe(
      `t.csv: row 1 (data row 0), column 1 (counting from 0): '2,5' is a number written with a decimal comma; read the file with --decimal-comma (decimal: ","), or write numbers with a decimal point (and separate fields with ',', ';' or tabs)`,
    );
    // A column of such numbers only: named for its notation before it is called text.
    expect(
      errorOf(() => read("x;1,5;0\ny;2,5;1\nz;3,5;0\n", { dropColumns: [0], header: false }))
        .message,
    ).toBe(
      `t.csv: row 1 (data row 0), column 1 (counting from 0): '1,5' is a number written with a decimal comma; read the file with --decimal-comma (decimal: ","), or write numbers with a decimal point (and separate fields with ',', ';' or tabs)`,
    );
  });
});

describe("pandas' index column", () => {
  const indexMessage = (name: string, last: number) =>
    `t.csv: column 0 (counting from 0${name}) has no name in the header and holds the row numbers 0 to ${last}: it is the index pandas writes (DataFrame.to_csv without index=False), not a feature; leave it out with dropColumns: [0]`;

  it("is an empty or 'Unnamed: <digits>' name over the row numbers, from two rows on", () => {
    expect(errorOf(() => read("Unnamed: 12,a,label\n0,5,1\n1,6,0\n2,7,1\n")).message).toBe(
      indexMessage(", 'Unnamed: 12'", 2),
    );
    expect(errorOf(() => read(",a,label\n0,5,1\n1,6,1\n")).message).toBe(indexMessage("", 1));
    expect(read(",a,label\n0,5,1\n1,6,0\n3,7,1\n3,8,0\n").X.column(0)).toEqual(
      Float64Array.of(0, 1, 3, 3),
    );
  });

  it.each(["xUnnamed: 0", "Unnamed: 0x", "Unnamed: ", "Unnamed 0"])(
    "is not a column named %j",
    (name) => {
      const ds = read(`${name},a,label\n0,5,1\n1,6,0\n2,7,1\n3,8,0\n`);
      expect(ds.X.toRows()).toEqual([
        [0, 5],
        [1, 6],
        [2, 7],
        [3, 8],
      ]);
    },
  );
});

describe("values read as numbers or refused", () => {
  it("splits a .tsv at tabs, where sniffing would take the commas", () => {
    const ds = parseDelimited(
      "x,y\t1\nz,w\t2\n",
      "t.tsv",
      { labels: "optional", dropColumns: [0] },
      "tsv",
    );
    expect([ds.info.delimiter, ds.X.toRows()]).toEqual(["\t", [[1], [2]]]);
  });

  it("counts text cells against maxBytes, as the matrix would hold them", () => {
    expect(errorOf(() => read("a,1,0\nb,2,1\n", { maxBytes: 16 })).message).toBe(
      "t.csv: its numbers take more than 16 bytes as float64, the limit on one buffer (maxBytes)",
    );
  });

  it("refuses a single row with no feature left, as having no numbers", () => {
    expect(errorOf(() => read("1,2,0\n", { dropColumns: [0, 1], header: false })).message).toBe(
      "t.csv: has no numeric feature columns",
    );
  });

  it.each([
    ["1e400", "value '1e400' overflows float64"],
    ["+1E+400", "value '+1E+400' overflows float64"],
    ["-1e400", "value '-1e400' overflows float64"],
  ])("%s: refused as overflowing", (value, problem) => {
    expect(errorOf(() => read(`1,0\n${value},1\n2,0\n`)).message).toBe(
      `t.csv: row 2 (data row 1), column 0 (counting from 0): ${problem}`,
    );
  });
});
