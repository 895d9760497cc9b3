/**
 * What `sdspcaan playground`'s server answers when someone tries it: a file it
 * cannot read or that shrinks while it is sent fails that request alone (the real
 * command in a child process, which stays up and answers the next requests);
 * links inside its folder that lead out of it, and a folder reached through a
 * link; Host headers that are not a loopback name with its port (DNS rebinding);
 * methods other than GET and HEAD; and the security headers on every answer.
 */
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  CONTENT_SECURITY_POLICY,
  isLoopbackHost,
  type PlaygroundServer,
  startPlaygroundServer,
} from "#internal/cli/playgroundServer.js";
import { startCli } from "../helpers/childCli.js";
import { writePlaygroundPage } from "../helpers/playgroundPage.js";
import { removeDir, tempDir } from "../helpers/runs.js";

// Readable by everyone: the command runs as another user below when this is root.
const dir = tempDir("playground-server");
chmodSync(dir, 0o755);
const root = writePlaygroundPage(dir);
mkdirSync(join(dir, "elsewhere"));
writeFileSync(join(dir, "elsewhere", "b.js"), "outside the page\n");
// Links inside the page's folder: one to a file outside, one to a folder outside,
// one to a file inside (served).
symlinkSync(join(dir, "secret.txt"), join(root, "out.txt"));
symlinkSync("../elsewhere", join(root, "out-dir"));
symlinkSync("chunks/a.js", join(root, "in.js"));
// The page's folder reached through a link.
symlinkSync(root, join(dir, "page-link"));

const servers: PlaygroundServer[] = [];
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  removeDir(dir);
});

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** A raw request (fetch would fix up the Host and the path). */
function get(
  port: number,
  path: string,
  options: { method?: string; host?: string | null } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (options.host !== undefined && options.host !== null) headers.host = options.host;
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method: options.method ?? "GET",
        headers,
        setHost: options.host !== null,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("error", reject);
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** A request written on a bare socket (`head`: its request line and headers): the status line. */
function rawStatus(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () =>
      socket.write(`${head}\r\nConnection: close\r\n\r\n`),
    );
    let text = "";
    socket.on("data", (b: Buffer) => {
      text += b.toString("latin1");
    });
    socket.on("end", () => resolve(text.split("\r\n")[0]));
    socket.on("error", reject);
  });
}

async function serve(options: Parameters<typeof startPlaygroundServer>[0]): Promise<number> {
  const s = await startPlaygroundServer(options);
  servers.push(s);
  return Number(new URL(s.url).port);
}

