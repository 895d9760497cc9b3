/**
 * The four packages as npm publishes them (`npm run lint:packages`): packs each with
 * `npm pack` into a temporary folder and checks its tarball, failing loudly on the
 * first thing that does not hold:
 * - it holds package.json, README.md, LICENSE (the repository's) and what runs
 *   (PUBLISHED below), nothing else: no sources, tests, source maps or build info;
 * - every entry of package.json's `files` is in it;
 * - publint reports nothing, suggestions included;
 * - arethetypeswrong (@arethetypeswrong/cli) reports nothing (ATTW below says which
 *   entries are ES modules only, and so which resolutions it skips for them);
 * - `npm publish --dry-run` warns of nothing but the missing login a dry run has.
 * Every check runs, and every failure is printed. Needs a build (`npm ci` makes one).
 * Run by .ci/run. Prints "N passed, N failed" at the end; exits 1 on a failure.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const attwPackage = require.resolve("@arethetypeswrong/cli/package.json");
const attw = join(dirname(attwPackage), require(attwPackage).bin.attw);

const COMMON = ["package.json", "README.md", "LICENSE"];
/** What each tarball may hold besides COMMON. */
const PUBLISHED = {
  sdspcaan: [/^dist\/(esm|cjs)\/.+\.(js|d\.ts)$/, /^dist\/cjs\/package\.json$/],
  "sdspcaan-hdf5": [/^dist\/[^/]+\.(js|d\.ts)$/],
  // The C sources compiled at install (gemm.c: the portable kernel; fma.c, reduction.c: the fast one).
  "sdspcaan-native": [/^(gemm|fma|reduction)\.c$/, /^(addon|fma)\.h$/, /^build\.mjs$/],
  "sdspcaan-cli": [
    /^bin\/sdspcaan\.js$/,
    /^dist\/.+\.(js|d\.ts)$/,
    // The playground's page, and the two data sets it offers when built in a checkout.
    /^dist\/playground\/(index\.html|style\.css|datasets\.json|data\/[^/]+\.mat)$/,
  ],
};
/** Never published, even where PUBLISHED's patterns would match. */
const FORBIDDEN = [/(^|\/)(src|test|tests|__tests__)\//, /\.(test|spec)\.[cm]?[jt]s$/];

/**
 * arethetypeswrong's runs, each a list of its flags. `sdspcaan/node` (threads, the
 * native kernels) and the packages sdspcaan-hdf5 and sdspcaan-cli are ES modules only
 * by design: they use import.meta and have no CommonJS build, so `require` and
 * TypeScript's node10 resolution have nothing to find there, and the `esm-only`
 * profile leaves those two resolutions out. Every other entry of the library is checked
 * with the default (`strict`) profile, CommonJS and node10 included. sdspcaan-native
 * exports only its package.json (the library loads its addon by path).
 */
const ATTW = {
  sdspcaan: [
    ["--exclude-entrypoints", "./node"],
    ["--entrypoints", "./node", "--profile", "esm-only"],
  ],
  "sdspcaan-hdf5": [["--profile", "esm-only"]],
  "sdspcaan-native": [[]],
  "sdspcaan-cli": [["--profile", "esm-only"]],
};
// A dry run has no npm login; npm says so, and that is not a fault of the package.
const EXPECTED_WARNING = /^npm warn publish This command requires you to be logged in/;

let passed = 0;
let failed = 0;
function check(what, ok, detail = "") {
  if (ok) {
    passed++;
    console.log(`ok   ${what}`);
    return true;
  }
  failed++;
  console.error(`FAIL ${what}${detail ? `:\n${detail}` : ""}`);
  return false;
}

/** Runs a command: its exit code, stdout and stderr (a non-zero exit is not thrown). */
function run(cmd, args) {
  const result = spawnSync(cmd, args, {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, FORCE_COLOR: "0", NO_COLOR: "1" },
  });
  return { code: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

const readText = (path) => (existsSync(path) ? readFileSync(path, "utf8") : null);
const license = readText(join(root, "LICENSE"));
check("the repository has a LICENSE", license !== null);
const work = mkdtempSync(join(tmpdir(), "sdspcaan-lint-"));
try {
  for (const name of Object.keys(PUBLISHED)) {
    const pkg = JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8"));
    const packed = run("npm", ["pack", "--workspace", name, "--json", "--pack-destination", work]);
    if (!check(`${name}: npm pack`, packed.code === 0, packed.stderr)) continue;
    const [{ filename, files: entries }] = JSON.parse(packed.stdout);
    const tarball = join(work, filename);
    const files = entries.map((f) => f.path);

    const allowed = (f) => COMMON.includes(f) || PUBLISHED[name].some((p) => p.test(f));
    const stray = files.filter((f) => !allowed(f) || FORBIDDEN.some((p) => p.test(f)));
    check(
      `${name}: the tarball holds only package.json, README.md, LICENSE and what runs (${files.length} files)`,
      stray.length === 0,
      stray.join("\n"),
    );
    const missing = COMMON.filter((f) => !files.includes(f));
    check(`${name}: the tarball has ${COMMON.join(", ")}`, missing.length === 0, missing.join());
    const unmatched = (pkg.files ?? []).filter(
      (entry) => !files.some((f) => f === entry || f.startsWith(`${entry}/`)),
    );
    check(`${name}: every entry of "files" is packed`, unmatched.length === 0, unmatched.join());
    const ownLicense = readText(join(root, "packages", name, "LICENSE"));
    check(
      `${name}: its LICENSE is the repository's`,
      ownLicense !== null && ownLicense === license,
    );

    const { messages, pkg: linted } = await publint({
      pack: { tarball: new Uint8Array(readFileSync(tarball)).buffer },
      level: "suggestion",
      strict: true,
    });
    check(
      `${name}: publint reports nothing`,
      messages.length === 0,
      messages.map((m) => `${m.type}: ${formatMessage(m, linted, { color: false })}`).join("\n"),
    );

    for (const flags of ATTW[name]) {
      const result = run(process.execPath, [attw, tarball, "--format", "ascii", ...flags]);
      check(
        `${name}: arethetypeswrong reports nothing${flags.length ? ` (${flags.join(" ")})` : ""}`,
        result.code === 0,
        `${result.stdout}${result.stderr}`,
      );
    }

    const dry = run("npm", ["publish", "--dry-run", "--workspace", name]);
    const warnings = dry.stderr
      .split("\n")
      .filter((line) => /^npm (warn|error)/i.test(line) && !EXPECTED_WARNING.test(line));
    check(
      `${name}: npm publish --dry-run succeeds without warnings`,
      dry.code === 0 && warnings.length === 0,
      (warnings.length ? warnings : [dry.stderr]).join("\n"),
    );
  }
  console.log(`${passed} passed, ${failed} failed`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed === 0 ? 0 : 1);
