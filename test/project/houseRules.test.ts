/**
 * House rules a test enforces, so that they hold without anyone remembering them:
 * all randomness goes through the seeded generator (packages/sdspcaan/src/core/rng.ts), never
 * Math.random, whose sequence cannot be reproduced.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.(ts|wat)$/.test(name) ? [p] : [];
  });
}

/** The code of a TypeScript file without its comments (a comment may name Math.random). */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");
}

describe("house rules", () => {
  it("no Math.random in the packages' sources: randomness goes through the seeded Random", () => {
    const packages = join(repoRoot, "packages");
    const files = readdirSync(packages).flatMap((p) =>
      statSync(join(packages, p, "src"), { throwIfNoEntry: false })?.isDirectory()
        ? sourceFiles(join(packages, p, "src"))
        : [],
    );
    expect(files.length).toBeGreaterThan(50);
    const offenders = files
      .filter((f) => /Math\s*\.\s*random/.test(withoutComments(readFileSync(f, "utf8"))))
      .map((f) => relative(repoRoot, f));
    expect(offenders).toEqual([]);
  });

  it("the check finds Math.random where it is used", () => {
    expect(/Math\s*\.\s*random/.test(withoutComments("const u = Math.random();"))).toBe(true);
    expect(/Math\s*\.\s*random/.test(withoutComments("// not Math.random here\n"))).toBe(false);
  });
});