describe("the playground server's Host check", () => {
  it("answers loopback names with its port and nothing else (421)", async () => {
    const port = await serve({ root, serveData: false });
    for (const host of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LocalHost:${port}`,
      `app.localhost:${port}`,
      `127.1.2.3:${port}`,
      `[::1]:${port}`,
    ]) {
      const r = await get(port, "/", { host });
      expect(r.status, host).toBe(200);
      expect(r.body, host).toContain("<title>page</title>");
    }
    for (const host of [
      "evil.com",
      `evil.com:${port}`,
      `localhost.evil.com:${port}`,
      `127.0.0.1.nip.io:${port}`,
      `localhost:${port + 1}`,
      "localhost",
      `127.0.0.256:${port}`,
      `127.1:${port}`,
      `0x7f.0.0.1:${port}`,
      `[::2]:${port}`,
      `[::ffff:7f00:1]:${port}`,
      `localhost:${port}@evil.com`,
    ]) {
      const r = await get(port, "/", { host });
      expect(r.status, host).toBe(421);
      expect(r.body, host).toBe(
        `This server answers only requests for localhost, 127.0.0.1 or [::1] on port ${port}.\n`,
      );
      expect(r.body).not.toContain("page");
    }
    // No Host at all: Node refuses HTTP/1.1 (400), the server refuses HTTP/1.0 (421).
    expect((await get(port, "/", { host: null })).status).toBe(400);
    expect(await rawStatus(port, "GET / HTTP/1.0")).toBe("HTTP/1.1 421 Misdirected Request");
    expect(await rawStatus(port, "GET / HTTP/1.1\r\nHost: ")).toBe(
      "HTTP/1.1 421 Misdirected Request",
    );
    expect(await rawStatus(port, `GET / HTTP/1.1\r\nHost: localhost:${port}`)).toBe(
      "HTTP/1.1 200 OK",
    );
  });

  it("refuses an absolute-form target that names another host, whatever the Host header", async () => {
    const port = await serve({ root, serveData: false });
    const host = `Host: localhost:${port}`;
    for (const target of [
      "http://evil.com/",
      `http://evil.com:${port}/`,
      `http://localhost:${port + 1}/`,
      "http://localhost/",
      `https://localhost:${port}/`,
      `http://me@localhost:${port}/`,
      `ftp://localhost:${port}/`,
    ]) {
      expect(await rawStatus(port, `GET ${target} HTTP/1.1\r\n${host}`), target).toBe(
        "HTTP/1.1 421 Misdirected Request",
      );
    }
    // One that names this server is served, even beside another Host header.
    for (const target of [`http://localhost:${port}/`, `HTTP://127.0.0.1:${port}/index.html`]) {
      expect(await rawStatus(port, `GET ${target} HTTP/1.1\r\nHost: evil.com`), target).toBe(
        "HTTP/1.1 200 OK",
      );
    }
  });

  it("names loopback the way browsers do", () => {
    expect(isLoopbackHost("localhost:8080", 8080)).toBe(true);
    expect(isLoopbackHost("a-b.c.localhost:8080", 8080)).toBe(true);
    expect(isLoopbackHost("127.255.255.255:8080", 8080)).toBe(true);
    expect(isLoopbackHost("localhost", 80)).toBe(true);
    expect(isLoopbackHost(undefined, 8080)).toBe(false);
    expect(isLoopbackHost("-x.localhost:8080", 8080)).toBe(false);
    expect(isLoopbackHost("127.00.0.1:8080", 8080)).toBe(false);
    expect(isLoopbackHost("localhost:08080", 8080)).toBe(true);
    expect(isLoopbackHost("localhost.:8080", 8080)).toBe(false);
  });
});

