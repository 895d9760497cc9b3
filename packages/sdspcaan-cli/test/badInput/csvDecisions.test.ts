/**
 * Decisions about a delimited file that used to be taken silently, now refused with
 * a message naming the row, the column and the option that decides, or taken
 * visibly: a text column (an identifier) is refused unless dropped, numbers with
 * thousands separators or an ambiguous comma are named, pandas' header of column
 * numbers is a header (with a note) and its index column is refused, and --header /
 * --drop-columns / --decimal-comma decide. fit, evaluate, experiment and datasets info
 * read a file alike.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DataFormatError, ValidationError } from "sdspcaan";
import { parseDelimited } from "sdspcaan/formats";
import { dataFile } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDataset, openDataset } from "#internal/io/load.js";
import { cli, lines } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";
import { csvText, errorOf, expectRefused, smallRows, writeText } from "./helpers.js";

let dir: string;
const { X, y } = smallRows();

beforeAll(() => {
  dir = tempDir("csv-decisions");
});
afterAll(() => removeDir(dir));

/** The small data set with an identifier column in front and a header. */
function withIds(): string {
  const body = X.map((r, i) => [`m${i}`, ...r, y[i]].join(","));
  return `id,f0,f1,f2,f3,label\n${body.join("\n")}\n`;
}

