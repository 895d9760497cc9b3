/**
 * House rules a test enforces, so that they hold without anyone remembering them:
 * all randomness goes through the seeded generator (packages/sdspcaan/src/core/rng.ts), never
 * Math.random, whose sequence cannot be reproduced; no test switch on the production
 * path (an exported `*TestHooks` object a test sets for the whole process: a path a
 * test must choose is an explicit argument or internal setting instead); and the
 * methods read as named steps (no function over 120 lines, no `export *` between
 * method modules, which import what they use from where it is declared); and the
 * tests' shared helpers (once, errorOf, rejectionOf) are sdspcaan-test-support's, not
 * written again in a test file; and no source file grows past what a reader takes in
 * (SOURCE_FILE_LINES), where a concern of its own hides.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "sdspcaan-test-support";
import ts from "typescript";
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

/** Every source file of every package (TypeScript and WebAssembly text). */
function packageSources(): string[] {
  const packages = join(repoRoot, "packages");
  return readdirSync(packages).flatMap((p) =>
    statSync(join(packages, p, "src"), { throwIfNoEntry: false })?.isDirectory()
      ? sourceFiles(join(packages, p, "src"))
      : [],
  );
}

/** The exported `*TestHooks` objects a file declares, by name. */
function testHooks(text: string): string[] {
  return [
    ...withoutComments(text).matchAll(/\bexport\s+(?:const|let|var)\s+(\w*TestHooks)\b/g),
  ].map((m) => m[1]);
}

/** The functions of a TypeScript file longer than `limit` lines: "name (lines)". */
function longFunctions(fileName: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name = node.name?.getText(source) ?? "(anonymous)";
      if (last - first + 1 > limit) out.push(`${name} (${last - first + 1})`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Every test file of every package and of the root's test/ (TypeScript). */
function testFiles(): string[] {
  const packages = join(repoRoot, "packages");
  const dirs = [
    join(repoRoot, "test"),
    ...readdirSync(packages).map((p) => join(packages, p, "test")),
  ].filter((d) => statSync(d, { throwIfNoEntry: false })?.isDirectory());
  return dirs.flatMap(sourceFiles).filter((f) => f.endsWith(".ts"));
}

/** Helpers of sdspcaan-test-support that test files use rather than write again. */
const SHARED_HELPERS = ["once", "errorOf", "rejectionOf", "tempDir", "removeDir"];

/** The helpers of SHARED_HELPERS a file declares itself (a function or a const). */
function ownCopies(text: string): string[] {
  const names = SHARED_HELPERS.join("|");
  const declared = new RegExp(
    `^\\s*(?:export\\s+)?(?:async\\s+)?(?:function\\s*\\*?\\s*(${names})\\s*[(<]|(?:const|let|var)\\s+(${names})\\s*[=:])`,
    "gm",
  );
  return [...withoutComments(text).matchAll(declared)].map((m) => m[1] ?? m[2]);
}

/** The most lines a function of the library's methods may have. */
const METHOD_FUNCTION_LINES = 120;
/** The most lines a source file of any package may have. */
const SOURCE_FILE_LINES = 700;

describe("house rules", () => {
  it("no Math.random in the packages' sources: randomness goes through the seeded Random", () => {
    const files = packageSources();
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

  it("no exported *TestHooks object in the packages' sources", () => {
    const offenders = packageSources()
      .filter((f) => f.endsWith(".ts") && testHooks(readFileSync(f, "utf8")).length > 0)
      .map((f) => relative(repoRoot, f).split("\\").join("/"));
    expect(offenders).toEqual([]);
  });

  it("the check finds an exported test switch, and not a comment naming one", () => {
    expect(testHooks("export const qLoopTestHooks = { settings: null };")).toEqual([
      "qLoopTestHooks",
    ]);
    expect(testHooks("export let loaderTestHooks: Hooks = {};")).toEqual(["loaderTestHooks"]);
    expect(testHooks("// export const svdTestHooks = {};\nconst testHooks = 1;")).toEqual([]);
  });

  it(`no test file writes its own ${SHARED_HELPERS.join(", ")}: they come from sdspcaan-test-support`, () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((f) =>
      ownCopies(readFileSync(f, "utf8")).map(
        (name) => `${relative(repoRoot, f).split("\\").join("/")}: ${name}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it("the check finds a helper written again, and not one imported or named in a comment", () => {
    expect(ownCopies("function once<T>(make: () => T): () => T {")).toEqual(["once"]);
    expect(ownCopies("  const errorOf = (fn: () => unknown) => {")).toEqual(["errorOf"]);
    expect(ownCopies("async function rejectionOf(p: Promise<unknown>) {")).toEqual(["rejectionOf"]);
    expect(ownCopies('import { errorOf, once } from "sdspcaan-test-support";')).toEqual([]);
    expect(ownCopies("// function once() is shared\nfunction formatErrorOf() {}")).toEqual([]);
  });

  it("the packages' tests make temporary folders with tempDir, not mkdtempSync of their own", () => {
    const files = testFiles().filter((f) => relative(repoRoot, f).startsWith("packages"));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files
      .filter((f) => /\bmkdtempSync\s*\(/.test(withoutComments(readFileSync(f, "utf8"))))
      .map((f) => relative(repoRoot, f).split("\\").join("/"));
    expect(offenders).toEqual([]);
  });

  it(`no function of the library's methods/ over ${METHOD_FUNCTION_LINES} lines, and no export * between its modules`, () => {
    const files = sourceFiles(join(repoRoot, "packages/sdspcaan/src/methods")).filter((f) =>
      f.endsWith(".ts"),
    );
    expect(files.length).toBeGreaterThan(30);
    const long: string[] = [];
    const reexports: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      const name = relative(repoRoot, f).split("\\").join("/");
      for (const fn of longFunctions(f, text, METHOD_FUNCTION_LINES)) long.push(`${name}: ${fn}`);
      if (/^\s*export\s*\*/m.test(withoutComments(text))) reexports.push(name);
    }
    expect(long).toEqual([]);
    expect(reexports).toEqual([]);
  });

  it(`no source file of any package over ${SOURCE_FILE_LINES} lines`, () => {
    const files = packageSources();
    expect(files.length).toBeGreaterThan(200);
    const long = files.flatMap((f) => {
      const lines = readFileSync(f, "utf8").split("\n").length - 1;
      return lines > SOURCE_FILE_LINES
        ? [`${relative(repoRoot, f).split("\\").join("/")}: ${lines}`]
        : [];
    });
    expect(long).toEqual([]);
  });

  it("the length check counts a function's lines from its first to its last", () => {
    const body = Array.from({ length: 5 }, (_, i) => `  const a${i} = ${i};`).join("\n");
    const text = `function five() {\n${body}\n}\nclass C {\n  m() {\n${body}\n  }\n}\n`;
    expect(longFunctions("x.ts", text, 6)).toEqual(["five (7)", "m (7)"]);
    expect(longFunctions("x.ts", text, 7)).toEqual([]);
  });
});
