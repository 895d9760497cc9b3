/**
 * What a writer says when the file system refuses: the file the user knows (never
 * the temporary file beside it) and what happened in plain words, with nothing
 * half-written left behind. Real conditions: a read-only tmpfs (EROFS), a full
 * 64 KiB tmpfs (ENOSPC), a file where a folder should be (ENOTDIR), a name too long
 * (ENAMETOOLONG), a folder another user owns (EACCES, as user nobody when this is
 * root). Mounting needs root, as CI has; where it is impossible those cases say so
 * loudly and skip.
 */
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ValidationError } from "sdspcaan";
import { makeSyntheticDataset } from "sdspcaan/methods";
import { dataFile, repoRoot } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkOutputFile, writeFileAtomic } from "#internal/cli/outputs.js";
import { writeAtomically } from "#internal/io/atomicWrite.js";
import { FetchError, fetchDataset } from "#internal/io/fetch.js";
import { FileAccessError, fileError } from "#internal/io/fileErrors.js";
import { appendSetAside, ResultsWriter } from "#internal/runner/resultsFile.node.js";
import { RunLock } from "#internal/runner/runLock.node.js";
import { cli, lines, writeCsv } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";

const dir = tempDir("write-errors");
const ro = join(dir, "ro");
const full = join(dir, "full");
const mounted: string[] = [];
let mountProblem: string | null = null;

function mount(target: string, options: string): void {
  mkdirSync(target);
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", options, "tmpfs", target], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr.trim() || String(r.error));
  mounted.push(target);
}

/** Fills the file system of `folder` to the last byte. */
function fill(folder: string): void {
  const filler = join(folder, "filler");
  const block = Buffer.alloc(4096, 1);
  try {
    for (;;) writeFileSync(filler, block, { flag: "a" });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
  }
}

beforeAll(() => {
  try {
    mount(ro, "ro,size=1m");
    mount(full, "size=64k");
    fill(full);
  } catch (err) {
    mountProblem = (err as Error).message;
    process.stderr.write(
      `\n${"#".repeat(78)}\n# SKIPPING the EROFS and ENOSPC cases of test/io/writeErrors.test.ts: mounting a\n# tmpfs failed (${mountProblem}). They need root, as CI has.\n${"#".repeat(78)}\n`,
    );
  }
});

afterAll(() => {
  // Lazily: a file a failed case left open must not keep the mount (or the folder).
  for (const m of mounted.reverse()) spawnSync("umount", ["-l", m]);
  removeDir(dir);
});

function needsMounts(skip: (note?: string) => void): void {
  if (mountProblem !== null) skip(`cannot mount a tmpfs: ${mountProblem}`);
}

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected an error");
}

describe("a read-only file system (EROFS)", () => {
  it("a new --out in a new folder says read-only, not 'no such file or directory'", ({ skip }) => {
    needsMounts(skip);
    const out = join(ro, "new", "model.json");
    const err = thrown(() => writeFileAtomic("--out", out, "{}\n"));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe(`Cannot write ${out} (--out): the file system is read-only (EROFS).`);
    // Said before any work: the folder above it is checked.
    expect(() => checkOutputFile("--out", join(ro, "model.json"))).toThrow(
      `Cannot write ${join(ro, "model.json")} (--out): the file system is read-only (EROFS).`,
    );
  });

  it("a report, a figure or a results file names itself", ({ skip }) => {
    needsMounts(skip);
    const table = join(ro, "run", "table.md");
    const err = thrown(() => writeAtomically(table, "| a |\n"));
    expect(err).toBeInstanceOf(FileAccessError);
    expect(err.message).toBe(
      `Cannot create the folder ${join(ro, "run")}: the file system is read-only (EROFS).`,
    );
    expect(() => writeAtomically(join(ro, "table.md"), "| a |\n")).toThrow(
      `Cannot write ${join(ro, "table.md")}: the file system is read-only (EROFS).`,
    );
    expect(() => ResultsWriter.open(join(ro, "results.jsonl"))).toThrow(
      `Cannot write ${join(ro, "results.jsonl")}: the file system is read-only (EROFS).`,
    );
    expect(() => RunLock.acquire(join(ro, "results.jsonl"))).toThrow(
      `Cannot create the lock ${join(ro, "results.jsonl.lock")}: the file system is read-only (EROFS).`,
    );
  });

  it("the command prints it in one line and exits 1", async ({ skip }) => {
    needsMounts(skip);
    const csv = join(dir, "data.csv");
    const data = makeSyntheticDataset({
      samples: 30,
      features: 6,
      classes: 3,
      signalDim: 2,
      nuisanceDim: 2,
      seed: 1,
    });
    writeCsv(csv, data.X, data.y);
    const out = join(ro, "models", "pca.json");
    const r = await cli(["fit", "--data", csv, "--method", "PCA", "--k", "2", "--out", out]);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `sdspcaan: Cannot write ${out} (--out): the file system is read-only (EROFS).`,
    ]);
  });
});

