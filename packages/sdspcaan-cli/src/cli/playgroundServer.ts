/**
 * The static server behind `sdspcaan playground`: the built page (dist/playground)
 * on 127.0.0.1 with node:http, nothing computed on the server. It adds what a
 * static host cannot: the data sets of the paper found in the local data
 * directories (--data-dir, $SDSPCAAN_DATA, the repository's data/, ../shared/data, the cache) are listed in
 * /datasets.json and served from /data/, and the page is served cross-origin
 * isolated (COOP/COEP), so Cancel reaches a busy fit through shared memory.
 *
 * What it answers, as a server on a desktop that any web page could aim at:
 * - only requests whose Host is a loopback name with the server's port
 *   (localhost, *.localhost, 127.x.y.z, [::1]); any other (a DNS-rebinding page
 *   whose own name now points at 127.0.0.1) gets 421 and nothing else;
 * - only GET and HEAD (405 otherwise);
 * - only regular files whose real path (links followed) is inside the page's
 *   folder, or the data sets it lists; anything else is 404;
 * - every answer carries a Content-Security-Policy (the page's own scripts, its
 *   worker and WebAssembly, nothing from elsewhere), X-Frame-Options DENY,
 *   X-Content-Type-Options nosniff and Referrer-Policy no-referrer;
 * - a request that fails fails alone: a file that cannot be opened is a 500, one
 *   that changes size while it is sent closes that connection, and the server
 *   answers the next request.
 */
import { existsSync, constants as fsConstants, readFileSync, statSync } from "node:fs";
import { open, realpath } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ValidationError } from "sdspcaan";
import type { ManifestEntry } from "sdspcaan/formats";
import { type LocateOptions, locateDataFile } from "../io/locate.js";
import { DATASETS } from "../io/registry.js";

/**
 * What the page may load: its own scripts and worker (module workers from the same
 * origin), WebAssembly compiled from bytes (the kernels, h5wasm), fetches of its
 * own files, the data: favicon and canvas images; nothing from elsewhere, no inline
 * script or style, no framing, no forms.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * Whether the Host header `host` names this server on loopback: localhost or a
 * name under .localhost (which browsers resolve to loopback themselves), an IPv4
 * address in 127.0.0.0/8 or [::1], with `port` (given, or 80 when absent).
 */
export function isLoopbackHost(host: string | undefined, port: number): boolean {
  if (host === undefined) return false;
  const m = /^(\[[^\]]*\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host.toLowerCase());
  if (m === null) return false;
  if ((m[2] === undefined ? 80 : Number(m[2])) !== port) return false;
  const name = m[1];
  if (name === "localhost" || name === "[::1]") return true;
  if (/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+localhost$/.test(name)) return true;
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(name);
  if (v4 === null) return false;
  return v4.slice(1).every((p) => /^(0|[1-9]\d*)$/.test(p) && Number(p) <= 255);
}

const MIME: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".wasm": "application/wasm",
};

/** Formats the page reads (text formats need a label column the page cannot guess). */
const SERVABLE = new Set(["mat-v5", "mat-v7.3"]);

/** The built page next to the compiled CLI: dist/cli/ -> dist/playground/. */
export function defaultPlaygroundRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "..", "playground");
}

/**
 * The manifest of the registry's data sets; `served` gives the URL and size of those
 * the page can fetch.
 */
export function manifestFor(
  served: ReadonlyMap<string, { url: string; bytes: number }>,
): ManifestEntry[] {
  return DATASETS.map((d) => {
    const s = served.get(d.name) ?? null;
    return {
      name: d.name,
      file: d.file,
      aliases: [...d.aliases],
      xVar: d.xVar,
      yVar: d.yVar,
      labelColumn: d.labelColumn ?? null,
      url: s?.url ?? null,
      bytes: s?.bytes ?? null,
    };
  });
}

export interface PlaygroundServerOptions extends LocateOptions {
  /** The built page; default dist/playground next to the CLI. */
  readonly root?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Serve the paper's data sets found in the data directories (default true). */
  readonly serveData?: boolean;
  /**
   * Send the COOP/COEP headers that make the page cross-origin isolated (default
   * true). Without them the page behaves as on a plain static host: Cancel ends the
   * worker instead of signalling it.
   */
  readonly isolated?: boolean;
}

export interface PlaygroundServer {
  readonly url: string;
  readonly server: Server;
  /** The registry data sets offered from the data directories, by name. */
  readonly datasets: readonly string[];
  close(): Promise<void>;
}

function staticManifest(root: string): ManifestEntry[] {
  const file = join(root, "datasets.json");
  if (!existsSync(file)) return manifestFor(new Map());
  return JSON.parse(readFileSync(file, "utf8")) as ManifestEntry[];
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { "Content-Type": "text/plain; charset=utf-8" }).end(text);
}

function notFound(res: ServerResponse): void {
  plain(res, 404, "Not found\n");
}

/**
 * Sends the regular file `real` (its links already followed): opened without
 * following a link or waiting on a FIFO, checked on the open descriptor, and sent
 * with the length it had then. A file that cannot be opened is a 404 when it is
 * gone and a 500 otherwise; a read that fails, or a file that shrinks meanwhile,
 * closes the connection (the client sees the answer cut short), so no answer ever
 * claims bytes it did not send.
 */
