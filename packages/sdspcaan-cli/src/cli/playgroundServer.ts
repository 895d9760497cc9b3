/**
 * The static server behind `sdspcaan playground`: the built page (dist/playground)
 * on 127.0.0.1 with node:http, nothing computed on the server. It adds what a
 * static host cannot: the data sets of the paper found in the local data
 * directories (--data-dir, $SDSPCAAN_DATA, the repository's data/, ../shared/data, the cache) are listed in
 * /datasets.json and served from /data/, and the page is served cross-origin
 * isolated (COOP/COEP), so Cancel reaches a busy fit through shared memory.
 */
import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, extname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ValidationError } from "sdspcaan";
import type { ManifestEntry } from "sdspcaan/formats";
import { type LocateOptions, locateDataFile } from "../io/locate.js";
import { DATASETS } from "../io/registry.js";

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

/** Starts the server on 127.0.0.1; resolves once it listens. */
export async function startPlaygroundServer(
  options: PlaygroundServerOptions = {},
): Promise<PlaygroundServer> {
  const root = resolve(options.root ?? defaultPlaygroundRoot());
  if (!existsSync(join(root, "index.html")) || !existsSync(join(root, "main.js"))) {
    throw new ValidationError(
      "root",
      `The playground is not built: ${root} has no index.html and main.js. Run 'npm run build' in the sdspcaan folder.`,
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
    for (const d of DATASETS) {
      if (!SERVABLE.has(d.format) || served.has(d.name)) continue;
      const found = locateDataFile(d.file, options);
      if (found === null) continue;
      local.set(d.file, found.path);
      served.set(d.name, { url: `data/${d.file}`, bytes: statSync(found.path).size });
    }
  }
  const manifest = `${JSON.stringify(manifestFor(served), null, 2)}\n`;

  const server = createServer((req, res) => {
    if (options.isolated !== false) {
      // Cross-origin isolation gives the page SharedArrayBuffer (the Cancel flag).
      res.setHeader("Cross-Origin-Opener-Policy", "same-origin");
      res.setHeader("Cross-Origin-Embedder-Policy", "require-corp");
      res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    }
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
    } catch {
      res.writeHead(400).end();
      return;
    }
    if (path === "/datasets.json") {
      res.writeHead(200, { "Content-Type": MIME[".json"], "Cache-Control": "no-cache" });
      res.end(req.method === "HEAD" ? undefined : manifest);
      return;
    }
    let file: string | undefined;
    if (path.startsWith("/data/") && local.has(path.slice(6))) {
      file = local.get(path.slice(6));
    } else {
      const candidate = resolve(root, `.${path.endsWith("/") ? `${path}index.html` : path}`);
      // Nothing outside the page's folder.
      if (candidate === root || candidate.startsWith(root + sep)) file = candidate;
    }
    if (file === undefined || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("Not found\n");
      return;
    }
    res.writeHead(200, {
      "Content-Type": MIME[extname(file).toLowerCase()] ?? "application/octet-stream",
      "Content-Length": statSync(file).size,
      "Cache-Control": "no-cache",
    });
    if (req.method === "HEAD") {
      res.end();
      return;
    }
    createReadStream(file).pipe(res);
  });
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
