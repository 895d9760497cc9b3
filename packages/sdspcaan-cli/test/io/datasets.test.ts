/**
 * The paper's nine data files and clean1.data load with the shapes and class
 * counts of data/README.md and the values scipy reads
 * (packages/sdspcaan-cli/test/fixtures/io/spot_values.json, made by scripts/fixtures/io_spot_values.py).
 */
import { readFileSync } from "node:fs";
import type { LoadedDataset } from "sdspcaan/formats";
import { dataFile, fixtureFile } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { loadDataset, openDataset } from "#internal/io/load.js";
import { DATASETS, findDataset } from "#internal/io/registry.js";

interface Spot {
  samples: number;
  features: number;
  classes: number;
  classCounts: Record<string, number>;
  firstLabels: number[];
  lastLabel: number;
  spots: [number, number, number][];
  sumX: number;
  sumY: number;
  min: number;
  max: number;
}

const spotFile = JSON.parse(readFileSync(fixtureFile("io/spot_values.json"), "utf8")) as {
  files: Record<string, Spot>;
};

/** README.md's table: samples x features, classes, and the class sizes it states. */
const README: Record<string, { n: number; d: number; c: number; sizes?: Record<string, number> }> =
  {
    "Musk1.mat": { n: 476, d: 166, c: 2, sizes: { "0": 269, "1": 207 } },
    "clean1.data": { n: 476, d: 166, c: 2, sizes: { "0": 269, "1": 207 } },
    "MSRA25_uni.mat": { n: 1799, d: 256, c: 12 },
    "Palm.mat": { n: 2000, d: 256, c: 100 },
    "uspst.mat": { n: 2007, d: 256, c: 10 },
    "Isolet1.mat": { n: 1560, d: 617, c: 26 },
    "Yale_32x32.mat": { n: 165, d: 1024, c: 15 },
    "ORL_32x32.mat": { n: 400, d: 1024, c: 40 },
    "COIL20.mat": { n: 1440, d: 1024, c: 20 },
    "YaleB_32x32.mat": { n: 2414, d: 1024, c: 38 },
  };

function classCounts(y: readonly (number | string)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of y) out[String(v)] = (out[String(v)] ?? 0) + 1;
  return out;
}

function exactSum(values: ArrayLike<number>): number {
  // Neumaier summation: within an ulp or two of math.fsum for these sizes.
  let s = 0;
  let c = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    const t = s + v;
    c += Math.abs(s) >= Math.abs(v) ? s - t + v : v - t + s;
    s = t;
  }
  return s + c;
}

const cache = new Map<string, Promise<LoadedDataset>>();
function load(name: string): Promise<LoadedDataset> {
  let p = cache.get(name);
  if (!p) {
    // clean1.data as the commands read it: its registry entry leaves out the name columns.
    p =
      name === "clean1.data"
        ? openDataset(dataFile(name)).then((o) => o.dataset)
        : loadDataset(dataFile(name));
    cache.set(name, p);
  }
  return p;
}

describe("the paper's data files", () => {
  for (const [name, readme] of Object.entries(README)) {
    it(`${name} loads as ${readme.n} x ${readme.d} with ${readme.c} classes and scipy's values`, async () => {
      const { X, y } = await load(name);
      const spot = spotFile.files[name];
      expect([X.rows, X.cols]).toEqual([readme.n, readme.d]);
      expect([spot.samples, spot.features]).toEqual([readme.n, readme.d]);
      expect(y.length).toBe(readme.n);
      expect(y.every((v) => typeof v === "number")).toBe(true);
      const counts = classCounts(y);
      expect(Object.keys(counts).length).toBe(readme.c);
      expect(counts).toEqual(spot.classCounts);
      if (readme.sizes) expect(counts).toEqual(readme.sizes);
      for (const [i, j, v] of spot.spots) expect(X.get(i, j)).toBe(v);
      expect(y.slice(0, 5)).toEqual(spot.firstLabels);
      expect(y[y.length - 1]).toBe(spot.lastLabel);
      const sumError = Math.abs(exactSum(X.data) - spot.sumX);
      expect(sumError).toBeLessThanOrEqual(1e-12 * Math.max(1, Math.abs(spot.sumX)));
      expect(exactSum(y as number[])).toBe(spot.sumY);
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (const v of X.data) {
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
      expect([min, max]).toEqual([spot.min, spot.max]);
    });
  }

  it("Musk1.mat (HDF5) holds exactly the numbers and row order of clean1.data", async () => {
    const mat = await load("Musk1.mat");
    const text = await load("clean1.data");
    expect(mat.info.format).toBe("mat-v7.3");
    expect(mat.info.xVar).toBe("data");
    expect(mat.info.yVar).toBe("data[:, end]");
    expect(Array.from(mat.X.data)).toEqual(Array.from(text.X.data));
    expect(mat.y).toEqual(text.y);
  });

  it("clean1.data drops the molecule and conformation names and reads '1.'/'0.' as 1/0", async () => {
    const { info, y } = await load("clean1.data");
    expect(info.format).toBe("csv");
    expect(info.droppedColumns).toEqual([0, 1]);
    expect(info.labelColumn).toBe(168);
    expect(new Set<number | string>(y)).toEqual(new Set([0, 1]));
  });

  it("reports the format and the variables of each file as the README describes them", async () => {
    expect((await load("uspst.mat")).info).toMatchObject({
      format: "mat-v5",
      compressed: false,
      xVar: "X",
      yVar: "y",
      transposed: false,
    });
    expect((await load("YaleB_32x32.mat")).info).toMatchObject({
      format: "mat-v5",
      compressed: true,
      xVar: "fea",
      yVar: "gnd",
    });
    const msra = await load("MSRA25_uni.mat");
    expect(msra.info.variables?.map((v) => v.name)).toEqual(["X", "Y", "im_height", "im_width"]);
  });

  it("the registry agrees with every file that loads", async () => {
    // Fashion-MNIST does not ship in data/: test/io/idx.test.ts checks its entry on
    // small generated files.
    for (const entry of DATASETS.filter((d) => d.shipped !== false)) {
      const { X, y } = await load(entry.file);
      const sizes = Object.values(classCounts(y));
      expect([X.rows, X.cols, sizes.length]).toEqual([
        entry.samples,
        entry.features,
        entry.classes,
      ]);
      expect([Math.min(...sizes), Math.max(...sizes)]).toEqual([...entry.classSizes]);
      expect(findDataset(entry.name.toUpperCase())).toBe(entry);
      expect(findDataset(entry.file)).toBe(entry);
    }
  });
});
