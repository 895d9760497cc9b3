/**
 * `npm test`: vitest, the type-check (scripts/typecheck.mjs) and the lint (biome, and
 * dependency-cruiser's layout rules in .dependency-cruiser.cjs: `npm run lint:deps`), run
 * at the same time. vitest keeps the two cores of a small machine busy only about
 * three quarters of its run (a few long files end it on one core); the checks fill
 * the gaps, so side by side they take less wall time than one after the other. vitest
 * prints as it goes; the type-check's and the lint's output follows it, whole. The exit code is non-zero when any of the three fails. Arguments go to vitest
 * (`npm test -- packages/sdspcaan/test/linalg` runs those files, still type-checked and linted).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

/** Runs `args` with this Node; the output is captured unless `inherit`. */
function run(name, args, inherit) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, {
      stdio: inherit ? "inherit" : ["ignore", "pipe", "pipe"],
    });
    let output = "";
    if (!inherit) {
      child.stdout.on("data", (b) => {
        output += b;
      });
      child.stderr.on("data", (b) => {
        output += b;
      });
    }
    const finish = (code) =>
      resolve({ name, code, output, seconds: (Date.now() - started) / 1000 });
    child.on("error", (error) => {
      output += String(error);
      finish(1);
    });
    child.on("close", (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}

const biome = require.resolve("@biomejs/biome/bin/biome");
// The folders and options as package.json's `lint:deps` gives them, so both run the same check.
const DEPCRUISE_ARGS = JSON.parse(readFileSync("package.json", "utf8"))
  .scripts["lint:deps"].split(/\s+/)
  .slice(1);
// dependency-cruiser exports neither its package.json nor its command: its main module
// is src/main/index.mjs, and the command sits in bin/ two folders above it.
const depcruise = fileURLToPath(
  new URL("../../bin/dependency-cruise.mjs", import.meta.resolve("dependency-cruiser")),
);
// vitest's package exports no path to its command; its package.json sits beside it.
const vitest = join(dirname(require.resolve("vitest/package.json")), "vitest.mjs");

const checks = [
  run("typecheck", ["scripts/typecheck.mjs"], false),
  run("lint", [biome, "check", "."], false),
  run("lint:deps", [depcruise, ...DEPCRUISE_ARGS], false),
];
const tests = await run("vitest", [vitest, "run", ...process.argv.slice(2)], true);

let failed = tests.code;
for (const check of await Promise.all(checks)) {
  const status = check.code === 0 ? "passed" : `failed (exit code ${check.code})`;
  // biome's closing count ("Checked 430 files in 6s.") and dependency-cruiser's "no
  // dependency violations found" say nothing when all is well.
  const said = check.output
    .replace(/^Checked \d+ files? in .*$/m, "")
    .replace(/^\s*\S+ no dependency violations found .*$/m, "")
    .trim();
  if (check.code !== 0 || said !== "") {
    process.stdout.write(`\n${check.name}:\n${check.output.trimEnd()}\n`);
  }
  process.stdout.write(`${check.name} ${status} in ${check.seconds.toFixed(1)} s\n`);
  if (failed === 0) failed = check.code;
}
process.exit(failed);
