/**
 * No output destroys what is not an output: the CLI's `--out` on a character
 * device, a FIFO, a symbolic link, a block device and the command's own inputs,
 * made in a temporary directory. Device nodes need root (mknod), as in CI; the
 * test fails loudly rather than skipping when it cannot make them.
 */
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { makeSyntheticDataset } from "sdspcaan/methods";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkOutputFile } from "#internal/cli/outputs.js";
import { writeAtomically } from "#internal/io/atomicWrite.js";
import { describeFileSystemError } from "#internal/io/fileErrors.js";
import { compressRunResults } from "#internal/runner/compress.node.js";
import { ResultsWriter, rewriteResultsFile } from "#internal/runner/resultsFile.node.js";
import { readRunResults } from "#internal/runner/runResults.node.js";
import { argv, cli, lines, writeCsv } from "../helpers/cli.js";
import { removeDir, tempDir } from "../helpers/runs.js";

let dir: string;
let csv: string;
let model: string;
const data = makeSyntheticDataset({
  samples: 40,
  features: 12,
  classes: 3,
  signalDim: 3,
  nuisanceDim: 3,
  seed: 5,
});

function mknod(path: string, kind: "c" | "b", major: number, minor: number): void {
  const r = spawnSync("mknod", [path, kind, String(major), String(minor)], { encoding: "utf8" });
  if (r.status !== 0) {
    throw new Error(
      `mknod ${path} ${kind} ${major} ${minor} failed (${r.stderr.trim() || r.error?.message}); this test needs root, as CI has.`,
    );
  }
}

function mkfifo(path: string): void {
  const r = spawnSync("mkfifo", [path], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`mkfifo ${path} failed: ${r.stderr.trim()}`);
}

const transformTo = (out: string, extra: string[] = []) =>
  cli(argv`transform --model ${model} --data ${csv} --label-col last --out ${out} ${extra}`);

beforeAll(async () => {
  dir = tempDir("out-safety");
  csv = join(dir, "data.csv");
  writeCsv(csv, data.X, data.y);
  model = join(dir, "pca.json");
  const fit = await cli(["fit", "--data", csv, "--method", "PCA", "--k", "2", "--out", model]);
  expect(fit.code).toBe(0);
});
afterAll(() => removeDir(dir));

describe("--out on something that is not a regular file", () => {
  it("a full device reports the error and stays a device", async () => {
    const full = join(dir, "full");
    mknod(full, "c", 1, 7); // the same device as /dev/full
    const r = await transformTo(full);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toHaveLength(1);
    expect(r.stderr).toMatch(
      /Cannot write .*full \(--out\): no space left on the device \(ENOSPC\)\./,
    );
    expect(r.stdout).not.toMatch(/Wrote/);
    expect(lstatSync(full).isCharacterDevice()).toBe(true);
  });

  it("a null device takes the output and stays a device", async () => {
    const nul = join(dir, "null");
    mknod(nul, "c", 1, 3); // /dev/null
    const r = await transformTo(nul);
    expect(r.code).toBe(0);
    expect(lstatSync(nul).isCharacterDevice()).toBe(true);
  });

  it("a FIFO's reader gets the embedding and the FIFO stays", async () => {
    const fifo = join(dir, "pipe");
    mkfifo(fifo);
    const reader = spawn("cat", [fifo]);
    let got = "";
    reader.stdout.on("data", (chunk: Buffer) => {
      got += chunk.toString("utf8");
    });
    const closed = new Promise<number | null>((done) => reader.on("close", done));
    // Were the FIFO never opened for writing, cat would wait for ever.
    const guard = setTimeout(() => reader.kill(), 20_000);
    const r = await transformTo(fifo);
    clearTimeout(guard);
    expect(await closed).toBe(0);
    expect(r.code).toBe(0);
    expect(lines(got)[0]).toBe("c1,c2,label");
    expect(lines(got)).toHaveLength(41);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it("a symbolic link is written through and stays a link", async () => {
    const target = join(dir, "target.csv");
    writeFileSync(target, "old\n");
    const link = join(dir, "link.csv");
    symlinkSync("target.csv", link);
    const r = await transformTo(link);
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readlinkSync(link)).toBe("target.csv");
    expect(lines(readFileSync(target, "utf8"))[0]).toBe("c1,c2,label");
  });

  it("a link to a file not yet there creates the file and keeps the link", async () => {
    const link = join(dir, "dangling.csv");
    symlinkSync("made-by-link.csv", link);
    const r = await transformTo(link);
    expect(r.code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(lines(readFileSync(join(dir, "made-by-link.csv"), "utf8"))).toHaveLength(41);
  });

  it("a block device is refused and left alone", async () => {
    const block = join(dir, "block");
    mknod(block, "b", 7, 200); // a loop device number; nothing is opened
    const r = await transformTo(block);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/Refusing to write .*block: it is a block device \(--out\)\./);
    expect(lstatSync(block).isBlockDevice()).toBe(true);
  });

  it("a loop of links is refused", async () => {
    symlinkSync("loop-b", join(dir, "loop-a"));
    symlinkSync("loop-a", join(dir, "loop-b"));
    const r = await transformTo(join(dir, "loop-a"));
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/loop of symbolic links/);
  });

  it("a regular file is replaced with its permissions kept", async () => {
    const out = join(dir, "kept-mode.csv");
    writeFileSync(out, "old\n");
    chmodSync(out, 0o640);
    const r = await transformTo(out);
    expect(r.code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o640);
    expect(lines(readFileSync(out, "utf8"))).toHaveLength(41);
  });
});