async function sendFile(req: IncomingMessage, res: ServerResponse, real: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(
      real,
      fsConstants.O_RDONLY | fsConstants.O_NOFOLLOW | fsConstants.O_NONBLOCK,
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") notFound(res);
    else plain(res, 500, "The file cannot be read\n");
    return;
  }
  let size: number;
  try {
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      notFound(res);
      return;
    }
    size = st.size;
  } catch {
    await handle.close().catch(() => undefined);
    plain(res, 500, "The file cannot be read\n");
    return;
  }
  res.writeHead(200, {
    "Content-Type": MIME[extname(real).toLowerCase()] ?? "application/octet-stream",
    "Content-Length": size,
    "Cache-Control": "no-cache",
  });
  if (req.method === "HEAD" || size === 0) {
    await handle.close();
    res.end();
    return;
  }
  const stream = handle.createReadStream({ start: 0, end: size - 1 });
  let sent = 0;
  stream.on("data", (chunk: string | Buffer) => {
    sent += chunk.length;
  });
  stream.on("error", () => res.destroy());
  stream.on("end", () => {
    if (sent === size) res.end();
    else res.destroy();
  });
  // A client that goes away ends the read (and closes the file).
  res.on("close", () => stream.destroy());
  stream.pipe(res, { end: false });
}

/** Starts the server on 127.0.0.1; resolves once it listens. */
export async function startPlaygroundServer(
  options: PlaygroundServerOptions = {},
): Promise<PlaygroundServer> {
  const root = resolve(options.root ?? defaultPlaygroundRoot());
  if (!existsSync(join(root, "index.html")) || !existsSync(join(root, "main.js"))) {
    throw new ValidationError(
      "root",
      `The playground is not built: ${root} has no index.html and main.js. The sdspcaan-cli package's build makes it (its dist/playground): run 'npm run build' in the sdspcaan repository, or give --root a built playground folder.`,
    );
  }
  const port = options.port ?? 0;
  // Data sets found locally, served under data/ (those built into the page stay as they are).
  const local = new Map<string, string>();
  const served = new Map<string, { url: string; bytes: number }>();
  for (const entry of staticManifest(root)) {
    if (entry.url !== null && entry.bytes !== null) {
      served.set(entry.name, { url: entry.url, bytes: entry.bytes });
    }
  }
  if (options.serveData !== false) {
    const { dataDir, env, cwd, repositoryDir, cacheDir, systemDirs } = options;
    const locate: LocateOptions = { dataDir, env, cwd, repositoryDir, cacheDir, systemDirs };
    for (const d of DATASETS) {
      if (!SERVABLE.has(d.format) || served.has(d.name)) continue;
      const found = locateDataFile(d.file, locate);
      if (found === null) continue;
      local.set(d.file, found.path);
      served.set(d.name, { url: `data/${d.file}`, bytes: statSync(found.path).size });
    }
  }
  const manifest = `${JSON.stringify(manifestFor(served), null, 2)}\n`;

  const realRoot = await realpath(root);
  let boundPort = -1;
  const server = createServer((req, res) => {
    answer(req, res).catch(() => {
      // Whatever went wrong, this request alone fails.
      if (!res.headersSent) plain(res, 500, "Internal server error\n");
      else res.destroy();
    });
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.isolated !== false) {
      // Cross-origin isolation gives the page SharedArrayBuffer (the Cancel flag).
      res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
      res.setHeader("Cross-Origin-Embedder-Policy", "require-corp");
      res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    }
    res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    // An absolute-form target (GET http://host:port/ HTTP/1.1, as to a proxy) names the
    // server itself, and its authority replaces the Host header (RFC 9112, 3.2.2).
    const target = req.url ?? "/";
    let authority = req.headers.host;
    if (!target.startsWith("/")) {
      const absolute = URL.canParse(target) ? new URL(target) : null;
      authority =
        absolute !== null &&
        absolute.protocol === "http:" &&
        absolute.username === "" &&
        absolute.password === ""
          ? // URL drops a default port: the authority as written is what is checked.
            target.slice("http://".length).split(/[/?#]/)[0]
          : undefined;
    }
    if (!isLoopbackHost(authority, boundPort)) {
      plain(
        res,
        421,
        `This server answers only requests for localhost, 127.0.0.1 or [::1] on port ${boundPort}.\n`,
      );
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.setHeader("Allow", "GET, HEAD");
      plain(res, 405, "Method not allowed\n");
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(target, "http://localhost").pathname);
    } catch {
      plain(res, 400, "Bad request\n");
      return;
    }
    if (path === "/datasets.json") {
      res.writeHead(200, { "Content-Type": MIME[".json"], "Cache-Control": "no-cache" });
      res.end(req.method === "HEAD" ? undefined : manifest);
      return;
    }
    let file: string | undefined;
    let inRoot = false;
    if (path.startsWith("/data/") && local.has(path.slice(6))) {
      file = local.get(path.slice(6));
    } else if (!path.includes("\0")) {
      const candidate = resolve(root, `.${path.endsWith("/") ? `${path}index.html` : path}`);
      if (candidate === root || candidate.startsWith(root + sep)) {
        file = candidate;
        inRoot = true;
      }
    }
    const real = file === undefined ? null : await realpath(file).catch(() => null);
    // Nothing outside the page's folder, also through a link inside it.
    if (real === null || (inRoot && !real.startsWith(realRoot + sep))) {
      notFound(res);
      return;
    }
    await sendFile(req, res, real);
  }

  await new Promise<void>((ok, fail) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      fail(
        err.code === "EADDRINUSE"
          ? new ValidationError(
              "port",
              `Port ${port} on 127.0.0.1 is in use; choose another with --port, or 0 for a free one.`,
            )
          : err,
      );
    });
    server.listen(port, "127.0.0.1", () => ok());
  });
  const address = server.address() as AddressInfo;
  boundPort = address.port;
  return {
    url: `http://127.0.0.1:${address.port}/`,
    server,
    datasets: [...served.keys()],
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
