/**
 * docs/method-options.md is generated from the method declarations
 * (`npm run docs`): the committed file must be what the declarations say now.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { methodOptionsMarkdown } from "../../packages/sdspcaan/src/methods/optionDocs.js";
import { methodNames } from "../../packages/sdspcaan/src/methods/registry.js";
import { repoRoot } from "../helpers/data.js";

describe("the generated options reference", () => {
  it("is up to date (run npm run docs after changing an option)", () => {
    const committed = readFileSync(join(repoRoot, "docs", "method-options.md"), "utf8");
    expect(committed).toBe(methodOptionsMarkdown());
  });

  it("documents every option of every method", () => {
    const text = methodOptionsMarkdown();
    for (const name of methodNames()) expect(text).toContain(`(\`${name}\`)`);
    expect(text).toMatch(/\| `lambdaCap` \| number in \[1, inf\) \| 2\^100 \| \*expert\* /);
    expect(text).toMatch(
      /\| `delta` \| 0.01, 0.1, 1, 10, 100 \| 0.01, 0.1, 1, 10, 100 \| 0.1, 1, 10 \|/,
    );
  });
});
