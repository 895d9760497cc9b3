/**
 * An error a plug-in's code throws in a fit is the plug-in's failure: `fit` and
 * `evaluate` say so in one line naming the method, the plug-in's file and the error,
 * status 1 (no "unexpected error" stack trace), as `transform` and `plot embedding` do
 * for one it throws while a model is applied; `experiment` records the fits as skipped
 * and its note gives the error's class.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ValidationError } from "sdspcaan";
import { unregisterMethod } from "sdspcaan/methods";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { asPluginFailure } from "#internal/cli/commands/pluginFailure.js";
import { argv, cli, smallCsvFolder } from "../../helpers/cli.js";
import { removeDir, tempDir } from "../../helpers/runs.js";

const folder = smallCsvFolder("plugin-failure");
const dir = tempDir("plugin-failure-run");
afterAll(() => removeDir(dir));
// The registry is the process's: later test files must not see the plug-in's methods.
afterEach(() => {
  unregisterMethod("unit-boom");
  unregisterMethod("unit-refuses");
  unregisterMethod("unit-scale");
});

/**
 * A plug-in whose unit-boom throws a TypeError and unit-refuses a ValidationError in
 * their fits, and whose unit-scale fits (the first k coordinates) but throws when a
 * model of it is applied (its outputScale).
 */
const plugin = join(dir, "boom.mjs");
writeFileSync(
  plugin,
  `import { Estimator, Matrix, ValidationError } from "sdspcaan";
import { defineMethod, registerMethod } from "sdspcaan/methods";
class Boom extends Estimator {
  fitCore(data) {
    if (this.method === "unit-refuses") throw new ValidationError("k", "No k suits me.");
    if (this.method === "unit-boom") throw new TypeError("boom inside fit");
    const W = new Matrix(data.d, this.params.k);
    for (let j = 0; j < this.params.k; j++) W.set(j, j, 1);
    return { components: W, iterations: 0, converged: true, stopReason: "closed-form",
      solver: "first-k", warnings: [], details: {} };
  }
  outputScale() {
    throw new TypeError("boom inside transform");
  }
}
for (const name of ["unit-boom", "unit-refuses", "unit-scale"]) {
  const descriptor = defineMethod({ name, displayName: name, summary: "Fails.", supervised: true,
    options: { k: { type: "integer", min: 1, default: 2, doc: "Components." } },
    create: (options) => new Boom(descriptor, options) });
  registerMethod(descriptor);
}
`,
);

const failure = `sdspcaan: The method "unit-boom" of the plug-in ${plugin} failed: its code threw TypeError: boom inside fit.\n`;

describe("a plug-in method whose code throws", () => {
  it("fit: one line naming the method, the plug-in and the error, status 1, nothing written", async () => {
    const model = join(dir, "model.json");
    const res = await cli(
      argv`fit --plugin ${plugin} --data ${folder.csv} --label-col last --method unit-boom --k 2 --out ${model} --no-progress`,
    );
    expect(res).toEqual({ code: 1, stdout: "", stderr: failure });
    expect(existsSync(model)).toBe(false);
  });

  it("fit --pipeline: the same line", async () => {
    const res = await cli(
      argv`fit --plugin ${plugin} --data ${folder.csv} --label-col last --method unit-boom --k 2 --pipeline --out ${join(dir, "p.json")} --no-progress`,
    );
    expect(res).toEqual({ code: 1, stdout: "", stderr: failure });
  });

  it("evaluate: the same line, status 1", async () => {
    const res = await cli(
      argv`evaluate --plugin ${plugin} --data ${folder.csv} --label-col last --method unit-boom --k 2 --no-progress`,
    );
    expect(res).toEqual({ code: 1, stdout: "", stderr: failure });
  });

  it("transform and plot embedding: the same line for an error thrown applying the model", async () => {
    const model = join(dir, "scale.json");
    const fit = await cli(
      argv`fit --plugin ${plugin} --data ${folder.csv} --label-col last --method unit-scale --k 2 --out ${model} --no-progress`,
    );
    expect(fit.code).toBe(0);
    const applied = `sdspcaan: The method "unit-scale" of the plug-in ${plugin} failed: its code threw TypeError: boom inside transform.\n`;
    const out = join(dir, "scaled.csv");
    const res = await cli(
      argv`transform --plugin ${plugin} --model ${model} --data ${folder.csv} --label-col last --out ${out}`,
    );
    expect(res).toEqual({ code: 1, stdout: "", stderr: applied });
    expect(existsSync(out)).toBe(false);
    const fig = join(dir, "scaled-embedding");
    const plot = await cli(
      argv`plot embedding --plugin ${plugin} --model ${model} --data ${folder.csv} --label-col last --out ${fig}`,
    );
    expect(plot).toEqual({ code: 1, stdout: "", stderr: applied });
    expect(existsSync(`${fig}.svg`)).toBe(false);
  });

  it("a plug-in's own refusal (a ValidationError) is its message, as a built-in's", async () => {
    const res = await cli(
      argv`evaluate --plugin ${plugin} --data ${folder.csv} --label-col last --method unit-refuses --k 2 --no-progress`,
    );
    expect(res).toEqual({ code: 1, stdout: "", stderr: "sdspcaan: No k suits me.\n" });
  });

  it("experiment: the fits are skipped, and the note gives the error's class", async () => {
    const out = join(dir, "run");
    const res = await cli(
      argv`experiment --plugin ${plugin} --data ${folder.csv} --label-col last --methods pca,unit-boom,unit-refuses --grid quick --k-grid 4 --repeats 2 --workers 1 --no-figures --no-progress --out ${out}`,
    );
    expect(res.code).toBe(0);
    const notes = res.stderr.split("\n").filter((l) => l.startsWith("note: unit-"));
    expect(notes).toEqual([
      `note: unit-boom on small: 2 configurations refused, e.g. TypeError: boom inside fit`,
      `note: unit-refuses on small: 2 configurations refused, e.g. No k suits me.`,
    ]);
  });
});

describe("asPluginFailure", () => {
  it("leaves a built-in method's error and sdspcaan's own errors as they are", async () => {
    const bug = new TypeError("a bug of ours");
    expect(await asPluginFailure("pca", bug)).toBe(bug);
    const refusal = new ValidationError("k", "Too many.");
    expect(await asPluginFailure("pca", refusal)).toBe(refusal);
  });
});
