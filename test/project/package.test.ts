import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { VERSION } from "../../src/cli/version.js";
import { repoRoot } from "../helpers/data.js";

const pkg = JSON.parse(readFileSync(resolve(repoRoot, "package.json"), "utf8"));

describe("package", () => {
  it("the CLI reports the package version", () => {
    expect(VERSION).toBe(pkg.version);
  });

  it("exports a browser-safe core and a Node entry, both with types", () => {
    expect(pkg.type).toBe("module");
    expect(pkg.exports["."].types).toBe("./dist/index.d.ts");
    expect(pkg.exports["./node"].import).toBe("./dist/node.js");
    expect(pkg.bin.sdspcaan).toBe("./dist/cli/bin.js");
  });

  it(".ci/run installs from the lock file and runs the README's test command", () => {
    const ci = readFileSync(resolve(repoRoot, ".ci/run"), "utf8");
    const readme = readFileSync(resolve(repoRoot, "README.md"), "utf8");
    expect(ci).toMatch(/npm ci\b/);
    expect(ci).toMatch(/\bnpm test\b/);
    expect(readme).toMatch(/npm ci && npm test/);
  });
});
