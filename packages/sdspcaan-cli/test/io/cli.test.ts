/**
 * `sdspcaan datasets list | info | fetch` end to end through runCli, with stdout
 * and stderr captured.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { basename, join } from "node:path";
import { dataFile, fixtureFile, removeDir, repoRoot, tempDir } from "sdspcaan-test-support";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runCli } from "#internal/cli/main.js";
import { DATASETS } from "#internal/io/registry.js";

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const o = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    out.push(String(chunk));
    return true;
  });
  const e = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    err.push(String(chunk));
    return true;
  });
  try {
    const code = await runCli(args);
    return { code, stdout: out.join(""), stderr: err.join("") };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}

const temps: string[] = [];
function scratchDir(): string {
  const d = tempDir("cli");
  temps.push(d);
  return d;
}
afterEach(() => {
  for (const d of temps.splice(0)) removeDir(d);
});

describe("sdspcaan datasets", () => {
  it("list prints every data set and where it is found, --data-dir first", async () => {
    const dir = scratchDir();
    copyFileSync(dataFile("ORL_32x32.mat"), join(dir, "ORL_32x32.mat"));
    const r = await cli(["datasets", "list", "--data-dir", dir]);
    expect(r.code).toBe(0);
    for (const name of [
      "Musk1",
      "clean1",
      "MSRA25",
      "Palm",
      "USPST",
      "Isolet",
      "Yale",
      "ORL",
      "COIL20",
      "YaleB",
      "FashionMNIST",
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^${name}\\s`, "m"));
    }
    expect(r.stdout).toContain(`${join(dir, "ORL_32x32.mat")} (data-dir)`);
    const json = await cli(["datasets", "list", "--json", "--data-dir", dir]);
    const rows = JSON.parse(json.stdout) as { name: string; source: string | null }[];
    expect(rows.find((x) => x.name === "ORL")?.source).toBe("data-dir");
    expect(rows).toHaveLength(11);
  });

  it("list finds every shipped data set in the repository's data/ when nothing else is given", async () => {
    vi.stubEnv("SDSPCAAN_DATA", "");
    try {
      const r = await cli(["datasets", "list", "--json"]);
      expect(r.code).toBe(0);
      const rows = JSON.parse(r.stdout) as { name: string; path: string; source: string }[];
      const shipped = new Set(DATASETS.filter((d) => d.shipped !== false).map((d) => d.name));
      expect(rows.filter((row) => shipped.has(row.name))).toHaveLength(shipped.size);
      for (const row of rows) {
        if (!shipped.has(row.name)) {
          // Fashion-MNIST: wherever this machine has it, never in data/.
          expect(row.source, row.name).not.toBe("repository");
          continue;
        }
        expect(row.source, row.name).toBe("repository");
        expect(row.path).toBe(join(repoRoot, "data", basename(row.path)));
      }
      const text = await cli(["datasets", "list"]);
      expect(text.stdout).toContain(`${join(repoRoot, "data", "Yale_32x32.mat")} (repository)`);
      expect(text.stdout).toMatch(/searched, in order: .*data \(repository\)/);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("info --json gives samples, features, classes, class counts and format", async () => {
    const r = await cli(["datasets", "info", "yale", "--json"]);
    expect(r.code).toBe(0);
    const info = JSON.parse(r.stdout);
    expect(info).toMatchObject({
      name: "Yale",
      samples: 165,
      features: 1024,
      classes: 15,
      format: "mat-v5",
      compressed: true,
      xVar: "fea",
      yVar: "gnd",
      min: 0,
      max: 255,
      checksum: "ok",
      imageShape: [32, 32],
    });
    expect(Object.values(info.classCounts)).toEqual(Array(15).fill(11));
  });

  it("info accepts registry names in any case and prints a readable summary", async () => {
    const r = await cli(["datasets", "info", "ISOLET"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("1560 samples x 617 features");
    expect(r.stdout).toContain("26 classes");
    expect(r.stdout).toContain("matches the registry");
    const musk = await cli(["datasets", "info", "Musk1", "--json"]);
    expect(JSON.parse(musk.stdout)).toMatchObject({
      samples: 476,
      features: 166,
      classes: 2,
      classCounts: { "0": 269, "1": 207 },
      format: "mat-v7.3",
    });
  });

  it("info reads a file path with the variable and column options", async () => {
    const csv = await cli([
      "datasets",
      "info",
      fixtureFile("io/rt_header.csv"),
      "--label-column",
      "label",
      "--json",
    ]);
    expect(csv.code).toBe(0);
    expect(JSON.parse(csv.stdout)).toMatchObject({
      name: null,
      samples: 6,
      features: 4,
      classes: 3,
      classCounts: { cat: 2, dog: 2, emu: 2 },
      format: "csv",
      checksum: null,
    });
    const mat = await cli([
      "datasets",
      "info",
      fixtureFile("io/rt_types_z.mat"),
      "--x-var",
      "d_int16",
      "--y-var",
      "gnd",
      "--json",
    ]);
    expect(JSON.parse(mat.stdout)).toMatchObject({
      samples: 6,
      features: 4,
      min: -32768,
      max: 32767,
    });
  });

  it("fails with one line and a non-zero code on unknown names, corrupt files and bad options", async () => {
    const dir = scratchDir();
    const broken = join(dir, "broken.mat");
    writeFileSync(broken, readFileSync(dataFile("Yale_32x32.mat")).subarray(0, 5000));
    const cases: [string[], RegExp][] = [
      [["datasets", "info", "mnist"], /neither a file nor a data set of the registry/],
      [["datasets", "info", broken], /broken\.mat: variable 1 .*truncated or corrupt/],
      [["datasets", "info", fixtureFile("io/rt_special.mat"), "--x-var", "sp"], /sparse/],
      [["datasets", "info", fixtureFile("io/rt_ambiguous.mat")], /fea\/gnd, X\/Y/],
      [["datasets", "info", "yale", "--format", "xls"], /--format must be one of/],
      [["datasets", "fetch", "palm", "--dir", dir], /web page rather than the file/],
    ];
    for (const [args, message] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.startsWith("sdspcaan: ")).toBe(true);
      expect(r.stderr.trim().split("\n")).toHaveLength(1);
    }
  });

  it("every sub-command has --help", async () => {
    for (const args of [
      ["datasets", "--help"],
      ["datasets", "list", "--help"],
      ["datasets", "info", "--help"],
      ["datasets", "fetch", "--help"],
    ]) {
      const r = await cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Usage: sdspcaan datasets");
    }
  });

  it("fetch downloads from a local server with plain progress lines and refuses a bad checksum", async () => {
    const yale = readFileSync(dataFile("Yale_32x32.mat"));
    const server = createServer((req, res) => {
      const body = req.url === "/bad" ? Buffer.concat([yale, Buffer.from([0])]) : yale;
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": body.length,
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const dir = scratchDir();
      const ok = await cli(["datasets", "fetch", "Yale", "--dir", dir, "--url", `${base}/good`]);
      expect(ok.code).toBe(0);
      expect(ok.stdout).toContain("SHA-256 verified");
      expect(ok.stderr).toContain("fetch Yale: 157.3 KiB of 157.3 KiB (100%)");
      const again = await cli(["datasets", "fetch", "yale", "--dir", dir]);
      expect(again.stdout).toContain("already there");
      const bad = await cli([
        "datasets",
        "fetch",
        "yale",
        "--dir",
        scratchDir(),
        "--url",
        `${base}/bad`,
        "--force",
      ]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^sdspcaan: Yale: checksum mismatch/m);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
