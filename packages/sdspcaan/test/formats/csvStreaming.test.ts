/**
 * The chunk-fed delimited reader (DelimitedReader) against the whole-text reader it
 * replaced (test/helpers/csvReference.ts, csv-parse/sync): the same X bits, labels
 * and info, or the same message, on every CSV input of the other tests and on
 * generated files (random quoting, padding, blank lines, CRLF, multi-line quoted
 * labels, missing values); and the same result however the bytes are cut into
 * chunks, down to one byte at a time, with the pushed buffer overwritten after each
 * push (the reader keeps no reference to it).
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import fc from "fast-check";
import { dataFile, fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { SdspcaanError } from "#internal/core/errors.js";
import { type DelimitedOptions, DelimitedReader, parseDelimited } from "#internal/formats/csv.js";
import {
  CELL_MISSING,
  CELL_NUMBER,
  CELL_TEXT,
  cellKind,
  cellValue,
  numberAt,
} from "#internal/formats/csvCells.js";
import { isNumericString } from "#internal/formats/labels.js";
import type { LoadedDataset } from "#internal/formats/variables.js";
import { parseDelimitedReference } from "../helpers/csvReference.js";

const encode = (s: string) => new TextEncoder().encode(s);

/** What a read gave: the exact bits of X, y and the info, or the error's class and message. */
type Outcome =
  | { ok: true; rows: number; cols: number; bits: bigint[]; y: unknown[]; info: object }
  | { ok: false; error: string; message: string };

function outcome(run: () => LoadedDataset): Outcome {
  try {
    const { X, y, info } = run();
    const { headerDetected: _, ...shared } = info;
    return {
      ok: true,
      rows: X.rows,
      cols: X.cols,
      bits: Array.from(new BigUint64Array(X.data.buffer, X.data.byteOffset, X.data.length)),
      y: [...y],
      info: shared,
    };
  } catch (err) {
    if (!(err instanceof SdspcaanError)) throw err;
    return { ok: false, error: err.name, message: err.message };
  }
}

/**
 * Reads `bytes` in chunks ending at `cuts`, each pushed from one scratch buffer that
 * is overwritten with 0xff after the push.
 */
function readChunked(
  bytes: Uint8Array,
  cuts: readonly number[],
  file: string,
  options: DelimitedOptions,
  format: "csv" | "tsv" = "csv",
): LoadedDataset {
  const reader = new DelimitedReader(file, options, format);
  const scratch = new Uint8Array(bytes.length);
  let from = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < bytes.length), bytes.length].sort(
    (a, b) => a - b,
  )) {
    const part = scratch.subarray(0, cut - from);
    part.set(bytes.subarray(from, cut));
    reader.push(part);
    part.fill(0xff);
    from = cut;
  }
  return reader.finish();
}

/** Every cut position: one byte per chunk. */
function everyByte(bytes: Uint8Array): number[] {
  return Array.from({ length: bytes.length }, (_, i) => i + 1);
}

/** The one message the new reader extends on purpose: it names the option that reads decimal commas. */
function asNow(reference: Outcome): Outcome {
  if (reference.ok) return reference;
  return {
    ...reference,
    message: reference.message.replace(
      "decimal comma; write",
      'decimal comma; read the file with --decimal-comma (decimal: ","), or write',
    ),
  };
}

/**
 * The new reader on `bytes` matches the reference, with the columns the reference
 * left out of X (text columns) dropped explicitly, as the new reader requires.
 */
function expectLikeReference(
  bytes: Uint8Array,
  file: string,
  options: DelimitedOptions = {},
  format: "csv" | "tsv" = "csv",
): Outcome {
  const { header, ...rest } = options;
  const old = { ...rest, ...(header === "auto" ? {} : { header }) };
  const reference = asNow(outcome(() => parseDelimitedReference(bytes, file, old, format)));
  const dropped =
    reference.ok && "droppedColumns" in reference.info
      ? { dropColumns: reference.info.droppedColumns as number[] }
      : {};
  const whole = outcome(() => parseDelimited(bytes, file, { ...options, ...dropped }, format));
  if (!reference.ok && reference.message.includes(": not valid delimited text: ")) {
    // Broken quoting: csv-parse's words are not kept, only the refusal.
    expect(whole).toMatchObject({ ok: false, error: reference.error });
    expect((whole as { message: string }).message).toContain(
      `${file}: not valid delimited text: row `,
    );
    return whole;
  }
  expect(whole).toEqual(reference);
  return whole;
}