describe("a full disk (ENOSPC)", () => {
  it("names the file, and leaves neither a temporary file nor a part of it", ({ skip }) => {
    needsMounts(skip);
    const table = join(full, "table.md");
    expect(() => writeAtomically(table, "x".repeat(100_000))).toThrow(
      `Cannot write ${table}: no space left on the device (ENOSPC).`,
    );
    expect(readdirSync(full)).toEqual(["filler"]);
  });

  it("an appended results line or set-aside line is not left in part", ({ skip }) => {
    needsMounts(skip);
    // Room for the file's first page only: its first line fits, a long second does not.
    rmSync(join(full, "filler"));
    const results = join(full, "results.jsonl");
    const writer = ResultsWriter.open(results);
    const line = {
      status: "skipped" as const,
      dataset: "d",
      repeat: 0,
      method: "pca",
      k: 1,
      params: {},
      reason: "short",
      error: "ValidationError",
    };
    writer.append(line);
    fill(full);
    const before = readFileSync(results);
    expect(() => writer.append({ ...line, k: 2, reason: "y".repeat(20_000) })).toThrow(
      `Cannot write ${results}: no space left on the device (ENOSPC).`,
    );
    writer.close();
    expect(readFileSync(results).equals(before)).toBe(true);
    const rejected = join(full, "results.rejected.jsonl");
    writeFileSync(rejected, "");
    expect(() =>
      appendSetAside(rejected, [{ lineNo: 1, text: "z".repeat(20_000), reason: "bad" }]),
    ).toThrow(`Cannot write ${rejected}: no space left on the device (ENOSPC).`);
    expect(statSync(rejected).size).toBe(0);
    rmSync(results);
    rmSync(rejected);
  });

  it("a download into a full cache names the file and keeps nothing", async ({ skip }) => {
    needsMounts(skip);
    const yale = readFileSync(dataFile("Yale_32x32.mat"));
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": yale.length,
      });
      res.end(yale);
    });
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/yale`;
      const files = readdirSync(full);
      const err = await fetchDataset("yale", { dir: full, url }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(FetchError);
      expect((err as Error).message).toBe(
        `Yale: cannot write ${join(full, "Yale_32x32.mat")}: no space left on the device (ENOSPC); nothing was saved`,
      );
      expect(readdirSync(full)).toEqual(files);
      const inRo = await fetchDataset("yale", { dir: join(ro, "cache"), url }).catch(
        (e: Error) => e,
      );
      expect((inRo as Error).message).toBe(
        `Yale: Cannot create the folder ${join(ro, "cache")}: the file system is read-only (EROFS)`,
      );
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });
});

describe("other refusals of the file system", () => {
  it("ENOTDIR and ENAMETOOLONG name the file the user gave", () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    expect(() => writeAtomically(join(file, "sub", "table.md"), "x")).toThrow(
      `Cannot create the folder ${join(file, "sub")}: a part of the path is not a directory (ENOTDIR).`,
    );
    const long = join(dir, `${"n".repeat(300)}.md`);
    expect(() => writeAtomically(long, "x")).toThrow(
      `Cannot write ${long}: the name is too long (ENAMETOOLONG).`,
    );
    expect(readdirSync(dir).filter((n) => n.includes(".tmp-"))).toEqual([]);
  });

  it("EACCES: a folder the user may not write in", () => {
    const locked = join(dir, "locked");
    mkdirSync(locked);
    chmodSync(dir, 0o755);
    chmodSync(locked, 0o555);
    const target = join(locked, "table.md");
    // Root writes anywhere: the write runs as user nobody then.
    const asRoot = process.getuid?.() === 0;
    const script = `import { writeAtomically } from ${JSON.stringify(join(repoRoot, "packages/sdspcaan-cli/src/io/atomicWrite.ts"))};
try { writeAtomically(${JSON.stringify(target)}, "x"); console.log("written"); } catch (e) { console.log(e.message); }`;
    const r = spawnSync(
      process.execPath,
      ["--import", "tsx", "--input-type=module", "-e", script],
      {
        cwd: repoRoot,
        encoding: "utf8",
        ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
      },
    );
    expect(r.stdout.trim(), r.stderr).toBe(`Cannot write ${target}: permission denied (EACCES).`);
    expect(existsSync(target)).toBe(false);
  });

  it("every code reads in plain words with the file named", () => {
    const e = (code: string) => Object.assign(new Error(code), { code });
    expect((fileError(e("EEXIST"), "write", "f") as Error).message).toBe(
      "Cannot write f: it already exists (EEXIST).",
    );
    expect((fileError(e("EISDIR"), "write", "f") as Error).message).toBe(
      "Cannot write f: it is a directory (EISDIR).",
    );
    expect((fileError(e("EDQUOT"), "write", "f") as Error).message).toBe(
      "Cannot write f: the disk quota is used up (EDQUOT).",
    );
    expect((fileError(e("EWHATEVER"), "write", "f") as Error).message).toBe(
      "Cannot write f: EWHATEVER.",
    );
    const other = new ValidationError("x", "not a file error");
    expect(fileError(other, "write", "f")).toBe(other);
  });
});
