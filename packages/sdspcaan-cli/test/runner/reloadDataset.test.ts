/**
 * A report reloads the data of a run from what settings.json recorded (the
 * embedding figure, and the plan where labels decide it). A results directory
 * moved or cloned elsewhere together with its data (a committed run in another
 * clone) must still find it: by the path relative to the results directory, or,
 * for a registry file, through the registry; never by guessing, since the
 * checksum is compared.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ValidationError } from "sdspcaan";
import { dataFile } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDataset } from "#internal/io/load.js";
import { datasetChecksum } from "#internal/protocol/fingerprint.js";
import type { DatasetSettings } from "#internal/protocol/plan.js";
import { reloadDataset } from "#internal/reports/reloadData.node.js";
import { writeRunReports } from "#internal/reports/reportFiles.node.js";
import { runExperiment } from "#internal/runner/runner.node.js";
import { removeDir, smallData, tempDir } from "../helpers/runs.js";

let root: string;
const data = smallData(5);

/** The synthetic data as a CSV file, label last. */
function csv(): string {
  const lines: string[] = [];
  for (let i = 0; i < data.X.rows; i++) {
    const row: number[] = [];
    for (let j = 0; j < data.X.cols; j++) row.push(data.X.get(i, j));
    lines.push(`${row.join(",")},${data.y[i]}`);
  }
  return `${lines.join("\n")}\n`;
}

function recorded(dir: string): DatasetSettings {
  return JSON.parse(readFileSync(join(dir, "settings.json"), "utf8")).datasets[0];
}

beforeAll(async () => {
  root = tempDir("reload");
  mkdirSync(join(root, "first", "data"), { recursive: true });
  writeFileSync(join(root, "first", "data", "mine.csv"), csv());
  await runExperiment({
    datasets: [{ source: join(root, "first", "data", "mine.csv") }],
    methods: ["pca"],
    kGrid: [2, 4],
    repeats: 1,
    workers: 1,
    out: join(root, "first", "runs", "mine"),
  });
  // The whole tree moves: the recorded absolute path no longer exists.
  cpSync(join(root, "first"), join(root, "moved"), { recursive: true });
  rmSync(join(root, "first"), { recursive: true });
});
afterAll(() => removeDir(root));

describe("reloadDataset", () => {
  it("records the data file relative to the results directory", () => {
    const entry = recorded(join(root, "moved", "runs", "mine"));
    expect(entry.origin).toMatchObject({
      kind: "file",
      path: join(root, "first", "data", "mine.csv"),
      relative: "../../data/mine.csv",
    });
  });

  it("finds a moved data file by its path relative to the moved results directory", async () => {
    const dir = join(root, "moved", "runs", "mine");
    const reloaded = await reloadDataset(recorded(dir), dir);
    expect(reloaded?.X.rows).toBe(data.X.rows);
    expect(datasetChecksum(reloaded!.X, reloaded!.y)).toBe(datasetChecksum(data.X, data.y));
    // The report then draws the embedding of the moved run without a warning.
    const report = await writeRunReports(dir);
    expect(report.warnings).toEqual([]);
    expect(existsSync(join(dir, "figures", "embedding.svg"))).toBe(true);
    // Repeats counted from 0, as results.jsonl has them.
    expect(readFileSync(join(dir, "figures", "embedding.svg"), "utf8")).toContain("repeat 0, k = ");
  });

  it("says which recorded file is missing, and where else it looked", async () => {
    const dir = join(root, "moved", "runs", "mine");
    const entry = recorded(dir);
    const missing = join(root, "first", "data", "mine.csv");
    const error = await reloadDataset(entry).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe(
      `settings.json records ${missing} as the file of mine, and it is not there.`,
    );
    const elsewhere = join(root, "elsewhere", "runs", "mine");
    await expect(reloadDataset(entry, elsewhere)).rejects.toThrow(
      `it is not there nor at ${join(root, "elsewhere", "data", "mine.csv")}.`,
    );
  });

  it("refuses a file at the relative path that holds other data (checksum)", async () => {
    const dir = join(root, "moved", "runs", "mine");
    const entry = recorded(dir);
    const changed = join(root, "changed");
    mkdirSync(join(changed, "data"), { recursive: true });
    writeFileSync(join(changed, "data", "mine.csv"), csv().replace(/^[^,]+/, "123"));
    await expect(reloadDataset(entry, join(changed, "runs", "mine"))).rejects.toThrow(
      /mine reloaded from its recorded origin differs from the data of the run \(checksum\)/,
    );
  });

  it("finds a registry file recorded in another clone through the registry here", async () => {
    const here = await openDataset(dataFile("Yale_32x32.mat"));
    const entry: DatasetSettings = {
      name: "Yale",
      n: here.dataset.X.rows,
      d: here.dataset.X.cols,
      classes: 15,
      checksum: datasetChecksum(here.dataset.X, here.dataset.y),
      splitsChecksum: null,
      // As a run in a clone at /elsewhere recorded it, before relative paths were.
      origin: { kind: "file", path: "/elsewhere/clone/data/Yale_32x32.mat", load: {} },
      splitsFile: null,
    };
    const reloaded = await reloadDataset(entry);
    expect(reloaded?.name).toBe("Yale");
    expect(reloaded?.X.rows).toBe(165);
  });
});
