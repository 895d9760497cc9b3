/**
 * What the delimited reader keeps per column: the value store past its first block
 * (values in order, the maxBytes limit counted across blocks), and the columns to drop
 * named by index, index text or header name, each mistake refused word for word.
 */
import { errorOf } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { DataFormatError, ValidationError } from "#internal/core/errors.js";
import { parseDelimited } from "#internal/formats/csv.js";
import { ValueStore } from "#internal/formats/csvColumns.js";
import { formatBytes } from "#internal/formats/limits.js";

/** The store's block, in values (csvColumns.ts's BLOCK). */
const BLOCK = 1 << 20;

describe("the value store past its first block", () => {
  it("gives back every value in order", () => {
    const store = new ValueStore("t.csv", 2 ** 31);
    const count = BLOCK + 5;
    for (let i = 0; i < count; i++) store.push(i);
    const out = store.take(count);
    expect(out.length).toBe(count);
    expect(out[0]).toBe(0);
    expect(out[BLOCK - 1]).toBe(BLOCK - 1);
    expect(Array.from(out.subarray(BLOCK))).toEqual([0, 1, 2, 3, 4].map((i) => BLOCK + i));
  });

  it("counts the limit over the blocks already filled", () => {
    const maxBytes = 8 * (BLOCK + 10);
    const store = new ValueStore("t.csv", maxBytes);
    for (let i = 0; i < BLOCK + 10; i++) store.push(i);
    const err = errorOf(() => store.push(-1));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toBe(
      `t.csv: its numbers take more than ${formatBytes(maxBytes)} as float64, the limit on one buffer (maxBytes)`,
    );
    expect(store.take(BLOCK + 10)[BLOCK + 9]).toBe(BLOCK + 9);
  });
});

describe("columns to drop", () => {
  const text = "id,a,b,c,label\nx,1,2,3,0\ny,4,5,6,1\nz,7,8,9,0\n";
  const read = (options: object) => parseDelimited(text, "t.csv", options);

  it("takes index text with blanks around it, and the first column counted from the end", () => {
    expect(read({ dropColumns: [" 0 "] }).info.droppedColumns).toEqual([0]);
    expect(read({ dropColumns: [-5] }).info.droppedColumns).toEqual([0]);
    expect(read({ dropColumns: ["-5", "1"] }).X.toRows()).toEqual([
      [2, 3],
      [5, 6],
      [8, 9],
    ]);
  });

  it("refuses what is neither a header name nor a whole index, listing the header", () => {
    const header = "(the header has 'id', 'a', 'b', 'c', 'label')";
    for (const name of ["q", "x1", "1x", "1.5", "12 3"]) {
      const err = errorOf(() => read({ dropColumns: [name] }));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe("dropColumns");
      expect(err.message).toBe(
        `The column to drop '${name}' of t.csv is not a header name ${header} or a column index.`,
      );
    }
    expect(errorOf(() => read({ dropColumns: ["12"] })).message).toBe(
      "The column to drop of t.csv must be an integer in [-5, 4] (the data has 5 columns). Got 12 instead.",
    );
  });

  it("refuses a list that is not one, and the label column, naming dropColumns", () => {
    const notList = errorOf(() => read({ dropColumns: "a" }));
    expect(notList).toBeInstanceOf(ValidationError);
    expect((notList as ValidationError).argument).toBe("dropColumns");
    expect(notList.message).toBe(
      'dropColumns must be a list of column indices or header names. Got "a" instead.',
    );
    const label = errorOf(() => read({ dropColumns: ["label"], labelColumn: "label" }));
    expect((label as ValidationError).argument).toBe("dropColumns");
    expect(label.message).toBe(
      "Column 4 of t.csv (counting from 0) is the label column; it cannot also be dropped (--drop-columns, dropColumns).",
    );
  });
});
