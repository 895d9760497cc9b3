/**
 * `loadDataset(pathOrName)` and `loadFeatures(path)` of `sdspcaan/node`: registry names
 * found in the data directories, registry files read as their entry declares, any
 * other file read by its content, and the command's messages for what is refused.
 * Every lookup is pointed at the repository's data/ or a temporary folder, so nothing
 * outside the checkout is read.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DataFormatError, ValidationError } from "sdspcaan";
import { parseBytes } from "sdspcaan/formats";
import {
  DATASETS,
  datasetNames,
  loadDataset,
  loadDatasetFile,
  loadFeatures,
  loadLabels,
  nodeInflater,
  openDataset,
  parseDatasetSync,
} from "sdspcaan/node";
import {
  dataDir,
  dataFile,
  errorOf,
  rejectionOf,
  removeDir,
  repoRoot,
  tempDir,
} from "sdspcaan-test-support";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

let dir: string;
beforeEach(() => {
  dir = tempDir("load");
});
afterEach(() => removeDir(dir));

/** Only data/ and folders of the test: no SDSPCAAN_DATA, no cache, no ../shared/data. */
function onlyRepositoryData() {
  return { env: {}, dataDir: dataDir(), cwd: dir, cacheDir: join(dir, "cache") };
}

describe("loadDataset by registry name", () => {
  it("finds Yale (any case) and reads its fea and gnd as the file's bytes give them", async () => {
    const ds = await loadDataset("yale", onlyRepositoryData());
    const direct = await parseBytes(
      new Uint8Array(readFileSync(dataFile("Yale_32x32.mat"))),
      "Yale_32x32.mat",
      { xVar: "fea", yVar: "gnd" },
      nodeInflater,
    );
    expect([ds.X.rows, ds.X.cols]).toEqual([165, 1024]);
    expect(new Set<unknown>(ds.y).size).toBe(15);
    expect(ds.X.data).toEqual(direct.X.data);
    expect<unknown>(ds.y).toEqual(direct.y);
    expect(ds.info.xVar).toBe("fea");
    expect(ds.info.yVar).toBe("gnd");
  });

  it("reads clean1 without its two name columns, with the registry's shape and classes", async () => {
    const ds = await loadDataset("clean1", onlyRepositoryData());
    const entry = DATASETS.find((d) => d.name === "clean1");
    expect([ds.X.rows, ds.X.cols]).toEqual([entry?.samples, entry?.features]);
    expect([...new Set<unknown>(ds.y)].sort()).toEqual([0, 1]);
  });

  it("gives a registry file by path what its name gives", async () => {
    const byName = await loadDataset("clean1", onlyRepositoryData());
    const byPath = await loadDataset(dataFile("clean1.data"));
    expect(byPath.X.data).toEqual(byName.X.data);
    expect<unknown>(byPath.y).toEqual(byName.y);
  });

  it("says where it found the data set (openDataset)", async () => {
    const opened = await openDataset("ORL", onlyRepositoryData());
    expect(opened.path).toBe(join(dataDir(), "ORL_32x32.mat"));
    expect(opened.source).toBe("data-dir");
    expect(opened.entry?.name).toBe("ORL");
  });

  it("names the directories searched and how to fetch a data set it cannot find", async () => {
    const empty = join(dir, "empty");
    mkdirSync(empty);
    const err = await rejectionOf(
      loadDataset("Yale", {
        env: {},
        dataDir: empty,
        repositoryDir: empty,
        cwd: dir,
        cacheDir: join(dir, "cache"),
      }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      `Yale: Yale_32x32.mat was not found in ${empty} (data-dir), ${join(dir, "..", "shared", "data")} (shared), ${join(dir, "cache")} (cache). Run 'sdspcaan datasets fetch Yale', or give its folder with --data-dir (the dataDir option) or SDSPCAAN_DATA.`,
    );
  });

  it("refuses what is neither a file nor a registry name, listing the names", async () => {
    const err = await rejectionOf(loadDataset(join(dir, "missing.csv")));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(
      `'${join(dir, "missing.csv")}' is neither a file nor a data set of the registry (${datasetNames().join(", ")}).`,
    );
  });
});

describe("loadDataset of a file", () => {
  it("reads a CSV by its content, labels in the last column", async () => {
    const path = join(dir, "points.csv");
    writeFileSync(path, "1,2,a\n3,4,b\n5,6,a\n");
    const ds = await loadDataset(path);
    expect(Array.from(ds.X.data)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(ds.y).toEqual(["a", "b", "a"]);
  });

  it("reads a gzip-compressed CSV as the plain one", async () => {
    const { gzipSync } = await import("node:zlib");
    const path = join(dir, "points.csv.gz");
    writeFileSync(path, gzipSync("1,2,0\n3,4,1\n"));
    const ds = await loadDataset(path);
    expect(Array.from(ds.X.data)).toEqual([1, 2, 3, 4]);
    expect(ds.y).toEqual([0, 1]);
  });

  it("refuses a directory, naming it", async () => {
    const err = await rejectionOf(loadDatasetFile(dir));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(`${dir} is a directory, not a data file.`);
  });

  it("takes the labels of a labels file in place of the last column", async () => {
    const path = join(dir, "points.csv");
    writeFileSync(path, "1,2\n3,4\n5,6\n");
    const labelsFile = join(dir, "labels.txt");
    writeFileSync(labelsFile, "b\na\nb\n");
    const ds = await loadDatasetFile(path, { labelsFile, labelColumn: "none" });
    expect(Array.from(ds.X.data)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(ds.y).toEqual(["b", "a", "b"]);
  });

  it("names a missing labels file as the labels file, by its option", async () => {
    const path = join(dir, "points.csv");
    writeFileSync(path, "1,2\n3,4\n");
    const labelsFile = join(dir, "missing.txt");
    const err = await rejectionOf(loadDatasetFile(path, { labelsFile, labelColumn: "none" }));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).argument).toBe("labelsFile");
    expect(err.message).toBe(`The labels file ${labelsFile} does not exist.`);
  });

  it("names a directory given as the labels file by its option, read at once or not", async () => {
    const path = join(dir, "points.csv");
    writeFileSync(path, "1,2\n3,4\n");
    const options = { labelsFile: dir, labelColumn: "none" } as const;
    for (const err of [
      await rejectionOf(loadDatasetFile(path, options)),
      errorOf(() => parseDatasetSync(new TextEncoder().encode("1,2\n3,4\n"), path, options)),
    ]) {
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).argument).toBe("labelsFile");
      expect(err.message).toBe(`${dir} is a directory, not a labels file.`);
    }
  });
});

