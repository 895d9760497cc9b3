/** A stand-in for the built playground page, for the tests of its server. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Writes `dir`/page with index.html, main.js and chunks/a.js, and `dir`/secret.txt
 * beside it (outside the page, which the server must not serve); returns the page's folder.
 */
export function writePlaygroundPage(dir: string): string {
  const root = join(dir, "page");
  mkdirSync(join(root, "chunks"), { recursive: true });
  writeFileSync(join(root, "index.html"), "<!doctype html><title>page</title>\n");
  writeFileSync(join(root, "main.js"), "export {};\n");
  writeFileSync(join(root, "chunks", "a.js"), "export const a = 1;\n");
  writeFileSync(join(dir, "secret.txt"), "outside the page\n");
  return root;
}
