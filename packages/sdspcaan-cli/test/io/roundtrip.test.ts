/**
 * Files written by scipy/numpy (scripts/fixtures/io_roundtrip.py) and by h5wasm in
 * MATLAB's v7.3 layout (scripts/fixtures/io_v73_fixture.ts) read back exactly.
 */
import { readFileSync } from "node:fs";
import { DataFormatError } from "sdspcaan";
import { fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { type LoadOptions, listVariables, loadDataset } from "#internal/io/load.js";

interface Case {
  file: string;
  X?: number[][];
  y?: (number | string)[];
  error?: string;
  xVar?: string;
  yVar?: string;
  labelColumn?: string;
  labelsFile?: string;
  auto?: boolean;
  compressed?: boolean;
  transposed?: boolean;
  oneHot?: boolean;
  format?: string;
  droppedColumns?: number[];
  kinds?: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(fixtureFile("io/roundtrip.json"), "utf8")) as {
  cases: Case[];
};

function optionsOf(c: Case): LoadOptions {
  const o: LoadOptions = {};
  if (!c.auto && c.xVar !== undefined) o.xVar = c.xVar;
  if (!c.auto && c.yVar !== undefined) o.yVar = c.yVar;
  if (c.labelColumn !== undefined) o.labelColumn = c.labelColumn;
  if (c.labelsFile !== undefined) o.labelsFile = fixtureFile(`io/${c.labelsFile}`);
  // A column of text (rt_semicolon.csv's ids) is left out only when named.
  if (c.droppedColumns !== undefined) o.dropColumns = c.droppedColumns;
  return o;
}

function label(c: Case): string {
  const parts = [c.file];
  if (!c.auto && c.xVar) parts.push(`x=${c.xVar}`);
  if (c.labelColumn) parts.push(`label=${c.labelColumn}`);
  return parts.join(" ");
}

describe("scipy/numpy round trip", () => {
  for (const c of manifest.cases.filter((k) => k.error === undefined)) {
    it(`${label(c)} reads back exactly`, async () => {
      const ds = await loadDataset(fixtureFile(`io/${c.file}`), optionsOf(c));
      expect(ds.X.toRows()).toEqual(c.X);
      expect(ds.y).toEqual(c.y);
      if (c.format) expect(ds.info.format).toBe(c.format);
      if (c.xVar) expect(ds.info.xVar).toBe(c.xVar);
      if (c.yVar) expect(ds.info.yVar).toBe(c.yVar);
      if (c.compressed !== undefined) expect(ds.info.compressed).toBe(c.compressed);
      expect(ds.info.transposed).toBe(c.transposed ?? false);
      expect(ds.info.oneHot).toBe(c.oneHot ?? false);
      if (c.droppedColumns) expect(ds.info.droppedColumns).toEqual(c.droppedColumns);
      if (c.kinds) {
        const kinds = Object.fromEntries((ds.info.variables ?? []).map((v) => [v.name, v.kind]));
        expect(kinds).toMatchObject(c.kinds);
      }
    });
  }
  for (const c of manifest.cases.filter((k) => k.error !== undefined)) {
    it(`${label(c)} is refused with a message containing '${c.error}'`, async () => {
      const path = fixtureFile(`io/${c.file}`);
      const err = await loadDataset(path, optionsOf(c)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DataFormatError);
      expect((err as DataFormatError).file).toBe(path);
      expect((err as Error).message).toContain(c.error);
    });
  }

  it("lists non-numeric variables without refusing them", async () => {
    const vars = await listVariables(fixtureFile("io/rt_special.mat"));
    const kinds = Object.fromEntries(vars.map((v) => [v.name, v.kind]));
    expect(kinds).toEqual({
      fea: "numeric",
      gnd: "numeric",
      lg: "logical",
      txt: "char",
      cel: "cell",
      st: "struct",
      sp: "sparse",
      cx: "numeric",
    });
    expect(vars.find((v) => v.name === "cx")?.complex).toBe(true);
    expect(vars.find((v) => v.name === "sp")?.dims).toEqual([6, 4]);
  });
});

describe("MAT v7.3 (HDF5)", () => {
  const file = fixtureFile("io/rt_v73.mat");
  const base = (i: number, j: number) => (i * 4 + j) * 1.5 - 7.25;
  const rows = (f: (i: number, j: number) => number) =>
    Array.from({ length: 6 }, (_, i) => Array.from({ length: 4 }, (_, j) => f(i, j)));

  it("finds fea/gnd, undoes MATLAB's transposed storage, and reports the format", async () => {
    const ds = await loadDataset(file);
    expect(ds.X.toRows()).toEqual(rows(base));
    expect(ds.y).toEqual([1, 1, 2, 2, 3, 3]);
    expect(ds.info).toMatchObject({
      format: "mat-v7.3",
      xVar: "fea",
      yVar: "gnd",
      transposed: false,
    });
  });

  it("casts uint8, single, int16 and int64 datasets to float64", async () => {
    const cases: [string, (i: number, j: number) => number][] = [
      ["f_uint8", (i, j) => (i * 4 + j) * 11],
      ["f_single", (i, j) => Math.fround(base(i, j))],
      ["f_int16", (i, j) => (j % 2 ? 1 : -1) * (i * 1000 + j) + 0],
      ["f_int64", (i, j) => (j === 0 ? -(2 ** 53) : i * 7 - j)],
    ];
    for (const [xVar, f] of cases) {
      const ds = await loadDataset(file, { xVar, yVar: "gnd" });
      expect(ds.X.toRows()).toEqual(rows(f));
    }
  });

  it("reads a cell array of strings (object references) as string labels", async () => {
    const ds = await loadDataset(file, { xVar: "fea", yVar: "names" });
    expect(ds.y).toEqual(["cat", "cat", "dog", "dog", "emu", "emu"]);
  });

  it("lists logical, char, struct, sparse, cell and empty variables and refuses them as data", async () => {
    const vars = await listVariables(file);
    const kinds = Object.fromEntries(vars.map((v) => [v.name, v.kind]));
    expect(kinds).toMatchObject({
      lg: "logical",
      txt: "char",
      st: "struct",
      sp: "sparse",
      names: "cell",
      emp: "numeric",
    });
    expect(vars.find((v) => v.name === "sp")?.dims).toEqual([6, 3]);
    for (const [xVar, word] of [
      ["lg", "logical"],
      ["txt", "char"],
      ["st", "struct"],
      ["sp", "sparse"],
      ["names", "cell"],
      ["emp", "empty"],
    ]) {
      const err = await loadDataset(file, { xVar, yVar: "gnd" }).catch((e: unknown) => e);
      expect(err, xVar).toBeInstanceOf(DataFormatError);
      expect((err as Error).message).toContain(word);
      expect((err as Error).message).toContain(file);
    }
  });

  it("reads a plain HDF5 file (no MATLAB attributes) in its own row-major order", async () => {
    const ds = await loadDataset(fixtureFile("io/rt_plain.h5"));
    expect(ds.X.toRows()).toEqual(rows(base));
    expect(ds.y).toEqual([1, 1, 2, 2, 3, 3]);
    expect(ds.info.format).toBe("hdf5");
  });
});
