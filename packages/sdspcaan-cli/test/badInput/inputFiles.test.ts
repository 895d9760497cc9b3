/**
 * Input paths that are not regular files (a FIFO, a character device, a directory)
 * are refused at once, before anything is opened for reading, for --data, --model,
 * --splits and datasets info's paths; a regular file over the limit is refused
 * before it is read; delimited text is streamed, plain or gzip-compressed, within
 * the limits and with gzip's failures named.
 */
import { spawnSync } from "node:child_process";
import { closeSync, constants, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { DataFormatError, ValidationError } from "sdspcaan";
import { parseDelimited } from "sdspcaan/formats";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { loadDataset, loadFeatures } from "#internal/io/load.js";
import { cli } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";
import {
  csvText,
  expectRefused,
  float64Bytes,
  npyBytes,
  rejectionOf,
  smallRows,
  writeText,
} from "./helpers.js";

const dir = tempDir("input-files");
const { X, y } = smallRows();
const csv = writeText(dir, "small.csv", csvText(X, y));
const model = join(dir, "model.json");
const fifo = join(dir, "fifo.csv");
expect(spawnSync("mkfifo", [fifo]).status).toBe(0);
/** A character device node (/dev/zero's numbers): making one needs root (CAP_MKNOD). */
const zero: string | null = (() => {
  const node = join(dir, "zero.csv");
  const made = spawnSync("mknod", [node, "c", "1", "5"]);
  if (made.status === 0) return node;
  console.warn(`SKIPPED: cannot make a character device (mknod: ${made.stderr}); run as root`);
  return null;
})();

// Fitted in the first test that runs, not in beforeAll: Stryker (`npm run test:mutation`)
// counts code run outside a test as covered by every test, and runs them all per mutant.
let fitted: Promise<void> | undefined;
beforeEach(
  () =>
    (fitted ??= (async () => {
      const fit = await cli(["fit", "--data", csv, "--method", "pca", "--k", "2", "--out", model]);
      expect(fit.code).toBe(0);
    })()),
);

afterAll(() => {
  // Should a reader be stuck opening the FIFO (the bug these tests guard against),
  // opening its write end lets it go.
  try {
    closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // No reader waiting: nothing to release.
  }
  removeDir(dir);
});

describe("paths that are not regular files", () => {
  it("--data on a FIFO is refused at once, naming it", async () => {
    const fit = join(dir, "fifo-model.json");
    await expectRefused(
      ["fit", "--data", fifo, "--method", "pca", "--k", "2", "--out", fit],
      [fifo, "is a FIFO (named pipe), not a regular file", "2.0 GiB limit"],
      fit,
    );
    await expectRefused(
      ["transform", "--model", model, "--data", fifo, "--out", "-"],
      [fifo, "FIFO"],
    );
    await expectRefused(["datasets", "info", fifo], [fifo, "FIFO"]);
  });

  it("--model, --splits and --labels-file on a FIFO are refused at once", async () => {
    await expectRefused(
      ["transform", "--model", fifo, "--data", csv, "--out", "-"],
      [fifo, "a model file", "FIFO"],
    );
    await expectRefused(["predict", "--model", fifo, "--data", csv], [fifo, "FIFO"]);
    await expectRefused(
      [
        "fit",
        "--data",
        csv,
        "--splits",
        fifo,
        "--method",
        "pca",
        "--k",
        "2",
        "--out",
        join(dir, "s.json"),
      ],
      [fifo, "a split file", "FIFO"],
    );
    await expectRefused(
      [
        "experiment",
        "--data",
        csv,
        "--splits",
        fifo,
        "--methods",
        "pca",
        "--out",
        join(dir, "run"),
      ],
      [fifo, "FIFO"],
    );
    const npy = join(dir, "x.npy");
    writeFileSync(
      npy,
      npyBytes("{'descr': '<f8', 'fortran_order': False, 'shape': (24, 4), }", float64Bytes(X)),
    );
    await expectRefused(["datasets", "info", npy, "--labels-file", fifo], [fifo, "FIFO"]);
  });

  it.skipIf(zero === null)(
    "--data and --model on a character device are refused at once",
    async () => {
      const path = zero as string;
      await expectRefused(
        ["evaluate", "--data", path, "--method", "pca", "--k", "2"],
        [path, "is a character device, not a regular file"],
      );
      await expectRefused(["predict", "--model", path, "--data", csv], [path, "character device"]);
      const err = await rejectionOf(loadFeatures(path));
      expect(err).toBeInstanceOf(DataFormatError);
    },
  );

  it("a directory is refused as before", async () => {
    const err = await rejectionOf(loadDataset(dir));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(`${dir} is a directory, not a data file.`);
    await expectRefused(
      ["transform", "--model", dir, "--data", csv, "--out", "-"],
      [dir, "is a directory, not a model file"],
    );
  });

  it.each<[string, (folder: string) => string[], string]>([
    [
      "--labels-file",
      (folder) => ["datasets", "info", csv, "--labels-file", folder],
      "a labels file",
    ],
    [
      "--data",
      (folder) => ["evaluate", "--data", folder, "--method", "pca", "--k", "2"],
      "a data file",
    ],
    ["--model", (folder) => ["predict", "--model", folder, "--data", csv], "a model file"],
    [
      "--splits",
      (folder) => ["evaluate", "--data", csv, "--splits", folder, "--method", "pca", "--k", "2"],
      "a split file",
    ],
    [
      "--embedding",
      (folder) => ["plot", "embedding", "--embedding", folder, "--out", join(dir, "emb")],
      "a data file",
    ],
  ])("a directory as %s is refused naming that flag", async (flag, args, what) => {
    const line = await expectRefused(args(dir), []);
    expect(line).toBe(`sdspcaan: ${dir} is a directory, not ${what} (${flag}).`);
  });

  it("a missing --labels-file or --model is named by its flag", async () => {
    const gone = join(dir, "gone.txt");
    expect(await expectRefused(["datasets", "info", csv, "--labels-file", gone], [])).toBe(
      `sdspcaan: The labels file ${gone} does not exist (--labels-file).`,
    );
    expect(await expectRefused(["predict", "--model", gone, "--data", csv], [])).toBe(
      `sdspcaan: The model file ${gone} does not exist (--model).`,
    );
  });

  it("a regular file over the limit is refused before it is read", async () => {
    const err = await rejectionOf(loadDataset(csv, { maxBytes: 100 }));
    expect(err).toBeInstanceOf(DataFormatError);
    expect(err.message).toMatch(
      /small\.csv: is 1\.\d KiB, more than the 100 bytes limit \(maxBytes\)$/,
    );
  });
});

describe("delimited text streamed from the file", () => {
  it("reads a .csv.gz as the CSV itself, and refuses one that is cut short or corrupt", async () => {
    const gz = join(dir, "small.csv.gz");
    const packed = gzipSync(Buffer.from(csvText(X, y)));
    writeFileSync(gz, packed);
    const plain = await loadDataset(csv);
    const read = await loadDataset(gz);
    expect(Buffer.from(read.X.data.buffer).equals(Buffer.from(plain.X.data.buffer))).toBe(true);
    expect(read.y).toEqual(plain.y);
    const cut = join(dir, "cut.csv.gz");
    writeFileSync(cut, packed.subarray(0, packed.length - 12));
    expect((await rejectionOf(loadDataset(cut))).message).toBe(
      `${cut}: the gzip stream is truncated`,
    );
    const bad = join(dir, "bad.csv.gz");
    const garbled = Buffer.from(packed);
    garbled.fill(0x55, 12, 40);
    writeFileSync(bad, garbled);
    expect((await rejectionOf(loadDataset(bad))).message).toMatch(
      /bad\.csv\.gz: corrupt gzip stream \(/,
    );
  });

  it("caps the inflated text of a .csv.gz at the limit", async () => {
    const gz = join(dir, "long.csv.gz");
    writeFileSync(gz, gzipSync(Buffer.from(csvText(X, y).repeat(40))));
    const err = await rejectionOf(loadDataset(gz, { maxBytes: 4096 }));
    expect(err.message).toBe(
      `${gz}: the gzip stream inflates to more than 4.0 KiB (the maxBytes limit)`,
    );
  });

  it("leaves a gzip-compressed binary format to its reader", async () => {
    const gz = join(dir, "x.npy.gz");
    const rows = X.map((r, i) => [...r, y[i]]);
    writeFileSync(
      gz,
      gzipSync(
        npyBytes(
          "{'descr': '<f8', 'fortran_order': False, 'shape': (24, 5), }",
          float64Bytes(rows),
        ),
      ),
    );
    const ds = await loadDataset(gz);
    expect(ds.info.format).toBe("npy");
    expect(ds.X.toRows()).toEqual(X);
  });

  it("caps the matrix at the limit, naming it", () => {
    const err = (() => {
      try {
        parseDelimited(csvText(X, y).repeat(50), "many.csv", { maxBytes: 8 * 4000 });
      } catch (e) {
        return e as Error;
      }
      throw new Error("expected a refusal");
    })();
    expect(err.message).toBe(
      "many.csv: its numbers take more than 31.3 KiB as float64, the limit on one buffer (maxBytes)",
    );
  });

  it("validates UTF-8 across the slices of a large buffer", () => {
    // 'é' (two bytes) straddling the 1 MiB slice boundary is one valid character.
    const before = 2 ** 20 - 1;
    const k = Math.floor((before - 4) / 6);
    const tail = "x".repeat(before - 6 * k - 4);
    const bytes = new TextEncoder().encode(`${"3,4,b\n".repeat(k)}5,6,${tail}é\n`);
    expect([bytes[before], bytes[before + 1]]).toEqual([0xc3, 0xa9]);
    const ds = parseDelimited(bytes, "slices.csv");
    expect(ds.y[ds.y.length - 1]).toBe(`${tail}é`);
    expect(ds.X.rows).toBe(k + 1);
  });
});
