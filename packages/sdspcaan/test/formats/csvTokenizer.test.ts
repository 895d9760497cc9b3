/**
 * The tokenizer's fields and line count where the bytes are cut. The reader keeps its
 * first 64 lines to sniff the delimiter and hands them over in one piece, so the cuts
 * are made here on the tokenizer itself, with a sink that records each field (quoted
 * ones in their quotes, as their bytes are) and the line each row starts on: the same
 * rows, or the same message, for every cut, every two cuts, empty chunks and one byte
 * at a time. The reader's own messages are checked for the row they name.
 */
import fc from "fast-check";
import { errorOf } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { DelimitedReader, parseDelimited } from "#internal/formats/csv.js";
import { DelimitedTokenizer, type FieldSink } from "#internal/formats/csvTokenizer.js";

const decoder = new TextDecoder();

/** A row as the sink saw it: the line it starts on, then its fields. */
type Row = [number, ...string[]];

/** Records what the tokenizer gives, checking the promises of FieldSink on each field. */
class Recorder implements FieldSink {
  readonly rows: Row[] = [];
  current: string[] = [];

  field(buf: Uint8Array, start: number, end: number, quoted: boolean, escaped: boolean): void {
    if (!(start >= 0 && start <= end && end <= buf.length)) {
      throw new Error(`field [${start}, ${end}) outside the ${buf.length} bytes given`);
    }
    const bytes = decoder.decode(buf.subarray(start, end));
    // `escaped` says exactly whether a quoted field's bytes hold a doubled quote.
    if (escaped !== (quoted && bytes.includes('""'))) {
      throw new Error(`field ${JSON.stringify(bytes)} (quoted: ${quoted}) with escaped ${escaped}`);
    }
    this.current.push(quoted ? `"${bytes}"` : bytes);
  }

  endRow(line: number): void {
    this.rows.push([line, ...this.current]);
    this.current = [];
  }
}

/**
 * The rows of `text` pushed in chunks ending at `cuts` (then the rest), each chunk
 * overwritten after its push (the tokenizer keeps none), or the message it refused it with.
 */
function tokens(text: string, cuts: readonly number[] = [], delimiter = ","): Row[] | string {
  const bytes = new TextEncoder().encode(text);
  const sink = new Recorder();
  const tokenizer = new DelimitedTokenizer(delimiter, sink, "t.csv");
  try {
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      const chunk = bytes.slice(from, Math.max(from, cut));
      tokenizer.push(chunk);
      chunk.fill(0x2c);
      from = Math.max(from, cut);
    }
    tokenizer.finish();
  } catch (err) {
    return (err as Error).message;
  }
  return sink.rows;
}

/** Every way of cutting `text` once or twice, an empty chunk at each place, and byte by byte. */
function cutsOf(text: string): number[][] {
  const n = new TextEncoder().encode(text).length;
  const all: number[][] = [Array.from({ length: n }, (_, i) => i + 1)];
  for (let a = 0; a <= n; a++) {
    all.push([a], [a, a]);
    for (let b = a + 1; b <= n; b++) all.push([a, b]);
  }
  return all;
}

/** `text` gives `expected` read whole and however it is cut. */
function expectEveryCut(text: string, expected: Row[] | string, delimiter = ","): void {
  expect(tokens(text, [], delimiter)).toEqual(expected);
  for (const cuts of cutsOf(text)) {
    expect(tokens(text, cuts, delimiter), `cut at ${cuts.join(", ")}`).toEqual(expected);
  }
}

const invalid = (where: string, problem: string) =>
  `t.csv: not valid delimited text: ${where} (counting from 0): ${problem}`;