/** The CSV inputs of the other tests (test/io, test/bad-input, test/methods), with their options. */
const INLINE: [string, string, DelimitedOptions?][] = [
  ['x1,"label, long",x2\n1,"a, b",2\n3,"c",4\n', "q.csv", { labelColumn: "label, long" }],
  ["\ufeff1,2,0\r\n\r\n3,4,1\r\n", "crlf.csv"],
  ["1,2,3\n4,5,6\n", "n.csv", { labelColumn: -2 }],
  ["1,2,3\n4,5,6\n", "n.csv", { labelColumn: "first" }],
  ["1,2,3\n4,5\n", "r.csv"],
  ["1,2,0\nabc,5,1\n7,8,1\n", "m.csv"],
  ["\n\n", "e.csv"],
  ["a,b\n1,2\n", "c.csv", { labelColumn: "nope" }],
  ["1,2\n3,4\n", "c.csv", { labelColumn: 5 }],
  ["5,x,3,1\n4,5,6,2\n7,8,9,1\n3,3,3,2\n", "pixels.csv"],
  ["0,1,2,label\n4,5,6,2\n7,8,9,1\n3,3,3,2\n", "named.csv"],
  ["1,5;2;1\n2,25;3;1\n0,5;4;2\n1,75;1;2\n", "comma.csv"],
  ["a,b,c,label\n", "head.csv"],
  ["id,a,class,b,c\nm1,1,x,2,3\nm2,4,y,5,6\nm3,7,x,8,9\n", "t.csv", { labelColumn: "class" }],
  ["1,2,0\n3,4,1\n5,6,0\n", "t.csv"],
  ["a,a,label\n1,2,0\n3,4,1\n5,6,0\n", "t.csv"],
  [
    "a,b,c,d,label\n0,17,255,3,x\n4,5,6,7,x\n8,9,10,11,y\n12,13,14,200,y\n1.5,2e3,-3,.5,z\n",
    "fuzz.csv",
  ],
  ["f0,f1,f2,f3,label\n1,NA,3,4,1\n5,6,7,8,1\n9,9,9,9,2\n1,1,1,1,2\n", "h.csv"],
  ["a,b,c,d,label\r\n1,2,3,4,1\r\n5,6,7,8,1\r\n\r\n\r\n9,9,9,9,2\r\ninf,1,1,1,2\r\n", "crlf.csv"],
  ["1,2,?,4,1\n5,6,7,8,1\n9,9,9,9,2\n", "first.csv"],
  ["1,2,1\n3,4,1\n5,6,1\n", "one-class.csv"],
  ["1,2,1\n3,4,2\n5,6,3\n", "toy.csv"],
  ["1,2,0.5\n3,4,1.5\n5,6,2.5\n", "continuous.csv"],
  ["1,2,a\n3,4,?\n5,6,b\n", "missing-label.csv"],
  ["1,2,1\n3,4,x\n5,6,2\n", "typo.csv"],
  ["1 2  0\n\t3 4 1 \n", "ws.txt"],
  ["1;2;0\n3;4;1\n", "semi.csv"],
  ['"1","2","0"\n"3","4","1"\n', "quoted.csv"],
  ['a,b,label\n1,2,"multi\nline"\n3,4,"multi\nline"\n5,NaN,x\n', "multiline.csv"],
  ["1e400,2,0\n3,4,1\n", "overflow.csv"],
  ["-1,2,0\n3,4,1\n", "negative.csv"],
];

/** The CSV/TSV fixture files and data files the other tests read. */
const FILES: [string, DelimitedOptions, ("csv" | "tsv")?][] = [
  [fixtureFile("io/rt_header.csv"), { labelColumn: "label" }],
  [fixtureFile("io/rt_semicolon.csv"), {}],
  [fixtureFile("io/rt_missing.csv"), {}],
  [fixtureFile("io/rt_first.tsv"), { labelColumn: "first" }, "tsv"],
  [fixtureFile("io/rt_space.txt"), {}],
  [dataFile("clean1.data"), {}],
];

