/**
 * Results directories that must never give a silently wrong answer: resuming
 * with other settings (settings fingerprints, old lines without one), conflicting
 * duplicate lines, reports of unfinished runs, --force with fewer methods, a
 * corrupt line in the middle of results.jsonl, and k grids the data does not
 * allow.
 */
import {
  cpSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { DataFormatError, type FitWarning } from "sdspcaan";
import {
  makeSplit,
  makeSyntheticDataset,
  type SyntheticOptions,
  warningFromText,
} from "sdspcaan/methods";
import { fixtureFile } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FitRecord } from "#internal/protocol/records.js";
import { writeRunReports } from "#internal/reports/reportFiles.node.js";
import {
  type ResultLine,
  readResultsFile,
  scanResultsFile,
} from "#internal/runner/resultsFile.node.js";
import {
  type ExperimentOptions,
  type RunSettings,
  runExperiment,
} from "#internal/runner/runner.node.js";
import { cli, lines, writeCsv } from "../helpers/cli.js";
import { comparable, iterativeRun, removeDir, smallData, tempDir } from "../helpers/runs.js";

const LEGACY = fixtureFile("experiment/legacy-run");
/** What a report of the legacy run now says under its table. */
const LEGACY_WARNINGS = `Warnings of the selected fits (the fit of each repeat that the table's numbers come from; \`sdspcaan evaluate\` with the same split and options prints them in full):

- SDSPCAAN on Legacy: 2 of 2 selected fits had a class with fewer than m + 1 training samples.
`;

const data = smallData(); // 60 samples, 24 features, 4 classes: 12 training samples per split
const base: ExperimentOptions = iterativeRun({
  methods: ["baseline", "pca", "sdspcaan"],
  workers: 1,
});
/** Fits of `base`: 2 repeats x 2 k for baseline and PCA, x 2 delta values for SDSPCAAN. */
const BASE_FITS = 16;

let root: string;
let reference: ReturnType<typeof comparable>;
let referenceDir: string;
let csv: string;

beforeAll(async () => {
  root = tempDir("bad-results");
  referenceDir = join(root, "reference");
  const res = await runExperiment({ ...base, out: referenceDir });
  reference = comparable(stripFingerprints([...res.records, ...res.skipped]));
  csv = join(root, "small.csv");
  writeCsv(csv, data.X, data.y);
});
afterAll(() => removeDir(root));

let dirCount = 0;
/** A copy of a results directory (the reference run by default) under a new name. */
function copyRun(from = referenceDir): string {
  const dir = join(root, `copy-${++dirCount}`);
  cpSync(from, dir, { recursive: true });
  return dir;
}

function resultLines(dir: string): string[] {
  return readFileSync(join(dir, "results.jsonl"), "utf8")
    .split("\n")
    .filter((l) => l !== "");
}

function writeLines(dir: string, list: readonly string[]): void {
  writeFileSync(join(dir, "results.jsonl"), `${list.join("\n")}\n`);
}

function stripFingerprints(list: readonly ResultLine[]): ResultLine[] {
  return list.map((l) => {
    const { fingerprint: _f, ...rest } = l as FitRecord;
    return rest as ResultLine;
  });
}

/** A line without its warnings. */
function withoutWarnings(line: Record<string, unknown>): Record<string, unknown> {
  const { warnings: _w, ...rest } = line;
  return rest;
}

/** The lines of a results directory, without timings and fingerprints, by fit. */
function resultsOf(dir: string): ReturnType<typeof comparable> {
  const parsed = readResultsFile(join(dir, "results.jsonl"));
  return comparable(stripFingerprints([...parsed.records, ...parsed.skipped]));
}

/** CLI arguments of a small experiment on the CSV copy of the data. */
function experimentArgs(out: string, ...extra: string[]): string[] {
  return [
    "experiment",
    "--data",
    csv,
    "--methods",
    "baseline,pca",
    "--k-grid",
    "4,8",
    "--repeats",
    "2",
    "--seed",
    "5",
    "--workers",
    "1",
    "--no-figures",
    "--no-progress",
    "--out",
    out,
    ...extra,
  ];
}

