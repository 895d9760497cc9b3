/**
 * The public surface of every package entry as API Extractor reports it, one file per
 * entry in api-report/ (`sdspcaan.api.md`, `sdspcaan.formats.api.md`, ...,
 * `sdspcaan-cli.api.md`): the exported declarations without their comments, so that a
 * change to what users can import shows as a diff of these files.
 *
 *   npm run api          build, then rewrite api-report/ from the declarations
 *   npm run api:check    fail, with the difference, when api-report/ is not what the
 *                        declarations give (CI runs it)
 *
 * The entries are read from each package's `exports` (their ES-module `types`), so a
 * new entry gets a report, and a report of an entry that is gone fails the check.
 * sdspcaan-native exports no code (only its package.json) and has none. Needs the
 * built declarations (`npm run build`; `npm ci` makes them).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CompilerState, Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const reportDir = join(root, "api-report");
const check = process.argv.includes("--check");
const PACKAGES = ["sdspcaan", "sdspcaan-hdf5", "sdspcaan-cli"];

/** The declarations file of an `exports` entry for `import`. */
function typesOf(target) {
  if (typeof target === "string") return target.endsWith(".d.ts") ? target : null;
  if (target === null || typeof target !== "object") return null;
  if (typeof target.types === "string") return target.types;
  for (const condition of ["node", "import", "default"]) {
    const found = condition in target ? typesOf(target[condition]) : null;
    if (found) return found;
  }
  return null;
}

/** Every public entry: its import name, package folder, declarations and report name. */
function entries() {
  return PACKAGES.flatMap((name) => {
    const folder = join(root, "packages", name);
    const pkg = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
    return Object.entries(pkg.exports)
      .filter(([subpath]) => subpath !== "./package.json")
      .map(([subpath, target]) => {
        const types = typesOf(target);
        if (types === null) throw new Error(`${name}: exports["${subpath}"] names no types`);
        const entry = subpath === "." ? name : `${name}/${subpath.slice(2)}`;
        return { entry, folder, types: join(folder, types), report: entry.replace("/", ".") };
      });
  });
}

/** API Extractor's configuration for one entry; `files` are every entry's declarations. */
function configOf({ folder, types }, files, temp) {
  const configObject = {
    projectFolder: folder,
    mainEntryPointFilePath: types,
    compiler: {
      // The packages build with the root tsconfig's options; api-extractor reads the
      // built declarations with the same module resolution (the workspace's packages
      // through node_modules, as installed).
      overrideTsconfig: {
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022", "DOM"],
          types: ["node"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
        },
        files,
      },
    },
    apiReport: {
      enabled: true,
      reportFileName: "entry",
      reportFolder: temp,
      reportTempFolder: temp,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    newlineKind: "lf",
    messages: {
      compilerMessageReporting: { default: { logLevel: "error" } },
      extractorMessageReporting: {
        default: { logLevel: "error" },
        // The packages use no release tags (@public, @beta): every export is public.
        "ae-missing-release-tag": { logLevel: "none" },
        // Documentation is TypeDoc's to check (npm run docs:check), with its own rules.
        "ae-undocumented": { logLevel: "none" },
        // A type that an export uses but the entry does not export is part of the
        // surface all the same: it is listed in the report (marked "Warning:
        // (ae-forgotten-export)") rather than failing the run.
        "ae-forgotten-export": { logLevel: "none", addToApiReportFile: true },
      },
      // The comments are TypeDoc's (npm run docs checks them); the report leaves them out.
      tsdocMessageReporting: { default: { logLevel: "none" } },
    },
  };
  return ExtractorConfig.prepare({
    configObject,
    configObjectFullPath: join(folder, "api-extractor.json"),
    packageJsonFullPath: join(folder, "package.json"),
  });
}

/**
 * Lines of the report that speak of comments, not of the surface: release tags (there
 * are none, so every item says "@public") and "(undocumented)" marks, which would
 * change with a doc comment.
 */
const COMMENT_ONLY =
  /^\s*\/\/\s*(@public\s*)?(\(undocumented\)\s*)?$|^\/\/ \(No @packageDocumentation comment for this package\)$/;

/** The report of one entry, as text, compiled with `compilerState` (shared by all). */
function reportOf({ entry }, config, compilerState, temp) {
  const messages = [];
  const result = Extractor.invoke(config, {
    localBuild: true,
    compilerState,
    messageCallback: (message) => {
      if (message.logLevel === "error" || message.logLevel === "warning") {
        messages.push(message.formatMessageWithLocation(root));
      }
      message.handled = true;
    },
  });
  if (!result.succeeded || messages.length > 0) {
    throw new Error(`api-extractor failed on ${entry}:\n${messages.join("\n")}`);
  }
  const text = readFileSync(join(temp, "entry.api.md"), "utf8");
  unlinkSync(join(temp, "entry.api.md"));
  return (
    text
      // API Extractor names the package; the entry is more precise for a subpath.
      .replace(/^## API Report File for "[^"]*"$/m, `## API Report File for "${entry}"`)
      .split("\n")
      .filter((line) => !COMMENT_ONLY.test(line))
      .join("\n")
      // Dropping those lines can leave two blank lines together.
      .replace(/\n{3,}/g, "\n\n")
  );
}

/** The first lines where two texts differ, diff-style, for the failure message. */
function firstDifferences(committed, current, limit = 20) {
  const a = committed.split("\n");
  const b = current.split("\n");
  const lines = [];
  for (let i = 0; i < Math.max(a.length, b.length) && lines.length < limit; i++) {
    if (a[i] === b[i]) continue;
    if (a[i] !== undefined) lines.push(`  line ${i + 1} - ${a[i]}`);
    if (b[i] !== undefined) lines.push(`  line ${i + 1} + ${b[i]}`);
  }
  return lines.join("\n");
}

const temp = mkdtempSync(join(tmpdir(), "sdspcaan-api-"));
try {
  const all = entries();
  const files = all.map((e) => e.types);
  const configs = all.map((e) => configOf(e, files, temp));
  // One TypeScript program for every entry: compiling it is most of the time taken.
  const compilerState = CompilerState.create(configs[0], { additionalEntryPoints: files });
  const reports = new Map(
    all.map((e, i) => [`${e.report}.api.md`, reportOf(e, configs[i], compilerState, temp)]),
  );
  const committed = readdirSync(reportDir, { withFileTypes: true })
    .filter((d) => d.isFile() && d.name.endsWith(".api.md"))
    .map((d) => d.name);
  const stale = committed.filter((f) => !reports.has(f));
  if (!check) {
    for (const [file, text] of reports) writeFileSync(join(reportDir, file), text);
    for (const file of stale) rmSync(join(reportDir, file));
    console.log(`api-report: wrote ${reports.size} reports, removed ${stale.length}`);
  } else {
    const problems = stale.map((f) => `${f}: no entry has this report any more`);
    for (const [file, text] of reports) {
      if (!committed.includes(file)) {
        problems.push(`${file}: missing (a new entry)`);
        continue;
      }
      const old = readFileSync(join(reportDir, file), "utf8");
      if (old !== text) problems.push(`${file} differs:\n${firstDifferences(old, text)}`);
    }
    if (problems.length > 0) {
      console.error(`The public API differs from ${relative(root, reportDir)}/:`);
      for (const p of problems) console.error(`- ${p}`);
      console.error("If the change is meant, run `npm run api` and commit api-report/.");
      process.exitCode = 1;
    } else {
      console.log(`api-report: ${reports.size} reports are current`);
    }
  }
} finally {
  rmSync(temp, { recursive: true, force: true });
}