describe("loadLabels", () => {
  it("reads one label per line", async () => {
    const path = join(dir, "labels.txt");
    writeFileSync(path, "2\n1\n2\n");
    expect(await loadLabels(path)).toEqual([2, 1, 2]);
  });

  it("names a missing file as the labels file", async () => {
    const path = join(dir, "missing.txt");
    const err = await rejectionOf(loadLabels(path));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(`The labels file ${path} does not exist.`);
  });
});

describe("loadFeatures", () => {
  it("takes every column of an unlabelled CSV as a feature, with y null", async () => {
    const path = join(dir, "new.csv");
    writeFileSync(path, "1,2,3\n4,5,6\n");
    const { X, y } = await loadFeatures(path);
    expect([X.rows, X.cols]).toEqual([2, 3]);
    expect(Array.from(X.data)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(y).toBeNull();
  });

  it("returns the labels of a named label column", async () => {
    const path = join(dir, "new.csv");
    writeFileSync(path, "1,2,7\n4,5,8\n");
    const { X, y } = await loadFeatures(path, { labelColumn: "last" });
    expect(X.cols).toBe(2);
    expect(y).toEqual([7, 8]);
  });
});

describe("MAT v7.3 without sdspcaan-hdf5", () => {
  it("is refused with a message saying to install and import sdspcaan-hdf5", () => {
    // A child process, as the library's own users start: nothing has imported sdspcaan-hdf5.
    const child = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        "--input-type=module",
        "--eval",
        `const { loadDataset } = await import("#internal/node.js");
         try { await loadDataset(process.argv[1]); console.log("loaded"); }
         catch (err) { console.log(JSON.stringify({ name: err.name, message: err.message })); }`,
        dataFile("Musk1.mat"),
      ],
      { cwd: join(repoRoot, "packages/sdspcaan"), encoding: "utf8" },
    );
    expect(child.stderr).toBe("");
    const err = JSON.parse(child.stdout);
    expect(err.name).toBe(new DataFormatError("f", "p").name);
    expect(err.message).toBe(
      `${dataFile("Musk1.mat")}: is a MAT v7.3 (HDF5) file, which needs the sdspcaan-hdf5 package: npm install sdspcaan-hdf5, then import "sdspcaan-hdf5" once (the sdspcaan command does). Or save it from MATLAB with save -v7 (or as CSV)`,
    );
  });
});
