import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { VERSION } from "#cli/cli/version.js";

const pkg = JSON.parse(readFileSync(resolve(repoRoot, "package.json"), "utf8"));
const PACKAGES = ["sdspcaan", "sdspcaan-hdf5", "sdspcaan-native", "sdspcaan-cli"];
const packageJson = (name: string) =>
  JSON.parse(readFileSync(resolve(repoRoot, "packages", name, "package.json"), "utf8"));

describe("package", () => {
  it("the CLI reports the package version", () => {
    expect(VERSION).toBe(pkg.version);
  });

  it("the library exports ES modules and CommonJS with types; the CLI has the bin", () => {
    const lib = packageJson("sdspcaan");
    expect(lib.type).toBe("module");
    // Only the Node entry has an effect (it switches the native GEMM on where installed).
    expect(lib.sideEffects).toEqual(["./dist/esm/index.node.js"]);
    expect(lib.exports["."].node.import.default).toBe("./dist/esm/index.node.js");
    for (const entry of [".", "./formats", "./methods", "./worker"]) {
      expect(lib.exports[entry].import.types).toMatch(/^\.\/dist\/esm\/.*\.d\.ts$/);
      expect(lib.exports[entry].require.default).toMatch(/^\.\/dist\/cjs\/.*\.js$/);
    }
    expect(lib.exports["./node"].default).toBe("./dist/esm/node.js");
    // No runtime dependency: delimited text is read by the library's own tokenizer.
    expect(lib.dependencies ?? {}).toEqual({});
    const cli = packageJson("sdspcaan-cli");
    // The bin is a committed file (not a build output), so a fresh `npm ci` links it
    // although `prepare` builds dist/ only after linking; it runs the built CLI.
    // Without "./": npm's publish normalises "./bin/..." and warns that it was invalid.
    expect(cli.bin.sdspcaan).toBe("bin/sdspcaan.js");
    const wrapper = readFileSync(
      resolve(repoRoot, "packages/sdspcaan-cli/bin/sdspcaan.js"),
      "utf8",
    );
    expect(wrapper.startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(wrapper).toMatch(/^import "\.\.\/dist\/cli\/bin\.js";$/m);
    expect(
      statSync(resolve(repoRoot, "packages/sdspcaan-cli/bin/sdspcaan.js")).mode & 0o111,
    ).not.toBe(0);
    expect(cli.dependencies.sdspcaan).toBe(lib.version);
    // Every package of the workspace carries the one version.
    for (const name of ["sdspcaan-hdf5", "sdspcaan-native", "sdspcaan-cli"]) {
      expect(packageJson(name).version).toBe(pkg.version);
    }
  });

  it("each package ships a README of its own and the repository's MIT LICENSE", () => {
    const license = readFileSync(resolve(repoRoot, "LICENSE"), "utf8");
    expect(license).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} The sdspcaan authors\n/);
    expect(pkg.license).toBe("MIT");
    for (const name of PACKAGES) {
      const folder = resolve(repoRoot, "packages", name);
      expect(packageJson(name).license, name).toBe("MIT");
      expect(readFileSync(resolve(folder, "LICENSE"), "utf8"), name).toBe(license);
      const readme = readFileSync(resolve(folder, "README.md"), "utf8");
      expect(readme.startsWith(`# ${name}\n`), name).toBe(true);
      expect(readme, name).toMatch(new RegExp(`\\bnpm install (-g )?([\\w-]+ )*${name}\\n`));
      // npmjs.com shows the README without the repository: a relative link goes nowhere.
      const relative = [...readme.matchAll(/\]\(([^)\s]+)\)/g)]
        .map((m) => m[1])
        .filter((t) => !/^https:\/\//.test(t ?? ""));
      expect(relative, name).toEqual([]);
    }
  });

  it('every committed entry of a package\'s "files" exists', () => {
    for (const name of PACKAGES) {
      // dist/ is the build's (npm run lint:packages checks it in the packed tarball).
      const committed = (packageJson(name).files as string[]).filter((f) => f !== "dist");
      const missing = committed.filter((f) => !existsSync(resolve(repoRoot, "packages", name, f)));
      expect(missing, name).toEqual([]);
    }
  });

  it("node10 resolution (typesVersions) finds the CommonJS declarations of each subpath", () => {
    const lib = packageJson("sdspcaan");
    // "types" goes with "main": what a resolver that ignores "exports" reads.
    expect(lib.types).toBe(lib.exports["."].require.types);
    expect(lib.main).toBe(lib.exports["."].require.default);
    const withRequire = Object.keys(lib.exports).filter(
      (e) => e !== "." && lib.exports[e].require !== undefined,
    );
    const mapped = lib.typesVersions["*"];
    expect(Object.keys(mapped)).toEqual(withRequire.map((e) => e.slice(2)));
    for (const entry of withRequire) {
      expect(mapped[entry.slice(2)]).toEqual([lib.exports[entry].require.types]);
    }
  });

  it("docs/ARCHITECTURE.md says what the library's sideEffects field says", () => {
    const architecture = readFileSync(resolve(repoRoot, "docs/ARCHITECTURE.md"), "utf8");
    expect(architecture).not.toMatch(/sideEffects: false/);
    expect(architecture).toContain("`sideEffects` names only the Node entry");
  });

  it("api-report/ has one report per public entry of each package", () => {
    const expected = PACKAGES.filter((name) => name !== "sdspcaan-native").flatMap((name) =>
      Object.keys(packageJson(name).exports)
        .filter((e) => e !== "./package.json")
        .map((e) => (e === "." ? name : `${name}.${e.slice(2)}`)),
    );
    const reports = readdirSync(resolve(repoRoot, "api-report"))
      .filter((f) => f.endsWith(".api.md"))
      .map((f) => f.replace(/\.api\.md$/, ""));
    expect(reports.sort()).toEqual(expected.sort());
    expect(expected).toContain("sdspcaan.node");
    // sdspcaan-native has no code to import: its exports name only package.json.
    expect(packageJson("sdspcaan-native").exports).toEqual({ "./package.json": "./package.json" });
  });

  it("the README names the runtimes the package check runs, at the versions it installs", () => {
    const check = readFileSync(resolve(repoRoot, "scripts/package-check.mjs"), "utf8");
    const versions = check.match(/const RUNTIMES = \{ bun: "([\d.]+)", deno: "([\d.]+)" \};/);
    expect(versions).not.toBeNull();
    const [, bun, deno] = versions as RegExpMatchArray;
    for (const readme of ["README.md", "packages/sdspcaan/README.md"]) {
      const text = readFileSync(resolve(repoRoot, readme), "utf8");
      expect(text, readme).toContain(`Bun ${bun}`);
      expect(text, readme).toContain(`Deno ${deno}`);
      expect(text, readme).toMatch(/Node\.js 20, 22 and 24/);
    }
  });

  it(".ci/run lints the packed packages, checks the API report and runs Bun and Deno", () => {
    const ci = readFileSync(resolve(repoRoot, ".ci/run"), "utf8");
    for (const command of ["lint:packages", "api:check", "test:runtimes"]) {
      expect(ci).toMatch(new RegExp(`^npm run ${command}$`, "m"));
      expect(pkg.scripts[command]).toBeDefined();
    }
  });

  it(".ci/run installs from the lock file and runs the README's test command", () => {
    const ci = readFileSync(resolve(repoRoot, ".ci/run"), "utf8");
    const readme = readFileSync(resolve(repoRoot, "README.md"), "utf8");
    expect(ci).toMatch(/npm ci\b/);
    expect(ci).toMatch(/\bnpm test\b/);
    expect(readme).toMatch(/npm ci && npm test/);
  });
});