describe("--out naming one of the command's own inputs", () => {
  it("transform refuses to overwrite its --data, however it is named", async () => {
    const before = readFileSync(csv);
    const hard = join(dir, "hard-link.csv");
    linkSync(csv, hard);
    const soft = join(dir, "soft-link.csv");
    symlinkSync(csv, soft);
    for (const out of [csv, hard, soft]) {
      const r = await transformTo(out);
      expect(r.code).toBe(1);
      expect(lines(r.stderr)).toHaveLength(1);
      expect(r.stderr).toMatch(/it is this command's input .*data\.csv \(--data\) \(--out\)\./);
    }
    expect(readFileSync(csv).equals(before)).toBe(true);
  });

  it("transform refuses to overwrite its --model", async () => {
    const before = readFileSync(model, "utf8");
    const r = await transformTo(model);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\(--model\)/);
    expect(readFileSync(model, "utf8")).toBe(before);
  });

  it("fit refuses to write its model over its training data, before fitting", async () => {
    const before = readFileSync(csv);
    const r = await cli(["fit", "--data", csv, "--method", "PCA", "--k", "2", "--out", csv]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/input .*data\.csv \(--data\)/);
    expect(r.stdout).not.toMatch(/Fitted/);
    expect(readFileSync(csv).equals(before)).toBe(true);
  });

  it("plot embedding refuses a figure path that is its --embedding", async () => {
    const emb = join(dir, "emb.csv");
    expect((await transformTo(emb)).code).toBe(0);
    symlinkSync(emb, join(dir, "fig.svg"));
    const before = readFileSync(emb, "utf8");
    const r = await cli(["plot", "embedding", "--embedding", emb, "--out", join(dir, "fig")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\(--embedding\)/);
    expect(readFileSync(emb, "utf8")).toBe(before);
  });
});

describe("files a run keeps must stay regular files", () => {
  it("a results file that is a FIFO or a device is refused, not opened", () => {
    const fifo = join(dir, "results-fifo.jsonl");
    mkfifo(fifo);
    // Opening a FIFO for appending would block until a reader came: refused instead.
    expect(() => ResultsWriter.open(fifo)).toThrow(/not a regular file/);
    expect(() => rewriteResultsFile(fifo, ["{}"])).toThrow(/not a regular file/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });

  it("a results file reached through a link is rewritten at its target", () => {
    const target = join(dir, "real-results.jsonl");
    writeFileSync(target, "a\n");
    const link = join(dir, "linked-results.jsonl");
    symlinkSync(target, link);
    rewriteResultsFile(link, ["b", "c"]);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, "utf8")).toBe("b\nc\n");
  });

  it("a compressed results file that is a FIFO is refused by readers and compress, not opened", () => {
    const run = join(dir, "fifo-run");
    mkdirSync(run);
    const fifo = join(run, "results.jsonl.gz");
    mkfifo(fifo);
    // Reading a FIFO would wait for a writer for ever: refused instead.
    expect(() => readRunResults(run)).toThrow(/results\.jsonl\.gz: not a regular file/);
    writeFileSync(join(run, "results.jsonl"), "");
    expect(() => compressRunResults(run)).toThrow(/results\.jsonl\.gz is not a regular file/);
    expect(lstatSync(fifo).isFIFO()).toBe(true);
    expect(readFileSync(join(run, "results.jsonl"), "utf8")).toBe("");
  });

  it("lines are never appended to, nor rewritten as, a compressed results file", () => {
    const gz = join(dir, "results.jsonl.gz");
    expect(() => ResultsWriter.open(gz)).toThrow(/is a compressed results file/);
    expect(() => rewriteResultsFile(gz, ["{}"])).toThrow(/is a compressed results file/);
    expect(existsSync(gz)).toBe(false);
  });

  it("writeAtomically refuses a directory and leaves no temporary file", () => {
    expect(() => writeAtomically(dir, "x")).toThrow(/it is a directory/);
    const left = spawnSync("sh", ["-c", `ls -a '${dir}' | grep -c '\\.tmp-' || true`], {
      encoding: "utf8",
    });
    expect(left.stdout.trim()).toBe("0");
  });
});