describe("fields and rows, however the bytes are cut", () => {
  it.each<[string, string, Row[]]>([
    [
      "LF, CRLF and CR line ends",
      "a,b\n1,2\r\n3,4\r5,6",
      [
        [1, "a", "b"],
        [2, "1", "2"],
        [3, "3", "4"],
        [4, "5", "6"],
      ],
    ],
    [
      "blank lines and lines of blanks between rows",
      "\n1,2\r\n\r\n \t\f\r\r\n3,4\n",
      [
        [2, "1", "2"],
        [6, "3", "4"],
      ],
    ],
    ["blanks at the end after a line break", "1,2\n \t ", [[1, "1", "2"]]],
    ["blanks trimmed around unquoted fields", " 1 ,\t2\v\f, \f3 \n", [[1, "1", "2", "3"]]],
    [
      "empty fields, and one after a delimiter that ends the input",
      ",1,,\n,",
      [
        [1, "", "1", "", ""],
        [2, "", ""],
      ],
    ],
    ["an empty field of blanks", "1, \t,2\n", [[1, "1", "", "2"]]],
    ["blanks after a delimiter that ends the input", "1,2,  ", [[1, "1", "2", ""]]],
    [
      "quoted fields, empty and with blanks around",
      '"a", "" ,"b c"\t\n',
      [[1, '"a"', '""', '"b c"']],
    ],
    ["doubled quotes inside quotes", '"a""b","""",1\n', [[1, '"a""b"', '""""', "1"]]],
    ["delimiters inside quotes", '"1,2",3\n', [[1, '"1,2"', "3"]]],
    [
      "LF, LF LF, CRLF, CR and CR CR inside quotes",
      '"a\nb","\n\n",1\n"\r\n","\r","\r\r"\n2,3,4\n',
      [
        [1, '"a\nb"', '"\n\n"', "1"],
        [5, '"\r\n"', '"\r"', '"\r\r"'],
        [10, "2", "3", "4"],
      ],
    ],
    ["a quoted field that ends the input", '1,"a\r\n"', [[1, "1", '"a\r\n"']]],
  ])("%s", (_, text, rows) => {
    expectEveryCut(text, rows);
  });

  it.each<[string, string, Row[]]>([
    [
      "runs of spaces, tabs, form feeds and vertical tabs",
      " 1 \t2\v\f3\n\n4  5 6 \r\n",
      [
        [1, "1", "2", "3"],
        [3, "4", "5", "6"],
      ],
    ],
    ["blanks at the end, after a row and alone", "1 2  \r  ", [[1, "1", "2"]]],
    [
      "CR line ends and blank lines",
      "\r1\r\r2\r\n3",
      [
        [2, "1"],
        [4, "2"],
        [5, "3"],
      ],
    ],
    ["quotes and commas as plain characters", '"a b" 1,2', [[1, '"a', 'b"', "1,2"]]],
  ])("whitespace-separated: %s", (_, text, rows) => {
    expectEveryCut(text, rows, " ");
  });

  it("skips the LF of a CRLF cut by empty chunks, and only that LF", () => {
    const rows: Row[] = [
      [1, "1"],
      [3, "2"],
    ];
    for (const delimiter of [",", " "]) {
      expect(tokens("1\r\n\n2", [2, 2, 2, 3], delimiter)).toEqual(rows);
      expect(tokens("1\r\n\n2", [2, 3, 3], delimiter)).toEqual(rows);
    }
  });

  it("gives the same rows or message on generated text cut anywhere", () => {
    const pieces = ["a", "12", ",", ";", '"', '""', " ", "\t", "\v", "\r", "\n", "\r\n", "é"];
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((p) => p.join("")),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.constantFrom(",", ";", " "),
        (text, raw, delimiter) => {
          const n = new TextEncoder().encode(text).length;
          const cuts = raw.map((c) => c % (n + 1)).sort((a, b) => a - b);
          expect(tokens(text, cuts, delimiter)).toEqual(tokens(text, [], delimiter));
        },
      ),
      { numRuns: 300, seed: 20261207 },
    );
  });
});

