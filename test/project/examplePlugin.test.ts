/**
 * The example plug-in of docs/plugins.md (examples/plugins/fisherfaces.mjs) keeps the
 * estimator contract: the library's exported checks, as a plug-in's own tests run
 * them, pass on it. (Its runs through the CLI, worker threads and shards are in
 * packages/sdspcaan-cli/test/cli/commands/pluginFlag.test.ts; under node:test and the
 * built CLI in packages/sdspcaan-cli/test/slow/examplePlugin.test.ts.)
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { contractChecks, methodDescriptor, unregisterMethod } from "sdspcaan/methods";
import { repoRoot } from "sdspcaan-test-support";
import { afterAll, describe, expect, it } from "vitest";

const PLUGIN = join(repoRoot, "examples", "plugins", "fisherfaces.mjs");
await import(pathToFileURL(PLUGIN).href);
// The registry is the process's: later test files must not see the example's method.
afterAll(() => {
  unregisterMethod("fisherfaces");
});

describe("the example plug-in", () => {
  it("declares its options and a grid for every preset", () => {
    const d = methodDescriptor("fisherfaces");
    expect(d.displayName).toBe("Fisherfaces");
    expect(d.supervised).toBe(true);
    expect(Object.keys(d.options)).toEqual(["k", "pcaShare"]);
    expect(d.tuned).toEqual({
      pcaShare: { paper: [0.25, 0.5, 0.75, 1], authors: [1], quick: [0.5, 1] },
    });
  });

  describe("passes the contract checks", () => {
    for (const check of contractChecks("fisherfaces")) it(check.name, check.run);
  });
});