/** Every failing command prints exactly one line on standard error and exits with 1. */
function expectOneLineError(r: { code: number; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(1);
  expect(lines(r.stderr)).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
}

describe("1. resume reuses a line only when its settings fingerprint matches", () => {
  it("writes a fingerprint into every line, the same for the same fit in another run", async () => {
    const lines1 = scanResultsFile(join(referenceDir, "results.jsonl")).entries;
    expect(lines1).toHaveLength(BASE_FITS);
    for (const e of lines1) expect(e.line.fingerprint).toMatch(/^[0-9a-f]{16}$/);
    // Fits differ in k or params, so their fingerprints differ.
    expect(new Set(lines1.map((e) => e.line.fingerprint)).size).toBe(BASE_FITS);
    const again = await runExperiment(base);
    const byKey = (list: readonly ResultLine[]) =>
      Object.fromEntries(
        list.map((l) => [JSON.stringify([l.method, l.repeat, l.k, l.params]), l.fingerprint]),
      );
    expect(byKey([...again.records, ...again.skipped])).toEqual(byKey(lines1.map((e) => e.line)));
  });

  it("with settings.json deleted, refuses another --seed, and --force redoes every fit", async () => {
    const out = join(root, "cli-seed");
    expect((await cli(experimentArgs(out))).code).toBe(0);
    unlinkSync(join(out, "settings.json"));
    const before = resultLines(out);
    const other = experimentArgs(out).map((a, i, all) => (all[i - 1] === "--seed" ? "6" : a));
    expectOneLineError(
      await cli(other),
      /holds 8 lines made with other settings than this run \(there is no settings\.json to say which\).*--force/,
    );
    expect(resultLines(out)).toEqual(before);
    const forced = await cli([...other, "--force"]);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toMatch(/8 fits \(0 resumed, 8 run\)/);
    expect(forced.stderr).toMatch(
      /moved 8 lines made with other settings to .*results\.jsonl\.old-1/,
    );
    expect(
      readFileSync(join(out, "results.jsonl.old-1"), "utf8").split("\n").filter(Boolean),
    ).toEqual(before);
    // The new lines are the fits of seed 6: other splits, so other seeds in every line.
    const oldSeeds = new Set(before.map((l) => JSON.parse(l).seed));
    for (const l of resultLines(out)) expect(oldSeeds.has(JSON.parse(l).seed)).toBe(false);
  });

  it("with settings.json deleted, the same settings reuse every line", async () => {
    const dir = copyRun();
    unlinkSync(join(dir, "settings.json"));
    const res = await runExperiment({ ...base, out: dir });
    expect(res.resumed).toBe(BASE_FITS);
    expect(res.notes.join(" ")).toMatch(/reusing 16 finished fits of 16/);
  });

  it("does not reuse a line whose fingerprint is not the run's, although settings.json matches", async () => {
    const dir = copyRun();
    const list = resultLines(dir);
    const tampered = JSON.parse(list[6]);
    tampered.fingerprint = "0123456789abcdef";
    list[6] = JSON.stringify(tampered);
    writeLines(dir, list);
    await expect(runExperiment({ ...base, out: dir })).rejects.toThrow(
      /holds 1 line made with other settings than this run: .*e\.g\. line 7 \(Small, repeat/,
    );
    const forced = await runExperiment({ ...base, out: dir, force: true });
    expect(forced.resumed).toBe(BASE_FITS - 1);
    expect(resultsOf(dir)).toEqual(reference);
    expect(readFileSync(join(dir, "results.jsonl.old-1"), "utf8")).toContain("0123456789abcdef");
  });
});

describe("1. (old results directories) lines written before fingerprints", () => {
  let legacySettings: RunSettings;
  let legacyOptions: ExperimentOptions;
  beforeAll(() => {
    legacySettings = JSON.parse(readFileSync(join(LEGACY, "settings.json"), "utf8"));
    const origin = legacySettings.datasets[0].origin as {
      kind: string;
      options: SyntheticOptions;
    };
    const ds = makeSyntheticDataset(origin.options);
    legacyOptions = {
      datasets: [{ name: "Legacy", X: ds.X, y: ds.y, origin }],
      methods: ["baseline", "pca", "lda", "sdspcaan"],
      grid: { alpha: [1], beta: [1], delta: [0.1, 10] },
      kGrid: [4, 8],
      repeats: 2,
      seed: 5,
      commonMethodOptions: { maxIter: 30 },
      workers: 1,
    };
  });

  it("the fixture is an old directory: no line has a fingerprint", () => {
    const lines1 = resultLines(LEGACY);
    expect(lines1).toHaveLength(18);
    for (const l of lines1) expect(JSON.parse(l).fingerprint).toBeUndefined();
  });

  it("reports it exactly as the code before fingerprints did", async () => {
    const dir = copyRun(LEGACY);
    for (const f of ["table.md", "table.csv", "summary.json"]) rmSync(join(dir, f));
    const report = await writeRunReports(dir, { figures: false });
    // New since then: the warnings of the selected fits under the table, their codes
    // read from the old lines' texts.
    expect(readFileSync(join(dir, "table.md"), "utf8")).toBe(
      `${readFileSync(join(LEGACY, "table.md"), "utf8")}\n${LEGACY_WARNINGS}`,
    );
    expect(readFileSync(join(dir, "table.csv"), "utf8")).toBe(
      readFileSync(join(LEGACY, "table.csv"), "utf8"),
    );
    // Three sections are new since then: completeness, the significance statistics,
    // and each cell's warning counts.
    const { completeness, statistics, ...summary } = JSON.parse(
      readFileSync(join(dir, "summary.json"), "utf8"),
    );
    expect(statistics.baseline).toBe("sdspcaan");
    const cells = summary.results.Legacy as Record<string, { warnings: unknown }>;
    expect(cells.sdspcaan.warnings).toEqual({
      fits: 2,
      byCode: { "small-classes": 2 },
      stoppedAtCap: 0,
      cycleUnknown: 0,
    });
    expect(cells.pca.warnings).toEqual({ fits: 2, byCode: {}, stoppedAtCap: 0, cycleUnknown: 0 });
    for (const cell of Object.values(cells)) delete (cell as { warnings?: unknown }).warnings;
    expect(summary).toEqual(JSON.parse(readFileSync(join(LEGACY, "summary.json"), "utf8")));
    expect(completeness).toMatchObject({ status: "complete", fitsDone: 18, fitsPlanned: 18 });
    expect(report.notes.join(" ")).toMatch(/Complete run: all 18 planned fits are done/);
  });

  it("resumes it with the same settings, reusing every line and leaving the file as it was", async () => {
    const dir = copyRun(LEGACY);
    const before = readFileSync(join(dir, "results.jsonl"));
    const res = await runExperiment({ ...legacyOptions, out: dir });
    expect(res.total).toBe(18);
    expect(res.resumed).toBe(18);
    expect(readFileSync(join(dir, "results.jsonl")).equals(before)).toBe(true);
  });

  it("gives its lines, when settings.json changes, the fingerprints a fresh run gives them", async () => {
    const dir = copyRun(LEGACY);
    const forced = await runExperiment({
      ...legacyOptions,
      methods: ["pca", "sdspcaan"],
      force: true,
      out: dir,
    });
    // Fewer methods: the 12 fits of PCA and SDSPCAAN are reused, nothing is run.
    expect(forced.total).toBe(12);
    expect(forced.resumed).toBe(12);
    const stamped = scanResultsFile(join(dir, "results.jsonl")).entries.map((e) => e.line);
    expect(stamped).toHaveLength(18);
    const fresh = await runExperiment({ ...legacyOptions, out: join(root, "legacy-fresh") });
    const fp = (list: readonly ResultLine[]) =>
      Object.fromEntries(
        list.map((l) => [JSON.stringify([l.method, l.repeat, l.k, l.params]), l.fingerprint]),
      );
    expect(fp(stamped)).toEqual(fp([...fresh.records, ...fresh.skipped]));
    // The current code makes the same fits as the code before fingerprints; its lines
    // hold warnings with codes (the old texts, and more advice after them), [] for none.
    const now = resultsOf(join(root, "legacy-fresh"));
    const legacy = resultsOf(LEGACY);
    expect(now.map(withoutWarnings)).toEqual(legacy.map(withoutWarnings));
    now.forEach((line, i) => {
      const texts = (legacy[i].warnings ?? []) as string[];
      const coded = line.warnings as FitWarning[];
      expect(coded.map((w) => w.code)).toEqual(texts.map((t) => warningFromText(t).code));
      coded.forEach((w, j) => {
        // The old texts' "class(es)" is now counted in words, and small classes no longer
        // said to keep the graph from c components (only a single-sample class does).
        const text = texts[j]
          .replace(/^(\d+) class\(es\) have/, (_, n) =>
            n === "1" ? "1 class has" : `${n} classes have`,
          )
          .replace(
            /(cross-class neighbours), so the graph cannot have exactly c components.*$/,
            "$1",
          );
        expect(w.message.startsWith(text)).toBe(true);
      });
    });
    // Back to all four methods: the lines of LDA and Baseline, out of the forced run, are reused too.
    const back = await runExperiment({ ...legacyOptions, force: true, out: dir });
    expect(back.resumed).toBe(18);
  });

  it("cannot reuse its lines without settings.json, which is what gave them meaning", async () => {
    const dir = copyRun(LEGACY);
    unlinkSync(join(dir, "settings.json"));
    await expect(runExperiment({ ...legacyOptions, out: dir })).rejects.toThrow(
      /18 lines made with other settings than this run \(there is no settings\.json/,
    );
  });

  it("refuses another seed, and forced, sets the old lines aside", async () => {
    const dir = copyRun(LEGACY);
    const other = { ...legacyOptions, seed: 6, out: dir };
    await expect(runExperiment(other)).rejects.toThrow(
      /different settings \(seed: 5 before, 6 now\)/,
    );
    const forced = await runExperiment({ ...other, force: true });
    expect(forced.resumed).toBe(0);
    expect(resultLines(join(dir)).every((l) => JSON.parse(l).fingerprint !== undefined)).toBe(true);
    expect(
      readFileSync(join(dir, "results.jsonl.old-1"), "utf8").split("\n").filter(Boolean),
    ).toEqual(resultLines(LEGACY));
  });
});

describe("2. duplicate lines of one fit", () => {
  it("with different results are an error naming the file and both lines", async () => {
    const dir = copyRun();
    const list = resultLines(dir);
    const copy = JSON.parse(list[2]);
    copy.testBCA = copy.testBCA === 0.5 ? 0.25 : 0.5;
    list.push(JSON.stringify(copy));
    writeLines(dir, list);
    const pattern =
      /results\.jsonl: lines 3 and 17 record the same fit \(Small, repeat \d, \w+, k = \d.*\) with different results \(testBCA .* vs .*\)\..*--repair/;
    await expect(runExperiment({ ...base, out: dir })).rejects.toThrow(DataFormatError);
    await expect(runExperiment({ ...base, out: dir })).rejects.toThrow(pattern);
    await expect(writeRunReports(dir, { figures: false })).rejects.toThrow(pattern);
    expectOneLineError(await cli(["report", "--out", dir, "--no-figures"]), pattern);
  });

  it("that agree (all but the fit time) are read once", async () => {
    const dir = copyRun();
    const list = resultLines(dir);
    const copy = JSON.parse(list[2]);
    copy.fitMs += 1;
    list.push(JSON.stringify(copy), list[5]);
    writeLines(dir, list);
    const report = await writeRunReports(dir, { figures: false });
    expect(report.records).toBe(BASE_FITS);
    expect(report.tableMd).toBe((await writeRunReports(referenceDir, { figures: false })).tableMd);
    const res = await runExperiment({ ...base, out: dir });
    expect(res.resumed).toBe(BASE_FITS);
    expect(res.records).toHaveLength(BASE_FITS);
  });
});

describe("3. reports of an unfinished run", () => {
  it("mark the incomplete cells and say how complete the run is, in every report", async () => {
    const dir = copyRun();
    // Drop SDSPCAAN's repeat 1 and one PCA fit: 16 - 4 - 1 = 11 of 16 fits done.
    const list = resultLines(dir).filter((l) => {
      const r = JSON.parse(l);
      return (
        !(r.method === "sdspcaan" && r.repeat === 1) &&
        !(r.method === "pca" && r.k === 8 && r.repeat === 0)
      );
    });
    expect(list).toHaveLength(11);
    writeLines(dir, list);
    const r = await cli(["report", "--out", dir, "--no-figures"]);
    expect(r.code).toBe(0);
    const md = readFileSync(join(dir, "table.md"), "utf8");
    expect(r.stdout.trimEnd()).toBe(md.trimEnd());
    expect(md).toMatch(
      /^\*\*Incomplete run: 11 of 16 planned fits done \(68\.8 %\)\.\*\* Cells marked † .*not final\./,
    );
    const row = (name: string) =>
      (md.split("\n").find((l) => l.startsWith(`| ${name} |`)) as string)
        .split("|")
        .map((c) => c.trim());
    // Columns: Baseline, PCA, SDSPCAAN.
    expect(row("Small")[2]).not.toContain("†");
    expect(row("Small")[3]).toMatch(/ †$/);
    expect(row("Small")[4]).toMatch(/ †$/);
    expect(row("Average")[3]).toMatch(/ †$/);
    expect(md).toContain(
      "- Small: PCA 3 / 4 (1 of 2 repeats complete), SDSPCAAN 4 / 8 (1 of 2 repeats complete)",
    );
    expect(r.stderr).toMatch(/Incomplete run: 11 of 16 planned fits done/);
    const csvLines = readFileSync(join(dir, "table.csv"), "utf8").split("\n");
    expect(csvLines[0]).toMatch(/,fits_done,fits_planned$/);
    expect(csvLines).toContainEqual(expect.stringMatching(/^Small,pca,.*,3,4$/));
    expect(csvLines).toContainEqual(expect.stringMatching(/^Small,baseline,.*,4,4$/));
    const summary = JSON.parse(readFileSync(join(dir, "summary.json"), "utf8"));
    expect(summary.completeness).toEqual({
      status: "incomplete",
      fitsDone: 11,
      fitsPlanned: 16,
      incompleteCells: {
        Small: {
          pca: { planned: 4, done: 3, repeats: 2, repeatsComplete: 1 },
          sdspcaan: { planned: 8, done: 4, repeats: 2, repeatsComplete: 1 },
        },
      },
    });
  });

  it("show a planned data set without any result yet as not started", async () => {
    const other = makeSyntheticDataset({ samples: 80, features: 20, classes: 4, seed: 8 });
    const dir = join(root, "two-datasets");
    const options: ExperimentOptions = {
      ...base,
      methods: ["pca"],
      datasets: [...base.datasets, { name: "Other", X: other.X, y: other.y }],
      out: dir,
    };
    await runExperiment(options);
    writeLines(
      dir,
      resultLines(dir).filter((l) => JSON.parse(l).dataset === "Small"),
    );
    const report = await writeRunReports(dir, { figures: false });
    expect(report.tableMd).toMatch(/\| Other \| -- † \|/);
    expect(report.tableMd).toContain("- Other: not started (0 / 4 fits)");
  });

  it("name a damaged settings.json and the field instead of failing inside the plan", async () => {
    const dir = copyRun();
    const settings = JSON.parse(readFileSync(join(dir, "settings.json"), "utf8"));
    delete settings.methods;
    writeFileSync(join(dir, "settings.json"), JSON.stringify(settings));
    expectOneLineError(
      await cli(["report", "--out", dir, "--no-figures"]),
      /settings\.json: "methods" must be a list of method names\. Got undefined\./,
    );
  });

  it("carry no marks once the run is complete", async () => {
    const report = await writeRunReports(referenceDir, { figures: false });
    expect(report.tableMd).not.toContain("†");
    expect(report.tableMd).not.toMatch(/Incomplete|Completeness/);
    const summary = JSON.parse(readFileSync(join(referenceDir, "summary.json"), "utf8"));
    expect(summary.completeness).toMatchObject({
      status: "complete",
      fitsDone: 16,
      fitsPlanned: 16,
    });
  });
});

describe("4. --force with fewer methods", () => {
  it("reuses every fit whose fingerprint matches and says how many fits it reuses and runs", async () => {
    const out = join(root, "cli-force");
    const first = await cli(experimentArgs(out));
    expect(first.code).toBe(0);
    const before = resultLines(out);
    const fewer = experimentArgs(out, "--force").map((a, i, all) =>
      all[i - 1] === "--methods" ? "pca" : a,
    );
    const forced = await cli(fewer);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toMatch(/--force: reusing 4 finished fits of 4 .*; 0 fits to run\./);
    expect(forced.stderr).toMatch(/4 fits \(4 resumed, 0 run\)/);
    expect(resultLines(out)).toEqual(before);
    expect(readdirSync(out).filter((f) => f.includes(".old-"))).toEqual([]);
    // More k values: only the new ones run.
    const more = fewer.map((a, i, all) => (all[i - 1] === "--k-grid" ? "4,8,10" : a));
    const extended = await cli(more);
    expect(extended.stderr).toMatch(/--force: reusing 4 finished fits of 6 .*; 2 fits to run\./);
    expect(extended.stderr).toMatch(/6 fits \(4 resumed, 2 run\)/);
  });
});

describe("5. a corrupt line in the middle of results.jsonl", () => {
  it("is an error naming the file and line, with the way out", async () => {
    const out = join(root, "cli-corrupt");
    expect((await cli(experimentArgs(out))).code).toBe(0);
    const list = resultLines(out);
    list[4] = `${list[4].slice(0, 40)}#garbage`;
    writeLines(out, list);
    const pattern =
      /results\.jsonl: line 5 is not valid JSON .*run the experiment command again with --repair/;
    expectOneLineError(await cli(experimentArgs(out)), pattern);
    expectOneLineError(await cli(["report", "--out", out, "--no-figures"]), pattern);
    // The file is left as it was for the user to look at.
    expect(resultLines(out)[4]).toContain("#garbage");
    // A field's message ends its sentence once, before the way out.
    const { fitMs: _, ...withoutTime } = JSON.parse(list[3]);
    list[4] = JSON.stringify(withoutTime);
    writeLines(out, list);
    expectOneLineError(
      await cli(["report", "--out", out, "--no-figures"]),
      /results\.jsonl: line 5: "fitMs" must be a number in \[0, inf\)\. Got undefined\. To move the bad lines to results\.rejected\.jsonl and redo those fits, run the experiment command again with --repair\.$/m,
    );
  });

  it("--repair moves bad lines to results.rejected.jsonl and redoes their fits", async () => {
    const dir = copyRun();
    const list = resultLines(dir);
    const badJson = list[4];
    list[4] = `${badJson.slice(0, 40)}#garbage`;
    const out = JSON.parse(list[9]);
    out.testBCA = 2.5; // JSON, but not a results line
    list[9] = JSON.stringify(out);
    const conflict = JSON.parse(list[12]);
    conflict.valBCA = conflict.valBCA === 1 ? 0.5 : 1;
    list.push(JSON.stringify(conflict));
    writeLines(dir, list);
    await expect(runExperiment({ ...base, out: dir })).rejects.toThrow(
      /line 5 is not valid JSON.*; 2 more bad lines \(lines 10, 13 and 17\)/,
    );
    const res = await runExperiment({ ...base, out: dir, repair: true });
    // Lines 5 and 10, and both lines of the conflicting fit: three fits are redone.
    expect(res.resumed).toBe(BASE_FITS - 3);
    expect(res.notes.join(" ")).toMatch(
      /--repair: moved 4 bad lines .*\(lines 5, 10, 13, 17\) to .*results\.rejected\.jsonl/,
    );
    expect(resultsOf(dir)).toEqual(reference);
    const rejected = readFileSync(join(dir, "results.rejected.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(rejected.map((r) => r.line)).toEqual([5, 10, 13, 17]);
    expect(rejected[0].text).toContain("#garbage");
    expect(rejected[0].reason).toMatch(/not valid JSON/);
    expect(rejected[1].reason).toMatch(/testBCA/);
    expect(rejected[2].reason).toMatch(/lines 13 and 17 record the same fit/);
    // The repaired file reads clean and reports.
    expect((await writeRunReports(dir, { figures: false })).tableMd).not.toContain("†");
  });
});

describe("6. k grids the data does not allow", () => {
  it("--k-grid with no valid k for a data set is an error naming it and the valid range", async () => {
    const r = await cli(
      experimentArgs(join(root, "k500")).map((a, i, all) =>
        all[i - 1] === "--k-grid" ? "500" : a,
      ),
    );
    expectOneLineError(
      r,
      /The k grid \(500\) leaves no valid k for small \(repeat 0\): k must be in \[4, 12\] \(k >= the number of classes c = 4, k <= min\(n_train = 12, d = 24\)\)/,
    );
    expect(existsSync(join(root, "k500", "results.jsonl"))).toBe(false);
  });

  it("values dropped from an explicit --k-grid are warned about, naming the data set", async () => {
    const out = join(root, "k-drop");
    const r = await cli(
      experimentArgs(out).map((a, i, all) => (all[i - 1] === "--k-grid" ? "2,8,500" : a)),
    );
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /warning: small: k = 2, 500 dropped from the k grid; valid k are in \[4, 12\]/,
    );
    const ks = new Set(readResultsFile(join(out, "results.jsonl")).records.map((x) => x.k));
    expect([...ks]).toEqual([8]);
  });

  it("the default k grid's filtering is expected and needs no warning", async () => {
    const { kGrid: _k, ...rest } = base;
    const res = await runExperiment({ ...rest, methods: ["pca"], repeats: 1 });
    // {10, ..., 100} on 12 training samples of 4 classes: k = 10 only, without a word.
    expect(res.warnings).toEqual([]);
    expect(res.records.map((x) => x.k)).toEqual([10]);
  });

  it("LDA's k bound comes from the classes of the training split, not of the data set", async () => {
    // An explicit split whose training part has 3 of the 4 classes: LDA has at most 2 directions.
    const seeded = makeSplit(60, { seed: 1, dataset: "Small", repeat: 0 });
    const missing = data.y[seeded.train[0]];
    const all = Array.from({ length: 60 }, (_, i) => i);
    const train = all.filter((i) => data.y[i] !== missing).slice(0, 15);
    const rest = all.filter((i) => !train.includes(i));
    const split = {
      train: Int32Array.from(train),
      val: Int32Array.from(rest.slice(0, 20)),
      test: Int32Array.from(rest.slice(20)),
    };
    const res = await runExperiment({
      datasets: [{ name: "Small", X: data.X, y: data.y, splits: [split] }],
      methods: ["lda"],
      kGrid: [1, 2, 3],
      workers: 1,
    });
    expect(res.records.map((x) => x.k)).toEqual([1, 2]);
    expect(res.skipped).toEqual([]);
    expect(res.warnings.join(" ")).toMatch(
      /Small, lda: k = 3 dropped from the k grid; LDA's k is in \[1, 2\]/,
    );
  });
});
