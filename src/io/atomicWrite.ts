/**
 * Writing a file so that nothing half-written is ever seen: the text goes to a
 * temporary file beside the target (named by host and process, so several machines
 * sharing a results folder never collide), which is then renamed over it. On any
 * failure the temporary file is removed and the error passed on.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { dirname } from "node:path";

/** The temporary name a file is written under before its rename. */
export function temporaryName(path: string): string {
  return `${path}.tmp-${hostname().replace(/[^A-Za-z0-9.-]/g, "_")}-${process.pid}`;
}

/** Writes `text` to `path` atomically (creating missing folders). */
export function writeAtomically(path: string, text: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = temporaryName(path);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}
