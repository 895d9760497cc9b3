import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../packages/sdspcaan-cli/src/cli/version.js";
import { repoRoot } from "../helpers/data.js";

const pkg = JSON.parse(readFileSync(resolve(repoRoot, "package.json"), "utf8"));
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
    expect(cli.bin.sdspcaan).toBe("./bin/sdspcaan.js");
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

  it(".ci/run installs from the lock file and runs the README's test command", () => {
    const ci = readFileSync(resolve(repoRoot, ".ci/run"), "utf8");
    const readme = readFileSync(resolve(repoRoot, "README.md"), "utf8");
    expect(ci).toMatch(/npm ci\b/);
    expect(ci).toMatch(/\bnpm test\b/);
    expect(readme).toMatch(/npm ci && npm test/);
  });
});