describe("when a field cut by a chunk is read", () => {
  /** The rows so far and the fields of the row under way, after each push. */
  function afterEachPush(chunks: readonly string[]): string[] {
    const sink = new Recorder();
    const tokenizer = new DelimitedTokenizer(",", sink, "t.csv");
    return chunks.map((chunk) => {
      tokenizer.push(new TextEncoder().encode(chunk));
      return JSON.stringify([...sink.rows, sink.current]);
    });
  }

  it("waits until the bytes after its start are as many as those before", () => {
    // "abcdef" is 6 bytes: 2 more are queued, 2 + 4 are enough to read it again.
    expect(afterEachPush(["1,abcdef", ",\n", "2345", ",6\n7"])).toEqual([
      '[["1"]]',
      '[["1"]]',
      '[[1,"1","abcdef",""],[]]',
      '[[1,"1","abcdef",""],[2,"2345","6"],[]]',
    ]);
    // 3 bytes after 3: read at once.
    expect(afterEachPush(["1,abc", "de,"])).toEqual(['[["1"]]', '[["1","abcde"]]']);
  });

  it("reads a field from its start once more bytes come, and a quote at a chunk's end with them", () => {
    expect(afterEachPush(['"a"', '"b",1\n', "2"])).toEqual([
      "[[]]",
      '[[1,"\\"a\\"\\"b\\"","1"],[]]',
      '[[1,"\\"a\\"\\"b\\"","1"],[]]',
    ]);
  });
});

describe("broken quoting, however the bytes are cut", () => {
  it.each<[string, string, string]>([
    [
      "text after a closing quote",
      '1,2\n3,"4"x,1\n',
      invalid(
        "row 2, column 1",
        `'x' after the closing quote of a quoted field (a quote inside a field is written "")`,
      ),
    ],
    [
      "text after the blanks after a closing quote",
      '1,"4" \t;\n',
      invalid(
        "row 1, column 1",
        `';' after the closing quote of a quoted field (a quote inside a field is written "")`,
      ),
    ],
    [
      "text after a quoted field that spans lines: the row it starts on",
      '\n1,"a\r\nb\nc"x\n',
      invalid(
        "row 2, column 1",
        `'x' after the closing quote of a quoted field (a quote inside a field is written "")`,
      ),
    ],
    [
      "a quote inside an unquoted field",
      '1,2\n3,4x"y,1\n',
      invalid(
        "row 2, column 1",
        'a quote inside an unquoted field; quote the whole field ("...") and write a quote inside it as ""',
      ),
    ],
    [
      "a quote inside an unquoted field after a quoted one that spans lines",
      '"a\n\nb",c"d\n',
      invalid(
        "row 1, column 1",
        'a quote inside an unquoted field; quote the whole field ("...") and write a quote inside it as ""',
      ),
    ],
    [
      "a quoted field not closed",
      '1,2\n3,"4\r\n5\r',
      invalid("row 2, column 1", "a quoted field is not closed by the end of the file"),
    ],
    [
      "a quoted field not closed after a doubled quote",
      '1,"""',
      invalid("row 1, column 1", "a quoted field is not closed by the end of the file"),
    ],
  ])("%s", (_, text, message) => {
    expectEveryCut(text, message);
  });
});

describe("the reader's messages name the row the line count gives", () => {
  const textAt = (row: number, dataRow = 2) =>
    `t.csv: row ${row} (data row ${dataRow}), column 1 (counting from 0): 'x' is not a number, but the column holds numbers elsewhere`;

  /** The message of reading `text` in two chunks cut at `cut`, and in one. */
  function messages(text: string, options = {}): string[] {
    const bytes = new TextEncoder().encode(text);
    const all = [errorOf(() => parseDelimited(text, "t.csv", options)).message];
    for (let cut = 0; cut <= bytes.length; cut++) {
      const reader = new DelimitedReader("t.csv", options);
      all.push(
        errorOf(() => {
          reader.push(bytes.slice(0, cut));
          reader.push(bytes.slice(cut));
          reader.finish();
        }).message,
      );
    }
    return [...new Set(all)];
  }

  it.each<[string, string, object?]>([
    ["1,2,0\r\n3,4,1\r\n5,x,0\r\n6,7,1\r\n", textAt(3)],
    ["1,2,0\r3,4,1\r\r5,x,0\r6,7,1\r", textAt(4)],
    ["1,2,0\n\r\n3,4,1\r\n5,x,0\n", textAt(4)],
    ['1,2,"a\r\nb"\r\n3,4,"c\rd"\r\n5,x,e\r\n', textAt(5)],
    ['1,2,"a\r\n"\r\n5,x,"e"', textAt(3, 1)],
    ["1  2 0\r\n 3 4 1 \r\n5 x\t0\r\n", textAt(3), { delimiter: " " }],
  ])("%j", (text, message, options = {}) => {
    expect(messages(text, options)).toEqual([message]);
  });
});
