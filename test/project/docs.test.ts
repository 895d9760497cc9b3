/**
 * docs/method-options.md, the option types and the method registry's type
 * (packages/sdspcaan/src/methods/optionTypes.ts, methodRegistry.ts) are generated from the method declarations (`npm run docs`): the
 * committed files must be what the declarations say now. The
 * README and docs/ are reference pages: short, without development history, and with
 * links that resolve.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { methodNames } from "sdspcaan";
import { methodOptionsMarkdown } from "sdspcaan/methods";
import { repoRoot } from "sdspcaan-test-support";
import { describe, expect, it } from "vitest";
import { optionTypesSource } from "../../scripts/docs/optionTypesSource.js";

describe("the generated options reference", () => {
  it("is up to date (run npm run docs after changing an option)", () => {
    const committed = readFileSync(join(repoRoot, "docs", "method-options.md"), "utf8");
    expect(committed).toBe(methodOptionsMarkdown());
  });

  it.each(Object.entries(optionTypesSource()))(
    "and methods/%s is up to date (run npm run docs after changing an option)",
    (name, text) => {
      const file = join(repoRoot, "packages", "sdspcaan", "src", "methods", name);
      expect(readFileSync(file, "utf8")).toBe(text);
    },
  );

  it("documents every option of every method", () => {
    const text = methodOptionsMarkdown();
    for (const name of methodNames()) expect(text).toContain(`(\`${name}\`)`);
    expect(text).toMatch(/\| `lambdaCap` \| number in \[1, inf\) \| 2\^100 \| \*expert\* /);
    expect(text).toMatch(
      /\| `delta` \| 0.01, 0.1, 1, 10, 100 \| 0.01, 0.1, 1, 10, 100 \| 0.1, 1, 10 \|/,
    );
  });
});

/** The pages a reader meets: README.md and docs/*.md. */
function pages(): { name: string; text: string }[] {
  const docs = readdirSync(join(repoRoot, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs].map((name) => ({
    name,
    text: readFileSync(join(repoRoot, name), "utf8"),
  }));
}

function lineCount(name: string): number {
  return readFileSync(join(repoRoot, name), "utf8").trimEnd().split("\n").length;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

describe("the reference pages", () => {
  it("stay short enough to read: README <= 150 lines, performance and reproduction <= 400", () => {
    expect(lineCount("README.md")).toBeLessThanOrEqual(150);
    expect(lineCount("docs/performance.md")).toBeLessThanOrEqual(400);
    expect(lineCount("docs/reproduction.md")).toBeLessThanOrEqual(400);
  });

  it("say what is true now: no page speaks of sessions (history goes to CHANGELOG.md)", () => {
    for (const { name, text } of pages()) {
      const lines = text.split("\n").flatMap((line, i) => (/session/i.test(line) ? [i + 1] : []));
      expect(lines, `${name} says "session" on lines ${lines.join(", ")}`).toEqual([]);
    }
  });

  it("link only to files and headings that exist", () => {
    const broken: string[] = [];
    for (const { name, text } of pages()) {
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (target === undefined || /^[a-z]+:/.test(target)) continue;
        const [path, anchor] = target.split("#") as [string, string | undefined];
        const file = path === "" ? name : join(dirname(name), path);
        if (!existsSync(join(repoRoot, file))) {
          broken.push(`${name}: ${target} (no such file)`);
          continue;
        }
        if (anchor === undefined || !file.endsWith(".md")) continue;
        const headings = readFileSync(join(repoRoot, file), "utf8")
          .split("\n")
          .filter((line) => /^#{1,6} /.test(line))
          .map((line) => anchorOf(line.replace(/^#+ /, "")));
        if (!headings.includes(anchor)) broken.push(`${name}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });
});

/** CHANGELOG.md's entries (a "- " line and its indented continuation), with their first line. */
function changelogEntries(): { line: number; text: string; lines: number }[] {
  const entries: { line: number; text: string; lines: number }[] = [];
  readFileSync(join(repoRoot, "CHANGELOG.md"), "utf8")
    .split("\n")
    .forEach((row, i) => {
      if (row.startsWith("- ")) entries.push({ line: i + 1, text: row.slice(2), lines: 1 });
      else if (row.startsWith("  ") && entries.length > 0 && row.trim() !== "") {
        const last = entries[entries.length - 1] as { text: string; lines: number };
        last.text += ` ${row.trim()}`;
        last.lines++;
      }
    });
  return entries;
}

describe("CHANGELOG.md", () => {
  it("says each change in one or two lines (measurements and history belong in the git log)", () => {
    const long = changelogEntries().filter((e) => e.lines > 2);
    expect(long.map((e) => `line ${e.line}: ${e.lines} lines`)).toEqual([]);
  });

  it("names each change once: no two entries open with the same words (a merge that kept both sides)", () => {
    const seen = new Map<string, number>();
    const twice: string[] = [];
    for (const { line, text } of changelogEntries()) {
      const opening = text.split(/\s+/).slice(0, 6).join(" ");
      const first = seen.get(opening);
      if (first === undefined) seen.set(opening, line);
      else twice.push(`lines ${first} and ${line}: "${opening}"`);
    }
    expect(twice).toEqual([]);
  });
});
