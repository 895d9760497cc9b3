/**
 * A generated file under the repository: written, or with `--check` (what `npm run
 * docs:check` and CI run) compared with the committed one, failing when it differs.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

export function writeOrCheckGenerated(relativePath: string, text: string): void {
  const target = join(root, relativePath);
  if (process.argv.includes("--check")) {
    if (readFileSync(target, "utf8") !== text) {
      process.stderr.write(`${target} is out of date: run npm run docs\n`);
      process.exit(1);
    }
  } else {
    writeFileSync(target, text);
    process.stdout.write(`Wrote ${target}\n`);
  }
}
