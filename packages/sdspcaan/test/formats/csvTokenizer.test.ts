/**
 * The tokenizer's line count where the bytes are cut: a CR at the end of one chunk and
 * its LF at the start of the next end one line, not two, and quoted fields holding line
 * breaks count their lines. Checked by the row a message names, for every cut.
 */
import { describe, expect, it } from "vitest";
import { DelimitedReader, parseDelimited } from "#internal/formats/csv.js";

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error("expected an error");
}

/** The message of reading `text` pushed in two chunks cut at `cut` (or one byte at a time). */
function cutMessage(text: string, cut: number | "bytes", options = {}): string {
  const bytes = new TextEncoder().encode(text);
  const reader = new DelimitedReader("t.csv", options);
  const cuts = cut === "bytes" ? bytes.map((_, i) => i + 1) : [cut, bytes.length];
  let from = 0;
  return messageOf(() => {
    for (const c of cuts) {
      reader.push(bytes.slice(from, c));
      from = c;
    }
    reader.finish();
  });
}

function expectEveryCut(text: string, expected: string, options = {}): void {
  expect(messageOf(() => parseDelimited(text, "t.csv", options))).toBe(expected);
  for (let cut = 0; cut <= text.length; cut++) {
    expect(cutMessage(text, cut, options), `cut at ${cut}`).toBe(expected);
  }
  expect(cutMessage(text, "bytes", options)).toBe(expected);
}

describe("lines counted across chunks", () => {
  const textAt = (row: number, dataRow = 2) =>
    `row ${row} (data row ${dataRow}), column 1 (counting from 0): 'x' is not a number, but the column holds numbers elsewhere`;

  it("CRLF, CR and LF line ends, wherever the bytes are cut", () => {
    expectEveryCut("1,2,0\r\n3,4,1\r\n5,x,0\r\n6,7,1\r\n", `t.csv: ${textAt(3)}`);
    expectEveryCut("1,2,0\r3,4,1\r\r5,x,0\r6,7,1\r", `t.csv: ${textAt(4)}`);
    expectEveryCut("1,2,0\n\r\n3,4,1\r\n5,x,0\n", `t.csv: ${textAt(4)}`);
  });

  it("line breaks inside quoted fields, CRLF and CR alike", () => {
    expectEveryCut('1,2,"a\r\nb"\r\n3,4,"c\rd"\r\n5,x,e\r\n', `t.csv: ${textAt(5)}`);
    expectEveryCut('1,2,"a\r\n"\r\n5,x,"e"', `t.csv: ${textAt(3, 1)}`);
  });

  it("whitespace-separated rows", () => {
    expectEveryCut("1  2 0\r\n 3 4 1 \r\n5 x\t0\r\n", `t.csv: ${textAt(3)}`, { delimiter: " " });
  });
});
