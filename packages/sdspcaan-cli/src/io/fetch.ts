/**
 * Downloads a registry data set into the cache directory: streams it to a
 * temporary file while hashing, refuses anything whose SHA-256 differs from the
 * registry's (or that is an HTML page), and only then moves it into place.
 */
import { createHash } from "node:crypto";
import { type FileHandle, open, readFile, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { SdspcaanError, ValidationError } from "sdspcaan";
import { DEFAULT_MAX_BYTES, formatBytes } from "sdspcaan/formats";
import { describeFileSystemError, FileAccessError, makeFolders } from "./fileErrors.js";
import { defaultCacheDir } from "./locate.js";
import { type DatasetEntry, datasetNames, findDataset } from "./registry.js";

/** A download that could not be completed or was refused; nothing was saved. */
export class FetchError extends SdspcaanError {
  override name = "FetchError";
}

/** Progress of a download: bytes so far and the total when the server said. */
export interface FetchProgress {
  readonly received: number;
  readonly total: number | null;
}

export interface FetchOptions {
  /** Directory to save into; default the cache (`$XDG_CACHE_HOME/sdspcaan` or `~/.cache/sdspcaan`). */
  dir?: string;
  /** Download from this address instead of the registry's (a mirror); the checksum is still checked. */
  url?: string;
  /** Download again even when a file with the right checksum is already there. */
  force?: boolean;
  /** Called as data arrives. */
  onProgress?: (progress: FetchProgress) => void;
  signal?: AbortSignal;
  /** Give up after this many milliseconds (default 10 minutes). */
  timeoutMs?: number;
  /** Refuse downloads larger than this (default 2 GiB). */
  maxBytes?: number;
}

export interface FetchResult {
  readonly entry: DatasetEntry;
  readonly path: string;
  readonly bytes: number;
  readonly sha256: string;
  /** False when a verified copy was already present. */
  readonly downloaded: boolean;
  readonly url: string | null;
}

/** SHA-256 of a file, hex. */
export async function sha256File(path: string): Promise<string> {
  return createHash("sha256")
    .update(await readFile(path))
    .digest("hex");
}

function resolveEntry(name: string | DatasetEntry): DatasetEntry {
  if (typeof name !== "string") return name;
  const entry = findDataset(name);
  if (!entry) {
    throw new ValidationError(
      "name",
      `Unknown data set '${name}'. Known: ${datasetNames().join(", ")}.`,
    );
  }
  return entry;
}

function looksLikeHtml(head: Uint8Array): boolean {
  const s = new TextDecoder("latin1").decode(head.subarray(0, 512)).trimStart().toLowerCase();
  return s.startsWith("<!doctype html") || s.startsWith("<html") || s.startsWith("<head");
}

/**
 * Downloads a data set of the registry into `dir` (the cache by default) and
 * verifies its SHA-256. A page-only registry address (UCI, Feiping Nie's page) is
 * refused with directions, unless `url` gives the file's address.
 */
export async function fetchDataset(
  name: string | DatasetEntry,
  options: FetchOptions = {},
): Promise<FetchResult> {
  const entry = resolveEntry(name);
  const dir = options.dir ?? defaultCacheDir();
  const target = join(dir, entry.file);
  if (!options.force) {
    const existing = await stat(target).catch(() => null);
    if (existing?.isFile() && (await sha256File(target)) === entry.sha256) {
      return {
        entry,
        path: target,
        bytes: existing.size,
        sha256: entry.sha256,
        downloaded: false,
        url: null,
      };
    }
  }
  const url = options.url ?? entry.url;
  if (options.url === undefined && entry.urlKind === "page") {
    throw new FetchError(
      `${entry.name}: the paper gives ${entry.url}, a web page rather than the file, so it cannot be downloaded automatically. ` +
        `Get ${entry.file} there (or from ${entry.provenance}), check that its SHA-256 is ${entry.sha256}, and put it in --data-dir, $SDSPCAAN_DATA or ${dir}; or pass --url with the file's address.`,
    );
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError("url", `'${url}' is not a valid URL.`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ValidationError("url", `Only http and https downloads are supported. Got '${url}'.`);
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 600_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;

  let res: Response;
  try {
    res = await fetch(parsed, { redirect: "follow", signal });
  } catch (err) {
    throw new FetchError(`${entry.name}: downloading ${url} failed: ${describeError(err)}`);
  }
  if (!res.ok || res.body === null) {
    throw new FetchError(
      `${entry.name}: ${url} answered HTTP ${res.status} ${res.statusText}`.trim(),
    );
  }
  const type = res.headers.get("content-type") ?? "";
  if (/text\/html|application\/xhtml/i.test(type)) {
    await res.body.cancel().catch(() => undefined);
    throw new FetchError(
      `${entry.name}: ${url} returned a web page (${type}), not the data file; nothing was saved`,
    );
  }
  const lengthHeader = res.headers.get("content-length");
  const total = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
  if (total !== null && total > maxBytes) {
    await res.body.cancel().catch(() => undefined);
    throw new FetchError(
      `${entry.name}: ${url} is ${formatBytes(total)}, more than the ${formatBytes(maxBytes)} limit`,
    );
  }

  try {
    // One folder at a time, so that a read-only file system says so (not ENOENT).
    makeFolders(dir);
  } catch (err) {
    throw new FetchError(`${entry.name}: ${describeError(err)}`);
  }
  const temp = `${target}.part-${process.pid}-${Date.now()}`;
  const hash = createHash("sha256");
  let received = 0;
  let head: Uint8Array | null = null;
  const handle = await open(temp, "w").catch((err: unknown) => {
    throw new FetchError(`${entry.name}: cannot write ${target}: ${describeError(err)}`);
  });
  try {
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        if (head === null) {
          head = chunk.subarray(0, 512);
          if (looksLikeHtml(head)) {
            throw new FetchError(
              `${entry.name}: ${url} returned an HTML page, not the data file; nothing was saved`,
            );
          }
        }
        received += chunk.length;
        if (received > maxBytes) {
          throw new FetchError(
            `${entry.name}: ${url} sent more than the ${formatBytes(maxBytes)} limit`,
          );
        }
        hash.update(chunk);
        await writeWhole(handle, chunk).catch((err: unknown) => {
          throw new FetchError(
            `${entry.name}: cannot write ${target}: ${describeError(err)}; nothing was saved`,
          );
        });
        options.onProgress?.({ received, total });
      }
    } catch (err) {
      if (err instanceof SdspcaanError) throw err;
      throw new FetchError(
        `${entry.name}: downloading ${url} failed after ${formatBytes(received)}: ${describeError(err)}`,
      );
    } finally {
      await handle.close();
    }
    if (total !== null && received !== total) {
      throw new FetchError(`${entry.name}: ${url} ended after ${received} of ${total} bytes`);
    }
    const digest = hash.digest("hex");
    if (digest !== entry.sha256) {
      throw new FetchError(
        `${entry.name}: checksum mismatch for ${url}: expected SHA-256 ${entry.sha256}, got ${digest}; the file was not saved`,
      );
    }
    await rename(temp, target).catch((err: unknown) => {
      throw new FetchError(
        `${entry.name}: cannot move the download to ${target}: ${describeError(err)}`,
      );
    });
    return { entry, path: target, bytes: received, sha256: digest, downloaded: true, url };
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Writes all of `chunk`: a write may take only part of it (a file system that fills up
 * mid-write returns the bytes it took, and the next write reports ENOSPC), so a short
 * write is continued, never taken for the whole chunk.
 */
async function writeWhole(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < chunk.length) {
    const { bytesWritten } = await handle.write(chunk, offset, chunk.length - offset);
    if (bytesWritten <= 0) {
      throw Object.assign(new Error("no space left on the device"), { code: "ENOSPC" });
    }
    offset += bytesWritten;
  }
}

function describeError(err: unknown): string {
  if (err instanceof FileAccessError) return err.message.replace(/\.$/, "");
  const reason = describeFileSystemError(err);
  if (reason !== null) return reason;
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : "";
    return err.name === "TimeoutError" ? "timed out" : `${err.message}${detail}`;
  }
  return String(err);
}
