/**
 * `sdspcaan playground`'s static server: the page's files with the right types and
 * the cross-origin isolation headers, the paper's data sets found locally listed and
 * served, nothing outside the page's folder, and the command itself (prints the
 * address, stops on SIGTERM, refuses a port in use and an unbuilt page in one line).
 * The page itself is tested in a browser by test/e2e/.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { request } from "node:http";
import { join, relative, sep } from "node:path";
import { ValidationError } from "sdspcaan";
import { dataDir, dataFile, repoRoot } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";
import {
  defaultPlaygroundRoot,
  type PlaygroundServer,
  startPlaygroundServer,
} from "#internal/cli/playgroundServer.js";
import { startCli } from "../../helpers/childCli.js";
import { writePlaygroundPage } from "../../helpers/playgroundPage.js";
import { removeDir, tempDir } from "../../helpers/runs.js";

const dir = tempDir("playground");
const root = writePlaygroundPage(dir);
const servers: PlaygroundServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  removeDir(dir);
});

/** A raw GET (fetch would normalise '..' away before sending). */
function get(
  url: string,
  path: string,
  method = "GET",
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, path, method }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

async function serve(
  options: Parameters<typeof startPlaygroundServer>[0],
): Promise<PlaygroundServer> {
  const s = await startPlaygroundServer(options);
  servers.push(s);
  return s;
}

describe("the playground server", () => {
  it("serves the page on 127.0.0.1, cross-origin isolated, with content types", async () => {
    const s = await serve({ root, dataDir: dataDir() });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const index = await get(s.url, "/");
    expect(index.status).toBe(200);
    expect(index.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(index.headers["cross-origin-opener-policy"]).toBe("same-origin");
    expect(index.headers["cross-origin-embedder-policy"]).toBe("require-corp");
    const chunk = await get(s.url, "/chunks/a.js");
    expect(chunk.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(chunk.body.toString()).toBe("export const a = 1;\n");
    expect((await get(s.url, "/missing.js")).status).toBe(404);
    expect((await get(s.url, "/", "POST")).status).toBe(405);
  });

  it("never serves a file outside the page's folder", async () => {
    const s = await serve({ root, serveData: false });
    for (const path of [
      "/../secret.txt",
      "/..%2fsecret.txt",
      "/chunks/../../secret.txt",
      "/%2e%2e/secret.txt",
    ]) {
      const r = await get(s.url, path);
      expect(r.status, path).toBe(404);
      expect(r.body.toString()).not.toContain("outside the page");
    }
  });

  it("lists the paper's data sets found locally and serves those files", async () => {
    const s = await serve({ root, dataDir: dataDir() });
    expect(s.datasets).toContain("Yale");
    expect(s.datasets).toContain("Musk1");
    // Text files need a label column the page cannot guess from the registry alone.
    expect(s.datasets).not.toContain("clean1");
    const manifest = JSON.parse((await get(s.url, "/datasets.json")).body.toString());
    const yale = manifest.find((d: { name: string }) => d.name === "Yale");
    expect(yale).toMatchObject({
      file: "Yale_32x32.mat",
      xVar: "fea",
      yVar: "gnd",
      url: "data/Yale_32x32.mat",
    });
    const file = await get(s.url, `/${yale.url}`);
    expect(file.status).toBe(200);
    expect(file.body.equals(readFileSync(dataFile("Yale_32x32.mat")))).toBe(true);
    expect(yale.bytes).toBe(statSync(dataFile("Yale_32x32.mat")).size);
    const none = await serve({ root, serveData: false });
    expect(none.datasets).toEqual([]);
    expect((await get(none.url, "/data/Yale_32x32.mat")).status).toBe(404);
  });

  it("refuses a folder without a built page, and a port in use", async () => {
    await expect(startPlaygroundServer({ root: dir })).rejects.toThrow(ValidationError);
    await expect(startPlaygroundServer({ root: dir })).rejects.toThrow(/not built.*npm run build/);
    const s = await serve({ root, serveData: false });
    const port = Number(new URL(s.url).port);
    await expect(startPlaygroundServer({ root, port, serveData: false })).rejects.toThrow(
      /Port \d+ on 127.0.0.1 is in use/,
    );
  });
});

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.on("exit", (code) => resolve(code)));
}

describe("the published page", () => {
  it("is built into dist/playground, next to the compiled CLI, which the package publishes", () => {
    const pkg = JSON.parse(
      readFileSync(join(repoRoot, "packages", "sdspcaan-cli", "package.json"), "utf8"),
    );
    expect(pkg.files).toContain("dist");
    expect(pkg.scripts.build).toContain("scripts/build-playground.ts");
    // From dist/cli/playgroundServer.js the default root is dist/playground.
    expect(
      relative(join(repoRoot, "packages", "sdspcaan-cli", "src", "cli"), defaultPlaygroundRoot()),
    ).toBe("../playground".replace("/", sep));
  });
});

describe("sdspcaan playground", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const)("prints the address, serves until %s, then exits %i", async (signal, code) => {
    const { child, stdout, stderr } = startCli(["playground", "--root", root, "--no-data"]);
    const done = exited(child);
    const deadline = Date.now() + 60_000;
    while (!/http:\/\/127\.0\.0\.1:\d+\//.test(stdout()) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(stdout())?.[0];
    expect(url).toBeDefined();
    expect(stdout()).toMatch(
      /^sdspcaan playground: serving http:\/\/127\.0\.0\.1:\d+\/ \(data sets of the paper: none\)/,
    );
    expect((await get(url as string, "/")).status).toBe(200);
    child.kill(signal);
    expect(await done).toBe(code);
    expect(stderr()).toBe("");
  });

  it("refuses an unbuilt page and a bad port in one line, exit code 1", async () => {
    for (const args of [
      ["playground", "--root", dir],
      ["playground", "--root", root, "--port", "70000"],
    ]) {
      const { child, stderr } = startCli(args);
      expect(await exited(child)).toBe(1);
      const lines = stderr().trim().split("\n");
      expect(lines.length, stderr()).toBe(1);
      expect(lines[0]).toMatch(/^sdspcaan: (The playground is not built|The .--port. option)/);
      if (args.length === 3) {
        expect(lines[0]).toBe(
          `sdspcaan: The playground is not built: ${dir} has no index.html and main.js. The sdspcaan-cli package's build makes it (its dist/playground): run 'npm run build' in the sdspcaan repository, or give --root a built playground folder.`,
        );
      }
      expect(stderr()).not.toMatch(/\n\s+at /);
    }
  });
});
