/** Temporary folders for tests, under the system's temporary directory. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh temporary directory; remove it with `removeDir`. */
export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `sdspcaan-${prefix}-`));
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