describe("what the playground server sends", () => {
  it("puts the security headers on every answer, and answers GET and HEAD only", async () => {
    const port = await serve({ root, serveData: false });
    const host = `127.0.0.1:${port}`;
    const answers = [
      await get(port, "/", { host }),
      await get(port, "/main.js", { host, method: "HEAD" }),
      await get(port, "/missing.js", { host }),
      await get(port, "/", { host: "evil.com" }),
      await get(port, "/", { host, method: "POST" }),
      await get(port, "/", { host, method: "PUT" }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 421, 405, 405]);
    expect(answers[4].headers.allow).toBe("GET, HEAD");
    for (const a of answers) {
      expect(a.headers["content-security-policy"]).toBe(CONTENT_SECURITY_POLICY);
      expect(a.headers["x-frame-options"]).toBe("DENY");
      expect(a.headers["x-content-type-options"]).toBe("nosniff");
      expect(a.headers["referrer-policy"]).toBe("no-referrer");
      expect(a.headers["cross-origin-opener-policy"]).toBe("same-origin");
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self' 'wasm-unsafe-eval'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
    expect(answers[1].headers["content-length"]).toBe("11");
    expect(answers[1].body).toBe("");
  });

  it("serves no file whose real path is outside its folder, links included", async () => {
    for (const pageRoot of [root, join(dir, "page-link")]) {
      const port = await serve({ root: pageRoot, serveData: false });
      const host = `127.0.0.1:${port}`;
      for (const path of ["/out.txt", "/out-dir/b.js", "/out-dir/", "/out-dir/../secret.txt"]) {
        const r = await get(port, path, { host });
        expect(r.status, `${pageRoot} ${path}`).toBe(404);
        expect(r.body).not.toContain("outside the page");
      }
      const inside = await get(port, "/in.js", { host });
      expect(inside.status).toBe(200);
      expect(inside.body).toBe("export const a = 1;\n");
      expect((await get(port, "/", { host })).status).toBe(200);
    }
  });
});

/** `sdspcaan playground` in a child process, as a user file permissions apply to. */
async function startCommand(pageRoot: string): Promise<{ child: ChildProcess; port: number }> {
  const asRoot = process.getuid?.() === 0;
  const { child, stdout, stderr } = startCli(
    ["playground", "--root", pageRoot, "--no-data"],
    // Root reads a file of mode 000 all the same; nobody does not.
    asRoot ? { uid: 65534, gid: 65534 } : {},
  );
  children.push(child);
  const out = () => stdout() + stderr();
  const deadline = Date.now() + 60_000;
  while (!/127\.0\.0\.1:\d+/.test(out()) && child.exitCode === null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const port = /127\.0\.0\.1:(\d+)/.exec(out())?.[1];
  if (port === undefined) throw new Error(`sdspcaan playground did not start: ${out()}`);
  return { child, port: Number(port) };
}

/** A page folder for one test, readable by the command's user: index.html and main.js. */
function pageOfItsOwn(name: string, mainJs: string): string {
  const page = join(dir, name);
  mkdirSync(page);
  chmodSync(page, 0o755);
  writeFileSync(join(page, "index.html"), "<!doctype html>\n");
  writeFileSync(join(page, "main.js"), mainJs);
  return page;
}

describe("a request that fails fails alone", () => {
  it("a file that cannot be read is a 500 amid other requests, and the server goes on", async () => {
    const page = pageOfItsOwn("unreadable", "export const ok = true;\n");
    writeFileSync(join(page, "locked.js"), "export const locked = true;\n");
    chmodSync(join(page, "locked.js"), 0o000);
    const { child, port } = await startCommand(page);
    const host = `127.0.0.1:${port}`;
    const paths = ["/main.js", "/locked.js", "/index.html", "/locked.js", "/main.js"];
    const answers = await Promise.all(
      [...paths, ...paths].map((p) => get(port, p, { host }).catch((e: Error) => e)),
    );
    for (const [i, a] of answers.entries()) {
      const path = paths[i % paths.length];
      if (path === "/locked.js") {
        expect(a, path).toMatchObject({ status: 500, body: "The file cannot be read\n" });
      } else {
        expect(a, path).toMatchObject({ status: 200 });
      }
    }
    const after = await get(port, "/main.js", { host });
    expect(after.body).toBe("export const ok = true;\n");
    expect(child.exitCode).toBe(null);
  });

  it("a file that shrinks while it is sent closes that connection; the next request is answered", async () => {
    const page = pageOfItsOwn("shrinking", "export {};\n");
    // Far more than the socket buffers hold, so most of it is still unread when it shrinks.
    const big = join(page, "big.bin");
    writeFileSync(big, Buffer.alloc(64 << 20, 7));
    const { child, port } = await startCommand(page);
    const host = `127.0.0.1:${port}`;
    // Kept alive, as browsers keep it: an answer that ended short without closing the
    // connection would leave this client waiting for the bytes it was promised.
    const agent = new Agent({ keepAlive: true });
    const outcome = await new Promise<string>((resolve) => {
      const req = request(
        { host: "127.0.0.1", port, path: "/big.bin", headers: { host }, agent },
        (res) => {
          let received = 0;
          res.once("data", (c: Buffer) => {
            received += c.length;
            res.pause();
            truncateSync(big, 0);
            res.on("data", (more: Buffer) => {
              received += more.length;
            });
            res.resume();
          });
          res.on("aborted", () => resolve(`cut short after ${received} bytes`));
          res.on("error", () => resolve(`cut short after ${received} bytes`));
          res.on("end", () => resolve(`complete: ${received} bytes`));
        },
      );
      req.on("error", () => resolve("connection error"));
      req.end();
    });
    agent.destroy();
    expect(outcome).toMatch(/^cut short after \d+ bytes$/);
    expect(Number(/\d+/.exec(outcome)?.[0])).toBeLessThan(64 << 20);
    expect((await get(port, "/main.js", { host })).body).toBe("export {};\n");
    expect(child.exitCode).toBe(null);
  });
});
