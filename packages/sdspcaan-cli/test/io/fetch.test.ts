/**
 * Downloads against an HTTP server on 127.0.0.1 started here (no test uses the
 * internet), the data lookup order, and the registry's download addresses.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ValidationError } from "sdspcaan";
import { dataFile, removeDir, repoRoot, tempDir } from "sdspcaan-test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchError, fetchDataset, sha256File } from "#internal/io/fetch.js";
import {
  dataDirectories,
  defaultCacheDir,
  locateDataFile,
  repositoryDataDir,
} from "#internal/io/locate.js";
import { DATASETS, findDataset } from "#internal/io/registry.js";

const yale = readFileSync(dataFile("Yale_32x32.mat"));
let server: Server;
let base = "";
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? "");
    if (req.url === "/good") {
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": yale.length,
      });
      res.end(yale);
    } else if (req.url === "/chunked") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      for (let o = 0; o < yale.length; o += 10_000) res.write(yale.subarray(o, o + 10_000));
      res.end();
    } else if (req.url === "/bad") {
      const b = Buffer.from(yale);
      b[5000] ^= 1;
      res.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": b.length,
      });
      res.end(b);
    } else if (req.url === "/html") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end("<!DOCTYPE html><html><body>Data page</body></html>");
    } else if (req.url === "/html-untyped") {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      res.end("<!DOCTYPE html><html><body>Data page</body></html>");
    } else {
      res.writeHead(404);
      res.end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("fetchDataset", () => {
  it("downloads, reports progress, verifies the SHA-256 and reuses a verified copy", async () => {
    const dir = tempDir("io");
    try {
      const progress: [number, number | null][] = [];
      const res = await fetchDataset("YALE", {
        dir,
        url: `${base}/good`,
        onProgress: (p) => progress.push([p.received, p.total]),
      });
      expect(res.downloaded).toBe(true);
      expect(res.path).toBe(join(dir, "Yale_32x32.mat"));
      expect(await sha256File(res.path)).toBe(findDataset("yale")?.sha256);
      expect(progress.at(-1)).toEqual([yale.length, yale.length]);
      const before = hits.length;
      const again = await fetchDataset("yale", { dir, url: `${base}/good` });
      expect(again.downloaded).toBe(false);
      expect(hits.length).toBe(before);
      expect(readdirSync(dir)).toEqual(["Yale_32x32.mat"]);
    } finally {
      removeDir(dir);
    }
  });

  it("accepts a download without Content-Length", async () => {
    const dir = tempDir("io");
    try {
      const progress: (number | null)[] = [];
      const res = await fetchDataset("yale", {
        dir,
        url: `${base}/chunked`,
        onProgress: (p) => progress.push(p.total),
      });
      expect(res.bytes).toBe(yale.length);
      expect(progress.every((t) => t === null)).toBe(true);
    } finally {
      removeDir(dir);
    }
  });

  it("refuses a checksum mismatch, an HTML page and an HTTP error, leaving nothing behind", async () => {
    const dir = tempDir("io");
    try {
      const cases: [string, RegExp][] = [
        ["/bad", /checksum mismatch.*expected SHA-256 beb3cc9f/],
        ["/html", /web page/],
        ["/html-untyped", /HTML page/],
        ["/missing", /HTTP 404/],
      ];
      for (const [path, message] of cases) {
        const err = await fetchDataset("yale", { dir, url: `${base}${path}` }).catch(
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(FetchError);
        expect((err as Error).message).toMatch(message);
        expect(readdirSync(dir)).toEqual([]);
      }
    } finally {
      removeDir(dir);
    }
  });

  it("refuses a registry address that is a web page, saying where to get the file", async () => {
    const before = hits.length;
    for (const name of ["Musk1", "clean1", "MSRA25", "Palm", "USPST", "Isolet"]) {
      const entry = findDataset(name);
      const err = await fetchDataset(name, { dir: join(tmpdir(), "sdspcaan-never-created") }).catch(
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(FetchError);
      expect((err as Error).message).toContain(entry?.url);
      expect((err as Error).message).toContain(entry?.file);
      expect((err as Error).message).toContain("web page");
    }
    expect(hits.length).toBe(before);
    expect(existsSync(join(tmpdir(), "sdspcaan-never-created"))).toBe(false);
  });

  it("refuses unknown names and non-http addresses as bad arguments", async () => {
    const dir = join(tmpdir(), "sdspcaan-never-created");
    await expect(fetchDataset("mnist", { dir })).rejects.toBeInstanceOf(ValidationError);
    await expect(fetchDataset("yale", { dir, url: "file:///etc/passwd" })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });
});

describe("the registry", () => {
  it("holds the nine data sets of Table II plus clean1.data and Fashion-MNIST, with their addresses", () => {
    expect(DATASETS.map((d) => d.name)).toEqual([
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
    ]);
    const sums = readFileSync(join(dataFile("Yale_32x32.mat"), "..", "SHA256SUMS"), "utf8");
    for (const d of DATASETS) {
      // Fashion-MNIST does not ship in data/ (test/io/idx.test.ts checks its entry).
      if (d.shipped !== false) expect(sums).toContain(`${d.sha256}  ${d.file}`);
      expect(d.urlKind).toBe(d.url.endsWith(d.file) ? "file" : "page");
      expect(d.provenance.length).toBeGreaterThan(5);
    }
    expect(findDataset("yaleb")?.url).toBe(
      "http://www.cad.zju.edu.cn/home/dengcai/Data/YaleB/YaleB_32x32.mat",
    );
    expect(findDataset("isolet")?.classes).toBe(26);
    expect(findDataset("palmdata25_uni")?.file).toBe("Palm.mat");
  });
});

describe("the data lookup order", () => {
  // (Every path below is inside a temporary folder: "shared" is a sibling of "repo" there.)
  it("is --data-dir, SDSPCAAN_DATA, the repository's data/, the shared folder beside the working directory, then the cache", () => {
    const root = tempDir("io");
    try {
      const sibling = join("work", "shared", "data");
      const dirs = ["opt", "env", join("checkout", "data"), sibling, "cache"].map((d) =>
        join(root, d),
      );
      for (const d of dirs) mkdirSync(d, { recursive: true });
      const cwd = join(root, "work", "repo");
      mkdirSync(cwd, { recursive: true });
      const options = {
        dataDir: dirs[0],
        env: { SDSPCAAN_DATA: dirs[1] },
        repositoryDir: dirs[2],
        cwd,
        cacheDir: dirs[4],
      };
      const sources = ["data-dir", "env", "repository", "shared", "cache"];
      expect(dataDirectories(options).map((d) => [d.dir, d.source])).toEqual(
        dirs.map((d, i) => [d, sources[i]]),
      );
      expect(locateDataFile("ORL_32x32.mat", options)).toBeNull();
      // Filling the folders from the last to the first, each new copy wins.
      [4, 3, 2, 1, 0].forEach((k) => {
        writeFileSync(join(dirs[k], "ORL_32x32.mat"), "x");
        expect(locateDataFile("ORL_32x32.mat", options)).toEqual({
          path: join(dirs[k], "ORL_32x32.mat"),
          source: sources[k],
        });
      });
    } finally {
      removeDir(root);
    }
  });

  it("finds the repository's data/ from the module's location, whatever the working directory", () => {
    expect(repositoryDataDir()).toBe(join(repoRoot, "data"));
    // The built module sits at the same depth: dist/io/locate.js.
    const dist = pathToFileURL(
      join(repoRoot, "packages", "sdspcaan-cli", "dist", "io", "locate.js"),
    ).href;
    expect(repositoryDataDir(dist)).toBe(join(repoRoot, "data"));
    const elsewhere = tempDir("io");
    try {
      const options = { env: {}, cwd: elsewhere, cacheDir: join(elsewhere, "cache") };
      expect(dataDirectories(options).map((d) => d.source)).toEqual([
        "repository",
        "shared",
        "cache",
      ]);
      expect(locateDataFile("Yale_32x32.mat", options)).toEqual({
        path: join(repoRoot, "data", "Yale_32x32.mat"),
        source: "repository",
      });
      // SDSPCAAN_DATA pointing at the same folder is one entry, under the earlier rule.
      const same = { ...options, env: { SDSPCAAN_DATA: join(repoRoot, "data") } };
      expect(dataDirectories(same).map((d) => d.source)).toEqual(["env", "shared", "cache"]);
    } finally {
      removeDir(elsewhere);
    }
  });

  it("caches in $XDG_CACHE_HOME/sdspcaan, else ~/.cache/sdspcaan", () => {
    expect(defaultCacheDir({ XDG_CACHE_HOME: "/tmp/xdg" })).toBe("/tmp/xdg/sdspcaan");
    expect(defaultCacheDir({})).toMatch(/[\\/]\.cache[\\/]sdspcaan$/);
  });
});