describe("a column of text is refused unless dropped", () => {
  it("names the column, its first text and the option that drops it", () => {
    const err = errorOf(() => parseDelimited(withIds(), "ids.csv"));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toBe(
      "ids.csv: column 0 ('id') (counting from 0) holds text, not numbers ('m0' in row 2); features must be numbers: leave it out with dropColumns: [0], or name the label column with labelColumn",
    );
  });

  it("names every text column, by number without a header", () => {
    const text = "a1,b1,1,2,0\na2,b2,3,4,1\na3,b3,5,6,0\n";
    const err = errorOf(() => parseDelimited(text, "two.csv"));
    expect(err.message).toBe(
      "two.csv: columns 0, 1 (counting from 0) hold text, not numbers ('a1' in row 1); features must be numbers: leave them out with dropColumns: [0, 1]",
    );
    const ds = parseDelimited(text, "two.csv", { dropColumns: [0, 1] });
    expect(ds.X.toRows()).toEqual([
      [1, 2],
      [3, 4],
      [5, 6],
    ]);
    expect(ds.info.droppedColumns).toEqual([0, 1]);
  });

  it("without labels needed, also says the column may be the labels", () => {
    const err = errorOf(() => parseDelimited("1,2,a\n3,4,b\n", "new.csv", { labels: "optional" }));
    expect(err.message).toContain(
      "leave it out with dropColumns: [2], or name the label column with labelColumn",
    );
  });

  it("the command says its flags where the library names its options", async () => {
    const two = writeText(dir, "two.csv", "a1,b1,1,2,0\na2,b2,3,4,1\na3,b3,5,6,0\n");
    const line = await expectRefused(["datasets", "info", two], []);
    expect(line).toBe(
      `sdspcaan: ${two}: columns 0, 1 (counting from 0) hold text, not numbers ('a1' in row 1); features must be numbers: leave them out with --drop-columns 0,1 (dropColumns: [0, 1])`,
    );
    const fresh = writeText(dir, "new.csv", "1,2,a\n3,4,b\n");
    const model = join(dir, "new-model.json");
    const fit = await cli([
      "fit",
      "--data",
      writeText(dir, "ids-new.csv", withIds()),
      "--drop-columns",
      "id",
      "--method",
      "pca",
      "--k",
      "2",
      "--out",
      model,
    ]);
    expect(fit.code).toBe(0);
    const transformed = await expectRefused(
      ["transform", "--model", model, "--data", fresh, "--out", join(dir, "new-out.csv")],
      [],
    );
    expect(transformed).toContain(
      "leave it out with --drop-columns 2 (dropColumns: [2]), or name the label column with --label-col (labelColumn)",
    );
  });

  it("drops columns named by header name or by index from the end, and refuses bad ones", () => {
    const byName = parseDelimited(withIds(), "ids.csv", { dropColumns: ["id", "f3"] });
    const byIndex = parseDelimited(withIds(), "ids.csv", { dropColumns: [0, -2] });
    expect(byName.X.cols).toBe(3);
    expect(byName.info.droppedColumns).toEqual([0, 4]);
    expect(byIndex.X.toRows()).toEqual(byName.X.toRows());
    expect(byIndex.X.get(0, 0)).toBe(X[0][0]);
    const label = errorOf(() => parseDelimited(withIds(), "ids.csv", { dropColumns: ["label"] }));
    expect(label).toBeInstanceOf(ValidationError);
    expect(label.message).toContain("Column 5 of ids.csv (counting from 0) is the label column");
    const unknown = errorOf(() => parseDelimited(withIds(), "ids.csv", { dropColumns: ["ID"] }));
    expect(unknown.message).toContain("The column to drop 'ID' of ids.csv is not a header name");
    const far = errorOf(() => parseDelimited(withIds(), "ids.csv", { dropColumns: [6] }));
    expect(far.message).toContain("must be an integer in [-6, 5]");
  });

  it("is refused by fit, evaluate and experiment alike, and read with --drop-columns", async () => {
    const file = writeText(dir, "ids.csv", withIds());
    const needle = [file, "column 0 ('id')", "holds text", "--drop-columns 0"];
    const model = join(dir, "ids-model.json");
    await expectRefused(
      ["fit", "--data", file, "--method", "pca", "--k", "2", "--out", model],
      needle,
      model,
    );
    await expectRefused(["evaluate", "--data", file, "--method", "pca", "--k", "2"], needle);
    const run = join(dir, "ids-run");
    await expectRefused(
      [
        "experiment",
        "--data",
        file,
        "--methods",
        "pca",
        "--k-grid",
        "2",
        "--repeats",
        "1",
        "--out",
        run,
      ],
      needle,
    );
    expect(existsSync(join(run, "results.jsonl"))).toBe(false);
    const fit = await cli([
      ...["fit", "--data", file, "--drop-columns", "id", "--method", "pca", "--k", "2"],
      ...["--out", model],
    ]);
    expect(fit.code).toBe(0);
    const saved = JSON.parse(readFileSync(model, "utf8"));
    expect(saved.featureNamesIn).toEqual(["f0", "f1", "f2", "f3"]);
  });

  it("datasets info shows what fit reads: the dropped columns, or the same refusal", async () => {
    const file = writeText(dir, "ids-info.csv", withIds());
    await expectRefused(["datasets", "info", file], [file, "holds text", "--drop-columns 0"]);
    const r = await cli(["datasets", "info", file, "--drop-columns", "0"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/dropped\s+column 0 \('id'\) \(counting from 0\)/);
    expect(r.stdout).toMatch(/header\s+detected \(names above numbers\): 'id', 'f0'/);
    expect(r.stdout).toMatch(/X\s+columns: 24 samples x 4 features/);
  });

  it("the registry's clean1.data declares its name columns: the library reader's X bits with them dropped", async () => {
    const path = dataFile("clean1.data");
    const opened = await openDataset(path);
    const before = parseDelimited(readFileSync(path), path, {
      labelColumn: "last",
      dropColumns: [0, 1],
    });
    expect(opened.entry?.name).toBe("clean1");
    expect(opened.dataset.info.droppedColumns).toEqual([0, 1]);
    expect(
      Buffer.from(opened.dataset.X.data.buffer).equals(Buffer.from(before.X.data.buffer)),
    ).toBe(true);
    expect(opened.dataset.y).toEqual(before.y);
    // By path without the registry, the name columns are refused, naming them.
    const err = await loadDataset(path).catch((e: Error) => e);
    expect((err as Error).message).toContain(
      "columns 0, 1 (counting from 0) hold text, not numbers ('MUSK-188' in row 1)",
    );
    const info = await cli(["datasets", "info", "clean1", "--json"]);
    expect(JSON.parse(info.stdout)).toMatchObject({ droppedColumns: [0, 1], features: 166 });
  });
});

describe("numbers the reader does not guess at", () => {
  it("refuses thousands separators, naming the row, the column and the number without them", () => {
    const text = 'id,price,label\n1,950.00,1\n2,"2,189.05",2\n3,12.5,1\n4,3,2\n';
    const err = errorOf(() => parseDelimited(text, "prices.csv"));
    expect(err.message).toBe(
      "prices.csv: row 3 (data row 1), column 1 (counting from 0, 'price'): '2,189.05' is a number written with thousands separators; write it without them (2189.05): separators are not read, as ',' may also be a decimal comma",
    );
    // A column written that way throughout is refused the same way, not dropped as text.
    const all = 'a,b,label\n"1,000.5",1,1\n"2,000",2,2\n"3,000",3,1\n';
    expect(errorOf(() => parseDelimited(all, "all.csv")).message).toContain(
      "row 2 (data row 0), column 0 (counting from 0, 'a'): '1,000.5' is a number written with thousands separators",
    );
  });

  it("calls 674,577 ambiguous and says which option reads it as a decimal comma", () => {
    const text = "a;b;label\n1;674,577;1\n2;3,5;2\n";
    const err = errorOf(() => parseDelimited(text, "amb.csv"));
    expect(err.message).toBe(
      "amb.csv: row 2 (data row 0), column 1 (counting from 0, 'b'): '674,577' is ambiguous: 674.577 written with a decimal comma, or 674577 with a comma between thousands; read decimal commas with --decimal-comma (decimal: \",\"), or write the number without thousands separators",
    );
    const read = parseDelimited(text, "amb.csv", { decimal: "," });
    expect(read.X.toRows()).toEqual([
      [1, 674.577],
      [2, 3.5],
    ]);
  });

  it("reads decimal commas when told, and then names a decimal point", () => {
    const text = "1,5;2;1\n2,25;3;1\n-0,5;4e1;2\n,75;1,;2\n";
    const ds = parseDelimited(text, "comma.csv", { decimal: "," });
    expect(ds.X.toRows()).toEqual([
      [1.5, 2],
      [2.25, 3],
      [-0.5, 40],
      [0.75, 1],
    ]);
    expect(ds.y).toEqual([1, 1, 2, 2]);
    const point = errorOf(() =>
      parseDelimited("1,5;2;1\n2.25;3;1\n", "mixed.csv", { decimal: "," }),
    );
    expect(point.message).toBe(
      "mixed.csv: row 2 (data row 1), column 0 (counting from 0): '2.25' is a number written with a decimal point, but the file is read with decimal commas (decimal: \",\"); read it without --decimal-comma",
    );
    const thousands = errorOf(() =>
      parseDelimited("1,5;2;1\n1.234,5;3;1\n", "points.csv", { decimal: "," }),
    );
    expect(thousands.message).toContain(
      "'1.234,5' is a number written with a point between thousands (or a decimal point) in a file read with decimal commas; write it without thousands separators (1234,5)",
    );
  });

  it("names a number too large for float64 and the row after a quoted field of two lines", () => {
    const over = errorOf(() => parseDelimited("1e400,2,0\n3,4,1\n", "big.csv"));
    expect(over.message).toBe(
      "big.csv: row 1 (data row 0), column 0 (counting from 0): value '1e400' overflows float64",
    );
    const text = 'a,b,label\n1,2,"x\ny"\n3,NA,"z"\n4,5,z\n';
    expect(errorOf(() => parseDelimited(text, "ml.csv")).message).toBe(
      "ml.csv: row 4 (data row 1), column 1 (counting from 0, 'b'): missing or non-finite value 'NA'; missing values are not accepted: remove or impute them first",
    );
  });

  it("--decimal-comma on the command line", async () => {
    const file = writeText(dir, "comma.csv", "1,5;2;1\n2,25;3;1\n-0,5;4;2\n0,75;1;2\n");
    await expectRefused(["datasets", "info", file], [file, "'1,5'", "--decimal-comma"]);
    const r = await cli(["datasets", "info", file, "--decimal-comma", "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ samples: 4, features: 2, min: -0.5, max: 4 });
    // Every field with a decimal comma: more commas than semicolons on each line.
    const semi3 = writeText(dir, "semi3.txt", "1,5;2,25;3,0;1\n0,5;1,25;2,0;2\n1,0;2,5;3,5;1\n");
    await expectRefused(["datasets", "info", semi3], [semi3, "'5;2'", "--decimal-comma"]);
    const s = await cli(["datasets", "info", semi3, "--decimal-comma", "--json"]);
    expect(s.code).toBe(0);
    expect(JSON.parse(s.stdout)).toMatchObject({ samples: 3, features: 3, min: 0.5, max: 3.5 });
  });
});

describe("the header decision", () => {
  const body = "4,5,6,2\n7,8,9,1\n3,3,3,2\n1,2,3,1\n";

  it("takes pandas' column numbers for a header, so no class gains a member", () => {
    const ds = parseDelimited(`0,1,2,3\n${body}`, "pandas.csv");
    expect(ds.info.header).toEqual(["0", "1", "2", "3"]);
    expect(ds.info.headerDetected).toBe("column-numbers");
    expect(ds.X.rows).toBe(4);
    expect(ds.y).toEqual([2, 1, 2, 1]);
    const asData = parseDelimited(`0,1,2,3\n${body}`, "pandas.csv", { header: false });
    expect(asData.X.rows).toBe(5);
    expect(asData.info.header).toBeUndefined();
    // Names above numbers: detected too, and said how.
    expect(parseDelimited(`a,b,c,label\n${body}`, "n.csv").info.headerDetected).toBe("names");
    expect(
      parseDelimited(`a,b,c,label\n${body}`, "n.csv", { header: true }).info,
    ).not.toHaveProperty("headerDetected");
  });

  it("needs three column numbers, above a row that is not column numbers too", () => {
    expect(parseDelimited("0,1\n4,1\n5,2\n4,1\n5,2\n", "two.csv").info.header).toBeUndefined();
    expect(parseDelimited(`0,1,2,3\n0,1,2,3\n${body}`, "twice.csv").info.header).toBeUndefined();
    expect(parseDelimited(`0,1,3,2\n${body}`, "order.csv").info.header).toBeUndefined();
  });

  it("a first row with a negative number or a non-integer is data", () => {
    const neg = errorOf(() => parseDelimited("a,-1,label\n1,2,1\n3,4,2\n", "neg.csv"));
    expect(neg.message).toContain(
      "row 1 (data row 0), column 0 (counting from 0): 'a' is not a number",
    );
    const frac = errorOf(() => parseDelimited("a,1.5,label\n1,2,1\n3,4,2\n", "frac.csv"));
    expect(frac.message).toContain("'a' is not a number");
    expect(parseDelimited("a,1,label\n1,2,1\n3,4,2\n", "num.csv").info.header).toEqual([
      "a",
      "1",
      "label",
    ]);
  });

  it("refuses pandas' unnamed index column unless dropped", () => {
    const indexed = ",0,1,2\n0,4,5,1\n1,7,8,2\n2,3,3,1\n3,1,2,2\n";
    const err = errorOf(() => parseDelimited(indexed, "index.csv"));
    expect(err.message).toBe(
      "index.csv: column 0 (counting from 0) has no name in the header and holds the row numbers 0 to 3: it is the index pandas writes (DataFrame.to_csv without index=False), not a feature; leave it out with dropColumns: [0]",
    );
    const ds = parseDelimited(indexed, "index.csv", { dropColumns: [0] });
    expect(ds.info.header).toEqual(["", "0", "1", "2"]);
    expect(ds.info.headerDetected).toBe("column-numbers");
    expect(ds.X.toRows()).toEqual([
      [4, 5],
      [7, 8],
      [3, 3],
      [1, 2],
    ]);
    const named = "Unnamed: 0,a,b,label\n0,4,5,1\n1,7,8,2\n2,3,3,1\n";
    expect(errorOf(() => parseDelimited(named, "unnamed.csv")).message).toContain(
      "column 0 (counting from 0, 'Unnamed: 0') has no name in the header and holds the row numbers 0 to 2",
    );
    // Not the row numbers: a feature like any other.
    const ids = ",a,b,label\n5,4,5,1\n1,7,8,2\n2,3,3,1\n";
    expect(parseDelimited(ids, "ids.csv").X.cols).toBe(3);
  });

  it("notes a header that cannot name the columns apart on standard error", async () => {
    const file = writeText(dir, "twice.csv", `a,a,c,d,label\n${csvText(X, y)}`);
    const model = join(dir, "twice-model.json");
    const r = await cli(["fit", "--data", file, "--method", "pca", "--k", "2", "--out", model]);
    expect(r.code).toBe(0);
    expect(lines(r.stderr)).toEqual([
      `note: ${file}: its header repeats a column name or leaves one empty, so its columns are taken by position, not matched by name.`,
    ]);
  });

  it("notes a header of column numbers on standard error, with the way back", async () => {
    const file = writeText(dir, "pandas.csv", `0,1,2,3,4\n${csvText(X, y)}`);
    const model = join(dir, "pandas-model.json");
    const r = await cli(["fit", "--data", file, "--method", "pca", "--k", "2", "--out", model]);
    expect(r.code).toBe(0);
    expect(lines(r.stderr)).toEqual([
      `note: ${file}: its first row ('0', '1', '2', '3', '4') is read as a header of column numbers, as pandas writes them; --header no reads it as data.`,
    ]);
    const named = writeText(dir, "named.csv", `a,b,c,d,label\n${csvText(X, y)}`);
    const quiet = await cli([
      "fit",
      "--data",
      named,
      "--method",
      "pca",
      "--k",
      "2",
      "--out",
      model,
    ]);
    expect(quiet.stderr).toBe("");
    const asData = await cli([...["datasets", "info", file, "--header", "no", "--json"]]);
    // As data, the row of column numbers is a sample, and its label 4 a class of one.
    expect(JSON.parse(asData.stdout)).toMatchObject({ samples: 25, header: null, classes: 4 });
    const yes = await cli(["datasets", "info", file, "--header", "yes", "--json"]);
    expect(JSON.parse(yes.stdout)).toMatchObject({ samples: 24, headerDetected: null });
    await expectRefused(
      ["datasets", "info", file, "--header", "maybe"],
      ["The '--header' option must be yes, no or auto", '"maybe"'],
    );
  });

  it("experiment notes it too, before the runner reads the file", async () => {
    const file = writeText(dir, "pandas-run.csv", `0,1,2,3,4\n${csvText(X, y)}`);
    const run = join(dir, "pandas-run");
    const r = await cli([
      ...["experiment", "--data", file, "--methods", "pca", "--k-grid", "3"],
      ...["--repeats", "1", "--no-progress", "--no-figures", "--out", run],
    ]);
    expect(r.code).toBe(0);
    expect(lines(r.stderr)).toContain(
      `note: ${file}: its first row ('0', '1', '2', '3', '4') is read as a header of column numbers, as pandas writes them; --header no reads it as data.`,
    );
  });

  it("refuses option values it does not know", () => {
    for (const [options, argument] of [
      [{ header: "yes" }, "header"],
      [{ decimal: ";" }, "decimal"],
      [{ delimiter: "||" }, "delimiter"],
      [{ delimiter: '"' }, "delimiter"],
      [{ dropColumns: "0" }, "dropColumns"],
    ] as const) {
      const err = errorOf(() => parseDelimited("1,2,0\n3,4,1\n", "o.csv", options as never));
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe(argument);
    }
  });
});
