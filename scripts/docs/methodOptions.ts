/**
 * Writes docs/method-options.md: every registered method's options (type, range,
 * default, doc) and grids, generated from the method descriptors, so they are
 * documented once, where they are declared. `npm run docs` runs it (with TypeDoc for
 * the API); test/project/docs.test.ts checks the committed file is up to date.
 *
 *     npx tsx scripts/docs/methodOptions.ts [--check]
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { methodOptionsMarkdown } from "../../packages/sdspcaan/src/methods/optionDocs.js";

const target = join(
  dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "docs",
  "method-options.md",
);
const text = methodOptionsMarkdown();
if (process.argv.includes("--check")) {
  if (readFileSync(target, "utf8") !== text) {
    process.stderr.write(`${target} is out of date: run npm run docs\n`);
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  process.stdout.write(`Wrote ${target}\n`);
}