/**
 * Why creating a file, and a folder, in `folder` fails ("permission denied (EACCES)"), or
 * null when the folder is missing or either can be created there (what was made is removed).
 */
function refusals(folder: string): { file: string; folder: string } | null {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return null;
  const probe = join(folder, `sdspcaan-test-${process.pid}`);
  const why: string[] = [];
  for (const make of [() => closeSync(openSync(probe, "wx")), () => mkdirSync(probe)]) {
    try {
      make();
    } catch (err) {
      why.push(describeFileSystemError(err) ?? String(err));
      continue;
    }
    rmSync(probe, { recursive: true, force: true });
    return null;
  }
  return { file: why[0], folder: why[1] };
}

describe("--out is checked before any work", () => {
  // Linux's /sys is a folder that refuses new files even to root, whose permissions
  // allow anything: only creating one shows it (CI runs as root).
  const sys = refusals("/sys");

  it.skipIf(sys === null)(
    "a folder that refuses new files is said before --data is read (needs Linux's /sys)",
    async () => {
      const missing = join(dir, "not-there.csv");
      const fit = (out: string) => cli(argv`fit --data ${missing} --method pca --k 2 --out ${out}`);
      expect(await fit("/sys/sdspcaan-model.json")).toEqual({
        code: 1,
        stdout: "",
        stderr: `sdspcaan: Cannot write /sys/sdspcaan-model.json (--out): ${sys?.file}.\n`,
      });
      // In a folder the write would make there, the folder is what cannot be created.
      expect(await fit("/sys/sdspcaan-new/model.json")).toEqual({
        code: 1,
        stdout: "",
        stderr: `sdspcaan: Cannot write /sys/sdspcaan-new/model.json (--out): ${sys?.folder}.\n`,
      });
    },
  );

  it("leaves nothing behind and touches nothing that exists", () => {
    const folder = join(dir, "checked");
    mkdirSync(folder);
    const existing = join(folder, "existing.csv");
    writeFileSync(existing, "old\n");
    const before = statSync(existing);
    const link = join(folder, "link.csv");
    symlinkSync("existing.csv", link);
    const fifo = join(folder, "fifo");
    mkfifo(fifo);
    const listing = readdirSync(folder).sort();
    // A FIFO opened for writing would wait for a reader: the check returning says it was not.
    for (const out of ["new.csv", "existing.csv", "link.csv", "fifo", "sub/deeper/x.csv"]) {
      checkOutputFile("--out", join(folder, out));
    }
    expect(readdirSync(folder).sort()).toEqual(listing);
    const after = statSync(existing);
    expect([after.ino, after.mtimeMs, after.ctimeMs]).toEqual([
      before.ino,
      before.mtimeMs,
      before.ctimeMs,
    ]);
    expect(readFileSync(existing, "utf8")).toBe("old\n");
    expect(readlinkSync(link)).toBe("existing.csv");
    expect(lstatSync(fifo).isFIFO()).toBe(true);
  });
});