describe("the chunk-fed reader gives the previous reader's results", () => {
  it.each(INLINE)("on %j (%s)", (text, file, options = {}) => {
    const bytes = encode(text);
    const whole = expectLikeReference(bytes, file, options);
    const dropped = whole.ok && "droppedColumns" in whole.info ? whole.info.droppedColumns : [];
    const withDrops = { ...options, ...(dropped ? { dropColumns: dropped as number[] } : {}) };
    expect(outcome(() => readChunked(bytes, everyByte(bytes), file, withDrops))).toEqual(whole);
  });

  // Named by the file's name, not its path: Stryker's committed record (stryker.incremental.json)
  // knows tests by name, and a path differs in every checkout and sandbox.
  it.each(FILES.map((entry) => [basename(entry[0]), ...entry] as const))(
    "on %s",
    (_name, path, options, format = "csv") => {
      const bytes = new Uint8Array(readFileSync(path));
      const whole = expectLikeReference(bytes, path, options, format);
      const dropped = whole.ok && "droppedColumns" in whole.info ? whole.info.droppedColumns : [];
      const withDrops = { ...options, ...(dropped ? { dropColumns: dropped as number[] } : {}) };
      // Cut every 7 bytes (clean1.data is 334 KB): chunk boundaries fall in every kind of place.
      const cuts = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => 7 * (i + 1));
      expect(outcome(() => readChunked(bytes, cuts, path, withDrops, format))).toEqual(whole);
    },
  );
});

/** A number as a writer might print it. */
const numberText = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
  fc
    .tuple(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 0, max: 20 }))
    .map(([v, k]) => v.toExponential(k)),
  fc
    .tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 12 }))
    .map(([v, k]) => v.toFixed(k)),
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.constantFrom("-0", "+0", "007", ".5", "5.", "-.25", "+3", "1e22", "1e23", "9007199254740993"),
  fc.stringMatching(/^[+-]?\d{0,20}\.?\d{0,20}(e[+-]?\d{1,4})?$/),
);

describe("numbers read from the bytes are Number()'s, bit for bit", () => {
  it("for numbers in every notation a writer uses, and for near-numbers", () => {
    fc.assert(
      fc.property(fc.oneof(numberText, fc.stringMatching(/^[-+.eE0-9 x_,]{0,12}$/)), (s) => {
        const bytes = encode(s);
        const fast = numberAt(bytes, 0, bytes.length, 0x2e);
        const kind = cellKind(s, ".");
        if (!Number.isNaN(fast)) {
          expect(isNumericString(s)).toBe(true);
          expect(Object.is(fast, Number(s))).toBe(true);
        }
        expect(kind === CELL_NUMBER).toBe(isNumericString(s));
        if (kind === CELL_NUMBER) expect(Object.is(cellValue(s, "."), Number(s))).toBe(true);
      }),
      { numRuns: 2000, seed: 67 },
    );
  });

  it("with a decimal comma, the number with its point", () => {
    fc.assert(
      fc.property(numberText, (s) => {
        fc.pre(!s.includes(","));
        const comma = s.replace(".", ",");
        const bytes = encode(comma);
        const fast = numberAt(bytes, 0, bytes.length, 0x2c);
        if (isNumericString(s)) {
          expect(cellKind(comma, ",")).toBe(CELL_NUMBER);
          expect(Object.is(cellValue(comma, ","), Number(s))).toBe(true);
          if (!Number.isNaN(fast)) expect(Object.is(fast, Number(s))).toBe(true);
        } else expect(Number.isNaN(fast)).toBe(true);
      }),
      { numRuns: 1000, seed: 68 },
    );
  });

  it("names missing-value spellings and text apart", () => {
    expect(
      ["", "?", "NaN", " na ", "Inf", "-infinity", "None"].map((s) => cellKind(s, ".")),
    ).toEqual(Array(7).fill(CELL_MISSING));
    expect(["abc", "1,5", "1.5.2", "0x10", "1_000"].map((s) => cellKind(s, "."))).toEqual(
      Array(5).fill(CELL_TEXT),
    );
    expect(cellKind("1,5", ",")).toBe(CELL_NUMBER);
    expect(cellKind("1.5", ",")).toBe(CELL_TEXT);
  });
});

