/**
 * The library (`sdspcaan`, packages/sdspcaan/src/index.ts) must run in browsers: walk
 * its import graph and fail on any Node built-in, any package, or any module from the
 * Node-only folders. Its other browser entries (`sdspcaan/formats`,
 * `sdspcaan/methods`, `sdspcaan/worker`), sdspcaan-hdf5 and the playground page must too; they may use
 * the one package that has a browser build (h5wasm). The workspace's own
 * package names are followed into their sources.
 */
import { readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";

const CLI = "packages/sdspcaan-cli/src";
const NODE_ONLY_DIRS = [`${CLI}/io/`, `${CLI}/plot/`, `${CLI}/cli/`];
const LIB = "packages/sdspcaan/src";

/** The workspace's packages, as tsconfig.json's paths map them to sources. */
const WORKSPACE: Record<string, string> = {
  sdspcaan: `${LIB}/index.ts`,
  "sdspcaan/formats": `${LIB}/formats/index.ts`,
  "sdspcaan/methods": `${LIB}/methods/index.ts`,
  "sdspcaan/node": `${LIB}/node.ts`,
  "sdspcaan/worker": `${LIB}/worker/index.ts`,
  "sdspcaan-hdf5": "packages/sdspcaan-hdf5/src/index.ts",
};
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

function importsOf(file: string): string[] {
  const src = readFileSync(file, "utf8");
  const specs: string[] = [];
  const re =
    /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\s*\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s*["']([^"']+)["']/g;
  for (const m of src.matchAll(re)) specs.push(m[1] ?? m[2] ?? m[3]);
  return specs;
}

/** Packages with a browser build, allowed outside the dependency-free core. */
const BROWSER_PACKAGES = ["h5wasm"];

function walk(
  entry: string,
  allowedPackages: readonly string[] = [],
): { files: string[]; offenders: string[] } {
  const seen = new Set<string>();
  const offenders: string[] = [];
  const stack = [entry];
  while (stack.length) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const rel = relative(repoRoot, file);
    if (NODE_ONLY_DIRS.some((d) => rel.startsWith(d)) || rel.endsWith(".node.ts")) {
      offenders.push(`${rel} is Node-only but reachable from the core`);
    }
    for (const spec of importsOf(file)) {
      if (spec.startsWith(".")) {
        stack.push(resolve(dirname(file), spec.replace(/\.js$/, ".ts")));
      } else if (WORKSPACE[spec] !== undefined) {
        stack.push(resolve(repoRoot, WORKSPACE[spec]));
      } else if (builtins.has(spec) || spec.startsWith("node:")) {
        offenders.push(`${rel} imports the Node built-in '${spec}'`);
      } else if (!spec.startsWith("type:") && !allowedPackages.includes(spec)) {
        offenders.push(
          `${rel} imports the package '${spec}' (the core has no runtime dependencies)`,
        );
      }
    }
  }
  return { files: [...seen], offenders };
}

describe("browser-safe core", () => {
  it("the library's main entry reaches no Node built-in, package or Node-only folder", () => {
    const { files, offenders } = walk(resolve(repoRoot, WORKSPACE.sdspcaan));
    expect(files.length).toBeGreaterThan(5);
    expect(offenders).toEqual([]);
  });

  it.each(["sdspcaan/formats", "sdspcaan/methods", "sdspcaan/worker", "sdspcaan-hdf5"])(
    "%s reaches no Node built-in or Node-only folder",
    (entry) => {
      const { files, offenders } = walk(resolve(repoRoot, WORKSPACE[entry]), BROWSER_PACKAGES);
      expect(files.length).toBeGreaterThan(2);
      expect(offenders).toEqual([]);
    },
  );

  it("the playground's page and worker reach no Node built-in or Node-only folder", () => {
    for (const entry of [`${CLI}/playground/main.ts`, `${CLI}/playground/worker.ts`]) {
      const { files, offenders } = walk(resolve(repoRoot, entry), BROWSER_PACKAGES);
      expect(files.length).toBeGreaterThan(5);
      expect(offenders).toEqual([]);
    }
  });

  it("the walker does detect a Node import (sanity check on the Node entry)", () => {
    const { offenders } = walk(resolve(repoRoot, WORKSPACE["sdspcaan/node"]));
    expect(offenders.length).toBeGreaterThan(0);
  });
});
