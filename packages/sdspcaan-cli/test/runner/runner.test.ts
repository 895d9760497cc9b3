/**
 * The experiment runner: results do not depend on the number of workers, an
 * interrupted run resumed gives the same records as an uninterrupted one, refused
 * configurations are recorded, and a resumed run with other settings is refused.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AbortError, ValidationError } from "sdspcaan";
import { makeSyntheticDataset } from "sdspcaan/methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readResultsFile } from "#internal/runner/resultsFile.node.js";
import { type ExperimentOptions, runExperiment } from "#internal/runner/runner.node.js";
import {
  comparable,
  iterativeRun,
  methodsWithNeighbours,
  removeDir,
  tempDir,
  testMethods,
} from "../helpers/runs.js";

const base: ExperimentOptions = iterativeRun();

let root: string;
let reference: ReturnType<typeof comparable>;
let referenceDir: string;

beforeAll(async () => {
  root = tempDir("runner");
  referenceDir = join(root, "reference");
  const res = await runExperiment({ ...base, workers: 1, out: referenceDir });
  reference = comparable([...res.records, ...res.skipped]);
});
afterAll(() => removeDir(root));

describe("runExperiment", () => {
  it("fits every (repeat, method, k, grid point) once and writes them all", () => {
    const parsed = readResultsFile(join(referenceDir, "results.jsonl"));
    const perMethod = new Map<string, number>();
    for (const r of parsed.records) perMethod.set(r.method, (perMethod.get(r.method) ?? 0) + 1);
    // 2 repeats x 2 k, times 2 delta values for SDSPCAAN.
    for (const m of testMethods()) expect(perMethod.get(m)).toBe(m === "sdspcaan" ? 8 : 4);
    expect(comparable([...parsed.records, ...parsed.skipped])).toEqual(reference);
    for (const r of parsed.records) {
      expect(r.valBCA).toBeGreaterThanOrEqual(0);
      expect(r.testBCA).toBeLessThanOrEqual(1);
      expect(r.preprocess).toBe("train-zscore");
      expect(typeof r.seed).toBe("number");
    }
  });

  it("gives the same records with 2 worker threads as in-process", async () => {
    const res = await runExperiment({ ...base, workers: 2, inProcess: false });
    expect(comparable([...res.records, ...res.skipped])).toEqual(reference);
  });

  it("resumes an aborted run to the records of an uninterrupted one", async () => {
    const out = join(root, "aborted");
    const controller = new AbortController();
    await expect(
      runExperiment(
        { ...base, workers: 2, inProcess: false, out },
        {
          signal: controller.signal,
          onProgress: (p) => {
            if (p.done - p.resumed >= 3) controller.abort();
          },
        },
      ),
    ).rejects.toThrow(AbortError);
    const partial = readResultsFile(join(out, "results.jsonl"));
    const saved = partial.records.length + partial.skipped.length;
    expect(saved).toBeGreaterThanOrEqual(3);
    expect(saved).toBeLessThan(reference.length);
    const seen: number[] = [];
    const res = await runExperiment(
      { ...base, workers: 1, out },
      {
        onProgress: (p) => seen.push(p.resumed),
      },
    );
    expect(res.resumed).toBe(saved);
    expect(seen.every((r) => r === saved)).toBe(true);
    const final = readResultsFile(join(out, "results.jsonl"));
    expect(comparable([...final.records, ...final.skipped])).toEqual(reference);
  });

  it("redoes only the fit whose line a crash cut short", async () => {
    const out = join(root, "crashed");
    await runExperiment({ ...base, workers: 1, out });
    const path = join(out, "results.jsonl");
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n").filter((l) => l !== "");
    const keep = Math.floor(lines.length / 2);
    const cut = `${lines.slice(0, keep).join("\n")}\n${lines[keep].slice(0, 25)}`;
    writeFileSync(path, cut);
    const res = await runExperiment({ ...base, workers: 1, out });
    expect(res.resumed).toBe(keep);
    const final = readResultsFile(path);
    expect(final.ignoredTail).toBe("");
    expect(comparable([...final.records, ...final.skipped])).toEqual(reference);
  });

  it("records a refused configuration once and does not retry it", async () => {
    const withM = methodsWithNeighbours();
    expect(withM.length).toBeGreaterThan(0);
    const out = join(root, "refused");
    // 12 training samples allow at most m = n - 2 = 10 neighbours, so m = 11 is refused at fit time.
    const options: ExperimentOptions = {
      ...base,
      methods: ["pca", withM[0]],
      commonMethodOptions: { maxIter: 30, m: 11 },
      workers: 1,
      out,
    };
    const first = await runExperiment(options);
    expect(first.skipped.length).toBeGreaterThan(0);
    expect(first.skipped.every((s) => s.method === withM[0])).toBe(true);
    expect(first.skipped[0].error).toBe("ValidationError");
    expect(first.skipped[0].reason).toMatch(/'m'/);
    const again = await runExperiment(options);
    expect(again.resumed).toBe(again.total);
    expect(again.skipped).toHaveLength(first.skipped.length);
  });

  it("refuses to resume with different settings unless forced", async () => {
    const out = join(root, "settings");
    await runExperiment({ ...base, methods: ["pca"], workers: 1, out });
    const other = { ...base, methods: ["pca"], seed: 6, workers: 1, out };
    await expect(runExperiment(other)).rejects.toThrow(ValidationError);
    await expect(runExperiment(other)).rejects.toThrow(
      /different settings \(seed: 5 before, 6 now\)/,
    );
    // Another seed makes other splits: nothing can be reused, the old file is set aside.
    const forced = await runExperiment({ ...other, force: true });
    expect(forced.resumed).toBe(0);
    expect(forced.notes.join(" ")).toMatch(/results\.jsonl\.old-1/);
    expect(readResultsFile(join(out, "results.jsonl.old-1")).records).toHaveLength(4);
    expect(readResultsFile(join(out, "results.jsonl")).records).toHaveLength(4);
    // More k values only extend the run: the finished fits are reused.
    const extended = await runExperiment({ ...other, kGrid: [4, 8, 10], force: true });
    expect(extended.resumed).toBe(4);
    expect(extended.records).toHaveLength(6);
  });

  it("runs SLNP on the top-maxK PCA scores under the authors preset", async () => {
    const ds = makeSyntheticDataset({ samples: 120, features: 30, classes: 3, seed: 4 });
    const common: ExperimentOptions = {
      datasets: [{ name: "Slnp", X: ds.X, y: ds.y }],
      methods: ["slnp"],
      kGrid: [3, 6],
      repeats: 1,
      stratify: true,
      workers: 1,
    };
    const authors = await runExperiment({
      ...common,
      grid: "authors",
      out: join(root, "slnp-authors"),
    });
    expect(authors.records).toHaveLength(2);
    for (const r of authors.records) expect(r.unitOptions).toEqual({ pcaDimensions: 6 });
    // The same fits as asking for pcaDimensions = 6 explicitly.
    const explicit = await runExperiment({
      ...common,
      grid: "quick",
      methodOptions: { slnp: { pcaDimensions: 6 } },
      out: join(root, "slnp-explicit"),
    });
    expect(explicit.records.map((r) => [r.k, r.valBCA, r.testBCA])).toEqual(
      authors.records.map((r) => [r.k, r.valBCA, r.testBCA]),
    );
    expect(explicit.records[0].unitOptions).toBeUndefined();
  });

  it("checks its options before fitting", async () => {
    await expect(runExperiment({ ...base, methods: ["nope"] })).rejects.toThrow(
      /Unknown method "nope"/,
    );
    await expect(runExperiment({ ...base, kGrid: [0] })).rejects.toThrow(/kGrid/);
    await expect(runExperiment({ ...base, datasets: [] })).rejects.toThrow(/datasets/);
    await expect(runExperiment({ ...base, methodOptions: { pca: { bogus: 1 } } })).rejects.toThrow(
      /no option 'bogus'/,
    );
    const controller = new AbortController();
    controller.abort();
    await expect(runExperiment(base, { signal: controller.signal })).rejects.toThrow(AbortError);
  });
});