const LABELS = ["a", "b", "c d", "x,y", 'q"q', "é", "multi\nline", "t;u", "v\tw"];

/** A generated table: numbers (some missing), a label column, quoting and padding at random. */
const table: fc.Arbitrary<{ text: string; options: DelimitedOptions }> = fc
  .record({
    n: fc.integer({ min: 1, max: 9 }),
    d: fc.integer({ min: 1, max: 4 }),
    delimiter: fc.constantFrom(",", ";", "\t", " "),
    eol: fc.constantFrom("\n", "\r\n", "\r"),
    header: fc.boolean(),
    textLabels: fc.boolean(),
    giveDelimiter: fc.boolean(),
    trailing: fc.boolean(),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
  })
  .chain((t) =>
    fc.record({
      t: fc.constant(t),
      values: fc.array(
        fc.array(numberText.filter(isNumericString), { minLength: t.d, maxLength: t.d }),
        {
          minLength: t.n,
          maxLength: t.n,
        },
      ),
      labels: fc.array(
        t.textLabels ? fc.constantFrom(...LABELS) : fc.integer({ min: 0, max: 2 }).map(String),
        { minLength: t.n, maxLength: t.n },
      ),
      quote: fc.array(fc.boolean(), { minLength: t.n * (t.d + 1), maxLength: t.n * (t.d + 1) }),
      pad: fc.array(fc.constantFrom("", " ", "  "), {
        minLength: t.n * (t.d + 1),
        maxLength: t.n * (t.d + 1),
      }),
      missing: fc.option(fc.tuple(fc.nat(), fc.constantFrom("", "NA", "?", "nan", "1e400"))),
      blank: fc.option(fc.nat()),
    }),
  )
  .map(({ t, values, labels, quote, pad, missing, blank }) => {
    const ws = t.delimiter === " ";
    // Multi-line quoted fields only with LF ends (csv-parse counted a CRLF inside quotes twice).
    const usable = (l: string) => (ws ? !/[\s,;"]/.test(l) : t.eol === "\n" || !l.includes("\n"));
    const rows = values.map((r, i) => [...r, usable(labels[i]) ? labels[i] : "a"]);
    if (missing !== null) {
      const k = missing[0] % (t.n * t.d);
      rows[Math.floor(k / t.d)][k % t.d] = missing[1];
    }
    const cell = (s: string, k: number): string => {
      if (ws) return s === "" ? "NA" : s;
      const needs = /[,;\t"\n\r]/.test(s) || s !== s.trim();
      if (needs || quote[k]) return `"${s.replaceAll('"', '""')}"`;
      return `${pad[k]}${s}${pad[k].length > 1 ? " " : ""}`;
    };
    const sep = ws ? "  " : t.delimiter;
    const lines = rows.map((r, i) => r.map((s, j) => cell(s, i * (t.d + 1) + j)).join(sep));
    if (t.header) {
      lines.unshift([...Array.from({ length: t.d }, (_, j) => `f${j}`), "label"].join(sep));
    }
    if (blank !== null) lines.splice(blank % (lines.length + 1), 0, "");
    const text = lines.join(t.eol) + (t.trailing ? t.eol : "");
    return {
      text,
      options: t.giveDelimiter ? { delimiter: t.delimiter } : {},
    };
  });

describe("generated files", () => {
  it("read as the previous reader read them, whole or cut into random chunks", () => {
    fc.assert(
      fc.property(table, fc.array(fc.nat(), { maxLength: 12 }), ({ text, options }, cuts) => {
        const bytes = encode(text);
        const whole = expectLikeReference(bytes, "gen.csv", options);
        const pieces = cuts.map((c) => c % (bytes.length + 1));
        expect(outcome(() => readChunked(bytes, pieces, "gen.csv", options))).toEqual(whole);
      }),
      { numRuns: 400, seed: 6767 },
    );
  });

  it("read the same one byte at a time", () => {
    fc.assert(
      fc.property(table, ({ text, options }) => {
        const bytes = encode(text);
        const whole = outcome(() => parseDelimited(bytes, "gen.csv", options));
        expect(outcome(() => readChunked(bytes, everyByte(bytes), "gen.csv", options))).toEqual(
          whole,
        );
      }),
      { numRuns: 100, seed: 6768 },
    );
  });
});
